/**
 * The JSONL codec: one record per line. Only `\n` ends a line: U+2028/U+2029, NEL and `\r`
 * inside strings are data (JSON.stringify writes U+2028 raw), and a `\r` before the `\n` is
 * JSON white space, so CRLF files parse too.
 *
 * A line that is not one JSON object is not thrown away: {@link parseLine} tries to salvage
 * what a crash typically leaves (NUL padding, two records glued together, a torn record glued
 * to a whole one) and says what it did, so a lenient load can keep the records and a strict
 * load can name the line.
 */

import { SessionTreeError } from "../core/errors.js";
import { unreadableEntry } from "../core/lazy.js";
import { MAX_NESTING, stringifyNested } from "../core/nesting.js";
import type { EntryRecord, ParsedLine, RawRecord } from "../core/records.js";
import { isEntryRecord, isRawRecord, parseRecord, recordName } from "../core/validate.js";

/**
 * The text of a record's line, newline included.
 * @param location the session's, for the error
 * @throws SessionTreeError INVALID_ARGUMENT for a record nested deeper than {@link MAX_NESTING}
 */
export function encodeRecord(record: object, location?: string): string {
	return `${recordJson(record, location)}\n`;
}

/**
 * The bytes of records' lines (newlines included), with `prefix` (a newline or nothing)
 * first. Each JSON text is encoded straight into the buffer: no second string with the newline
 * appended, no joined text of the batch, is made and flattened (for a 1 KB message that is most
 * of what an append allocates; for a batch of an import, a copy of all of it).
 * @param location the session's, for the error
 * @throws SessionTreeError INVALID_ARGUMENT for a record nested deeper than {@link MAX_NESTING}
 *   (before anything is written: the caller writes the bytes returned)
 */
export function encodeRecords(records: readonly object[], prefix: "" | "\n" = "", location?: string): Buffer {
	const texts = records.map((record) => recordJson(record, location));
	let size = prefix.length + texts.length;
	for (const text of texts) size += Buffer.byteLength(text);
	// One buffer the size of every line, each text encoded into it: no joined copy of the batch.
	const bytes = Buffer.allocUnsafe(size);
	let at = 0;
	if (prefix.length === 1) bytes[at++] = 0x0a;
	for (const text of texts) {
		at += bytes.write(text, at);
		bytes[at++] = 0x0a;
	}
	return bytes;
}

/**
 * `JSON.stringify(record)`, refusing a record that readers would refuse: nested deeper than
 * {@link MAX_NESTING} levels (see `nesting.ts`). A text no longer than twice the limit, or with
 * few brackets, is not walked, so an ordinary append pays one comparison.
 */
function recordJson(record: object, location: string | undefined): string {
	const encoded = stringifyNested(record);
	if (encoded.problem !== undefined) throw notWritable(record, encoded.problem, location);
	return encoded.json;
}

function notWritable(record: object, problem: string, location: string | undefined): SessionTreeError {
	const name = isRawRecord(record) ? recordName(record) : "the record";
	return new SessionTreeError("INVALID_ARGUMENT", `cannot write ${name}: it is ${problem}; nothing was written`, {
		file: location,
	});
}

/** True for a line that holds only white space (pi skips those). */
export function isBlankLine(text: string): boolean {
	return text.trim() === "";
}

/** True for a line of NUL bytes (and white space): space a crash left unwritten. */
export function isNulPadding(text: string): boolean {
	return text.includes("\0") && text.replace(/[\0\s]/g, "") === "";
}

/** How many record starts one damaged line is searched for; bounds the work on a bad line. */
const MAX_SALVAGE_STARTS = 64;

/**
 * Parses one line. Never throws: a bad line comes back with `error` set, naming the line, and
 * with `salvaged` records when some could be recovered from it.
 * @param text the line without its `\n`
 * @param line 1-based line number
 */
export function parseLine(text: string, line: number, file?: string): ParsedLine {
	const parsed = parseRecord(text);
	if (parsed.record) return { line, record: parsed.record };
	const where = { file, line };
	if (parsed.tooDeep) {
		// An entry nested too deep keeps its place in the tree, as an unreadable lazy body does.
		const error = new SessionTreeError("INVALID_RECORD", parsed.reason, where);
		// A stub is a plain object of the entry's envelope fields: a record like any other.
		const stub = isEntryRecord(parsed.tooDeep) ? [unreadableEntry(parsed.tooDeep) as EntryRecord] : [];
		return { line, error, salvaged: stub };
	}
	if (isNulPadding(text)) {
		return {
			line,
			error: new SessionTreeError("NUL_PADDING", `${text.length} NUL bytes instead of a record`, where),
			salvaged: [],
		};
	}
	const withoutNul = text.includes("\0") ? text.replace(/\0/g, "") : text;
	if (withoutNul !== text) {
		const retry = parseRecord(withoutNul);
		if (retry.record) {
			return {
				line,
				error: new SessionTreeError("NUL_PADDING", "NUL bytes around a record", where),
				salvaged: [retry.record],
			};
		}
	}
	const pieces = salvageObjects(withoutNul);
	if (pieces.length > 0) {
		const what =
			pieces.length > 1
				? `${pieces.length} records glued on one line`
				: "a damaged record followed by a whole one on one line";
		return { line, error: new SessionTreeError("GLUED_RECORDS", what, where), salvaged: pieces };
	}
	return { line, error: new SessionTreeError("INVALID_JSON", `${parsed.reason}: ${preview(text)}`, where) };
}

/**
 * True when {@link parseLine} found one whole JSON object on the line: a record, or one
 * refused for nesting too deep (`INVALID_RECORD`, the only code it gives a whole object). A last
 * line without a newline that is whole was written whole; anything else there is a torn append.
 */
export function isWholeLine(parsed: ParsedLine): boolean {
	return parsed.record !== undefined || parsed.error?.code === "INVALID_RECORD";
}

/**
 * Whole JSON objects with a `type` found in a damaged line, left to right. Candidates start
 * where a record would (`{"type":`); each is cut at its matching brace (string-aware), parsed,
 * and kept if it is an object. At most {@link MAX_SALVAGE_STARTS} starts are tried.
 */
function salvageObjects(text: string): RawRecord[] {
	const found: RawRecord[] = [];
	let from = 0;
	for (let tries = 0; tries < MAX_SALVAGE_STARTS; tries++) {
		const start = text.indexOf('{"type":', from);
		if (start < 0) break;
		const end = matchingBrace(text, start);
		if (end < 0) {
			from = start + 1;
			continue;
		}
		const parsed = parseRecord(text.slice(start, end + 1));
		if (parsed.record && typeof parsed.record.type === "string") {
			found.push(parsed.record);
			from = end + 1;
		} else {
			from = start + 1;
		}
	}
	return found;
}

/** Index of the `}` that closes the object opening at `start`, or -1. */
function matchingBrace(text: string, start: number): number {
	let depth = 0;
	let inString = false;
	for (let i = start; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (inString) {
			if (c === 0x5c)
				i++; // backslash: skip the escaped character
			else if (c === 0x22) inString = false;
		} else if (c === 0x22) {
			inString = true;
		} else if (c === 0x7b) {
			depth++;
		} else if (c === 0x7d) {
			depth--;
			if (depth === 0) return i;
		}
	}
	return -1;
}

function preview(text: string): string {
	const flat = text.replace(/\s+/g, " ");
	return flat.length > 60 ? `${flat.slice(0, 60)}…` : flat;
}
