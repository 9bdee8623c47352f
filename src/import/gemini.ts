/**
 * The Gemini CLI importer: a chat recording (`~/.gemini/tmp/<project>/chats/session-*.jsonl`,
 * a subagent's `chats/<parent session>/<id>.jsonl`, or the older one-object
 * `session-*.json`) as one pi session.
 *
 * The JSONL file is a log, read as Gemini CLI's `loadConversationRecord`
 * (packages/core/src/services/chatRecordingService.ts) reads it: a metadata line
 * (`sessionId`, `projectHash`, `startTime`, `kind`, …), message records (`id`, `type`
 * user/gemini/info/error/warning, `content`, and for replies `toolCalls`, `thoughts`, `tokens`,
 * `model`), a message written again whole under the same id as it changes (its tool calls
 * finish, its tokens arrive: the last copy is what it says), `{"$set": {…}}` metadata updates
 * (a `messages` list in one is a checkpoint that replaces the conversation), and
 * `{"$rewindTo": id}`, which drops that message and everything after it. Here nothing is
 * dropped: a rewind becomes a branch (the next message hangs where the rewound one did, the
 * rewound messages stay as a side branch), and a checkpoint that changes the conversation
 * continues from where it first differs. The context at the leaf is what Gemini CLI sends when
 * it resumes (`convertSessionToClientHistory`): see `gemini-parts.ts`. docs/import.md has the
 * mapping table.
 */

import * as make from "../core/entries.js";
import type { SessionEntry, ToolResultMessage } from "../core/types.js";
import {
	assistantMessage,
	DerivedIds,
	importError,
	isJson,
	isoFromMillis,
	type Json,
	lastLeaf,
	omit,
	stringField,
	textBlock,
	titleEntry,
	uuidFromName,
	withSource,
} from "./common.js";
import {
	assistantBlocks,
	functionResponseContent,
	geminiUsage,
	isIgnoredUserText,
	partList,
	partsText,
	toolCallResult,
	userPart,
} from "./gemini-parts.js";
import { fieldError, readJsonLines } from "./jsonl.js";
import type { ImportedSession, Importer, ImportSkip, ImportSource } from "./types.js";

/** The `source.format` of entries made from Gemini CLI records. */
export const GEMINI_FORMAT = "gemini";
/** The `api` and `provider` of imported replies (Gemini CLI calls the Gemini API). */
export const GEMINI_API = "google-generative-ai";
export const GEMINI_PROVIDER = "google";

/** Where a record is: its 1-based line, or its place in a document (`messages[3]`, `7:messages[2]`). */
type At = number | string;

/** One copy of a message record and where it was read. */
interface Version {
	at: At;
	record: Json;
}

/** A node of the tree being built: a message (all its copies), or a record that is not one (kept as a custom entry). */
type Item =
	| { kind: "message"; id: string; parent: number | null; versions: Version[] }
	| { kind: "custom"; customType: string; parent: number | null; at: At; data: Json; time: string | undefined }
	| { kind: "name"; parent: number | null; at: At; name: string };

/**
 * The Gemini CLI importer (see the module comment): one session per file.
 * @throws SessionTreeError INVALID_JSON / INVALID_RECORD naming the file, the line and the field
 */
export const importGemini: Importer = (source) => [importRecording(source)];

/** The records of the source: the JSONL lines, or the one object of an older `.json` recording. */
function readRecords(source: ImportSource): {
	records: Array<{ at: At; record: Json }>;
	legacy: boolean;
	skipped: ImportSkip[];
} {
	const text = source.text.trimStart();
	if (text.startsWith("{") && !/\}\s*\n\s*\{/.test(text.slice(0, 65536))) {
		// A pretty-printed document (the older format): one object, its messages inline.
		try {
			const value: unknown = source.json ?? JSON.parse(text);
			if (isJson(value)) return { records: [{ at: 1, record: value }], legacy: true, skipped: [] };
		} catch {
			// Not one document: read it as lines, which names the line that is broken.
		}
	}
	const { lines, skipped } = readJsonLines(source);
	return { records: lines.map((line) => ({ at: line.n, record: line.record })), legacy: false, skipped };
}

