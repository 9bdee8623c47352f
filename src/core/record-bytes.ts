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
 * Reads the lines of `bytes`. Envelopes only after a version 3 header: records of another
 * version are migrated from their parses (see migrate.ts). Blank lines count as lines.
 */
export function readRecordBytes(bytes: Uint8Array): RecordBytes {
	const decoder = new TextDecoder();
	const lines: ParsedLine[] = [];
	let unreadable = 0;
	let lazy = false;
	let envelopes = 0;
	let previous: Envelope | undefined;
	let number = 0;
	for (let start = 0; start < bytes.length; ) {
		let end = bytes.indexOf(NEWLINE, start);
		if (end === -1) end = bytes.length;
		number++;
		const envelope = lazy ? readEnvelope(bytes, start, end, start, number, previous) : undefined;
		if (envelope) {
			lines.push(envelope);
			envelopes++;
			previous = envelope;
		} else {
			previous = undefined;
			const text = decoder.decode(bytes.subarray(start, end));
			if (text.trim() !== "") {
				const record = parseObject(text);
				if (record === undefined) unreadable++;
				else {
					if (lines.length === 0) lazy = record.type === "session" && record.version === 3;
					lines.push({ line: number, record });
				}
			}
		}
		start = end + 1;
	}
	return { lines, unreadable, source: envelopes > 0 ? new BytesLineSource(bytes) : undefined };
}

function parseObject(text: string): RawRecord | undefined {
	try {
		const value: unknown = JSON.parse(text);
		return isObject(value) ? (value as RawRecord) : undefined;
	} catch {
		return undefined;
	}
}

/** The lines of one array of bytes, which it keeps. */
class BytesLineSource implements LineSource {
	private readonly decoder = new TextDecoder();

	constructor(private readonly bytes: Uint8Array) {}

	readLines(spans: readonly Envelope[]): string[] {
		return spans.map((span) => this.decoder.decode(this.bytes.subarray(span.offset, span.offset + span.length)));
	}

	/**
	 * By increasing offset, in one view of the bytes per call that holds nothing past the last
	 * span (what the contract promises a visitor that remembers a search of them).
	 */
	visitLines(spans: readonly Span[], visit: LineVisitor): void {
		if (spans.length === 0) return;
		const order = spans.map((_, index) => index);
		if (!inOrder(spans)) order.sort((a, b) => (spans[a] as Span).offset - (spans[b] as Span).offset);
		const from = (spans[order[0] as number] as Span).offset;
		let to = from;
		for (const span of spans) to = Math.max(to, span.offset + span.length);
		const view = this.bytes.subarray(from, to);
		for (const index of order) {
			const span = spans[index] as Span;
			visit(index, view, span.offset - from, span.offset - from + span.length);
		}
	}
}

function inOrder(spans: readonly Span[]): boolean {
	for (let i = 1; i < spans.length; i++) if ((spans[i] as Span).offset < (spans[i - 1] as Span).offset) return false;
	return true;
}
