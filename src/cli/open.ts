/** Opening session files for the commands, and checks on entry ids given by users. */

import { isSessionTreeError } from "../core/errors.js";
import { Session } from "../session.js";
import { startsAsPiSession } from "../storage/lines.js";
import { schemeOf } from "../storage/locations.js";
import type { CliIO } from "./args.js";

/**
 * Opens a session (a path or any store location). With `lenient`, problems the loader worked around are printed to stderr
 * as warnings (`session-tree: warning: FILE:LINE: message`).
 *
 * A file that holds another agent's history (a ChatGPT or Open WebUI export, a Claude Code or
 * Codex transcript; `FILE#ID` for one conversation of several) is imported in memory and opened
 * read-only: every write fails, saying to `session-tree import` it first. A pi session costs
 * one small read more: a file whose first line is no session header (see
 * {@link startsAsPiSession}) has its first 64 KiB looked at before it is read as a session,
 * so that another agent's file is not read whole as a session first (that cost about twice the
 * file in memory before failing); a lenient open, which would read it as a damaged session,
 * always looks first.
 */
export async function openSession(
	location: string,
	io: CliIO,
	lenient = false,
	load: "all" | "context" = "all",
): Promise<Session> {
	const plainPath = schemeOf(location) === undefined;
	if (plainPath && (lenient || !startsAsPiSession(location))) {
		const foreign = await openForeign(location, io, lenient, true);
		if (foreign) return foreign;
	}
	// A lenient open is for a damaged file: check every body now, so all problems show up front.
	const open = (at: string) => Session.open(at, { lenient, verify: lenient, load });
	let session: Session;
	try {
		session = await open(location);
	} catch (error) {
		const candidate =
			plainPath &&
			(isSessionTreeError(error, "INVALID_HEADER") ||
				(isSessionTreeError(error, "FILE_NOT_FOUND") && location.includes("#")));
		const foreign = candidate ? await openForeign(location, io, lenient, false) : undefined;
		if (foreign) return foreign;
		session = await reopen(location, error, open);
	}
	printProblems(session, io);
	return session;
}

/**
 * After a failed open: a store's session by a unique prefix of its id (or, for a store URL, the
 * sessions it holds listed), else the failure in plain words (a directory, a file that is no
 * session, …). Never returns for a path.
 */
async function reopen(location: string, error: unknown, open: (at: string) => Promise<Session>): Promise<Session> {
	// Both modules are loaded only now: a session that opens pays for neither.
	if (schemeOf(location) === undefined) throw (await import("./open-errors.js")).explainPathError(location, error);
	if (!isSessionTreeError(error, "FILE_NOT_FOUND")) throw error;
	const full = await (await import("../catalog/session-location.js")).resolveSessionPrefix(location);
	if (full === undefined || full === location) throw error;
	return open(full);
}

/** Prints what a lenient open worked around, as warnings (the CLI's and the REPL's opens alike). */
export function printProblems(session: Session, io: Pick<CliIO, "err">): void {
	const where = session.location;
	for (const problem of session.problems) {
		const location = problem.line === undefined ? where : `${where}:${problem.line}`;
		io.err(`session-tree: warning: ${location}: ${problem.message}\n`);
	}
}

/**
 * Opens a session for a command that writes to it (`command` names the command in the
 * refusal). Another agent's file is refused up front, before anything of it is imported or
 * written (NOT_WRITABLE, naming its format and `session-tree import`); the test of the format
 * is the one {@link openSession} makes: a lenient open, or one of a file whose first line is no
 * session header, looks at the file's start first; else only once the file fails to open as a
 * pi session.
 * @throws SessionTreeError NOT_WRITABLE for another agent's file; the open's errors otherwise
 */
export async function openSessionToWrite(
	location: string,
	io: CliIO,
	command: string,
	lenient = false,
): Promise<Session> {
	const plainPath = schemeOf(location) === undefined;
	if (plainPath && (lenient || !startsAsPiSession(location))) await refuseForeign(location, command);
	let session: Session;
	const open = (at: string) => Session.open(at, { lenient, verify: lenient });
	try {
		session = await open(location);
	} catch (error) {
		if (plainPath && isSessionTreeError(error)) await refuseForeign(location, command);
		session = await reopen(location, error, open);
	}
	printProblems(session, io);
	return session;
}

/**
 * Throws the refusal of a write to another agent's file when `location` is one (see
 * {@link openSessionToWrite}); does nothing for a pi session or any other file.
 */
export async function refuseForeign(location: string, command: string): Promise<void> {
	if (schemeOf(location) !== undefined) return;
	// Loaded only here: a pi session that opens never loads the importers.
	const { foreignFormatOf, refuseForeignWrite } = await import("../import/open-foreign.js");
	let format: ReturnType<typeof foreignFormatOf>;
	try {
		format = foreignFormatOf(location);
	} catch {
		// Unreadable (a directory, no such file): not another agent's file; the open's own error says what it is.
		return;
	}
	if (format !== undefined) throw refuseForeignWrite(location, format, command);
}

/**
 * The session of a foreign file (see {@link openSession}), or undefined when the file is not
 * one; `sniffFirst` looks at the start of the file before reading it whole.
 */
async function openForeign(
	location: string,
	io: CliIO,
	lenient: boolean,
	sniffFirst: boolean,
): Promise<Session | undefined> {
	// Loaded only here: opening a pi session never loads the importers.
	const { openForeignFile, sniffFile } = await import("../import/open-foreign.js");
	if (sniffFirst) {
		const kind = sniffFile(location);
		if (kind === undefined || kind === "pi") return undefined;
	}
	const found = await openForeignFile(location, { lenient });
	if (!found) return undefined;
	for (const skip of found.skipped) {
		const where = skip.where === "" ? "" : `${skip.where}: `;
		io.err(`session-tree: warning: ${skip.source}: ${where}${skip.reason}\n`);
	}
	return found.session;
}

/**
 * The full id for an id given on the command line, which may be abbreviated to any unique
 * prefix (as git accepts abbreviated hashes).
 * @throws SessionTreeError ENTRY_NOT_FOUND or AMBIGUOUS_ID (listing the candidates), naming the file
 */
export function resolveEntryId(session: Session, idOrPrefix: string): string {
	return session.resolveId(idOrPrefix);
}
