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
import type { ParsedLine } from "../core/load.js";
import type { RawRecord } from "../core/migrate.js";
import { parseRecord } from "../core/validate.js";

/** The text of a record's line, newline included. */
export function encodeRecord(record: object): string {
	return `${JSON.stringify(record)}\n`;
}

/**
 * The bytes of records' lines (newlines included), with `prefix` (a newline or nothing)
 * first. The JSON text is encoded straight into the buffer: no second string with the newline
 * appended is made and flattened, which for a 1 KB message is most of what an append allocates.
 */
export function encodeRecords(records: readonly object[], prefix: "" | "\n" = ""): Buffer {
	if (records.length !== 1) return Buffer.from(prefix + records.map(encodeRecord).join(""));
	const json = JSON.stringify(records[0]);
	const start = prefix.length;
	const bytes = Buffer.allocUnsafe(start + Buffer.byteLength(json) + 1);
	if (start === 1) bytes[0] = 0x0a;
	const end = start + bytes.write(json, start);
	bytes[end] = 0x0a;
	return bytes;
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
