/**
 * What the Claude Code and Codex importers share: reading a JSONL source line by line with
 * errors that name the source, the line and the field; deterministic entry ids; and UUIDs
 * derived from a seed.
 */

import { SessionTreeError } from "../core/errors.js";
import { derivedEntryId } from "../core/ids.js";
import type { ImportSkip, ImportSource } from "./types.js";

/** One JSON object of a JSONL source with its 1-based line number. */
export interface JsonLine {
	readonly n: number;
	readonly record: Record<string, unknown>;
}

/**
 * The objects of a JSONL source, blank lines left out. A line that is not JSON, or not an
 * object, throws `INVALID_JSON` / `INVALID_RECORD` naming the source and the line; only an
 * incomplete last line (no final newline: the agent was still writing it) is left out, and
 * reported in `skipped`.
 */
export function readJsonLines(source: ImportSource): { lines: JsonLine[]; skipped: ImportSkip[] } {
	const text = source.text.startsWith("\uFEFF") ? source.text.slice(1) : source.text;
	const parts = text.split("\n");
	const lines: JsonLine[] = [];
	const skipped: ImportSkip[] = [];
	parts.forEach((part, index) => {
		const raw = part.endsWith("\r") ? part.slice(0, -1) : part;
		if (raw.trim() === "") return;
		const n = index + 1;
		let value: unknown;
		try {
			value = JSON.parse(raw);
		} catch (cause) {
			if (index === parts.length - 1) {
				skipped.push({
					source: source.name,
					where: String(n),
					reason: "an incomplete last line (no final newline: the file was still being written)",
				});
				return;
			}
			const why = cause instanceof Error ? cause.message : String(cause);
			throw new SessionTreeError("INVALID_JSON", `the line is not valid JSON (${why})`, { file: source.name, line: n });
		}
		if (typeof value !== "object" || value === null || Array.isArray(value)) {
			const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
			throw new SessionTreeError("INVALID_RECORD", `expected a JSON object, found ${kind}`, {
				file: source.name,
				line: n,
			});
		}
		lines.push({ n, record: value as Record<string, unknown> });
	});
	return { lines, skipped };
}

/** An `INVALID_RECORD` error naming the source, the line and the field. */
export function fieldError(source: ImportSource, line: number, field: string, problem: string): SessionTreeError {
	return new SessionTreeError("INVALID_RECORD", `field \`${field}\`: ${problem}`, { file: source.name, line });
}

/** Entry ids derived from seeds, unique within one import (see {@link derivedEntryId}). */
export class DerivedIds {
	private readonly taken = new Set<string>();

	/** The id for `seed`; seeds must be given in source order so a grown source keeps old ids. */
	make(seed: string): string {
		const id = derivedEntryId(seed, (candidate) => this.taken.has(candidate));
		this.taken.add(id);
		return id;
	}
}

/** A UUID (version 8, RFC 9562: custom) derived from `seed`, the same every time. */
export function derivedUuid(seed: string): string {
	let hex = "";
	for (let i = 0; i < 4; i++) hex += derivedEntryId(`${seed}/${i}`, () => false);
	const variant = "89ab"[Number.parseInt(hex.charAt(16), 16) & 3];
	hex = `${hex.slice(0, 12)}8${hex.slice(13, 16)}${variant}${hex.slice(17)}`;
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The file name of `name` without directories and without `.jsonl`. */
export function baseName(name: string): string {
	const file = name.split(/[/\\!]/).at(-1) ?? name;
	return file.replace(/\.jsonl$/i, "");
}

/** A line's ISO timestamp: the string when it is a date, undefined when absent; anything else throws. */
export function lineTimestamp(source: ImportSource, line: JsonLine, value: unknown, field: string): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string" || Number.isNaN(Date.parse(value))) {
		throw fieldError(source, line.n, field, `${JSON.stringify(value)} is not an ISO 8601 date`);
	}
	return value;
}
