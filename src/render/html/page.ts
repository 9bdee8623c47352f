/**
 * The exported page as one HTML string: a pure function of the session's records (already
 * redacted), the leaf to show first and the client script. Nothing of the session is written
 * as markup but the `<title>` (HTML-escaped): the records travel as JSONL, gzip-compressed and
 * base64-encoded, in `<script type="application/gzip+base64" class="session-data">` elements of
 * {@link DATA_ELEMENT_CHARS} characters each (the last shorter; see there why not one), and the
 * view options (the leaf) as base64 JSON in `<script type="application/base64+json"
 * id="session-view">`. Base64 has no `<`, so no record can end its block. The client script
 * builds the page from them with DOM calls.
 *
 * The Content-Security-Policy (a `<meta http-equiv>`) allows exactly the inline script and the
 * inline stylesheet (by their SHA-256 hashes), images from `data:` URLs, and nothing else: no
 * request leaves the page, no other script runs, no form posts, no `<base>`.
 */

import { createHash } from "node:crypto";
import { once } from "node:events";
import { createGzip, gzipSync, type ZlibOptions } from "node:zlib";
import type { SessionEntry, SessionHeader } from "../../core/types.js";
import { shownHint } from "../shown-hints.js";
import { sessionTitle } from "../title.js";
import { PAGE_CSS } from "./style.js";

const NEWLINE = 0x0a;

/**
 * The gzip level of the embedded records: 1, the fastest. The bench's 125 MB session takes
 * 1.10–1.36 s of one core at level 1 (33.2 MiB) against 1.76–1.96 s at level 4 (30.2 MiB),
 * the level of the export until issue 28's thirteenth round: the export, whose two threads and
 * gzip keep both cores busy, took 0.3–0.5 s less, and the page, 4 MiB larger, was interactive
 * as soon (1,762 against 1,786 ms; docs/performance.md).
 */
export const HTML_GZIP_LEVEL = 1;

/** What {@link renderHtmlPage} renders. */
export interface HtmlPageInput {
	/** The session header (line 1), already redacted. */
	header: SessionHeader;
	/** Every other record, in file order, already redacted. */
	records: readonly object[];
	/** The entry shown first: the end of the path (null: before the first entry). */
	leafId: string | null;
	/** The client script (see {@link loadClientScript}). */
	clientScript: string;
	/** The session name, for the title, already redacted. */
	name?: string | undefined;
	/** The first prompt a person typed (render/title.ts), the title when there is no name; already redacted. */
	prompt?: string | undefined;
	/** The version of the session as stored, when it was older than 3 (shown with the facts). */
	fileVersion?: number;
	/** gzip level, 1 to 9. Default {@link HTML_GZIP_LEVEL}. */
	gzipLevel?: number;
	/**
	 * What pi's filters say of each entry of `records`, one character each (render/shown-hints.ts):
	 * the page then lays its tree out without reading its messages' bodies. {@link renderHtmlPage}
	 * makes them from `records` when absent.
	 * @internal
	 */
	shown?: string;
	/**
	 * The view options of a page that `session-tree serve` serves (its session key, whether it
	 * may be written, where its live tail is), embedded as the view's `server` member; the
	 * policy then also lets the page connect to its own origin. Absent in an export.
	 * @internal
	 */
	server?: object;
	/**
	 * Where a page that `session-tree serve` serves fetches its records (with its build), when
	 * they are not embedded: the page asks for them as soon as its head is read.
	 * @internal
	 */
	recordsUrl?: string;
}

/** `sha256-…` of a text's UTF-8 bytes, as a CSP source expression wants it (without quotes). */
export function cspHash(text: string): string {
	return `sha256-${createHash("sha256").update(text, "utf8").digest("base64")}`;
}

/**
 * The Content-Security-Policy of a page with this inline script and stylesheet; `connect`
 * also lets it fetch from its own origin (a page `session-tree serve` serves).
 */
export function contentSecurityPolicy(script: string, style: string, connect = false): string {
	return [
		"default-src 'none'",
		...(connect ? ["connect-src 'self'"] : []),
		`script-src '${cspHash(script)}'`,
		`style-src '${cspHash(style)}'`,
		"img-src data:",
		"base-uri 'none'",
		"form-action 'none'",
	].join("; ");
}

