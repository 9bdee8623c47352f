/**
 * The sessions the live tails follow: one {@link Session} per session key, kept open while a
 * page of it is open, shared by the streams of all its pages, with one watch (watch.ts). On
 * a change it reads only what was appended (`refresh({ leaf: "stream" })`: the store's
 * `readSince`, and the leaf the session now names) and hands the session to each stream,
 * which sends what follows the records its page holds (events.ts). A store replaced
 * meanwhile is read again whole by the refresh; the streams see that their page's records are
 * no longer a prefix and send `reset`.
 *
 * Another agent's transcript (read-only, converted in memory) cannot be read from a position:
 * its conversion is made again, whole, on each change, as before.
 */

import { isAbsolute } from "node:path";
import type { Session } from "../session.js";
import type { IndexedSession } from "./catalog.js";
import type { SessionOpener } from "./sources.js";
import { watchFile, watchStore } from "./watch.js";

/** Called with the session after each look at it (changed or not); must read it at once, before any await. */
export type Follower = (session: Session) => void;

/** One session followed: its reader, its watch and the streams that follow it. */
class Followed {
	private session: Session | undefined;
	readonly followers = new Set<Follower>();
	private running: Promise<void> = Promise.resolve();
	private queued = false;
	private readonly stopWatch: () => void;

	constructor(
		private readonly row: IndexedSession,
		private readonly opener: SessionOpener,
	) {
		this.stopWatch = isAbsolute(row.location)
			? watchFile(row.location, this.changed)
			: watchStore(row.location, this.changed);
	}

	/** Looks again: one look at a time; the changes during a look are looked at once, after it. */
	readonly changed = (): void => {
		if (this.queued) return;
		this.queued = true;
		this.running = this.running.then(() => {
			this.queued = false;
			return this.look().catch(() => undefined);
		});
	};

	/** Resolves once every look asked for so far is done. */
	settled(): Promise<void> {
		return this.running;
	}

	private async look(): Promise<void> {
		const before = this.session;
		if (before && this.row.writable) await before.refresh({ leaf: "stream" });
		else this.session = await this.opener.read(this.row);
		const session = this.session as Session;
		for (const follower of this.followers) {
			try {
				follower(session);
			} catch {
				// One stream's failure (its page gone) is not the others'.
			}
		}
		// A transcript's previous conversion: the followers have read what they needed of it.
		if (before && before !== session) await before.close();
	}

	async close(): Promise<void> {
		this.stopWatch();
		await this.running;
		await this.session?.close().catch(() => undefined);
	}
}

/** The sessions followed by one server's live tails, by key. */
export class SessionFollowers {
	private readonly followed = new Map<string, Followed>();

	constructor(private readonly opener: SessionOpener) {}

	/**
	 * Calls `follower` with the session now (once it is read) and after each change, until
	 * the returned function is called.
	 */
	follow(row: IndexedSession, follower: Follower): () => Promise<void> {
		let followed = this.followed.get(row.key);
		if (!followed) {
			followed = new Followed(row, this.opener);
			this.followed.set(row.key, followed);
		}
		const one = followed;
		one.followers.add(follower);
		// A new stream needs what its page lacks now: every stream looks, those up to date send nothing.
		one.changed();
		return async () => {
			one.followers.delete(follower);
			if (one.followers.size > 0 || this.followed.get(row.key) !== one) return;
			this.followed.delete(row.key);
			await one.close();
		};
	}

	/** Resolves once the looks asked for so far at the session of `key` are done. */
	settled(key: string): Promise<void> {
		return this.followed.get(key)?.settled() ?? Promise.resolve();
	}

	/** Stops following every session. */
	async close(): Promise<void> {
		const all = [...this.followed.values()];
		this.followed.clear();
		await Promise.all(all.map((one) => one.close()));
	}
}
