/**
 * The Open WebUI importer: an export file (an array of chat rows `{id, title, chat, created_at,
 * …}`), one row, or a bare chat object (`{id, title, models, history, messages, …}`, the
 * database's `chat` column), each chat a pi session.
 *
 * Every message of `history.messages` becomes one entry or more, in the tree its `parentId`
 * and `childrenIds` make, so regenerations, edits and several models answering one message
 * are branches (each answer with its own model); `history.currentId` becomes the leaf. An
 * assistant message whose `output` holds tool calls becomes the steps pi has for them: an
 * assistant message with the calls, a tool result per output, and an assistant message with
 * the answer. The message's own fields are kept on its first entry as `source`, the chat's
 * fields as the import's `state`, so that `session-tree export --to openwebui` gives the chat
 * back. docs/import.md has the mapping table.
 */

import { isDeepStrictEqual } from "node:util";
import * as make from "../core/entries.js";
import { isSessionTreeError } from "../core/errors.js";
import type {
	AgentMessage,
	ImageContent,
	SessionEntry,
	TextContent,
	ThinkingContent,
	ToolCall,
} from "../core/types.js";
import {
	assistantMessage,
	DerivedIds,
	describeConversation,
	earliestTime,
	imageFromDataUrl,
	importError,
	isJson,
	isoFromMillis,
	type Json,
	lastLeaf,
	millisFromSeconds,
	numberField,
	omit,
	parseJsonSource,
	stringField,
	textBlock,
	titleEntry,
	UNKNOWN_MODEL,
	usageFromOpenAI,
	uuidFromName,
	withSource,
} from "./common.js";
import { orderChildren, parentLinks, positionsOf, ROOT, walkLinkedNodes } from "./linked-nodes.js";
import { stepsFromContent, stepsFromOutput } from "./openwebui-steps.js";
import type { ImportedSession, Importer, ImportSkip, ImportSource } from "./types.js";

/** The `api` and `provider` of imported assistant messages (Open WebUI speaks OpenAI's API to its models). */
export const OPENWEBUI_API = "openai-completions";
export const OPENWEBUI_PROVIDER = "open-webui";
/** The `source.format` of entries made from Open WebUI messages. */
export const OPENWEBUI_FORMAT = "openwebui";

/** Message fields the tree holds. */
const LINK_FIELDS = ["parentId", "childrenIds"];

/**
 * The Open WebUI importer (see the module comment): one session per chat.
 * @throws SessionTreeError INVALID_JSON for text that is not JSON; INVALID_RECORD naming the
 *   chat, the message and the field for a chat that is broken (unless lenient)
 */
export const importOpenWebUI: Importer = (source) => {
	const value = parseJsonSource(source);
	const items = Array.isArray(value) ? value : [value];
	const one = (item: unknown, where: string): ImportedSession => {
		if (!isJson(item)) throw importError(source, where, "not a chat object");
		if (isJson(item.chat)) return importChat(source, item, item.chat, where);
		if (isJson(item.history)) return importChat(source, undefined, item, where);
		throw importError(
			source,
			`${where === "" ? "" : `${where} `}chat.history`,
			"missing: this is not an Open WebUI chat (expected a row with `chat` or a chat with `history`)",
		);
	};
	if (!source.lenient || !Array.isArray(value))
		return items.map((item, index) => one(item, Array.isArray(value) ? `[${index}]` : ""));
	// Lenient: a chat broken past working around is left out and reported, the others imported.
	const sessions: ImportedSession[] = [];
	const pending: ImportSkip[] = [];
	let firstError: Error | undefined;
	value.forEach((item, index) => {
		try {
			sessions.push(one(item, `[${index}]`));
		} catch (error) {
			if (!isSessionTreeError(error)) throw error;
			firstError ??= error;
			const prefix = `${source.name}: `;
			const why = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
			pending.push({ source: source.name, where: `[${index}]`, reason: `${why}: chat left out` });
		}
	});
	const first = sessions[0];
	if (!first) throw firstError ?? importError(source, "", "no chat in the export");
	sessions[0] = { ...first, skipped: [...pending, ...first.skipped] };
	return sessions;
};

interface Context {
	readonly chatId: string;
	readonly ids: DerivedIds;
	readonly models: readonly string[];
	/** Links to messages that are not in history.messages (lenient imports keep them for the export). */
	readonly unlinked: Map<string, { parentId?: string; childrenIds?: string[] }>;
}

