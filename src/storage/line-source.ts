/**
 * Reading indexed lines back from a session file, for entries whose body the loader left
 * unparsed: as text, or as raw bytes for a look that needs no decoding. The source keeps the descriptor it indexed the file with: it keeps reading the
 * same file even if someone renames another over its path (an atomic rewrite), and appends
 * never move what it indexed.
 */

import { closeSync, readSync, type Stats } from "node:fs";
import { SessionTreeError } from "../core/errors.js";
import type { LineSource, LineVisitor, Span } from "../core/lazy.js";
import { openRegularFile } from "./regular-file.js";

/** Lines closer than this are read together. */
const GAP = 64 * 1024;
/** At most this much is read at once (unless one span is longer). */
const MAX_READ = 1024 * 1024;

/**
 * The read buffer, kept between reads: a fresh one would cost the system a page fault per
 * 4 KiB on every read. Undefined while a read uses it (a visitor that reads again gets a buffer
 * of its own).
 */
let spare: Buffer | undefined;

function takeBuffer(): Buffer {
	const buffer = spare ?? Buffer.allocUnsafeSlow(MAX_READ);
	spare = undefined;
	return buffer;
}

function giveBack(buffer: Buffer): void {
	spare = buffer;
}

/** The indices of the spans sorted by offset, or undefined when they are in that order already. */
function byOffset(spans: readonly Span[]): number[] | undefined {
	let sorted = true;
	for (let i = 1; i < spans.length && sorted; i++) sorted = (spans[i] as Span).offset >= (spans[i - 1] as Span).offset;
	if (sorted) return undefined;
	const order = spans.map((_, i) => i);
	return order.sort((a, b) => (spans[a] as Span).offset - (spans[b] as Span).offset);
}

/** Closes descriptors of sources nobody can reach any more (sessions dropped without `close`). */
const orphans = new FinalizationRegistry<{ fd: number | undefined }>((handle) => {
	if (handle.fd !== undefined) {
		try {
			closeSync(handle.fd);
		} catch {
			// Already closed.
		}
		handle.fd = undefined;
	}
});

/**
 * What tells one file from another at the same path: device, inode, and birth time (a file
 * system may give a new file the inode of one just replaced; the birth time tells them apart
 * where the system records it).
 */
export function fileIdentity(stats: { dev: number; ino: number; birthtimeMs: number }): string {
	return `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`;
}

/** Reads lines of one file by offset. */
export class FileLineSource implements LineSource {
	private readonly handle: { fd: number | undefined };

	/**
	 * @param fd an open descriptor of the file, now owned by the source
	 * @param identity {@link fileIdentity} of that file, to check a reopened path against
	 */
	constructor(
		private readonly file: string,
		fd: number,
		private readonly identity: string,
	) {
		this.handle = { fd };
		orphans.register(this, this.handle, this);
	}

	/** The text of each span (any span of the file, not only an entry's line), in the order given. */
	readLines(spans: readonly Span[]): string[] {
		const texts: string[] = new Array(spans.length);
		this.visitLines(spans, (index, bytes, start, end) => {
			texts[index] = (bytes as Buffer).toString("utf8", start, end);
		});
		return texts;
	}

	/** By offset; spans that lie close together are read at once, into a buffer kept for the next read. */
	visitLines(spans: readonly Span[], visit: LineVisitor): void {
		if (spans.length === 0) return;
		const fd = this.descriptor();
		const order = byOffset(spans);
		const at = (k: number): number => (order ? (order[k] as number) : k);
		const buffer = takeBuffer();
		try {
			for (let k = 0; k < spans.length; ) {
				// One read covers the next spans that lie close together.
				const first = spans[at(k)] as Span;
				let last = k;
				let end = first.offset + first.length;
				while (last + 1 < spans.length) {
					const next = spans[at(last + 1)] as Span;
					const nextEnd = Math.max(end, next.offset + next.length);
					if (next.offset - end > GAP || nextEnd - first.offset > MAX_READ) break;
					end = nextEnd;
					last++;
				}
				const size = end - first.offset;
				// A span longer than a read gets a buffer of its own.
				const into = size <= buffer.length ? buffer : Buffer.allocUnsafe(size);
				this.readFully(fd, into, size, first.offset);
				// A new view per read, ending where the data ends (see LineVisitor).
				const bytes = into.subarray(0, size);
				for (; k <= last; k++) {
					const index = at(k);
					const span = spans[index] as Span;
					const from = span.offset - first.offset;
					visit(index, bytes, from, from + span.length);
				}
			}
		} finally {
			giveBack(buffer);
		}
	}

	/** Closes the descriptor; a later read reopens the path if it is still the same file. */
	close(): void {
		const fd = this.handle.fd;
		this.handle.fd = undefined;
		if (fd !== undefined) closeSync(fd);
		orphans.unregister(this);
	}

	private descriptor(): number {
		if (this.handle.fd !== undefined) return this.handle.fd;
		let fd: number;
		let stats: Stats;
		try {
			({ fd, stats } = openRegularFile(this.file));
		} catch (cause) {
			throw this.gone(cause);
		}
		if (fileIdentity(stats) !== this.identity) {
			closeSync(fd);
			throw this.gone();
		}
		this.handle.fd = fd;
		orphans.register(this, this.handle, this);
		return fd;
	}

	private readFully(fd: number, buffer: Buffer, size: number, position: number): void {
		let done = 0;
		while (done < size) {
			const read = readSync(fd, buffer, done, size - done, position + done);
			if (read === 0) {
				throw new SessionTreeError("IO_ERROR", "the file is shorter than when it was opened (was it truncated?)", {
					file: this.file,
				});
			}
			done += read;
		}
	}

	private gone(cause?: unknown): SessionTreeError {
		return new SessionTreeError(
			"IO_ERROR",
			"the file was replaced or removed since it was read (migrated or repaired elsewhere?); await session.refresh() to read it again",
			{ file: this.file },
			cause === undefined ? undefined : { cause },
		);
	}
}
