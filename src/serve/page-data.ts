/**
 * The records of a served session page, sent apart from the page (`GET
 * /api/sessions/KEY/records`): the export's records (render/html/export.ts `pageRecords`:
 * redacted, the filters' hints gathered as they are read) as gzip-compressed JSONL, sent with
 * `Content-Encoding: gzip` so that the browser inflates them as they arrive, off the page's
 * thread. Embedded in the page instead (as `session-tree html` does), Chromium spent 1.7–1.8 s
 * of a 125 MB session's start parsing the 41 MB page, base64 and gzip 0.8–1.2 s more, and the
 * server made the whole page before sending a byte (5.1–5.4 s): docs/performance.md, "Issue
 * 28, seventh round".
 *
 * One build per session and version of it, shared: the page's request starts it (so it runs
 * while the browser loads the page), the records' request streams it as it is made, and a
 * finished build is kept, up to {@link PAGE_DATA_LIMIT} bytes of them all, for the next page
 * of the same session while its file is unchanged (its size, times and inode; a session not in
 * a file is built again for each page). What is appended after a build reaches the page by its
 * live tail (events.ts), which starts after the records the page read.
 */

import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import type { Context } from "hono";
import { type PageView, pageRecords } from "../render/html/export.js";
import { gzipRecords } from "../render/html/page.js";
import { pageCheckThreadFor } from "../render/html/page-checks.js";
import type { IndexedSession } from "./catalog.js";
import type { SessionOpener } from "./sources.js";

/**
 * The gzip level of the records a server sends: 1, the fastest. They cross the loopback
 * interface, where size costs little, and a first page waits for the build.
 */
const SERVE_GZIP_LEVEL = 1;

/** Bytes of finished builds kept for the next pages (a 125 MB session's build is about 35 MB). */
export const PAGE_DATA_LIMIT = 256 * 2 ** 20;

/** A session's records as a page gets them, being made or made. */
export class PageBuild {
	/** The gzip stream so far, in the order made. */
	readonly chunks: Buffer[] = [];
	bytes = 0;
	/** Set when the records were all read: the page's view options for them. */
	view: PageView | undefined;
	/** Set when the build failed; the chunks are then incomplete. */
	error: unknown;
	private wake: (() => void) | undefined;
	private changed: Promise<void>;
	/** What starts the build, until it started. */
	private starter: (() => void) | undefined;

	constructor(
		/** Names this build in the page and in the records' answer (`X-Session-Build`). */
		readonly id: string,
		readonly key: string,
		/** The session's file as it was when the build started, or undefined (not a file). */
		readonly fingerprint: string | undefined,
	) {
		this.changed = this.next();
	}

	/** Starts the build unless it started (see {@link PageDataCache.start}). */
	begin(): void {
		const starter = this.starter;
		this.starter = undefined;
		starter?.();
	}

	/** @internal What {@link begin} runs (the cache sets it once). */
	setStarter(starter: () => void): void {
		this.starter = starter;
	}

	/** Whether the build ended (done or failed). */
	get ended(): boolean {
		return this.view !== undefined || this.error !== undefined;
	}

	private next(): Promise<void> {
		return new Promise((resolve) => {
			this.wake = resolve;
		});
	}

	private notify(): void {
		const wake = this.wake;
		this.changed = this.next();
		wake?.();
	}

	/** Resolves at the next chunk or the end. */
	whenChanged(): Promise<void> {
		return this.changed;
	}

	add(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.bytes += chunk.length;
		this.notify();
	}

	finish(view: PageView): void {
		this.view = view;
		this.notify();
	}

	fail(error: unknown): void {
		this.error = error ?? new Error("the build failed");
		this.notify();
	}

	/** The gzip stream from the first chunk, as it is made; errors when the build fails. */
	stream(): ReadableStream<Uint8Array> {
		this.begin();
		let sent = 0;
		return new ReadableStream<Uint8Array>({
			pull: async (controller) => {
				while (sent === this.chunks.length && !this.ended) await this.whenChanged();
				if (sent < this.chunks.length) controller.enqueue(this.chunks[sent++] as Buffer);
				else if (this.error !== undefined) controller.error(this.error);
				else controller.close();
			},
		});
	}
}

