/**
 * The PostgreSQL store: sessions as rows of a database, `postgres://USER@HOST/DB#SESSION_ID`
 * (or `postgresql://`; `?schema=NAME` chooses the PostgreSQL schema, default `session_tree`).
 * Each record is a row holding its JSON text byte for byte (`text`, not `jsonb`) and the
 * columns it is indexed by; a session row holds the generation and record count that make a
 * position. Every write first locks the session row (`FOR UPDATE`), so writers of one
 * session, from any process or host, serialise there and the loser of a race is `behind` or
 * `stale` as the contract says. An append is one statement (the lock is held for no round
 * trip); create and replace are transactions. The tables are in postgres-schema.ts.
 *
 * Durability, declared as ["none", "fsync"]:
 * - "fsync" (the default): writes commit with `synchronous_commit = on`: `append` resolves once
 *   the commit record is flushed to the server's WAL (and to synchronous standbys, where the
 *   server has them). Whether that flush reaches the disk (the server's `fsync`) is the DBA's.
 * - "none": writes commit with `synchronous_commit = off`: `append` resolves before the WAL is
 *   flushed, so a crash of the server (not of the client) may lose the last acknowledged
 *   appends (at most about three times `wal_writer_delay`), never corrupt or reorder what
 *   stays. `flush` and `close` make them durable: a transaction that commits synchronously
 *   flushes the WAL up to itself, and so past every commit before it.
 *
 * Search: each record's searchable text is indexed as a `tsvector` of its words (letters,
 * digits and marks; case folded), each word matched as a prefix: a session whose text holds a
 * substring starting at a word's start is found. The catalog then confirms the substring.
 */

import type { PoolClient } from "pg";
import { SessionTreeError } from "../../core/errors.js";
import type { RawRecord } from "../../core/migrate.js";
import type { ParsedLine } from "../../core/reducer.js";
import type { SessionHeader } from "../../core/types.js";
import { isObject } from "../../core/validate.js";
import type { StoreOptions } from "../locations.js";
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
import { SQL_COLLECTION_CAPABILITIES, SQL_STORE_CAPABILITIES } from "./capabilities.js";
import { decodePosition, encodePosition, indexRecord, parseStoredLine } from "./common.js";
import { PostgresPool, quoteSchema } from "./postgres-schema.js";
import { checkSessionName, maskPassword, type PostgresUrl, parsePostgresUrl, sessionUrl } from "./urls.js";

export { closePostgresPools, migratePostgres } from "./postgres-schema.js";
export { maskPassword, parsePostgresUrl } from "./urls.js";

const CAPABILITIES = SQL_STORE_CAPABILITIES;
const COLLECTION_CAPABILITIES = SQL_COLLECTION_CAPABILITIES;

/** How many sessions {@link PostgresCollection.list} fetches per query. */
export const LIST_PAGE_SIZE = 500;

/** How long a write waits for another writer's row lock by default before LOCKED (as the file store's lock). */
const LOCK_TIMEOUT_MS = 10_000;

// ---- rows -------------------------------------------------------------------------------

/** Words longer than this (UTF-16 units) are indexed by their start: a lexeme must stay under 2,047 bytes. */
const MAX_WORD = 500;
/**
 * A record whose distinct words would make too large a `tsvector` is not indexed but marked
 * `unindexed`, so that every search considers its session. PostgreSQL refuses a `tsvector`
 * whose lexemes and positions take 1 MiB; each distinct word costs its bytes, padding and
 * 4 bytes of one position (see {@link wordCost}): kept under this, with room for case
 * folding that lengthens a letter.
 */
const MAX_INDEX_BYTES = 1_000_000;
/** What a distinct word adds to the `tsvector` `to_tsvector` builds: its bytes, padding to 2, a count and a position. */
function wordCost(word: string): number {
	return Buffer.byteLength(word) + 6;
}
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The distinct words of a text as the search index holds them: runs of letters, digits and
 * marks (PostgreSQL's parser would keep `src/a.ts` as one token, and a search for `a.ts`
 * would miss it), case folded so that an ignore-case search finds every case, clipped to
 * {@link MAX_WORD}. Query and records go through the same function, so a query's words are
 * prefixes of the words of any text holding it that start where they start.
 */
