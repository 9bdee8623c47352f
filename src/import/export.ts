/**
 * Export back: a session as a ChatGPT conversation (`conversations.json` shape) or an Open
 * WebUI chat (this module), or a Claude Code transcript (export-claude-code.ts). Every entry that came from that format gives back its node as it was (the fields
 * kept in its `source`, the text rebuilt from the pi message where the import left it out),
 * linked as the tree links the entries; the conversation's own fields come from the latest
 * persisted-leaf record that carries them (the import's `state`). Other message entries (a pi
 * session, or messages appended after an import) become new nodes. Entries with no node
 * (model changes, the title record, labels, compactions, the later steps of an Open WebUI
 * message) are left out, their children linked to the nearest node above them. The leaf
 * becomes `current_node` / `currentId`. docs/import.md has the mapping.
 */

import type { RawRecord } from "../core/records.js";
import type { SessionEntry } from "../core/types.js";
import { Session } from "../session.js";
import { readAllRecords } from "../storage/batches.js";
import { storeAt } from "../storage/locations.js";
import { CHATGPT_FORMAT, textPartsOf } from "./chatgpt.js";
import { isJson, type Json, omit, uuidFromName } from "./common.js";
import { claudeCodeJsonl, toClaudeCode } from "./export-claude-code.js";
import { recordsHeldBy } from "./index.js";
import { contentTextOf, OPENWEBUI_FORMAT } from "./openwebui.js";
import type { ExportInput } from "./types.js";

// Public from this module (the package's index) as before it moved to types.ts, where
// export-claude-code.ts reads it without importing this module back.
export type { ExportInput } from "./types.js";

/** The formats a session can be exported to. */
export type ExportFormat = "chatgpt" | "openwebui" | "claude-code";

/** The formats a session can be exported to, as the CLI names them. */
export const EXPORT_FORMATS: readonly ExportFormat[] = ["chatgpt", "openwebui", "claude-code"];

/** The latest import state of a format among the records (see `ImportedSession.state`). */
function stateOf(records: readonly RawRecord[] | undefined, format: string): Json | undefined {
	let state: Json | undefined;
	for (const record of records ?? []) {
		if (record.type === "leaf" && isJson(record.source) && record.source.format === format) state = record.source;
	}
	return state;
}

/** The entry's source of the format, if it came from it. */
function sourceOf(entry: SessionEntry, format: string): Json | undefined {
	const source = (entry as unknown as Json).source;
	return isJson(source) && source.format === format ? source : undefined;
}

/** The time of an entry in ms: its message's, else the entry's. */
function timeOf(entry: SessionEntry): number {
	if (entry.type === "message" && typeof entry.message.timestamp === "number") return entry.message.timestamp;
	const parsed = Date.parse(entry.timestamp);
	return Number.isNaN(parsed) ? 0 : parsed;
}

/** Text of pi content for a format that takes text only (images as a placeholder, thinking and calls left out). */
function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((block) => {
			if (!isJson(block)) return "";
			if (block.type === "text" && typeof block.text === "string") return block.text;
			if (block.type === "image") return `[image: ${String(block.mimeType)}]`;
			return "";
		})
		.filter((text) => text !== "")
		.join("\n");
}

/** The nodes of an export: which entry becomes which node, and the node above each. */
interface Layout {
	/** Node id by entry id, for every entry that maps to a node (several entries may share one). */
	nodeOf: Map<string, string>;
	/** Entries that make a node, in file order, with their node's parent node (or null). */
	nodes: Array<{ entry: SessionEntry; id: string; parent: string | null }>;
	/** The node the leaf is in (or under). */
	current: string | null;
}

/**
 * Lays out the nodes: `idOf` gives an entry's node id (or undefined for an entry without a
 * node), `owns` says whether the entry is the one that makes its node (an Open WebUI message
 * made of several steps has one). A node's parent is the node of the nearest entry above it
 * that belongs to another node.
 */
