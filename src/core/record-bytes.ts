/**
 * Reading records that session-tree encoded one per line (`JSON.stringify` of each record, a
 * newline after each) from one array of their UTF-8 bytes, without decoding or parsing every
 * line: the HTML page's embedded records (render/html/client/data.ts). An entry in pi's exact
 * layout comes back as its envelope (envelope.ts), read in place; every other line is decoded
 * and parsed. The bytes are kept as the {@link LineSource} the envelopes' bodies are read from
 * when someone asks for them, so a page builds its tree, lays out its rows and draws its first
 * screen having parsed only the bodies it shows.
 *
 * A file goes through the file store instead (storage/file-store.ts), which also checks each
 * line for glued records and salvages damaged ones: lines written by a person or a crash. These
 * lines are the output of `JSON.stringify`, one record each; a line that is still not what its
 * envelope says (a page edited by hand) is reported when its body is parsed (lazy.ts), as the
 * file store reports a body it read lazily.
 */

import { readEnvelope } from "./envelope.js";
import type { LineSource, LineVisitor, Span } from "./lazy.js";
import type { ParsedLine, RawRecord } from "./records.js";
import type { Envelope } from "./tree-node.js";
import { isObject } from "./validate.js";

const NEWLINE = 0x0a;

/** What {@link readRecordBytes} read. */
export interface RecordBytes {
	/** The lines, header first: parsed records and envelopes, with their 1-based line numbers. */
	lines: ParsedLine[];
	/** Lines that were not a JSON object (left out; none in what session-tree wrote). */
	unreadable: number;
	/** Where the envelopes' bodies are read from, or undefined when no line was left unparsed. */
	source: LineSource | undefined;
}

/**
 * Reads the lines of `bytes`: one array, or the pieces whose concatenation is the text (what a
 * decompression stream gives; making them one array took 0.34–0.48 s of a 125 MB session's
 * start in Chromium, most of it the new array's pages). Envelopes only after a version 3
 * header: records of another version are migrated from their parses (see migrate.ts). Blank
 * lines count as lines. The pieces are kept, not copied: do not change them.
 */
export function readRecordBytes(bytes: Uint8Array | readonly Uint8Array[]): RecordBytes {
	const reader = new RecordBytesReader();
	for (const piece of bytes instanceof Uint8Array ? [bytes] : bytes) reader.push(piece);
	return reader.end();
}

/**
 * {@link readRecordBytes} piece by piece, as the pieces arrive (a page reads the lines of what
 * it fetched while the rest is still coming): `push` each piece in order, then `end`.
 */
export class RecordBytesReader {
	private readonly pieces: Uint8Array[] = [];
	private readonly decoder = new TextDecoder();
	private readonly lines: ParsedLine[] = [];
	private unreadable = 0;
	private lazy = false;
	private envelopes = 0;
	private previous: Envelope | undefined;
	private number = 0;
	/** The start of a line that began in an earlier piece: its parts, and where it starts in the text. */
	private open: Uint8Array[] = [];
	private openAt = 0;
	/** Where the next piece starts in the text. */
	private base = 0;

	/** Reads the lines a piece ends; it is kept, not copied: do not change it. */
	push(piece: Uint8Array): void {
		this.pieces.push(piece);
		let start = 0;
		for (let end = piece.indexOf(NEWLINE); end !== -1; end = piece.indexOf(NEWLINE, start)) {
			if (this.open.length > 0) {
				const whole = joined([...this.open, piece.subarray(0, end)]);
				this.take(whole, 0, whole.length, this.openAt);
				this.open = [];
			} else this.take(piece, start, end, this.base + start);
			start = end + 1;
		}
		if (start < piece.length) {
			if (this.open.length === 0) this.openAt = this.base + start;
			this.open.push(piece.subarray(start));
		}
		this.base += piece.length;
	}

