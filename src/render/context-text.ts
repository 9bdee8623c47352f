/**
 * The model context as a numbered listing, one line per message, then the model and the
 * thinking level:
 *
 * ```
 * 1. 9f8e7d6c compaction summary: The CI failed on Node 16… (4,210 tokens before)
 * 2. (kept)   user: Can you pin the CI image to Node 20?
 * 3. 5e6f7a8b assistant: Done: ci.yml now uses node-version 20.
 * model: anthropic/claude-sonnet-4-5
 * thinking level: off
 * ```
 *
 * With source entries, each line names the entry the message comes from; messages a
 * compaction carries in its `retainedTail` are marked `(kept)`.
 */

import type { ContextEntry } from "../core/context.js";
import type { CompactionSummaryMessage, ContextMessage, SessionContext } from "../core/types.js";
import { describeMessage, formatDescription, sanitize } from "./preview.js";

/** Options of {@link renderContext}. */
export interface ContextTextOptions {
	/** The entries the messages come from (same order and length as the messages). */
	entries?: readonly ContextEntry[];
	/** Preview length in characters. Default 72. */
	previewLength?: number;
	/** Leave out the model and thinking level lines. */
	messagesOnly?: boolean;
}

/** Renders a context (as `buildSessionContext` returns it) as lines of text. */
export function renderContextLines(context: SessionContext, options: ContextTextOptions = {}): string[] {
	const previewLength = options.previewLength ?? 72;
	const { messages } = context;
	const entries = options.entries && options.entries.length === messages.length ? options.entries : undefined;
	const width = String(messages.length).length;
	const lines: string[] = [];
	if (messages.length === 0) lines.push("(no messages)");
	messages.forEach((message, i) => {
		const number = `${String(i + 1).padStart(width)}.`;
		const source = entries ? ` ${sourceColumn(entries[i] as ContextEntry)}` : "";
		lines.push(`${number}${source} ${formatDescription(describeMessage(message), previewLength)}${suffix(message)}`);
	});
	if (!options.messagesOnly) {
		const model = context.model ? `${context.model.provider}/${context.model.modelId}` : "(none)";
		lines.push(`model: ${sanitize(model)}`);
		lines.push(`thinking level: ${sanitize(context.thinkingLevel)}`);
	}
	return lines;
}

/** {@link renderContextLines} joined, with a final newline. */
export function renderContext(context: SessionContext, options: ContextTextOptions = {}): string {
	return `${renderContextLines(context, options).join("\n")}\n`;
}

/** The id of the source entry, or `(kept)` for a message a compaction carries itself. */
function sourceColumn({ entry, message }: ContextEntry): string {
	const retained = entry.type === "compaction" && message.role !== "compactionSummary";
	return retained ? "(kept)  " : entry.id.padEnd(8);
}

function suffix(message: ContextMessage): string {
	if (message.role === "compactionSummary") {
		const tokens = (message as CompactionSummaryMessage).tokensBefore;
		return typeof tokens === "number" ? ` (${tokens.toLocaleString("en-US")} tokens before)` : "";
	}
	if (message.role === "branchSummary") return ` (from ${sanitize(String(message.fromId))})`;
	return "";
}
