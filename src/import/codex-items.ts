/**
 * Codex ResponseItems (OpenAI Responses API items as a rollout stores them) in pi's shapes:
 * message content, reasoning, tool calls, tool outputs and thinking levels (token usage is
 * `usageFromOpenAI` in `common.ts`). Used by `codex.ts`; pure functions of one item.
 */

import type { ImageContent, TextContent, ThinkingContent, ToolCall } from "../core/types.js";
import { imageFromDataUrl, isJson, type Json, jsonObjectOf, mapBlocks, type UnmappedBlock } from "./common.js";
import { isCodexInjectedText } from "./injected.js";

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

/** A message or tool-output content item (`input_text`, `output_text`, `input_image`, …) as a pi block, or undefined. */
export function contentItem(item: unknown): TextContent | ImageContent | undefined {
	if (!isJson(item)) return undefined;
	if (typeof item.text === "string" && /^(input_text|output_text|text)$/.test(String(item.type))) {
		return { type: "text", text: item.text };
	}
	return item.type === "input_image" ? imageFromDataUrl(item.image_url) : undefined;
}

/** Message or tool-output content items as pi blocks, and those that have none. */
export function contentItems(items: readonly unknown[]): {
	content: Array<TextContent | ImageContent>;
	unmapped: UnmappedBlock[];
} {
	return mapBlocks(items, contentItem);
}

/** True for a user message that Codex counts as the start of a turn: none of its texts is injected ({@link isCodexInjectedText}). */
export function isTurnStart(content: readonly unknown[]): boolean {
	return !content.some((item) => isJson(item) && typeof item.text === "string" && isCodexInjectedText(item.text));
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
	const parsed = jsonObjectOf(raw);
	// Not a JSON object (a redacted or truncated argument string): kept raw.
	return parsed ? { arguments: parsed } : { arguments: {}, raw };
}

/** A tool call block; `raw` arguments that are no JSON object are kept as `rawArguments`. */
export function toolCallBlock(callId: string, name: string, args: ReturnType<typeof callArguments>): ToolCall {
	const block: ToolCall = { type: "toolCall", id: callId, name, arguments: args.arguments };
	if (args.raw !== undefined) block.rawArguments = args.raw;
	return block;
}

/**
 * The output text and metadata of Codex's shell envelope: until about 0.60 its shell tool's
 * `function_call_output` holds a JSON text `{"output":"…","metadata":{"exit_code":N,…}}`
 * rather than the output itself. Undefined for any other text (a command's output that is
 * JSON of another shape stays as it is).
 */
export function shellEnvelope(text: string): { output: string; exitCode: number | undefined } | undefined {
	if (!text.startsWith('{"output":')) return undefined;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (!isJson(value) || typeof value.output !== "string" || !isJson(value.metadata)) return undefined;
	if (Object.keys(value).length !== 2) return undefined;
	const code = value.metadata.exit_code;
	return { output: value.output, exitCode: typeof code === "number" ? code : undefined };
}

/**
 * A tool output (`output`: a string, content items, or `{content, success}`) as tool-result
 * content. Codex's shell envelope ({@link shellEnvelope}) becomes what pi's bash tool records:
 * the output text, and on a non-zero exit code `Command exited with code N` after a blank line,
 * as an error; `envelope` is then true (the caller keeps the raw text in the entry's `source`).
 */
export function toolOutput(output: unknown): {
	content: Array<TextContent | ImageContent>;
	unmapped: UnmappedBlock[];
	isError: boolean;
	envelope?: true;
} {
	if (typeof output === "string") {
		const envelope = shellEnvelope(output);
		if (envelope !== undefined) {
			const failed = envelope.exitCode !== undefined && envelope.exitCode !== 0;
			// pi's bash tool: appendStatus(text, `Command exited with code ${exitCode}`), thrown as an error.
			const status = `Command exited with code ${envelope.exitCode}`;
			const text = failed ? `${envelope.output ? `${envelope.output}\n\n` : ""}${status}` : envelope.output;
			return { content: [{ type: "text", text }], unmapped: [], isError: failed, envelope: true };
		}
		return { content: [{ type: "text", text: output }], unmapped: [], isError: false };
	}
	if (Array.isArray(output)) return { ...contentItems(output), isError: false };
	if (isJson(output) && (typeof output.content === "string" || Array.isArray(output.content))) {
		return { ...toolOutput(output.content), isError: output.success === false };
	}
	if (output === undefined || output === null) return { content: [], unmapped: [], isError: false };
	return { content: [{ type: "text", text: JSON.stringify(output) }], unmapped: [], isError: false };
}

/** Codex's reasoning `effort` as a pi thinking level, or undefined for a value pi has no level for. */
export function thinkingLevel(effort: unknown): string | undefined {
	if (effort === "none") return "off";
	return typeof effort === "string" && ["minimal", "low", "medium", "high", "xhigh"].includes(effort)
		? effort
		: undefined;
}
