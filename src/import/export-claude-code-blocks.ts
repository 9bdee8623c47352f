/**
 * The pieces of Claude Code lines an export rebuilds (used by export-claude-code.ts): pi's
 * blocks as Anthropic blocks, content put back where Claude Code writes it in a line, and what
 * an entry's `source` says of its line. Pure functions.
 */

import type { SessionEntry } from "../core/types.js";
import { CLAUDE_CODE_FORMAT } from "./claude-code-user.js";
import { isJson, type Json, omit } from "./common.js";

/** The entry's Claude Code source, if it came from a Claude Code line. */
export function ccSource(entry: SessionEntry): Json | undefined {
	const source = (entry as unknown as Json).source;
	return isJson(source) && source.format === CLAUDE_CODE_FORMAT ? source : undefined;
}

/**
 * The entry's source if the Claude Agent SDK adapter (src/adapters/claude-agent-sdk.ts) stored
 * it from a transcript line: `{format: "claude-agent-sdk", entry}` (the line as appended) or
 * `{…, of, part}` (a later entry of that line). The name is the adapter's `SDK_FORMAT`, spelled
 * out here because the import layer does not look up at the adapters.
 */
export function sdkSource(entry: SessionEntry): Json | undefined {
	const source = (entry as unknown as Json).source;
	return isJson(source) && source.format === "claude-agent-sdk" ? source : undefined;
}

/** The line a custom entry of a Claude Code import holds. */
export function ccCustomLine(entry: SessionEntry): Json | undefined {
	return entry.type === "custom" && entry.customType.startsWith("claude-code:") && isJson(entry.data)
		? entry.data
		: undefined;
}

/** A copy of `object` with `key: value` placed after the first of `after` it has (else at the end). */
export function withKeyAfter(object: Json, key: string, value: unknown, after: readonly string[]): Json {
	const anchor = after.find((k) => k in object);
	if (anchor === undefined) return { ...object, [key]: value };
	const out: Json = {};
	for (const [k, v] of Object.entries(object)) {
		if (k === key) continue;
		out[k] = v;
		if (k === anchor) out[key] = value;
	}
	return out;
}

/** Where Claude Code has `content` in a message: after `model` when that follows `role`, else after `role`. */
export function withMessageContent(message: Json, content: unknown): Json {
	const keys = Object.keys(message);
	const role = keys.indexOf("role");
	const after = role >= 0 && keys[role + 1] === "model" ? ["model"] : ["role"];
	return withKeyAfter(message, "content", content, after);
}

/** A pi user or tool-result block as an Anthropic block. */
export function userBlockBack(block: Json): Json {
	if (block.type === "image") {
		return { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } };
	}
	return { type: "text", text: block.text, ...omit(block, ["type", "text"]) };
}

/** A pi assistant block as an Anthropic block. */
export function assistantBlockBack(block: Json, toolId: (id: string) => string): Json {
	switch (block.type) {
		case "thinking": {
			if (block.redacted === true) return { type: "redacted_thinking", data: block.thinkingSignature ?? "" };
			const out: Json = { type: "thinking", thinking: block.thinking };
			if (typeof block.thinkingSignature === "string") out.signature = block.thinkingSignature;
			return { ...out, ...omit(block, ["type", "thinking", "thinkingSignature", "redacted"]) };
		}
		case "toolCall":
			return {
				type: "tool_use",
				id: toolId(String(block.id)),
				name: block.name,
				input: block.arguments ?? {},
				...omit(block, ["type", "id", "name", "arguments"]),
			};
		default:
			return { type: "text", text: block.text ?? "", ...omit(block, ["type", "text"]) };
	}
}

/** Blocks with the unmapped ones put back at their indices. */
export function withUnmapped(mapped: readonly unknown[], unmapped: unknown): unknown[] {
	const at = new Map<number, unknown>();
	if (Array.isArray(unmapped)) {
		for (const item of unmapped) if (isJson(item) && typeof item.index === "number") at.set(item.index, item.block);
	}
	const out: unknown[] = [];
	const queue = [...mapped];
	while (queue.length > 0 || at.size > 0) {
		if (at.has(out.length)) {
			out.push(at.get(out.length));
			at.delete(out.length - 1);
		} else if (queue.length > 0) out.push(queue.shift());
		else {
			// Indices past the end (a damaged source): in their order.
			for (const index of [...at.keys()].sort((a, b) => a - b)) out.push(at.get(index));
			at.clear();
		}
	}
	return out;
}

