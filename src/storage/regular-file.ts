/**
 * The one check before session-tree reads a path it was given: it must be a regular file (or a
 * symbolic link to one). Anything else is refused before a byte is read: the open of a FIFO
 * (named pipe) blocks until someone writes to it, forever if nobody does; `/dev/zero` and
 * `/dev/urandom` never end; a socket cannot be opened at all. None of them holds a session.
 *
 * Paths are opened with `O_NONBLOCK` and the descriptor's own `fstat` decides, so even a FIFO
 * put at the path after a check cannot block the open (on a regular file the flag changes
 * nothing: its reads never wait).
 */

import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats, statSync } from "node:fs";
import { SessionTreeError } from "../core/errors.js";

/** What a file that is not regular is, in words ("a FIFO (named pipe)"). */
function kindOf(stats: Stats): string {
	if (stats.isFIFO()) return "a FIFO (named pipe)";
	if (stats.isCharacterDevice()) return "a character device";
	if (stats.isBlockDevice()) return "a block device";
	if (stats.isSocket()) return "a socket";
	return "a special file";
}

/**
 * The error for a path that is not a regular file: INVALID_ARGUMENT, naming the file and what
 * it is. A directory gets the IO_ERROR a read of it always got ("cannot read: is a directory
 * (EISDIR)"), which the CLI words as "is a directory, not a session file (session-tree ls DIR …)".
 */
function notRegular(path: string, stats: Stats): SessionTreeError {
	if (stats.isDirectory())
		return new SessionTreeError("IO_ERROR", "cannot read: is a directory (EISDIR)", { file: path });
	return new SessionTreeError(
		"INVALID_ARGUMENT",
		`is ${kindOf(stats)}, not a regular file: session-tree reads only regular files (or symbolic links to one); nothing was read`,
		{ file: path },
	);
}

/** Throws (see {@link notRegular}) unless `stats` are those of a regular file. */
export function requireRegular(path: string, stats: Stats): void {
	if (!stats.isFile()) throw notRegular(path, stats);
}

/**
 * Opens `path` (links followed) without ever blocking, and returns the descriptor with its
 * stats; a path that is not a regular file is closed again and refused (see {@link notRegular}).
 * The open's own errors (ENOENT, EACCES, …) are thrown as Node gives them, for the caller to word.
 * @param flags `O_RDONLY` by default; `O_NONBLOCK` is added
 */
export function openRegularFile(path: string, flags: number = constants.O_RDONLY): { fd: number; stats: Stats } {
	let fd: number;
	try {
		fd = openSync(path, flags | constants.O_NONBLOCK);
	} catch (error) {
		// A socket cannot be opened (ENXIO), nor a FIFO for writing without a reader: say what it is.
		const stats = statOrUndefined(path);
		if (stats && !stats.isFile() && !stats.isDirectory()) throw notRegular(path, stats);
		throw error;
	}
	let stats: Stats;
	try {
		stats = fstatSync(fd);
		requireRegular(path, stats);
	} catch (error) {
		closeSync(fd);
		throw error;
	}
	return { fd, stats };
}

/** The whole of a regular file (see {@link openRegularFile}): `readFileSync` for a path someone gave. */
export function readRegularFile(path: string): Buffer {
	const { fd } = openRegularFile(path);
	try {
		return readFileSync(fd);
	} finally {
		closeSync(fd);
	}
}

/**
 * Throws (see {@link notRegular}) when something that is not a regular file is at `path`
 * (links followed); nothing there, or a path that cannot be seen, is left to the open that
 * follows. For a path handed to code that opens it itself (SQLite).
 */
export function refuseIfNotRegular(path: string): void {
	const stats = statOrUndefined(path);
	if (stats) requireRegular(path, stats);
}

/** True for a path that is a regular file or a link to one; false for anything else, or nothing. */
export function isRegularFile(path: string): boolean {
	return statOrUndefined(path)?.isFile() === true;
}

/** The stats of a path, links followed; undefined when there is nothing to see (or it cannot be seen). */
function statOrUndefined(path: string): Stats | undefined {
	try {
		return statSync(path);
	} catch {
		return undefined;
	}
}
