/**
 * The storage interface. The session facade talks only to this, so a database backend can be
 * added without touching its callers. Stores deal in records and lines; they never interpret
 * the tree.
 */

import type { ParsedLine } from "../core/load.js";

/** Where the records of one session live. */
export interface SessionStore {
	/** A file path, or a `memory:` name for stores without a file. */
	readonly location: string;
	/** The file path, when the store is a file. */
	readonly file: string | undefined;
	/** True when the session exists (it has at least been created). */
	exists(): boolean;
	/** Writes the first record (the header). Throws FILE_EXISTS when the session exists. */
	create(header: object): void;
	/** Every non-blank line, in order, parsed (or with its parse error). */
	readLines(): ParsedLine[];
	/** Appends records, one line each, at the end. Never rewrites what is there. */
	append(records: readonly object[]): void;
	/**
	 * Replaces the whole session atomically with `records` and keeps the old content as a backup.
	 * @returns where the backup is
	 */
	replace(records: readonly object[]): string;
	/** Releases open handles. The store may be used again afterwards. */
	close(): void;
}
