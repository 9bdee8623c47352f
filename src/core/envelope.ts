/**
 * Reading the envelope of a line without parsing the line: `type`, `id`, `parentId`,
 * `timestamp` and, for messages, the role and the message's own timestamp. pi (and
 * session-tree) write `message`, `branch_summary`, `compaction`, `model_change` and
 * `thinking_level_change` entries with these keys first, in this order and without white space,
 * and a message's content right after its role and its timestamp as its last key:
 *
 *     {"type":"message","id":"…","parentId":"…"|null,"timestamp":"…","message":{"role":"…","content":…,"timestamp":1736…}}
 *
 * so they can be read at fixed places from the bytes. A line that does not match exactly is
 * simply parsed as JSON by the caller; nothing here decides what a line means.
 *
 * Pure, over a `Uint8Array`: the stores read files and rows into Buffers, the HTML page its
 * decompressed records (render/html/client/data.ts); both meet one reader.
 */

import { Envelope } from "./tree-node.js";

/** The bytes of an ASCII text. */
function ascii(text: string): Uint8Array {
	const bytes = new Uint8Array(text.length);
	for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
	return bytes;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;

const PREFIX = ascii('{"type":"');
const ID_KEY = ascii('","id":"');
const PARENT_KEY = ascii('","parentId":');
const NULL = ascii("null");
const TIMESTAMP_KEY = ascii(',"timestamp":"');
const ROLE_KEY = ascii('","message":{"role":"');
const CONTENT_KEY = ascii('","content":');
const END_TIMESTAMP_KEY = ascii('"timestamp":');

/** Strings an envelope may hold, with their bytes to compare with. */
type Known = ReadonlyArray<{ text: string; bytes: Uint8Array }>;

function known(texts: readonly string[]): Known {
	return texts.map((text) => ({ text, bytes: ascii(text) }));
}

/** The one of `candidates` that `buf[start, end)` holds, as the shared string, or undefined. */
function oneOf(candidates: Known, buf: Uint8Array, start: number, end: number): string | undefined {
	for (const candidate of candidates) {
		if (end - start === candidate.bytes.length && startsWithAt(buf, start, end, candidate.bytes)) return candidate.text;
	}
	return undefined;
}

/**
 * Entry types whose body may be left unparsed until asked for: messages (the bulk of a file)
 * and the other types pi writes with the envelope first. Labels, session names and `leaf`
 * records are parsed at open, because the tree's state depends on them; custom entries put
 * `customType` first, so they are parsed too.
 */
const LAZY_TYPES = known(["message", "branch_summary", "compaction", "model_change", "thinking_level_change"]);

/**
 * The roles an envelope tells, as shared strings (a million messages do not hold a million
 * copies); another role is left for the parse.
 */
const ROLES = known([
	"user",
	"assistant",
	"toolResult",
	"bashExecution",
	"custom",
	"branchSummary",
	"compactionSummary",
]);

/**
 * A Node.js Buffer's `latin1Slice`, which skips the argument checks of `toString` (the bounds
 * here are always valid); a plain `Uint8Array` (in a browser) has none.
 */
type Latin1Bytes = Uint8Array & { latin1Slice?(start: number, end: number): string };

/**
 * The ASCII bytes `buf[start, end)` as a string. Ids (8 characters in pi's files) and ISO
 * timestamps (24) are made without a call into the runtime, which costs more than the copy
 * (the two calls are spelt out on purpose: a spread or `apply` is slower).
 */
function slice(b: Uint8Array, i: number, end: number): string {
	switch (end - i) {
		case 8:
			return String.fromCharCode(
				b[i] as number,
				b[i + 1] as number,
				b[i + 2] as number,
				b[i + 3] as number,
				b[i + 4] as number,
				b[i + 5] as number,
				b[i + 6] as number,
				b[i + 7] as number,
			);
		case 24:
			return String.fromCharCode(
				b[i] as number,
				b[i + 1] as number,
				b[i + 2] as number,
				b[i + 3] as number,
				b[i + 4] as number,
				b[i + 5] as number,
				b[i + 6] as number,
				b[i + 7] as number,
				b[i + 8] as number,
				b[i + 9] as number,
				b[i + 10] as number,
				b[i + 11] as number,
				b[i + 12] as number,
				b[i + 13] as number,
				b[i + 14] as number,
				b[i + 15] as number,
				b[i + 16] as number,
				b[i + 17] as number,
				b[i + 18] as number,
				b[i + 19] as number,
				b[i + 20] as number,
				b[i + 21] as number,
				b[i + 22] as number,
				b[i + 23] as number,
			);
		default:
			return (b as Latin1Bytes).latin1Slice?.(i, end) ?? String.fromCharCode(...b.subarray(i, end));
	}
}

/** True when `buf[start, end)` holds exactly the characters of `text` (ASCII). */
function bytesEqual(buf: Uint8Array, start: number, end: number, text: string): boolean {
	if (end - start !== text.length) return false;
	// From the end: timestamps that differ mostly differ in their last characters.
	for (let i = text.length - 1; i >= 0; i--) if (buf[start + i] !== text.charCodeAt(i)) return false;
	return true;
}

/** The string of the ASCII bytes `buf[start, end)`: `same` if it holds them (shared), else a new one. */
function text(buf: Uint8Array, start: number, end: number, same: string | undefined): string {
	return same !== undefined && bytesEqual(buf, start, end, same) ? same : slice(buf, start, end);
}

export function startsWithAt(buf: Uint8Array, at: number, end: number, what: Uint8Array): boolean {
	if (at + what.length > end) return false;
	for (let i = 0; i < what.length; i++) if (buf[at + i] !== what[i]) return false;
	return true;
}

/** End (index of the closing quote) of a plain string starting at `from`: no escapes, ASCII only. */
function plainStringEnd(buf: Uint8Array, from: number, end: number): number {
	for (let i = from; i < end; i++) {
		const c = buf[i] as number;
		if (c === QUOTE) return i;
		if (c === BACKSLASH || c < 0x20 || c >= 0x80) return -1;
	}
	return -1;
}

/**
 * The envelope of the line `buf[start, end)` (without its newline), or undefined when the line
 * is not a lazily readable entry in pi's exact layout (then parse it whole). `offset` is the
 * line's position in the file, `line` its 1-based number. `previous` is the envelope of the line
 * before, if it had one: a parent that is its id, and a timestamp equal to its own, are shared
 * with it instead of copied (a chain of a million entries holds one string per id).
 */
export function readEnvelope(
	buf: Uint8Array,
	start: number,
	end: number,
	offset: number,
	line: number,
	previous?: Envelope,
): Envelope | undefined {
	if (end - start < 64 || buf[end - 1] !== CLOSE_BRACE || !startsWithAt(buf, start, end, PREFIX)) return undefined;
	let at = start + PREFIX.length;
	const typeEnd = plainStringEnd(buf, at, end);
	if (typeEnd < 0) return undefined;
	const type = oneOf(LAZY_TYPES, buf, at, typeEnd);
	if (type === undefined || !startsWithAt(buf, typeEnd, end, ID_KEY)) return undefined;
	at = typeEnd + ID_KEY.length;
	const idEnd = plainStringEnd(buf, at, end);
	if (idEnd <= at) return undefined;
	const id = slice(buf, at, idEnd);
	if (!startsWithAt(buf, idEnd, end, PARENT_KEY)) return undefined;
	at = idEnd + PARENT_KEY.length;
	let parentId: string | null;
	if (startsWithAt(buf, at, end, NULL)) {
		parentId = null;
		at += NULL.length;
	} else {
		if (buf[at] !== QUOTE) return undefined;
		const parentEnd = plainStringEnd(buf, at + 1, end);
		if (parentEnd < 0) return undefined;
		parentId = text(buf, at + 1, parentEnd, previous?.id);
		at = parentEnd + 1;
	}
	if (!startsWithAt(buf, at, end, TIMESTAMP_KEY)) return undefined;
	at += TIMESTAMP_KEY.length;
	const timestampEnd = plainStringEnd(buf, at, end);
	if (timestampEnd < 0) return undefined;
	const timestamp = text(buf, at, timestampEnd, previous?.timestamp);
	if (type !== "message") return new Envelope(type, id, parentId, timestamp, undefined, offset, end - start, line);
	let role: string | undefined;
	let endTimestamp: number | undefined;
	if (startsWithAt(buf, timestampEnd, end, ROLE_KEY)) {
		const roleStart = timestampEnd + ROLE_KEY.length;
		const roleEnd = plainStringEnd(buf, roleStart, Math.min(end, roleStart + 32));
		if (roleEnd > roleStart) {
			role = oneOf(ROLES, buf, roleStart, roleEnd);
			if (startsWithAt(buf, roleEnd, end, CONTENT_KEY)) endTimestamp = timestampAtEnd(buf, start, end);
		}
	}
	return new Envelope(type, id, parentId, timestamp, role, offset, end - start, line, endTimestamp);
}

const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Most digits of a timestamp read at the end of a line. */
const MAX_DIGITS = 16;
/** Up to this many digits, adding them up gives exactly the number they spell. */
const EXACT_DIGITS = 15;

/** N of a line `buf[start, end)` that ends with `"timestamp":N}}` (N of 1 to 16 digits), or undefined. */
function timestampAtEnd(buf: Uint8Array, start: number, end: number): number | undefined {
	const digitsEnd = end - 2;
	if (digitsEnd <= start || buf[end - 1] !== CLOSE_BRACE || buf[digitsEnd] !== CLOSE_BRACE) return undefined;
	let digits = digitsEnd;
	let value = 0;
	for (let scale = 1; digits > start && digitsEnd - digits <= MAX_DIGITS; digits--, scale *= 10) {
		const c = buf[digits - 1] as number;
		if (c < DIGIT_0 || c > DIGIT_9) break;
		value += (c - DIGIT_0) * scale;
	}
	const count = digitsEnd - digits;
	const key = digits - END_TIMESTAMP_KEY.length;
	if (count === 0 || count > MAX_DIGITS || key < start || !startsWithAt(buf, key, digits, END_TIMESTAMP_KEY)) {
		return undefined;
	}
	return count > EXACT_DIGITS ? Number(slice(buf, digits, digitsEnd)) : value;
}
