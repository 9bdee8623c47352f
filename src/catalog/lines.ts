/**
 * Lines of a file as byte ranges, for the catalog's cheap pass: like the storage layer's
 * `scanLines` (1 MiB chunks, only `\n` ends a line, a UTF-8 byte-order mark at the start of the
 * file is dropped), but a line is not decoded to a string unless someone asks. Listing a
 * thousand sessions mostly looks at the first hundred bytes and the last few dozen of each
 * line; decoding every line whole took most of the time.
 */

import { readSync } from "node:fs";

const CHUNK_SIZE = 1 << 20;
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
}

/** The line as a string (UTF-8). */
export function lineText(line: ByteLine): string {
	return line.buffer.toString("utf8", line.start, line.end);
}

/** Every line of an open file, from the start. */
export function* scanByteLines(fd: number): Generator<ByteLine> {
	const chunk = Buffer.allocUnsafe(CHUNK_SIZE);
	const current: ByteLine = { buffer: chunk, start: 0, end: 0, line: 0, terminated: true };
	let carry: Buffer | undefined;
	let position = 0;
	let first = true;
	for (;;) {
		const read = readSync(fd, chunk, 0, CHUNK_SIZE, position);
		if (read === 0) break;
		position += read;
		let from = 0;
		if (first) {
			first = false;
			if (read >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) from = 3;
		}
		for (let nl = chunk.indexOf(NEWLINE, from); nl !== -1 && nl < read; nl = chunk.indexOf(NEWLINE, from)) {
			current.line++;
			if (carry) {
				current.buffer = Buffer.concat([carry, chunk.subarray(from, nl)]);
				current.start = 0;
				current.end = current.buffer.length;
				carry = undefined;
			} else {
				current.buffer = chunk;
				current.start = from;
				current.end = nl;
			}
			yield current;
			from = nl + 1;
		}
		if (from < read) {
			const rest = Buffer.from(chunk.subarray(from, read));
			carry = carry ? Buffer.concat([carry, rest]) : rest;
		}
	}
	if (carry && carry.length > 0) {
		current.line++;
		current.buffer = carry;
		current.start = 0;
		current.end = carry.length;
		current.terminated = false;
		yield current;
	}
}