function importRecording(source: ImportSource): ImportedSession {
	const { records, legacy, skipped } = readRecords(source);
	const where = (at: At) => String(at);
	const problem = (at: At, field: string, message: string, workaround: string) => {
		if (!source.lenient) {
			throw typeof at === "number"
				? fieldError(source, at, field, `${message} (--lenient: ${workaround})`)
				: importError(source, `${at}/${field}`, `${message} (--lenient: ${workaround})`);
		}
		skipped.push({ source: source.name, where: `${where(at)} ${field}`, reason: `${message}: ${workaround}` });
	};

	const items: Item[] = [];
	/** The messages Gemini CLI holds at this point of the log, in order, as item indices. */
	let live: number[] = [];
	const liveById = new Map<string, number>();
	/** The item the next record hangs under (an object: the closures below move it). */
	const pos: { cursor: number | null } = { cursor: null };
	let metadata: Json | undefined;
	let merged: Json = {};
	const updates: Json[] = [];

	const add = (item: Item): number => {
		items.push(item);
		pos.cursor = items.length - 1;
		return pos.cursor;
	};
	const message = (record: Json, at: At) => {
		const id = record.id as string;
		if (typeof record.type !== "string") {
			problem(at, "type", "missing or not a string (user, gemini, info, error or warning)", "kept as a custom entry");
			add({ kind: "custom", customType: "gemini:record", parent: pos.cursor, at, data: record, time: undefined });
			return;
		}
		if (record.toolCalls !== undefined && !Array.isArray(record.toolCalls)) {
			problem(at, "toolCalls", "not a list of tool calls", "its calls are left in the record");
		}
		const known = liveById.get(id);
		if (known !== undefined) {
			// The same message written again (its tool calls ran, its tokens came): the last copy is what it says.
			(items[known] as Extract<Item, { kind: "message" }>).versions.push({ at, record });
			return;
		}
		const index = add({ kind: "message", id, parent: pos.cursor, versions: [{ at, record }] });
		live.push(index);
		liveById.set(id, index);
	};
	const cut = (from: number) => {
		for (const index of live.slice(from)) liveById.delete((items[index] as Extract<Item, { kind: "message" }>).id);
		live = live.slice(0, from);
	};
	const rewind = (target: string, at: At) => {
		const known = liveById.get(target);
		const position = known === undefined ? -1 : live.indexOf(known);
		// The rewind hangs where the rewound message did; what followed stays, as a side branch.
		const parent = position >= 0 ? (items[live[position] as number] as Item).parent : null;
		cut(Math.max(position, 0));
		add({
			kind: "custom",
			customType: "gemini:rewind",
			parent,
			at,
			data: { $rewindTo: target, found: position >= 0 },
			time: undefined,
		});
	};
	const checkpoint = (list: unknown[], set: Json, at: At) => {
		const wanted = list.filter((each): each is Json => isJson(each) && typeof each.id === "string");
		let same = 0;
		while (same < wanted.length && same < live.length) {
			const item = items[live[same] as number] as Extract<Item, { kind: "message" }>;
			const latest = item.versions[item.versions.length - 1] as Version;
			if (item.id !== wanted[same]?.id || JSON.stringify(latest.record) !== JSON.stringify(wanted[same])) break;
			same++;
		}
		if (same === wanted.length && same === live.length) return;
		if (same < live.length) {
			// The conversation changed from here: it continues beside what it was.
			const parent = (items[live[same] as number] as Item).parent;
			cut(same);
			add({
				kind: "custom",
				customType: "gemini:checkpoint",
				parent,
				at,
				data: { $set: { ...omit(set, ["messages"]), messages: wanted.length } },
				time: undefined,
			});
		}
		wanted.slice(same).forEach((each, i) => {
			message(each, `${at}:messages[${same + i}]`);
		});
	};

	for (const { at, record } of records) {
		if (typeof record.$rewindTo === "string") rewind(record.$rewindTo, at);
		else if (typeof record.id === "string") message(record, at);
		else if (isJson(record.$set)) {
			const set = record.$set;
			merged = { ...merged, ...set };
			updates.push({ at, $set: Array.isArray(set.messages) ? { ...set, messages: set.messages.length } : set });
			if (Array.isArray(set.messages)) checkpoint(set.messages, set, at);
			if (typeof set.summary === "string" && set.summary.trim() !== "") {
				add({ kind: "name", parent: pos.cursor, at, name: set.summary });
			}
		} else if (typeof record.sessionId === "string" && typeof record.projectHash === "string") {
			metadata ??= legacy ? omit(record, ["messages"]) : record;
			merged = { ...merged, ...omit(record, ["messages"]) };
			if (Array.isArray(record.messages)) {
				record.messages.forEach((each, i) => {
					const place = legacy ? `messages[${i}]` : `${at}:messages[${i}]`;
					if (isJson(each) && typeof each.id === "string") message(each, place);
					else problem(place, "id", "not a message record (no id)", "left out");
				});
			}
		} else {
			add({ kind: "custom", customType: "gemini:record", parent: pos.cursor, at, data: record, time: undefined });
		}
	}

	let sessionId = metadata ? stringField(metadata, "sessionId") : undefined;
	if (sessionId === undefined) {
		if (!source.lenient) {
			throw importError(source, "", "not a Gemini CLI session: no record with `sessionId` and `projectHash`");
		}
		skipped.push({
			source: source.name,
			where: "",
			reason: "no `sessionId`: the session id is derived from the file name",
		});
		sessionId = uuidFromName(`gemini:${source.name}`);
	}
	const first = items.find((item) => item.kind === "message") as Extract<Item, { kind: "message" }> | undefined;
	const start =
		dateOf(metadata?.startTime) ?? dateOf(first?.versions[0]?.record.timestamp) ?? new Date(0).toISOString();
	const parentSession = metadata?.kind === "subagent" ? parentDirectory(source.name) : undefined;
	const header = make.sessionHeader(sessionId, start, "", parentSession);

	const ids = new DerivedIds();
	const out: SessionEntry[] = [];
	// The older format names the conversation once, for the whole file: its title is the root.
	const title = legacy ? titleEntry(ids, sessionId, metadata?.summary, start) : undefined;
	if (title) out.push(title);
	const convert = new Converter(sessionId, ids, items, problem);
	const own = convert.all(out, title?.id ?? null, Date.parse(start));
	const leafId = pos.cursor === null ? (title?.id ?? lastLeaf(out)) : (own[pos.cursor] ?? lastLeaf(out));
	const state: Json = { format: GEMINI_FORMAT, metadata: metadata ?? {}, current: merged };
	if (updates.length > 0) state.updates = updates;
	return { format: "gemini", header, records: out, leafId, skipped, state };
}

