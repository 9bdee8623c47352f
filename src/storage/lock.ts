/**
 * An inter-process write lock for one session file: `<file>.lock`, created with O_EXCL and
 * holding the owner's pid, host and a random token.
 *
 * Why not proper-lockfile (which pi uses for its settings): its staleness is judged by the
 * lock's mtime, so after a holder crashes every writer stalls for at least two seconds, and its
 * synchronous API has no retries. Appends hold this lock for microseconds; a crashed holder on
 * this host is recognised at once because its pid is gone. A holder on another host (a shared
 * file system) is presumed alive until its lock is `staleMs` old.
 */

import { closeSync, linkSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { describeSystemError, SessionTreeError } from "../core/errors.js";
import { errorCode, isObject } from "../core/validate.js";
import { readRegularFile } from "./regular-file.js";

/** Options of {@link acquireLock}. */
export interface LockOptions {
	/** Give up after this long. Default 10,000 ms. */
	timeoutMs?: number;
	/** A lock from another host older than this is broken. Default 30,000 ms. */
	staleMs?: number;
}

interface LockOwner {
	pid: number;
	host: string;
	token: string;
}

/** True for a parsed lock file that names its owner (a numeric pid and a string token). */
function isLockOwner(value: unknown): value is LockOwner {
	return isObject(value) && typeof value.pid === "number" && typeof value.token === "string";
}

/** Releases a held lock. Idempotent. */
export type ReleaseLock = () => void;

/** This host's name, looked up on first use (not at import: commands that never lock start faster). */
let host: string | undefined;
function thisHost(): string {
	host ??= hostname();
	return host;
}

/** Random hex from Web Crypto (global in Node 20; importing node:crypto costs milliseconds at start). */
function randomHex(bytes: number): string {
	return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
/** Tokens tell locks apart: random per process, then a counter (cheaper than fresh randomness per lock). */
let processToken: string | undefined;
let lockCounter = 0;
/**
 * Locks this process holds, with how many holders in this process share each: the lock is
 * between processes, and within one (single-threaded) process writers take turns anyway.
 * Released if the process exits while holding them.
 */
const held = new Map<string, number>();
process.once("exit", () => {
	for (const path of held.keys()) release(path);
});

function holdOnce(path: string): ReleaseLock {
	let done = false;
	return () => {
		if (done) return;
		done = true;
		const count = (held.get(path) ?? 1) - 1;
		if (count > 0) {
			held.set(path, count);
		} else {
			held.delete(path);
			release(path);
		}
	};
}

function readOwner(path: string): LockOwner | undefined {
	try {
		// Not a FIFO someone put there: its read would block every writer.
		const owner: unknown = JSON.parse(readRegularFile(path).toString("utf8"));
		return isLockOwner(owner) ? owner : undefined;
	} catch {
		return undefined;
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return errorCode(error) === "EPERM";
	}
}

function ageMs(path: string): number {
	try {
		return Date.now() - statSync(path).mtimeMs;
	} catch {
		return 0;
	}
}

/** True when the lock's holder is certainly gone. */
function isStale(path: string, owner: LockOwner | undefined, staleMs: number): boolean {
	// Unreadable: a holder died between creating and writing it (or is writing it right now).
	if (!owner) return ageMs(path) > 1000;
	if (owner.host === thisHost()) return owner.pid !== process.pid && !isAlive(owner.pid);
	return ageMs(path) > staleMs;
}

/**
 * Breaks a stale lock. The rename is atomic, so of several processes breaking the same lock
 * only one moves it; if what it moved is no longer the stale lock it read (a new holder took
 * over in between), it puts that lock back.
 */
function breakLock(path: string, seen: LockOwner | undefined): void {
	const aside = `${path}.stale-${process.pid}-${randomHex(4)}`;
	try {
		renameSync(path, aside);
	} catch {
		return; // someone else broke or released it
	}
	const moved = readOwner(aside);
	if (moved && seen && moved.token !== seen.token) {
		try {
			linkSync(aside, path);
		} catch {
			// A third process already holds a new lock; the one we moved was released by now.
		}
	}
	try {
		unlinkSync(aside);
	} catch {
		// already gone
	}
}

/**
 * Takes the lock of `file`, waiting (with backoff, without blocking the event loop) while another
 * live process holds it. If this process holds it already, the lock is shared (counted) and
 * returned at once: within one process, writers check their position under it instead.
 * @throws SessionTreeError LOCKED after `timeoutMs`
 */
export async function acquireLock(file: string, options: LockOptions = {}): Promise<ReleaseLock> {
	return tryLock(file, options) ?? waitForLock(file, options);
}

/** Takes the lock if it is free (or held by this process) at once; undefined if another process holds it. */
export function tryLock(file: string, options: LockOptions = {}): ReleaseLock | undefined {
	// Two tries: the first may only break a dead holder's lock.
	return takeLock(file, options.staleMs ?? 30_000, 2);
}

async function waitForLock(file: string, options: LockOptions): Promise<ReleaseLock> {
	const timeoutMs = options.timeoutMs ?? 10_000;
	const staleMs = options.staleMs ?? 30_000;
	const deadline = Date.now() + timeoutMs;
	for (let attempt = 0; ; attempt++) {
		// Backoff with jitter, 1 ms (timers have no finer grain) to ~6 ms: a holder in a long
		// burst frees the lock for a few ms now and then (see the file store), and a waiter must
		// look often enough to get it.
		await sleep(Math.min(4, 2 ** Math.min(attempt, 2)) * (0.5 + Math.random()));
		const release = takeLock(file, staleMs, 3);
		if (release) return release;
		if (Date.now() >= deadline) {
			const owner = readOwner(`${file}.lock`);
			const who = owner ? `process ${owner.pid} on ${owner.host}` : "another process";
			throw new SessionTreeError("LOCKED", `the session is locked by ${who} (${file}.lock)`, { file });
		}
	}
}

/**
 * One try (breaking a stale lock and trying again, `tries` times at most): the release
 * function, or undefined while a live process holds the lock.
 */
function takeLock(file: string, staleMs: number, tries: number): ReleaseLock | undefined {
	const path = `${file}.lock`;
	const already = held.get(path);
	if (already !== undefined) {
		held.set(path, already + 1);
		return holdOnce(path);
	}
	for (let attempt = 0; attempt < tries; attempt++) {
		let fd: number | undefined;
		try {
			fd = openSync(path, "wx", 0o600);
		} catch (error) {
			if (errorCode(error) !== "EEXIST") {
				const reason = describeSystemError(error);
				throw new SessionTreeError("IO_ERROR", `cannot create lock ${path}: ${reason}`, { file });
			}
		}
		if (fd !== undefined) {
			processToken ??= randomHex(6);
			const token = `${processToken}${(++lockCounter).toString(16)}`;
			const mine: LockOwner = { pid: process.pid, host: thisHost(), token };
			try {
				writeSync(fd, JSON.stringify(mine));
			} catch (error) {
				// A full disk can take the empty file and refuse its content: remove it, or it
				// would stand as a lock whose owner nobody can read until it is judged stale.
				closeSync(fd);
				release(path);
				const reason = describeSystemError(error);
				throw new SessionTreeError("IO_ERROR", `cannot write lock ${path}: ${reason}`, { file });
			}
			closeSync(fd);
			held.set(path, 1);
			return holdOnce(path);
		}
		const owner = readOwner(path);
		if (!isStale(path, owner, staleMs)) return undefined;
		breakLock(path, owner);
	}
	return undefined;
}

/**
 * Removes the lock. It is not read back first: while this process lives, no process on this
 * host judges it stale, and a holder on another host is judged stale only after `staleMs`,
 * far longer than an append holds the lock.
 */
function release(path: string): void {
	try {
		unlinkSync(path);
	} catch {
		// already gone
	}
}
