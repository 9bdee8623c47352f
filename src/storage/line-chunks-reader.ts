/**
 * The worker's side of line-chunks.ts: reads the file's entry lines a chunk at a time from the
 * last chunk down, until it meets a chunk the main thread holds (or up, ahead of the main
 * thread), and posts what its reader makes of each chunk. Every line is read with the rule the session's own reads follow (`readBody`);
 * a line with any problem is left out (the main thread reads it and reports it), and so is any
 * line the reader declines. Nothing is written anywhere. A worker module calls
 * {@link readLineChunks} with its reader.
 */

import { readSync } from "node:fs";
import { readBody } from "../core/lazy.js";
import type { SessionEntry } from "../core/types.js";
import { addKey, FAILED, FREE, type LineChunk, type LineChunkWorkerData, POSTED, WORKER } from "./line-chunks.js";

const NEWLINE = 0x0a;

/** What a worker makes of a chunk's lines (see {@link readLineChunks}). */
export interface LineChunkReader<C extends LineChunk> {
	/** A chunk's message with nothing in it yet: `base` and the reader's own empty fields. */
	begin(base: LineChunk): C;
	/**
	 * Takes the entry of a line into `out` (the reader's own fields), or declines it (false:
	 * the main thread reads it). `bytes[start, end)` is the line as stored; `index` is the
	 * number of lines taken before it in the chunk.
	 */
	take(out: C, entry: SessionEntry, bytes: Buffer, start: number, end: number, index: number): boolean;
	/**
	 * Completes `out` once every line of the chunk was offered (the reader's fields made into
	 * their final form, typed arrays say); the buffers of `out`'s typed arrays are handed over
	 * with the message.
	 */
	finish?(out: C): void;
}

/** Runs `reader` over the chunks of `data`'s file (the worker's whole work; see the module's comment). */
export function readLineChunks<C extends LineChunk>(data: LineChunkWorkerData, reader: LineChunkReader<C>): void {
	const claims = new Int32Array(data.claims);
	const fd = data.fd;
	const read = (chunk: number) => {
		let claim = FAILED;
		try {
			const out = readChunk(fd, data, chunk, reader);
			// Handed over, not copied: the typed arrays are the message's alone. (Each buffer once:
			// a transfer list that names one twice is refused.)
			const buffers = new Set<ArrayBuffer>();
			for (const value of Object.values(out)) if (ArrayBuffer.isView(value)) buffers.add(value.buffer as ArrayBuffer);
			data.port.postMessage(out, [...buffers]);
			claim = POSTED;
		} finally {
			Atomics.store(claims, chunk, claim);
			Atomics.notify(claims, chunk);
		}
	};
	if (data.ahead) {
		const slots = data.slots ? data.slots.byteLength / data.slotBytes : undefined;
		readAhead(claims, new Int32Array(data.position), { ...data.ahead, slots }, read);
		return;
	}
	for (let chunk = claims.length - 1; chunk >= 0; chunk--) {
		// The main thread got here first: everything below is its.
		if (Atomics.compareExchange(claims, chunk, FREE, WORKER) !== FREE) break;
		read(chunk);
	}
}

/**
 * Up from the first chunk, each chunk taken at least `lead` chunks past the highest the main
 * thread has asked for (`state[0]`) and at most `most` past it, and with `slots`, only once the
 * main thread is done with the chunk that had its slot before (`state[1]`): else the worker
 * waits for the main thread to move on (a few milliseconds at a time, then looks again).
 */
function readAhead(
	claims: Int32Array,
	state: Int32Array,
	ahead: { lead: number; most: number; slots: number | undefined },
	read: (chunk: number) => void,
): void {
	let next = 0;
	for (;;) {
		const at = Atomics.load(state, 0);
		let chunk = Math.max(next, at + ahead.lead);
		while (chunk < claims.length && Atomics.load(claims, chunk) !== FREE) chunk++;
		if (chunk >= claims.length) return;
		if (chunk > at + ahead.most) {
			Atomics.wait(state, 0, at, 20);
			continue;
		}
		const done = Atomics.load(state, 1);
		if (ahead.slots !== undefined && chunk - ahead.slots > done) {
			Atomics.wait(state, 1, done, 20);
			continue;
		}
		// Taken here between the look and now: look again.
		if (Atomics.compareExchange(claims, chunk, FREE, WORKER) !== FREE) continue;
		read(chunk);
		next = chunk + 1;
	}
}

