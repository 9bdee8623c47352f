/**
 * What a command says when the location it was given is not a session: a directory (`ls`
 * lists it), a file that is neither a pi session nor another agent's history (naming what
 * its first line holds), a store URL without `#ID` or with an unknown prefix (see
 * `resolveSessionPrefix`). Kept apart from open.ts: only a failed open loads it.
 */

import { closeSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { isSessionTreeError, SessionTreeError } from "../core/errors.js";
import { sanitize } from "../render/preview.js";
import { openRegularFile } from "../storage/regular-file.js";

/** How much of the line an error quotes. */
const QUOTED = 60;

/**
 * The error to report for a plain path (no scheme) that failed to open with `error`: a
 * directory (also `DIR#ID`) is named as one, with `session-tree ls DIR`, instead of EISDIR or
 * "no such file"; a file with no session header says what its first line holds; any other error is
 * given back as it is.
 */
export function explainPathError(location: string, error: unknown): unknown {
	const hash = location.indexOf("#");
	const candidates = hash < 0 ? [location] : [location, location.slice(0, hash)];
	for (const candidate of candidates) {
		if (candidate !== "" && isDirectory(candidate)) return directoryError(candidate, error);
	}
	if (isSessionTreeError(error, "INVALID_HEADER")) return notASessionFile(location, error.line ?? 1, error);
	return error;
}

function isDirectory(location: string): boolean {
	return statSync(resolve(location), { throwIfNoEntry: false })?.isDirectory() === true;
}

/** A directory given where a session file was expected. */
function directoryError(location: string, cause: unknown): SessionTreeError {
	return new SessionTreeError(
		"INVALID_ARGUMENT",
		`is a directory, not a session file (session-tree ls ${quoteArg(location)} lists the sessions in it)`,
		{ file: resolve(location) },
		{ cause },
	);
}

/**
 * The error for a file whose first line is not a session header and that no importer
 * recognised: it says so, and what the header's line holds (not JSON, JSON of another shape, empty).
 */
function notASessionFile(location: string, line: number, cause: unknown): SessionTreeError {
	const path = resolve(location);
	const found = describeLine(lineOf(path, line));
	return new SessionTreeError(
		"INVALID_HEADER",
		`not a session file: not a pi session, nor a Claude Code, Codex, Gemini CLI, ChatGPT, Claude.ai or Open WebUI history (this line ${found})`,
		{ file: path, line },
		{ cause },
	);
}

/** Line `line` (1-based) of a file, if it starts in its first 64 KiB; undefined when it cannot be read. */
function lineOf(path: string, line: number): string | undefined {
	let fd: number | undefined;
	try {
		fd = openRegularFile(path).fd;
		const head = Buffer.alloc(65536);
		const read = readSync(fd, head, 0, head.length, 0);
		const text = head
			.subarray(0, read)
			.toString("utf8")
			.replace(/^\uFEFF/, "");
		return text.split(/\r?\n/)[line - 1]?.slice(0, 4096);
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/** What a line holds, as the end of a sentence starting "this line". */
function describeLine(line: string | undefined): string {
	if (line === undefined) return "could not be read";
	if (line.trim() === "") return "is empty";
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch {
		return `is not JSON: ${quote(line)}`;
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		return `is JSON but not an object: ${quote(line)}`;
	}
	const record = value as Record<string, unknown>;
	const keys = Object.keys(record).slice(0, 6);
	const type = typeof record.type === "string" ? ` with type ${quote(record.type)}` : "";
	return `is a JSON object${type} (keys: ${sanitize(keys.join(", ")) || "none"})`;
}

function quote(text: string): string {
	const cut = text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text;
	return JSON.stringify(sanitize(cut));
}

/** An argument as a shell would need it, for a command to copy. */
function quoteArg(text: string): string {
	return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
