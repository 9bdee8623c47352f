/**
 * Moving sessions between stores: `copy` (one session, or every session of a collection, into
 * another store, losslessly) and `prune` (deleting old sessions of a collection). Both work
 * through the storage contract only, so they work between any two stores: files, memory,
 * SQLite, PostgreSQL, or a user's.
 *
 * A copy writes the records it read, in order, with the same JSON text: the stores keep the
 * text the codec wrote, so a file copied into a database and back gives the same lines (for
 * lines in the codec's own form, `JSON.stringify` of the record, which is what pi and this
 * library write). It refuses a damaged source (repair it first), never writes over a session
 * that exists (it only completes one that holds the first of the source's records: an
 * interrupted copy), and removes what it created when it fails part way. A session file is
 * written under a hidden name and gets its own when it is whole.
 *
 * With `update`, a copy brings a session the target holds up to date instead: it appends what
 * the target lacks (records by id, then a persisted-leaf record if the leaves still differ),
 * and refuses, writing nothing, when the target holds entries the source lacks or an id with
 * other content (two copies that both grew: `session-tree merge` joins them).
 */

import { rmSync } from "node:fs";
import { leafEntry } from "../core/entries.js";
import { describeSystemError, SessionTreeError } from "../core/errors.js";
import { newEntryId } from "../core/ids.js";
import { loadTree } from "../core/load.js";
import { asRawRecord, type RawRecord } from "../core/records.js";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "../core/types.js";
import { isHeaderRecord, parseRecord, sameJson } from "../core/validate.js";
import { countOf } from "../render/preview.js";
import {
	appendBatches,
	type CopyTarget,
	inBatches,
	RECORD_BATCH,
	readAllRecords,
	recordBatches,
	removeUnfinished,
} from "../storage/batches.js";
import { collectionAt, schemeOf, storeAt } from "../storage/locations.js";
import { moveToNewName, partialName } from "../storage/new-file.js";
import { collectionOfSession, sessionStoreFor } from "../storage/placement.js";
import type { SessionCollection, SessionListing, SessionStore, StorePosition, StoreRead } from "../storage/store.js";

// Public from this module (the package's index) as before they moved to storage/batches.ts.
export { type CopyTarget, readAllRecords, recordBatches } from "../storage/batches.js";

/**
 * Copies one session into `target`, or completes an interrupted copy there (see
 * {@link copyLocation}).
 * @returns the session's location in the target
 * @throws SessionTreeError FILE_EXISTS when the target holds the whole session already, or a
 *   different one by its name; the source's damage, see {@link readAllRecords}
 */
export async function copySession(source: SessionStore, target: CopyTarget): Promise<string> {
	const done = await copyInto(source, target);
	if (done.outcome === "already") {
		throw new SessionTreeError("FILE_EXISTS", "the target already holds this session (the same records)", {
			file: done.location,
		});
	}
	return done.location;
}

/**
 * What copying one session did: `copied` it whole, `completed` a copy that held the first of
 * its records (an interrupted one; `appended` records were added), `updated` a session that
 * held only records of the source (with `update`; `leafMoved` when a persisted-leaf record was
 * among those appended to give it the source's leaf), or found it there `already`, the same
 * records, and wrote nothing.
 */
interface Copied {
	location: string;
	outcome: "copied" | "completed" | "updated" | "already";
	appended: number;
	leafMoved?: boolean;
}

/**
 * Copies one session into `target`. A session file goes to a hidden name beside its own (see
 * {@link partialName}) and gets its name when it is whole; a database or memory session is
 * visible as it grows. Either way, a copy that stopped part way is completed by the next.
 * @throws SessionTreeError FILE_EXISTS when the target holds a different session by that name
 */
