/**
 * The records of a served session page, sent apart from the page (`GET
 * /api/sessions/KEY/records`): the export's records (render/html/export.ts `pageRecords`:
 * redacted, the filters' hints gathered as they are read) as JSONL. Embedded in the page
 * instead (as `session-tree html` does), Chromium spent 1.7–1.8 s of a 125 MB session's start
 * parsing the 41 MB page, base64 and gzip 0.8–1.2 s more, and the server made the whole page
 * before sending a byte (5.1–5.4 s): docs/performance.md, "Issue 28, seventh round".
 *
 * One build per session and version of it, shared: the page's request registers it (it starts
 * once the page's answer is made), the records' request streams its lines as they are read,
 * uncompressed (nobody waits for a compressor, and the browser inflates nothing: the first
 * page of s100k was ready in 4.0–4.4 s so against 5.4–6.1 s gzipped as it went), and once read
 * they are compressed (gzip level 1, on the thread pool) and kept, up to
 * {@link PAGE_DATA_LIMIT} bytes of them all, for the next page of the same session while its
 * file is unchanged (its size, times and inode; a session not in a file is built again for
 * each page); those pages get them with `Content-Encoding: gzip`. What is appended after a
 * build reaches the page by its live tail (events.ts), which starts after the records the page
 * read.
 */

import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { createGzip } from "node:zlib";
import type { Context } from "hono";
import { type PageView, pageRecords } from "../render/html/export.js";
import { jsonlBatches } from "../render/html/page.js";
import type { IndexedSession } from "./catalog.js";
import type { SessionOpener } from "./sources.js";

/** The gzip level of the records a server keeps: 1, the fastest (they cross the loopback interface). */
const SERVE_GZIP_LEVEL = 1;

/** Bytes of finished builds kept for the next pages (a 125 MB session's build is about 35 MB). */
export const PAGE_DATA_LIMIT = 256 * 2 ** 20;

/** A session's records as a page gets them, being made or made. */
export class PageBuild {
	/** The JSONL text so far, in batches in the order made, until it is compressed. */
	raw: Buffer[] | undefined = [];
	/** The JSONL text gzip-compressed, once it is. */
	gzip: Buffer[] | undefined;
	/** Bytes held: of `raw`, then of `gzip`. */
	bytes = 0;
	/** Set when the records were all read: the page's view options for them. */
	view: PageView | undefined;
	/** Set when the build failed; the records are then incomplete. */
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

	/** Whether every record was read (or the build failed). */
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

	/** Resolves at the next batch or the end. */
	whenChanged(): Promise<void> {
		return this.changed;
	}

	add(batch: Buffer): void {
		this.raw?.push(batch);
		this.bytes += batch.length;
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

	/** Compresses what was read and keeps only that (a stream of the text reads on from its own batches). */
	async compress(level: number): Promise<void> {
		const raw = this.raw ?? [];
		const chunks: Buffer[] = [];
		const gzip = createGzip({ level, chunkSize: 2 ** 20 });
		gzip.on("data", (chunk: Buffer) => chunks.push(chunk));
		const ended = once(gzip, "end");
		for (const batch of raw) if (!gzip.write(batch)) await once(gzip, "drain");
		gzip.end();
		await ended;
		this.gzip = chunks;
		this.raw = undefined;
		this.bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
		this.notify();
	}

	/**
	 * The records from the first byte: compressed once they are (`gzip` true), else the text as
	 * it is read; errors when the build fails.
	 */
	stream(): { body: ReadableStream<Uint8Array>; gzip: boolean } {
		this.begin();
		const gzip = this.gzip;
		if (gzip) return { body: fromChunks(gzip), gzip: true };
		// The batches of this build as they come: the array stays this stream's once the build keeps its gzip instead.
		const raw = this.raw ?? [];
		let sent = 0;
		const body = new ReadableStream<Uint8Array>({
			pull: async (controller) => {
				while (sent === raw.length && !this.ended) await this.whenChanged();
				if (sent < raw.length) controller.enqueue(raw[sent++] as Buffer);
				else if (this.error !== undefined) controller.error(this.error);
				else controller.close();
			},
		});
		return { body, gzip: false };
	}
}

/** A stream of chunks all made already. */
function fromChunks(chunks: readonly Buffer[]): ReadableStream<Uint8Array> {
	let sent = 0;
	return new ReadableStream<Uint8Array>({
		pull(controller) {
			if (sent < chunks.length) controller.enqueue(chunks[sent++] as Buffer);
			else controller.close();
		},
	});
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
		// An older version of the same session is not asked for again: its page reads on from its tail.
		for (const old of [...this.builds.values()])
			if (old.key === row.key && old.ended && old.fingerprint !== fingerprint) this.builds.delete(old.id);
		this.builds.set(build.id, build);
		build.setStarter(() => {
			this.run(row, build).catch((error: unknown) => build.fail(error));
		});
		if (!deferred) setImmediate(() => build.begin());
		return build;
	}

	private async run(row: IndexedSession, build: PageBuild): Promise<void> {
		const session = await this.opener.read(row);
		try {
			const records = await pageRecords(session);
			await jsonlBatches(records.header, records.entries, async (batch) => {
				build.add(batch);
				// A turn of the event loop: the answers reading this build send the batch.
				await new Promise(setImmediate);
			});
			build.finish(records.view());
		} catch (error) {
			this.builds.delete(build.id);
			throw error;
		} finally {
			await session.close();
		}
		await build.compress(SERVE_GZIP_LEVEL);
		this.evict(build);
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
 * The answer to the records' request: the build's gzip with `Content-Encoding: gzip` once it
 * is compressed (inflated here for a client that does not accept gzip), else its text as it is
 * read; `X-Session-Build` names the build (its view options are asked for by it).
 */
export function recordsResponse(c: Context, build: PageBuild): Response {
	const accepts = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
	const { body, gzip } = build.stream();
	c.header("Content-Type", "application/x-ndjson; charset=utf-8");
	c.header("Cache-Control", "no-store");
	c.header("X-Session-Build", build.id);
	if (gzip && accepts) c.header("Content-Encoding", "gzip");
	return c.body(gzip && !accepts ? body.pipeThrough<Uint8Array>(new DecompressionStream("gzip")) : body);
}
