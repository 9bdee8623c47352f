/**
 * Reading what the page embeds: the session's records (JSONL, gzip, base64, in the
 * `<script type="application/gzip+base64" class="session-data">` elements, in order: the base64
 * text in pieces, page.ts's `DATA_ELEMENT_CHARS` each) and the view options (JSON,
 * base64, in `<script type="application/base64+json" id="session-view">`), then the tree,
 * built by the core's loader: the same reducer that reads session files, with the bodies of
 * entries in pi's layout parsed when asked for, as the file store gives them.
 */

import { type LoadResult, loadTree } from "../../../core/load.js";
import { type RecordBytes, RecordBytesReader, readRecordBytes } from "../../../core/record-bytes.js";
import type { ParsedLine } from "../../../core/records.js";
import { isObject } from "../../../core/validate.js";

/** The class of the elements the page embeds its records in, and the id of its view options' (see page.ts). */
export const DATA_ELEMENT_CLASS = "session-data";
export const VIEW_ELEMENT_ID = "session-view";

/** The view options page.ts embeds. */
export interface ViewOptions {
	/** The entry shown first: the session's leaf, or the one `--leaf` chose. */
	leafId: string | null;
	/** The version of the session as it was stored (the records are always version 3). */
	fileVersion: number;
	/** What pi's filters say of each embedded entry (render/shown-hints.ts), when the page holds it. */
	shown?: string;
	/** The view options of a page `session-tree serve` serves (checked by live.ts), else absent. */
	server?: Record<string, unknown>;
}

/** The decoded session data. */
export interface SessionData {
	/**
	 * The records as JSONL, in pieces whose concatenation is the text (what the download link
	 * offers, made a Blob only when it is used: a Blob of 125 MB took 0.4 s to make).
	 */
	jsonl: readonly BlobPart[];
	/** The tree, as the core's loader built it (lenient: it never throws). */
	load: LoadResult;
	/** Lines that were not JSON (none in a page that session-tree wrote). */
	unreadable: number;
	/** The records read, header first, parsed or as envelopes (a served page counts them and adds what is appended). */
	lines: ParsedLine[];
}

/** The text of an embedded element, without white space (base64 may be wrapped). */
function embedded(id: string): string {
	const node = document.getElementById(id);
	if (!node) throw new Error(`the page has no #${id} element`);
	return textOf(node);
}

function textOf(node: Node): string {
	return (node.textContent ?? "").replace(/\s+/g, "");
}

/**
 * The bytes of the records' elements, in order, in one array (gunzip then gives the chunks it
 * gave for one element). Each piece is decoded alone; a piece whose text (once white space is
 * dropped) is not a multiple of 4 characters gives its last ones to the next, so a page whose
 * base64 was wrapped or cut elsewhere still decodes.
 */
function embeddedRecordBytes(): Uint8Array<ArrayBuffer> {
	const nodes = document.querySelectorAll(`script.${DATA_ELEMENT_CLASS}`);
	if (nodes.length === 0) throw new Error(`the page has no script.${DATA_ELEMENT_CLASS} element`);
	const pieces: Uint8Array<ArrayBuffer>[] = [];
	let carry = "";
	for (const node of nodes) {
		const text = carry + textOf(node);
		const cut = text.length - (text.length % 4);
		if (cut > 0) pieces.push(base64Bytes(text.slice(0, cut)));
		carry = text.slice(cut);
	}
	if (carry !== "") pieces.push(base64Bytes(carry));
	if (pieces.length === 1) return pieces[0] as Uint8Array<ArrayBuffer>;
	const bytes = new Uint8Array(pieces.reduce((sum, piece) => sum + piece.length, 0));
	let at = 0;
	for (const piece of pieces) {
		bytes.set(piece, at);
		at += piece.length;
	}
	return bytes;
}

/** Base64 to bytes: `Uint8Array.fromBase64` where the browser has it, else `atob`. */
function base64Bytes(base64: string): Uint8Array<ArrayBuffer> {
	const native = (Uint8Array as unknown as { fromBase64?: (text: string) => Uint8Array<ArrayBuffer> }).fromBase64;
	if (typeof native === "function") return native(base64);
	const binary = atob(base64);
	const bytes = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
	return bytes;
}

/** The view options; defaults when the element is missing or unreadable. */
export function readViewOptions(): ViewOptions {
	try {
		const bytes = base64Bytes(embedded(VIEW_ELEMENT_ID));
		const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
		if (isObject(value)) {
			return {
				leafId: typeof value.leafId === "string" ? value.leafId : null,
				fileVersion: typeof value.fileVersion === "number" ? value.fileVersion : 3,
				...(typeof value.shown === "string" ? { shown: value.shown } : {}),
				...(isObject(value.server) ? { server: value.server } : {}),
			};
		}
	} catch {
		// Fall through to the defaults: the session's own leaf.
	}
	return { leafId: null, fileVersion: 3 };
}

