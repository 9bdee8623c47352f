/**
 * The SQLite store: `sqlite:PATH#SESSION_ID` is one session in the database file at PATH (a
 * relative PATH resolves against the working directory), `sqlite:PATH` the database as a
 * collection of sessions. Schema, migrations and connections are in `sqlite-schema.ts`; the
 * driver (better-sqlite3 12, an optional dependency) is loaded on first use.
 *
 * Every write is one `BEGIN IMMEDIATE` transaction: it takes the database's write lock, reads
 * the session's row, compares the caller's position with it, and writes or returns what the
 * caller is behind by. better-sqlite3 runs statements synchronously, so a transaction never
 * spans an `await`, and writers in this and other processes serialise on the lock.
 *
 * Durability (SQLite in WAL mode; the mode is set on the connection before each write):
 * - `"none"` (default): `synchronous = NORMAL`. A commit is written to the WAL file, so an
 *   acknowledged append survives a crash of the process; after a power loss the latest
 *   commits may be missing (never half there) until a checkpoint has synced the WAL.
 * - `"fsync"`: `synchronous = FULL`. The WAL is fsynced at every commit: an acknowledged
 *   append survives a power loss.
 * - `"group"` is not offered: SQLite syncs per commit or per checkpoint, not per group of
 *   commits, so it is refused rather than pretended.
 *
 * Connections: one per database file and process, shared by every store object of it (and
 * opened on first use); {@link closeSqliteDatabases} closes them. A store made with
 * `privateConnection` opens its own (a second writer, in tests).
 */

import { readEnvelope } from "../../core/envelope.js";
import { SessionTreeError } from "../../core/errors.js";
import type { LineSource } from "../../core/lazy.js";
import type { ParsedLine, RawRecord } from "../../core/records.js";
import type { Envelope } from "../../core/tree-node.js";
import type { SessionHeader } from "../../core/types.js";
import { errorCode } from "../../core/validate.js";
import { indexOfParentMarker } from "../parent-marker.js";
import type {
	AppendOutcome,
	Durability,
	ReplaceOutcome,
	SessionCollection,
	SessionListing,
	SessionStore,
	StorePosition,
	StoreRead,
	TailRead,
	TextQuery,
} from "../store.js";
import type { StoreOptions } from "../store-options.js";
import { SQL_COLLECTION_CAPABILITIES, SQLITE_STORE_CAPABILITIES } from "./capabilities.js";
import { decodePosition, encodePosition, type IndexedRecord, indexRecord, parseStoredLine } from "./common.js";
import { compareAndWrite, type NotWritten, type SqlEnd } from "./compare-append.js";
import {
	closeSharedDatabase,
	type DatabaseAccess,
	loadDriver,
	loadedDriver,
	openDatabase,
	type SessionRow,
	type SqliteDatabase,
	type SqliteDriver,
	type Statements,
	sharedDatabase,
	statementsOf,
} from "./sqlite-schema.js";

import { checkSessionName, parseSqliteUrl, sessionUrl } from "./urls.js";

export { closeSqliteDatabases } from "./sqlite-schema.js";
export { parseSqliteUrl, type SqliteUrl } from "./urls.js";

const CAPABILITIES = SQLITE_STORE_CAPABILITIES;
const COLLECTION_CAPABILITIES = SQL_COLLECTION_CAPABILITIES;

/** Options of {@link SqliteSessionStore}. */
export interface SqliteStoreOptions extends StoreOptions {
	/**
	 * Use a connection of this store's own, opened on first use and closed by `close`, instead
	 * of the one this process shares per database file: a second writer as another process
	 * would be (tests).
	 */
	privateConnection?: boolean;
}

/**
 * Runs `work` on a connection to `file` with the statements prepared on it, or `missing` when
 * the database does not exist and `connect` did not create it. Everything after the driver is
 * loaded happens in one synchronous run: no `close` can come between getting the connection
 * and using it. Driver errors become SessionTreeErrors naming `location`.
 */
async function withDatabase<T>(
	location: string,
	connect: (driver: SqliteDriver) => SqliteDatabase | undefined,
	work: (sql: Statements) => T,
	missing: () => T,
): Promise<T> {
	const driver = await loadDriver(location);
	try {
		const db = connect(driver);
		return db ? work(statementsOf(db)) : missing();
	} catch (error) {
		throw storeError(error, location);
	}
}

