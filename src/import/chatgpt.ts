/**
 * The ChatGPT importer: a data export's `conversations.json` (an array of conversations), one
 * conversation object, or one of many conversation files, each conversation a pi session.
 *
 * Every node of `mapping` becomes an entry, in the tree the `parent`/`children` links make
 * (children in the order of `children`), so edits and regenerations are branches; the node
 * `current_node` names becomes the leaf. What each node kind becomes is in docs/import.md
 * ("ChatGPT mapping"): user and assistant messages as pi messages, tool calls (an assistant
 * message with a `recipient`) as `toolCall` blocks answered by the `tool` node under them,
 * system and hidden nodes as custom entries (not sent to the model) or custom messages (sent),
 * so that the chain is never broken. The node's own fields that pi has no place for are kept
 * on the entry as `source` (docs/import.md), and the conversation's own fields as the import's
 * `state`, so that `session-tree export --to chatgpt` gives the conversation back.
 *
 * Ids are derived from the conversation id and the node id (FNV-1a, see `derivedEntryId`), the
 * session id from the conversation id: importing the same export again gives the same file.
 */

import * as make from "../core/entries.js";
import { isSessionTreeError } from "../core/errors.js";
import type { AgentMessage, AssistantMessage, SessionEntry, ThinkingContent, ToolCall } from "../core/types.js";
import { plainText, render } from "./chatgpt-content.js";
import {
	assistantMessage,
	DerivedIds,
	describeConversation,
	earliestTime,
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
	toolArguments,
	UNKNOWN_MODEL,
	uuidFromName,
	withSource,
} from "./common.js";
import { type LinkedConversation, LinkedImport, type LinkedRun } from "./linked-import.js";
import {
	convertInOrder,
	type NodePlace,
	orderChildren,
	parentLinks,
	positionsOf,
	ROOT,
	walkOrder,
} from "./linked-nodes.js";
import type { ImportedSession, Importer, ImportSkip, ImportSource } from "./types.js";

/** The `api` and `provider` of imported assistant messages. */
export const CHATGPT_API = "openai-responses";
export const CHATGPT_PROVIDER = "openai";

/** The `source.format` of entries made from ChatGPT nodes. */
export const CHATGPT_FORMAT = "chatgpt";

/** Node fields that the tree itself holds (parent, children) or that are kept apart (message). */
const TREE_FIELDS = ["message", "parent", "children"];

/**
 * The ChatGPT importer (see the module comment): one session per conversation.
 * @throws SessionTreeError INVALID_JSON for text that is not JSON; INVALID_RECORD naming the
 *   conversation, the node and the field for a conversation that is broken (unless lenient)
 */
export const importChatGPT: Importer = (source) => importConversations(source, wholeConversation);

/**
 * The ChatGPT importer for a write (src/import/index.ts): each conversation a `LinkedImport`,
 * converted and written a batch at a time (linked-import.ts), when its `current_node` names a
 * node; else (a leaf found only by converting) converted whole.
 * @throws SessionTreeError as {@link importChatGPT}
 */
export const importChatGPTInBatches: Importer = (source) =>
	importConversations(source, (linked) =>
		linked.current === undefined ? wholeConversation(linked) : new LinkedImport({ ...linked, current: linked.current }),
	);

/** The conversations of a source, each linked, then made a session by `make`. */
function importConversations(source: ImportSource, make: (linked: Linked) => ImportedSession): ImportedSession[] {
	const value = parseJsonSource(source);
	if (isJson(value)) return [make(linkConversation(source, value, ""))];
	if (!Array.isArray(value)) {
		throw importError(source, "", "not a ChatGPT export: expected an array of conversations or one conversation");
	}
	const sessions: ImportedSession[] = [];
	const pending: ImportSkip[] = [];
	let firstError: Error | undefined;
	value.forEach((conversation, index) => {
		const where = `[${index}]`;
		if (!isJson(conversation)) {
			const error = importError(source, where, "not a conversation object");
			if (!source.lenient) throw error;
			firstError ??= error;
			pending.push({ source: source.name, where, reason: "not a conversation object: left out" });
			return;
		}
		if (!isJson(conversation.mapping) && source.lenient) {
			firstError ??= importError(source, `${where} mapping`, "missing or not an object");
			pending.push({ source: source.name, where: `${where} mapping`, reason: "no mapping: conversation left out" });
			return;
		}
		if (!source.lenient) {
			sessions.push(make(linkConversation(source, conversation, where)));
			return;
		}
		// Lenient: a conversation broken past working around is left out, the others imported.
		try {
			sessions.push(make(linkConversation(source, conversation, where)));
		} catch (error) {
			if (!isSessionTreeError(error)) throw error;
			firstError ??= error;
			const prefix = `${source.name}: `;
			const why = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
			pending.push({ source: source.name, where, reason: `${why}: conversation left out` });
		}
	});
	if (pending.length > 0) {
		const first = sessions[0];
		if (!first) throw firstError;
		if (first instanceof LinkedImport) first.prependSkipped(pending);
		else sessions[0] = { ...first, skipped: [...pending, ...first.skipped] };
	}
	return sessions;
}

