/**
 * How an AI SDK `UIMessage` becomes pi messages, for `session-tree/ai-sdk`
 * (src/adapters/ai-sdk.ts). Private to that adapter.
 *
 * A UIMessage is written as a run of pi messages, each in a `message` entry, chained:
 *
 * - user: one pi `user` message (text parts as text, image files given as `data:` URLs as
 *   images, other files named in a text line);
 * - system: one pi `custom` message (`customType` {@link SYSTEM_TYPE}, not displayed), which pi
 *   sends to the model as it sends extension messages;
 * - assistant: per step (the parts between `step-start` parts) one pi `assistant` message
 *   (text → text blocks, reasoning → thinking blocks, tool parts → toolCall blocks, in order),
 *   followed by one pi `toolResult` message per tool part of the step that has an outcome
 *   (output, error, denial), as pi's own agent loop writes them.
 *
 * Every pi message of the run carries `aiSdk: { messageId }` ({@link MARK_FIELD}); the last one
 * also carries the whole UIMessage (`aiSdk.uiMessage`), which is what `loadChat` returns: pi's
 * messages are a projection for pi and the views, the UIMessage is kept as it was given. An
 * answer that grew (a tool result, an answered approval) goes on with the pi messages it gained,
 * the last carrying the new version; a new version that changes nothing pi sees is a `custom`
 * entry ({@link REVISION_TYPE}, never in the context) holding it.
 *
 * Only types are imported from `ai`: loading this module does not load the SDK.
 */

import type { UIMessage } from "ai";
import { emptyUsage } from "../core/entries.js";
import { SessionTreeError } from "../core/errors.js";
import { stringifyNested } from "../core/nesting.js";
import type {
	AgentMessage,
	AssistantMessage,
	ImageContent,
	SessionEntry,
	TextContent,
	ThinkingContent,
	ToolCall,
	ToolResultMessage,
	UsageRecord,
	UserMessage,
} from "../core/types.js";

/** The field of a pi message that ties it to its UIMessage. */
export const MARK_FIELD = "aiSdk";
/** The `customType` of a custom entry holding a new version of a UIMessage that changed nothing pi sees. */
export const REVISION_TYPE = "ai-sdk/message";
/** The `customType` of the pi message that stands for a UIMessage with role `system`. */
export const SYSTEM_TYPE = "ai-sdk/system";
/** pi's `api` of the assistant messages this adapter writes. */
export const AI_SDK_API = "ai-sdk";

/** What ties an entry to a UIMessage: its id, and on the last entry of a run the message itself. */
export interface Mark {
	messageId: string;
	uiMessage?: UIMessage;
}

/** How the assistant messages of a run name their model. */
export interface ModelNames {
	provider: string;
	model: string;
}

type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The mark of an entry written by this adapter, or undefined for any other entry. */
export function markOf(entry: SessionEntry): Mark | undefined {
	let mark: unknown;
	if (entry.type === "message") mark = (entry.message as Json)[MARK_FIELD];
	else if (entry.type === "custom" && entry.customType === REVISION_TYPE) mark = entry.data;
	if (!isJson(mark) || typeof mark.messageId !== "string") return undefined;
	if (mark.uiMessage !== undefined && !isUIMessageLike(mark.uiMessage)) return { messageId: mark.messageId };
	return mark as unknown as Mark;
}

function isUIMessageLike(value: unknown): value is UIMessage {
	return isJson(value) && typeof value.id === "string" && typeof value.role === "string" && Array.isArray(value.parts);
}

/**
 * The messages as they read back from JSON (keys holding `undefined` dropped, dates as
 * strings), checked: each an object with a non-empty string `id`, distinct, a role `user`,
 * `assistant` or `system`, and `parts`, an array of objects with a string `type`.
 * @throws SessionTreeError INVALID_ARGUMENT naming the first message that is not one
 */