async function copyInto(source: SessionStore, target: CopyTarget, update = false): Promise<Copied> {
	const read = await source.read();
	const first = recordBatches(read, source.location, 1).next();
	const header = first.done ? undefined : first.value[0];
	if (!header || !isHeaderRecord(header)) {
		throw new SessionTreeError("INVALID_HEADER", "the first record is not a session header", {
			file: source.location,
			line: 1,
		});
	}
	const collection = "collection" in target ? target.collection : undefined;
	const store = sessionStoreFor(target, header);
	try {
		// A new session file is written under a hidden name first; any other session grows in place.
		if (store.file === undefined || (await store.exists())) {
			return {
				location: store.location,
				...(await writeSession(read, source.location, store, header, collection, update)),
			};
		}
		return await writeStaged(read, source.location, store, store.file, header, update);
	} finally {
		await store.close();
	}
}

/**
 * Copies into a session file that does not exist: under its hidden partial name first (where
 * an interrupted copy is completed), then moved to its own name, never over a file there.
 */
async function writeStaged(
	read: StoreRead,
	location: string,
	file: SessionStore,
	path: string,
	header: SessionHeader,
	update: boolean,
): Promise<Copied> {
	const partial = sessionStoreFor({ file: partialName(path) }, header);
	let done: Omit<Copied, "location">;
	try {
		done = await writeSession(read, location, partial, header, undefined);
	} finally {
		await partial.close();
	}
	let moved: boolean;
	try {
		moved = moveToNewName(partial.location, path);
	} catch (cause) {
		throw new SessionTreeError("IO_ERROR", `cannot give the copy its name: ${describeSystemError(cause)}`, {
			file: file.location,
		});
	}
	if (!moved) {
		// Another copy (or writer) gave the name a file meanwhile: that file decides, as for any re-run.
		rmSync(partial.location, { force: true });
		return { location: file.location, ...(await writeSession(read, location, file, header, undefined, update)) };
	}
	return {
		location: file.location,
		outcome: done.outcome === "copied" ? "copied" : "completed",
		appended: done.appended,
	};
}

/**
 * Copies the session of `read` into `store`: creates it, completes it when it holds the first of
 * the source's records, or finds it whole. Only what this creates is removed when the copy fails
 * part way; a session that was there stays as it was, or longer by whole records of the source.
 * @throws SessionTreeError FILE_EXISTS when `store` holds anything else
 */
async function writeSession(
	read: StoreRead,
	location: string,
	store: SessionStore,
	header: SessionHeader,
	collection: SessionCollection | undefined,
	update = false,
): Promise<Omit<Copied, "location">> {
	let held: Held | undefined;
	let created = false;
	try {
		held = { count: 1, position: await store.create(header) };
		created = true;
	} catch (error) {
		if (!(error instanceof SessionTreeError && error.code === "FILE_EXISTS")) throw error;
		// A re-run of a copy finds its session there: whole, the first of its records, or something else.
		held = await heldOf(read, location, store);
	}
	if (!held && update) return await updateSession(read, location, store);
	if (!held) {
		throw new SessionTreeError(
			"FILE_EXISTS",
			`not copied: ${store.location} holds a different session by this name (not the source's records, nor the first of them); remove it or copy elsewhere`,
			{ file: location },
		);
	}
	const total = read.lines.length;
	if (!created && held.count === total) return { outcome: "already", appended: 0 };
	try {
		const rest = recordBatches({ ...read, lines: read.lines.slice(held.count) }, location);
		await appendBatches(store, rest, held.position, "copy");
		await store.flush();
		await verifyCopy(read, store);
	} catch (error) {
		if (created) await removeUnfinished(store, collection);
		throw error;
	}
	return { outcome: created ? "copied" : "completed", appended: total - held.count };
}

/** How much of a source a session holds: its first `count` records, and the position after them. */
interface Held {
	count: number;
	position: StorePosition;
}

