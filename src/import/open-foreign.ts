/**
 * Opening another agent's history file as a session, read-only, for the read commands (`tree`,
 * `ctx`, `path`, `leaves`, `info`, `html`, …): the file is imported in memory and nothing is
 * written. A file that holds several conversations (a ChatGPT `conversations.json`) is opened
 * one conversation at a time, named as `FILE#ID` (the conversation's id, a prefix of the
 * session id, or its 1-based position).
 */

import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import type { Session } from "../session.js";
import { chooseSession, importText, openImported, type SourceKind, sniffFormat, sourceIdOfSession } from "./index.js";
import { decodeText, isZip, zipSources } from "./sources.js";
import type { ImportedSession, ImportFormat, ImportSkip } from "./types.js";

/** A foreign file opened as a session. */
export interface ForeignSession {
	session: Session;
	format: ImportFormat;
	/** What the import left out or worked around (printed as warnings). */
	skipped: readonly ImportSkip[];
}

function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

/** The file and the session selector of `FILE` or `FILE#ID`, or undefined when no such file exists. */
function splitLocation(location: string): { path: string; selector: string | undefined } | undefined {
	if (isFile(location)) return { path: location, selector: undefined };
	const hash = location.lastIndexOf("#");
	if (hash > 0 && isFile(location.slice(0, hash))) {
		return { path: location.slice(0, hash), selector: location.slice(hash + 1) || undefined };
	}
	return undefined;
}

/**
 * What the start of a file holds (see `sniffFormat`), reading at most `bytes` of it: the
 * cheap check a lenient open makes before it would read a foreign file as a damaged session.
 */
export function sniffFile(location: string, bytes = 65536): SourceKind | undefined {
	const found = splitLocation(location);
	if (!found) return undefined;
	let fd: number | undefined;
	try {
		fd = openSync(found.path, "r");
		const head = Buffer.alloc(bytes);
		const read = readSync(fd, head, 0, bytes, 0);
		if (isZip(head.subarray(0, read))) return "chatgpt";
		return sniffFormat(decodeText(head.subarray(0, read)), read === bytes);
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/**
 * Opens `location` (a file, or `FILE#ID`) if it holds another agent's history, read-only; or
 * undefined when it is not a file or not of a format session-tree imports (the caller then
 * reports its own error).
 * @throws SessionTreeError when the file is of such a format but broken, or names no single session
 */
export async function openForeignFile(
	location: string,
	options: { lenient?: boolean } = {},
): Promise<ForeignSession | undefined> {
	const found = splitLocation(location);
	if (!found) return undefined;
	const { path, selector } = found;
	const bytes = readFileSync(path);
	let sessions: ImportedSession[] = [];
	let format: ImportFormat;
	if (isZip(bytes)) {
		format = "chatgpt";
		for (const member of zipSources(path, bytes)) {
			const text = member.read();
			const kind = sniffFormat(text);
			if (kind === undefined || kind === "pi") continue;
			format = kind;
			sessions.push(...(await importText(text, member.name, { from: kind, lenient: options.lenient === true })));
		}
	} else {
		const text = decodeText(bytes);
		const kind = sniffFormat(text);
		if (kind === undefined || kind === "pi") return undefined;
		format = kind;
		sessions = await importText(text, path, { from: kind, lenient: options.lenient === true });
	}
	const chosen = chooseSession(sessions, selector, path);
	const shown = sessions.length > 1 ? `${path}#${sourceIdOfSession(chosen) ?? chosen.header.id}` : path;
	const session = await openImported(chosen, shown, { lenient: options.lenient === true, file: path });
	return { session, format: chosen.format ?? format, skipped: chosen.skipped };
}
