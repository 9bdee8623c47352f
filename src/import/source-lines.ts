/**
 * The lines of a JSONL source, read once in order and again by place: from a text in memory
 * (a source handed over as a string), or from a file, in 1 MiB chunks and by offset with the
 * readers of the file store (storage/lines.ts, storage/line-source.ts), so that a transcript
 * of hundreds of megabytes is never one string. Only `\n` ends a line; a UTF-8 byte-order mark
 * at the start is dropped.
 */

import { closeSync, fstatSync, readSync } from "node:fs";
import type { Span } from "../core/lazy.js";
import { FileLineSource, fileIdentity } from "../storage/line-source.js";
import { lineText, scanByteLines } from "../storage/lines.js";
import { openRegularFile } from "../storage/regular-file.js";
import { withoutBom } from "./common.js";

/** One line of a source, as a scan gives it. */
export interface SourceLine {
	/** 1-based line number. */
	readonly n: number;
	/** The line without its `\n` (a `\r` before it is kept). */
	readonly text: string;
	/** False for a last line with no `\n` after it. */
	readonly terminated: boolean;
	/** Where the line is, for {@link SourceLines.read}: bytes of a file, characters of a text. */
	readonly offset: number;
	readonly length: number;
}

/** The lines of one source. */
export interface SourceLines {
	/** Every line, in order. */
	scan(): Iterable<SourceLine>;
	/**
	 * The text of each span (lines a scan gave), in the order given.
	 * @throws SessionTreeError IO_ERROR when a file was replaced or cut short since it was scanned
	 */
	read(spans: readonly Span[]): string[];
	/** Releases what it holds open (a later read opens the file again if it is still the same). */
	close(): void;
}

/** The lines of a text in memory. */
export function textLines(text: string): SourceLines {
	const body = withoutBom(text);
	return {
		*scan() {
			let n = 0;
			for (let at = 0; at <= body.length; ) {
				const end = body.indexOf("\n", at);
				const stop = end < 0 ? body.length : end;
				// The empty part after a final newline is no line of the file (a scan of the file has none).
				if (end < 0 && at === body.length && n > 0) break;
				yield { n: ++n, text: body.slice(at, stop), terminated: end >= 0, offset: at, length: stop - at };
				if (end < 0) break;
				at = end + 1;
			}
		},
		read: (spans) => spans.map((span) => body.slice(span.offset, span.offset + span.length)),
		close: () => {},
	};
}

/**
 * The lines of the file at `path`, opened now (the descriptor is kept for the reads by place:
 * a file renamed over the path later is not read by mistake).
 * @throws Error as `openSync` does when the file cannot be opened
 */
export function fileLines(path: string): SourceLines {
	const { fd } = openRegularFile(path); // never a FIFO or a device (regular-file.ts)
	const source = new FileLineSource(path, fd, fileIdentity(fstatSync(fd)));
	return {
		*scan() {
			for (const line of scanByteLines(fd)) {
				const text = lineText(line);
				yield {
					n: line.line,
					// A second byte-order mark, as a decoder of the whole text drops it too.
					text: line.line === 1 ? withoutBom(text) : text,
					terminated: line.terminated,
					offset: line.offset,
					length: line.end - line.start,
				};
			}
		},
		read: (spans) => source.readLines(spans),
		close: () => source.close(),
	};
}

/**
 * False when the first line of the file at `path` that is not blank runs past `limit` bytes,
 * told from one read of the file's start: what decides that a file is no JSONL transcript
 * (see `sniffFirstLines`) without scanning a one-line export of 85 MiB to its end first.
 * @throws Error as `openSync` does when the file cannot be opened
 */
export function firstLineWithin(path: string, limit: number): boolean {
	const { fd } = openRegularFile(path);
	try {
		// No more than the file holds: a listing sniffs many small files, each a small read.
		const head = Buffer.allocUnsafe(Math.min(limit + 1, fstatSync(fd).size + 1));
		let read = 0;
		for (let got = -1; got !== 0 && read < head.length; read += got) {
			got = readSync(fd, head, read, head.length - read, read);
		}
		let start = 0;
		// Blank lines first (white space only), as the sniff skips them.
		while (
			start < read &&
			(head[start] === 0x20 || head[start] === 0x09 || head[start] === 0x0d || head[start] === 0x0a)
		) {
			start++;
		}
		const end = head.subarray(0, read).indexOf(0x0a, start);
		return end !== -1 || read <= limit; // a last line ending the file within the limit fits
	} finally {
		closeSync(fd);
	}
}
