/**
 * The catalog index's database: where it lives, opening it (owner-only, WAL, a busy timeout:
 * several processes share it), and its schema. The index is a cache, never a source of truth:
 * a file of another schema version, or one that is not a database (damaged, truncated), is
 * deleted and built again, never an error for the user.
 *
 * Tables:
 * - `sessions`: one row per listed session: how it was listed (size, time: what the next
 *   refresh compares), what `ls` shows of it, its leaf, and where the last read ended (`position`,
 *   the store's own; only for a pi file that may grow, see refresh.ts). A session that is not
 *   one keeps its row too, with `skipped` (the reason), so it is not read again until it changes.
 * - `entries`: every entry of every session in stream order (`seq`), with its parent as the
 *   reducer settled it (the active branch is walked from the leaf at query time), its role and
 *   its searchable texts as a JSON array (`core/search-text.ts`; null when it has none).
 * - `entry_text`: FTS5 with the trigram tokenizer over those texts joined by `\n` (rowid =
 *   `entries.eid`): a candidate filter for literal queries of 3 or more characters; hits are
 *   then matched exactly by the catalog's matcher (search.ts). `detail = none` (no positions:
 *   a third of the size, and faster to build): a query asks for the entries holding every
 *   trigram of the text, a superset of those holding the text, which is all a filter needs.
 */

import { chmodSync, closeSync, mkdirSync, openSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { SessionTreeError } from "../../core/errors.js";
import { loadDriver, type SqliteDatabase, type SqliteDriver } from "../../storage/sql/sqlite-schema.js";

/** The version of the schema below; a database of another one is rebuilt. */
export const INDEX_SCHEMA_VERSION = 2;

/** How long a statement waits for another process's write lock (ms). */
const BUSY_TIMEOUT_MS = 10_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
	sid INTEGER PRIMARY KEY,
	key TEXT NOT NULL,
	location TEXT NOT NULL UNIQUE,
	source TEXT NOT NULL,
	agent TEXT,
	writable INTEGER NOT NULL,
	listed_bytes INTEGER NOT NULL,
	listed_ms INTEGER NOT NULL,
	skipped TEXT,
	id TEXT,
	cwd TEXT,
	name TEXT,
	first_message TEXT,
	entries INTEGER,
	branches INTEGER,
	modified_ms INTEGER,
	activity_ms INTEGER,
	last_activity_ms INTEGER,
	created_ms INTEGER,
	leaf_id TEXT,
	parent_session TEXT,
	warnings TEXT,
	position TEXT,
	next_seq INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sessions_by_key ON sessions (key);
CREATE TABLE IF NOT EXISTS entries (
	eid INTEGER PRIMARY KEY,
	sid INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	entry_id TEXT NOT NULL,
	parent_id TEXT,
	role TEXT NOT NULL,
	timestamp TEXT,
	texts TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS entries_by_session ON entries (sid, seq);
CREATE VIRTUAL TABLE IF NOT EXISTS entry_text USING fts5(
	text, content = '', contentless_delete = 1, tokenize = 'trigram', detail = none
);
`;

/**
 * Where the index lives: `$XDG_CACHE_HOME/session-tree/catalog.sqlite` (an absolute
 * XDG_CACHE_HOME only, as the XDG spec asks), else `~/.cache/session-tree/catalog.sqlite`.
 */
export function defaultIndexPath(env: NodeJS.ProcessEnv = process.env): string {
	const xdg = env.XDG_CACHE_HOME;
	const cache = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".cache");
	return join(cache, "session-tree", "catalog.sqlite");
}

/** Errors that say the file is no (usable) database of ours: it is rebuilt. */
export function isDamage(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB"));
}

/** Deletes the database file and its WAL files. */
export function removeDatabase(path: string): void {
	for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
}

/** Opens the file (made owner-only first) with WAL and a busy timeout, and reads its schema version. */
function connect(Driver: SqliteDriver, path: string): { db: SqliteDatabase; version: number } {
	// Created 0600 before SQLite opens it: SQLite gives its WAL files the database file's mode.
	closeSync(openSync(path, "a", 0o600));
	chmodSync(path, 0o600);
	const db = new Driver(path);
	try {
		db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
		db.pragma("journal_mode = WAL");
		db.pragma("synchronous = NORMAL");
		return { db, version: db.pragma("user_version", { simple: true }) as number };
	} catch (error) {
		db.close();
		throw error;
	}
}

/**
 * Opens (or makes) the index at `path`: a file of another schema version, or one that is not
 * a database, is deleted and made again.
 * @throws SessionTreeError INVALID_ARGUMENT when better-sqlite3 is not installed
 */
export async function openIndexDatabase(path: string): Promise<SqliteDatabase> {
	let Driver: SqliteDriver;
	try {
		Driver = await loadDriver(path);
	} catch (cause) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			"the catalog index needs the optional dependency better-sqlite3@12: npm install better-sqlite3@12",
			{ file: path },
			{ cause },
		);
	}
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	for (let attempt = 0; ; attempt++) {
		try {
			const { db, version } = connect(Driver, path);
			if (version === INDEX_SCHEMA_VERSION) return db;
			if (version === 0) {
				// A new file: the schema is made under the write lock, so two processes make it once.
				db.transaction(() => {
					if ((db.pragma("user_version", { simple: true }) as number) !== 0) return;
					db.exec(SCHEMA);
					db.pragma(`user_version = ${INDEX_SCHEMA_VERSION}`);
				}).immediate();
				if ((db.pragma("user_version", { simple: true }) as number) === INDEX_SCHEMA_VERSION) return db;
			}
			// Another version: a cache of another session-tree; this one builds its own.
			db.close();
		} catch (error) {
			if (!isDamage(error) || attempt > 0) throw error;
		}
		if (attempt > 0) throw new SessionTreeError("INVALID_ARGUMENT", "cannot make the catalog index", { file: path });
		removeDatabase(path);
	}
}
