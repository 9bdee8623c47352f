/**
 * When a session may have changed, for the live tail. A file: `fs.watch` (inotify on Linux:
 * at once) plus a poll of its size, mtime and inode every {@link POLL_MS} ms as the fallback
 * where events are lost or not delivered (network file systems, some editors' renames, a
 * watch that failed). A database's session: PostgreSQL's LISTEN/NOTIFY, else a poll (see
 * {@link watchStore}). What changed is read by the follower (follow.ts), not here.
 */

import { type FSWatcher, type Stats, statSync, watch } from "node:fs";
import { schemeOf } from "../storage/locations.js";

/** How often the fallback looks. */
export const POLL_MS = 500;

function fingerprint(stats: Stats | undefined): string {
	return stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}` : "missing";
}

/** Calls `changed` whenever the file may have changed; returns the function that stops watching. */
export function watchFile(file: string, changed: () => void): () => void {
	let last = fingerprint(statSync(file, { throwIfNoEntry: false }));
	const look = () => {
		const now = fingerprint(statSync(file, { throwIfNoEntry: false }));
		if (now === last) return;
		last = now;
		changed();
	};
	let watcher: FSWatcher | undefined;
	try {
		watcher = watch(file, { persistent: false }, look);
		watcher.on("error", () => watcher?.close());
	} catch {
		// The poll alone, then.
	}
	const timer = setInterval(look, POLL_MS);
	timer.unref();
	return () => {
		clearInterval(timer);
		watcher?.close();
	};
}

/**
 * How often a PostgreSQL session is also looked at while its LISTEN works: for writers that
 * send no NOTIFY (an older session-tree, another tool writing the tables).
 */
export const LISTENING_POLL_MS = 5000;

/** Calls `changed` every `ms`; returns the function that stops. */
function poll(changed: () => void, ms = POLL_MS): () => void {
	const timer = setInterval(changed, ms);
	timer.unref();
	return () => clearInterval(timer);
}

/**
 * Calls `changed` when a database's session may have changed; returns the stop function.
 * PostgreSQL: at each committed append or replace (LISTEN/NOTIFY, a connection of its own per
 * session followed), once when the LISTEN starts (what was written before it) and every
 * {@link LISTENING_POLL_MS} ms (writers that do not notify); the poll every {@link POLL_MS} ms
 * when the LISTEN cannot start or its connection is lost. Other stores (SQLite): the poll,
 * whose `changed` is the follower's `refresh`: one indexed query of what follows its position.
 */
export function watchStore(location: string, changed: () => void): () => void {
	const scheme = schemeOf(location);
	if (scheme !== "postgres" && scheme !== "postgresql") return poll(changed);
	let stopped = false;
	let stop: () => void = () => undefined;
	const fallBack = () => {
		if (stopped) return;
		stop();
		stop = poll(changed);
		changed();
	};
	import("../storage/sql/postgres-store.js")
		.then(({ listenPostgres }) => listenPostgres(location, changed, fallBack))
		.then((unlisten) => {
			if (stopped) return void unlisten();
			const slow = poll(changed, LISTENING_POLL_MS);
			stop = () => {
				slow();
				void unlisten();
			};
			changed();
		})
		.catch(fallBack);
	return () => {
		stopped = true;
		stop();
	};
}
