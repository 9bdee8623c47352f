/**
 * The checks of a page's records made in a second thread, for `session-tree html` of a large
 * pi session file.
 *
 * Before its records are written, the page reads every one: whether it holds a secret
 * (redact.ts), what pi's filters say of it (shown-hints.ts) and, for the title, the first
 * prompt. For the bench's 100,000-entry session that was 1.6 s of one thread (parse 626 ms,
 * the redaction's checks 930 ms) beside gzip on the other core, after the open: the export
 * took 3.2–3.6 s against a floor of 2.0–2.2 s for one thread that parses every line beside
 * gzip (bench/html-floor.ts). So a worker starts before the open and checks the lines from the
 * file's start, ahead of this thread (storage/line-chunks.ts, `ahead`), while this thread opens
 * the session and then writes the records in file order for gzip, which paces it: a line the
 * worker found to be a good entry without a secret is written as the worker read it (its bytes
 * in shared memory, `share`), with the worker's hint and prompt; any other line (one that holds
 * a secret, one with a problem, one of a chunk the worker did not get to) is read and checked
 * here as before. Going down from the file's end instead (as `tree` does) left gzip alone at the
 * end with most of the file still to compress: 3.5–3.7 s.
 */

import { availableParallelism } from "node:os";
import type { Envelope } from "../../core/tree-node.js";
import { type LineChunk, LineChunkThread } from "../../storage/line-chunks.js";
import { startsAsPiSession } from "../../storage/lines.js";
import { schemeOf } from "../../storage/locations.js";

/**
 * Files smaller than this are checked on one thread. The export of the first lines of the
 * bench's s100k, in-process, three runs each way: 13.5 MB (s10k) 599–637 ms with the worker
 * against 497–507 alone; 36 MB 1,062–1,133 against 998–1,011; 57 MB 1,439–1,570 against
 * 1,463–1,530; 93 MB 1,904–2,015 against 2,025–2,061; 132 MB 2,452–2,617 against 2,791–2,880.
 * Below about 60 MB, the worker's start and its share of the two cores (with gzip and this
 * thread) cost more than it takes off this thread.
 */
export const MIN_CHECK_WORKER_BYTES = 64 << 20;

/**
 * The worker goes up the file ahead of the page's writer (`LineChunkStart.ahead`), at least two
 * chunks ahead (fewer waits for a chunk it is on) and at most 46: while the session opens, the
 * worker has a core of its own and checks up to 46 MiB of lines (s100k: about 40 in the 0.7 s
 * of the open). Its chunks' bytes are in as many slots of shared memory and two more (51 MiB;
 * 14 chunks ahead and 17 MiB made no difference to the time, 2.93 s against 2.95).
 */
const AHEAD = { lead: 2, most: 46 };

/** The worker's options (`LineChunkWorkerData.options`). */
export interface PageCheckOptions {
	/** Lines that hold a secret are left to the main thread (which redacts them); false: none is. */
	redact: boolean;
}

/** What the worker posts for a chunk: for each line it kept, its hint; the chunk's first prompt; its bytes. */
export interface PageCheckChunk extends LineChunk {
	/** One hint (shown-hints.ts) per line kept. */
	hints: string;
	/** The index of the first line kept whose entry gives a first prompt (render/title.ts), or -1. */
	promptAt: number;
	prompt: string | undefined;
}

/**
 * A line the worker checked: its stored bytes (in memory the worker writes again once told the
 * line was {@link PageCheckThread.passed}), its hint, and the first prompt when it gives it.
 */
export interface CheckedLine {
	bytes: Uint8Array;
	hint: string;
	prompt: string | undefined;
}

/** The worker's module, beside this one (dist/render/html/ as compiled, dist/bin/ as bundled). */
const WORKER_URL = new URL("./page-checks-worker.js", import.meta.url);

/** Checks of a page's records made by a worker thread (see the module's comment). */
export class PageCheckThread {
	private constructor(
		/** The file the worker reads, as given. */
		readonly file: string,
		readonly redact: boolean,
		private readonly lines: LineChunkThread<PageCheckChunk>,
	) {}

	/** Lines whose checks came from the worker (for tests and the bench's notes). */
	get served(): number {
		return this.lines.served;
	}

	/**
	 * Starts the worker on `file`, or gives undefined when it cannot or should not (no worker
	 * module beside this one, a file that cannot be read or is smaller than `minBytes`). `ahead`
	 * (default {@link AHEAD}), `slots` (default two more than `ahead.most`) and `chunkBytes` are
	 * for tests: tiny chunks and few slots make every wait of the two threads happen on a small file.
	 */
	static start(
		file: string,
		options: {
			redact: boolean;
			chunkBytes?: number;
			minBytes?: number;
			ahead?: { lead: number; most: number };
			slots?: number;
		},
	): PageCheckThread | undefined {
		const ahead = options.ahead ?? AHEAD;
		const lines = LineChunkThread.start<PageCheckChunk, PageCheckOptions>(file, {
			worker: WORKER_URL,
			options: { redact: options.redact },
			chunkBytes: options.chunkBytes,
			minBytes: options.minBytes,
			ahead,
			share: { slots: options.slots ?? ahead.most + 2 },
		});
		return lines && new PageCheckThread(file, options.redact, lines);
	}

	/** The worker's checks of the line `envelope` names, or undefined: read and check it here. */
	take(envelope: Envelope): CheckedLine | undefined {
		const found = this.lines.lineOf(envelope);
		if (!found) return undefined;
		const { chunk, at } = found;
		return {
			bytes: this.lines.bytesOf(chunk, at),
			hint: chunk.hints[at] as string,
			prompt: at === chunk.promptAt ? chunk.prompt : undefined,
		};
	}

	/**
	 * Tells the worker that the lines before `line` were written (copied from the bytes
	 * {@link take} gave): it may use their chunks' memory again.
	 */
	passed(line: Envelope): void {
		this.lines.passed(line);
	}

	/**
	 * Resolves once the worker has no chunk left to take or hold, within `limitMs` (see
	 * `LineChunkThread.settled`): with room ahead for the whole file, a test sees what the worker
	 * checks when it gets to every chunk first.
	 * @internal
	 */
	settled(limitMs?: number): Promise<boolean> {
		return this.lines.settled(limitMs);
	}

	/**
	 * Resolves once the worker has checked a chunk, within `limitMs` (see `LineChunkThread.started`).
	 * @internal
	 */
	started(limitMs?: number): Promise<boolean> {
		return this.lines.started(limitMs);
	}

	/** Stops the worker (its remaining chunks are moot once the page is made). */
	stop(): void {
		this.lines.stop();
	}
}

/**
 * The worker for `session-tree html` of `location`, when it is a pi session file (a path that
 * starts as one) of {@link MIN_CHECK_WORKER_BYTES} or more and the machine has two cores or more.
 */
export function pageCheckThreadFor(location: string, redact: boolean): PageCheckThread | undefined {
	// One core: the two threads would take turns, and the worker's work would be pure cost.
	if (availableParallelism() < 2) return undefined;
	if (schemeOf(location) !== undefined || !startsAsPiSession(location)) return undefined;
	return PageCheckThread.start(location, { redact, minBytes: MIN_CHECK_WORKER_BYTES });
}
