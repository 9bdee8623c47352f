/**
 * The SQLite database behind `sqlite:` locations: loading the optional driver (better-sqlite3
 * 12), opening a database file (owner-only, WAL, a busy timeout), its schema and the versioned
 * migrations that make it, the statements the store runs on it, and the one shared connection
 * per file and process.
 *
 * The driver is loaded with a dynamic import on first use, so that the library and the CLI
 * load without it; nothing here runs until a `sqlite:` location is used.
 */

import { chmodSync, closeSync, existsSync, openSync } from "node:fs";
import type Sqlite from "better-sqlite3";
import { SessionTreeError } from "../../core/errors.js";
import { searchableTexts } from "../../core/search-text.js";
import { errorCode } from "../../core/validate.js";
import { refuseIfNotRegular } from "../regular-file.js";
import type { IndexedRecord } from "./common.js";

/** An open SQLite database (a better-sqlite3 connection). */
export type SqliteDatabase = Sqlite.Database;

/** A prepared statement with its parameters and the rows it returns. */
export type SqliteStatement<Params extends unknown[], Row = unknown> = Sqlite.Statement<Params, Row>;

/** The driver's constructor of connections. */
export type SqliteDriver = typeof Sqlite;

/**
 * How long a statement waits for another connection's write lock (milliseconds) before it
 * fails with LOCKED. Writes hold the lock for one short transaction, so this is only reached
 * when a process holds it far longer than this library ever does.
 */
const BUSY_TIMEOUT_MS = 10_000;

/**
 * The migrations, in order: applying `MIGRATIONS[k]` brings a database to version `k + 1`.
 * Each is idempotent (`IF NOT EXISTS`, `OR IGNORE`) so a migration interrupted by a crash, or
 * raced by another process, is simply applied again; the version check under `BEGIN
 * IMMEDIATE` makes sure that only one process applies each.
 *
 * Version 1:
 * - `counters`: the last generation issued in this database. Generations are unique across
 *   the database (not per session), so a position of a session that was removed and created
 *   again under the same name is stale, never mistaken for a position of the new session.
 * - `sessions`: one row per session, keyed by the name after `#` in its URL; `generation`
 *   and `count` (records held, header included) make its position; `bytes` is the size of a
 *   JSONL copy (each line and its newline).
 * - `records`: every record of every session, `seq` 0 being the header; `line` is the JSON
 *   text exactly as the codec wrote it; `type`, `id` and `parent_id` are read from it for
 *   indexes. `rid` is an explicit integer key because the text index maps its rows back
 *   by integer.
 * - `records_by_id`: the walk from the leaf along `parent_id` (readPath) looks each parent up
 *   by `(session, id)`.
 * - `records_text`: FTS5 with the trigram tokenizer over the searchable text of each record
 *   (rowid = `records.rid`): substring search, case-insensitive, for queries of 3 or more
 *   characters. Contentless (the text is in `line` already) with `contentless_delete` so
 *   rows can be deleted by rowid.
 * - `backups`: the records a `replace` replaced, by session and the generation they had.
 *
 * No foreign keys: every write touches the rows of one session in one transaction, and a
 * foreign key check would cost a lookup per inserted record.
 *
 * Version 3 (see {@link toChunkedSearch}): the text index by chunks, `records_text` dropped.
 */
