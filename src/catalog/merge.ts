/**
 * `merge`: two copies of one session (a file synced between two machines that grew on both,
 * the same session in a file and in a database) joined into a new session. The copies are read
 * through the store contract, joined by the core (`mergeRecords`, src/core/merge.ts, which says
 * what the union holds), and the union is written as `copy` writes a session (copySession:
 * staged under a hidden name for a file, read back and compared, removed again if it fails part
 * way).
 *
 * Never writes to either copy: the output must be a session that does not exist yet, and a
 * location that is one of the copies is refused, whatever name it is given by (a session file
 * in a directory, a database named by the header's id). The one exception is an output that
 * already holds exactly the union (a merge run again): nothing is written, and that is said.
 */

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import { type MergeOptions, type MergeResult, mergeRecords } from "../core/merge.js";
import { migrateRecords } from "../core/migrate.js";
import type { RawRecord } from "../core/records.js";
import type { SessionHeader } from "../core/types.js";
import { sameJson } from "../core/validate.js";
import { type CopyTarget, readAllRecords } from "../storage/batches.js";
import { sessionStoreFor } from "../storage/placement.js";
import type { SessionStore, StoreCapabilities } from "../storage/store.js";
import { copySession } from "./transfer.js";

/** What {@link mergeSessions} did. */
export interface MergedSession extends MergeResult {
	/** The new session's location. */
	location: string;
	/** `written`, or `already`: the output held exactly the union, and nothing was written. */
	outcome: "written" | "already";
}

/**
 * The union of the sessions in stores `a` and `b` (see `mergeRecords`), read through the store
 * contract and not written anywhere. A copy of an older version is merged as its migration to
 * the current one (in memory, as opening it does).
 * @throws SessionTreeError a copy's damage (repair it first), INVALID_ARGUMENT for copies of
 *   different sessions without `force`
 */
export async function readMerge(a: SessionStore, b: SessionStore, options: MergeOptions = {}): Promise<MergeResult> {
	const recordsA = migrated(await readAllRecords(a));
	const recordsB = migrated(await readAllRecords(b));
	return mergeRecords(recordsA, recordsB, { ...options, names: { a: a.location, b: b.location, ...options.names } });
}

/**
 * Merges the sessions in stores `a` and `b` into a new session at `target` (a collection, where
 * it is named by A's header, or a location), written as `copy` writes one.
 * @returns the new session's location, whether it was written, the union and its report
 * @throws SessionTreeError INVALID_ARGUMENT when the output is one of the copies; FILE_EXISTS
 *   when it holds a session (other than exactly the union); what {@link readMerge} throws
 */
export async function mergeSessions(
	a: SessionStore,
	b: SessionStore,
	target: CopyTarget,
	options: MergeOptions = {},
): Promise<MergedSession> {
	const merged = await readMerge(a, b, options);
	const header = merged.records[0] as unknown as SessionHeader;
	const out = sessionStoreFor(target, header);
	try {
		for (const [input, name] of [
			[a, "A"],
			[b, "B"],
		] as const) {
			if (sameSession(out, input)) {
				throw new SessionTreeError(
					"INVALID_ARGUMENT",
					`the output is ${name} (${input.location}): merge never writes to the sessions it merges; name a new location`,
					{ file: out.location },
				);
			}
		}
		if (await out.exists()) {
			if (await holdsExactly(out, merged.records)) return { ...merged, location: out.location, outcome: "already" };
			throw new SessionTreeError(
				"FILE_EXISTS",
				"holds a session already: merge writes a new session, never into one; remove it or name another output",
				{ file: out.location },
			);
		}
	} finally {
		await out.close();
	}
	const location = await copySession(
		recordsStore(merged.records, `the merge of ${a.location} and ${b.location}`),
		target,
	);
	return { ...merged, location, outcome: "written" };
}

/** Records of any version, brought to the current one in place (they were just read: this owns them). */
function migrated(records: RawRecord[]): RawRecord[] {
	const [header, ...rest] = records;
	if (header !== undefined) migrateRecords(header, rest);
	return records;
}

/** True when two stores are one session: the same location, or the same file by any path. */
function sameSession(x: SessionStore, y: SessionStore): boolean {
	if (x.location === y.location) return true;
	if (x.file === undefined || y.file === undefined) return false;
	return realPath(x.file) === realPath(y.file);
}

/** The path with links resolved, as far as it exists. */
function realPath(file: string): string {
	try {
		return realpathSync(file);
	} catch {
		return resolve(file);
	}
}

/** True when the session in `store` holds exactly `records` (a damaged one never does). */
async function holdsExactly(store: SessionStore, records: readonly RawRecord[]): Promise<boolean> {
	let held: RawRecord[];
	try {
		held = await readAllRecords(store);
	} catch (error) {
		if (error instanceof SessionTreeError) return false;
		throw error;
	}
	return held.length === records.length && held.every((record, i) => sameJson(record, records[i]));
}

const READ_ONLY: StoreCapabilities = Object.freeze({
	lazyBodies: false,
	tailReads: false,
	pathReads: false,
	durability: Object.freeze(["none"] as const),
});

/** A store that holds `records` and only reads: the source `copySession` copies the union from. */
function recordsStore(records: readonly RawRecord[], location: string): SessionStore {
	const lines = records.map((record, i) => ({ line: i + 1, record }));
	const refuse = (): never => {
		throw new SessionTreeError("NOT_WRITABLE", "the union of a merge is only read", { file: location });
	};
	return {
		location,
		capabilities: READ_ONLY,
		exists: async () => true,
		create: async () => refuse(),
		read: async () => ({ lines, position: String(records.length) }),
		readSince: async () => undefined,
		append: () => refuse(),
		replace: async () => refuse(),
		derive: () => refuse(),
		flush: async () => {},
		close: async () => {},
	};
}
