/**
 * Gemini CLI's message content (`@google/genai` parts) in pi's shapes, as Gemini CLI itself
 * turns a recorded message back into the API history when it resumes a session
 * (`convertSessionToClientHistory`, packages/core/src/utils/sessionUtils.ts): thoughts, text,
 * function calls, and each tool call's recorded result as a function response. Pure functions
 * of one message record; `gemini.ts` places the entries.
 */

import { emptyUsage } from "../core/entries.js";
import type { ImageContent, TextContent, ThinkingContent, ToolCall, UsageRecord } from "../core/types.js";
import { isJson, type Json, numberField, stringField, textBlock, type UnmappedBlock } from "./common.js";

/** A record's `content` (a `PartListUnion`: a string, a part, or a list of both) as a list of parts. */
export function partList(content: unknown): unknown[] {
	if (content === undefined || content === null) return [];
	if (Array.isArray(content)) return content.map((part) => (typeof part === "string" ? { text: part } : part));
	if (typeof content === "string") return [{ text: content }];
	return [content];
}

/** The text of a record's content, for telling an ignored user message (a slash command, injected context). */
export function partsText(content: unknown): string {
	return partList(content)
		.map((part) => (isJson(part) && typeof part.text === "string" ? part.text : ""))
		.join("");
}

/**
 * True for user content Gemini CLI does not send again when it resumes (`isIgnoredUserContent`):
 * empty, a slash or `?` command, or the `<session_context>` / `<hook_context>` it injects.
 */
export function isIgnoredUserText(text: string): boolean {
	const trimmed = text.trim();
	return (
		trimmed === "" ||
		trimmed.startsWith("/") ||
		trimmed.startsWith("?") ||
		trimmed.startsWith("<session_context>") ||
		trimmed.startsWith("<hook_context>")
	);
}

/** An `inlineData` part with base64 data as an image block (pi has no block for other media). */
function imageOf(part: Json): ImageContent | undefined {
	const data = part.inlineData;
	if (!isJson(data) || typeof data.data !== "string" || typeof data.mimeType !== "string") return undefined;
	if (!data.mimeType.startsWith("image/")) return undefined;
	return { type: "image", data: data.data, mimeType: data.mimeType };
}

/** A text or image part of user or tool-result content; undefined when pi has no such block. */
export function userPart(part: unknown): TextContent | ImageContent | undefined {
	if (!isJson(part)) return undefined;
	if (typeof part.text === "string" && part.thought !== true) return textBlock(part.text);
	return imageOf(part);
}

/** A function response's payload as text, and whether it reports an error (`{output}` / `{error}`, else its JSON). */
function responseText(response: unknown): { text: string; isError: boolean } {
	if (typeof response === "string") return { text: response, isError: false };
	if (!isJson(response)) return { text: JSON.stringify(response ?? null), isError: false };
	if (typeof response.output === "string" && Object.keys(response).length === 1) {
		return { text: response.output, isError: false };
	}
	if (typeof response.error === "string" && Object.keys(response).length === 1) {
		return { text: response.error, isError: true };
	}
	return { text: JSON.stringify(response), isError: "error" in response };
}

/** One tool result's content and error flag, from the parts Gemini CLI sends as the call's function response. */
export interface ResultContent {
	content: Array<TextContent | ImageContent>;
	isError: boolean;
	unmapped: UnmappedBlock[];
	/** The id the first function response answers (the call's id, unless the call was recorded in the content under another). */
	callId?: string;
}

/**
 * The content of the function response `part` (and of the `parts` a multimodal response
 * carries): its payload as text, its images as image blocks.
 */
export function functionResponseContent(part: Json): ResultContent {
	const out: ResultContent = { content: [], isError: false, unmapped: [] };
	const response = isJson(part.functionResponse) ? part.functionResponse : {};
	const { text, isError } = responseText(response.response);
	out.content.push(textBlock(text));
	out.isError = isError;
	const inner = Array.isArray(response.parts) ? response.parts : [];
	inner.forEach((each, index) => {
		const block = userPart(each);
		if (block) out.content.push(block);
		else out.unmapped.push({ index, block: each });
	});
	return out;
}

/**
 * The content of a tool call's recorded `result` (a string, one part, or a list of parts), as
 * the one tool result pi pairs with the call: function responses give their payload, text and
 * image parts sent beside them are added, anything else is left in the record.
 */
