/**
 * Migration of v1 and v2 session records to v3, as pi 0.73.1 does it, with one difference:
 * v1 entries get ids derived from the session id and their position instead of random ones,
 * so a v1 file opened twice without being rewritten shows the same ids both times.
 *
 * - v1 → v2: every entry gets `id` and `parentId` (chained in file order); a compaction's
 *   `firstKeptEntryIndex` (a line index, header = 0) becomes `firstKeptEntryId`.
 * - v2 → v3: message role `hookMessage` becomes `custom`.
 *
 * New keys are added after the existing ones, as pi adds them, so a rewritten file has pi's
 * key order. Records are changed in place: the loader owns them.
 *
 * Files other tools write may have a current header and entries without `id`/`parentId`
 * ({@link isIdlessEntry}). A lenient read chains such entries the way v1 entries are chained
 * here ({@link chainIdlessEntry}, applied by the reducer, which knows the entries before them);
 * see docs/durability.md, "Version 3 files whose entries have no ids".
 */

import { derivedEntryId } from "./ids.js";
import type { RawRecord } from "./records.js";
import { CURRENT_SESSION_VERSION, ENTRY_TYPES } from "./types.js";
import { isObject } from "./validate.js";

// Public through the core's index (`export *` of this module) as before it moved to records.ts.
export type { RawRecord } from "./records.js";

/** The version a header declares (v1 headers have none). */
export function headerVersion(header: RawRecord): number {
	return typeof header.version === "number" ? header.version : 1;
}

/**
 * Migrates the records of one stream as they come: the header's version decides what happens
 * to each later record. The same rules as pi's whole-file migration, one record at a time, so
 * the reducer can apply a v1 file line by line.
 */
export class Migration {
	/** The version the stream had before migration. */
	readonly from: number;
	private readonly seed: string;
	private readonly taken = new Set<string>();
	/** v1 ids by entry index (0-based, header excluded), for `firstKeptEntryIndex`. */
	private readonly ids: string[] = [];
	private previousId: string | null = null;

	/** Starts a migration and brings the header itself to the current version (in place). */
	constructor(header: RawRecord) {
		this.from = headerVersion(header);
		this.seed = typeof header.id === "string" ? header.id : "";
		if (this.from < CURRENT_SESSION_VERSION) header.version = CURRENT_SESSION_VERSION;
	}

	/** True when records need changing at all. */
	get needed(): boolean {
		return this.from < CURRENT_SESSION_VERSION;
	}

	/** Brings the next record of the stream to the current version, in place. */
	record(entry: RawRecord): void {
		if (this.from < 2) this.v1ToV2(entry);
		if (this.from < 3) v2ToV3(entry);
	}

	private v1ToV2(entry: RawRecord): void {
		const index = this.ids.length;
		const id = positionalEntryId(this.seed, index + 1, (candidate) => this.taken.has(candidate));
		this.taken.add(id);
		this.ids.push(id);
		entry.id = id;
		entry.parentId = this.previousId;
		this.previousId = id;
		if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
			// Line index with the header as line 0, so entry k has index k - 1.
			const target = entry.firstKeptEntryIndex - 1;
			delete entry.firstKeptEntryIndex;
			// As pi: only entries up to the compaction itself have their ids yet.
			const known = this.ids[target];
			if (known !== undefined) entry.firstKeptEntryId = known;
		}
	}
}

/**
 * The id an entry without one gets from its position: entry `position` (1-based, the header
 * not counted) of session `sessionId`, skipping ids `taken` holds. Deterministic: the same
 * stream gives the same ids every time it is read. v1 migration and id-less entries
 * ({@link chainIdlessEntry}) both use it, so a file of id-less entries gets the ids it would
 * get as a v1 file.
 */
export function positionalEntryId(sessionId: string, position: number, taken: (id: string) => boolean): string {
	return derivedEntryId(`${sessionId}:${position}`, taken);
}

/**
 * True for an entry written without ids, as tools other than pi write pi-like files: a record
 * with a string `type` other than `"session"`, a string `timestamp` or none, and neither an
 * `id` nor a `parentId` field. (A record with one of the two and not the other, or with a
 * timestamp that is not a string, is simply invalid.) An entry of a type of the format without
 * a timestamp is chained all the same: a leading `thinking_level_change` written as
 * `{"type", "thinkingLevel"}` sets the context's thinking level, as the rest of the file's
 * entries set the rest. (A record of another type without ids or time is no entry at all.)
 */
