/**
 * The entry lines of a session file read by a second thread, a chunk at a time, from the
 * file's end towards its start, while this thread reads them from the start: the one way
 * `session-tree tree` (its previews, cli/tree-previews.ts) and `session-tree html` (its
 * records' checks, render/html/page-checks.ts) share the work of reading every body.
 *
 * The file is cut into chunks of {@link CHUNK_BYTES}: a line belongs to the chunk its first
 * byte is in. Each chunk has a claim in shared memory, taken with a compare-and-swap: free,
 * taken by the worker, taken here, or done by the worker (its message posted, or failed). The
 * worker goes down from the last chunk and stops at the first one this thread holds; a line of
 * a chunk nobody took is claimed here and read here as before; a line of a chunk the worker
 * has is waited for (at most {@link WAIT_LIMIT_MS}: past it, read here). So the two meet once,
 * somewhere in the file, and each line is read by whichever thread got to its part first.
 *
 * What the worker says of a line is used only when it is exactly what this thread would have
 * read: the worker keeps only bodies that `readBody` (core/lazy.ts) finds to be entries
 * without any problem (see line-chunks-worker.ts), and here its line must be the one the
 * session's envelope names, byte for byte where it says (offset and length) and of the same
 * type, id and parent. Anything else (a damaged body, the file changed since, an entry of
 * another store) is read here, and a body that cannot be read fails here, naming its file and
 * line, as without the worker.
 */