/** What one node became: its entries (the last is the node's own) and the model in effect after it. */
interface Converted {
	entries: SessionEntry[];
	model: string | undefined;
	time: number;
}

/** What the conversion of one conversation keeps track of. */
interface Context {
	readonly source: ImportSource;
	readonly conversationId: string;
	readonly defaultModel: string | undefined;
	readonly ids: DerivedIds;
	readonly mapping: Json;
	/** Links to nodes that are not in the mapping, by node (lenient imports keep them for the export). */
	readonly unlinked: Map<string, { parent?: string; children?: string[] }>;
}

/**
 * One conversation linked and checked (every problem of its links reported, cycles cut), ready
 * to convert: a `LinkedConversation` (linked-import.ts), with the position of the node
 * `current_node` names, if it is in the mapping.
 * @throws SessionTreeError INVALID_RECORD for a conversation that is broken (unless lenient)
 */
function linkConversation(source: ImportSource, conversation: Json, where: string): Linked {
	const conversationId = stringField(conversation, "conversation_id") ?? stringField(conversation, "id") ?? undefined;
	const prefix = `${where === "" ? "" : `${where} `}conversation${describeConversation(conversationId, conversation.title)}`;
	const fail = (field: string, message: string) => importError(source, `${prefix}, ${field}`, message);
	const mapping = conversation.mapping;
	if (!isJson(mapping)) throw fail("mapping", "missing or not an object: this is not a ChatGPT conversation");

	const skipped: ImportSkip[] = [];
	/** A broken link: an error, or with `lenient` a workaround reported as a skip. */
	const problem = (field: string, message: string, workaround: string) => {
		if (!source.lenient) throw fail(field, `${message} (--lenient: ${workaround})`);
		skipped.push({ source: source.name, where: `${prefix}, ${field}`, reason: `${message}: ${workaround}` });
	};

	const keys: string[] = [];
	const nodes: Json[] = [];
	for (const key of Object.keys(mapping)) {
		const node = mapping[key];
		if (!isJson(node)) {
			problem(`mapping/${key}`, "not a node object", "left out");
			continue;
		}
		// Lenient imports work around a field of the wrong kind; the node keeps it in `source`.
		const message = node.message;
		if (message !== undefined && message !== null && !isJson(message)) {
			problem(`mapping/${key}/message`, "not an object or null", "imported as a node without a message");
		}
		if (isJson(message) && message.content !== undefined && !isJson(message.content)) {
			problem(`mapping/${key}/message/content`, "not an object", "imported without content");
		}
		if (isJson(message) && !isTime(message.create_time)) {
			problem(`mapping/${key}/message/create_time`, "not a number of seconds", "the parent's time is used");
		}
		const parent = node.parent;
		if (parent !== undefined && parent !== null && typeof parent !== "string") {
			problem(`mapping/${key}/parent`, "not a node id or null", "imported as a root");
		}
		if (node.children !== undefined && !Array.isArray(node.children)) {
			problem(`mapping/${key}/children`, "not a list of node ids", "ignored");
		}
		keys.push(key);
		nodes.push(node);
	}
	if (!isTime(conversation.create_time)) {
		problem("create_time", "not a number of seconds", "the earliest message time is used");
	}

	// Parent links decide the tree; `children` decides the order of siblings.
	const unlinked: Context["unlinked"] = new Map();
	const positions = positionsOf(keys);
	const parentOf = parentLinks(
		keys,
		positions,
		(at) => {
			const parent = (nodes[at] as Json).parent;
			return typeof parent === "string" ? parent : null;
		},
		(at, parent) => {
			const key = keys[at] as string;
			problem(`mapping/${key}/parent`, `names node ${parent}, which is not in the mapping`, "imported as a root");
			unlinked.set(key, { parent });
		},
	);
	const children = orderChildren(
		positions,
		parentOf,
		(at) => {
			const listed = (nodes[at] as Json).children;
			return Array.isArray(listed) ? listed : [];
		},
		(at, child, why) => {
			const key = keys[at] as string;
			const field = `mapping/${key}/children`;
			if (why === "not an id") problem(field, `holds ${JSON.stringify(child)}, which is not a node id`, "left out");
			else if (why === "missing") {
				problem(field, `names node ${child}, which is not in the mapping`, "left out");
				const links = unlinked.get(key) ?? {};
				links.children ??= [];
				links.children.push(child as string);
				unlinked.set(key, links);
			} else {
				const up = parentOf[positions.get(child as string) as number] as number;
				problem(
					field,
					`names node ${child}, whose parent is ${up === ROOT ? "null" : keys[up]}`,
					"the node's parent field decides",
				);
			}
		},
	);

	const firstTime = numberField(conversation, "create_time");
	const headerMs =
		firstTime !== undefined
			? millisFromSeconds(firstTime)
			: earliestTime(nodes, (node) => (isJson(node.message) ? numberField(node.message, "create_time") : undefined));
	const sessionId = uuidFromName(`chatgpt:${conversationId ?? keys.join(",")}`);
	const header = make.sessionHeader(sessionId, isoFromMillis(headerMs), "");
	const nodesLinked = { keys, parent: parentOf, children };
	const order = walkOrder(nodesLinked, (at) =>
		problem(`mapping/${keys[at]}/parent`, "is part of a cycle of parent links", "imported as a root"),
	);
	const current = conversation.current_node;
	const start = (): LinkedRun => {
		const context: Context = {
			source,
			conversationId: conversationId ?? sessionId,
			defaultModel: stringField(conversation, "default_model_slug"),
			ids: new DerivedIds(),
			mapping,
			unlinked,
		};
		const title = titleEntry(context.ids, context.conversationId, conversation.title, header.timestamp);
		const convert = (at: number, place: NodePlace) => {
			const up = parentOf[at] as number;
			return convertNode(
				context,
				keys[at] as string,
				nodes[at] as Json,
				up === ROOT ? null : (keys[up] as string),
				up === ROOT ? undefined : nodes[up],
				place,
			);
		};
		return { ids: context.ids, first: { title, time: headerMs }, convert };
	};
	return {
		format: "chatgpt",
		header,
		skipped,
		state: { format: CHATGPT_FORMAT, conversation: omit(conversation, ["mapping"]) },
		nodes: nodesLinked,
		order,
		current: typeof current === "string" ? positions.get(current) : undefined,
		currentNode: current,
		problem,
		start,
	};
}

