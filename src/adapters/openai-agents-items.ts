/**
 * How an OpenAI Agents SDK item (`AgentInputItem`) becomes a session-tree entry and back, for
 * `session-tree/openai-agents` (src/adapters/openai-agents.ts). Private to that adapter.
 *
 * Every item is one entry. User and assistant messages become pi `user`/`assistant` messages,
 * function calls an assistant message with one `toolCall` block, function results a
 * `toolResult` message; every other item (reasoning, hosted and built-in tool calls and their
 * results, compaction, system messages, unknown items) a `custom` entry, which pi never sends
 * to a model. Whatever the entry, the item itself is kept on it (`message.openaiAgentsItem`, or
 * the custom entry's `data.item`): the pi message is a projection for pi, `tree`, `ctx` and the
 * other views, and `getItems` returns the stored item, deep-equal to what was added.
 *
 * Only types are imported from `@openai/agents`: loading this module does not load the SDK.
 */

import type { AgentInputItem } from "@openai/agents";
import { emptyUsage } from "../core/entries.js";
import { SessionTreeError } from "../core/errors.js";
import { MAX_NESTING, nestingProblem } from "../core/nesting.js";
import type {
	AgentMessage,
	AssistantMessage,
	ImageContent,
	SessionEntry,
	TextContent,
	ToolResultMessage,
	UserMessage,
} from "../core/types.js";

/** The field of a pi message that holds the item it stands for. */
export const ITEM_FIELD = "openaiAgentsItem";
/** The `customType` of a custom entry holding an item (`data: { item }`). */
export const ITEM_CUSTOM_TYPE = "openai-agents/item";
/** The `customType` of the custom entry that records an applied history transaction. */
export const OPERATION_CUSTOM_TYPE = "openai-agents/operation";

/** What an assistant message says about the model: pi's assistant messages name one. */
export interface ModelLabels {
	/** pi's `api` of the assistant messages. Default `"openai-responses"`. */
	api?: string;
	/** pi's `provider` of the assistant messages. Default `"openai"`. */
	provider?: string;
	/** pi's `model` of the assistant messages. Default `""` (the items do not name it). */
	model?: string;
}

/** An item as one entry to append: a pi message, or a custom entry. */
export type ItemRecord =
	| { kind: "message"; message: AgentMessage }
	| { kind: "custom"; data: { item: AgentInputItem } };

/** A JSON object. */
type Json = Record<string, unknown>;

function isJson(value: unknown): value is Json {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A deep copy of `value` as it reads back from JSON (object keys holding `undefined` dropped),
 * or an INVALID_ARGUMENT error naming where it holds what JSON cannot keep (a `Uint8Array`, a
 * `Date`, a function, a non-finite number, a cycle…): what is stored must read back equal.
 */
export function jsonCopy(value: unknown, where = "item"): unknown {
	const seen = new Set<object>();
	// The recursion goes no deeper than a record may nest (core/nesting.ts): deeper is refused.
	const copy = (node: unknown, path: string, depth = 1): unknown => {
		if (node === null || typeof node === "string" || typeof node === "boolean") return node;
		if (typeof node === "number") {
			if (Number.isFinite(node)) return node;
			throw unsupported(path, "a number JSON cannot hold");
		}
		if (typeof node !== "object") throw unsupported(path, `a ${typeof node}`);
		if (seen.has(node)) throw unsupported(path, "a cycle");
		if (depth > MAX_NESTING) throw unsupported(path, `arrays and objects nested deeper than ${MAX_NESTING} levels`);
		seen.add(node);
		try {
			if (Array.isArray(node)) {
				return node.map((element, index) => {
					if (element === undefined) throw unsupported(`${path}[${index}]`, "undefined");
					return copy(element, `${path}[${index}]`, depth + 1);
				});
			}
			const prototype = Object.getPrototypeOf(node);
			if (prototype !== Object.prototype && prototype !== null) {
				throw unsupported(path, `a ${node.constructor?.name ?? "non-plain"} object (convert it, e.g. to a data: URL)`);
			}
			const out: Json = {};
			for (const [key, field] of Object.entries(node)) {
				if (field !== undefined) out[key] = copy(field, `${path}.${key}`, depth + 1);
			}
			return out;
		} finally {
			seen.delete(node);
		}
	};
	return copy(value, where);
}

function unsupported(path: string, what: string): SessionTreeError {
	return new SessionTreeError("INVALID_ARGUMENT", `${path} holds ${what}, which a session cannot store as JSON`);
}

/** The JSON text of a value with object keys sorted: equal for structurally equal JSON values. */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(sortKeys);
	if (!isJson(value)) return value;
	const out: Json = {};
	for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
	return out;
}

/** True when two items are the same JSON value (key order aside). */
export function sameItem(a: unknown, b: unknown): boolean {
	return canonicalJson(a) === canonicalJson(b);
}

/** The item an entry holds, or undefined for an entry that is not an item (a label, a pi message of another writer…). */
export function itemOf(entry: SessionEntry): AgentInputItem | undefined {
	if (entry.type === "message") {
		const item = (entry.message as Json | undefined)?.[ITEM_FIELD];
		return isJson(item) ? (item as AgentInputItem) : undefined;
	}
	if (entry.type === "custom" && entry.customType === ITEM_CUSTOM_TYPE) {
		const item = isJson(entry.data) ? entry.data.item : undefined;
		return isJson(item) ? (item as AgentInputItem) : undefined;
	}
	return undefined;
}