function layout(
	input: ExportInput,
	idOf: (entry: SessionEntry) => string | undefined,
	owns: (entry: SessionEntry) => boolean,
): Layout {
	const byId = new Map(input.entries.map((entry) => [entry.id, entry]));
	const nodeOf = new Map<string, string>();
	const aboveOf = new Map<string, string | null>();
	/** The node an entry is in, or the nearest node above it. */
	const nodeAt = (id: string | null): string | null => {
		const path: string[] = [];
		let found: string | null = null;
		for (let at = id; at !== null; ) {
			if (nodeOf.has(at)) {
				found = nodeOf.get(at) as string;
				break;
			}
			if (aboveOf.has(at)) {
				found = aboveOf.get(at) ?? null;
				break;
			}
			path.push(at);
			at = byId.get(at)?.parentId ?? null;
		}
		for (const step of path) aboveOf.set(step, found);
		return found;
	};
	for (const entry of input.entries) {
		const id = idOf(entry);
		if (id !== undefined) nodeOf.set(entry.id, id);
	}
	const nodes: Layout["nodes"] = [];
	for (const entry of input.entries) {
		const id = nodeOf.get(entry.id);
		if (id === undefined || !owns(entry)) continue;
		// The nearest node above that is not this one (the earlier steps of this node are in it).
		let parent: string | null = null;
		for (let at = entry.parentId; at !== null; at = byId.get(at)?.parentId ?? null) {
			const node = nodeAt(at);
			if (node !== id) {
				parent = node;
				break;
			}
			if (!byId.has(at)) break;
		}
		nodes.push({ entry, id, parent });
	}
	return { nodeOf, nodes, current: nodeAt(input.leafId) };
}

/** A new node id for an entry that came from elsewhere: a UUID from the session and the entry. */
function newNodeId(input: ExportInput, entry: SessionEntry): string {
	return uuidFromName(`export:${input.header.id}:${entry.id}`);
}

/** True for an entry that a format takes as a message node when it did not come from it. */
function isForeignMessage(entry: SessionEntry): boolean {
	if (entry.type === "custom_message") return true;
	if (entry.type !== "message") return false;
	const role = entry.message.role;
	return role === "user" || role === "assistant" || role === "toolResult";
}

// ---- ChatGPT -------------------------------------------------------------------------------------

/** Where `content` goes back in a ChatGPT message: after the first of these keys it has. */
const CONTENT_AFTER = ["update_time", "create_time", "author", "id"];

/** A message object with `content` put back where ChatGPT has it. */
function withContent(message: Json, content: Json): Json {
	const anchor = CONTENT_AFTER.find((key) => key in message);
	if (anchor === undefined) return { content, ...message };
	const out: Json = {};
	for (const [key, value] of Object.entries(message)) {
		out[key] = value;
		if (key === anchor) out.content = content;
	}
	return out;
}

/** A ChatGPT message for an entry that did not come from ChatGPT. */
function chatgptMessage(entry: SessionEntry, id: string): Json {
	const time = timeOf(entry) / 1000;
	let role = "system";
	let name: string | null = null;
	let text = "";
	let recipient = "all";
	let content: Json | undefined;
	const metadata: Json = {};
	if (entry.type === "custom_message") {
		text = textOf(entry.content);
		if (!entry.display) metadata.is_visually_hidden_from_conversation = true;
	} else if (entry.type === "message") {
		const message = entry.message as Json;
		role = message.role === "toolResult" ? "tool" : String(message.role);
		text = textOf(message.content);
		if (message.role === "toolResult") name = typeof message.toolName === "string" ? message.toolName : null;
		if (message.role === "assistant") {
			if (typeof message.model === "string") metadata.model_slug = message.model;
			const call = Array.isArray(message.content)
				? message.content.find((block) => isJson(block) && block.type === "toolCall")
				: undefined;
			if (isJson(call) && text === "") {
				recipient = String(call.name);
				content = { content_type: "code", language: "json", text: JSON.stringify(call.arguments ?? {}) };
			}
		}
	}
	return {
		id,
		author: { role, name, metadata: {} },
		create_time: time,
		update_time: null,
		content: content ?? { content_type: "text", parts: [text] },
		status: "finished_successfully",
		end_turn: role === "assistant" ? recipient === "all" : null,
		weight: 1,
		metadata,
		recipient,
	};
}

/**
 * A session as one ChatGPT conversation (an element of `conversations.json`). See the
 * module comment.
 */