export function searchWords(text: string): string[] {
	const words = new Set<string>();
	// Lower then upper: σ and ς, ſ and s, the Kelvin sign and k end up alike, and no mapping depends on context.
	for (const [word] of text.toLowerCase().toUpperCase().matchAll(WORD)) {
		const cut =
			word.length <= MAX_WORD ? MAX_WORD : isHighSurrogate(word.charCodeAt(MAX_WORD - 1)) ? MAX_WORD - 1 : MAX_WORD;
		words.add(word.slice(0, cut));
	}
	return [...words];
}

function isHighSurrogate(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

/** PostgreSQL text cannot hold NUL: an index column gets U+FFFD instead (the line keeps `\u0000`, escaped). */
function column(value: string | null): string | null {
	return value?.includes("\0") ? value.replaceAll("\0", "\ufffd") : value;
}

/** Records as the column arrays of one `INSERT … SELECT FROM unnest(…)`, from sequence number `from`. */
interface Rows {
	seq: number[];
	type: (string | null)[];
	id: (string | null)[];
	parentId: (string | null)[];
	line: string[];
	words: (string | null)[];
	unindexed: boolean[];
	/** The size of a JSONL copy: each line and its newline. */
	bytes: number;
}

function rowsOf(records: readonly object[], from: number, indexLimit: number): Rows {
	const rows: Rows = { seq: [], type: [], id: [], parentId: [], line: [], words: [], unindexed: [], bytes: 0 };
	records.forEach((record, k) => {
		const indexed = indexRecord(record);
		const words = indexed.text === null ? [] : searchWords(indexed.text);
		let size = 0;
		for (const word of words) size += wordCost(word);
		rows.seq.push(from + k);
		rows.type.push(column(indexed.type));
		rows.id.push(column(indexed.id));
		rows.parentId.push(column(indexed.parentId));
		rows.line.push(indexed.line);
		rows.words.push(words.length === 0 || size > indexLimit ? null : words.join(" "));
		rows.unindexed.push(size > indexLimit);
		rows.bytes += Buffer.byteLength(indexed.line) + 1;
	});
	return rows;
}

/**
 * Runs a write with records indexed up to {@link MAX_INDEX_BYTES}; should PostgreSQL still find
 * a `tsvector` too long (SQLSTATE 54000: its parser split words more finely than ours), runs
 * it again with none of them indexed, rather than refuse the write.
 */
async function indexing<T>(write: (indexLimit: number) => Promise<T>): Promise<T> {
	try {
		return await write(MAX_INDEX_BYTES);
	} catch (error) {
		if (!(error instanceof SessionTreeError && isObject(error.cause) && error.cause.code === "54000")) throw error;
		return write(0);
	}
}

/** A bigint column (pg hands those over as strings) as a number. */
function num(value: unknown): number {
	return typeof value === "number" ? value : Number(value);
}

/** The SQL of one schema. */
function statementsFor(schema: string) {
	const s = quoteSchema(schema);
	const insert = `INSERT INTO ${s}.records (session, seq, type, id, parent_id, line, search, unindexed)
	SELECT $1, r.seq, r.type, r.id, r.parent_id, r.line, strip(to_tsvector('simple', r.words)), r.unindexed
	FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[])
		AS r (seq, type, id, parent_id, line, words, unindexed)`;
	return {
		exists: `SELECT 1 FROM ${s}.sessions WHERE name = $1`,
		create: `INSERT INTO ${s}.sessions (name, generation, count, bytes) VALUES ($1, 0, 0, 0) ON CONFLICT (name) DO NOTHING`,
		lock: `SELECT generation, count FROM ${s}.sessions WHERE name = $1 FOR UPDATE`,
		// Records and the session row in one statement: one snapshot, so the position matches the rows.
		read: `SELECT s.generation, s.count, r.seq, r.line FROM ${s}.sessions s
	LEFT JOIN ${s}.records r ON r.session = s.name AND r.seq >= $2
	WHERE s.name = $1 ORDER BY r.seq`,
		rowsFrom: `SELECT seq, line FROM ${s}.records WHERE session = $1 AND seq >= $2 ORDER BY seq`,
		insert: `WITH added AS (${insert})
	UPDATE ${s}.sessions SET count = $9, bytes = bytes + $10, modified_at = now() WHERE name = $1`,
		// Compare-and-append in one statement: lock the session row (a concurrent writer's commit
		// is waited for, and its row version read), insert and count only if the session still
		// ends at generation $11, count $12; return the row either way. The row lock is held for
		// the statement only, not for round trips.
		append: `WITH current AS (SELECT generation, count FROM ${s}.sessions WHERE name = $1 FOR UPDATE),
	go AS (SELECT 1 FROM current WHERE generation = $11 AND count = $12),
	added AS (${insert} WHERE EXISTS (SELECT 1 FROM go)),
	counted AS (UPDATE ${s}.sessions SET count = $9, bytes = bytes + $10, modified_at = now()
		WHERE name = $1 AND EXISTS (SELECT 1 FROM go))
	SELECT generation, count FROM current`,
		backup: `INSERT INTO ${s}.backups (session, generation, seq, line)
	SELECT session, $2, seq, line FROM ${s}.records WHERE session = $1`,
		clear: `DELETE FROM ${s}.records WHERE session = $1`,
		bump: `UPDATE ${s}.sessions SET generation = generation + 1, bytes = 0 WHERE name = $1`,
		// From the last record with an id, follow parent ids by index, at most $2 records; a
		// record's copies (duplicate ids) tell when the walk is ambiguous. The header comes along.
		path: `WITH RECURSIVE path (seq, id, parent_id, line, depth) AS (
		(SELECT seq, id, parent_id, line, 1 FROM ${s}.records
			WHERE session = $1 AND seq > 0 AND id IS NOT NULL ORDER BY seq DESC LIMIT 1)
		UNION ALL
		SELECT r.seq, r.id, r.parent_id, r.line, p.depth + 1 FROM path p
		CROSS JOIN LATERAL (SELECT seq, id, parent_id, line FROM ${s}.records
			WHERE session = $1 AND seq > 0 AND id = p.parent_id ORDER BY seq DESC LIMIT 1) r
		WHERE p.depth < $2
	)
	SELECT seq, line, (SELECT count(*) FROM ${s}.records d WHERE d.session = $1 AND d.id = path.id) AS copies
	FROM path
	UNION ALL
	SELECT seq, line, 1 FROM ${s}.records WHERE session = $1 AND seq = 0
	ORDER BY seq`,
		backupRows: `SELECT seq, line FROM ${s}.backups WHERE session = $1 AND generation = $2 ORDER BY seq`,
		list: `SELECT name, modified_at, bytes FROM ${s}.sessions WHERE name > $1 ORDER BY name LIMIT $2`,
		remove: `DELETE FROM ${s}.sessions WHERE name = $1`,
		// Every lexeme of the query's words as a prefix, joined by AND (quotes and backslashes doubled, as tsquery input wants).
		tsquery: `SELECT string_agg(chr(39) || replace(replace(lexeme, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39) || ':*', ' & ') AS query
	FROM unnest(to_tsvector('simple', $1))`,
		search: `SELECT session FROM ${s}.records WHERE search @@ $1::tsquery
	UNION SELECT session FROM ${s}.records WHERE unindexed`,
	};
}

type Statements = ReturnType<typeof statementsFor>;
const statementCache = new Map<string, Statements>();

function statements(schema: string): Statements {
	let sql = statementCache.get(schema);
	if (!sql) {
		sql = statementsFor(schema);
		statementCache.set(schema, sql);
	}
	return sql;
}

/** The parameters $1 to $10 of the INSERT of `rows` into session `name`, whose count becomes `count`. */
function rowValues(name: string, rows: Rows, count: number): unknown[] {
	return [name, rows.seq, rows.type, rows.id, rows.parentId, rows.line, rows.words, rows.unindexed, count, rows.bytes];
}

/** Runs the INSERT of `rows` into session `name` and sets its count to `count`. */
async function insertRows(client: PoolClient, sql: Statements, name: string, rows: Rows, count: number): Promise<void> {
	await client.query(sql.insert, rowValues(name, rows, count));
}

/** The session settings last given to each pooled connection, so that they are sent only when they change. */
const configured = new WeakMap<PoolClient, string>();

// ---- the store --------------------------------------------------------------------------

/** Options of {@link PostgresSessionStore}. */
export interface PostgresStoreOptions extends StoreOptions {
	/**
	 * Use a connection of this store's own (opened on first use, released by `close`) instead of
	 * the pool this process shares per database: a second writer as another process would be.
	 */
	privatePool?: boolean;
}

/**
 * One session of a PostgreSQL database. A store made from a URL without `#SESSION_ID` has no
 * name until {@link create}, which names the session by its header's id; its `location` is
 * the session's URL from then on.
 */
export class PostgresSessionStore implements SessionStore {
	readonly capabilities = CAPABILITIES;
	private readonly url: PostgresUrl;
	private readonly sql: Statements;
	private name: string | undefined;
	private readonly options: PostgresStoreOptions;
	/**
	 * Opens a write transaction: read committed (a row lock waits, then sees the latest
	 * version), this store's durability and lock timeout.
	 */
	private readonly begin: string;
	/** The same, as settings of a connection: the append is one statement outside a transaction. */
	private readonly settings: string;
	private ownPool: PostgresPool | undefined;
	/** An append committed without waiting for the WAL flush ("none") since the last flush. */
	private unflushed = false;

	/**
	 * @param location `postgres://…[?schema=NAME][#SESSION_ID]`
	 * @throws SessionTreeError INVALID_ARGUMENT for a malformed location
	 */
	constructor(location: string, options: PostgresStoreOptions = {}) {
		this.url = parsePostgresUrl(location);
		this.name = this.url.name;
		this.sql = statements(this.url.schema);
		this.options = options;
		const lockMs = Math.max(1, Math.trunc(options.lock?.timeoutMs ?? LOCK_TIMEOUT_MS));
		const commit = this.durability === "none" ? "off" : "on";
		// Our own integer and words only: SET takes no parameters.
		this.begin = `BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL synchronous_commit = ${commit}; SET LOCAL lock_timeout = ${lockMs}`;
		this.settings = `SET synchronous_commit = ${commit}; SET lock_timeout = ${lockMs}; SET default_transaction_isolation = 'read committed'`;
	}

	/** The session's URL (the database's until a store made without a name creates its session). */
	get location(): string {
		return this.name === undefined ? this.url.base : sessionUrl(this.url.base, this.name);
	}

	private get durability(): Durability {
		return this.options.durability === "none" ? "none" : "fsync";
	}

	async exists(): Promise<boolean> {
		const name = this.name;
		if (name === undefined) return false;
		return this.run(async (client) => ((await client.query(this.sql.exists, [name])).rowCount ?? 0) > 0);
	}

	async create(header: SessionHeader): Promise<StorePosition> {
		const name = this.name ?? checkSessionName(header.id, this.where());
		await indexing((limit) =>
			this.transaction(async (client) => {
				const inserted = await client.query(this.sql.create, [name]);
				if (inserted.rowCount === 0) {
					throw new SessionTreeError("FILE_EXISTS", "the session already exists", { file: this.where(name) });
				}
				await insertRows(client, this.sql, name, rowsOf([header], 0, limit), 1);
			}),
		);
		this.name = name;
		return encodePosition(0, 1);
	}

	async read(): Promise<StoreRead> {
		const read = await this.readFrom(0);
		if (!read) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: this.where() });
		return read.read;
	}

	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		const at = decodePosition(position, this.where());
		const read = await this.readFrom(at.count);
		if (!read || read.generation !== at.generation || at.count > read.count) return undefined;
		return read.read;
	}

	async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		const at = decodePosition(expected, this.where());
		const name = this.required();
		const count = at.count + records.length;
		const row = await indexing((limit) =>
			this.run(async (client) => {
				await this.configure(client);
				const rows = rowsOf(records, at.count, limit);
				const values = [...rowValues(name, rows, count), at.generation, at.count];
				return (await client.query<{ generation: string; count: string }>(this.sql.append, values)).rows[0];
			}),
		);
		if (!row) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: this.where() });
		const current = { generation: num(row.generation), count: num(row.count) };
		if (current.generation === at.generation && current.count === at.count) {
			if (this.durability === "none") this.unflushed = true;
			return { status: "ok", position: encodePosition(at.generation, count) };
		}
		if (current.generation !== at.generation || at.count > current.count) return { status: "stale" };
		// Behind: what others appended, read with the position in one snapshot (a replace since makes it stale).
		const read = await this.readFrom(at.count);
		if (!read || read.generation !== at.generation) return { status: "stale" };
		return { status: "behind", read: read.read };
	}

	async replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		const at = decodePosition(expected, this.where());
		const name = this.required();
		return indexing((limit) =>
			this.transaction(async (client): Promise<ReplaceOutcome> => {
				const current = await this.lock(client, name);
				const other = await this.compare(client, name, current, at);
				if (other) return other;
				await client.query(this.sql.backup, [name, current.generation]);
				await client.query(this.sql.clear, [name]);
				await client.query(this.sql.bump, [name]);
				await insertRows(client, this.sql, name, rowsOf(records, 0, limit), records.length);
				const backup = `${this.location}@backup-${current.generation}`;
				return { status: "ok", backup, position: encodePosition(current.generation + 1, records.length) };
			}),
		);
	}

	/**
	 * The header and the active path: from the last record with an id, parent ids followed by
	 * index (`(session, id)`), at most `count` records, in stream order. Undefined for a session
	 * that is missing or not of version 3, a line that does not parse, or a walk that meets a
	 * duplicate id or goes round in a cycle: a full read sorts those out.
	 */
	async readPath(count: number): Promise<TailRead | undefined> {
		const name = this.name;
		if (name === undefined) return undefined;
		const limit = Math.max(1, Math.trunc(count));
		const result = await this.run((client) =>
			client.query<{ seq: string; line: string; copies: string }>(this.sql.path, [name, limit]),
		);
		const [first, ...path] = result.rows;
		if (!first || num(first.seq) !== 0) return undefined;
		const header = parseStoredLine(first.line, 0, this.location).record;
		if (header?.version !== 3) return undefined;
		const records: RawRecord[] = [];
		let previous = 0;
		for (const row of path) {
			const seq = num(row.seq);
			const record = parseStoredLine(row.line, seq, this.location).record;
			// A seq met twice is a cycle; several records with one id make the walk a guess.
			if (!record || seq === previous || num(row.copies) !== 1) return undefined;
			records.push(record);
			previous = seq;
		}
		return { header, records, whole: false };
	}

	/** Another session of the same database and schema, named by the header's id. */
	derive(header: SessionHeader): PostgresSessionStore {
		const name = checkSessionName(header.id, this.where());
		return new PostgresSessionStore(sessionUrl(this.url.base, name), { ...this.options, privatePool: false });
	}

	/**
	 * With durability "none", makes the appends acknowledged so far durable: a transaction that
	 * commits synchronously (it takes a transaction id, so it writes a commit record) waits for
	 * the WAL to be flushed up to it, and so past every commit before it.
	 */
	async flush(): Promise<void> {
		if (!this.unflushed) return;
		this.unflushed = false;
		try {
			await this.run(async (client) => {
				await client.query("BEGIN; SET LOCAL synchronous_commit = on; SELECT txid_current(); COMMIT");
			});
		} catch (error) {
			this.unflushed = true;
			throw error;
		}
	}

	/** Flushes, and releases a private pool (a shared one stays for the process's other stores). */
	async close(): Promise<void> {
		await this.flush();
		const own = this.ownPool;
		this.ownPool = undefined;
		await own?.retire();
	}

	/** Gives a connection this store's settings, unless it has them already. */
	private async configure(client: PoolClient): Promise<void> {
		if (configured.get(client) === this.settings) return;
		await client.query(this.settings);
		configured.set(client, this.settings);
	}

	/** The session's row, locked until the transaction ends. */
	private async lock(client: PoolClient, name: string): Promise<{ generation: number; count: number }> {
		const row = (await client.query(this.sql.lock, [name])).rows[0];
		if (!row) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: this.where() });
		return { generation: num(row.generation), count: num(row.count) };
	}

	/** Stale or behind (with what others appended) when the session does not end at `at`; undefined when it does. */
	private async compare(
		client: PoolClient,
		name: string,
		current: { generation: number; count: number },
		at: { generation: number; count: number },
	): Promise<{ status: "stale" } | { status: "behind"; read: StoreRead } | undefined> {
		if (at.generation !== current.generation || at.count > current.count) return { status: "stale" };
		if (at.count === current.count) return undefined;
		const rows = await client.query<{ seq: string; line: string }>(this.sql.rowsFrom, [name, at.count]);
		const lines = rows.rows.map((row) => parseStoredLine(row.line, num(row.seq), this.location));
		return { status: "behind", read: { lines, position: encodePosition(current.generation, current.count) } };
	}

	/** The rows from `seq` on and the position after them, or undefined when the session does not exist. */
	private async readFrom(seq: number): Promise<{ read: StoreRead; generation: number; count: number } | undefined> {
		const name = this.name;
		if (name === undefined) return undefined;
		const result = await this.run((client) =>
			client.query<{ generation: string; count: string; seq: string | null; line: string | null }>(this.sql.read, [
				name,
				seq,
			]),
		);
		const first = result.rows[0];
		if (!first) return undefined;
		const generation = num(first.generation);
		const count = num(first.count);
		const lines: ParsedLine[] = [];
		for (const row of result.rows) {
			if (row.seq !== null && row.line !== null) lines.push(parseStoredLine(row.line, num(row.seq), this.location));
		}
		return { read: { lines, position: encodePosition(generation, count) }, generation, count };
	}

	private required(): string {
		if (this.name === undefined) {
			throw new SessionTreeError("FILE_NOT_FOUND", "no such session (the location names none)", { file: this.where() });
		}
		return this.name;
	}

	/** The location for messages: without its password. */
	private where(name = this.name): string {
		return maskPassword(name === undefined ? this.url.base : sessionUrl(this.url.base, name));
	}

	private pool(): PostgresPool {
		if (!this.options.privatePool) return PostgresPool.shared(this.url);
		this.ownPool ??= PostgresPool.private(this.url);
		return this.ownPool;
	}

	private run<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
		return this.pool().run(this.where(), this.url.schema, work);
	}

	private transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
		return this.pool().transaction(this.where(), this.url.schema, this.begin, work);
	}
}

