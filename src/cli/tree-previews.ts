/**
 * The previews of `session-tree tree` made in a second thread.
 *
 * Printing the tree of a large session is mostly reading its bodies: every entry's line is
 * parsed for its one-line preview (for the bench's 100,000-entry session, 609 of the 1,570 ms
 * of a CPU profile were the bodies read and parsed, 269 the previews, most of the 204 of the
 * collector theirs). The open, the tree and the layout need none of it, and machines have two
 * cores or more. So a worker starts before the open and makes previews from the end of the
 * file towards its start, while this thread opens the session, lays the tree out and then
 * prints rows from the top: the two meet somewhere in the file, and each row's preview is made
 * once, by whichever thread got to its part of the file first.
 *
 * The file is cut into chunks of {@link CHUNK_BYTES}: a line belongs to the chunk its first
 * byte is in. Each chunk has a claim in shared memory, taken with a compare-and-swap: free,
 * taken by the worker, taken here, or done by the worker (its previews posted, or failed). The
 * worker goes down from the last chunk and stops at the first one this thread holds; a row of
 * a chunk nobody took is claimed here and read here as before; a row of a chunk the worker has
 * is waited for (at most {@link WAIT_LIMIT_MS}: past it, read here).
 *
 * What the worker says of a line is used only when it is exactly what this thread would have
 * made: the worker keeps only bodies that `readBody` (core/lazy.ts) finds to be entries
 * without any problem, and here its line must be the row's, byte for byte where the session's
 * envelope says (offset and length) and of the same type, id and parent. Anything else (a
 * damaged body, the file changed since, an entry of another store) is read here, and a body
 * that cannot be read fails here, naming its file and line, as without the worker.
 */

import { existsSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { viewLineOf } from "../core/tree-view.js";
import type { SessionTreeNode } from "../core/types.js";
import { DEFAULT_PREVIEW_LENGTH } from "../render/preview.js";
import type { TreePreviews } from "../render/tree-text.js";
import { startsAsPiSession } from "../storage/lines.js";
import { schemeOf } from "../storage/locations.js";

/** Bytes of the file per chunk: about 800 lines of the bench's sessions, a few milliseconds of work. */
export const CHUNK_BYTES = 1 << 20;
/**
 * Files smaller than this are read on one thread: starting the worker costs about 20 ms and the
 * open beside it runs slower, so `tree` of a 13.5 MB session took 596–623 ms with it against
 * 557–588 without; at 53 MB it took 1,284–1,319 against 1,307–1,562 (idle two-core machine).
 */
export const MIN_WORKER_BYTES = 32 << 20;
/** Longest wait here for a chunk the worker holds before reading its rows here instead. */
export const WAIT_LIMIT_MS = 5_000;

/** The claims of chunks, in shared memory. */
export const FREE = 0;
export const WORKER = 1;
export const HERE = 2;
export const POSTED = 3;
export const FAILED = 4;

/** What the worker is given (`workerData`). */
export interface PreviewWorkerData {
	file: string;
	/** The file's size when the claims were made: lines starting after it are not the worker's. */
	size: number;
	chunkBytes: number;
	previewLength: number;
	/** One Int32 claim per chunk. */
	claims: SharedArrayBuffer;
	port: MessagePort;
}

/** What the worker posts for a chunk: for each entry line in it without problems, what it is and its preview. */
export interface PreviewChunk {
	chunk: number;
	offsets: number[];
	lengths: number[];
	types: string[];
	ids: string[];
	parentIds: Array<string | null>;
	kinds: string[];
	previews: string[];
}

/** The worker's module, beside this one (dist/cli/ as compiled, dist/bin/ as bundled). */
const WORKER_URL = new URL("./tree-previews-worker.js", import.meta.url);

/** Previews made by a worker thread for `session-tree tree` (see the module's comment). */
export class TreePreviewThread implements TreePreviews {
	/** Rows whose previews came from the worker (for tests and the bench's notes). */
	served = 0;
	/** The chunks the worker posted, as posted (nothing made per line here), until all their rows are served. */
	private readonly chunks = new Map<number, PreviewChunk>();
	/** Rows of each posted chunk not served yet: a chunk is let go when none is left (less for the collector). */
	private readonly unserved = new Map<number, number>();
	/** Chunks whose rows were all served: a row asking for one again (none should) is read here. */
	private readonly spent = new Set<number>();
	/** Chunks given up on after {@link WAIT_LIMIT_MS}: their rows are read here. */
	private readonly abandoned = new Set<number>();
	private readonly pause = new Int32Array(new SharedArrayBuffer(4));

	private constructor(
		readonly previewLength: number,
		private readonly claims: Int32Array,
		private readonly chunkBytes: number,
		private readonly worker: Worker,
		private readonly port: MessagePort,
	) {}

	/**
	 * Starts the worker on `file`, or gives undefined when it cannot or should not (no worker
	 * module beside this one, a file that cannot be read or is smaller than `minBytes`): the
	 * tree is then made here alone.
	 */
	static start(
		file: string,
		options: { previewLength: number; chunkBytes?: number; minBytes?: number },
	): TreePreviewThread | undefined {
		const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
		let size: number;
		try {
			size = statSync(file).size;
			if (size < (options.minBytes ?? 0) || !existsSync(fileURLToPath(WORKER_URL))) return undefined;
		} catch {
			return undefined;
		}
		const claims = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, Math.ceil(size / chunkBytes))));
		const { port1, port2 } = new MessageChannel();
		const workerData: PreviewWorkerData = {
			file,
			size,
			chunkBytes,
			previewLength: options.previewLength,
			claims: claims.buffer as SharedArrayBuffer,
			port: port2,
		};
		const worker = new Worker(WORKER_URL, { workerData, transferList: [port2] });
		// Neither keeps the command running: once the tree is printed, the worker's work is moot.
		worker.unref();
		port1.unref();
		// A worker that fails leaves its chunk's claim behind; its rows are read here (see previewOf).
		worker.on("error", () => {});
		return new TreePreviewThread(options.previewLength, claims, chunkBytes, worker, port1);
	}

	previewOf(node: SessionTreeNode): { kind: string; preview: string } | undefined {
		const line = viewLineOf(node);
		if (!line) return undefined;
		const chunk = Math.floor(line.offset / this.chunkBytes);
		if (chunk >= this.claims.length || this.abandoned.has(chunk) || this.spent.has(chunk)) return undefined;
		const made = this.chunk(chunk);
		const at = made ? lineAt(made.offsets, line.offset) : -1;
		if (
			!made ||
			at < 0 ||
			made.lengths[at] !== line.length ||
			made.types[at] !== line.type ||
			made.ids[at] !== line.id ||
			made.parentIds[at] !== line.parentId
		)
			return undefined;
		this.served++;
		const left = (this.unserved.get(chunk) as number) - 1;
		if (left > 0) this.unserved.set(chunk, left);
		else {
			this.chunks.delete(chunk);
			this.unserved.delete(chunk);
			this.spent.add(chunk);
		}
		return { kind: made.kinds[at] as string, preview: made.previews[at] as string };
	}

	/** The worker's previews of `chunk`, or undefined when its rows are read here. */
	private chunk(chunk: number): PreviewChunk | undefined {
		const known = this.chunks.get(chunk);
		if (known) return known;
		const deadline = Date.now() + WAIT_LIMIT_MS;
		for (;;) {
			const claim = Atomics.compareExchange(this.claims, chunk, FREE, HERE);
			if (claim === FREE || claim === HERE || claim === FAILED) return undefined;
			if (claim === POSTED) return this.received(chunk, deadline);
			// The worker is on it.
			const left = deadline - Date.now();
			if (left <= 0 || Atomics.wait(this.claims, chunk, WORKER, left) === "timed-out") {
				this.abandoned.add(chunk);
				return undefined;
			}
		}
	}

	/** The message of a chunk the worker has posted, taken off the port (it may still be on its way). */
	private received(chunk: number, deadline: number): PreviewChunk | undefined {
		for (;;) {
			const next = receiveMessageOnPort(this.port);
			if (next) {
				const message = next.message as PreviewChunk;
				this.chunks.set(message.chunk, message);
				this.unserved.set(message.chunk, message.offsets.length);
				if (message.chunk === chunk) return message;
				continue;
			}
			if (Date.now() >= deadline) {
				this.abandoned.add(chunk);
				return undefined;
			}
			Atomics.wait(this.pause, 0, 0, 1);
		}
	}

	/**
	 * Resolves once the worker has no chunk left to take or hold (every claim settled), within
	 * `limitMs`: lets a test see what the worker made before anything is printed.
	 * @internal
	 */
	async settled(limitMs = 10_000): Promise<boolean> {
		const deadline = Date.now() + limitMs;
		while (Date.now() < deadline) {
			let open = false;
			for (let i = 0; i < this.claims.length && !open; i++) {
				const claim = Atomics.load(this.claims, i);
				open = claim === FREE || claim === WORKER;
			}
			if (!open) return true;
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		return false;
	}

	/** Stops the worker (its remaining chunks are moot once the tree is printed). */
	stop(): void {
		void this.worker.terminate();
		this.port.close();
	}
}

/**
 * The worker for `session-tree tree` of `location` printed whole as plain text, when it is a
 * pi session file (a path that starts as one) of {@link MIN_WORKER_BYTES} or more and the
 * machine has two cores or more: previews at the default length.
 */
export function previewThreadFor(location: string): TreePreviewThread | undefined {
	// One core: the two threads would take turns, and the worker's copies would be pure cost.
	if (availableParallelism() < 2) return undefined;
	if (schemeOf(location) !== undefined || !startsAsPiSession(location)) return undefined;
	return TreePreviewThread.start(location, { previewLength: DEFAULT_PREVIEW_LENGTH, minBytes: MIN_WORKER_BYTES });
}

/** The index of `offset` in the ascending `offsets`, or -1. */
function lineAt(offsets: readonly number[], offset: number): number {
	let low = 0;
	let high = offsets.length - 1;
	while (low <= high) {
		const middle = (low + high) >>> 1;
		const value = offsets[middle] as number;
		if (value === offset) return middle;
		if (value < offset) low = middle + 1;
		else high = middle - 1;
	}
	return -1;
}