/** A conversation linked by {@link linkConversation}. */
interface Linked extends Omit<LinkedConversation, "current"> {
	/** The position of the node `current_node` names; undefined when it names none of the mapping. */
	readonly current: number | undefined;
	/** The conversation's `current_node`, as the source gives it. */
	readonly currentNode: unknown;
	/** Reports a broken link (an error, or with `lenient` a skip). */
	readonly problem: (field: string, message: string, workaround: string) => void;
}

/** A linked conversation converted whole, its leaf the node `current_node` names (else the last leaf). */
function wholeConversation(linked: Linked): ImportedSession {
	const { nodes, order, current, currentNode, problem } = linked;
	const run = linked.start();
	const entryOf = new Array<string | undefined>(nodes.parent.length);
	const records: SessionEntry[] = [];
	for (const node of convertInOrder(nodes, order, run.first, run.convert, entryOf)) {
		for (const entry of node.entries) records.push(entry);
	}
	let leafId: string | null | undefined = current === undefined ? undefined : entryOf[current];
	if (leafId === undefined) {
		leafId = lastLeaf(records);
		if (typeof currentNode === "string") {
			problem("current_node", `names node ${currentNode}, which is not in the mapping`, "the last leaf is the leaf");
		} else if (currentNode !== undefined && currentNode !== null) {
			problem("current_node", "not a node id", "the last leaf is the leaf");
		}
	}
	const { format, header, skipped, state } = linked;
	return { format, header, records, leafId, skipped, ...(state ? { state } : {}) };
}

