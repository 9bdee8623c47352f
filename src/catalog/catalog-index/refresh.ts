/**
 * Bringing the index up to date with its sources: each listed session is compared with its row
 * by (size, time); unchanged, nothing is read; a pi file that only grew is read from where the
 * last read ended; anything else new or changed is read whole (read-session.ts). Sessions a
 * source no longer lists are dropped.
 */

import type { SessionListing } from "../../storage/store.js";
import { compareLocations, listSessions, SkippedFile } from "../read.js";
import type { SkippedSession } from "../summary.js";
import { readAppended, readWhole, skippedRow } from "./read-session.js";
import type { IndexTables, SessionRow } from "./tables.js";
import type { IndexRefresh, IndexSource } from "./types.js";

/** One listed session and the source that listed it. */
interface Listed {
	source: IndexSource;
	listing: SessionListing;
}

function unchanged(row: SessionRow, { source, listing }: Listed): boolean {
	return (
		row.source === source.name &&
		row.listed_bytes === (listing.bytes ?? 0) &&
		row.listed_ms === (listing.modified?.getTime() ?? 0)
	);
}

/** Refreshes the index from `sources` (see the module comment). */
export async function refreshIndex(
	tables: IndexTables,
	sources: readonly IndexSource[],
	onProgress?: (done: number, total: number) => void,
): Promise<IndexRefresh> {
	const started = performance.now();
	const listed = new Map<string, Listed>();
	for (const source of sources) {
		// A location two sources list belongs to the first.
		for (const listing of await listSessions(source.collection)) {
			if (!listed.has(listing.location)) listed.set(listing.location, { source, listing });
		}
	}
	const rows = tables.rows();
	const names = new Set(sources.map((source) => source.name));
	const gone = [...rows.values()].filter((row) => names.has(row.source) && !listed.has(row.location));
	tables.remove(gone.map((row) => row.sid));
	const result: IndexRefresh = {
		sessions: listed.size,
		added: 0,
		changed: 0,
		appended: 0,
		removed: gone.length,
		unchanged: 0,
		skipped: [],
		ms: 0,
	};
	const work: Listed[] = [];
	for (const item of listed.values()) {
		const row = rows.get(item.listing.location);
		if (row && unchanged(row, item)) {
			result.unchanged++;
			if (row.skipped !== null) result.skipped.push({ file: row.location, reason: row.skipped });
		} else work.push(item);
	}
	let done = 0;
	for (const item of work) {
		const row = rows.get(item.listing.location);
		const skipped = await update(tables, item, row, result);
		if (skipped) result.skipped.push(skipped);
		onProgress?.(++done, work.length);
	}
	// In the order of the listing, as a scan reports them.
	result.skipped.sort((a, b) => compareLocations(a.file, b.file));
	result.ms = performance.now() - started;
	return result;
}

/** Reads one new or changed session into the index; returns it when it was skipped. */
async function update(
	tables: IndexTables,
	{ source, listing }: Listed,
	row: SessionRow | undefined,
	result: IndexRefresh,
): Promise<SkippedSession | undefined> {
	if (row && row.source === source.name && (listing.bytes ?? 0) > row.listed_bytes) {
		const appended = await readAppended(source, listing, row, (sid) => tables.linksOf(sid));
		if (appended && row.position !== null) {
			tables.append(row.sid, row.position, appended.row, appended.entries);
			result.appended++;
			return undefined;
		}
	}
	if (row) result.changed++;
	else result.added++;
	try {
		const whole = await readWhole(source, listing);
		tables.replace(whole.row, whole.entries);
		return undefined;
	} catch (error) {
		if (!(error instanceof SkippedFile)) throw error;
		tables.replace(skippedRow(source, listing, error.message), []);
		return { file: listing.location, reason: error.message };
	}
}