/** A SessionTreeError for what the driver threw: LOCKED when the lock stayed taken, else IO_ERROR. */
function storeError(error: unknown, location: string): SessionTreeError {
	if (error instanceof SessionTreeError) return error;
	const code = errorCode(error);
	const message = error instanceof Error ? error.message : String(error);
	if (typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) {
		return new SessionTreeError("LOCKED", `the database stayed locked by another connection: ${message}`, {
			file: location,
		});
	}
	return new SessionTreeError("IO_ERROR", `sqlite: ${message}`, { file: location }, { cause: error });
}

/** The lines of stored rows, parsed, in order. */
function parseRows(rows: readonly { seq: number; line: string }[], location: string): ParsedLine[] {
	return rows.map((row) => parseStoredLine(row.line, row.seq, location));
}

/** The size of a JSONL copy of these records: each line and its newline. */
function bytesOf(rows: readonly IndexedRecord[]): number {
	let bytes = 0;
	for (const row of rows) bytes += Buffer.byteLength(row.line) + 1;
	return bytes;
}

/**
 * One session of a SQLite database. A store made from a URL without `#SESSION_ID` has no name
 * until {@link create}, which names the session by its header's id; its `location` is the
 * session's URL from then on.
 */
export class SqliteSessionStore implements SessionStore {
	readonly capabilities = CAPABILITIES;
	/**
	 * The database file, absolute. Not `file`: in the store contract that names a file holding
	 * this one session and nothing else (`Session.file`), which a database of many is not.
	 */
	readonly databaseFile: string;
	private readonly base: string;
	private name: string | undefined;
	private readonly durability: Durability;
	private readonly privateConnection: boolean;
	private own: SqliteDatabase | undefined;

	/**
	 * @param location `sqlite:PATH#SESSION_ID`, or `sqlite:PATH` for a session to be created
	 * @throws SessionTreeError INVALID_ARGUMENT for a malformed location or a durability it cannot give
	 */
	constructor(location: string, options: SqliteStoreOptions = {}) {
		const url = parseSqliteUrl(location);
		this.databaseFile = url.file;
		this.base = url.base;
		this.name = url.name;
		this.durability = options.durability ?? "none";
		if (!CAPABILITIES.durability.includes(this.durability)) {
			throw new SessionTreeError(
				"INVALID_ARGUMENT",
				`a sqlite: store cannot give durability ${JSON.stringify(this.durability)} (it offers ${CAPABILITIES.durability.join(", ")})`,
				{ file: location },
			);
		}
		this.privateConnection = options.privateConnection === true;
	}

	/** `sqlite:/ABSOLUTE/PATH#SESSION_ID`; without `#…` before a store made without a name is created. */
	get location(): string {
		return this.name === undefined ? this.base : sessionUrl(this.base, this.name);
	}

	async exists(): Promise<boolean> {
		const name = this.name;
		if (name === undefined) return false;
		return this.use(
			"read",
			(sql) => sql.session.get(name) !== undefined,
			() => false,
		);
	}

	async create(header: SessionHeader): Promise<StorePosition> {
		const name = this.name ?? checkSessionName(header.id, this.base);
		const location = sessionUrl(this.base, name);
		const row = indexRecord(header, location);
		const position = await this.write((sql) => {
			if (sql.session.get(name)) {
				throw new SessionTreeError("FILE_EXISTS", "the session already exists", { file: location });
			}
			const generation = sql.nextGeneration();
			const now = Date.now();
			sql.insertRecords(name, 0, [row]);
			sql.insertSession.run(name, generation, 1, now, now, bytesOf([row]));
			return encodePosition(generation, 1);
		}, true);
		this.name = name;
		return position;
	}

