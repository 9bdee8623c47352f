/**
 * Opening another agent's history file as a session, read-only, for the read commands (`tree`,
 * `ctx`, `path`, `leaves`, `info`, `html`, …): the file is imported in memory and nothing is
 * written. A file that holds several conversations (a ChatGPT `conversations.json`) is opened
 * one conversation at a time, named as `FILE#ID` (the conversation's id, a prefix of the
 * session id, or its 1-based position).
 */

import { closeSync, readSync } from "node:fs";
import type { SessionTreeError } from "../core/errors.js";
import { Session } from "../session.js";
import { isRegularFile, openRegularFile, readRegularFile } from "../storage/regular-file.js";
import {
	chooseSession,
	holdRecords,
	importText,
	openImported,
	type SourceKind,
	sniffFormat,
	sourceIdOfSession,
} from "./index.js";
import { foreignWriteError, ImportedSessionStore } from "./read-only.js";
import { decodeText, isZip, startsLikeZip, zipSources } from "./sources.js";
import type { ImportedSession, ImportFormat, ImportSkip } from "./types.js";

/** A foreign file opened as a session. */
export interface ForeignSession {
	session: Session;
	format: ImportFormat;
	/** What the import left out or worked around (printed as warnings). */
	skipped: readonly ImportSkip[];
}

/** The file and the session selector of `FILE` or `FILE#ID`, or undefined when no such file exists. */
function splitLocation(location: string): { path: string; selector: string | undefined } | undefined {
	if (isRegularFile(location)) return { path: location, selector: undefined };
	const hash = location.lastIndexOf("#");
	if (hash > 0 && isRegularFile(location.slice(0, hash))) {
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
		fd = openRegularFile(found.path).fd;
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
 * The foreign format of the file `location` names (a file, or `FILE#ID`), told from its first
 * 64 KiB as {@link sniffFile} tells it; undefined for a pi session, a file of no known format,
 * or no file. This is what decides, for every command, that a file is another agent's.
 */
export function foreignFormatOf(location: string): ImportFormat | undefined {
	const kind = sniffFile(location);
	return kind === undefined || kind === "pi" ? undefined : kind;
}

/**
 * The error a command that would write to another agent's file gets, before it reads more of
 * it: the file is named with its format, and `session-tree import` is the way on.
 */
export function refuseForeignWrite(location: string, format: ImportFormat, command?: string): SessionTreeError {
	const path = splitLocation(location)?.path ?? location;
	// A fork or clone writes a new file next to it, a session of session-tree's own: the import's.
	const what =
		command === undefined
			? "be written to"
			: command === "fork" || command === "clone"
				? `be forked or cloned (\`session-tree ${command}\`)`
				: `be changed by \`session-tree ${command}\``;
	return foreignWriteError(format, path, location, what);
}

/** Another agent's file, imported in memory: every session it holds. */
export interface ForeignFile {
	/** The file itself (without `#ID`). */
	path: string;
	/** The `ID` of `FILE#ID`, if given. */
	selector: string | undefined;
	format: ImportFormat;
	sessions: ImportedSession[];
}

/**
 * Imports the file `location` names (a file, or `FILE#ID`) in memory, if it holds another
 * agent's history; undefined when it is not a file or not of a format session-tree imports.
 * Nothing is written. A ZIP (a ChatGPT export) gives the sessions of every member of a known format.
 * @throws SessionTreeError when the file is of such a format but broken (strict import)
 */
export async function importForeignFile(
	location: string,
	options: { lenient?: boolean } = {},
): Promise<ForeignFile | undefined> {
	const found = splitLocation(location);
	if (!found) return undefined;
	const { path, selector } = found;
	const lenient = options.lenient === true;
	// An archive is read member by member, within the ZIP limits (zip.ts), never whole.
	if (startsLikeZip(path)) {
		let format: ImportFormat = "chatgpt";
		const sessions: ImportedSession[] = [];
		for (const member of zipSources(path)) {
			const text = member.read();
			const kind = sniffFormat(text);
			if (kind === undefined || kind === "pi") continue;
			format = kind;
			sessions.push(...(await importText(text, member.name, { from: kind, lenient })));
		}
		return { path, selector, format, sessions };
	}
	const text = decodeText(readRegularFile(path));
	const kind = sniffFormat(text);
	if (kind === undefined || kind === "pi") return undefined;
	return { path, selector, format: kind, sessions: await importText(text, path, { from: kind, lenient }) };
}

/** How a session of a foreign file is shown: the file, or `FILE#ID` when the file holds several. */
export function foreignLocation(file: ForeignFile, chosen: ImportedSession): string {
	return file.sessions.length > 1 ? `${file.path}#${sourceIdOfSession(chosen) ?? chosen.header.id}` : file.path;
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
	const streamed = await openStreamed(found.path, found.selector, options.lenient === true);
	if (streamed) return streamed;
	const file = await importForeignFile(location, options);
	if (!file) return undefined;
	const chosen = chooseSession(file.sessions, file.selector, file.path);
	const session = await openImported(chosen, foreignLocation(file, chosen), {
		lenient: options.lenient === true,
		file: file.path,
	});
	return { session, format: chosen.format ?? file.format, skipped: chosen.skipped };
}

/**
 * A Claude Code transcript opened read-only without holding it (claude-code-lazy.ts): its
 * lines are read in a stream, and only the envelopes of its entries are kept. Undefined when
 * the file is of another kind (its first lines tell, as they tell an import).
 */
async function openStreamed(
	path: string,
	selector: string | undefined,
	lenient: boolean,
): Promise<ForeignSession | undefined> {
	const { streamTranscriptFile } = await import("./claude-code-lazy.js");
	const streamed = await streamTranscriptFile(path, { lenient });
	if (!streamed) return undefined;
	const { lines, transcript } = streamed;
	try {
		const sessions = transcript
			? [
					{
						format: "claude-code" as const,
						header: transcript.header,
						records: [],
						leafId: transcript.leafId,
						skipped: transcript.skipped,
					},
				]
			: [];
		// One session, named as the import names it (`FILE#ID`: a prefix of its id, or 1).
		chooseSession(sessions, selector, path);
		const { read, records, skipped } = transcript as NonNullable<typeof transcript>;
		const store = ImportedSessionStore.view(path, "claude-code", read, () => lines.close());
		const session = await Session.openStore(store, { lenient });
		holdRecords(session, records);
		return { session, format: "claude-code", skipped };
	} catch (error) {
		lines.close();
		throw error;
	}
}