import { closeSync, existsSync, openSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";

/** Bytes of the file per chunk: about 800 lines of the bench's sessions, a few milliseconds of work. */
export const CHUNK_BYTES = 1 << 20;
/** Longest wait here for a chunk the worker holds before reading its lines here instead. */
export const WAIT_LIMIT_MS = 5_000;

/** The claims of chunks, in shared memory. */
export const FREE = 0;
export const WORKER = 1;
export const HERE = 2;
export const POSTED = 3;
export const FAILED = 4;

/** What every worker is given (`workerData`), with its own options in `options`. */
export interface LineChunkWorkerData<O = unknown> {
	/**
	 * The file, opened by the main thread (which closes it once the worker has exited, however it
	 * ended: a worker stopped while it reads cannot close what it opened).
	 */
	fd: number;
	/** The file's size when the claims were made: lines starting after it are not the worker's. */
	size: number;
	chunkBytes: number;
	/** One Int32 claim per chunk. */
	claims: SharedArrayBuffer;
	/**
	 * Two Int32s: the highest chunk the main thread has asked for, and the highest chunk whose
	 * lines it is done with (all its lines and those before given on); -1 before it does.
	 */
	position: SharedArrayBuffer;
	/**
	 * The slots the worker copies each chunk's bytes into (see {@link LineChunkStart.share}),
	 * each of `slotBytes`; undefined without.
	 */
	slots: SharedArrayBuffer | undefined;
	slotBytes: number;
	/** How the worker goes through the chunks (see {@link LineChunkStart.ahead}). */
	ahead: { lead: number; most: number } | undefined;
	port: MessagePort;
	options: O;
}

/** What the worker posts for a chunk: where each entry line it kept is, and what it is. */
export interface LineChunk {
	chunk: number;
	/** The file offset of the first byte of the chunk's bytes as read (and in its slot, when shared). */
	from: number;
	/**
	 * Each kept line's offset and length. Typed arrays, their buffers handed over with the
	 * message: nothing of them is copied, or made on this thread's heap (see {@link keys}).
	 */
	offsets: Float64Array;
	lengths: Int32Array;
	/**
	 * What each kept line's entry says of itself, three fields a line in one string: its type,
	 * its id, and its parent id after a `p` (nothing for none); field `k` ends at `keyEnds[k]`
	 * and starts where field `k - 1` ends. One string a chunk rather than three a line: the
	 * 200,000 strings of s100k's lines were made on the main thread as each message arrived,
	 * most of them at once near the end (the worker's chunks are asked for last), and all
	 * copied by the collector until used (see {@link keyOf}).
	 */
	keys: string;
	keyEnds: Int32Array;
}

/** Where a line is in the file and what the session's envelope of it says (`viewLineOf`). */
export interface LineRef {
	readonly offset: number;
	readonly length: number;
	readonly type: string;
	readonly id: string;
	readonly parentId: string | null;
}

/** How a {@link LineChunkThread} is started. */
export interface LineChunkStart<O> {
	/** The worker's module (see line-chunks-worker.ts). */
	worker: URL;
	/** The worker's own options (`LineChunkWorkerData.options`). */
	options: O;
	/** Default {@link CHUNK_BYTES}. */
	chunkBytes?: number | undefined;
	/** Files smaller than this are not given to a worker. */
	minBytes?: number | undefined;
	/**
	 * Instead of going down from the last chunk, the worker goes up from the first one, ahead of
	 * this thread: never closer than `lead` chunks to the highest one this thread has asked for,
	 * never farther than `most` (it waits; each posted chunk is held here until it is asked for).
	 * For a reader here that must go through the file in order at a pace set by something else
	 * (the gzip stream of `html`): the worker's lines are then there as it gets to them, instead
	 * of all at the end. Default: down from the end (the two meet once).
	 */
	ahead?: { lead: number; most: number } | undefined;
	/**
	 * With `ahead`: the worker copies the bytes of each chunk it read into one of `slots` slots of
	 * shared memory (chunk `c` into slot `c % slots`), where {@link LineChunkThread.bytesOf}
	 * reads them, and takes a chunk only once this thread is done with the one before it in its
	 * slot ({@link LineChunkThread.passed}). The lines it keeps are those whole in the slot. For
	 * a reader here that writes the lines as the worker read them: no copy of a chunk is made
	 * for it, and the slots are memory touched once (a new buffer a chunk cost its pages' first
	 * touch, 0.55 s of the worker's 3.3 s for the bench's 125 MiB session).
	 */
	share?: { slots: number } | undefined;
}

/** Bytes of a slot past its chunk: the chunk's last line goes on there (the bench's lines are about 1.3 KB). */
export const SLOT_SLACK = 1 << 16;

/** A worker reading the lines of a file from its end (see the module's comment), and what it posted. */
export class LineChunkThread<C extends LineChunk> {
	/** Lines whose worker's reading was used (for tests and the bench's notes). */
	served = 0;
	/** The chunks the worker posted, as posted, until all their lines are served. */
	private readonly chunks = new Map<number, C>();
	/** Lines of each posted chunk not served yet: a chunk is let go when none is left (less for the collector). */
	private readonly unserved = new Map<number, number>();
	/** Chunks whose lines were all served: a line asking for one again (none should) is read here. */
	private readonly spent = new Set<number>();
	/** Chunks given up on after {@link WAIT_LIMIT_MS}: their lines are read here. */
	private readonly abandoned = new Set<number>();
	private readonly pause = new Int32Array(new SharedArrayBuffer(4));

	private constructor(
		private readonly claims: Int32Array,
		private readonly position: Int32Array,
		private readonly chunkBytes: number,
		private readonly slots: SharedArrayBuffer | undefined,
		private readonly slotBytes: number,
		private readonly worker: Worker,
		private readonly port: MessagePort,
	) {}

	/**
	 * Starts the worker on `file`, or gives undefined when it cannot or should not (no worker
	 * module, a file that cannot be read or is smaller than `minBytes`): the lines are then
	 * read here alone.
	 */
	static start<C extends LineChunk, O>(file: string, start: LineChunkStart<O>): LineChunkThread<C> | undefined {
		const chunkBytes = start.chunkBytes ?? CHUNK_BYTES;
		let size: number;
		let fd: number;
		try {
			size = statSync(file).size;
			if (size < (start.minBytes ?? 0) || !existsSync(fileURLToPath(start.worker))) return undefined;
			fd = openSync(file, "r");
		} catch {
			return undefined;
		}
		const claims = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, Math.ceil(size / chunkBytes))));
		const position = new Int32Array(new SharedArrayBuffer(8));
		position[0] = -1;
		position[1] = -1;
		const slotBytes = chunkBytes + SLOT_SLACK;
		const slots = start.share && start.ahead ? new SharedArrayBuffer(start.share.slots * slotBytes) : undefined;
		const { port1, port2 } = new MessageChannel();
		const workerData: LineChunkWorkerData<O> = {
			fd,
			size,
			chunkBytes,
			claims: claims.buffer as SharedArrayBuffer,
			position: position.buffer as SharedArrayBuffer,
			slots,
			slotBytes,
			ahead: start.ahead,
			port: port2,
			options: start.options,
		};
		const worker = new Worker(start.worker, { workerData, transferList: [port2] });
		worker.once("exit", () => closeSync(fd));
		// Neither keeps the command running: once its output is made, the worker's work is moot.
		worker.unref();
		port1.unref();
		// A worker that fails leaves its chunk's claim behind; its lines are read here (see lineOf).
		worker.on("error", () => {});
		return new LineChunkThread<C>(claims, position, chunkBytes, slots, slotBytes, worker, port1);
	}

	/**
	 * The worker's chunk that holds `line` and the line's index in it, when the worker read it
	 * and it is the line the envelope names; else undefined (read it here). Each line is asked
	 * for once: a chunk is let go once all its lines were.
	 */
	lineOf(line: LineRef): { chunk: C; at: number } | undefined {
		const index = Math.floor(line.offset / this.chunkBytes);
		if (index >= this.claims.length || this.abandoned.has(index) || this.spent.has(index)) return undefined;
		if (index > (this.position[0] as number)) {
			Atomics.store(this.position, 0, index);
			Atomics.notify(this.position, 0);
		}
		const chunk = this.chunk(index);
		const at = chunk ? lineAt(chunk.offsets, line.offset) : -1;
		if (!chunk || at < 0 || chunk.lengths[at] !== line.length || !keyOf(chunk, at, line)) return undefined;
		this.served++;
		const left = (this.unserved.get(index) as number) - 1;
		if (left > 0) this.unserved.set(index, left);
		else {
			this.chunks.delete(index);
			this.unserved.delete(index);
			this.spent.add(index);
		}
		return { chunk, at };
	}

	/**
	 * The bytes of a line of `chunk` (as {@link lineOf} gave it) from its slot in shared memory
	 * (see {@link LineChunkStart.share}): valid until {@link passed} is told of a later chunk.
	 */
	bytesOf(chunk: C, at: number): Uint8Array {
		if (!this.slots) throw new Error("session-tree: the worker shares no bytes");
		const slot = (chunk.chunk % (this.slots.byteLength / this.slotBytes)) * this.slotBytes;
		return new Uint8Array(this.slots, slot + (chunk.offsets[at] as number) - chunk.from, chunk.lengths[at]);
	}

	/**
	 * Tells the worker that every line before `line` was given on (its bytes are used no more):
	 * the slots of the chunks before `line`'s are free again.
	 */
	passed(line: LineRef): void {
		const done = Math.floor(line.offset / this.chunkBytes) - 1;
		if (done <= (this.position[1] as number)) return;
		Atomics.store(this.position, 1, done);
		Atomics.notify(this.position, 1);
	}

	/** The worker's message for chunk `index`, or undefined when its lines are read here. */
	private chunk(index: number): C | undefined {
		const known = this.chunks.get(index);
		if (known) return known;
		const deadline = Date.now() + WAIT_LIMIT_MS;
		for (;;) {
			const claim = Atomics.compareExchange(this.claims, index, FREE, HERE);
			if (claim === FREE || claim === HERE || claim === FAILED) return undefined;
			if (claim === POSTED) return this.received(index, deadline);
			// The worker is on it.
			const left = deadline - Date.now();
			if (left <= 0 || Atomics.wait(this.claims, index, WORKER, left) === "timed-out") {
				this.abandoned.add(index);
				return undefined;
			}
		}
	}

	/** The message of a chunk the worker has posted, taken off the port (it may still be on its way). */
	private received(index: number, deadline: number): C | undefined {
		for (;;) {
			const next = receiveMessageOnPort(this.port);
			if (next) {
				const message = next.message as C;
				this.chunks.set(message.chunk, message);
				this.unserved.set(message.chunk, message.offsets.length);
				if (message.chunk === index) return message;
				continue;
			}
			if (Date.now() >= deadline) {
				this.abandoned.add(index);
				return undefined;
			}
			Atomics.wait(this.pause, 0, 0, 1);
		}
	}

	/**
	 * Resolves once the worker has no chunk left to take or hold (every claim settled), within
	 * `limitMs`: lets a test see what the worker made before anything is read here.
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

	/**
	 * Resolves once the worker has posted a chunk (or failed one), within `limitMs`: lets a test
	 * of a small file, which this thread would read whole before the worker has started, have
	 * the worker read some of it.
	 * @internal
	 */
	async started(limitMs = 10_000): Promise<boolean> {
		const deadline = Date.now() + limitMs;
		while (Date.now() < deadline) {
			for (let i = 0; i < this.claims.length; i++) {
				const claim = Atomics.load(this.claims, i);
				if (claim === POSTED || claim === FAILED) return true;
			}
			await new Promise((resolve) => setTimeout(resolve, 5));
		}
		return false;
	}

	/** Stops the worker (its remaining chunks are moot once the output is made). */
	stop(): void {
		void this.worker.terminate();
		this.port.close();
	}
}

