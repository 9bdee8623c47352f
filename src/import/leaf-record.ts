/**
 * The persisted-leaf record an imported session ends with when its leaf is not its last entry
 * or it carries `state` (see `ImportedSession.state`): for an import written to a store
 * (index.ts) and for a transcript read directly in a stream (claude-code-lazy.ts), which keeps
 * no list of its records.
 */

import { leafEntry } from "../core/entries.js";
import { derivedEntryId } from "../core/ids.js";
import type { RawRecord } from "../core/records.js";
import { contentHash } from "./common.js";
import type { ImportedSession } from "./types.js";

/** The later of two times (ISO strings compare as times); a non-string `time` leaves `latest`. */
export function laterTime(latest: string, time: unknown): string {
	return typeof time === "string" && time > latest ? time : latest;
}

/** The latest timestamp of some records, or `fallback`. */
export function latestTime(records: readonly RawRecord[], fallback: string): string {
	let latest = fallback;
	for (const record of records) latest = laterTime(latest, record.timestamp);
	return latest;
}

/** True when the import needs a persisted-leaf record after its records (`last`: the id of the last one). */
export function needsLeafRecord(imported: Pick<ImportedSession, "state" | "leafId">, last: string | null): boolean {
	return imported.state !== undefined || imported.leafId !== last;
}

/**
 * The persisted-leaf record that marks the import's leaf and holds its `state`: its id derived
 * from the session, the leaf and the state (so that the same import gives the same record) and
 * unlike every id `taken`; its time `latest`, the latest time of the session's records.
 */
export function leafRecordFor(
	imported: Pick<ImportedSession, "header" | "state" | "leafId">,
	taken: (id: string) => boolean,
	latest: string,
): RawRecord {
	const { header, leafId, state } = imported;
	const id = derivedEntryId(`${header.id}/leaf/${leafId ?? "root"}/${contentHash(state ?? null)}`, taken);
	const record: RawRecord = { ...leafEntry({ id, timestamp: latest }, leafId) };
	if (state !== undefined) record.source = state;
	return record;
}