	/**
	 * Every record, in one read transaction. In a session of the current version, entries in
	 * pi's exact layout come back as envelopes, read in place from the bytes of their text as
	 * the file store reads a line (`envelope.ts`), and the rest is parsed; the returned
	 * `source` reads those bodies by key (session, seq) when they are asked for.
	 */
	async read(): Promise<StoreRead> {
		const name = this.required();
		return this.snapshot(
			(sql) => {
				const row = this.row(sql, name);
				const head = sql.lineAt.get(name, 0);
				const header = head ? parseStoredLine(head.line, 0, this.location) : undefined;
				if (header?.record?.type !== "session" || header.record.version !== 3) {
					return { lines: parseRows(sql.rowsFrom.all(name, 0), this.location), position: positionOf(row) };
				}
				const lines: ParsedLine[] = [header];
				let envelopes = 0;
				let previous: Envelope | undefined;
				for (const { seq, bytes } of sql.bytesFrom.iterate(name, 1)) {
					const envelope = oneRecord(bytes) ? readEnvelope(bytes, 0, bytes.length, seq, seq + 1, previous) : undefined;
					previous = envelope;
					if (envelope) {
						envelopes++;
						lines.push(envelope);
					} else lines.push(parseStoredLine(bytes.toString("utf8"), seq, this.location));
				}
				const read: StoreRead = { lines, position: positionOf(row) };
				if (envelopes > 0) read.source = new SqliteBodies(this, name, row.generation);
				return read;
			},
			() => {
				throw this.notFound();
			},
		);
	}

	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		const at = decodePosition(position, this.location);
		const name = this.name;
		if (name === undefined) return undefined;
		return this.snapshot(
			(sql) => {
				const row = sql.session.get(name);
				if (!row || row.generation !== at.generation || at.count > row.count) return undefined;
				return { lines: parseRows(sql.rowsFrom.all(name, at.count), this.location), position: positionOf(row) };
			},
			() => undefined,
		);
	}

	async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		const at = decodePosition(expected, this.location);
		const name = this.required();
		// Encoded before the transaction: the write lock is held for the statements only.
		const rows = records.map((record) => indexRecord(record, this.location));
		return this.write((sql) =>
			this.compareAndWrite<AppendOutcome>(sql, name, at, (end) => {
				sql.insertRecords(name, end.count, rows);
				sql.appended.run(end.count + rows.length, Date.now(), bytesOf(rows), name);
				return { status: "ok", position: encodePosition(end.generation, end.count + rows.length) };
			}),
		);
	}

	async replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		const at = decodePosition(expected, this.location);
		const name = this.required();
		const rows = records.map((record) => indexRecord(record, this.location));
		return this.write((sql) =>
			this.compareAndWrite<ReplaceOutcome>(sql, name, at, (end) => {
				const generation = sql.nextGeneration();
				sql.backUp.run(end.generation, name);
				sql.deleteRows(name);
				sql.insertRecords(name, 0, rows);
				sql.replaced.run(generation, rows.length, Date.now(), bytesOf(rows), name);
				return {
					status: "ok",
					position: encodePosition(generation, rows.length),
					backup: backupName(this.location, end.generation),
				};
			}),
		);
	}

	/**
	 * The active path by index: from the last record after the header with an id, along
	 * `parent_id` through `(session, id)`, at most `count` records, in one read transaction.
	 * Undefined for a header of another version than 3, a line that does not parse, or a walk
	 * that is not one chain back through the stream (duplicate ids, a parent written later).
	 */
	async readPath(count: number): Promise<TailRead | undefined> {
		const name = this.name;
		if (name === undefined || !(count >= 1)) return undefined;
		return this.snapshot(
			(sql) => {
				const head = sql.lineAt.get(name, 0);
				const header = head ? parseStoredLine(head.line, 0, this.location).record : undefined;
				if (header?.version !== 3) return undefined;
				const walk = sql.path.all({ session: name, count, limit: count + 1 });
				if (walk.length > count) return undefined;
				const records: RawRecord[] = [];
				for (const [k, step] of walk.entries()) {
					if (step.depth !== k + 1 || (k > 0 && step.seq >= (walk[k - 1]?.seq ?? 0))) return undefined;
					const record = parseStoredLine(step.line, step.seq, this.location).record;
					if (!record) return undefined;
					records.push(record);
				}
				return { header, records: records.reverse(), whole: false };
			},
			() => undefined,
		);
	}

	/** Another session of the same database, named by the header's id. */
	derive(header: SessionHeader): SqliteSessionStore {
		const name = checkSessionName(header.id, this.base);
		return new SqliteSessionStore(sessionUrl(this.base, name), { durability: this.durability });
	}

	/** Nothing to do: every acknowledged write is committed with the store's durability already. */
	async flush(): Promise<void> {}

	/** Closes a private connection; the shared one stays open for the other stores of the process. */
	async close(): Promise<void> {
		const own = this.own;
		this.own = undefined;
		if (own?.open) own.close();
	}

	/**
	 * Runs `work` on a connection to this store's database at once: the driver must be loaded
	 * (a read of this store loaded it). Opens the shared connection again when the store was
	 * closed meanwhile. For reading bodies (see {@link SqliteBodies}).
	 * @internal
	 */
	useNow<T>(work: (sql: Statements) => T): T {
		const driver = loadedDriver();
		try {
			const db = driver && sharedDatabase(driver, this.databaseFile, "read");
			if (!db) throw this.notFound();
			return work(statementsOf(db));
		} catch (error) {
			throw storeError(error, this.location);
		}
	}

	/** Runs `work` on this store's connection (see {@link withDatabase}). */
	private use<T>(access: DatabaseAccess, work: (sql: Statements) => T, missing: () => T): Promise<T> {
		return withDatabase(this.location, (driver) => this.connect(driver, access), work, missing);
	}

	/** Runs `work` in a read transaction: its statements see one snapshot of the database. */
	private snapshot<T>(work: (sql: Statements) => T, missing: () => T): Promise<T> {
		return this.use("read", (sql) => sql.db.transaction(() => work(sql)).deferred(), missing);
	}

	/** Runs `work` in a `BEGIN IMMEDIATE` transaction with this store's durability. */
	private write<T>(work: (sql: Statements) => T, create = false): Promise<T> {
		return this.use(
			create ? "create" : "write",
			(sql) => {
				sql.setSynchronous(this.durability === "fsync" ? "FULL" : "NORMAL");
				return sql.db.transaction(() => work(sql)).immediate();
			},
			() => {
				throw this.notFound();
			},
		);
	}

	private connect(driver: SqliteDriver, access: DatabaseAccess): SqliteDatabase | undefined {
		if (!this.privateConnection) return sharedDatabase(driver, this.databaseFile, access);
		if (this.own?.open && this.own.readonly && access !== "read") this.own.close();
		if (!this.own?.open) this.own = openDatabase(driver, this.databaseFile, access);
		return this.own;
	}

	/**
	 * The compare-and-write of session `name` (see compare-append.ts), in the transaction of
	 * `sql`: `write` runs when the session still ends at `at`.
	 */
	private compareAndWrite<O>(sql: Statements, name: string, at: SqlEnd, write: (end: SqlEnd) => O): O | NotWritten {
		return compareAndWrite(at, {
			end: () => this.row(sql, name),
			write,
			since: (count, end) => ({
				lines: parseRows(sql.rowsFrom.all(name, count), this.location),
				position: encodePosition(end.generation, end.count),
			}),
		});
	}

	private row(sql: Statements, name: string): SessionRow {
		const row = sql.session.get(name);
		if (!row) throw this.notFound();
		return row;
	}

	private required(): string {
		if (this.name === undefined) throw this.notFound();
		return this.name;
	}

	private notFound(): SessionTreeError {
		return new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: this.location });
	}
}