/** A tool result's content as Claude Code had it: a string for one plain text block unless the source says otherwise. */
export function resultContent(content: unknown, unmapped: unknown, shape: unknown): unknown {
	const blocks = (Array.isArray(content) ? content : []).filter(isJson).map(userBlockBack);
	const all = withUnmapped(blocks, unmapped);
	const [only] = all;
	if (shape === "null") return null;
	if (
		shape !== "blocks" &&
		all.length === 1 &&
		isJson(only) &&
		only.type === "text" &&
		Object.keys(only).length === 2
	) {
		return only.text;
	}
	return all;
}

/** A tool_result block with its content where Claude Code puts it (after `type`, or after `tool_use_id` when that follows `type`). */
export function toolResultBlock(rest: Json, content: unknown, shape: unknown): Json {
	if (shape === "absent") return rest;
	const keys = Object.keys(rest);
	const type = keys.indexOf("type");
	const after = type >= 0 && keys[type + 1] === "tool_use_id" ? ["tool_use_id"] : ["type"];
	return withKeyAfter(rest, "content", content, after);
}

/** The key of the user line a message entry came from (undefined for an assistant message). */
export function userKey(source: Json): string | undefined {
	const meta = Array.isArray(source.lines) ? source.lines[0] : undefined;
	if (!isJson(meta)) return undefined;
	const record = meta.record;
	// Later parts of a user line keep no record; the first keeps the line, typed.
	if (isJson(record) && record.type === "assistant") return undefined;
	if (!isJson(record) && source.part === undefined) return undefined;
	return `${String(source.uuid)}#${String(meta.line)}`;
}

export function numberOf(meta: unknown): number | undefined {
	return isJson(meta) && typeof meta.line === "number" ? meta.line : undefined;
}

export function numberOr0(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

export function isoOf(entry: SessionEntry): string {
	const ms = entry.type === "message" && typeof entry.message.timestamp === "number" ? entry.message.timestamp : NaN;
	if (Number.isFinite(ms)) return new Date(ms).toISOString();
	const parsed = Date.parse(entry.timestamp);
	return Number.isNaN(parsed) ? entry.timestamp : new Date(parsed).toISOString();
}

/** pi user content as Claude Code's: a string stays one, blocks become Anthropic blocks. */
export function userContent(content: unknown): unknown {
	if (typeof content === "string") return content;
	return (Array.isArray(content) ? content : []).filter(isJson).map(userBlockBack);
}

/** A tool call id as the Anthropic API takes one (`^[a-zA-Z0-9_-]+$`): other providers' ids may hold `|` or `.`. */
export function toolId(id: string): string {
	const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_");
	return clean === "" ? "toolu_" : clean;
}

export function stopReasonBack(reason: unknown): string {
	switch (reason) {
		case "toolUse":
			return "tool_use";
		case "length":
			return "max_tokens";
		default:
			return "end_turn";
	}
}

/** A pi tool result (not from Claude Code) as the message of a Claude Code user line. */
export function toolResultMessageBack(message: Json): Json {
	const blocks = Array.isArray(message.content) ? message.content.filter(isJson).map(userBlockBack) : [];
	const [only] = blocks;
	const content = blocks.length === 1 && isJson(only) && only.type === "text" ? only.text : blocks;
	const result: Json = { tool_use_id: toolId(String(message.toolCallId)), type: "tool_result", content };
	if (message.isError === true) result.is_error = true;
	return { role: "user", content: [result] };
}

/** A pi assistant message (not from Claude Code) as the message of a Claude Code assistant line, `id` its API id. */
export function assistantMessageBack(message: Json, id: string): Json {
	const blocks = Array.isArray(message.content) ? message.content.filter(isJson) : [];
	const usage = isJson(message.usage) ? message.usage : {};
	return {
		model: typeof message.model === "string" ? message.model : "",
		id,
		type: "message",
		role: "assistant",
		content: blocks.map((block) => assistantBlockBack(block, toolId)),
		stop_reason: stopReasonBack(message.stopReason),
		stop_sequence: null,
		usage: {
			input_tokens: numberOr0(usage.input),
			cache_creation_input_tokens: numberOr0(usage.cacheWrite),
			cache_read_input_tokens: numberOr0(usage.cacheRead),
			output_tokens: numberOr0(usage.output),
		},
	};
}