function importChat(source: ImportSource, row: Json | undefined, chat: Json, where: string): ImportedSession {
	const chatId = stringField(row ?? {}, "id") || stringField(chat, "id") || undefined;
	const title = row?.title ?? chat.title;
	const prefix = `${where === "" ? "" : `${where} `}chat${describeConversation(chatId, title)}`;
	const fail = (field: string, message: string) => importError(source, `${prefix}, ${field}`, message);
	const skipped: ImportSkip[] = [];
	const problem = (field: string, message: string, workaround: string) => {
		if (!source.lenient) throw fail(field, `${message} (--lenient: ${workaround})`);
		skipped.push({ source: source.name, where: `${prefix}, ${field}`, reason: `${message}: ${workaround}` });
	};
	const history = chat.history;
	if (!isJson(history)) throw fail("history", "missing or not an object");
	const messages = history.messages;
	if (!isJson(messages)) throw fail("history.messages", "missing or not an object");

	const keys: string[] = [];
	const nodes: Json[] = [];
	for (const key of Object.keys(messages)) {
		const message = messages[key];
		if (!isJson(message)) {
			problem(`history.messages/${key}`, "not a message object", "left out");
			continue;
		}
		// Lenient imports work around a link of the wrong kind; the message keeps it in `source`.
		const parent = message.parentId;
		if (parent !== undefined && parent !== null && typeof parent !== "string") {
			problem(`history.messages/${key}/parentId`, "not a message id or null", "imported as a root");
		}
		if (message.childrenIds !== undefined && !Array.isArray(message.childrenIds)) {
			problem(`history.messages/${key}/childrenIds`, "not a list of message ids", "ignored");
		}
		keys.push(key);
		nodes.push(message);
	}
	const unlinked: Context["unlinked"] = new Map();
	const positions = positionsOf(keys);
	const parentOf = parentLinks(
		keys,
		positions,
		(at) => {
			const parent = (nodes[at] as Json).parentId;
			return typeof parent === "string" ? parent : null;
		},
		(at, parent) => {
			const key = keys[at] as string;
			problem(
				`history.messages/${key}/parentId`,
				`names message ${parent}, which is not in history.messages`,
				"imported as a root",
			);
			unlinked.set(key, { parentId: parent });
		},
	);
	const children = orderChildren(
		positions,
		parentOf,
		(at) => {
			const listed = (nodes[at] as Json).childrenIds;
			return Array.isArray(listed) ? listed : [];
		},
		(at, child, why) => {
			const key = keys[at] as string;
			const field = `history.messages/${key}/childrenIds`;
			if (why === "not an id") problem(field, `holds ${JSON.stringify(child)}, not a message id`, "left out");
			else if (why === "missing") {
				problem(field, `names message ${child}, which is not in history.messages`, "left out");
				const links = unlinked.get(key) ?? {};
				links.childrenIds ??= [];
				links.childrenIds.push(child as string);
				unlinked.set(key, links);
			} else {
				const up = parentOf[positions.get(child as string) as number] as number;
				problem(
					field,
					`names message ${child}, whose parentId is ${up === ROOT ? "null" : keys[up]}`,
					"the message's parentId decides",
				);
			}
		},
	);

	const roots = keys.filter((_, at) => parentOf[at] === ROOT);
	const sessionId = uuidFromName(`openwebui:${chatId ?? `messages:${roots[0] ?? keys[0] ?? ""}`}`);
	const created = numberField(row ?? {}, "created_at");
	const chatTime = numberField(chat, "timestamp");
	const headerMs =
		created !== undefined
			? millisFromSeconds(created)
			: chatTime !== undefined
				? chatTime
				: earliestTime(nodes, (node) => numberField(node, "timestamp"));
	const header = make.sessionHeader(sessionId, isoFromMillis(headerMs), "");
	const models = Array.isArray(chat.models) ? chat.models.filter((model) => typeof model === "string") : [];
	const context: Context = { chatId: chatId ?? sessionId, ids: new DerivedIds(), models, unlinked };

	const { records, entryOf } = walkLinkedNodes(
		{ keys, parent: parentOf, children },
		{ title: titleEntry(context.ids, context.chatId, title, header.timestamp), time: headerMs },
		(at, place) => convertMessage(context, keys[at] as string, nodes[at] as Json, place),
		(at) =>
			problem(`history.messages/${keys[at]}/parentId`, "is part of a cycle of parent links", "imported as a root"),
	);

	let leafId: string | null;
	const current = history.currentId;
	const currentEntry = typeof current === "string" ? entryOf[positions.get(current) ?? -1] : undefined;
	if (currentEntry !== undefined) leafId = currentEntry;
	else {
		leafId = lastLeaf(records);
		if (typeof current === "string") {
			problem(
				"history.currentId",
				`names message ${current}, which is not in history.messages`,
				"the last leaf is the leaf",
			);
		}
	}

	// The flat `messages` list of a chat copies the current path; kept as a flag when it does exactly.
	const state: Json = { format: OPENWEBUI_FORMAT, shape: row ? "row" : "chat" };
	if (row) state.row = omit(row, ["chat"]);
	state.chat = omit(chat, ["history", "messages"]);
	state.history = omit(history, ["messages"]);
	if ("messages" in chat) {
		const path: Json[] = [];
		// Walked up by position; a cycle's node was cut to a root by the walk, so this ends.
		for (let at = typeof current === "string" ? (positions.get(current) ?? ROOT) : ROOT; at !== ROOT; ) {
			path.push(nodes[at] as Json);
			at = parentOf[at] as number;
		}
		path.reverse();
		state.messages = isDeepStrictEqual(chat.messages, path) ? "path" : chat.messages;
	}
	return { format: "openwebui", header, records, leafId, skipped, state };
}