export function plainMessages(messages: unknown): UIMessage[] {
	if (!Array.isArray(messages)) throw invalid("messages must be an array of UIMessages");
	let plain: unknown;
	try {
		// Nested deeper than a record may be (core/nesting.ts): refused, not left to overflow the stack.
		const encoded = stringifyNested(messages);
		if (encoded.problem !== undefined) throw invalid(`messages are ${encoded.problem}`);
		plain = JSON.parse(encoded.json);
	} catch (cause) {
		if (cause instanceof SessionTreeError) throw cause;
		throw new SessionTreeError("INVALID_ARGUMENT", `messages cannot be stored as JSON: ${String(cause)}`);
	}
	const seen = new Set<string>();
	(plain as unknown[]).forEach((message, index) => {
		const where = `messages[${index}]`;
		if (!isJson(message)) throw invalid(`${where} is not a UIMessage object`);
		if (typeof message.id !== "string" || message.id === "") {
			throw invalid(
				`${where} has no id (give toUIMessageStream originalMessages or generateMessageId, so that answers get one)`,
			);
		}
		if (seen.has(message.id)) throw invalid(`${where}: the id ${JSON.stringify(message.id)} appears twice`);
		seen.add(message.id);
		if (message.role !== "user" && message.role !== "assistant" && message.role !== "system") {
			throw invalid(`${where} has role ${JSON.stringify(message.role)} (user, assistant or system)`);
		}
		if (
			!Array.isArray(message.parts) ||
			!message.parts.every((part) => isJson(part) && typeof part.type === "string")
		) {
			throw invalid(`${where} has no parts array of typed parts`);
		}
	});
	return plain as UIMessage[];
}

function invalid(message: string): SessionTreeError {
	return new SessionTreeError("INVALID_ARGUMENT", message);
}

/** True when two JSON values are equal (object keys in any order): the core's one comparison. */
export { sameJson } from "../core/validate.js";

/**
 * The pi messages of a UIMessage (see the module comment), without their marks.
 * @param timestamp the pi messages' time (epoch milliseconds)
 */
export function piMessagesOf(message: UIMessage, timestamp: number, names: ModelNames): AgentMessage[] {
	const parts = message.parts as unknown as Json[];
	if (message.role === "user") return [userMessage(parts, timestamp)];
	if (message.role === "system") {
		const text = parts.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []));
		return [{ role: "custom", customType: SYSTEM_TYPE, content: text.join("\n\n"), display: false, timestamp }];
	}
	const out: AgentMessage[] = [];
	for (const step of stepsOf(parts)) {
		const content: AssistantMessage["content"] = [];
		const results: ToolResultMessage[] = [];
		for (const part of step) {
			const type = part.type as string;
			if (type === "text" && typeof part.text === "string" && part.text !== "") {
				content.push({ type: "text", text: part.text } satisfies TextContent);
			} else if (type === "reasoning" && typeof part.text === "string" && part.text !== "") {
				content.push({ type: "thinking", thinking: part.text } satisfies ThinkingContent);
			} else if (isToolPart(type) && typeof part.toolCallId === "string") {
				const name = toolNameOf(part);
				content.push({
					type: "toolCall",
					id: part.toolCallId,
					name,
					arguments: argumentsOf(part.input),
				} satisfies ToolCall);
				const result = toolResultOf(part, name, timestamp);
				if (result) results.push(result);
			}
		}
		if (content.length === 0 && results.length === 0) continue;
		out.push(assistantMessage(content, timestamp, names));
		out.push(...results);
	}
	// Every UIMessage has at least one entry: an answer with nothing pi shows is an empty reply.
	if (out.length === 0) out.push(assistantMessage([], timestamp, names));
	const usage = usageOf(message.metadata);
	const last = out.findLast((each): each is AssistantMessage => each.role === "assistant");
	// The whole answer's usage (the AI SDK's totalUsage) goes on its last step: that is where pi
	// reads the context size from, and the sum over the chat stays right.
	if (usage && last) last.usage = usage;
	return out;
}

/** An AI SDK `LanguageModelUsage` as far as it is one: a number or undefined in each field read. */
interface SdkUsage {
	inputTokens?: number;
	outputTokens?: number;
	totalTokens?: number;
	inputTokenDetails?: { noCacheTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number };
	cachedInputTokens?: number;
}

/**
 * pi's usage from a UIMessage's metadata: `metadata.usage` (or `metadata.totalUsage`), an AI SDK
 * `LanguageModelUsage` such as `streamText`'s `finish` part gives to `messageMetadata`. pi's
 * `input` counts the tokens not read from or written to a cache, as its providers report them.
 * Undefined when the metadata holds none; costs stay 0 (the SDK does not price).
 */
