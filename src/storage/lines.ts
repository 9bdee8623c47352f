/**
 * Lines of a file as byte ranges: 64 KiB chunks, only `\n` (byte 0x0A, which never occurs inside
 * a multi-byte UTF-8 sequence) ends a line, a UTF-8 byte-order mark at the start of the file is
 * dropped, and a line is not decoded to a string unless someone asks. The one line scanner of
 * the project: the file store's open (which reads envelopes from the bytes), its `scanLines`,
 * and the catalog's cheap pass all read through it.
 */

import { closeSync, readSync } from "node:fs";
import { openRegularFile } from "./regular-file.js";

/**
 * 64 KiB: a piece the processor's cache holds while it is read, cut into lines and read again
 * for the envelopes. Reading s100k's 126 MB took 60–85 ms in 1 MiB pieces against 15–20 ms in
 * 64 KiB ones, and the open of s100k 355 against 386 ms (medians of 20 alternating runs, issue 28).
 */
const CHUNK_SIZE = 1 << 16;
const NEWLINE = 0x0a;

/**
 * One line: bytes `start` to `end` of `buffer` (without the `\n`). The object and its buffer
 * are reused for the next line: read what is needed before asking for the next one.
 */
export interface ByteLine {
	buffer: Buffer;
	start: number;
	end: number;
	/** 1-based line number. */
	line: number;
	/** False for a last line with no `\n` after it. */
	terminated: boolean;
	/** Position in the file of `buffer[start]`. */
	offset: number;
}

/** The line as a string (UTF-8). */
export function lineText(line: ByteLine): string {
	return line.buffer.toString("utf8", line.start, line.end);
}

/**
 * Every line of an open file from byte `start` (a line start), numbered from `firstLine`.
 * `buffer` is a view of the current chunk (a new object per chunk) or a copy (a line across
 * chunks); the same line object is yielded each time.
 */
export function* scanByteLines(fd: number, start = 0, firstLine = 1): Generator<ByteLine> {
	const chunk = Buffer.allocUnsafe(CHUNK_SIZE);
	const current: ByteLine = { buffer: chunk, start: 0, end: 0, line: firstLine - 1, terminated: true, offset: 0 };
	// The pieces of a line that runs across chunks, joined once at its end: joining at every
	// chunk copied the line so far each time, quadratic in a long line (an 85 MiB one-line
	// export took 3.6 s to scan, 1 MiB chunks).
	let carry: Buffer[] = [];
	let carryOffset = 0;
	let position = start;
	let first = start === 0;
	for (;;) {
		const read = readSync(fd, chunk, 0, CHUNK_SIZE, position);
		if (read === 0) break;
		// A new view per chunk, ending where the data ends: searches never see stale bytes, and
		// a consumer can tell chunks apart by the buffer object.
		const view = chunk.subarray(0, read);
		let from = 0;
		if (first) {
			first = false;
			if (read >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) from = 3;
		}
		for (let nl = view.indexOf(NEWLINE, from); nl !== -1; nl = view.indexOf(NEWLINE, from)) {
			current.line++;
			if (carry.length > 0) {
				carry.push(view.subarray(from, nl));
				current.buffer = Buffer.concat(carry);
				current.start = 0;
				current.end = current.buffer.length;
				current.offset = carryOffset;
				carry = [];
			} else {
				current.buffer = view;
				current.start = from;
				current.end = nl;
				current.offset = position + from;
			}
			yield current;
			from = nl + 1;
		}
		if (from < read) {
			if (carry.length === 0) carryOffset = position + from;
			carry.push(Buffer.from(view.subarray(from))); // a copy: the chunk is read over next
		}
		position += read;
	}
	if (carry.length > 0) {
		current.line++;
		current.buffer = Buffer.concat(carry);
		current.start = 0;
		current.end = current.buffer.length;
		current.offset = carryOffset;
		current.terminated = false;
		yield current;
	}
}

/**
 * Whether a file's first line (in its first 4 KiB) is a session header (`"type": "session"`),
 * in one small read: what tells a pi session from another agent's file before either is read
 * whole. False for no such file, or one that cannot be read.
 */
export function startsAsPiSession(path: string): boolean {
	let fd: number | undefined;
	try {
		fd = openRegularFile(path).fd; // a FIFO must not block the look
		const head = Buffer.alloc(4096);
		const read = readSync(fd, head, 0, head.length, 0);
		return /^\s*\{[^\n]*"type"\s*:\s*"session"/.test(head.subarray(0, read).toString("utf8"));
	} catch {
		return false;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}
