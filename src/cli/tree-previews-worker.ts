/**
 * The worker of tree-previews.ts: makes the previews of the file's entry lines, a chunk at a
 * time from the last chunk down, until it meets a chunk the main thread holds. Every line is
 * read with the rule the session's own reads follow (`readBody`) and described and cut as
 * `tree` does it (`describeEntry`, `oneLine`); a line with any problem is left out (the main
 * thread reads it and reports it). Nothing is written anywhere.
 */

import { closeSync, openSync, readSync } from "node:fs";
import { workerData } from "node:worker_threads";
import { readBody } from "../core/lazy.js";
import { describeEntry, oneLine } from "../render/preview.js";
import { FAILED, FREE, POSTED, type PreviewChunk, type PreviewWorkerData, WORKER } from "./tree-previews.js";

const NEWLINE = 0x0a;
const data = workerData as PreviewWorkerData;
const claims = new Int32Array(data.claims);

/**
 * The bytes of the file from `from` to `to`, and on past `to` to the end of the line that
 * holds byte `to - 1` (or to `size`).
 */
function readChunk(fd: number, from: number, to: number, size: number): Buffer {
	let buffer = Buffer.allocUnsafe(to - from);
	let filled = readInto(fd, buffer, 0, from);
	// Where the newline that ends the chunk's last line is looked for.
	let search = to - from - 1;
	// Past the chunk, 64 KiB at first (the bench's lines are about 1.3 KB), then twice as much
	// each time (a line of megabytes).
	let step = 1 << 16;
	while (filled === buffer.length && from + filled < size && buffer.indexOf(NEWLINE, search) === -1) {
		search = filled;
		const grown = Buffer.allocUnsafe(filled + Math.min(step, size - from - filled));
		step *= 2;
		buffer.copy(grown, 0, 0, filled);
		buffer = grown;
		filled += readInto(fd, buffer, filled, from + filled);
	}
	return buffer.subarray(0, filled);
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

/** The previews of the entry lines that start in `chunk`. */
function previewChunk(fd: number, chunk: number): PreviewChunk {
	const start = chunk * data.chunkBytes;
	const end = Math.min(data.size, start + data.chunkBytes);
	// From the byte before the chunk: whether a line starts at its first byte.
	const from = start === 0 ? 0 : start - 1;
	const bytes = readChunk(fd, from, end, data.size);
	const out: PreviewChunk = {
		chunk,
		offsets: [],
		lengths: [],
		types: [],
		ids: [],
		parentIds: [],
		kinds: [],
		previews: [],
	};
	let lineStart = 0;
	if (start !== 0) {
		const newline = bytes.indexOf(NEWLINE);
		if (newline === -1) return out;
		lineStart = newline + 1;
	}
	// The lines that start in the chunk.
	while (lineStart < end - from) {
		const lineEnd = bytes.indexOf(NEWLINE, lineStart);
		// A line without its newline (the end of a file being written) is the main thread's.
		if (lineEnd === -1) break;
		const read = readBody(bytes.toString("utf8", lineStart, lineEnd), undefined);
		if (read.kind === "entry") {
			const { entry } = read;
			const description = describeEntry(entry);
			out.offsets.push(from + lineStart);
			out.lengths.push(lineEnd - lineStart);
			out.types.push(entry.type);
			out.ids.push(entry.id);
			out.parentIds.push(entry.parentId);
			out.kinds.push(description.kind);
			out.previews.push(oneLine(description.text, data.previewLength));
		}
		lineStart = lineEnd + 1;
	}
	return out;
}

const fd = openSync(data.file, "r");
try {
	for (let chunk = claims.length - 1; chunk >= 0; chunk--) {
		// The main thread got here first: everything below is its.
		if (Atomics.compareExchange(claims, chunk, FREE, WORKER) !== FREE) break;
		let claim = FAILED;
		try {
			data.port.postMessage(previewChunk(fd, chunk));
			claim = POSTED;
		} finally {
			Atomics.store(claims, chunk, claim);
			Atomics.notify(claims, chunk);
		}
	}
} finally {
	closeSync(fd);
}