/** What `reader` makes of the entry lines that start in `chunk`. */
function readChunk<C extends LineChunk>(
	fd: number,
	data: LineChunkWorkerData,
	chunk: number,
	reader: LineChunkReader<C>,
): C {
	const start = chunk * data.chunkBytes;
	const end = Math.min(data.size, start + data.chunkBytes);
	// From the byte before the chunk: whether a line starts at its first byte.
	const from = start === 0 ? 0 : start - 1;
	const bytes = readBytes(fd, from, end, data.size);
	const none = new Int32Array(0);
	const out = reader.begin({ chunk, from, offsets: new Float64Array(0), lengths: none, keys: "", keyEnds: none });
	const offsets: number[] = [];
	const lengths: number[] = [];
	const keys: string[] = [];
	const keyEnds: number[] = [];
	let keysLength = 0;
	// With slots, only the lines whole in the chunk's slot are kept (see LineChunkStart.share).
	const slot = data.slots
		? new Uint8Array(data.slots, (chunk % (data.slots.byteLength / data.slotBytes)) * data.slotBytes, data.slotBytes)
		: undefined;
	const limit = slot ? Math.min(bytes.length, slot.length) : bytes.length;
	let lineStart = 0;
	if (start !== 0) {
		const newline = bytes.indexOf(NEWLINE);
		lineStart = newline === -1 ? bytes.length : newline + 1;
	}
	// The lines that start in the chunk.
	while (lineStart < end - from) {
		const lineEnd = bytes.indexOf(NEWLINE, lineStart);
		// A line without its newline (the end of a file being written) is the main thread's.
		if (lineEnd === -1 || lineEnd > limit) break;
		const read = readBody(bytes.toString("utf8", lineStart, lineEnd), undefined);
		if (read.kind === "entry" && reader.take(out, read.entry, bytes, lineStart, lineEnd, offsets.length)) {
			offsets.push(from + lineStart);
			lengths.push(lineEnd - lineStart);
			keysLength = addKey(keys, keyEnds, keysLength, read.entry);
		}
		lineStart = lineEnd + 1;
	}
	out.offsets = Float64Array.from(offsets);
	out.lengths = Int32Array.from(lengths);
	out.keys = keys.join("");
	out.keyEnds = Int32Array.from(keyEnds);
	reader.finish?.(out);
	slot?.set(bytes.subarray(0, limit));
	return out;
}

/**
 * The bytes of the file from `from` to `to`, and on past `to` to the end of the line that
 * holds byte `to - 1` (or to `size`): a view of one buffer of the worker's, used again for the
 * next chunk (its message holds no bytes of it, and a new buffer a chunk cost its pages' first
 * touch: 0.55 s of a worker's 3.3 s for the bench's 125 MiB session).
 */
function readBytes(fd: number, from: number, to: number, size: number): Buffer {
	// Past the chunk, 64 KiB at first (the bench's lines are about 1.3 KB), read with it; then
	// twice as much each time (a line of megabytes).
	let step = 1 << 16;
	let wanted = Math.min(size, to + step) - from;
	let filled = readInto(fd, room(wanted, 0).subarray(0, wanted), 0, from);
	// Where the newline that ends the chunk's last line is looked for.
	let search = to - from - 1;
	while (filled === wanted && from + filled < size && scratch.subarray(0, filled).indexOf(NEWLINE, search) === -1) {
		search = filled;
		wanted = filled + Math.min(step, size - from - filled);
		filled += readInto(fd, room(wanted, filled).subarray(0, wanted), filled, from + filled);
		step *= 2;
	}
	return scratch.subarray(0, filled);
}

/** The worker's buffer (see {@link readBytes}). */
let scratch = Buffer.alloc(0);

/** {@link scratch}, grown to hold `length` bytes at least, its first `keep` bytes kept. */
function room(length: number, keep: number): Buffer {
	if (scratch.length < length) {
		const grown = Buffer.allocUnsafeSlow(Math.max(length, scratch.length * 2));
		scratch.copy(grown, 0, 0, keep);
		scratch = grown;
	}
	return scratch;
}

/** Reads into `buffer` from `at` until it is full or the file ends; the bytes read. */
function readInto(fd: number, buffer: Buffer, at: number, position: number): number {
	let done = at;
	while (done < buffer.length) {
		const read = readSync(fd, buffer, done, buffer.length - done, position + done - at);
		if (read === 0) break;
		done += read;
	}
	return done - at;
}