/**
 * Decompresses the embedded records and builds the tree. Entries in pi's layout are read as
 * envelopes from the bytes (core/record-bytes.ts) and their bodies parsed when shown: decoding
 * and parsing every line took 2.3–2.7 s of a 125 MB session's 6.5–7.2 s start in Chromium 156
 * (docs/performance.md, "Issue 28, sixth round").
 */
export async function readSessionData(): Promise<SessionData> {
	// The HTML parser ends first: the chunks below are read in microtasks, which would hold it
	// (and the page's `DOMContentLoaded`) until the last one was read.
	if (document.readyState === "loading") {
		await new Promise((resolve) => document.addEventListener("DOMContentLoaded", resolve, { once: true }));
	}
	const compressed = embeddedRecordBytes();
	// A stream made of the bytes here, read chunk by chunk: a Blob's stream read whole with
	// `Response.arrayBuffer()` took 1.9–2.1 s of a 125 MB session's start, its chunks 0.7–0.8 s
	// (docs/performance.md, "Issue 28, fifth round: the page's start").
	const reader = new ReadableStream<BufferSource>({
		start(controller) {
			controller.enqueue(compressed);
			controller.close();
		},
	})
		.pipeThrough(new DecompressionStream("gzip"))
		.getReader();
	// The chunks are kept as they come: the envelopes' bodies are read from them by offset, and
	// they are what the download gives (one array of them all took 0.34–0.48 s to make).
	const chunks: Uint8Array<ArrayBuffer>[] = [];
	for (let read = await reader.read(); !read.done; read = await reader.read()) {
		chunks.push(read.value as Uint8Array<ArrayBuffer>);
	}
	performance.mark("session-tree:decoded");
	const read = readRecordBytes(chunks);
	performance.mark("session-tree:parsed");
	return dataOf(chunks, read);
}

/** The tree of the records read from `chunks` (the JSONL text's bytes, in pieces). */
function dataOf(chunks: Uint8Array<ArrayBuffer>[], { lines, unreadable, source }: RecordBytes): SessionData {
	const load = loadTree(lines, { lenient: true, file: "session", ...(source ? { source } : {}) });
	performance.mark("session-tree:loaded");
	return { jsonl: chunks, load, unreadable, lines };
}

/**
 * The records of a page that `session-tree serve` serves, fetched (src/serve/page-data.ts: the
 * browser inflates them as they arrive) and read as {@link readSessionData} reads embedded
 * ones, and the view options the server gathered while it read them (the leaf, the filters'
 * hints, the version), asked for as soon as the records' answer names its build. Without
 * those (a build the server no longer keeps) the page shows the session's own leaf and reads
 * the messages it needs.
 */
export async function fetchSessionData(
	records: string,
	build: string,
): Promise<{ data: SessionData; view: Omit<ViewOptions, "server"> }> {
	const response = await fetch(`${records}?build=${encodeURIComponent(build)}`);
	if (!response.ok || !response.body)
		throw new Error(`the server did not send the records: ${await problemOf(response)}`);
	const built = response.headers.get("X-Session-Build") ?? build;
	const meta = fetch(`${records}/meta?build=${encodeURIComponent(built)}`)
		.then((answer) => (answer.ok ? answer.json() : undefined))
		.catch(() => undefined) as Promise<unknown>;
	const reader = response.body.getReader();
	const chunks: Uint8Array<ArrayBuffer>[] = [];
	// The lines are read as the chunks arrive: the transfer (1.4–1.9 s for 125 MB into the page,
	// docs/performance.md) is the longer part, so reading them costs little more than the last chunk's.
	const lines = new RecordBytesReader();
	for (let read = await reader.read(); !read.done; read = await reader.read()) {
		chunks.push(read.value as Uint8Array<ArrayBuffer>);
		lines.push(read.value);
	}
	performance.mark("session-tree:decoded");
	const read = lines.end();
	performance.mark("session-tree:parsed");
	const data = dataOf(chunks, read);
	const value = await meta;
	const view: Omit<ViewOptions, "server"> = { leafId: null, fileVersion: 3 };
	if (isObject(value)) {
		if (typeof value.leafId === "string") view.leafId = value.leafId;
		if (typeof value.fileVersion === "number") view.fileVersion = value.fileVersion;
		// The build's hints, made from the very records read above (one build, one id).
		if (typeof value.shown === "string") view.shown = value.shown;
	}
	return { data, view };
}

/** The server's message in an error answer (`{ error: { code, message } }`), else its status. */
async function problemOf(response: Response): Promise<string> {
	const value: unknown = await response.json().catch(() => undefined);
	if (isObject(value) && isObject(value.error) && typeof value.error.message === "string") return value.error.message;
	return `HTTP ${response.status}`;
}
