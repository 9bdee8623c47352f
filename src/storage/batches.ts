/**
 * A session's records in batches, through the storage contract only: read from any store (bodies
 * of lazy lines read a batch at a time), appended with compare-and-append, and a session that a
 * write created and could not finish removed again. `copy` (../catalog/transfer.ts) and `import`
 * (../import/index.ts) write with these; they live here, below both, so that neither imports the
 * other for them.
 */

import { rmSync } from "node:fs";
import { SessionTreeError } from "../core/errors.js";
import type { RawRecord } from "../core/records.js";
import { stripLocation } from "../core/reducer.js";
import type { Envelope } from "../core/tree-node.js";
import { parseRecord } from "../core/validate.js";
import { collectionAt } from "./locations.js";
import { collectionOfSession } from "./placement.js";
import { isPending, type SessionCollection, type SessionStore, type StorePosition, type StoreRead } from "./store.js";

/** Where a copy or an import writes: a collection (a new session named by the header's id) or one session's location. */
export type CopyTarget = { collection: SessionCollection } | { location: string };

/** Records per read batch and per append: a million-entry session is not one transaction or one write. */
export const RECORD_BATCH = 1000;

/**
 * The records of a read, in order, in batches of at most `size`: bodies of lines the store
 * handed back as envelopes are read and parsed one batch at a time, so a copy of a large
 * file never holds all its records parsed at once.
 * @throws SessionTreeError naming the location and line of a damaged or incomplete line
 */
export function* recordBatches(read: StoreRead, location: string, size = RECORD_BATCH): Generator<RawRecord[]> {
	for (const line of read.lines) {
		if (line.error || line.torn) {
			const code = line.error?.code ?? "TORN_TAIL";
			const reason = line.error ? stripLocation(line.error) : "an incomplete last line";
			throw new SessionTreeError(code, `${reason}; repair the session before copying it`, {
				file: location,
				line: line.line,
			});
		}
	}
	for (let from = 0; from < read.lines.length; from += size) {
		const lines = read.lines.slice(from, from + size);
		const envelopes: Envelope[] = [];
		for (const line of lines) if (!line.record && line.envelope) envelopes.push(line.envelope);
		const texts = envelopes.length > 0 ? bodiesOf(read, envelopes, location) : [];
		let k = 0;
		const records: RawRecord[] = [];
		for (const line of lines) {
			if (line.record) records.push(line.record);
			else if (line.envelope) {
				const envelope = line.envelope;
				const parsed = parseRecord(texts[k++] ?? "");
				if (!parsed.record) {
					const code = parsed.tooDeep ? "INVALID_RECORD" : "INVALID_JSON";
					throw new SessionTreeError(code, `${parsed.reason}; repair the session before copying it`, {
						file: location,
						line: envelope.line,
					});
				}
				records.push(parsed.record);
			}
		}
		yield records;
	}
}

/** The texts of lines a store handed back as envelopes. */
function bodiesOf(read: StoreRead, envelopes: readonly Envelope[], location: string): string[] {
	if (!read.source)
		throw new SessionTreeError("IO_ERROR", "the store gave envelopes without a source", { file: location });
	return read.source.readLines(envelopes);
}

/**
 * Every record of a session, in order, bodies read (a store with lazy bodies hands envelopes).
 * @throws SessionTreeError naming the location and line of a damaged or incomplete line
 */
export async function readAllRecords(store: SessionStore): Promise<RawRecord[]> {
	const records: RawRecord[] = [];
	for (const batch of recordBatches(await store.read(), store.location))
		for (const record of batch) records.push(record);
	return records;
}

/** `records` in slices of at most {@link RECORD_BATCH}. */
export function* inBatches(records: readonly RawRecord[]): Generator<readonly RawRecord[]> {
	for (let at = 0; at < records.length; at += RECORD_BATCH) yield records.slice(at, at + RECORD_BATCH);
}

/**
 * Appends batches of records at the end of a session that ends at `from`, one compare-and-append
 * each, and returns the position after them. Nobody else is expected to write meanwhile: another
 * writer's records (`behind`) or a replaced session (`stale`) stop it with WRITE_CONFLICT, and
 * what was appended before stays (a re-run of the copy or import goes on from there).
 *
 * While a batch is written, the next one is taken from `batches` and handed to the store's
 * `prepareAppend`, where it has one: a database store makes its rows while the server inserts
 * the last ones (PostgreSQL's `copy` of s100k: the client and the server each busy about half
 * of the time before, one after the other).
 * @param task what is writing, for the message: "copy", "import"
 * @throws SessionTreeError WRITE_CONFLICT, or the store's error
 */
export async function appendBatches(
	store: SessionStore,
	batches: Iterable<readonly RawRecord[]>,
	from: StorePosition,
	task: string,
): Promise<StorePosition> {
	let position = from;
	const queue = nonEmpty(batches);
	let next = queue.next();
	while (!next.done) {
		const pending = store.append(next.value, position);
		next = queue.next();
		// Not awaited here: the append of that batch takes what was made (and a failure of this
		// append leaves it unused). A hint never fails a write.
		if (!next.done && isPending(pending)) store.prepareAppend?.(next.value).catch(() => undefined);
		const outcome = await pending;
		if (outcome.status !== "ok") {
			throw new SessionTreeError(
				"WRITE_CONFLICT",
				`another writer changed the session during the ${task}; run it again`,
				{
					file: store.location,
				},
			);
		}
		position = outcome.position;
	}
	return position;
}

/** The batches of `batches` that hold records. */
function* nonEmpty(batches: Iterable<readonly RawRecord[]>): Generator<readonly RawRecord[], void> {
	for (const batch of batches) if (batch.length > 0) yield batch;
}

/**
 * Removes a session a write created and could not finish, where the target can: through its
 * collection, else by its kind (a file, a memory session, a database's session). Quietly: the
 * write's own error is the one to report.
 */
export async function removeUnfinished(store: SessionStore, collection?: SessionCollection): Promise<void> {
	try {
		const held = collectionOfSession(store.location);
		if (held === undefined) rmSync(store.location, { force: true });
		// Not closed: closing a SQLite collection closes the process's shared connection, which the store still uses.
		else await (collection?.remove ? collection : collectionAt(held.collection)).remove?.(store.location);
	} catch {
		// The write's own error is the one to report.
	}
}