/** Text for HTML element content or a quoted attribute value. */
export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Bytes of gzip data in each embedded element: their base64 text is {@link DATA_ELEMENT_CHARS}
 * characters, a multiple of 4, so that each element decodes alone.
 */
const DATA_ELEMENT_BYTES = 3 * 2 ** 16;

/**
 * Characters of base64 text in each `<script class="session-data">` but the last (256 KiB).
 * Chromium reads and parses a page faster with its records in elements of this size than in
 * one: for the bench's 100,000-entry session (42.3 MB of base64), the page was parsed at
 * 1.13–1.29 s against 1.90–2.51 s with one element, and 1.33–1.60 s with elements of 1 MiB
 * (docs/performance.md, "Issue 28, twelfth round").
 */
export const DATA_ELEMENT_CHARS = (DATA_ELEMENT_BYTES / 3) * 4;

/** The start of an element that holds a piece of the records' base64 text (see {@link DATA_ELEMENT_CHARS}). */
const DATA_ELEMENT_OPEN = '<script type="application/gzip+base64" class="session-data">';
const DATA_ELEMENT_CLOSE = "</script>\n";

/**
 * The page's text between {@link htmlPageAround}'s `before` and `after` for these pieces of
 * the records' base64 text ({@link encodeRecordsInPieces}), in parts: each piece is one
 * element's text, not copied into it.
 */
export function dataElementParts(pieces: readonly string[]): string[] {
	return pieces.flatMap((piece) => [DATA_ELEMENT_OPEN, piece, DATA_ELEMENT_CLOSE]);
}

/**
 * Appends to `pieces` the base64 text of each whole element's bytes of `bytes` (see
 * {@link DATA_ELEMENT_CHARS}), and of the bytes after them too when `last`; returns where the
 * bytes not taken start. The one place the records are cut into elements.
 */
function takePieces(bytes: Buffer, pieces: string[], last: boolean): number {
	let at = 0;
	for (; bytes.length - at >= DATA_ELEMENT_BYTES; at += DATA_ELEMENT_BYTES) {
		pieces.push(bytes.toString("base64", at, at + DATA_ELEMENT_BYTES));
	}
	if (last && at < bytes.length) {
		pieces.push(bytes.toString("base64", at));
		at = bytes.length;
	}
	return at;
}

/**
 * The records as the page embeds them: one JSON text per line, header first, gzip, base64, in
 * the pieces of the page's elements.
 */
export function encodeRecords(header: SessionHeader, records: readonly object[], level = HTML_GZIP_LEVEL): string[] {
	const lines: string[] = [JSON.stringify(header)];
	for (const record of records) lines.push(JSON.stringify(record));
	lines.push("");
	const pieces: string[] = [];
	takePieces(gzipSync(Buffer.from(lines.join("\n"), "utf8"), { level }), pieces, true);
	return pieces;
}

/**
 * The records as {@link encodeRecords} encodes them, the same pieces of base64 text, from the
 * gzip stream of {@link gzipRecords} turned into base64 as it comes: each chunk's whole
 * elements, the bytes left carried to the next. Each piece is given to `onPiece` as soon as it
 * is made (and the resolved array is then empty), else gathered.
 */
export async function encodeRecordsInPieces(
	header: SessionHeader,
	records: Iterable<object | Uint8Array>,
	level = HTML_GZIP_LEVEL,
	onPiece?: (piece: string) => void,
): Promise<string[]> {
	const pieces: string[] = [];
	const hand = () => {
		if (onPiece) for (const piece of pieces.splice(0)) onPiece(piece);
	};
	let carry = Buffer.alloc(0);
	await gzipRecords(header, records, level, (chunk) => {
		const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
		carry = Buffer.from(bytes.subarray(takePieces(bytes, pieces, false)));
		hand();
	});
	takePieces(carry, pieces, true);
	hand();
	return pieces;
}