/** An ISO date string, or undefined for anything that is not one. */
function dateOf(value: unknown): string | undefined {
	return typeof value === "string" && !Number.isNaN(Date.parse(value))
		? new Date(Date.parse(value)).toISOString()
		: undefined;
}

/** The directory a subagent's recording sits in (`chats/<parent session id>/`), which names its parent session. */
function parentDirectory(name: string): string | undefined {
	const parts = name.split(/[/\\]/);
	const dir = parts.length >= 2 ? parts[parts.length - 2] : undefined;
	return dir && dir !== "chats" ? dir : undefined;
}

/** Turns the items into entries, parents first (every item's parent is an earlier item). */
class Converter {
	/** Item index → the entry its children hang under. */
	private readonly own: Array<string | undefined> = [];
	private readonly model: Array<string | undefined> = [];
	private readonly time: number[] = [];
	/** Tool call id → the items whose entries hold a result for it (for telling a result Gemini CLI recorded twice). */
	private readonly answered = new Map<string, Set<number>>();

	constructor(
		private readonly sessionId: string,
		private readonly ids: DerivedIds,
		private readonly items: readonly Item[],
		private readonly problem: (at: At, field: string, message: string, workaround: string) => void,
	) {}

	all(out: SessionEntry[], root: string | null, rootTime: number): Array<string | undefined> {
		this.items.forEach((item, index) => {
			const parentId = item.parent === null ? root : (this.own[item.parent] ?? root);
			const model = item.parent === null ? undefined : this.model[item.parent];
			const time = item.parent === null ? rootTime : (this.time[item.parent] ?? rootTime);
			const entries = this.convert(item, index, parentId, model, time);
			out.push(...entries);
			this.own[index] = entries[entries.length - 1]?.id ?? parentId ?? undefined;
		});
		return this.own;
	}