/** A ChatGPT time: epoch seconds, or null/absent (many system nodes have none). */
function isTime(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === "number" && Number.isFinite(value));
}

/** The tool call id of an assistant node that calls a tool (ChatGPT has none: made from the node id). */
export function toolCallIdOf(key: string): string {
	return `call_${key.replace(/[^A-Za-z0-9_-]/g, "_")}`;
}

/** Two tool names that belong together: equal, or the same tool family (`browser`, `browser.search`). */
function sameTool(a: string | undefined, b: string): boolean {
	if (a === undefined || a === "" || a === b) return true;
	return a.split(".")[0] === b.split(".")[0];
}

/** A node's recipient when it calls a tool (an assistant message addressed to something other than `all`). */
function toolRecipient(message: Json | undefined): string | undefined {
	if (!message || !isJson(message.author) || message.author.role !== "assistant") return undefined;
	const recipient = message.recipient;
	return typeof recipient === "string" && recipient !== "" && recipient !== "all" ? recipient : undefined;
}

/** pi's stop reason for an assistant node. */
function stopReasonOf(message: Json, callsTool: boolean): string {
	if (callsTool) return "toolUse";
	const finish =
		isJson(message.metadata) && isJson(message.metadata.finish_details) ? message.metadata.finish_details : {};
	if (finish.type === "interrupted" || message.status === "in_progress") return "aborted";
	if (finish.type === "max_tokens") return "length";
	return "stop";
}

/**
 * The text parts a pi entry gives back as ChatGPT `parts` (a text message's content rebuilt
 * on export), or undefined when the entry's content is not just text.
 */
export function textPartsOf(entry: SessionEntry): string[] | undefined {
	let content: unknown;
	if (entry.type === "message") {
		const message = entry.message as Json;
		if (message.role !== "user" && message.role !== "assistant") return undefined;
		content = message.content;
	} else if (entry.type === "custom_message") content = entry.content;
	else return undefined;
	if (typeof content === "string") return [content];
	if (!Array.isArray(content)) return undefined;
	const parts: string[] = [];
	for (const block of content) {
		if (!isJson(block) || block.type !== "text" || typeof block.text !== "string") return undefined;
		parts.push(block.text);
	}
	return parts;
}