/** `postgres://…#NAME@backup-GENERATION`: the records the session had in that generation. */
const BACKUP = /^(.*)@backup-(\d{1,15})$/;

/**
 * The records a `replace` of a PostgreSQL session kept, by the backup name it returned, header first.
 * @throws SessionTreeError INVALID_ARGUMENT for another name, FILE_NOT_FOUND when there is no such backup
 */
export async function readPostgresBackup(backup: string): Promise<RawRecord[]> {
	const match = BACKUP.exec(backup);
	const url = match?.[1] === undefined ? undefined : parsePostgresUrl(match[1]);
	const where = maskPassword(backup);
	if (!url?.name || match?.[2] === undefined) {
		throw new SessionTreeError("INVALID_ARGUMENT", "not a postgres backup (postgres://…#SESSION_ID@backup-N)", {
			file: where,
		});
	}
	const name = url.name;
	const generation = Number(match[2]);
	const result = await PostgresPool.shared(url).run(where, url.schema, (client) =>
		client.query<{ seq: string; line: string }>(statements(url.schema).backupRows, [name, generation]),
	);
	if (result.rows.length === 0) throw new SessionTreeError("FILE_NOT_FOUND", "no such backup", { file: where });
	return result.rows.map((row) => {
		const parsed = parseStoredLine(row.line, num(row.seq), where);
		if (!parsed.record) throw parsed.error ?? new SessionTreeError("INVALID_JSON", "a backup line", { file: where });
		return parsed.record;
	});
}

