/**
 * The storage interface. The session facade talks only to this, so a database backend can be
 * added without touching its callers. Stores deal in records and lines; they never interpret
 * the tree.
 *
 * Several writers (processes, or sessions in one process) may share a store. A writer takes
 * the lock, reads what the others appended since its cursor, appends, and releases.
 */

import type { LineSource } from "../core/lazy.js";
import type { ParsedLine } from "../core/load.js";
import type { RawRecord } from "../core/migrate.js";

/** A position in a store: everything before it has been read by the holder. Opaque to callers. */
export interface StoreCursor {
	/** Physical lines before the position (for line numbers). */
	readonly lines: number;
	/** Store-specific position (a byte offset for files). */
	readonly offset: number;
	/** Identity of the stored object (an inode for files): a different one means it was replaced. */
	readonly identity: string;
}

/** Lines read from a store and the position after them. */
export interface StoreRead {
	lines: ParsedLine[];
	cursor: StoreCursor;
	/** Reads back the lines returned as envelopes only (see `core/lazy.ts`). */
	source?: LineSource;
}

/** The header and the last complete lines of a store (see {@link SessionStore.readTail}). */
export interface TailRead {
	header: RawRecord;
	/** Records of the complete lines in the window, in order. */
	records: RawRecord[];
	/** True when the window reached back to the header: the records are the whole session. */
	whole: boolean;
}

/** How durable an acknowledged append is. See docs/durability.md. */
export type Durability =
	/** Written to the operating system; survives a crash of the process, not of the machine (pi's behaviour). */
	| "none"
	/** fsync after every append: survives a power loss once `append` returns. */
	| "fsync"
	/** fsync once per group of appends (by count or age) and on close/flush. */
	| "group";

/** Where the records of one session live. */
export interface SessionStore {
	/** A file path, or a `memory:` name for stores without a file. */
	readonly location: string;
	/** The file path, when the store is a file. */
	readonly file: string | undefined;
	/** True when the session exists (it has at least been created). */
	exists(): boolean;
	/** Writes the first record (the header). Throws FILE_EXISTS when the session exists. */
	create(header: object): StoreCursor;
	/**
	 * Every non-blank line, in order, parsed (or with its parse error). An incomplete last line
	 * comes back marked `torn`. A store may return the bulk of the entries as envelopes, with a
	 * `source` to read their lines from later.
	 */
	readAll(): StoreRead;
	/**
	 * The header and the records of the last `bytes` of a current-version session, for a resume
	 * from the end (optional). Undefined when that is not possible: an older version, a line
	 * that does not parse, an incomplete last line, or a store too small to bother.
	 */
	readTail?(bytes: number): TailRead | undefined;
	/** The complete lines after `cursor`, or undefined when the store was replaced since. */
	readSince(cursor: StoreCursor): StoreRead | undefined;
	/**
	 * Takes the inter-process write lock. Call {@link readSince} after taking it, append, then
	 * release. Never held across user code.
	 */
	lock(): () => void;
	/**
	 * Appends records, one line each, at the end; first repairs an incomplete last line left by a
	 * crashed writer (keeping its bytes in a backup). Never rewrites what is there.
	 * @returns the position after the new lines
	 */
	append(records: readonly object[]): StoreCursor;
	/**
	 * Replaces the whole session atomically with `records` and keeps the old content as a backup.
	 * @returns where the backup is, and the position after the new content
	 */
	replace(records: readonly object[]): { backup: string; cursor: StoreCursor };
	/**
	 * A number that changes whenever any writer in this process writes to this session (through
	 * any store object for it). A session holding the lock compares it before writing, to catch
	 * up on what another session of the same process wrote meanwhile.
	 */
	writeGeneration(): number;
	/** Makes every acknowledged append durable now (group commit). */
	flush(): void;
	/** Flushes and releases open handles. The store may be used again afterwards. */
	close(): void;
}
