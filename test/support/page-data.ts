/**
 * The records an exported page embeds, read back from its HTML the way the page's format says
 * (src/render/html/page.ts): every `<script type="application/gzip+base64" class="session-data">`
 * element in document order, their base64 texts joined, then gunzipped. Written apart from the
 * client's reader (client/data.ts), so that a test holds the two to one format.
 */

import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";

/** The base64 text of each records element of `html`, in order (white space dropped). */
export function embeddedPieces(html: string): string[] {
	const pieces = [
		...html.matchAll(/<script type="application\/gzip\+base64" class="session-data">([^<]*)<\/script>/g),
	].map((match) => (match[1] ?? "").replace(/\s+/g, ""));
	assert.ok(pieces.length > 0, "the page embeds its records (script.session-data)");
	for (const piece of pieces) assert.match(piece, /^[A-Za-z0-9+/]*=*$/, "the embedded records are base64");
	return pieces;
}

/** The embedded records' bytes: the JSONL text, gunzipped. */
export function embeddedRecordBytes(html: string): Buffer {
	return gunzipSync(Buffer.from(embeddedPieces(html).join(""), "base64"));
}

/** The embedded records as JSONL text. */
export function embeddedRecordText(html: string): string {
	return embeddedRecordBytes(html).toString("utf8");
}