// ---- the collection ---------------------------------------------------------------------

/** Options of {@link PostgresCollection}. */
export interface PostgresCollectionOptions {
	/** Sessions fetched per query by `list`. Default {@link LIST_PAGE_SIZE}. */
	pageSize?: number;
}

/** The sessions of one PostgreSQL database and schema (`postgres://…` without `#`). */
export class PostgresCollection implements SessionCollection {
	readonly capabilities = COLLECTION_CAPABILITIES;
	readonly location: string;
	private readonly url: PostgresUrl;
	private readonly pageSize: number;

	/** @throws SessionTreeError INVALID_ARGUMENT for a malformed location or one naming a session */
	constructor(location: string, options: PostgresCollectionOptions = {}) {
		this.url = parsePostgresUrl(location);
		if (this.url.name !== undefined) {
			throw new SessionTreeError("INVALID_ARGUMENT", "a postgres collection is a database URL without #SESSION_ID", {
				file: maskPassword(location),
			});
		}
		this.location = this.url.base;
		this.pageSize = Math.max(1, Math.trunc(options.pageSize ?? LIST_PAGE_SIZE));
	}

	/** Every session, by name, a page of {@link LIST_PAGE_SIZE} per query (keyset: never all at once). */
	async *list(): AsyncIterable<SessionListing> {
		const sql = statements(this.url.schema);
		let after = "";
		for (;;) {
			const page = await this.run((client) =>
				client.query<{ name: string; modified_at: Date; bytes: string }>(sql.list, [after, this.pageSize]),
			);
			for (const row of page.rows) {
				yield { location: sessionUrl(this.url.base, row.name), modified: row.modified_at, bytes: num(row.bytes) };
			}
			const last = page.rows.at(-1);
			if (!last || page.rows.length < this.pageSize) return;
			after = last.name;
		}
	}