export function isIdlessEntry(record: RawRecord): boolean {
	return (
		typeof record.type === "string" &&
		record.type !== "session" &&
		(typeof record.timestamp === "string" || (record.timestamp === undefined && isKnownType(record.type))) &&
		record.id === undefined &&
		record.parentId === undefined
	);
}

function isKnownType(type: unknown): boolean {
	return (ENTRY_TYPES as readonly unknown[]).includes(type);
}

/**
 * Gives an id-less entry ({@link isIdlessEntry}) its generated `id` and its `parentId`, in
 * place, with `type`, `id` and `parentId` as its first keys (pi's layout; the other keys keep
 * their order). The reducer chooses them: {@link positionalEntryId} and the previous entry in
 * stream order, as v1 migration does. Two kinds of entry are special:
 *
 * - a `leaf` record's parent is its `targetId` when that is a string or null (as the leaf
 *   records this library writes);
 * - a `compaction` without a string `firstKeptEntryId` but with v1's `firstKeptEntryIndex`
 *   (a line index, header = 0) keeps from the entry at that position: `idAt(index - 1)`, which
 *   may be the compaction itself. The index is replaced by that entry's id, as v1 migration
 *   does, and left as it is when `idAt` knows no such entry (the compaction then lacks a
 *   `firstKeptEntryId`: it stays in the tree and out of the context, as any such compaction).
 *
 * An entry without a `timestamp` gets `timestamp` (the time of the entry before it, or the
 * header's), after `parentId` as pi places it: every entry of the tree has a time.
 *
 * @param idAt the id of the entry at a 0-based position in stream order (up to this entry's own)
 * @param timestamp the time an entry without one gets
 */
export function chainIdlessEntry(
	entry: RawRecord,
	id: string,
	parentId: string | null,
	idAt: (index: number) => string | undefined,
	timestamp?: string,
): void {
	const fields = Object.entries(entry);
	for (const [key] of fields) delete entry[key];
	entry.type = fields.find(([key]) => key === "type")?.[1];
	entry.id = id;
	const target = fields.find(([key]) => key === "targetId")?.[1];
	entry.parentId = entry.type === "leaf" && (typeof target === "string" || target === null) ? target : parentId;
	if (timestamp !== undefined && !fields.some(([key]) => key === "timestamp")) entry.timestamp = timestamp;
	for (const [key, value] of fields) if (key !== "type") entry[key] = value;
	if (entry.type !== "compaction" || typeof entry.firstKeptEntryId === "string") return;
	const index = entry.firstKeptEntryIndex;
	if (typeof index !== "number" || !Number.isInteger(index) || index < 1) return;
	const known = idAt(index - 1);
	if (known === undefined) return;
	delete entry.firstKeptEntryIndex;
	entry.firstKeptEntryId = known;
}

/**
 * Brings a header and its entries to the current version in place.
 * @returns the version the records had before, which equals {@link CURRENT_SESSION_VERSION}
 * when nothing changed.
 */
export function migrateRecords(header: RawRecord, entries: RawRecord[]): number {
	const migration = new Migration(header);
	if (migration.needed) for (const entry of entries) migration.record(entry);
	return migration.from;
}

function v2ToV3(entry: RawRecord): void {
	if (entry.type !== "message") return;
	const message = entry.message;
	if (isObject(message) && message.role === "hookMessage") message.role = "custom";
}

/**
 * The session a header names as its parent: `parentSession`, or, in headers older pi versions
 * wrote (v1, December 2025 and before), `branchedFrom`. pi 0.73.1 reads only `parentSession`
 * (its v1 migration leaves `branchedFrom` as it is, so pi's session list shows such a session
 * without a parent); session-tree reads both, and never rewrites the key.
 */
export function parentSessionOf(header: Readonly<Record<string, unknown>>): string | undefined {
	if (typeof header.parentSession === "string") return header.parentSession;
	return typeof header.branchedFrom === "string" ? header.branchedFrom : undefined;
}
