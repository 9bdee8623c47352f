/**
 * The model context as a numbered listing, one line per message, then the model and the
 * thinking level:
 *
 * ```
 * 1. 9f8e7d6c compaction summary: The CI failed on Node 16… (4,210 tokens before)
 * 2. (kept)   user: Can you pin the CI image to Node 20?
 * 3. 5e6f7a8b assistant: Done: ci.yml now uses node-version 20. → edit({"path":"ci.yml"…
 * model: anthropic/claude-sonnet-4-5
 * thinking level: off
 * ```
 *
 * With source entries, each line names the entry the message comes from; messages a
 * compaction carries in its `retainedTail` are marked `(kept)`. Compaction and branch
 * summaries are marked as such, custom messages show their customType, tool calls show as
 * `→ name(arguments)`. With `full`, every message is printed whole, indented below its line.
 */

import type { ContextEntry } from "../core/context.js";
import type { ContextMessage, SessionContext } from "../core/types.js";
import { isObject } from "../core/validate.js";
import { kindStyle, lineWriter, type Segment } from "./color.js";
import { countOf, describeMessage, modelLabel, oneLine, oneLineToWidth, sanitize, sanitizeLines } from "./preview.js";
import { displayWidth } from "./terminal.js";

/** Options of {@link renderContext}. */
export interface ContextTextOptions {
	/** The entries the messages come from (same order and length as the messages). */
	entries?: readonly ContextEntry[];
	/** Preview length in characters. Default 72, or what `width` leaves room for. */
	previewLength?: number;
	/** Leave out the model and thinking level lines. */
	messagesOnly?: boolean;
	/** Print each message whole, indented below its numbered line, instead of a preview. */
	full?: boolean;
	/** Fit the numbered lines into this many terminal columns. */
	width?: number;
	/** Colour by role (ANSI). Default false. */
	color?: boolean;
}

