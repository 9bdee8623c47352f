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
 */

import { derivedEntryId } from "./ids.js";
import { CURRENT_SESSION_VERSION } from "./types.js";
import { isObject } from "./validate.js";

/** A record as parsed from a line, before it is known to be valid. */
export type RawRecord = Record<string, unknown>;

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
		const id = derivedEntryId(`${this.seed}:${index + 1}`, (candidate) => this.taken.has(candidate));
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