/**
 * The entry for an item (already a JSON copy, see {@link jsonCopy}); `timestamp` in epoch
 * milliseconds for the pi message.
 */
export function recordOf(item: AgentInputItem, labels: ModelLabels, timestamp: number): ItemRecord {
	const message = messageOf(item as unknown as Json, labels, timestamp);
	if (message === undefined) return { kind: "custom", data: { item } };
	message[ITEM_FIELD] = item;
	return { kind: "message", message };
}

function messageOf(item: Json, labels: ModelLabels, timestamp: number): AgentMessage | undefined {
	const type = item.type;
	if (type === undefined || type === "message") {
		if (item.role === "user") return userMessageOf(item, timestamp);
		if (item.role === "assistant") return assistantMessageOf(item, labels, timestamp);
		return undefined; // system messages, and roles pi has no message for
	}
	if (type === "function_call") return functionCallOf(item, labels, timestamp);
	if (type === "function_call_result") return functionResultOf(item, timestamp);
	return undefined;
}

function userMessageOf(item: Json, timestamp: number): UserMessage | undefined {
	const content = item.content;
	if (typeof content === "string") return { role: "user", content, timestamp };
	if (!Array.isArray(content)) return undefined;
	return { role: "user", content: content.map(inputPart), timestamp };
}

function assistantMessageOf(item: Json, labels: ModelLabels, timestamp: number): AssistantMessage | undefined {
	if (!Array.isArray(item.content)) return undefined;
	const content: TextContent[] = item.content.map((part: unknown) => ({ type: "text", text: outputText(part) }));
	return assistantMessage(content, labels, item.status === "incomplete" ? "length" : "stop", timestamp);
}

function functionCallOf(item: Json, labels: ModelLabels, timestamp: number): AssistantMessage | undefined {
	if (typeof item.callId !== "string" || typeof item.name !== "string") return undefined;
	const call = { type: "toolCall" as const, id: item.callId, name: item.name, arguments: argumentsOf(item.arguments) };
	return assistantMessage([call], labels, "toolUse", timestamp);
}

function functionResultOf(item: Json, timestamp: number): ToolResultMessage | undefined {
	if (typeof item.callId !== "string" || typeof item.name !== "string") return undefined;
	const output = item.output;
	const parts =
		typeof output === "string" ? [textBlock(output)] : (Array.isArray(output) ? output : [output]).map(inputPart);
	return {
		role: "toolResult",
		toolCallId: item.callId,
		toolName: item.name,
		content: parts,
		isError: false,
		timestamp,
	};
}

function assistantMessage(
	content: AssistantMessage["content"],
	labels: ModelLabels,
	stopReason: string,
	timestamp: number,
): AssistantMessage {
	return {
		role: "assistant",
		content,
		api: labels.api ?? "openai-responses",
		provider: labels.provider ?? "openai",
		model: labels.model ?? "",
		usage: emptyUsage(),
		stopReason,
		timestamp,
	};
}

/** The arguments of a tool call as pi keeps them: an object (a JSON text that is none is kept as `{ raw }`). */
function argumentsOf(text: unknown): Record<string, unknown> {
	if (typeof text !== "string") return {};
	try {
		const parsed: unknown = JSON.parse(text);
		// Nested deeper than a record may be: kept as text, like any text that is no object.
		if (isJson(parsed) && nestingProblem(text, parsed) === undefined) return parsed;
	} catch {
		// not JSON: kept as text
	}
	return { raw: text };
}

function textBlock(text: string): TextContent {
	return { type: "text", text };
}

/**
 * A part of user content or of a tool's output as a pi block: text as text, an image given as
 * a base64 `data:` URL as an image; anything pi cannot hold (a remote image, a file, audio) as
 * a short text that names it.
 */
function inputPart(part: unknown): TextContent | ImageContent {
	if (!isJson(part)) return textBlock(String(part));
	switch (part.type) {
		case "input_text":
		case "text":
			return textBlock(typeof part.text === "string" ? part.text : "");
		case "input_image":
		case "image": {
			const image = part.image;
			const source = isJson(image) ? (image.url ?? image.fileId ?? image.id ?? image.data) : image;
			const block = imageFromDataUrl(source);
			if (block) return block;
			return textBlock(typeof source === "string" && !source.startsWith("data:") ? `[image: ${source}]` : "[image]");
		}
		case "input_file":
		case "file": {
			const file = part.file;
			const name =
				part.filename ?? (isJson(file) ? (file.filename ?? file.url ?? file.id) : typeof file === "string" ? file : "");
			return textBlock(
				typeof name === "string" && name !== "" && !name.startsWith("data:") ? `[file: ${name}]` : "[file]",
			);
		}
		case "audio":
			return textBlock(typeof part.transcript === "string" ? part.transcript : "[audio]");
		default:
			return textBlock(`[${String(part.type)}]`);
	}
}

/** The text of a part of assistant content (output text, a refusal, an audio transcript). */
function outputText(part: unknown): string {
	if (!isJson(part)) return String(part);
	if (part.type === "output_text" && typeof part.text === "string") return part.text;
	if (part.type === "refusal" && typeof part.refusal === "string") return `[refusal] ${part.refusal}`;
	if (part.type === "audio") return typeof part.transcript === "string" ? part.transcript : "[audio]";
	return `[${String(part.type)}]`;
}

function imageFromDataUrl(url: unknown): ImageContent | undefined {
	if (typeof url !== "string") return undefined;
	const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
	if (!match) return undefined;
	return { type: "image", data: match[2] as string, mimeType: match[1] as string };
}