export function toChatGPT(input: ExportInput): Record<string, unknown> {
	const idOf = (entry: SessionEntry): string | undefined => {
		const source = sourceOf(entry, CHATGPT_FORMAT);
		if (source && typeof source.key === "string") return source.key;
		return isForeignMessage(entry) ? newNodeId(input, entry) : undefined;
	};
	const { nodes, current } = layout(input, idOf, () => true);
	const mapping: Json = {};
	const children = new Map<string, string[]>();
	const dangling: Array<[string, unknown[]]> = [];
	let latest = 0;
	const fromChatGPT = nodes.some(({ entry }) => sourceOf(entry, CHATGPT_FORMAT));
	// A conversation that did not come from ChatGPT gets ChatGPT's root node.
	const root = fromChatGPT ? null : "client-created-root";
	if (root !== null) {
		const list: string[] = [];
		mapping[root] = { id: root, message: null, parent: null, children: list };
		children.set(root, list);
	}
	for (const { entry, id, parent } of nodes) {
		const source = sourceOf(entry, CHATGPT_FORMAT);
		let node: Json;
		if (source) {
			const kept = isJson(source.node) ? source.node : { id };
			node = { ...kept };
			if ("message" in source) {
				const message = source.message;
				if (isJson(message) && source.content === "text") {
					node.message = withContent(message, { content_type: "text", parts: textPartsOf(entry) ?? [] });
				} else node.message = message;
			}
		} else {
			node = { id, message: chatgptMessage(entry, id) };
			latest = Math.max(latest, timeOf(entry) / 1000);
		}
		const above = parent ?? root;
		const unlinked = source && isJson(source.unlinked) ? source.unlinked : {};
		// A link a lenient import could not follow (to a node not in the mapping) is given back as it was.
		node.parent = above === null && typeof unlinked.parent === "string" ? unlinked.parent : above;
		node.children = [];
		mapping[id] = node;
		children.set(id, node.children as string[]);
		if (above !== null) children.get(above)?.push(id);
		if (Array.isArray(unlinked.children)) dangling.push([id, unlinked.children]);
	}
	for (const [id, lost] of dangling) children.get(id)?.push(...(lost as string[]));
	const state = stateOf(input.records, CHATGPT_FORMAT);
	const base: Json = isJson(state?.conversation) ? { ...state.conversation } : {};
	const title = input.name ?? (typeof base.title === "string" ? base.title : null);
	const created = Date.parse(input.header.timestamp) / 1000;
	if (!state) {
		const updated = Math.max(created, latest);
		Object.assign(base, {
			title,
			create_time: created,
			update_time: updated,
			mapping,
			moderation_results: [],
			current_node: current ?? root,
			plugin_ids: null,
			conversation_id: input.header.id,
			conversation_template_id: null,
			gizmo_id: null,
			is_archived: false,
			safe_urls: [],
			default_model_slug: null,
			id: input.header.id,
		});
		return base;
	}
	if (typeof base.update_time === "number" && latest > base.update_time) base.update_time = latest;
	base.title = title;
	base.mapping = mapping;
	base.current_node = current ?? root;
	return base;
}

// ---- Open WebUI ----------------------------------------------------------------------------------

/** An Open WebUI message for an entry that did not come from Open WebUI. */
function openwebuiMessage(entry: SessionEntry, id: string): Json {
	const message: Json = { id, role: "user", content: "", timestamp: Math.floor(timeOf(entry) / 1000) };
	if (entry.type === "custom_message") {
		message.role = "system";
		message.content = textOf(entry.content);
	} else if (entry.type === "message") {
		const agent = entry.message as Json;
		message.role = agent.role === "toolResult" ? "tool" : String(agent.role);
		message.content = textOf(agent.content);
		if (agent.role === "assistant" && typeof agent.model === "string") {
			message.model = agent.model;
			message.done = true;
		}
	}
	return message;
}

/**
 * A session as an Open WebUI chat: the export file's shape (an array of one row) for a
 * session that came from an export file or from elsewhere, a bare chat object for one that
 * came from a bare chat. See the module comment.
 */
