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
import type { SessionEntry } from "../core/types.js";
import {
	checkedNesting,
	DerivedIds,
	importError,
	isJson,
	type Json,
	lastLeaf,
	omit,
	stringField,
	titleEntry,
	uuidFromName,
} from "./common.js";
import { type At, Converter, GEMINI_FORMAT, type Item, type Version } from "./gemini-entries.js";
import { fieldError, readJsonLines } from "./jsonl.js";
import type { ImportedSession, Importer, ImportSkip, ImportSource } from "./types.js";

export { GEMINI_API, GEMINI_FORMAT, GEMINI_PROVIDER } from "./gemini-entries.js";

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
		let value: unknown;
		try {
			value = source.json ?? JSON.parse(text);
		} catch {
			// Not one document: read it as lines, which names the line that is broken.
		}
		if (isJson(value))
			return { records: [{ at: 1, record: checkedNesting(source, value) as Json }], legacy: true, skipped: [] };
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
