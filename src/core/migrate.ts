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

/** A record as parsed from a line, before it is known to be valid. */
export type RawRecord = Record<string, unknown>;

/** The version a header declares (v1 headers have none). */
export function headerVersion(header: RawRecord): number {
	return typeof header.version === "number" ? header.version : 1;
}

/**
 * Brings a header and its entries to the current version in place.
 * @returns the version the records had before, which equals {@link CURRENT_SESSION_VERSION}
 * when nothing changed.
 */
export function migrateRecords(header: RawRecord, entries: RawRecord[]): number {
	const from = headerVersion(header);
	if (from >= CURRENT_SESSION_VERSION) return from;
	if (from < 2) migrateV1ToV2(header, entries);
	if (from < 3) migrateV2ToV3(header, entries);
	return from;
}

function migrateV1ToV2(header: RawRecord, entries: RawRecord[]): void {
	header.version = 2;
	const taken = new Set<string>();
	const seed = typeof header.id === "string" ? header.id : "";
	let previousId: string | null = null;
	for (let index = 0; index < entries.length; index++) {
		const entry = entries[index] as RawRecord;
		const id = derivedEntryId(`${seed}:${index + 1}`, (candidate) => taken.has(candidate));
		taken.add(id);
		entry.id = id;
		entry.parentId = previousId;
		previousId = id;
		if (entry.type === "compaction" && typeof entry.firstKeptEntryIndex === "number") {
			// Line index with the header as line 0, so entry k sits at entries[k - 1].
			const target = entries[entry.firstKeptEntryIndex - 1];
			if (target && typeof target.id === "string") entry.firstKeptEntryId = target.id;
			delete entry.firstKeptEntryIndex;
		}
	}
}

function migrateV2ToV3(header: RawRecord, entries: RawRecord[]): void {
	header.version = 3;
	for (const entry of entries) {
		if (entry.type !== "message") continue;
		const message = entry.message as RawRecord | undefined;
		if (message && typeof message === "object" && message.role === "hookMessage") message.role = "custom";
	}
}