export function toOpenWebUI(input: ExportInput): unknown {
	const idOf = (entry: SessionEntry): string | undefined => {
		const source = sourceOf(entry, OPENWEBUI_FORMAT);
		if (source && typeof source.id === "string") return source.id;
		return isForeignMessage(entry) ? newNodeId(input, entry) : undefined;
	};
	const owns = (entry: SessionEntry) => sourceOf(entry, OPENWEBUI_FORMAT)?.part === undefined;
	const { nodes, current } = layout(input, idOf, owns);
	const messages: Json = {};
	const dangling: Array<[string, unknown[]]> = [];
	const models = new Set<string>();
	let latest = 0;
	for (const { entry, id, parent } of nodes) {
		const source = sourceOf(entry, OPENWEBUI_FORMAT);
		let message: Json;
		if (source && isJson(source.message)) {
			message = { ...source.message };
			if (source.content === "text") message.content = contentTextOf(entry) ?? "";
		} else {
			message = openwebuiMessage(entry, id);
			latest = Math.max(latest, Math.floor(timeOf(entry) / 1000));
		}
		if (typeof message.model === "string") models.add(message.model);
		const { id: own, ...rest } = message;
		const unlinked = source && isJson(source.unlinked) ? source.unlinked : {};
		const parentId = parent === null && typeof unlinked.parentId === "string" ? unlinked.parentId : parent;
		messages[id] = { id: own ?? id, parentId, childrenIds: [], ...rest };
		if (parent !== null) {
			const above = messages[parent];
			if (isJson(above) && Array.isArray(above.childrenIds)) above.childrenIds.push(id);
		}
		if (Array.isArray(unlinked.childrenIds)) dangling.push([id, unlinked.childrenIds]);
	}
	for (const [id, lost] of dangling) {
		const message = messages[id];
		if (isJson(message) && Array.isArray(message.childrenIds)) message.childrenIds.push(...lost);
	}
	const path: Json[] = [];
	for (let at = current; at !== null; ) {
		const message = messages[at];
		if (!isJson(message)) break;
		path.unshift(message);
		at = typeof message.parentId === "string" ? message.parentId : null;
	}
	const state = stateOf(input.records, OPENWEBUI_FORMAT);
	if (state) {
		const history = { ...(isJson(state.history) ? state.history : {}), messages, currentId: current };
		const chat: Json = { ...(isJson(state.chat) ? state.chat : {}), history };
		if (state.messages === "path") chat.messages = path;
		else if (state.messages !== undefined) chat.messages = state.messages;
		if (input.name !== undefined && "title" in chat) chat.title = input.name;
		if (state.shape !== "row") return chat;
		const row: Json = { ...(isJson(state.row) ? state.row : {}), chat };
		if (input.name !== undefined && "title" in row) row.title = input.name;
		if (typeof row.updated_at === "number" && latest > row.updated_at) row.updated_at = latest;
		return [row];
	}
	const created = Math.floor(Date.parse(input.header.timestamp) / 1000);
	const title = input.name ?? "";
	const chat: Json = {
		id: input.header.id,
		title,
		models: [...models],
		params: {},
		history: { messages, currentId: current },
		messages: path,
		tags: [],
		timestamp: Date.parse(input.header.timestamp),
		files: [],
	};
	return [
		{
			id: input.header.id,
			user_id: "",
			title,
			chat,
			created_at: created,
			updated_at: Math.max(created, latest),
			share_id: null,
			archived: false,
			pinned: false,
			meta: {},
			folder_id: null,
		},
	];
}

// ---- a stored session --------------------------------------------------------------------------

/** What a session exports to: the JSON value of the file (ChatGPT: `[conversation]`; Claude Code: the lines, in file order). */
export function exportValue(input: ExportInput, to: ExportFormat): unknown {
	if (to === "claude-code") return toClaudeCode(input);
	return to === "chatgpt" ? [toChatGPT(input)] : toOpenWebUI(input);
}

/** The text of the export file: indented JSON, or JSONL (one line per record) for Claude Code. */
export function exportText(input: ExportInput, to: ExportFormat): string {
	const value = exportValue(input, to);
	return to === "claude-code" ? claudeCodeJsonl(value as unknown[]) : `${JSON.stringify(value, null, 2)}\n`;
}

/** The export input of an open session, with its stored records (for the import's state). */
export async function exportInputOf(session: Session, records?: readonly RawRecord[]): Promise<ExportInput> {
	await session.load();
	return {
		header: session.getHeader(),
		entries: session.getEntries(),
		leafId: session.getLeafId(),
		name: session.getSessionName(),
		records: records ?? recordsHeldBy(session) ?? (await readAllRecords(storeAt(session.location)).catch(() => [])),
	};
}

/**
 * A stored session (any location) as the JSON value of a ChatGPT, Open WebUI or Claude Code
 * export (for Claude Code the array of its lines; `claudeCodeJsonl` makes the file).
 * @throws SessionTreeError as opening the session does
 */
export async function exportSession(location: string, to: ExportFormat): Promise<unknown> {
	const session = await Session.open(location);
	try {
		const records = await readAllRecords(storeAt(location));
		return exportValue(await exportInputOf(session, records), to);
	} finally {
		await session.close();
	}
}

/** The fields of an entry's source that an export keeps (for tests: what the import kept). */
export function keptFields(entry: SessionEntry): Json | undefined {
	const source = (entry as unknown as Json).source;
	return isJson(source) ? omit(source, ["format"]) : undefined;
}
