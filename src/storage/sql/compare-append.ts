/**
 * The compare-and-write of the SQL stores, one path for SQLite and PostgreSQL, for appends and
 * replaces: read the session's end where the write's lock holds it, compare it with the end
 * the caller expects, then write (`ok`), or report the caller `stale` (the session was
 * replaced since its position) or `behind` (others appended since: here is what).
 *
 * Each store supplies the steps, as its driver runs them: SQLite's synchronously inside one
 * `BEGIN IMMEDIATE` transaction (better-sqlite3 runs no `await` in a transaction, so the path
 * then completes at once), PostgreSQL's as queries, in a transaction that locks the session row
 * (`replace`) or as one statement that compares and appends (`append`, see
 * {@link WriteSteps.end}).
 */

import { type Awaitable, isPending, type StoreRead } from "../store.js";

/**
 * Where a session of a SQL store ends: its generation (bumped by every replace) and its number
 * of records, header included. A position is one, encoded (`encodePosition`).
 */
export interface SqlEnd {
	readonly generation: number;
	readonly count: number;
}

/** What a compare-and-write reports when it did not write. */
export type NotWritten = { status: "behind"; read: StoreRead } | { status: "stale" };

/** The steps of one compare-and-write, supplied by the store (see {@link compareAndWrite}). */
export interface WriteSteps<O> {
	/**
	 * The session's end, read under the write's lock. A store that compares and appends in one
	 * statement runs it here: it has written when the end it returns is the expected one (a
	 * write sent again may find its first try's records: the end before them is returned then).
	 * @throws SessionTreeError FILE_NOT_FOUND when the session does not exist
	 */
	end(): Awaitable<SqlEnd>;
	/** Writes; the session ends at `end`, as the caller expected. What it returns is the outcome. */
	write(end: SqlEnd): Awaitable<O>;
	/**
	 * What others wrote after record `count` and the position after it, the session ending at
	 * `end` when its lock was held; undefined when the session was replaced or removed since
	 * (the caller is stale then).
	 */
	since(count: number, end: SqlEnd): Awaitable<StoreRead | undefined>;
}

/** {@link WriteSteps} that complete at once (SQLite's, inside its transaction). */
export interface WriteStepsNow<O> extends WriteSteps<O> {
	end(): SqlEnd;
	write(end: SqlEnd): O;
	since(count: number, end: SqlEnd): StoreRead | undefined;
}

/**
 * Compares the session's end with `expected` and writes when they are the same: the outcome
 * `write` returns; else `stale` when the session was replaced since `expected` (another
 * generation) or holds fewer records than it says, `behind` with what others appended.
 * Completes at once when the steps do.
 */
export function compareAndWrite<O>(expected: SqlEnd, steps: WriteStepsNow<O>): O | NotWritten;
export function compareAndWrite<O>(expected: SqlEnd, steps: WriteSteps<O>): Awaitable<O | NotWritten>;
export function compareAndWrite<O>(expected: SqlEnd, steps: WriteSteps<O>): Awaitable<O | NotWritten> {
	const end = steps.end();
	if (isPending(end)) return Promise.resolve(end).then((found) => compared(expected, found, steps));
	return compared(expected, end, steps);
}

/** True when both name the same end. */
export function sameEnd(a: SqlEnd, b: SqlEnd): boolean {
	return a.generation === b.generation && a.count === b.count;
}

/** The rest of {@link compareAndWrite}, once the end is known. */
function compared<O>(expected: SqlEnd, end: SqlEnd, steps: WriteSteps<O>): Awaitable<O | NotWritten> {
	if (end.generation !== expected.generation || expected.count > end.count) return { status: "stale" };
	if (end.count === expected.count) return steps.write(end);
	const read = steps.since(expected.count, end);
	return isPending(read) ? Promise.resolve(read).then(behind) : behind(read);
}

/** Behind with what others wrote, or stale when the session was replaced since. */
function behind(read: StoreRead | undefined): NotWritten {
	return read === undefined ? { status: "stale" } : { status: "behind", read };
}
