/**
 * Which text of an entry a search looks at: user and assistant text, thinking, tool results,
 * bash commands and their output, custom messages, compaction and branch summaries. One
 * definition for the catalog's search, which matches it, and for the full-text indexes of the
 * database stores, which index it: both find the same entries.
 */

import { isObject } from "./validate.js";

/** Entry types that have searchable text. */
export const SEARCHED_TYPES: ReadonlySet<string> = new Set([
	"message",
	"custom_message",
	"compaction",
	"branch_summary",
]);

/** The searchable texts of message content: text blocks and thinking. */
function contentTexts(content: unknown, out: string[]): void {
	if (typeof content === "string") {
		out.push(content);
		return;
	}
	if (!Array.isArray(content)) return;
	for (const block of content) {
		if (!isObject(block)) continue;
		if (block.type === "text" && typeof block.text === "string") out.push(block.text);
		else if (block.type === "thinking" && typeof block.thinking === "string") out.push(block.thinking);
	}
}

/**
 * The role (or entry type) and the texts of an entry that are searched; undefined for entries
 * with no searchable text (model changes, labels, leaf records, …).
 */
export function searchableTexts(record: object): { role: string; texts: string[] } | undefined {
	if (!isObject(record)) return undefined;
	const texts: string[] = [];
	switch (record.type) {
		case "message": {
			const message = record.message;
			if (!isObject(message)) return undefined;
			const role = typeof message.role === "string" ? message.role : "message";
			contentTexts(message.content, texts);
			if (role === "bashExecution") {
				if (typeof message.command === "string") texts.push(message.command);
				if (typeof message.output === "string") texts.push(message.output);
			}
			if (typeof message.summary === "string") texts.push(message.summary);
			return { role, texts };
		}
		case "custom_message":
			contentTexts(record.content, texts);
			return { role: "custom_message", texts };
		case "compaction":
		case "branch_summary":
			if (typeof record.summary === "string") texts.push(record.summary);
			return { role: record.type, texts };
		default:
			return undefined;
	}
}