	/** True when an item at or above `from` holds a result for `callId`. */
	private answeredAbove(from: number | null, callId: string): boolean {
		const holders = this.answered.get(callId);
		if (!holders) return false;
		for (let at = from; at !== null; at = (this.items[at] as Item).parent) if (holders.has(at)) return true;
		return false;
	}

	private markAnswered(index: number, callId: string): void {
		const holders = this.answered.get(callId) ?? new Set<number>();
		holders.add(index);
		this.answered.set(callId, holders);
	}

	private convert(
		item: Item,
		index: number,
		parentId: string | null,
		inherited: string | undefined,
		inheritedTime: number,
	): SessionEntry[] {
		const { ids, sessionId } = this;
		this.model[index] = inherited;
		this.time[index] = inheritedTime;
		if (item.kind === "name") {
			const timestamp = isoFromMillis(inheritedTime);
			return [
				make.sessionInfoEntry({ id: ids.id(`${sessionId}/#${item.at}/summary`), parentId, timestamp }, item.name),
			];
		}
		if (item.kind === "custom") {
			const timestamp = isoFromMillis(inheritedTime);
			const entry = make.customEntry(
				{ id: ids.id(`${sessionId}/#${item.at}`), parentId, timestamp },
				item.customType,
				item.data,
			);
			return [withSource(entry, { format: GEMINI_FORMAT, at: item.at })];
		}
		const latest = item.versions[item.versions.length - 1] as Version;
		const record = latest.record;
		let time = inheritedTime;
		if (record.timestamp !== undefined) {
			const parsed = typeof record.timestamp === "string" ? Date.parse(record.timestamp) : Number.NaN;
			if (Number.isNaN(parsed)) {
				this.problem(
					latest.at,
					"timestamp",
					`${JSON.stringify(record.timestamp)} is not an ISO 8601 date`,
					"the previous record's time is used",
				);
			} else time = parsed;
		}
		this.time[index] = time;
		const timestamp = isoFromMillis(time);
		const base = `${sessionId}/${item.id}`;
		const source: Json = { format: GEMINI_FORMAT, id: item.id, at: item.versions.map((each) => each.at), record };
		const earlier = item.versions.slice(0, -1).map((each) => ({ at: each.at, ...changes(each.record, record) }));
		if (earlier.length > 0) source.earlier = earlier;

		if (record.type === "gemini") return this.reply(item, index, record, source, parentId, time);
		if (record.type === "user") return this.user(item, index, record, source, parentId, time);
		// info, error, warning (and any other type): shown by Gemini CLI, never sent to the model.
		const entry = make.customEntry({ id: ids.id(base), parentId, timestamp }, `gemini:${String(record.type)}`, {
			content: record.content,
		});
		return [withSource(entry, source)];
	}

	private reply(
		item: Extract<Item, { kind: "message" }>,
		index: number,
		record: Json,
		source: Json,
		parentId: string | null,
		time: number,
	): SessionEntry[] {
		const { ids, sessionId } = this;
		const base = `${sessionId}/${item.id}`;
		const timestamp = isoFromMillis(time);
		const { blocks, unmapped } = assistantBlocks(record);
		if (unmapped.length > 0) source.unmapped = unmapped;
		if (blocks.length === 0) {
			// Gemini CLI sends no turn for a reply with nothing in it.
			return [withSource(make.customEntry({ id: ids.id(base), parentId, timestamp }, "gemini:empty-reply"), source)];
		}
		const entries: SessionEntry[] = [];
		let parent = parentId;
		const model = stringField(record, "model") ?? this.model[index] ?? "unknown";
		if (model !== this.model[index]) {
			const change = make.modelChangeEntry(
				{ id: ids.id(`${base}/model`), parentId: parent, timestamp },
				GEMINI_PROVIDER,
				model,
			);
			entries.push(change);
			parent = change.id;
		}
		this.model[index] = model;
		const callsTool = blocks.some((block) => block.type === "toolCall");
		const reply = make.messageEntry(
			{ id: ids.id(base), parentId: parent, timestamp },
			assistantMessage({
				content: blocks,
				api: GEMINI_API,
				provider: GEMINI_PROVIDER,
				model,
				usage: geminiUsage(record.tokens),
				stopReason: callsTool ? "toolUse" : "stop",
				timestamp: time,
			}),
		);
		entries.push(withSource(reply, source));
		parent = reply.id;
		// Each call's recorded result, right after the reply: the turn Gemini CLI sends as `<id>_response`.
		const calls = Array.isArray(record.toolCalls) ? record.toolCalls : [];
		for (const call of calls) {
			if (!isJson(call) || typeof call.id !== "string") continue;
			const result = toolCallResult(call.result, call.status);
			if (!result) continue;
			const callId = result.callId ?? call.id;
			const message: ToolResultMessage = {
				role: "toolResult",
				toolCallId: callId,
				toolName: stringField(call, "name") ?? "tool",
				content: result.content.length > 0 ? result.content : [textBlock("")],
				isError: result.isError,
				timestamp: time,
			};
			const entry = make.messageEntry(
				{ id: ids.id(`${base}/result/${call.id}`), parentId: parent, timestamp },
				message,
			);
			entries.push(withSource(entry, { format: GEMINI_FORMAT, id: item.id, toolCall: call.id }));
			this.markAnswered(index, callId);
			parent = entry.id;
		}
		return entries;
	}