/**
 * How much of `original` the session in `store` holds: its records are the original's first
 * ones, as the same JSON, in order (all of them for a whole copy). Undefined when it holds
 * anything else: another session, one that went its own way, more records than the original,
 * a damaged line. An incomplete last line (a copy killed in the middle of a write) is not
 * counted: the file store cuts it off, keeping its bytes in a `.torn` file, before the next
 * append. The comparison is the catalog's, record by record; the store only reads.
 */
async function heldOf(original: StoreRead, location: string, store: SessionStore): Promise<Held | undefined> {
	const read = await store.read();
	const torn = read.lines.at(-1)?.torn === true;
	const held = recordBatches(torn ? { ...read, lines: read.lines.slice(0, -1) } : read, store.location);
	// The next batch of the session there; undefined for its damage (the source's is thrown).
	const nextHeld = () => {
		try {
			return held.next();
		} catch (error) {
			if (error instanceof SessionTreeError) return undefined;
			throw error;
		}
	};
	let count = 0;
	for (const batch of recordBatches(original, location)) {
		const next = nextHeld();
		if (!next || (!next.done && next.value.length > batch.length)) return undefined;
		if (next.done) break;
		for (const [i, record] of next.value.entries()) {
			if (JSON.stringify(record) !== JSON.stringify(batch[i])) return undefined;
		}
		count += next.value.length;
		if (next.value.length < batch.length) break;
	}
	if (nextHeld()?.done !== true) return undefined;
	// A whole copy with a torn line after it is no copy of this session.
	if (torn && count === original.lines.length) return undefined;
	return { count, position: read.position };
}

/**
 * Brings the session in `store` up to date with the source (`copy --update`): appends the
 * source's records it lacks, by id, in the source's order, then, if its leaf still differs
 * from the source's, a persisted-leaf record naming the source's leaf. Persisted-leaf records
 * only the target holds are moves of its leaf, no entries: they stay, and do not stop the
 * update. Nothing is written when the target holds an entry the source lacks, or a record with
 * the same id and other content: the two copies both grew, which `merge` joins.
 * @throws SessionTreeError FILE_EXISTS for a target that is another session or went its own way
 */
async function updateSession(
	read: StoreRead,
	location: string,
	store: SessionStore,
): Promise<Omit<Copied, "location">> {
	const source: RawRecord[] = [];
	for (const batch of recordBatches(read, location)) for (const record of batch) source.push(record);
	const there = await store.read();
	const held: RawRecord[] = [];
	for (const batch of recordBatches(there, store.location)) for (const record of batch) held.push(record);
	const [header, ...records] = source;
	const [heldHeader, ...heldRecords] = held;
	const refuse = (why: string) =>
		new SessionTreeError("FILE_EXISTS", `not updated: ${store.location} ${why}`, { file: location });
	if (header === undefined || heldHeader === undefined || !sameJson(header, heldHeader)) {
		throw refuse("holds a different session (another header); remove it or copy elsewhere");
	}
	if (header.version !== CURRENT_SESSION_VERSION) {
		throw refuse(`holds a session of version ${String(header.version ?? 1)}: migrate both first`);
	}
	const byId = new Map<string, RawRecord>();
	for (const record of records) byId.set(String(record.id), record);
	const heldIds = new Set<string>();
	const lacking: string[] = [];
	const differing: string[] = [];
	for (const record of heldRecords) {
		const id = String(record.id);
		heldIds.add(id);
		const own = byId.get(id);
		if (own === undefined) {
			if (record.type !== "leaf") lacking.push(id);
		} else if (!sameJson(own, record)) differing.push(id);
	}
	if (lacking.length > 0 || differing.length > 0) {
		const what = [
			lacking.length > 0 ? `${countOf(lacking.length, "entry", "entries")} the source lacks (${lacking[0]}…)` : "",
			differing.length > 0
				? `${countOf(differing.length, "record")} with other content under the same id (${differing[0]}…)`
				: "",
		]
			.filter((part) => part !== "")
			.join(" and ");
		const ahead = differing.length === 0 && records.every((record) => heldIds.has(String(record.id)));
		throw refuse(
			ahead
				? `holds ${what} and every record of it: it is ahead; nothing written. \`session-tree copy --update ${store.location} ${location}\` brings the source up to date`
				: `holds ${what}: both copies grew; nothing written. Join them with \`session-tree merge ${location} ${store.location} -o OUT\``,
		);
	}
	const missing = records.filter((record) => !heldIds.has(String(record.id)));
	const leafOf = (stream: readonly RawRecord[]) =>
		loadTree(
			stream.map((record, i) => ({ line: i + 1, record })),
			{ lenient: true },
		).tree.getLeafId();
	const wanted = leafOf(source);
	const leafMoved = leafOf([...held, ...missing]) !== wanted;
	if (leafMoved) {
		const id = newEntryId((candidate) => byId.has(candidate) || heldIds.has(candidate));
		missing.push(asRawRecord(leafEntry({ id, timestamp: new Date().toISOString() }, wanted)));
	}
	if (missing.length === 0) return { outcome: "already", appended: 0 };
	await appendBatches(store, inBatches(missing), there.position, "copy");
	await store.flush();
	const after = await readAllRecords(store);
	const expected = [...held, ...missing];
	if (after.length !== expected.length || after.some((record, i) => !sameJson(record, expected[i]))) {
		throw new SessionTreeError("IO_ERROR", "the update does not read back as written", { file: store.location });
	}
	return { outcome: "updated", appended: missing.length, leafMoved };
}