const MIGRATIONS: readonly Migration[] = [
	`CREATE TABLE IF NOT EXISTS counters (
	name TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO counters (name, value) VALUES ('generation', 0);
CREATE TABLE IF NOT EXISTS sessions (
	name TEXT PRIMARY KEY,
	generation INTEGER NOT NULL,
	count INTEGER NOT NULL,
	created_ms INTEGER NOT NULL,
	modified_ms INTEGER NOT NULL,
	bytes INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
	rid INTEGER PRIMARY KEY,
	session TEXT NOT NULL,
	seq INTEGER NOT NULL,
	type TEXT,
	id TEXT,
	parent_id TEXT,
	line TEXT NOT NULL,
	UNIQUE (session, seq)
);
CREATE INDEX IF NOT EXISTS records_by_id ON records (session, id);
CREATE VIRTUAL TABLE IF NOT EXISTS records_text USING fts5(
	text, content = '', contentless_delete = 1, tokenize = 'trigram'
);
CREATE TABLE IF NOT EXISTS backups (
	session TEXT NOT NULL,
	generation INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	line TEXT NOT NULL,
	PRIMARY KEY (session, generation, seq)
) WITHOUT ROWID;`,
	// Version 2: the marker that claims the file for session-tree (see ownership). A file of
	// version 1 has none; it is recognised by its exact tables and columns and gets it on its
	// first write.
	`CREATE TABLE IF NOT EXISTS session_tree_meta (
	key TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO session_tree_meta (key, value) VALUES ('format', 'session-tree');`,
	(db) => toChunkedSearch(db),
];

/** A migration: SQL, or a step that runs statements (inside the migration's transaction). */
type Migration = string | ((db: SqliteDatabase) => void);

/**
 * The text index of version 3, which replaces `records_text` (one FTS5 row per record, the
 * trigram index with positions: about twice the size of the text it indexes, and most of the
 * time of an import):
 * - `search_chunks`: runs of records of one session written together (rids `first_rid` to
 *   `last_rid`, consecutive), at most {@link CHUNK_RECORDS} records or about
 *   {@link CHUNK_CHARS} characters of searchable text.
 * - `records_search`: FTS5, trigram tokenizer, `detail = none` (which trigrams a chunk holds,
 *   not where), one row per chunk (rowid = `first_rid`), its records' searchable texts joined
 *   by newlines. Contentless, with `contentless_delete`.
 *
 * A search looks up the chunks that hold every trigram of the text, then checks their records'
 * stored text where it can tell (see `searchText` of the store): the index is a small fraction
 * of the text, and the check keeps the sessions it returns as few as a phrase index gave.
 * Migrating fills the index from the stored text, in one transaction with the rest.
 */
function toChunkedSearch(db: SqliteDatabase): void {
	db.exec(`CREATE TABLE IF NOT EXISTS search_chunks (
	first_rid INTEGER PRIMARY KEY,
	last_rid INTEGER NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS records_search USING fts5(
	text, content = '', contentless_delete = 1, tokenize = 'trigram', detail = none
);
DELETE FROM search_chunks;
INSERT INTO records_search (records_search) VALUES ('delete-all');`);
	const page = db.prepare<[number], { rid: number; session: string; line: string }>(
		"SELECT rid, session, line FROM records WHERE rid > ? ORDER BY rid LIMIT 1000",
	);
	const chunks = new SearchChunks(db);
	let session: string | undefined;
	for (let after = -1; ; ) {
		const rows = page.all(after);
		if (rows.length === 0) break;
		for (const row of rows) {
			if (row.session !== session) chunks.end();
			session = row.session;
			chunks.add(row.rid, searchableText(row.line));
		}
		after = (rows.at(-1) as { rid: number }).rid;
	}
	chunks.end();
	db.exec("DROP TABLE IF EXISTS records_text");
}

/** The searchable text of a stored record's JSON text, as `indexRecord` (common.ts) gives it when writing. */
function searchableText(line: string): string | null {
	let record: unknown;
	try {
		record = JSON.parse(line);
	} catch {
		return null;
	}
	const texts = typeof record === "object" && record !== null ? (searchableTexts(record)?.texts ?? []) : [];
	return texts.length > 0 ? texts.join("\n") : null;
}

/** Records per chunk of the text index at most. */
const CHUNK_RECORDS = 128;
/** Characters of searchable text past which a chunk ends. */
const CHUNK_CHARS = 65_536;

