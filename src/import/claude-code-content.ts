/**
 * Claude Code's message content (Anthropic Messages API blocks) in pi's shapes: text, image,
 * thinking and tool-use blocks, tool results, usage and stop reasons. Used by
 * `claude-code.ts`; pure functions of one line's values.
 */

import type { ImageContent, TextContent, ThinkingContent, ToolCall } from "../core/types.js";

/** A JSON object read from a line. */
export type Json = Record<string, unknown>;

/** True for a JSON object (not an array, not null). */
export function isJson(value: unknown): value is Json {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A block of the source that has no pi equivalent, kept with its index in the source content. */
export interface UnmappedBlock {
	index: number;
	block: unknown;
}

/** pi's usage record (`@mariozechner/pi-ai` `Usage`): token counts and a cost that is never known here. */
export interface PiUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/** Usage with every count zero: what pi's footer and HTML export need when the source has none. */
export function zeroUsage(): PiUsage {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

function count(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * An Anthropic `usage` object as pi's provider turns it into `Usage`: cache reads and writes
 * apart from plain input, `totalTokens` the sum of the four (Anthropic sends no total), cost 0
 * (pi computes cost from its model table, which an import does not have).
 */
export function anthropicUsage(usage: unknown): PiUsage {
	const out = zeroUsage();
	if (!isJson(usage)) return out;
	out.input = count(usage.input_tokens);
	out.output = count(usage.output_tokens);
	out.cacheRead = count(usage.cache_read_input_tokens);
	out.cacheWrite = count(usage.cache_creation_input_tokens);
	out.totalTokens = out.input + out.output + out.cacheRead + out.cacheWrite;
	return out;
}

/** Anthropic's `stop_reason` as pi's `StopReason`; null (a line written mid-stream) falls back on the content. */
export function stopReason(reason: unknown, hasToolCall: boolean): string {
	switch (reason) {
		case "tool_use":
			return "toolUse";
		case "max_tokens":
		case "model_context_window_exceeded":
			return "length";
		case "end_turn":
		case "stop_sequence":
		case "pause_turn":
		case "refusal":
			return "stop";
		default:
			return hasToolCall ? "toolUse" : "stop";
	}
}

/** The fields of `block` other than `omit`, to keep what pi has no name for on the mapped block. */
function rest(block: Json, omit: readonly string[]): Json {
	const out: Json = {};
	for (const [key, value] of Object.entries(block)) if (!omit.includes(key)) out[key] = value;
	return out;
}

/** A text or image block of user or tool-result content; undefined when pi has no such block. */
function userBlock(block: unknown): TextContent | ImageContent | undefined {
	if (!isJson(block)) return undefined;
	if (block.type === "text" && typeof block.text === "string") {
		return { ...rest(block, ["type", "text"]), type: "text", text: block.text };
	}
	const source = block.source;
	if (
		block.type === "image" &&
		isJson(source) &&
		source.type === "base64" &&
		typeof source.data === "string" &&
		typeof source.media_type === "string"
	) {
		return { type: "image", data: source.data, mimeType: source.media_type };
	}
	return undefined;
}

/** User-side blocks in pi's shapes, and those that have none. */
export function userBlocks(blocks: readonly unknown[]): {
	content: Array<TextContent | ImageContent>;
	unmapped: UnmappedBlock[];
} {
	const content: Array<TextContent | ImageContent> = [];
	const unmapped: UnmappedBlock[] = [];
	blocks.forEach((block, index) => {
		const mapped = userBlock(block);
		if (mapped) content.push(mapped);
		else unmapped.push({ index, block });
	});
	return { content, unmapped };
}

/** A `tool_result` block's `content` (a string or blocks) as pi's tool-result content. */
export function toolResultContent(content: unknown): {
	content: Array<TextContent | ImageContent>;
	unmapped: UnmappedBlock[];
} {
	if (typeof content === "string") return { content: [{ type: "text", text: content }], unmapped: [] };
	if (Array.isArray(content)) return userBlocks(content);
	if (content === undefined || content === null) return { content: [], unmapped: [] };
	return { content: [], unmapped: [{ index: 0, block: content }] };
}

/** One assistant content block in pi's shape, or undefined (kept as unmapped by the caller). */
export function assistantBlock(block: unknown): TextContent | ThinkingContent | ToolCall | undefined {
	if (!isJson(block)) return undefined;
	switch (block.type) {
		case "text":
			return typeof block.text === "string"
				? { ...rest(block, ["type", "text"]), type: "text", text: block.text }
				: undefined;
		case "thinking": {
			if (typeof block.thinking !== "string") return undefined;
			const out: ThinkingContent = {
				...rest(block, ["type", "thinking", "signature"]),
				type: "thinking",
				thinking: block.thinking,
			};
			if (typeof block.signature === "string") out.thinkingSignature = block.signature;
			return out;
		}
		case "redacted_thinking":
			// pi keeps the opaque payload in `thinkingSignature` and marks the block redacted.
			return typeof block.data === "string"
				? { type: "thinking", thinking: "", thinkingSignature: block.data, redacted: true }
				: undefined;
		case "tool_use":
			if (typeof block.id !== "string" || typeof block.name !== "string") return undefined;
			return {
				...rest(block, ["type", "id", "name", "input"]),
				type: "toolCall",
				id: block.id,
				name: block.name,
				arguments: isJson(block.input) ? block.input : {},
			};
		default:
			return undefined;
	}
}

/** The text of user content (a string, or the text blocks joined), for matching and summaries. */
export function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((block): block is Json => isJson(block) && block.type === "text" && typeof block.text === "string")
		.map((block) => block.text as string)
		.join("\n\n");
}