/**
 * Reads the copy back: the same records, as the same JSON text, in the same order. Lines are
 * compared as text first (a store keeps the text the codec wrote, and a line as pi and this
 * library write it is that text already); only lines whose texts differ are parsed and
 * compared as records (a source line with other spacing, say). Batch by batch: a copy of a
 * large file never holds all of its lines at once.
 */
async function verifyCopy(original: StoreRead, store: SessionStore): Promise<void> {
	const copied = lineTexts(await store.read());
	let line = 0;
	const differs = () =>
		new SessionTreeError("IO_ERROR", "the copy does not read back as the original", { file: store.location, line });
	for (const batch of lineTexts(original)) {
		const next = copied.next();
		if (next.done || next.value.length !== batch.length) {
			line += 1;
			throw differs();
		}
		for (const [i, text] of batch.entries()) {
			line++;
			const other = next.value[i];
			if (text !== other && !sameRecordText(text, other)) throw differs();
		}
	}
	if (!copied.next().done) throw differs();
}

/**
 * The JSON text of each line of a read, in batches: a parsed record as the codec writes it,
 * an envelope's line as the store holds it; undefined for a damaged or incomplete line.
 */
function* lineTexts(read: StoreRead): Generator<Array<string | undefined>> {
	for (let from = 0; from < read.lines.length; from += RECORD_BATCH) {
		const lines = read.lines.slice(from, from + RECORD_BATCH);
		const envelopes = lines.flatMap((parsed) => (parsed.record || !parsed.envelope ? [] : [parsed.envelope]));
		const bodies = envelopes.length > 0 && read.source ? read.source.readLines(envelopes) : [];
		let k = 0;
		yield lines.map((parsed) => {
			if (parsed.error || parsed.torn) return undefined;
			if (parsed.record) return JSON.stringify(parsed.record);
			return parsed.envelope ? bodies[k++] : undefined;
		});
	}
}

/** True when two JSON texts hold the same record, as the codec would write it. */
function sameRecordText(a: string | undefined, b: string | undefined): boolean {
	if (a === undefined || b === undefined) return false;
	const x = parseRecord(a).record;
	const y = parseRecord(b).record;
	return x !== undefined && y !== undefined && JSON.stringify(x) === JSON.stringify(y);
}

