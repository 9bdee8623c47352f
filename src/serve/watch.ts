/**
 * When a session may have changed, for the live tail. A file: `fs.watch` (inotify on Linux:
 * at once) plus a poll of its size, mtime and inode every {@link POLL_MS} ms as the fallback
 * where events are lost or not delivered (network file systems, some editors' renames, a
 * watch that failed). A database's session: a poll of its entry count through the facade's
 * `refresh` (PostgreSQL's LISTEN/NOTIFY is not used: docs/serve.md, "Live tail").
 */

import { type FSWatcher, type Stats, statSync, watch } from "node:fs";
import type { Session } from "../session.js";

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

/** Calls `changed` when a session in a store of another kind has more entries; returns the stop function. */
export function watchStore(session: Session, changed: () => void): () => void {
	let count = session.entryCount;
	let busy = false;
	const timer = setInterval(() => {
		if (busy) return;
		busy = true;
		session
			.refresh()
			.then(() => {
				if (session.entryCount === count) return;
				count = session.entryCount;
				changed();
			})
			.catch(() => changed())
			.finally(() => {
				busy = false;
			});
	}, POLL_MS);
	timer.unref();
	return () => {
		clearInterval(timer);
		void session.close().catch(() => undefined);
	};
}
