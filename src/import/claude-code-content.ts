/**
 * Claude Code's message content (Anthropic Messages API blocks) in pi's shapes: text, image,
 * thinking and tool-use blocks, tool results, usage and stop reasons. Used by
 * `claude-code.ts`; pure functions of one line's values.
 */

import { emptyUsage } from "../core/entries.js";
import type { ImageContent, TextContent, ThinkingContent, ToolCall, UsageRecord } from "../core/types.js";
import { isJson, type Json, mapBlocks, numberField, omit, type UnmappedBlock } from "./common.js";

/**
 * An Anthropic `usage` object as pi's provider turns it into `Usage`: cache reads and writes
 * apart from plain input, `totalTokens` the sum of the four (Anthropic sends no total), cost 0
 * (pi computes cost from its model table, which an import does not have).
 */
export function anthropicUsage(usage: unknown): UsageRecord {
	const out = emptyUsage();
	if (!isJson(usage)) return out;
	out.input = numberField(usage, "input_tokens") ?? 0;
	out.output = numberField(usage, "output_tokens") ?? 0;
	out.cacheRead = numberField(usage, "cache_read_input_tokens") ?? 0;
	out.cacheWrite = numberField(usage, "cache_creation_input_tokens") ?? 0;
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

/** A text or image block of user or tool-result content; undefined when pi has no such block. */
function userBlock(block: unknown): TextContent | ImageContent | undefined {
	if (!isJson(block)) return undefined;
	if (block.type === "text" && typeof block.text === "string") {
		return { ...omit(block, ["type", "text"]), type: "text", text: block.text };
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
	return mapBlocks(blocks, userBlock);
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
				? { ...omit(block, ["type", "text"]), type: "text", text: block.text }
				: undefined;
		case "thinking": {
			if (typeof block.thinking !== "string") return undefined;
			const out: ThinkingContent = {
				...omit(block, ["type", "thinking", "signature"]),
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
				...omit(block, ["type", "id", "name", "input"]),
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
