/**
 * The JSONL codec: one record per line. Only `\n` ends a line: U+2028/U+2029, NEL and `\r`
 * inside strings are data (JSON.stringify writes U+2028 raw), and a `\r` before the `\n` is
 * JSON white space, so CRLF files parse too.
 */

import { SessionTreeError } from "../core/errors.js";
import type { ParsedLine } from "../core/load.js";
import type { RawRecord } from "../core/migrate.js";

/** The text of a record's line, newline included. */
export function encodeRecord(record: object): string {
	return `${JSON.stringify(record)}\n`;
}

/** True for a line that holds only white space (pi skips those). */
export function isBlankLine(text: string): boolean {
	return text.trim() === "";
}

/**
 * Parses one line. Never throws: a bad line comes back with `error` set, naming the line.
 * @param text the line without its `\n`
 * @param line 1-based line number
 */
export function parseLine(text: string, line: number, file?: string): ParsedLine {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (cause) {
		const reason = cause instanceof Error ? cause.message : String(cause);
		return {
			line,
			error: new SessionTreeError("INVALID_JSON", `not valid JSON (${reason}): ${preview(text)}`, { file, line }),
		};
	}
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
		return {
			line,
			error: new SessionTreeError("INVALID_JSON", `expected a JSON object, found ${kind}`, { file, line }),
		};
	}
	return { line, record: value as RawRecord };
}

function preview(text: string): string {
	const flat = text.replace(/\s+/g, " ");
	return flat.length > 60 ? `${flat.slice(0, 60)}…` : flat;
}