export function usageOf(metadata: unknown): UsageRecord | undefined {
	if (!isJson(metadata)) return undefined;
	const given = isJson(metadata.usage) ? metadata.usage : isJson(metadata.totalUsage) ? metadata.totalUsage : undefined;
	if (!given) return undefined;
	const sdk = given as SdkUsage;
	const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);
	const details = isJson(sdk.inputTokenDetails) ? sdk.inputTokenDetails : {};
	const cacheRead = count(details.cacheReadTokens ?? sdk.cachedInputTokens);
	const cacheWrite = count(details.cacheWriteTokens);
	const input =
		typeof details.noCacheTokens === "number"
			? count(details.noCacheTokens)
			: Math.max(0, count(sdk.inputTokens) - cacheRead - cacheWrite);
	const output = count(sdk.outputTokens);
	const totalTokens =
		typeof sdk.totalTokens === "number" ? count(sdk.totalTokens) : input + output + cacheRead + cacheWrite;
	return { ...emptyUsage(), input, output, cacheRead, cacheWrite, totalTokens };
}

function userMessage(parts: Json[], timestamp: number): UserMessage {
	const content: Array<TextContent | ImageContent> = [];
	for (const part of parts) {
		if (part.type === "text" && typeof part.text === "string") {
			content.push({ type: "text", text: part.text });
		} else if (part.type === "file" && typeof part.url === "string") {
			const mediaType = typeof part.mediaType === "string" ? part.mediaType : "application/octet-stream";
			const image = mediaType.startsWith("image/") ? imageOf(part.url) : undefined;
			if (image) {
				content.push(image);
			} else {
				const name = typeof part.filename === "string" ? `${part.filename} ` : "";
				const where = part.url.startsWith("data:") ? "" : ` ${part.url}`;
				content.push({ type: "text", text: `[file: ${name}(${mediaType})${where}]` });
			}
		}
	}
	const only = content[0];
	const simple = content.length === 0 ? "" : content.length === 1 && only?.type === "text" ? only.text : content;
	return { role: "user", content: simple, timestamp };
}

function imageOf(url: string): ImageContent | undefined {
	const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
	return match ? { type: "image", data: match[2] as string, mimeType: match[1] as string } : undefined;
}

/** The parts of an assistant message split at its `step-start` parts. */
function stepsOf(parts: Json[]): Json[][] {
	const steps: Json[][] = [[]];
	for (const part of parts) {
		if (part.type === "step-start") {
			if ((steps[steps.length - 1] as Json[]).length > 0) steps.push([]);
		} else {
			(steps[steps.length - 1] as Json[]).push(part);
		}
	}
	return steps;
}

function isToolPart(type: string): boolean {
	return type === "dynamic-tool" || type.startsWith("tool-");
}

function toolNameOf(part: Json): string {
	const type = part.type as string;
	if (type === "dynamic-tool") return typeof part.toolName === "string" ? part.toolName : "tool";
	return type.slice("tool-".length);
}

function argumentsOf(input: unknown): Record<string, unknown> {
	if (isJson(input)) return input;
	return input === undefined ? {} : { input };
}

/** The tool result a tool part's state gives, if it has an outcome yet. */
function toolResultOf(part: Json, name: string, timestamp: number): ToolResultMessage | undefined {
	let text: string;
	let isError = false;
	if (part.state === "output-available") {
		text = typeof part.output === "string" ? part.output : (JSON.stringify(part.output) ?? "");
	} else if (part.state === "output-error") {
		text = typeof part.errorText === "string" ? part.errorText : "Tool execution failed.";
		isError = true;
	} else if (part.state === "output-denied") {
		const reason = isJson(part.approval) && typeof part.approval.reason === "string" ? part.approval.reason : "";
		text = reason === "" ? "Tool execution denied." : `Tool execution denied: ${reason}`;
		isError = true;
	} else {
		return undefined;
	}
	return {
		role: "toolResult",
		toolCallId: part.toolCallId as string,
		toolName: name,
		content: [{ type: "text", text }],
		isError,
		timestamp,
	};
}

function assistantMessage(
	content: AssistantMessage["content"],
	timestamp: number,
	names: ModelNames,
): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: AI_SDK_API,
		provider: names.provider,
		model: names.model,
		usage: emptyUsage(),
		stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
		timestamp,
	};
}

/** What a pi message says to the model, without its time, mark and model names: what continuations compare. */
export function modelView(message: AgentMessage): Json {
	const { role, content, toolCallId, toolName, isError, customType } = message as Json;
	return JSON.parse(JSON.stringify({ role, content, toolCallId, toolName, isError, customType })) as Json;
}
