/**
 * What the importers of JSONL sources (Claude Code transcripts, Codex rollouts) share: reading
 * a source line by line (from a text, or a file in chunks: source-lines.ts), with errors that name the source, the line and the field; the lines'
 * timestamps; and a file's base name. Ids, session ids and JSON helpers for every importer are in `common.ts`.
 */

import { SessionTreeError } from "../core/errors.js";
import { nestingProblem } from "../core/nesting.js";
import type { Json } from "./common.js";
import { textLines } from "./source-lines.js";
import type { ImportSkip, ImportSource, SourceName } from "./types.js";

/** One JSON object of a JSONL source with its 1-based line number. */
export interface JsonLine {
	readonly n: number;
	readonly record: Json;
}

/**
 * The objects of a JSONL source, blank lines left out. A line that is not JSON, or not an
 * object, throws `INVALID_JSON` / `INVALID_RECORD` naming the source and the line; only an
 * incomplete last line (no final newline: the agent was still writing it) is left out, and
 * reported in `skipped`. With `source.lenient`, such a line is reported in `skipped` too and
 * returned in `invalid` (its text), so that an importer can keep it as an entry.
 */
export function readJsonLines(source: ImportSource): {
	lines: JsonLine[];
	skipped: ImportSkip[];
	invalid: InvalidLine[];
} {
	const reader = new JsonLineReader(source);
	const lines: JsonLine[] = [];
	for (const line of textLines(source.text).scan()) {
		const record = reader.accept(line);
		if (record) lines.push({ n: line.n, record });
	}
	return { lines, skipped: reader.skipped, invalid: reader.invalid };
}

/**
 * The JSON object of each line of a source, checked as {@link readJsonLines} says, one line at
 * a time: what reads a source line by line (a file too large to hold as one string) and what
 * reads it whole make the same objects and the same errors.
 */
export class JsonLineReader {
	readonly skipped: ImportSkip[] = [];
	readonly invalid: InvalidLine[] = [];

	constructor(private readonly source: SourceName) {}

	/** The line's object; undefined for a blank line or one left out (reported in `skipped`). */
	accept(line: { readonly n: number; readonly text: string; readonly terminated: boolean }): Json | undefined {
		const raw = line.text.endsWith("\r") ? line.text.slice(0, -1) : line.text;
		if (raw.trim() === "") return undefined;
		let value: unknown;
		try {
			value = JSON.parse(raw);
		} catch (cause) {
			if (!line.terminated) {
				this.skipped.push({
					source: this.source.name,
					where: String(line.n),
					reason: "an incomplete last line (no final newline: the file was still being written)",
				});
				return undefined;
			}
			const why = cause instanceof Error ? cause.message : String(cause);
			return this.bad(line.n, raw, "INVALID_JSON", `the line is not valid JSON (${why})`);
		}
		if (typeof value !== "object" || value === null || Array.isArray(value)) {
			const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
			return this.bad(line.n, raw, "INVALID_RECORD", `expected a JSON object, found ${kind}`);
		}
		// The limit of every record read (see core/nesting.ts): what is made of the line nests as deep.
		const deep = nestingProblem(raw, value);
		if (deep) return this.bad(line.n, raw, "INVALID_RECORD", `the line is ${deep}`);
		return value as Json;
	}

	/** A line that is no JSON object: an error, or with `lenient` a report and the line's text kept. */
	private bad(n: number, raw: string, code: "INVALID_JSON" | "INVALID_RECORD", message: string): undefined {
		if (!this.source.lenient) throw new SessionTreeError(code, message, { file: this.source.name, line: n });
		this.skipped.push({ source: this.source.name, where: String(n), reason: message });
		this.invalid.push({ n, text: raw, reason: message });
		return undefined;
	}
}

/** A line of a JSONL source that a lenient read could not take as a JSON object: its number, text and why. */
export interface InvalidLine {
	readonly n: number;
	readonly text: string;
	readonly reason: string;
}

/** An `INVALID_RECORD` error naming the source, the line and the field. */
export function fieldError(source: SourceName, line: number, field: string, problem: string): SessionTreeError {
	return new SessionTreeError("INVALID_RECORD", `field \`${field}\`: ${problem}`, { file: source.name, line });
}

/** The file name of `name` without directories and without `.jsonl`. */
export function baseName(name: string): string {
	const file = name.split(/[/\\!]/).at(-1) ?? name;
	return file.replace(/\.jsonl$/i, "");
}

/**
 * A line's ISO timestamp: the string when it is a date, undefined when absent. Anything else
 * throws, unless the source is lenient and the caller passes `skipped`: then the problem is
 * reported there (naming the line and the field) and the result is undefined, so the caller
 * falls back on the previous line's time.
 */
export function lineTimestamp(
	source: SourceName,
	line: JsonLine,
	value: unknown,
	field: string,
	skipped?: ImportSkip[],
): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string" || Number.isNaN(Date.parse(value))) {
		const problem = `${JSON.stringify(value)} is not an ISO 8601 date`;
		if (source.lenient === true && skipped) {
			skipped.push({
				source: source.name,
				where: String(line.n),
				reason: `field \`${field}\`: ${problem}; the previous line's time is used`,
			});
			return undefined;
		}
		throw fieldError(source, line.n, field, problem);
	}
	return value;
}