/** What {@link copyLocation} did with one session of the source. */
export type CopyEvent =
	| { kind: "copied"; source: string; location: string }
	/**
	 * The target held the first of the session's records (a copy that was interrupted, or made
	 * before the source grew): the other `appended` records were added, and it is whole now.
	 */
	| { kind: "completed"; source: string; location: string; appended: number }
	/**
	 * With `update`: the target held only records of the session, not as its first ones (a
	 * session that was updated or merged before); the `appended` records it lacked were added,
	 * a persisted-leaf record among them when `leafMoved` (the leaves differed).
	 */
	| { kind: "updated"; source: string; location: string; appended: number; leafMoved: boolean }
	/** The target already held exactly this session: nothing written, nothing lost. */
	| { kind: "exists"; source: string; reason: string }
	| { kind: "failed"; source: string; error: SessionTreeError };

/**
 * True when `location` names a collection (many sessions) rather than one session: a
 * directory, `memory:`, or a database URL without `#SESSION_ID`.
 */
export function isCollectionLocation(location: string, isDirectory: (path: string) => boolean): boolean {
	const held = collectionOfSession(location);
	return held === undefined ? isDirectory(location) : held.name === undefined;
}

/** Options of {@link copyLocation}. */
export interface CopyOptions {
	/**
	 * Bring sessions the target holds up to date (`copy --update`): a session that holds only
	 * records of the source gets those it lacks, and the source's leaf; one that holds entries
	 * the source lacks, or an id with other content, fails, and nothing is written to it.
	 */
	update?: boolean;
}

/**
 * Copies what `source` names (one session, or every session of a collection) into `target` (a
 * collection, or, for one session, a new session's location). Sessions the target already
 * holds, with the same records, are reported and left alone; one that holds the first of its
 * records (a copy that stopped part way) gets the others, so a copy that stopped is completed by
 * running it again. A different session in the way fails that session, which is left as it is;
 * with `update`, one that holds only records of the source is brought up to date (see
 * {@link CopyOptions.update}).
 */
export async function* copyLocation(
	source: string,
	target: string,
	isDirectory: (path: string) => boolean,
	options: CopyOptions = {},
): AsyncGenerator<CopyEvent> {
	const update = options.update === true;
	const into: CopyTarget = isCollectionLocation(target, isDirectory)
		? { collection: collectionAt(target) }
		: { location: target };
	try {
		if (!isCollectionLocation(source, isDirectory)) {
			yield* copyFileOrImport(source, into, () => storeAt(source), update);
			return;
		}
		if ("location" in into) {
			throw new SessionTreeError(
				"INVALID_ARGUMENT",
				"a whole store is copied into a store (a directory or a database), not one session",
				{
					file: target,
				},
			);
		}
		const from = collectionAt(source);
		try {
			for await (const listing of from.list()) {
				yield* copyFileOrImport(listing.location, into, () => from.open(listing.location), update);
			}
		} finally {
			await from.close?.();
		}
	} finally {
		if ("collection" in into) await into.collection.close?.();
	}
}

/** Copies one session's location, or the import of another agent's file at it (see {@link foreignStores}). */
async function* copyFileOrImport(
	location: string,
	into: CopyTarget,
	open: () => SessionStore,
	update: boolean,
): AsyncGenerator<CopyEvent> {
	let foreign: Awaited<ReturnType<typeof foreignStores>>;
	try {
		foreign = schemeOf(location) === undefined ? await foreignStores(location, into) : undefined;
	} catch (error) {
		// A broken foreign file fails alone, as a damaged session does.
		if (!(error instanceof SessionTreeError)) throw error;
		yield { kind: "failed", source: location, error };
		return;
	}
	if (!foreign) {
		yield await copyOne(open(), into, update);
		return;
	}
	for (const store of foreign) {
		try {
			yield await copyOne(store, into, update);
		} finally {
			store.release();
		}
	}
}