/**
 * Makes the chunks of the text index from records as they are inserted (rid and searchable
 * text, in rid order): {@link end} closes the current one (at the end of a write, or where
 * the session changes).
 */
class SearchChunks {
	private first = -1;
	private last = -1;
	private texts: string[] = [];
	private chars = 0;
	private readonly insertChunk;
	private readonly insertText;

	constructor(db: SqliteDatabase) {
		this.insertChunk = db.prepare<[number, number]>("INSERT INTO search_chunks (first_rid, last_rid) VALUES (?, ?)");
		this.insertText = db.prepare<[number, string]>("INSERT INTO records_search (rowid, text) VALUES (?, ?)");
	}

	add(rid: number, text: string | null): void {
		if (this.first !== -1 && rid !== this.last + 1) this.end();
		if (text === null) {
			// A record without text extends a chunk, never starts one.
			if (this.first !== -1) this.last = rid;
			return;
		}
		if (this.first === -1) this.first = rid;
		this.last = rid;
		this.texts.push(text);
		this.chars += text.length;
		if (this.texts.length >= CHUNK_RECORDS || this.chars >= CHUNK_CHARS) this.end();
	}

	end(): void {
		if (this.first !== -1 && this.texts.length > 0) {
			this.insertChunk.run(this.first, this.last);
			this.insertText.run(this.first, this.texts.join("\n"));
		}
		this.reset();
	}

