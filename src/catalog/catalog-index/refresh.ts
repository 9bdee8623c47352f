/**
 * Bringing the index up to date with its sources: each listed session is compared with its row
 * by (size, time); unchanged, nothing is read; a pi file that only grew is read from where the
 * last read ended; anything else new or changed is read whole (read-session.ts). Sessions a
 * source no longer lists are dropped.
 */

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { SessionListing } from "../../storage/store.js";
import { compareLocations, listSessions, SkippedFile } from "../read.js";
import type { SkippedSession } from "../summary.js";
import { readAppended, readWhole, skippedRow } from "./read-session.js";
import { type EntryRow, type IndexTables, type NewSessionRow, type SessionRow, UNFINISHED } from "./tables.js";
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
	// Gone: no longer listed by its source; or, of another source (a directory searched once),
	// a file that no longer exists: nothing else would ever drop it.
	const gone = [...rows.values()].filter((row) =>
		names.has(row.source)
			? !listed.has(row.location)
			: isAbsolute(row.location) && !listed.has(row.location) && !existsSync(row.location),
	);
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
	const pending = new Pending(tables);
	let turned = performance.now();
	for (const item of work) {
		const row = rows.get(item.listing.location);
		const skipped = await update(pending, item, row, result);
		if (skipped) result.skipped.push(skipped);
		onProgress?.(++done, work.length);
		// A session's read is mostly synchronous work: let the event loop turn between sessions
		// now and then, so that a server refreshing its index still answers and its timers fire.
		if (performance.now() - turned > YIELD_MS) {
			await new Promise((resolve) => setImmediate(resolve));
			turned = performance.now();
		}
	}
	pending.flush();
	// In the order of the listing, as a scan reports them.
	result.skipped.sort((a, b) => compareLocations(a.file, b.file));
	result.ms = performance.now() - started;
	return result;
}

/** The longest run of sessions read without letting the event loop turn (ms). */
const YIELD_MS = 50;

/** Entries (or so many characters of text) written in one transaction at most. */
const BATCH_ENTRIES = 20_000;
const BATCH_CHARS = 16 * 2 ** 20;

/**
 * Entries (or so many characters of text) of one session written in one transaction at most,
 * the event loop turning between them. A transaction is synchronous: the bench's
 * 100,000-entry session took 7.2 s in one (the text index's inserts), and a server building
 * its first index printed its URL only after it (9.8 s after its start; it is meant to within a
 * second, docs/serve.md) and answered nothing meanwhile. In parts of these, each takes about
 * 0.15 s there.
 */
const PART_ENTRIES = 2_000;
const PART_CHARS = 2 * 2 ** 20;

/** The entries in parts of {@link PART_ENTRIES} entries or {@link PART_CHARS} characters of text at most. */
function partsOf(entries: readonly EntryRow[]): EntryRow[][] {
	const parts: EntryRow[][] = [];
	let part: EntryRow[] = [];
	let chars = 0;
	for (const entry of entries) {
		const size = (entry.texts ?? []).reduce((sum, text) => sum + text.length, 0);
		if (part.length > 0 && (part.length >= PART_ENTRIES || chars + size > PART_CHARS)) {
			parts.push(part);
			part = [];
			chars = 0;
		}
		part.push(entry);
		chars += size;
	}
	parts.push(part);
	return parts;
}

/**
 * Writes waiting for their transaction: sessions are read one at a time (asynchronously) and
 * written many to a transaction (synchronously: the write lock is never held across a read).
 */
class Pending {
	private writes: Array<() => void> = [];
	private entries = 0;
	private chars = 0;

	constructor(readonly tables: IndexTables) {}

	add(entries: readonly EntryRow[], write: () => void): void {
		this.writes.push(write);
		this.entries += entries.length + 1;
		for (const entry of entries) for (const text of entry.texts ?? []) this.chars += text.length;
		if (this.entries >= BATCH_ENTRIES || this.chars >= BATCH_CHARS) this.flush();
	}

	flush(): void {
		if (this.writes.length === 0) return;
		const writes = this.writes;
		this.writes = [];
		this.entries = 0;
		this.chars = 0;
		this.tables.batch(() => {
			for (const write of writes) write();
		});
	}

	/**
	 * Writes a session whole, in one transaction when it is small (with the others waiting),
	 * else in parts ({@link partsOf}), the event loop turning between them: its row first says
	 * it is {@link UNFINISHED} (its position a token of this write), and becomes `row` with the
	 * last part. A row another process replaced meanwhile is left to it.
	 */
	async replace(row: NewSessionRow, entries: readonly EntryRow[]): Promise<void> {
		const parts = partsOf(entries);
		const [first, ...rest] = parts;
		if (rest.length === 0) {
			this.add(entries, () => this.tables.replace(row, entries));
			return;
		}
		this.flush();
		const token = `unfinished ${randomBytes(8).toString("hex")}`;
		let sid = 0;
		this.tables.batch(() => {
			sid = this.tables.replace({ ...row, listed_bytes: UNFINISHED, position: token }, first ?? []);
		});
		let from = first?.length ?? 0;
		for (const [i, part] of rest.entries()) {
			await new Promise((resolve) => setImmediate(resolve));
			let going = false;
			this.tables.batch(() => {
				going =
					i === rest.length - 1
						? this.tables.finish(sid, token, row, from, part)
						: this.tables.extend(sid, token, from, part);
			});
			if (!going) return;
			from += part.length;
		}
	}
}

/** Reads one new or changed session into the index; returns it when it was skipped. */
async function update(
	pending: Pending,
	{ source, listing }: Listed,
	row: SessionRow | undefined,
	result: IndexRefresh,
): Promise<SkippedSession | undefined> {
	// An unfinished row (its writer stopped, or is still at it) is read whole: nothing to read on from.
	if (row && row.source === source.name && row.listed_bytes !== UNFINISHED && (listing.bytes ?? 0) > row.listed_bytes) {
		const appended = await readAppended(source, listing, row, (sid) => pending.tables.linksOf(sid));
		const was = row.position;
		if (appended && was !== null) {
			pending.add(appended.entries, () => pending.tables.append(row.sid, was, appended.row, appended.entries));
			result.appended++;
			return undefined;
		}
	}
	if (row) result.changed++;
	else result.added++;
	try {
		const whole = await readWhole(source, listing);
		await pending.replace(whole.row, whole.entries);
		return undefined;
	} catch (error) {
		if (!(error instanceof SkippedFile)) throw error;
		const skipped = skippedRow(source, listing, error.message);
		await pending.replace(skipped, []);
		return { file: listing.location, reason: error.message };
	}
}