/** The letter before a parent id in {@link LineChunk.keys}: a field with nothing is no parent. */
const PARENT = "p";

/**
 * Adds the type, id and parent of a line's entry to a chunk's {@link LineChunk.keys} (the
 * worker's side of {@link keyOf}): `parts` are joined into `keys` once the chunk is read.
 */
export function addKey(
	parts: string[],
	ends: number[],
	length: number,
	entry: { type: string; id: string; parentId: string | null },
): number {
	let at = length;
	for (const field of [entry.type, entry.id, entry.parentId === null ? "" : PARENT + entry.parentId]) {
		parts.push(field);
		at += field.length;
		ends.push(at);
	}
	return at;
}

/** Whether line `at` of `chunk` is of the type, id and parent `line` names (read in place, nothing made). */
export function keyOf(chunk: LineChunk, at: number, line: Pick<LineRef, "type" | "id" | "parentId">): boolean {
	const { keys, keyEnds } = chunk;
	const k = at * 3;
	const start = k === 0 ? 0 : (keyEnds[k - 1] as number);
	const idStart = keyEnds[k] as number;
	const parentStart = keyEnds[k + 1] as number;
	const end = keyEnds[k + 2] as number;
	if (idStart - start !== line.type.length || !keys.startsWith(line.type, start)) return false;
	if (parentStart - idStart !== line.id.length || !keys.startsWith(line.id, idStart)) return false;
	if (line.parentId === null) return end === parentStart;
	return (
		end - parentStart === line.parentId.length + 1 &&
		keys.startsWith(PARENT, parentStart) &&
		keys.startsWith(line.parentId, parentStart + 1)
	);
}

/** The index of `offset` in the ascending `offsets`, or -1. */
function lineAt(offsets: ArrayLike<number>, offset: number): number {
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