/**
 * True when the text holds one record's envelope marker only (a nested object with a
 * `parentId` key is left to the parse, as the file store leaves it).
 */
function oneRecord(bytes: Buffer): boolean {
	const marker = indexOfParentMarker(bytes, 0);
	return marker !== -1 && indexOfParentMarker(bytes, marker + 1) === -1;
}

/**
 * The bodies of a SQLite session read with envelopes: each is the text of the record at its
 * envelope's `offset` (its seq), read by key when asked for. Synchronous (better-sqlite3);
 * works after the store was closed (it opens the process's shared connection again). A
 * session replaced since the read (another generation) is refused rather than read: its
 * records at those seqs are others.
 */
class SqliteBodies implements LineSource {
	constructor(
		private readonly store: SqliteSessionStore,
		private readonly name: string,
		private readonly generation: number,
	) {}

	readLines(spans: readonly Envelope[]): string[] {
		if (spans.length === 0) return [];
		return this.store.useNow((sql) =>
			sql.db
				.transaction(() => {
					const row = sql.session.get(this.name);
					if (row?.generation !== this.generation) {
						throw new SessionTreeError(
							"IO_ERROR",
							"the session was replaced or removed since it was read (migrated or repaired elsewhere?); await session.refresh() to read it again",
							{ file: this.store.location },
						);
					}
					const texts: string[] = new Array(spans.length);
					for (let i = 0; i < spans.length; i++) {
						// A missing row gives no text: the loader reports that body as unreadable.
						texts[i] = sql.lineAt.get(this.name, (spans[i] as Envelope).offset)?.line as string;
					}
					return texts;
				})
				.deferred(),
		);
	}
}