/** What identifies a version of a session's file: undefined for a session not in a file, or one gone. */
async function fingerprintOf(row: IndexedSession): Promise<string | undefined> {
	if (!isAbsolute(row.location)) return undefined;
	try {
		const s = await stat(row.location, { bigint: true });
		return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
	} catch {
		return undefined;
	}
}

/** The builds of a server (see the module's documentation). */
export class PageDataCache {
	/** Every build known, oldest first (a Map keeps the order of insertion; a use moves one to the end). */
	private readonly builds = new Map<string, PageBuild>();

	constructor(
		private readonly opener: SessionOpener,
		private readonly limit = PAGE_DATA_LIMIT,
	) {}

	/** The build of this id, if it is still kept. */
	byId(id: string): PageBuild | undefined {
		const build = this.builds.get(id);
		if (build) this.touch(build);
		return build;
	}

	/**
	 * A build of the session as it is now: one under way or done for the same version of its
	 * file, else a new one, started after this turn of the event loop (it runs on; the caller
	 * need not wait) or, `deferred`, when its `begin` is called or its records are asked for:
	 * the session page's answer is made first, since the build's open would hold the thread
	 * before that answer's own reads (0.6–0.7 s for s100k's first page).
	 */
	async start(row: IndexedSession, deferred = false): Promise<PageBuild> {
		const fingerprint = await fingerprintOf(row);
		if (fingerprint !== undefined) {
			for (const build of this.builds.values()) {
				if (build.key === row.key && build.fingerprint === fingerprint && build.error === undefined) {
					this.touch(build);
					return build;
				}
			}
		}
		const build = new PageBuild(randomBytes(9).toString("base64url"), row.key, fingerprint);
		// An older version of the same session (any earlier build of one not in a file) is not asked
		// for again: its page reads on from its tail.
		for (const old of [...this.builds.values()])
			if (old.key === row.key && old.ended && (fingerprint === undefined || old.fingerprint !== fingerprint))
				this.builds.delete(old.id);
		this.builds.set(build.id, build);
		build.setStarter(() => {
			this.run(row, build).catch((error: unknown) => build.fail(error));
		});
		if (!deferred) setImmediate(() => build.begin());
		return build;
	}

	private async run(row: IndexedSession, build: PageBuild): Promise<void> {
		// A large pi file's records are checked in a second thread too, from before the open, as
		// `session-tree html` checks them (render/html/page-checks.ts).
		const checks = pageCheckThreadFor(row.location, true);
		try {
			const session = await this.opener.read(row);
			try {
				const records = await pageRecords(session, {}, checks);
				await gzipRecords(records.header, records.entries, SERVE_GZIP_LEVEL, (chunk) => build.add(chunk));
				build.finish(records.view());
				this.evict(build);
			} finally {
				await session.close();
			}
		} catch (error) {
			this.builds.delete(build.id);
			throw error;
		} finally {
			checks?.stop();
		}
	}

	private touch(build: PageBuild): void {
		this.builds.delete(build.id);
		this.builds.set(build.id, build);
	}

	/**
	 * Drops the least recently used finished builds while all of them hold more than the limit;
	 * never `kept`, the one just made, which its page may not have asked for yet.
	 */
	private evict(kept: PageBuild): void {
		let total = 0;
		for (const build of this.builds.values()) total += build.bytes;
		for (const build of [...this.builds.values()]) {
			if (total <= this.limit) break;
			if (!build.ended || build === kept) continue;
			this.builds.delete(build.id);
			total -= build.bytes;
		}
	}
}

/**
 * The answer to the records' request: the build's gzip stream as it is made, with
 * `Content-Encoding: gzip` for a client that accepts it (every browser), inflated here for one
 * that does not; `X-Session-Build` names the build (its view options are asked for by it).
 */
export function recordsResponse(c: Context, build: PageBuild): Response {
	const accepts = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
	const gzip = build.stream();
	const body = accepts ? gzip : gzip.pipeThrough<Uint8Array>(new DecompressionStream("gzip"));
	c.header("Content-Type", "application/x-ndjson; charset=utf-8");
	c.header("Cache-Control", "no-store");
	c.header("X-Session-Build", build.id);
	if (accepts) c.header("Content-Encoding", "gzip");
	return c.body(body);
}