	/** Reads the last line (one without a newline after it) and says what was read. */
	end(): RecordBytes {
		if (this.open.length > 0) {
			const whole = joined(this.open);
			this.take(whole, 0, whole.length, this.openAt);
			this.open = [];
		}
		return {
			lines: this.lines,
			unreadable: this.unreadable,
			source: this.envelopes > 0 ? new PiecesLineSource(this.pieces) : undefined,
		};
	}

	/** Each line, in the piece that holds it whole or in a copy of its parts, at `offset` in the text. */
	private take(buf: Uint8Array, start: number, end: number, offset: number): void {
		const number = ++this.number;
		const envelope = this.lazy ? readEnvelope(buf, start, end, offset, number, this.previous) : undefined;
		if (envelope) {
			this.lines.push(envelope);
			this.envelopes++;
			this.previous = envelope;
			return;
		}
		this.previous = undefined;
		const text = this.decoder.decode(buf.subarray(start, end));
		if (text.trim() === "") return;
		const record = parseObject(text);
		if (record === undefined) this.unreadable++;
		else {
			if (this.lines.length === 0) this.lazy = record.type === "session" && record.version === 3;
			this.lines.push({ line: number, record });
		}
	}
}

/** The concatenation of some arrays, as a new one. */
function joined(parts: readonly Uint8Array[]): Uint8Array {
	let size = 0;
	for (const part of parts) size += part.length;
	const out = new Uint8Array(size);
	let at = 0;
	for (const part of parts) {
		out.set(part, at);
		at += part.length;
	}
	return out;
}

function parseObject(text: string): RawRecord | undefined {
	try {
		const value: unknown = JSON.parse(text);
		return isObject(value) ? (value as RawRecord) : undefined;
	} catch {
		return undefined;
	}
}

/** The lines of the pieces of a text, which it keeps. */
class PiecesLineSource implements LineSource {
	private readonly decoder = new TextDecoder();
	/** Where each piece starts in the text. */
	private readonly starts: number[] = [];

	constructor(private readonly pieces: readonly Uint8Array[]) {
		let at = 0;
		for (const piece of pieces) {
			this.starts.push(at);
			at += piece.length;
		}
	}

	readLines(spans: readonly Envelope[]): string[] {
		return spans.map((span) => this.decoder.decode(this.bytesOf(span)));
	}

	/**
	 * By increasing offset, each line in a view of its own (what the contract promises a visitor
	 * that remembers a search of the bytes it was given).
	 */
	visitLines(spans: readonly Span[], visit: LineVisitor): void {
		const order = spans.map((_, index) => index);
		if (!inOrder(spans)) order.sort((a, b) => (spans[a] as Span).offset - (spans[b] as Span).offset);
		for (const index of order) {
			const bytes = this.bytesOf(spans[index] as Span);
			visit(index, bytes, 0, bytes.length);
		}
	}

	/** The bytes of a span: a view of the piece that holds it, or a copy of its parts. */
	private bytesOf(span: Span): Uint8Array {
		let i = this.pieceAt(span.offset);
		const from = span.offset - (this.starts[i] as number);
		const piece = this.pieces[i] as Uint8Array;
		if (from + span.length <= piece.length) return piece.subarray(from, from + span.length);
		const parts = [piece.subarray(from)];
		let left = span.length - (piece.length - from);
		while (left > 0 && ++i < this.pieces.length) {
			const next = this.pieces[i] as Uint8Array;
			parts.push(next.subarray(0, Math.min(left, next.length)));
			left -= next.length;
		}
		return joined(parts);
	}

	/** The index of the piece that holds the byte at `offset` (binary search). */
	private pieceAt(offset: number): number {
		let low = 0;
		let high = this.starts.length - 1;
		while (low < high) {
			const mid = (low + high + 1) >> 1;
			if ((this.starts[mid] as number) <= offset) low = mid;
			else high = mid - 1;
		}
		return low;
	}
}

function inOrder(spans: readonly Span[]): boolean {
	for (let i = 1; i < spans.length; i++) if ((spans[i] as Span).offset < (spans[i - 1] as Span).offset) return false;
	return true;
}