/** Renders a context (as `buildSessionContext` returns it) as lines of text. */
export function renderContextLines(context: SessionContext, options: ContextTextOptions = {}): string[] {
	const width = options.width !== undefined && options.width > 0 ? Math.floor(options.width) : undefined;
	const previewLength = options.previewLength ?? (width === undefined ? 72 : undefined);
	const fit = lineWriter(width, options.color === true);
	const { messages } = context;
	const entries = options.entries && options.entries.length === messages.length ? options.entries : undefined;
	const numberWidth = String(messages.length).length;
	const indent = " ".repeat(numberWidth + 4);
	const lines: string[] = [];
	if (messages.length === 0) lines.push("(no messages)");
	messages.forEach((message, i) => {
		const description = describeMessage(message);
		const head: Segment[] = [{ text: `${String(i + 1).padStart(numberWidth)}.`, styles: ["gray"] }];
		const entry = entries?.[i];
		if (entry) head.push({ text: ` ${sourceColumn(entry)}`, styles: ["gray"] });
		head.push({ text: ` ${sanitize(description.kind)}`, styles: [kindStyle(description.kind), "bold"] });
		const tail: Segment[] = [];
		const after = suffix(message);
		if (after) tail.push({ text: after, styles: ["gray"] });

		if (options.full) {
			const { headline, body } = fullText(message);
			while (body.length > 0 && body[body.length - 1] === "") body.pop();
			while (body.length > 0 && body[0] === "") body.shift();
			const title = headline
				? [...head, { text: `: ${oneLine(headline, 200)}` }, ...tail]
				: [...head, { text: ":" }, ...tail];
			lines.push(fit(title));
			for (const line of body) lines.push(line ? `${indent}${line}` : "");
			return;
		}
		let preview: string;
		if (width === undefined) {
			preview = oneLine(description.text, previewLength);
		} else {
			const fixed = [...head, ...tail].reduce((sum, segment) => sum + displayWidth(segment.text), 0);
			const room = width - fixed - 2;
			preview =
				room >= 4
					? oneLineToWidth(description.text, previewLength === undefined ? room : Math.min(room, previewLength + 1))
					: "";
		}
		lines.push(fit(preview ? [...head, { text: `: ${preview}` }, ...tail] : [...head, ...tail]));
	});
	if (!options.messagesOnly) {
		const model = modelLabel(context.model) ?? "(none)";
		lines.push(
			fit([
				{ text: "model: ", styles: ["gray"] },
				{ text: sanitize(model), styles: ["bold"] },
			]),
		);
		lines.push(
			fit([
				{ text: "thinking level: ", styles: ["gray"] },
				{ text: sanitize(context.thinkingLevel), styles: ["bold"] },
			]),
		);
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
	return retained ? "(kept)  " : sanitize(entry.id).padEnd(8);
}

function suffix(message: ContextMessage): string {
	if (message.role === "compactionSummary") {
		const tokens = message.tokensBefore;
		return typeof tokens === "number" ? ` (${countOf(tokens, "token")} before)` : "";
	}
	if (message.role === "branchSummary") return ` (from ${sanitize(String(message.fromId))})`;
	return "";
}

/** A whole message: a short headline for its numbered line and the lines of its body. */
function fullText(message: unknown): { headline: string; body: string[] } {
	if (!isObject(message)) return { headline: "", body: [] };
	const m = message;
	switch (m.role) {
		case "assistant": {
			let headline = "";
			if (m.stopReason === "error" || m.stopReason === "aborted" || m.stopReason === "length") {
				headline = typeof m.errorMessage === "string" ? `(${m.stopReason}: ${m.errorMessage})` : `(${m.stopReason})`;
			}
			return { headline, body: blockLines(m.content, true) };
		}
		case "toolResult":
			return { headline: `${String(m.toolName)}${m.isError ? " (error)" : ""}`, body: blockLines(m.content, true) };
		case "bashExecution": {
			const exit = typeof m.exitCode === "number" ? ` (exit ${m.exitCode})` : m.cancelled ? " (cancelled)" : "";
			return {
				headline: `$ ${String(m.command)}${exit}`,
				body: typeof m.output === "string" ? sanitizeLines(m.output) : [],
			};
		}
		case "custom":
			return { headline: String(m.customType), body: blockLines(m.content, true) };
		case "compactionSummary":
		case "branchSummary":
			return { headline: "", body: sanitizeLines(String(m.summary)) };
		default:
			return { headline: "", body: blockLines(m.content, true) };
	}
}

/** Message content as lines: text as it is, other blocks tagged, tool calls as `→ name(args)`. */
function blockLines(content: unknown, fullArgs: boolean): string[] {
	if (typeof content === "string") return sanitizeLines(content);
	if (!Array.isArray(content)) return content === undefined || content === null ? [] : sanitizeLines(String(content));
	const lines: string[] = [];
	for (const b of content) {
		if (!isObject(b)) continue;
		switch (b.type) {
			case "text":
				if (typeof b.text === "string") lines.push(...sanitizeLines(b.text));
				break;
			case "image":
				lines.push(`[image${typeof b.mimeType === "string" ? ` ${sanitize(b.mimeType)}` : ""}]`);
				break;
			case "thinking": {
				if (b.redacted) {
					lines.push("[thinking, redacted]");
					break;
				}
				const thought = sanitizeLines(typeof b.thinking === "string" ? b.thinking : "");
				lines.push(
					`[thinking] ${thought[0] ?? ""}`.trimEnd(),
					...thought.slice(1).map((line) => `  ${line}`.trimEnd()),
				);
				break;
			}
			case "toolCall":
				lines.push(`→ ${sanitize(String(b.name))}(${sanitize(argsText(b.arguments, fullArgs))})`);
				break;
			default:
				lines.push(`[${sanitize(String(b.type))}]`);
		}
	}
	return lines;
}

function argsText(args: unknown, full: boolean): string {
	if (args === undefined) return "";
	try {
		const json = JSON.stringify(args);
		if (json === undefined) return "";
		return full || json.length <= 200 ? json : `${json.slice(0, 200)}…`;
	} catch {
		return "…";
	}
}