/**
 * The records as JSONL (header first, one record a line), gzip-compressed, handed to
 * `onChunk` as the compressor gives them: each record is made JSON when the iteration reaches
 * it. With records read as they are reached (`Session.walkEntries`), a large session costs its
 * compressed bytes, not every record, the whole JSONL text and its gzip besides. A record
 * given as bytes is a JSON text already, UTF-8 (the stored line the record was parsed from,
 * `Session.walkEntryLines`, or several such lines joined by newlines), and is written as it
 * is: copied when it is given, so its bytes may be reused once the iteration goes on.
 *
 * gzip runs on libuv's thread pool beside this loop: records are copied into batches of
 * {@link GZIP_BATCH} bytes, each handed over whole (an output buffer of {@link GZIP_CHUNK},
 * so one job compresses one batch), up to {@link GZIP_AHEAD} ahead, and the loop lets the
 * event loop turn after each one so that the finished job's callback can start the next.
 * Before, the stream took 16 KiB per job and the loop waited for each batch to drain: the two
 * took turns on one core (s100k: 5.0 s, of it 1.3 s idle; 3.9 s since). A batch's buffer is
 * used again once gzip has taken it in: a new buffer per batch (`Buffer.concat`) cost the
 * first touch of 125 MiB of new memory for s100k (190–260 ms of the main thread).
 */
export async function gzipRecords(
	header: SessionHeader,
	records: Iterable<object | Uint8Array>,
	level: number,
	onChunk: (chunk: Buffer) => void,
): Promise<void> {
	// `writableHighWaterMark` is the stream's option, which zlib passes on (absent from ZlibOptions' type).
	const options: ZlibOptions & { writableHighWaterMark: number } = {
		level,
		chunkSize: GZIP_CHUNK,
		writableHighWaterMark: GZIP_AHEAD,
	};
	const gzip = createGzip(options);
	gzip.on("data", onChunk);
	const batches = new Batches();
	try {
		batches.addText(`${JSON.stringify(header)}\n`);
		for (const record of records) {
			if (record instanceof Uint8Array) batches.addLine(record);
			else batches.addText(`${JSON.stringify(record)}\n`);
			for (const batch of batches.takeReady()) {
				if (!gzip.write(batch.bytes, batch.done)) await once(gzip, "drain");
				// A turn of the event loop: the job that finished hands gzip its next batch.
				else await new Promise(setImmediate);
			}
		}
		for (const batch of batches.rest()) gzip.write(batch.bytes, batch.done);
		const ended = once(gzip, "end");
		gzip.end();
		await ended;
	} catch (error) {
		gzip.destroy();
		throw error;
	}
}

/** Bytes of JSONL text given to the gzip stream at a time (see {@link gzipRecords}). */
const GZIP_BATCH = 2 ** 20;
/** gzip's output buffer: a batch compresses to less, so one thread-pool job takes a whole batch. @internal */
export const GZIP_CHUNK = 2 ** 20;
/** Bytes of batches given to gzip before the loop waits for it. @internal */
export const GZIP_AHEAD = 8 * 2 ** 20;

/** A batch ready for gzip: its bytes, and what to call once gzip has taken them in (its buffer is free again). */
interface Batch {
	bytes: Buffer;
	done: () => void;
}

/**
 * The lines of {@link gzipRecords} gathered into batches of {@link GZIP_BATCH} bytes, in buffers
 * used again once gzip has taken a batch in. A record longer than a batch gets a buffer of its own.
 */
class Batches {
	private readonly free: Buffer[] = [];
	private buffer: Buffer = Buffer.allocUnsafeSlow(GZIP_BATCH);
	private size = 0;
	/** Batches made whole, in order, waiting for {@link takeReady}. */
	private readonly ready: Batch[] = [];

	/** Adds a line (without its newline). */
	addLine(line: Uint8Array): void {
		const length = line.length + 1;
		if (this.fits(length)) {
			this.buffer.set(line, this.size);
			this.buffer[this.size + line.length] = NEWLINE;
			this.size += length;
			return;
		}
		const own = Buffer.allocUnsafe(length);
		own.set(line);
		own[line.length] = NEWLINE;
		this.ready.push({ bytes: own, done: () => {} });
	}

	/** Adds text (its lines with their newlines). */
	addText(text: string): void {
		const length = Buffer.byteLength(text, "utf8");
		if (this.fits(length)) this.size += this.buffer.write(text, this.size, "utf8");
		else this.ready.push({ bytes: Buffer.from(text, "utf8"), done: () => {} });
	}

