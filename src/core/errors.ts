/**
 * The one error class of session-tree. `code` is stable and meant for programs; `message` is
 * meant for people and names the file, the line and what is wrong where those are known.
 */

import { maskPasswords } from "./mask.js";

/** Stable error codes. New codes may be added; existing ones keep their meaning. */
export type SessionTreeErrorCode =
	/** A line is not valid JSON, or not an object. */
	| "INVALID_JSON"
	/** A line holds NUL bytes: space a crash left unwritten. */
	| "NUL_PADDING"
	/** Several records (or a torn one and a whole one) share one line. */
	| "GLUED_RECORDS"
	/** The last line is incomplete: an append that never finished. Never fatal. */
	| "TORN_TAIL"
	/** A record lacks a required field or has one of the wrong type. */
	| "INVALID_RECORD"
	/** The first line is missing or is not a session header. */
	| "INVALID_HEADER"
	/** The file holds no lines at all. */
	| "EMPTY_FILE"
	/** The header's version is newer than this library understands. */
	| "UNSUPPORTED_VERSION"
	/** An entry names a parent that is not in the file. */
	| "MISSING_PARENT"
	/** Two entries share an id. */
	| "DUPLICATE_ID"
	/** Following parent ids leads back to where it started. */
	| "PARENT_CYCLE"
	/** An id names no entry of the session. */
	| "ENTRY_NOT_FOUND"
	/** An abbreviated id matches several entries. */
	| "AMBIGUOUS_ID"
	/** An argument is out of range or malformed. */
	| "INVALID_ARGUMENT"
	/** The session file does not exist. */
	| "FILE_NOT_FOUND"
	/** The session file already exists where a new one was to be created. */
	| "FILE_EXISTS"
	/** The session cannot be written (in-memory without a file, closed, ...). */
	| "NOT_WRITABLE"
	/** Another process holds the session's write lock and did not release it in time. */
	| "LOCKED"
	/** Other writers kept appending: a write found the session moved on too many times in a row. */
	| "WRITE_CONFLICT"
	/** The session was opened with `load: "context"`: this read needs `await session.load()` first. */
	| "NOT_LOADED"
	/**
	 * The location is not a session-tree store: another program's database or schema (or an
	 * empty file). session-tree neither reads it as sessions nor writes into it.
	 */
	| "NOT_A_STORE"
	/** An operating-system call failed. */
	| "IO_ERROR";

/** Where in a file a problem was found. */
export interface SourceLocation {
	file?: string;
	/** 1-based line number. */
	line?: number;
}

/** The error every session-tree operation throws for a foreseeable failure. */
export class SessionTreeError extends Error {
	readonly code: SessionTreeErrorCode;
	readonly file: string | undefined;
	readonly line: number | undefined;

	constructor(code: SessionTreeErrorCode, message: string, where: SourceLocation = {}, options?: { cause?: unknown }) {
		// Whatever a message was built from, a password in a URL in it is never shown.
		super(maskPasswords(formatMessage(message, where)), options);
		this.name = "SessionTreeError";
		this.code = code;
		this.file = where.file;
		this.line = where.line;
	}
}

function formatMessage(message: string, where: SourceLocation): string {
	if (where.file === undefined) return where.line === undefined ? message : `line ${where.line}: ${message}`;
	return where.line === undefined ? `${where.file}: ${message}` : `${where.file}:${where.line}: ${message}`;
}

/** True when `error` is a {@link SessionTreeError}, optionally with the given code. */
export function isSessionTreeError(error: unknown, code?: SessionTreeErrorCode): error is SessionTreeError {
	return error instanceof SessionTreeError && (code === undefined || error.code === code);
}

/** Plain words for the operating-system error codes people meet (what the code means, not how Node names it). */
const SYSTEM_REASONS: Readonly<Record<string, string>> = {
	ENOENT: "no such file or directory",
	EISDIR: "is a directory",
	ENOTDIR: "a part of the path is not a directory",
	EACCES: "permission denied",
	EPERM: "operation not permitted",
	EEXIST: "exists already",
	ENOSPC: "no space left on the device",
	EROFS: "the file system is read-only",
	EMFILE: "too many open files",
	ENAMETOOLONG: "the name is too long",
	ELOOP: "too many symbolic links",
	EBUSY: "busy",
	ETIMEDOUT: "timed out",
	ECONNREFUSED: "connection refused",
};

/**
 * What an operating-system error (a Node `ErrnoException`) means, in plain words and with its
 * code (`permission denied (EACCES)`); for any other error its message. Meant for messages that
 * name the file themselves, so the path Node puts in its message is left out.
 */
export function describeSystemError(error: unknown): string {
	const code = (error as { code?: unknown } | null)?.code;
	if (typeof code === "string" && Object.hasOwn(SYSTEM_REASONS, code)) return `${SYSTEM_REASONS[code]} (${code})`;
	return error instanceof Error ? error.message : String(error);
}
