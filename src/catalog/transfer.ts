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
 * that exists, and removes what it wrote when it fails part way.
 */

import { SessionTreeError } from "../core/errors.js";
import type { Envelope } from "../core/lazy.js";
import type { RawRecord } from "../core/migrate.js";
import { stripLocation } from "../core/reducer.js";
import { isHeaderRecord, parseRecord } from "../core/validate.js";
import { collectionAt, schemeOf, storeAt } from "../storage/locations.js";
import type { SessionCollection, SessionListing, SessionStore, StoreRead } from "../storage/store.js";

/** Records per append when copying: a million-entry session is not one transaction or one write. */
const COPY_BATCH = 1000;

/**
 * The records of a read, in order, in batches of at most `size`: bodies of lines the store
 * handed back as envelopes are read and parsed one batch at a time, so a copy of a large
 * file never holds all its records parsed at once.
 * @throws SessionTreeError naming the location and line of a damaged or incomplete line
 */
export function* recordBatches(read: StoreRead, location: string, size = COPY_BATCH): Generator<RawRecord[]> {
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

/** Where a copy goes: a collection (a new session named by the header's id) or one session's location. */
export type CopyTarget = { collection: SessionCollection } | { location: string };

/**
 * Copies one session into `target`, which must not hold it yet.
 * @returns the new session's location
 * @throws SessionTreeError FILE_EXISTS when the target holds the session; the source's damage, see {@link readAllRecords}
 */
export async function copySession(source: SessionStore, target: CopyTarget): Promise<string> {
	const done = await copyInto(source, target);
	if (done.already) {
		throw new SessionTreeError("FILE_EXISTS", "the target already holds this session (the same records)", {
			file: done.location,
		});
	}
	return done.location;
}

/**
 * Copies one session into `target`; `already` when the target held exactly that session (the
 * same records, as the same JSON, in order) and nothing was written.
 * @throws SessionTreeError FILE_EXISTS when the target holds a different session by that name
 */
async function copyInto(source: SessionStore, target: CopyTarget): Promise<{ location: string; already: boolean }> {
	const read = await source.read();
	const batches = recordBatches(read, source.location);
	const first = batches.next();
	const header = first.done ? undefined : first.value[0];
	if (!header || !isHeaderRecord(header)) {
		throw new SessionTreeError("INVALID_HEADER", "the first record is not a session header", {
			file: source.location,
			line: 1,
		});
	}
	const store = "collection" in target ? target.collection.sessionFor(header) : storeAt(target.location);
	let position: string;
	try {
		position = await store.create(header);
	} catch (error) {
		try {
			if (!(error instanceof SessionTreeError && error.code === "FILE_EXISTS")) throw error;
			// A re-run of a copy finds its sessions there: fine when they are the same; anything else is not copied.
			if (await sameRecords(read, source.location, store)) return { location: store.location, already: true };
			throw new SessionTreeError(
				"FILE_EXISTS",
				`not copied: ${store.location} holds a different session (or an incomplete copy) by this name; remove it or copy elsewhere`,
				{ file: source.location },
			);
		} finally {
			await store.close();
		}
	}
	try {
		const append = async (records: readonly RawRecord[]) => {
			if (records.length === 0) return;
			const outcome = await store.append(records, position);
			if (outcome.status !== "ok") {
				throw new SessionTreeError("WRITE_CONFLICT", "another writer wrote to the new session during the copy", {
					file: store.location,
				});
			}
			position = outcome.position;
		};
		await append(first.done ? [] : first.value.slice(1));
		for (const batch of batches) await append(batch);
		await store.flush();
		await verifyCopy(read, source.location, store);
	} catch (error) {
		await discard(store, target);
		throw error;
	} finally {
		await store.close();
	}
	return { location: store.location, already: false };
}

/** True when `store` reads back exactly as `original` (see {@link verifyCopy}); false for any difference or damage. */
async function sameRecords(original: StoreRead, location: string, store: SessionStore): Promise<boolean> {
	try {
		await verifyCopy(original, location, store);
		return true;
	} catch (error) {
		if (error instanceof SessionTreeError) return false;
		throw error;
	}
}

/**
 * Reads the copy back: the same records, as the same JSON text, in the same order. The
 * original's records are parsed again, batch by batch, rather than kept from the copy: a copy
 * of a large file never holds all of them at once.
 */
async function verifyCopy(original: StoreRead, location: string, store: SessionStore): Promise<void> {
	const copied = recordBatches(await store.read(), store.location);
	let line = 0;
	const differs = () =>
		new SessionTreeError("IO_ERROR", "the copy does not read back as the original", { file: store.location, line });
	for (const batch of recordBatches(original, location)) {
		const next = copied.next();
		if (next.done || next.value.length !== batch.length) {
			line += 1;
			throw differs();
		}
		for (const [i, record] of batch.entries()) {
			line++;
			if (JSON.stringify(record) !== JSON.stringify(next.value[i])) throw differs();
		}
	}
	if (!copied.next().done) throw differs();
}

/** Removes a copy that failed part way, where the target can. */
async function discard(store: SessionStore, target: CopyTarget): Promise<void> {
	const collection = "collection" in target ? target.collection : undefined;
	try {
		await collection?.remove?.(store.location);
	} catch {
		// The copy's own error is the one to report; a partial copy left behind is named in it.
	}
}

/** What {@link copyLocation} did with one session of the source. */
export type CopyEvent =
	| { kind: "copied"; source: string; location: string }
	/** The target already held exactly this session: nothing written, nothing lost. */
	| { kind: "exists"; source: string; reason: string }
	| { kind: "failed"; source: string; error: SessionTreeError };

/**
 * True when `location` names a collection (many sessions) rather than one session: a
 * directory, `memory:`, or a database URL without `#SESSION_ID`.
 */
export function isCollectionLocation(location: string, isDirectory: (path: string) => boolean): boolean {
	const scheme = schemeOf(location);
	if (scheme === undefined || scheme === "file") return isDirectory(location);
	if (scheme === "memory") return location === "memory:";
	return !location.includes("#");
}

/**
 * Copies what `source` names (one session, or every session of a collection) into `target` (a
 * collection, or, for one session, a new session's location). Sessions the target already
 * holds, with the same records, are reported and left alone, so a copy that stopped can be run
 * again; a different session (or an incomplete copy) in the way fails that session.
 */
export async function* copyLocation(
	source: string,
	target: string,
	isDirectory: (path: string) => boolean,
): AsyncGenerator<CopyEvent> {
	const into: CopyTarget = isCollectionLocation(target, isDirectory)
		? { collection: collectionAt(target) }
		: { location: target };
	try {
		if (!isCollectionLocation(source, isDirectory)) {
			yield* copyFileOrImport(source, into, () => storeAt(source));
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
				yield* copyFileOrImport(listing.location, into, () => from.open(listing.location));
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
		yield await copyOne(open(), into);
		return;
	}
	for (const store of foreign) {
		try {
			yield await copyOne(store, into);
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
	// Loaded only for such a file (and import/ reads catalog/, so not at the top).
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

/** One session copied, already there (the same records), or failed: a different session in the way is a failure. */
async function copyOne(store: SessionStore, into: CopyTarget): Promise<CopyEvent> {
	try {
		const done = await copyInto(store, into);
		if (done.already) {
			return { kind: "exists", source: store.location, reason: `${done.location} already holds this session` };
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
			// Loaded only for a store of files (and import/ reads catalog/, so not at the top).
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
