/**
 * Reading what the page embeds: the session's records (JSONL, gzip, base64, in
 * `<script type="application/gzip+base64" id="session-data">`) and the view options (JSON,
 * base64, in `<script type="application/base64+json" id="session-view">`), then the tree,
 * built by the core's loader: the same reducer that reads session files.
 */

import { type LoadResult, loadTree } from "../../../core/load.js";
import type { ParsedLine, RawRecord } from "../../../core/records.js";
import { isObject } from "../../../core/validate.js";

/** The ids of the elements the page embeds its data in (see page.ts). */
export const DATA_ELEMENT_ID = "session-data";
export const VIEW_ELEMENT_ID = "session-view";

/** The view options page.ts embeds. */
export interface ViewOptions {
	/** The entry shown first: the session's leaf, or the one `--leaf` chose. */
	leafId: string | null;
	/** The version of the session as it was stored (the records are always version 3). */
	fileVersion: number;
	/** The view options of a page `session-tree serve` serves (checked by live.ts), else absent. */
	server?: Record<string, unknown>;
}

/** The decoded session data. */
export interface SessionData {
	/** The records as JSONL text (what the download link offers). */
	blob: Blob;
	/** The tree, as the core's loader built it (lenient: it never throws). */
	load: LoadResult;
	/** Lines that were not JSON (none in a page that session-tree wrote). */
	unreadable: number;
	/** The records read, header first (a served page adds what is appended and loads them again). */
	lines: ParsedLine[];
}

/** The text of an embedded element, without white space (base64 may be wrapped). */
function embedded(id: string): string {
	const node = document.getElementById(id);
	if (!node) throw new Error(`the page has no #${id} element`);
	return (node.textContent ?? "").replace(/\s+/g, "");
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
				...(isObject(value.server) ? { server: value.server } : {}),
			};
		}
	} catch {
		// Fall through to the defaults: the session's own leaf.
	}
	return { leafId: null, fileVersion: 3 };
}

/** Decodes the embedded records and builds the tree. */
export async function readSessionData(): Promise<SessionData> {
	const compressed = base64Bytes(embedded(DATA_ELEMENT_ID));
	const stream = new Blob([compressed]).stream().pipeThrough(new DecompressionStream("gzip"));
	// Bytes, decoded here: a Blob read back as text would cross to the browser's process and back.
	const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
	const text = new TextDecoder().decode(bytes);
	const jsonl = new Blob([bytes], { type: "application/x-ndjson" });
	performance.mark("session-tree:decoded");
	const lines: ParsedLine[] = [];
	let unreadable = 0;
	let start = 0;
	let number = 0;
	while (start < text.length) {
		let end = text.indexOf("\n", start);
		if (end < 0) end = text.length;
		number++;
		const line = text.slice(start, end);
		start = end + 1;
		if (line.trim() === "") continue;
		try {
			const record: unknown = JSON.parse(line);
			if (isObject(record)) lines.push({ line: number, record: record as RawRecord });
			else unreadable++;
		} catch {
			unreadable++;
		}
	}
	performance.mark("session-tree:parsed");
	const load = loadTree(lines, { lenient: true, file: "session" });
	performance.mark("session-tree:loaded");
	return { blob: jsonl, load, unreadable, lines };
}