export function toolCallResult(result: unknown, status: unknown): ResultContent | undefined {
	if (result === undefined || result === null || result === "") return undefined;
	const failed = status === "error" || status === "cancelled";
	if (typeof result === "string") return { content: [textBlock(result)], isError: failed, unmapped: [] };
	const out: ResultContent = { content: [], isError: failed, unmapped: [] };
	partList(result).forEach((part, index) => {
		if (isJson(part) && isJson(part.functionResponse)) {
			out.callId ??= stringField(part.functionResponse, "id");
			const inner = functionResponseContent(part);
			out.content.push(...inner.content);
			out.isError ||= inner.isError;
			for (const each of inner.unmapped) out.unmapped.push({ index, block: each.block });
			return;
		}
		const block = userPart(part);
		if (block) out.content.push(block);
		else out.unmapped.push({ index, block: part });
	});
	return out.content.length === 0 && out.unmapped.length === 0 ? undefined : out;
}

/** A thought Gemini CLI recorded beside a reply (`{subject, description}`), as the thinking text it sends back. */
function thoughtText(thought: Json): string {
	const description = stringField(thought, "description") ?? "";
	const subject = stringField(thought, "subject");
	return subject ? `**${subject}** ${description}` : description;
}

/** The assistant blocks of a `gemini` record, in the order Gemini CLI sends them again, and what has no pi block. */
export function assistantBlocks(record: Json): {
	blocks: Array<TextContent | ThinkingContent | ToolCall>;
	unmapped: UnmappedBlock[];
} {
	const blocks: Array<TextContent | ThinkingContent | ToolCall> = [];
	const unmapped: UnmappedBlock[] = [];
	const parts = partList(record.content);
	const callsOrThoughtsInContent = parts.some(
		(part) => isJson(part) && (isJson(part.functionCall) || part.thought === true),
	);
	// As Gemini CLI does: thoughts recorded beside the reply only when its content has none of its own.
	if (!callsOrThoughtsInContent && Array.isArray(record.thoughts)) {
		for (const thought of record.thoughts)
			if (isJson(thought)) blocks.push({ type: "thinking", thinking: thoughtText(thought) });
	}
	parts.forEach((part, index) => {
		if (!isJson(part)) {
			unmapped.push({ index, block: part });
			return;
		}
		if (typeof part.text === "string") {
			if (part.thought === true) {
				const block: ThinkingContent = { type: "thinking", thinking: part.text };
				if (typeof part.thoughtSignature === "string") block.thinkingSignature = part.thoughtSignature;
				blocks.push(block);
			} else if (part.text !== "") blocks.push(textBlock(part.text));
			return;
		}
		const call = part.functionCall;
		if (isJson(call) && typeof call.name === "string") {
			blocks.push({
				type: "toolCall",
				id: stringField(call, "id") ?? `call_${index}`,
				name: call.name,
				arguments: isJson(call.args) ? call.args : {},
			});
			return;
		}
		unmapped.push({ index, block: part });
	});
	if (!callsOrThoughtsInContent && Array.isArray(record.toolCalls)) {
		for (const call of record.toolCalls) {
			if (!isJson(call) || typeof call.id !== "string" || typeof call.name !== "string") continue;
			blocks.push({ type: "toolCall", id: call.id, name: call.name, arguments: isJson(call.args) ? call.args : {} });
		}
	}
	return { blocks, unmapped };
}

/**
 * A record's `tokens` (`{input, output, cached, thoughts, tool, total}`, Gemini's
 * `usageMetadata` counts) as pi's Google provider turns `usageMetadata` into usage: cached
 * input apart from plain input, thought tokens counted as output, the total as given, cost 0.
 */
export function geminiUsage(tokens: unknown): UsageRecord {
	const out = emptyUsage();
	if (!isJson(tokens)) return out;
	const cached = numberField(tokens, "cached") ?? 0;
	out.input = Math.max(0, (numberField(tokens, "input") ?? 0) - cached);
	out.output = (numberField(tokens, "output") ?? 0) + (numberField(tokens, "thoughts") ?? 0);
	out.cacheRead = cached;
	out.totalTokens = numberField(tokens, "total") ?? out.input + out.cacheRead + out.output;
	return out;
}
