/**
 * Codex ResponseItems (OpenAI Responses API items as a rollout stores them) in pi's shapes:
 * message content, reasoning, tool calls, tool outputs and token usage. Used by `codex.ts`;
 * pure functions of one item.
 */

import type { ImageContent, TextContent, ThinkingContent, ToolCall } from "../core/types.js";
import { isJson, type Json, type PiUsage, type UnmappedBlock, zeroUsage } from "./claude-code-content.js";

/** Item types that are the model's output: consecutive ones form one assistant message. */
export const OUTPUT_ITEMS = new Set([
	"reasoning",
	"function_call",
	"custom_tool_call",
	"web_search_call",
	"local_shell_call",
	"image_generation_call",
	"tool_search_call",
]);

/** Item types that are a tool's answer to a call with the same `call_id`. */
export const OUTPUT_RESULT_ITEMS = new Set([
	"function_call_output",
	"custom_tool_call_output",
	"local_shell_call_output",
	"tool_search_output",
]);

/**
 * Starts of user messages Codex adds itself (AGENTS.md, environment context, skills, shell
 * commands, aborted-turn notes): they reach the model but are not turn boundaries, so a
 * rollback does not count them (Codex's `is_contextual_user_message_content`).
 */
const CONTEXTUAL_USER_PREFIXES = [
	"# agents.md instructions for",
	"<user_instructions>",
	"<environment_context>",
	"<skill>",
	"<skills_instructions>",
	"<user_shell_command>",
	"<turn_aborted>",
	"<subagent_notification>",
];

/** The fields of `item` other than `omit`. */
export function rest(item: Json, omit: readonly string[]): Json {
	const out: Json = {};
	for (const [key, value] of Object.entries(item)) if (!omit.includes(key)) out[key] = value;
	return out;
}

/** `data:<mime>;base64,<data>` as an image block, or undefined. */
function dataUrlImage(url: unknown): ImageContent | undefined {
	if (typeof url !== "string") return undefined;
	const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
	return match ? { type: "image", data: match[2] as string, mimeType: match[1] as string } : undefined;
}

/** Message or tool-output content items (`input_text`, `output_text`, `input_image`, …) as pi blocks. */
export function contentItems(items: readonly unknown[]): {
	content: Array<TextContent | ImageContent>;
	unmapped: UnmappedBlock[];
} {
	const content: Array<TextContent | ImageContent> = [];
	const unmapped: UnmappedBlock[] = [];
	items.forEach((item, index) => {
		if (isJson(item) && typeof item.text === "string" && /^(input_text|output_text|text)$/.test(String(item.type))) {
			content.push({ type: "text", text: item.text });
			return;
		}
		const image = isJson(item) && item.type === "input_image" ? dataUrlImage(item.image_url) : undefined;
		if (image) content.push(image);
		else unmapped.push({ index, block: item });
	});
	return { content, unmapped };
}

/** True for a user message that Codex counts as the start of a turn (see {@link CONTEXTUAL_USER_PREFIXES}). */
export function isTurnStart(content: readonly unknown[]): boolean {
	return !content.some((item) => {
		if (!isJson(item) || typeof item.text !== "string") return false;
		const text = item.text.trimStart().toLowerCase();
		return CONTEXTUAL_USER_PREFIXES.some((prefix) => text.startsWith(prefix));
	});
}

/**
 * A reasoning item as pi's OpenAI Responses provider stores one: the summary (or content)
 * text as the thinking, the whole item as JSON in `thinkingSignature` (pi sends it back as is).
 */
export function reasoningBlock(item: Json): ThinkingContent {
	const texts = (value: unknown): string =>
		Array.isArray(value)
			? value
					.filter((part): part is Json => isJson(part) && typeof part.text === "string")
					.map((part) => part.text as string)
					.join("\n\n")
			: "";
	return {
		type: "thinking",
		thinking: texts(item.summary) || texts(item.content),
		thinkingSignature: JSON.stringify(item),
	};
}

/** A function call's `arguments` (a JSON string) as an object; the raw string when it is not one. */
export function callArguments(raw: unknown): { arguments: Record<string, unknown>; raw?: unknown } {
	if (isJson(raw)) return { arguments: raw };
	if (typeof raw === "string") {
		try {
			const parsed: unknown = JSON.parse(raw);
			if (isJson(parsed)) return { arguments: parsed };
		} catch {
			// Not JSON (a redacted or truncated argument string): kept raw below.
		}
	}
	return { arguments: {}, raw };
}

/** A tool call block; `raw` arguments that are no JSON object are kept as `rawArguments`. */
export function toolCallBlock(callId: string, name: string, args: ReturnType<typeof callArguments>): ToolCall {
	const block: ToolCall = { type: "toolCall", id: callId, name, arguments: args.arguments };
	if (args.raw !== undefined) block.rawArguments = args.raw;
	return block;
}

/** A tool output (`output`: a string, content items, or `{content, success}`) as tool-result content. */
export function toolOutput(output: unknown): {
	content: Array<TextContent | ImageContent>;
	unmapped: UnmappedBlock[];
	isError: boolean;
} {
	if (typeof output === "string") return { content: [{ type: "text", text: output }], unmapped: [], isError: false };
	if (Array.isArray(output)) return { ...contentItems(output), isError: false };
	if (isJson(output) && (typeof output.content === "string" || Array.isArray(output.content))) {
		return { ...toolOutput(output.content), isError: output.success === false };
	}
	if (output === undefined || output === null) return { content: [], unmapped: [], isError: false };
	return { content: [{ type: "text", text: JSON.stringify(output) }], unmapped: [], isError: false };
}

function count(value: unknown): number {
	return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/**
 * A `last_token_usage` as pi's OpenAI Responses provider turns `response.usage` into `Usage`:
 * cached input apart from plain input, the total as given, cost 0 (not known to an import).
 */
export function openAiUsage(usage: Json): PiUsage {
	const out = zeroUsage();
	const cached = count(usage.cached_input_tokens);
	out.input = count(usage.input_tokens) - cached;
	out.output = count(usage.output_tokens);
	out.cacheRead = cached;
	out.totalTokens = count(usage.total_tokens);
	return out;
}

/** Codex's reasoning `effort` as a pi thinking level, or undefined for a value pi has no level for. */
export function thinkingLevel(effort: unknown): string | undefined {
	if (effort === "none") return "off";
	return typeof effort === "string" && ["minimal", "low", "medium", "high", "xhigh"].includes(effort)
		? effort
		: undefined;
}