	/** The batches made whole so far, in order (each given once). */
	takeReady(): Batch[] {
		return this.ready.length === 0 ? [] : this.ready.splice(0);
	}

	/** Every batch left, the last one too. */
	rest(): Batch[] {
		if (this.size > 0) this.seal();
		return this.takeReady();
	}

	/**
	 * Whether `length` more bytes go into the current batch, once it is sealed when they do not
	 * fit there; false for more than a batch holds (the caller gives them a buffer of their own,
	 * after the sealed batch).
	 */
	private fits(length: number): boolean {
		if (this.size + length <= this.buffer.length) return true;
		if (this.size > 0) this.seal();
		return length <= this.buffer.length;
	}

	private seal(): void {
		const buffer = this.buffer;
		this.ready.push({ bytes: buffer.subarray(0, this.size), done: () => this.free.push(buffer) });
		this.buffer = this.free.pop() ?? Buffer.allocUnsafeSlow(GZIP_BATCH);
		this.size = 0;
	}
}

/** Throws when text could end the inline `<script>` or `<style>` that holds it. */
function checkInlinable(text: string, tag: "script" | "style"): void {
	const end = new RegExp(`</${tag}`, "i");
	const escaped = tag === "script" && text.includes("<!--") && /<script[\s/>]/i.test(text);
	if (end.test(text) || escaped)
		throw new Error(`session-tree: the page's ${tag} cannot be inlined: it would end early`);
}

/** The page (see the module's documentation). */
export function renderHtmlPage(input: HtmlPageInput): string {
	const shown = input.shown ?? input.records.map((record) => shownHint(record as SessionEntry)).join("");
	const { before, after } = htmlPageAround({ ...input, shown });
	const pieces = encodeRecords(input.header, input.records, input.gzipLevel ?? HTML_GZIP_LEVEL);
	return `${before}${dataElementParts(pieces).join("")}${after}`;
}

/**
 * The page of {@link renderHtmlPage} but its records: the text before the elements that hold
 * them ({@link dataElementParts}) and the text after them. A page without them (one that `serve`
 * serves, whose client fetches its records) is the two joined.
 */
export function htmlPageAround(
	input: Omit<HtmlPageInput, "records" | "gzipLevel" | "header"> & { header: Pick<SessionHeader, "id"> },
): { before: string; after: string } {
	const script = input.clientScript;
	checkInlinable(script, "script");
	checkInlinable(PAGE_CSS, "style");
	const title = sessionTitle({ name: input.name, prompt: input.prompt, sessionId: String(input.header.id) });
	const view = {
		leafId: input.leafId,
		fileVersion: input.fileVersion ?? 3,
		...(input.shown !== undefined ? { shown: input.shown } : {}),
		...(input.server ? { server: input.server } : {}),
	};
	const before = [
		"<!doctype html>",
		'<html lang="en" data-theme="light">',
		"<head>",
		'<meta charset="utf-8">',
		`<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(script, PAGE_CSS, input.server !== undefined))}">`,
		'<meta name="referrer" content="no-referrer">',
		'<meta name="viewport" content="width=device-width, initial-scale=1">',
		'<meta name="generator" content="session-tree html">',
		`<title>${escapeHtml(title)}</title>`,
		// A served page's records are asked for while its script is still being read (data.ts fetches the same URL).
		...(input.recordsUrl !== undefined
			? [`<link rel="preload" href="${escapeHtml(input.recordsUrl)}" as="fetch" crossorigin="anonymous">`]
			: []),
		`<style>${PAGE_CSS}</style>`,
		"</head>",
		"<body>",
		'<div id="app" class="loading">Loading the session…</div>',
		"<noscript><p>This page shows a session-tree session; it needs JavaScript.</p></noscript>",
		"",
	].join("\n");
	const after = [
		`<script type="application/base64+json" id="session-view">${Buffer.from(JSON.stringify(view), "utf8").toString("base64")}</script>`,
		`<script>${script}</script>`,
		"</body>",
		"</html>",
		"",
	].join("\n");
	return { before, after };
}