/**
 * The sessions of another agent's file (`FILE`, or `FILE#ID` for one of several), imported in
 * memory as `tree` and `ctx` read them, each in a read-only store: a copy of such a file holds
 * its imported records. Undefined when `source` is not another agent's file. Into one
 * location, the file must hold one session (or `#ID` name one).
 * @throws SessionTreeError when the file is broken (strict import) or names no single session for one location
 */
async function foreignStores(
	source: string,
	into: CopyTarget,
): Promise<Array<SessionStore & { release(): void }> | undefined> {
	// Loaded only for such a file: a copy of sessions never loads the importers.
	const { foreignFormatOf, foreignLocation, importForeignFile } = await import("../import/open-foreign.js");
	if (foreignFormatOf(source) === undefined) return undefined;
	const { chooseSession, sessionRecords } = await import("../import/index.js");
	const { ImportedSessionStore } = await import("../import/read-only.js");
	const file = await importForeignFile(source);
	if (!file) return undefined;
	const chosen =
		file.selector !== undefined || "location" in into
			? [chooseSession(file.sessions, file.selector, file.path)]
			: file.sessions;
	const stores: Array<SessionStore & { release(): void }> = [];
	for (const imported of chosen) {
		const location = foreignLocation(file, imported);
		stores.push(await ImportedSessionStore.hold(location, imported.format, sessionRecords(imported), file.path));
	}
	return stores;
}

/** One session copied, completed, already there (the same records), or failed: a different session in the way is a failure. */
async function copyOne(store: SessionStore, into: CopyTarget, update: boolean): Promise<CopyEvent> {
	try {
		const done = await copyInto(store, into, update);
		if (done.outcome === "already") {
			return { kind: "exists", source: store.location, reason: `${done.location} already holds this session` };
		}
		if (done.outcome === "updated") {
			return {
				kind: "updated",
				source: store.location,
				location: done.location,
				appended: done.appended,
				leafMoved: done.leafMoved === true,
			};
		}
		if (done.outcome === "completed") {
			return { kind: "completed", source: store.location, location: done.location, appended: done.appended };
		}
		return { kind: "copied", source: store.location, location: done.location };
	} catch (error) {
		if (!(error instanceof SessionTreeError)) throw error;
		return { kind: "failed", source: store.location, error };
	} finally {
		await store.close();
	}
}

/** Which sessions `prune` deletes: those last changed more than `olderThanDays` ago, or all but the newest `keep`. */
export type PruneRule = { olderThanDays: number } | { keep: number };

/**
 * The sessions of a collection that `rule` deletes, oldest first. A session whose time of last
 * change the collection does not know is never chosen, and neither is another agent's file
 * that a directory holds (a Claude Code transcript among the `*.jsonl` files, told by the test
 * every command uses: session-tree never deletes or writes one); `onForeign` hears of each.
 */
export async function pruneCandidates(
	collection: SessionCollection,
	rule: PruneRule,
	now: Date = new Date(),
	onForeign?: (location: string, format: string) => void,
): Promise<SessionListing[]> {
	const dated: Array<SessionListing & { modified: Date }> = [];
	let foreignFormatOf: ((location: string) => string | undefined) | undefined;
	for await (const listing of collection.list()) {
		if (schemeOf(listing.location) === undefined) {
			// Loaded only for a store of files: pruning a database never loads the importers.
			foreignFormatOf ??= (await import("../import/open-foreign.js")).foreignFormatOf;
			const format = foreignFormatOf(listing.location);
			if (format !== undefined) {
				onForeign?.(listing.location, format);
				continue;
			}
		}
		if (listing.modified) dated.push({ ...listing, modified: listing.modified });
	}
	dated.sort((a, b) => b.modified.getTime() - a.modified.getTime() || (a.location < b.location ? -1 : 1));
	const chosen =
		"keep" in rule
			? dated.slice(rule.keep)
			: dated.filter((listing) => now.getTime() - listing.modified.getTime() > rule.olderThanDays * 86_400_000);
	return chosen.reverse();
}