/** The entries one node becomes (a model change first when the model changes on the path). */
function convertNode(
	context: Context,
	key: string,
	node: Json,
	parentKey: string | null,
	parentNode: Json | undefined,
	at: { parentId: string | null; model: string | undefined; time: number },
): Converted {
	const { ids, conversationId } = context;
	const message = isJson(node.message) ? node.message : undefined;
	const created = message ? numberField(message, "create_time") : undefined;
	const time = created !== undefined ? millisFromSeconds(created) : at.time;
	const timestamp = isoFromMillis(time);
	const id = ids.id(`${conversationId}/${key}`);
	const source: Json = { format: CHATGPT_FORMAT, key, node: omit(node, TREE_FIELDS) };
	if ("message" in node) source.message = node.message;
	const links = context.unlinked.get(key);
	if (links) source.unlinked = links;

	const stamp = { id, parentId: at.parentId, timestamp };
	const done = (entry: SessionEntry, model = at.model, before: SessionEntry[] = []): Converted => ({
		entries: [...before, withSource(entry, keepContent(source, entry, message))],
		model,
		time,
	});
	if (!message) return done(make.customEntry(stamp, "chatgpt.node"));

	const author = isJson(message.author) ? message.author : {};
	const role = typeof author.role === "string" ? author.role : "unknown";
	const authorName = stringField(author, "name");
	const content = isJson(message.content) ? message.content : undefined;
	const contentType = content ? String(content.content_type) : "none";
	const metadata = isJson(message.metadata) ? message.metadata : {};
	const hidden = metadata.is_visually_hidden_from_conversation === true;
	const rendered = render(content);
	const recipient = toolRecipient(message);

	const assistant = (blocks: AssistantMessage["content"], callsTool: boolean): Converted => {
		const model = stringField(metadata, "model_slug") || context.defaultModel || UNKNOWN_MODEL;
		const before: SessionEntry[] = [];
		let parentId = at.parentId;
		if (model !== at.model) {
			const change = make.modelChangeEntry(
				{ id: ids.id(`${conversationId}/${key}/model`), parentId, timestamp },
				CHATGPT_PROVIDER,
				model,
			);
			before.push(change);
			parentId = change.id;
		}
		const entry = make.messageEntry(
			{ id, parentId, timestamp },
			assistantMessage({
				content: blocks,
				api: CHATGPT_API,
				provider: CHATGPT_PROVIDER,
				model,
				usage: make.emptyUsage(),
				stopReason: stopReasonOf(message, callsTool),
				timestamp: time,
			}),
		);
		return done(entry, model, before);
	};

	if (recipient !== undefined) {
		const call: ToolCall = {
			type: "toolCall",
			id: toolCallIdOf(key),
			name: recipient,
			arguments: toolArguments(plainText(rendered.blocks) || rendered.thinking.join("\n")),
		};
		return assistant([call], true);
	}
	if (role === "tool") {
		const caller = parentNode && isJson(parentNode.message) ? toolRecipient(parentNode.message) : undefined;
		if (caller !== undefined && parentKey !== null && sameTool(authorName, caller)) {
			const result: AgentMessage = {
				role: "toolResult",
				toolCallId: toolCallIdOf(parentKey),
				toolName: authorName ?? caller,
				content: rendered.blocks,
				isError: contentType === "system_error",
				timestamp: time,
			};
			return done(make.messageEntry(stamp, result));
		}
		return done(make.customMessageEntry(stamp, "chatgpt.tool", plainText(rendered.blocks), true));
	}
	if (contentType === "user_editable_context" || contentType === "model_editable_context") {
		return done(make.customMessageEntry(stamp, "chatgpt.context", plainText(rendered.blocks), false));
	}
	if (role === "assistant" && contentType === "thoughts" && rendered.thinking.length > 0) {
		const blocks: ThinkingContent[] = rendered.thinking.map((thinking) => ({ type: "thinking", thinking }));
		return assistant(blocks, false);
	}
	if (role === "assistant" && contentType === "reasoning_recap") {
		return done(make.customEntry(stamp, "chatgpt.reasoning_recap", { text: plainText(rendered.blocks) }));
	}
	if (rendered.blocks.length === 0) {
		// Nothing to say (the hidden empty system message under the root): kept, never sent.
		return done(make.customEntry(stamp, `chatgpt.${role}`, hidden ? { hidden } : undefined));
	}
	if (role === "user") {
		const only = rendered.blocks[0];
		const text =
			contentType === "text" && rendered.blocks.length === 1 && only?.type === "text" ? only.text : undefined;
		return done(make.messageEntry(stamp, { role: "user", content: text ?? rendered.blocks, timestamp: time }));
	}
	if (role === "assistant") {
		return assistant(
			rendered.blocks.map((block) => (block.type === "text" ? block : textBlock(`[image: ${block.mimeType}]`))),
			false,
		);
	}
	const text = plainText(rendered.blocks);
	return done(make.customMessageEntry(stamp, `chatgpt.${role}`, text, !hidden));
}

/**
 * The source kept on an entry: the node's fields, and its message without `content` when the
 * entry's own text gives it back exactly (`source.content: "text"` says so), else whole.
 */
function keepContent(source: Json, entry: SessionEntry, message: Json | undefined): Json {
	const content = message && isJson(message.content) ? message.content : undefined;
	if (!message || !content || content.content_type !== "text") return source;
	if (Object.keys(content).some((key) => key !== "content_type" && key !== "parts")) return source;
	const parts = textPartsOf(entry);
	const given = content.parts;
	// Compared by hand (strings, in order): isDeepStrictEqual is generic and slower, once per text node.
	if (!parts || !Array.isArray(given) || given.length !== parts.length || parts.some((part, i) => part !== given[i])) {
		return source;
	}
	// In place (the source is this entry's own): the same keys in the same order as a copy, one object fewer per node.
	source.message = omit(message, ["content"]);
	source.content = "text";
	return source;
}
