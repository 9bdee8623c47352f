/**
 * Looking for the `"parentId":` key in a file's bytes: what the file store checks before it
 * reads a line's envelope (core/envelope.ts), since two records glued on one line have two.
 */

import { startsWithAt } from "../core/envelope.js";

/** The marker that starts the envelope of a record; a line holds it once unless records are glued. */
export const PARENT_MARKER = Buffer.from('"parentId":');

/** The `I` of {@link PARENT_MARKER}: its rarest byte in JSON text, where the search starts. */
const MARKER_I = 0x49;
const MARKER_I_AT = PARENT_MARKER.indexOf(MARKER_I);
/** Capital I's that may be looked at before the search looks for the whole marker instead. */
const MAX_I_MISSES = 16;

/**
 * Where the next {@link PARENT_MARKER} starts at or after `from`, or -1: as
 * `buf.indexOf(PARENT_MARKER, from)`, but it jumps from one capital `I` to the next (a `memchr`,
 * several times faster than the search for the whole marker) as long as there are few of them.
 */
export function indexOfParentMarker(buf: Buffer, from: number): number {
	let misses = 0;
	for (let i = buf.indexOf(MARKER_I, from + MARKER_I_AT); i !== -1; i = buf.indexOf(MARKER_I, i + 1)) {
		const at = i - MARKER_I_AT;
		if (startsWithAt(buf, at, buf.length, PARENT_MARKER)) return at;
		// Text full of capital I's (base64, say): every marker not looked at yet starts after `at`.
		if (++misses === MAX_I_MISSES) return buf.indexOf(PARENT_MARKER, at + 1);
	}
	return -1;
}