	private user(
		item: Extract<Item, { kind: "message" }>,
		index: number,
		record: Json,
		source: Json,
		parentId: string | null,
		time: number,
	): SessionEntry[] {
		const { ids, sessionId } = this;
		const base = `${sessionId}/${item.id}`;
		const timestamp = isoFromMillis(time);
		const parts = partList(record.content);
		const responses = parts.filter((part): part is Json => isJson(part) && isJson(part.functionResponse));
		if (responses.length === 0 && isIgnoredUserText(partsText(record.content))) {
			// A slash command, an empty prompt, injected context: recorded, but not sent again on resume.
			return [withSource(make.customEntry({ id: ids.id(base), parentId, timestamp }, "gemini:user"), source)];
		}
		const entries: SessionEntry[] = [];
		let parent = parentId;
		const fresh: Json[] = [];
		for (const part of responses) {
			const callId = stringField(part.functionResponse as Json, "id");
			// Newer Gemini CLI records a call's response twice: in the call's `result` and as a user message.
			if (callId !== undefined && this.answeredAbove(item.parent, callId)) continue;
			fresh.push(part);
		}
		fresh.forEach((part, n) => {
			const response = part.functionResponse as Json;
			const callId = stringField(response, "id") ?? `call_${item.id}_${n}`;
			const content = functionResponseContent(part);
			const entry = make.messageEntry(
				{ id: ids.id(`${base}/response/${n}`), parentId: parent, timestamp },
				{
					role: "toolResult",
					toolCallId: callId,
					toolName: stringField(response, "name") ?? "tool",
					content: content.content,
					isError: content.isError,
					timestamp: time,
				},
			);
			entries.push(withSource(entry, { format: GEMINI_FORMAT, id: item.id, response: n }));
			this.markAnswered(index, callId);
			parent = entry.id;
		});
		const rest = parts.filter((part) => !(isJson(part) && isJson(part.functionResponse)));
		const blocks = rest.map(userPart).filter((block) => block !== undefined);
		if (blocks.length < rest.length) source.unmapped = rest.filter((part) => userPart(part) === undefined);
		if (blocks.length === 0) {
			const kind = entries.length > 0 || responses.length === 0 ? "gemini:user" : "gemini:tool-response";
			entries.push(withSource(make.customEntry({ id: ids.id(base), parentId: parent, timestamp }, kind), source));
			return entries;
		}
		const content = typeof record.content === "string" ? record.content : blocks;
		const entry = make.messageEntry(
			{ id: ids.id(base), parentId: parent, timestamp },
			{ role: "user", content, timestamp: time },
		);
		entries.push(withSource(entry, source));
		return entries;
	}
}

/** How an earlier copy of a message differs from its last one: its fields that changed (or were absent) there. */
function changes(before: Json, after: Json): Json {
	const changed: Json = {};
	const missing: string[] = [];
	for (const key of Object.keys(after)) {
		if (!(key in before)) missing.push(key);
		else if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key];
	}
	for (const key of Object.keys(before)) if (!(key in after)) changed[key] = before[key];
	const out: Json = {};
	if (Object.keys(changed).length > 0) out.changed = changed;
	if (missing.length > 0) out.missing = missing;
	return out;
}