function positionOf(row: SessionRow): StorePosition {
	return encodePosition(row.generation, row.count);
}

/** `sqlite:/PATH#NAME@backup-GENERATION`: the records the session had in that generation. */
function backupName(location: string, generation: number): string {
	return `${location}@backup-${generation}`;
}

/**
 * The records a `replace` of a SQLite session kept, by the backup name it returned, header first.
 * @throws SessionTreeError INVALID_ARGUMENT for another name, FILE_NOT_FOUND when there is no such backup
 */
export async function readSqliteBackup(backup: string): Promise<RawRecord[]> {
	const match = /^(.*)@backup-(\d{1,15})$/.exec(backup);
	const url = match?.[1] === undefined ? undefined : parseSqliteUrl(match[1]);
	const name = url?.name;
	if (!url || name === undefined) {
		throw new SessionTreeError("INVALID_ARGUMENT", "not a sqlite: backup (sqlite:PATH#SESSION_ID@backup-N)", {
			file: backup,
		});
	}
	const generation = Number(match?.[2]);
	const notFound = () => new SessionTreeError("FILE_NOT_FOUND", "no such backup", { file: backup });
	const rows = await withDatabase(
		backup,
		(driver) => sharedDatabase(driver, url.file, false),
		(sql) => sql.backupRows.all(name, generation),
		() => {
			throw notFound();
		},
	);
	if (rows.length === 0) throw notFound();
	return parseRows(rows, backup).map((parsed) => {
		if (!parsed.record) throw parsed.error ?? notFound();
		return parsed.record;
	});
}

/** The sessions of one SQLite database: `sqlite:PATH`. */
export class SqliteCollection implements SessionCollection {
	readonly capabilities = COLLECTION_CAPABILITIES;
	/** `sqlite:` and the database file's absolute path. */
	readonly location: string;
	/** The database file, absolute. */
	readonly file: string;

	/** @throws SessionTreeError INVALID_ARGUMENT for a malformed location or one naming a session */
	constructor(location: string) {
		const url = parseSqliteUrl(location);
		if (url.name !== undefined) {
			throw new SessionTreeError("INVALID_ARGUMENT", "a sqlite: collection is a database: sqlite:PATH, without #", {
				file: location,
			});
		}
		this.file = url.file;
		this.location = url.base;
	}

	/** Every session, by name; none when the database file does not exist. */
	async *list(): AsyncIterable<SessionListing> {
		const rows = await this.use(
			(sql) => sql.list.all(),
			() => [],
		);
		for (const row of rows) {
			yield { location: sessionUrl(this.location, row.name), modified: new Date(row.modified_ms), bytes: row.bytes };
		}
	}

	/**
	 * The store of a session of this database.
	 * @throws SessionTreeError INVALID_ARGUMENT for a location of another database or without a session name
	 */
	open(location: string): SqliteSessionStore {
		return new SqliteSessionStore(sessionUrl(this.location, this.nameIn(location)));
	}

	/** The store of a new session named by the header's id. */
	sessionFor(header: SessionHeader): SqliteSessionStore {
		return new SqliteSessionStore(sessionUrl(this.location, checkSessionName(header.id, this.location)));
	}

	/**
	 * The sessions with a record whose searchable text holds `query.text`, in any letter case
	 * (the trigram index folds case; the catalog then matches exactly). Undefined for fewer
	 * than 3 characters: a trigram index cannot look those up. The index tells which chunks of
	 * records hold every trigram of the text; for a text of printable ASCII other than `"` and
	 * `\`, which a record's JSON text holds as it is wherever its searchable text does, the
	 * records of those chunks are then checked (see {@link textPattern}).
	 */
	async searchText(query: TextQuery): Promise<string[] | undefined> {
		const chars = [...query.text];
		if (chars.length < 3) return undefined;
		const match = trigramQuery(chars);
		const pattern = textPattern(query);
		const names = await this.use(
			(sql) => {
				// A database of an older schema, opened read-only, is not migrated: the catalog reads it all.
				if (!sql.searchable) return undefined;
				if (pattern === undefined) return sql.text.search.all(match);
				// LIKE first (8× faster than the GLOB of classes); the GLOB only where a line holds
				// the long s or the Kelvin sign and the pattern has them (a letter they fold to).
				const odd = /[\u017f\u212a]/.test(pattern) ? 1 : 0;
				return sql.text.searchChecked.all(match, likePattern(query.text), odd, pattern);
			},
			() => [],
		);
		return names?.map((row) => sessionUrl(this.location, row.session));
	}