/** The text a pi entry gives back as an Open WebUI message's `content`, or undefined when it is not just text. */
export function contentTextOf(entry: SessionEntry): string | undefined {
	let content: unknown;
	if (entry.type === "message") {
		const message = entry.message as Json;
		if (message.role !== "user" && message.role !== "assistant") return undefined;
		content = message.content;
	} else if (entry.type === "custom_message") content = entry.content;
	else return undefined;
	if (typeof content === "string") return content;
	if (!Array.isArray(content) || content.length !== 1) return undefined;
	const only = content[0];
	return isJson(only) && only.type === "text" && typeof only.text === "string" ? only.text : undefined;
}

function convertMessage(
	context: Context,
	key: string,
	message: Json,
	at: { parentId: string | null; model: string | undefined; time: number },
): { entries: SessionEntry[]; model: string | undefined; time: number } {
	const { ids, chatId } = context;
	const seconds = numberField(message, "timestamp");
	const time = seconds !== undefined ? millisFromSeconds(seconds) : at.time;
	const timestamp = isoFromMillis(time);
	const role = typeof message.role === "string" ? message.role : "unknown";
	const content = typeof message.content === "string" ? message.content : undefined;
	const source: Json = { format: OPENWEBUI_FORMAT, id: key, message: omit(message, LINK_FIELDS) };
	const links = context.unlinked.get(key);
	if (links) source.unlinked = links;
	const id = ids.id(`${chatId}/${key}`);
	/** The source of the first entry: without `content` when that entry gives it back exactly. */
	const sourceOf = (entry: SessionEntry, single: boolean): Json =>
		single && content !== undefined && contentTextOf(entry) === content
			? { ...source, message: omit(message, [...LINK_FIELDS, "content"]), content: "text" }
			: source;

	if (role === "user") {
		const images: ImageContent[] = [];
		for (const file of Array.isArray(message.files) ? message.files : []) {
			if (!isJson(file)) continue;
			const url = stringField(file, "url");
			const image = url !== undefined && file.type === "image" ? imageFromDataUrl(url) : undefined;
			if (image) images.push(image);
		}
		const text = content ?? (message.content === undefined ? "" : JSON.stringify(message.content));
		const user: AgentMessage = {
			role: "user",
			content: images.length > 0 ? [textBlock(text) as TextContent | ImageContent, ...images] : text,
			timestamp: time,
		};
		const entry = make.messageEntry({ id, parentId: at.parentId, timestamp }, user);
		return { entries: [withSource(entry, sourceOf(entry, true))], model: at.model, time };
	}
	if (role !== "assistant") {
		const text = content ?? JSON.stringify(message.content ?? "");
		const entry = make.customMessageEntry({ id, parentId: at.parentId, timestamp }, `openwebui.${role}`, text, true);
		return { entries: [withSource(entry, sourceOf(entry, true))], model: at.model, time };
	}

	const modelIdx = numberField(message, "modelIdx");
	const model =
		stringField(message, "model") ||
		(modelIdx !== undefined ? context.models[modelIdx] : context.models[0]) ||
		UNKNOWN_MODEL;
	const output = Array.isArray(message.output) ? stepsFromOutput(message.output, key) : [];
	const steps = output.length > 0 ? output : stepsFromContent(content ?? "", key);
	const entries: SessionEntry[] = [];
	let parentId = at.parentId;
	if (model !== at.model) {
		const change = make.modelChangeEntry(
			{ id: ids.id(`${chatId}/${key}/model`), parentId, timestamp },
			OPENWEBUI_PROVIDER,
			model,
		);
		entries.push(change);
		parentId = change.id;
	}
	const usage = usageFromOpenAI(message.usage ?? (isJson(message.info) ? message.info : undefined));
	const finalStop = message.error ? "error" : message.done === false ? "aborted" : "stop";
	steps.forEach((step, n) => {
		const stepId = n === 0 ? id : ids.id(`${chatId}/${key}#${n}`);
		const stamp = { id: stepId, parentId, timestamp };
		let entry: SessionEntry;
		if (step.kind === "assistant") {
			const callsTool = step.blocks.some((block) => block.type === "toolCall");
			entry = make.messageEntry(
				stamp,
				assistantMessage({
					content: step.blocks as Array<TextContent | ThinkingContent | ToolCall>,
					api: OPENWEBUI_API,
					provider: OPENWEBUI_PROVIDER,
					model,
					// Usage counted once: on the message's first step.
					usage: n === 0 ? usage : make.emptyUsage(),
					stopReason: n === steps.length - 1 ? finalStop : callsTool ? "toolUse" : "stop",
					timestamp: time,
				}),
			);
		} else {
			entry = make.messageEntry(stamp, {
				role: "toolResult",
				toolCallId: step.callId,
				toolName: step.name,
				content: [textBlock(step.text)],
				isError: step.isError,
				timestamp: time,
			});
		}
		entries.push(
			withSource(entry, n === 0 ? sourceOf(entry, steps.length === 1) : { format: OPENWEBUI_FORMAT, id: key, part: n }),
		);
		parentId = stepId;
	});
	return { entries, model, time };
}
