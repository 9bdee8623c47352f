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
import type { AppendOutcome, SessionCollection, SessionStore, StorePosition, StoreRead } from "./store.js";

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
 * Appends batches of records at the end of a session that ends at `from`, `group` batches per
 * compare-and-append, and returns the position after them. The next group is taken from
 * `batches` (read and parsed, for a copy) while the one before is being written: a store that
 * writes elsewhere (PostgreSQL's server, SQLite's writer thread) does both at once, on two
 * cores. Between the batches of a group the event loop gets a turn, so that the write in flight
 * goes on (a query's bytes are sent as the socket takes them). Nobody else is expected to write
 * meanwhile: another writer's records (`behind`) or a replaced session (`stale`) stop it with
 * WRITE_CONFLICT, and what was appended before stays (a re-run of the copy or import goes on from
 * there). A failure of `batches` waits for the append in flight before it is thrown.
 * @param task what is writing, for the message: "copy", "import"
 * @throws SessionTreeError WRITE_CONFLICT, or the store's error
 */
export async function appendBatches(
	store: SessionStore,
	batches: Iterable<readonly RawRecord[]>,
	from: StorePosition,
	task: string,
	group = 1,
): Promise<StorePosition> {
	let position = from;
	let pending: Promise<AppendOutcome> | undefined;
	/** Waits for the append in flight, if any: its position, or WRITE_CONFLICT. */
	const settle = async () => {
		if (!pending) return;
		const outcome = await pending;
		pending = undefined;
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
	};
	const start = (records: readonly RawRecord[]) => {
		const append = Promise.resolve(store.append(records, position));
		// Handled here and awaited by settle: a failure while the next group is read is not "unhandled".
		append.catch(() => {});
		pending = append;
	};
	try {
		let records: RawRecord[] = [];
		let taken = 0;
		for (const batch of batches) {
			if (batch.length === 0) continue;
			if (group === 1) records = batch as RawRecord[];
			else for (const record of batch) records.push(record);
			if (++taken < group) {
				if (pending) await nextTurn();
				continue;
			}
			await settle();
			start(records);
			records = [];
			taken = 0;
		}
		if (records.length > 0) {
			await settle();
			start(records);
		}
		await settle();
	} catch (error) {
		// The append in flight ends before the caller removes what it wrote, or runs the copy again.
		await pending?.catch(() => {});
		throw error;
	}
	return position;
}

/** Resolves after the event loop's next turn: I/O callbacks run meanwhile. */
function nextTurn(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
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