	open(location: string): PostgresSessionStore {
		return new PostgresSessionStore(location);
	}

	/** This database's session named by the header's id. */
	sessionFor(header: SessionHeader): PostgresSessionStore {
		return new PostgresSessionStore(sessionUrl(this.url.base, checkSessionName(header.id, this.where())));
	}

	/**
	 * The sessions with a record holding every word of the text, each as a prefix of one of
	 * its words (by the GIN index), and those with a record too large to index. Undefined when
	 * the text has no word: the catalog then reads every session.
	 */
	async searchText(query: TextQuery): Promise<string[] | undefined> {
		const words = searchWords(query.text);
		if (words.length === 0) return undefined;
		const sql = statements(this.url.schema);
		const names = await this.run(async (client) => {
			const built = await client.query<{ query: string | null }>(sql.tsquery, [words.join(" ")]);
			const tsquery = built.rows[0]?.query;
			if (!tsquery) return undefined;
			return (await client.query<{ session: string }>(sql.search, [tsquery])).rows.map((row) => row.session);
		});
		return names?.map((name) => sessionUrl(this.url.base, name));
	}

	/** Deletes a session with its records and backups (cascade), committed durably; a missing one is no error. */
	async remove(location: string): Promise<void> {
		const url = parsePostgresUrl(location);
		const name = url.name;
		const where = maskPassword(location);
		if (name === undefined) {
			throw new SessionTreeError("INVALID_ARGUMENT", "remove needs a session URL (…#SESSION_ID)", { file: where });
		}
		await PostgresPool.shared(url).transaction(
			where,
			url.schema,
			"BEGIN; SET LOCAL synchronous_commit = on",
			(client) => client.query(statements(url.schema).remove, [name]),
		);
	}

	/** Nothing to release: the pool is the process's (see closePostgresPools). */
	async close(): Promise<void> {}

	private where(): string {
		return maskPassword(this.location);
	}

	private run<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
		return PostgresPool.shared(this.url).run(this.where(), this.url.schema, work);
	}
}

/** The store of a `postgres://` location (registered for `postgres:` and `postgresql:`). */
export function postgresStore(location: string, options: StoreOptions): SessionStore {
	return new PostgresSessionStore(location, options);
}

/** The collection of a `postgres://` location without `#`. */
export function postgresCollection(location: string): SessionCollection {
	return new PostgresCollection(location);
}