	/** Forgets the current chunk without writing it. */
	reset(): void {
		this.first = -1;
		this.last = -1;
		this.texts = [];
		this.chars = 0;
	}
}

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Where the applied migrations are recorded (created by the first migration run). */
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
	version INTEGER PRIMARY KEY,
	applied_ms INTEGER NOT NULL
)`;

const INSTALL_HINT = "sqlite: locations need the optional dependency better-sqlite3@12: npm install better-sqlite3@12";

let driver: Promise<SqliteDriver> | undefined;
/** The driver once its import resolved: what a synchronous read of a body uses. */
let loaded: SqliteDriver | undefined;

/** The driver if {@link loadDriver} has loaded it, else undefined. */
export function loadedDriver(): SqliteDriver | undefined {
	return loaded;
}

/**
 * The driver, imported on first use.
 * @throws SessionTreeError INVALID_ARGUMENT naming `file` when better-sqlite3 is not installed
 *   (or its native part does not load)
 */
export async function loadDriver(file: string): Promise<SqliteDriver> {
	driver ??= import("better-sqlite3").then((module) => {
		loaded = module.default;
		return loaded;
	});
	try {
		return await driver;
	} catch (cause) {
		// Not cached: installing the driver and trying again works in the same process.
		driver = undefined;
		throw new SessionTreeError("INVALID_ARGUMENT", INSTALL_HINT, { file }, { cause });
	}
}

/** The version recorded in the database: 0 before the first migration. */
function schemaVersion(db: SqliteDatabase): number {
	const table = db
		.prepare<[], { found: number }>(
			"SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
		)
		.get();
	if (!table) return 0;
	return (
		db.prepare<[], { version: number | null }>("SELECT max(version) AS version FROM schema_migrations").get()
			?.version ?? 0
	);
}

/**
 * Brings the database to {@link SCHEMA_VERSION}, one migration per `BEGIN IMMEDIATE`
 * transaction: the version is read again under the write lock, so when several processes
 * open a new database at once each migration is applied by exactly one of them. Safe to run
 * any number of times.
 * @throws SessionTreeError INVALID_ARGUMENT for a database of a newer schema than this code knows
 */
export function migrate(db: SqliteDatabase, file: string): void {
	// Read outside a transaction first: an up-to-date database (the usual case) takes no write lock.
	while (schemaVersion(db) < SCHEMA_VERSION) {
		db.transaction(() => {
			db.exec(MIGRATIONS_TABLE);
			const version = schemaVersion(db);
			const migration = MIGRATIONS[version];
			if (migration === undefined) return;
			if (typeof migration === "string") db.exec(migration);
			else migration(db);
			db.prepare<[number, number]>("INSERT INTO schema_migrations (version, applied_ms) VALUES (?, ?)").run(
				version + 1,
				Date.now(),
			);
		}).immediate();
	}
	checkVersion(db, file);
}

/** @throws SessionTreeError INVALID_ARGUMENT for a database of a newer schema than this code knows */
function checkVersion(db: SqliteDatabase, file: string): void {
	const version = schemaVersion(db);
	if (version > SCHEMA_VERSION) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`the database has schema version ${version}; this version of session-tree knows up to ${SCHEMA_VERSION}`,
			{ file },
		);
	}
}

/**
 * How a connection is used: `read` opens the file read-only (no migration, no WAL switch:
 * a read writes nothing, not even to another program's file); `write` opens an existing
 * file read-write and migrates it; `create` also makes the file when it is missing.
 */
export type DatabaseAccess = "read" | "write" | "create";

/** The marker table of a session-tree database, and the value of its `format` row. */
const MARKER_TABLE = "session_tree_meta";
const FORMAT = "session-tree";

/** The tables of a database of version 1 (no marker) with their exact columns, sorted. */
const LEGACY_TABLES: Readonly<Record<string, string>> = {
	backups: "generation,line,seq,session",
	counters: "name,value",
	records: "id,line,parent_id,rid,seq,session,type",
	records_text: "text",
	sessions: "bytes,count,created_ms,generation,modified_ms,name",
	schema_migrations: "applied_ms,version",
};

/** Tables SQLite makes for an FTS5 table (records_text_data, …): part of it, not of anyone else. */
const FTS_SHADOW = /^records_text_(data|idx|content|docsize|config)$/;

/**
 * Whose the database is: `ours` (it has the marker, or exactly the tables and columns of a
 * version-1 database of this library), `empty` (no table at all: an empty file), or `foreign`
 * (anything else: another program's database, which session-tree never reads as a store nor
 * writes into).
 */
export function ownership(db: SqliteDatabase): "ours" | "empty" | "foreign" {
	const tables = db
		.prepare<[], { name: string }>(
			"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
		)
		.all()
		.map((row) => row.name);
	if (tables.length === 0) return "empty";
	if (tables.includes(MARKER_TABLE)) {
		const format = db
			.prepare<[], { value: string }>(`SELECT value FROM ${MARKER_TABLE} WHERE key = 'format'`)
			.get()?.value;
		return format === FORMAT ? "ours" : "foreign";
	}
	const own = tables.filter((name) => !FTS_SHADOW.test(name));
	if (own.length !== Object.keys(LEGACY_TABLES).length) return "foreign";
	for (const name of own) {
		const expected = LEGACY_TABLES[name];
		if (expected === undefined) return "foreign";
		const columns = db
			.prepare<[string], { name: string }>("SELECT name FROM pragma_table_info(?) ORDER BY name")
			.all(name)
			.map((row) => row.name)
			.join(",");
		if (columns !== expected) return "foreign";
	}
	return "ours";
}

/** The error for a database that is not session-tree's. */
export function notAStore(file: string, why: string): SessionTreeError {
	return new SessionTreeError(
		"NOT_A_STORE",
		`not a session-tree database (${why}); session-tree reads and writes only databases it made`,
		{ file },
	);
}

/**
 * Opens the database file, or returns undefined when it does not exist and `access` is not
 * `create`: reading a database that is not there creates nothing. A read opens the file
 * read-only and changes nothing in it (no migration, no journal mode); a write opens it
 * read-write, switches it to WAL and migrates it. Either refuses a file that is not
 * session-tree's before touching it (see {@link ownership}); only `create` makes a store of
 * an empty file (no tables). A new file is made owner-only before SQLite opens
 * it (SQLite gives its -wal and -shm files the database's mode; they are set to 0600 too, in
 * case they were left by another program).
 * @throws SessionTreeError NOT_A_STORE for another program's database (or, on a read, an
 *   empty file), FILE_NOT_FOUND when the directory does not exist
 */
export function openDatabase(
	Driver: SqliteDriver,
	file: string,
	access: DatabaseAccess | boolean,
): SqliteDatabase | undefined {
	const mode: DatabaseAccess = access === true ? "create" : access === false ? "read" : access;
	if (!existsSync(file)) {
		if (mode !== "create") return undefined;
		makeOwnerOnlyFile(file);
	}
	refuseIfNotRegular(file); // SQLite's own open of a FIFO would block
	const readonly = mode === "read";
	const db = new Driver(file, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS, readonly });
	try {
		db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
		const owner = ownership(db);
		if (owner === "foreign") throw notAStore(file, "it holds tables of another program");
		// Only a command that creates a session makes a store of an empty file.
		if (owner === "empty" && mode !== "create") throw notAStore(file, "it holds no tables");
		if (readonly) {
			checkVersion(db, file);
			return db;
		}
		// WAL: readers never wait for the writer, and a commit appends to one file.
		db.pragma("journal_mode = WAL");
		db.pragma("synchronous = NORMAL");
		migrate(db, file);
		for (const suffix of ["-wal", "-shm"]) {
			if (existsSync(file + suffix)) chmodSync(file + suffix, 0o600);
		}
	} catch (error) {
		db.close();
		throw error;
	}
	return db;
}

/** Creates an empty file (an empty SQLite database) readable by its owner only; one that exists is left alone. */
function makeOwnerOnlyFile(file: string): void {
	try {
		closeSync(openSync(file, "wx", 0o600));
	} catch (error) {
		if (errorCode(error) === "EEXIST") return;
		if (errorCode(error) === "ENOENT") {
			throw new SessionTreeError("FILE_NOT_FOUND", "the database's directory does not exist", { file });
		}
		throw new SessionTreeError("IO_ERROR", `cannot create the database: ${String(error)}`, { file }, { cause: error });
	}
}

/** The connection of each database file this process uses, shared by every store of it. */
const shared = new Map<string, SqliteDatabase>();

/**
 * The shared connection to `file`, opened now if it is not open (undefined when the file does
 * not exist and `access` is not `create`). A read-only connection is replaced by a read-write
 * one when a write comes. Synchronous, so that an operation gets the connection and runs its
 * statements in one turn, with no `close` in between.
 */
export function sharedDatabase(
	Driver: SqliteDriver,
	file: string,
	access: DatabaseAccess | boolean,
): SqliteDatabase | undefined {
	const reading = access === false || access === "read";
	const open = shared.get(file);
	if (open?.open && (reading || !open.readonly)) return open;
	if (open?.open) open.close();
	const db = openDatabase(Driver, file, access);
	if (db) shared.set(file, db);
	else shared.delete(file);
	return db;
}

/** Closes the shared connection to `file`, if open; the next operation opens it again. */
export function closeSharedDatabase(file: string): void {
	const db = shared.get(file);
	shared.delete(file);
	if (db?.open) db.close();
}

/**
 * Closes every shared SQLite connection of this process (stores open them again when next
 * used). An idle connection does not keep the process alive; this is for tests and for
 * processes that want the files released (to delete them, say).
 */
export function closeSqliteDatabases(): void {
	for (const file of [...shared.keys()]) closeSharedDatabase(file);
}

/** A session's row: its position. */
export interface SessionRow {
	generation: number;
	count: number;
}

/** A stored record: its place in the stream and its text. */
export interface LineRow {
	seq: number;
	line: string;
}

/** A step of the walk from the leaf: `depth` 1 is the leaf. */
export interface PathRow extends LineRow {
	depth: number;
}

/**
 * The walk along the active path (readPath). It starts at the last record after the header
 * that has an id (`+id` keeps the planner on the `(session, seq)` index, scanned backwards,
 * rather than the id index) and looks each parent up in `records_by_id`; `CROSS JOIN` fixes
 * the join order (the path outside) and `INDEXED BY` the index, whatever the planner would
 * guess for a database never analysed; `limit` bounds the rows even when duplicate ids make
 * the walk fan out. EXPLAIN QUERY PLAN (SQLite 3.53):
 *
 * ```
 * CO-ROUTINE path
 *   SETUP
 *     SEARCH records USING INDEX sqlite_autoindex_records_1 (session=? AND seq=?)
 *     SCALAR SUBQUERY 1
 *       SEARCH records USING INDEX sqlite_autoindex_records_1 (session=? AND seq>?)
 *   RECURSIVE STEP
 *     SCAN path
 *     SEARCH r USING INDEX records_by_id (session=? AND id=?)
 * SCAN path
 * SEARCH r USING INDEX sqlite_autoindex_records_1 (session=? AND seq=?)
 * USE TEMP B-TREE FOR ORDER BY
 * ```
 *
 * No step scans the session: the cost is a few index searches per record of the path (the
 * `SCAN path` rows are the walk's own rows). test/storage/sqlite-store.test.ts checks this plan.
 */
const PATH_SQL = `WITH RECURSIVE path (seq, parent_id, depth) AS (
	SELECT seq, parent_id, 1 FROM records
	WHERE session = @session AND seq = (
		SELECT seq FROM records
		WHERE session = @session AND seq > 0 AND +id IS NOT NULL
		ORDER BY seq DESC LIMIT 1
	)
	UNION ALL
	SELECT r.seq, r.parent_id, path.depth + 1
	FROM path CROSS JOIN records AS r INDEXED BY records_by_id
	WHERE r.session = @session AND r.id = path.parent_id AND path.depth < @count AND +r.seq > 0
	LIMIT @limit
)
SELECT path.seq AS seq, path.depth AS depth, r.line AS line
FROM path CROSS JOIN records AS r
WHERE r.session = @session AND r.seq = path.seq
ORDER BY path.depth`;

/** The statements the store runs, prepared once per connection. Every value is a parameter. */
export class Statements {
	/** The position of a session (name): undefined when it does not exist. */
	readonly session: SqliteStatement<[string], SessionRow>;
	/** A session's records from a seq on (name, seq), in order. */
	readonly rowsFrom: SqliteStatement<[string, number], LineRow>;
	/** A session's records from a seq on (name, seq), in order, as the bytes of their text (UTF-8). */
	readonly bytesFrom: SqliteStatement<[string, number], { seq: number; bytes: Buffer }>;
	/** One record of a session (name, seq). */
	readonly lineAt: SqliteStatement<[string, number], LineRow>;
	/** A new session's row (name, generation, count, created, modified, bytes). */
	readonly insertSession: SqliteStatement<[string, number, number, number, number, number]>;
	/** After an append (count, modified, bytes added, name). */
	readonly appended: SqliteStatement<[number, number, number, string]>;
	/** After a replace (generation, count, modified, bytes, name). */
	readonly replaced: SqliteStatement<[number, number, number, number, string]>;
	/** Copies a session's records to its backups under a generation (generation, name). */
	readonly backUp: SqliteStatement<[number, string]>;
	/** The records of a backup (name, generation), in order. */
	readonly backupRows: SqliteStatement<[string, number], LineRow>;
	/** The active path, leaf first (see {@link PATH_SQL}). */
	readonly path: SqliteStatement<[{ session: string; count: number; limit: number }], PathRow>;
	/** Every session: name, modification time, bytes. */
	readonly list: SqliteStatement<[], { name: string; modified_ms: number; bytes: number }>;
	/** The text index's statements, prepared on first use (a read-only connection to an older schema has no index). */
	private index: TextIndex | undefined;
	private readonly generation;
	private readonly insertRecord;
	private readonly deleteRecords;
	private readonly deleteBackups;
	private readonly deleteSessionRow;
	private synchronous = "NORMAL";

	/** @param db a connection to a database at {@link SCHEMA_VERSION} */
	constructor(readonly db: SqliteDatabase) {
		this.session = db.prepare<[string], SessionRow>("SELECT generation, count FROM sessions WHERE name = ?");
		this.rowsFrom = db.prepare<[string, number], LineRow>(
			"SELECT seq, line FROM records WHERE session = ? AND seq >= ? ORDER BY seq",
		);
		this.bytesFrom = db.prepare<[string, number], { seq: number; bytes: Buffer }>(
			"SELECT seq, CAST(line AS BLOB) AS bytes FROM records WHERE session = ? AND seq >= ? ORDER BY seq",
		);
		this.lineAt = db.prepare<[string, number], LineRow>("SELECT seq, line FROM records WHERE session = ? AND seq = ?");
		this.insertSession = db.prepare<[string, number, number, number, number, number]>(
			"INSERT INTO sessions (name, generation, count, created_ms, modified_ms, bytes) VALUES (?, ?, ?, ?, ?, ?)",
		);
		this.appended = db.prepare<[number, number, number, string]>(
			"UPDATE sessions SET count = ?, modified_ms = ?, bytes = bytes + ? WHERE name = ?",
		);
		this.replaced = db.prepare<[number, number, number, number, string]>(
			"UPDATE sessions SET generation = ?, count = ?, modified_ms = ?, bytes = ? WHERE name = ?",
		);
		this.backUp = db.prepare<[number, string]>(
			"INSERT INTO backups (session, generation, seq, line) SELECT session, ?, seq, line FROM records WHERE session = ?",
		);
		this.backupRows = db.prepare<[string, number], LineRow>(
			"SELECT seq, line FROM backups WHERE session = ? AND generation = ? ORDER BY seq",
		);
		this.path = db.prepare<[{ session: string; count: number; limit: number }], PathRow>(PATH_SQL);
		this.list = db.prepare<[], { name: string; modified_ms: number; bytes: number }>(
			"SELECT name, modified_ms, bytes FROM sessions ORDER BY name",
		);
		this.generation = db.prepare<[], { value: number }>(
			"UPDATE counters SET value = value + 1 WHERE name = 'generation' RETURNING value",
		);
		this.insertRecord = db.prepare<[string, number, string | null, string | null, string | null, string]>(
			"INSERT INTO records (session, seq, type, id, parent_id, line) VALUES (?, ?, ?, ?, ?, ?)",
		);
		this.deleteRecords = db.prepare<[string]>("DELETE FROM records WHERE session = ?");
		this.deleteBackups = db.prepare<[string]>("DELETE FROM backups WHERE session = ?");
		this.deleteSessionRow = db.prepare<[string]>("DELETE FROM sessions WHERE name = ?");
	}

	/** A generation never issued before in this database (inside a write transaction). */
	nextGeneration(): number {
		const row = this.generation.get();
		if (!row) {
			// Only a database changed by hand lacks it: the first migration inserts it.
			throw new SessionTreeError("IO_ERROR", "the database has no generation counter (counters table)", {
				file: this.db.name,
			});
		}
		return row.value;
	}

	/** Inserts records as seq `from`, `from + 1`, … of the session, and their searchable text. */
	insertRecords(session: string, from: number, rows: readonly IndexedRecord[]): void {
		try {
			for (const [k, row] of rows.entries()) {
				const { lastInsertRowid } = this.insertRecord.run(session, from + k, row.type, row.id, row.parentId, row.line);
				this.text.chunks.add(Number(lastInsertRowid), row.text);
			}
			this.text.chunks.end();
		} finally {
			// A write that failed part way is rolled back: nothing of it stays for the next.
			this.text.chunks.reset();
		}
	}

	/** Deletes the session's records and their text (not its row or backups). */
	/** The text index's statements (a connection to a database at {@link SCHEMA_VERSION}). */
	get text(): TextIndex {
		this.index ??= new TextIndex(this.db);
		return this.index;
	}

	/** True when the database has the text index of version 3 (a read-only connection may be older). */
	get searchable(): boolean {
		return (
			this.index !== undefined ||
			this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'records_search'").get() !==
				undefined
		);
	}

	deleteRows(session: string): void {
		this.text.deleteText.run(session);
		this.text.deleteChunks.run(session);
		this.deleteRecords.run(session);
	}

	/** Deletes everything of the session: records, text, backups, its row. */
	deleteSession(session: string): void {
		this.deleteRows(session);
		this.deleteBackups.run(session);
		this.deleteSessionRow.run(session);
	}

	/** Sets `PRAGMA synchronous` for the next write (outside a transaction), if it differs. */
	setSynchronous(mode: "NORMAL" | "FULL"): void {
		if (this.synchronous === mode) return;
		this.db.pragma(`synchronous = ${mode}`);
		this.synchronous = mode;
	}
}

/** The statements of the text index (version 3: see {@link toChunkedSearch}). */
export class TextIndex {
	/** The sessions with a chunk whose text matches an FTS5 query. */
	readonly search: SqliteStatement<[string], { session: string }>;
	/**
	 * The same, of the records of those chunks whose stored text matches: (query, LIKE pattern,
	 * 1 when the text has a letter the long s or the Kelvin sign folds to, GLOB pattern). The
	 * GLOB runs only on a line that LIKE refused and that holds one of the two (see the store's
	 * `likePattern`).
	 */
	readonly searchChecked: SqliteStatement<[string, string, number, string], { session: string }>;
	/** Writes the chunks of inserted records. */
	readonly chunks: SearchChunks;
	readonly deleteText: SqliteStatement<[string]>;
	readonly deleteChunks: SqliteStatement<[string]>;

	constructor(db: SqliteDatabase) {
		this.search = db.prepare<[string], { session: string }>(
			"SELECT DISTINCT r.session AS session FROM records_search JOIN records AS r ON r.rid = records_search.rowid " +
				"WHERE records_search MATCH ? ORDER BY r.session",
		);
		this.searchChecked = db.prepare<[string, string, number, string], { session: string }>(
			// CROSS JOIN keeps the index outside whatever the planner guesses of a database never analysed.
			"SELECT DISTINCT r.session AS session FROM records_search " +
				"CROSS JOIN search_chunks AS c ON c.first_rid = records_search.rowid " +
				"CROSS JOIN records AS r ON r.rid BETWEEN c.first_rid AND c.last_rid " +
				"WHERE records_search MATCH ? AND (r.line LIKE ? ESCAPE '\\' OR (? AND " +
				"(instr(CAST(r.line AS BLOB), X'C5BF') > 0 OR instr(CAST(r.line AS BLOB), X'E284AA') > 0) " +
				"AND r.line GLOB ?)) ORDER BY r.session",
		);
		this.chunks = new SearchChunks(db);
		this.deleteText = db.prepare<[string]>(
			"DELETE FROM records_search WHERE rowid IN (SELECT rid FROM records WHERE session = ?)",
		);
		this.deleteChunks = db.prepare<[string]>(
			"DELETE FROM search_chunks WHERE first_rid IN (SELECT rid FROM records WHERE session = ?)",
		);
	}
}

const prepared = new WeakMap<SqliteDatabase, Statements>();

/** The statements of a connection, prepared on first use. */
export function statementsOf(db: SqliteDatabase): Statements {
	let statements = prepared.get(db);
	if (!statements) {
		statements = new Statements(db);
		prepared.set(db, statements);
	}
	return statements;
}