	/**
	 * Deletes a session: its records, their text index and its backups, in one transaction.
	 * @throws SessionTreeError INVALID_ARGUMENT for a location of another database,
	 *   FILE_NOT_FOUND for a session that does not exist
	 */
	async remove(location: string): Promise<void> {
		const name = this.nameIn(location);
		const notFound = () => new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: location });
		await this.use(
			(sql) =>
				sql.db
					.transaction(() => {
						if (!sql.session.get(name)) throw notFound();
						sql.deleteSession(name);
					})
					.immediate(),
			() => {
				throw notFound();
			},
			"write",
		);
	}

	/** Closes the process's shared connection to the database; it opens again when next used. */
	async close(): Promise<void> {
		closeSharedDatabase(this.file);
	}

	private use<T>(work: (sql: Statements) => T, missing: () => T, access: DatabaseAccess = "read"): Promise<T> {
		return withDatabase(this.location, (driver) => sharedDatabase(driver, this.file, access), work, missing);
	}

	/** The session name of a location of this database. */
	private nameIn(location: string): string {
		const url = parseSqliteUrl(location);
		if (url.file !== this.file || url.name === undefined) {
			throw new SessionTreeError("INVALID_ARGUMENT", `not a session of ${this.location}`, { file: location });
		}
		return url.name;
	}
}

/** Trigrams of a query looked up at most (spread over the text): more only narrow a little. */
const MAX_TRIGRAMS = 32;

/**
 * An FTS5 query for the rows holding every trigram of `chars` (3 or more characters), each
 * a quoted string (no query syntax). The index has no positions (`detail = none`), so the
 * trigrams are looked up apart: a superset of the rows holding the text.
 */
export function trigramQuery(chars: readonly string[]): string {
	const trigrams = new Set<string>();
	for (let i = 0; i + 3 <= chars.length; i++) trigrams.add(chars.slice(i, i + 3).join(""));
	let all = [...trigrams];
	if (all.length > MAX_TRIGRAMS) {
		const step = all.length / MAX_TRIGRAMS;
		all = Array.from({ length: MAX_TRIGRAMS }, (_, k) => all[Math.floor(k * step)] as string);
	}
	return all.map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(" AND ");
}

/**
 * A GLOB pattern that a record's stored JSON text matches whenever its searchable text holds
 * `query.text`, in any letter case as the index (and the catalog's `iu` match: `k` also matches
 * the Kelvin sign, `s` the long s), or undefined when the JSON text need not hold it as it is:
 * a character JSON escapes (`"`, `\`, control characters) or beyond ASCII.
 */
export function textPattern(query: TextQuery): string | undefined {
	let pattern = "*";
	for (const char of query.text) {
		const code = char.charCodeAt(0);
		if (code < 0x20 || code > 0x7e || char === '"' || char === "\\") return undefined;
		const lower = char.toLowerCase();
		const upper = char.toUpperCase();
		if (lower !== upper) {
			const odd = lower === "k" ? "\u212a" : lower === "s" ? "\u017f" : "";
			pattern += `[${lower}${upper}${odd}]`;
		} else if (char === "*" || char === "?" || char === "[") pattern += `[${char}]`;
		else pattern += char;
	}
	return `${pattern}*`;
}

/**
 * The LIKE pattern (with `\` as its escape character) of a text {@link textPattern} has a pattern for: a line
 * matches it when its JSON text holds the text with ASCII letters in any case, which is the
 * GLOB's match for a line without the long s (U+017F) and the Kelvin sign (U+212A), the two
 * characters beyond ASCII that fold to ASCII letters (`s`, `k`) in the catalog's `iu` match.
 * SQLite's LIKE folds ASCII letters only (`case_sensitive_like` is never set here).
 */
export function likePattern(text: string): string {
	return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** The store of a `sqlite:` location (registered in `locations.ts`). */
export function sqliteStore(location: string, options: StoreOptions): SessionStore {
	return new SqliteSessionStore(location, options);
}

/** The collection of a `sqlite:PATH` location (registered in `locations.ts`). */
export function sqliteCollection(location: string): SessionCollection {
	return new SqliteCollection(location);
}
