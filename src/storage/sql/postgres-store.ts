/**
 * The PostgreSQL store: sessions as rows of a database, `postgres://USER@HOST/DB#SESSION_ID`
 * (or `postgresql://`; `?schema=NAME` chooses the PostgreSQL schema, default `session_tree`).
 * Each record is a row holding its JSON text byte for byte (`text`, not `jsonb`) and the
 * columns it is indexed by; a session row holds the generation and record count that make a
 * position. Every write first locks the session row (`FOR UPDATE`), so writers of one
 * session, from any process or host, serialise there and the loser of a race is `behind` or
 * `stale` as the contract says. An append is one statement (the lock is held for no round
 * trip); create and replace are transactions. The tables are in postgres-schema.ts, the
 * connections and their time limits in postgres-pool.ts. Each committed append and replace
 * sends a NOTIFY that readers following the session LISTEN for (postgres-notify.ts).
 *
 * A write never answers while its outcome is unknown: when the connection is lost after it was
 * sent, it is sent again on a new connection (the pool does that), and since every write
 * compares before it writes, an answer of `behind`, `stale` or FILE_EXISTS then may be the
 * first try's own doing; the store checks (`holds`: its own records, as the same JSON text,
 * where it put them) and answers `ok` if so. docs/durability.md, "Lost answers and time limits".
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

import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClientBase } from "pg";
import { readEnvelope } from "../../core/envelope.js";
import { SessionTreeError } from "../../core/errors.js";
import type { ParsedLine, RawRecord } from "../../core/records.js";
import type { Envelope } from "../../core/tree-node.js";
import type { SessionHeader } from "../../core/types.js";
import { errorCode } from "../../core/validate.js";
import { FileLineSource, fileIdentity } from "../line-source.js";
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
import { POSTGRES_STORE_CAPABILITIES, SQL_COLLECTION_CAPABILITIES } from "./capabilities.js";
import { decodePosition, encodePosition, parseStoredLine } from "./common.js";
import { compareAndWrite, type SqlEnd, sameEnd } from "./compare-append.js";
import { PostgresPool } from "./postgres-pool.js";
import {
	type ColumnsAhead,
	columnsAhead,
	indexing,
	insertRows,
	num,
	rowsOf,
	rowValues,
	type Statements,
	searchWords,
	statements,
	timed,
} from "./postgres-rows.js";
import { checkSessionName, maskPassword, type PostgresUrl, parsePostgresUrl, sessionUrl } from "./urls.js";

export { listenPostgres } from "./postgres-notify.js";
export { closePostgresPools } from "./postgres-pool.js";
export { searchWords } from "./postgres-rows.js";
export { migratePostgres } from "./postgres-schema.js";
export { maskPassword, parsePostgresUrl } from "./urls.js";

const CAPABILITIES = POSTGRES_STORE_CAPABILITIES;

/** The bytes of bodies a full read gathers before it writes them to its temporary file. */
const SPILL_PIECE = 1 << 20;
/** Records a page of a full read holds (about 1.3 MB of text in pi's sessions). */
const READ_PAGE = 1000;
/** Records from which a full read keeps bodies aside (see {@link PostgresSessionStore.read}). */
const LAZY_FROM = 10_000;
const COLLECTION_CAPABILITIES = SQL_COLLECTION_CAPABILITIES;

/** How many sessions {@link PostgresCollection.list} fetches per query. */
export const LIST_PAGE_SIZE = 500;

/** How long a write waits for another writer's row lock by default before LOCKED (as the file store's lock). */
const LOCK_TIMEOUT_MS = 10_000;

/** Records from which a write gets more time than the location's limits (below, the extra would be under a second). */
const BULK_RECORDS = 1000;
/** The extra time a write gets per record it stores or copies: a replace of 100,000 records took 42 s on a busy 2-core test machine. */
const MS_PER_RECORD = 1;

/** The session settings last given to each pooled connection, so that they are sent only when they change. */
const configured = new WeakMap<ClientBase, string>();

// ---- the store --------------------------------------------------------------------------

/** Options of {@link PostgresSessionStore}. */
export interface PostgresStoreOptions extends StoreOptions {
	/**
	 * Use a connection of this store's own (opened on first use, released by `close`) instead of
	 * the pool this process shares per database: a second writer as another process would be.
	 */
	privatePool?: boolean;
	/**
	 * Records from which a full read gives entries as envelopes, their bodies kept in a
	 * temporary file (default 10,000; 0: always).
	 * @internal
	 */
	lazyFrom?: number;
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
	/** Rows made ahead by {@link prepareAppend}, by the records' array. */
	private readonly ahead = new WeakMap<readonly object[], Promise<ColumnsAhead | undefined>>();
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
		return this.run(
			async (client) => ((await client.query(this.sql.exists, [name])).rowCount ?? 0) > 0,
			() => false,
		);
	}

	async create(header: SessionHeader): Promise<StorePosition> {
		const name = this.name ?? checkSessionName(header.id, this.where());
		let resent = false;
		let lines: string[] = [];
		try {
			await indexing((limit) => {
				const rows = rowsOf([header], 0, limit, this.where(name));
				lines = rows.line;
				return this.transaction(
					async (client) => {
						const inserted = await client.query(this.sql.create, [name]);
						if (inserted.rowCount === 0) {
							throw new SessionTreeError("FILE_EXISTS", "the session already exists", { file: this.where(name) });
						}
						await insertRows(client, this.sql, name, rows, 1);
					},
					() => {
						resent = true;
					},
				);
			});
		} catch (error) {
			// Sent again after a lost connection, a create may find its own first try: no error then.
			const own = resent && errorCode(error) === "FILE_EXISTS" && (await this.holds(name, 0, 0, lines));
			if (!own) throw error;
		}
		this.name = name;
		return encodePosition(0, 1);
	}

	/**
	 * Every record. A large session of the current version (see `lazyFrom`) is read in pages
	 * of {@link READ_PAGE} records, each checked to be of the generation the first had (a
	 * session's records below its count never change within a generation), and its entries in
	 * pi's exact layout come back as envelopes, read in place from their text as the file store
	 * reads a line (`envelope.ts`): their bodies are written to a temporary file, removed at
	 * once and read by offset from its open descriptor on first use (PostgreSQL answers
	 * asynchronously, and a body is read synchronously), so that a session of a million entries
	 * opens within Node's default heap.
	 */
	async read(): Promise<StoreRead> {
		const name = this.required();
		const head = await this.run(
			(client) => client.query<{ generation: string; count: string }>(this.sql.position, [name]),
			() => undefined,
		);
		const row = head?.rows[0];
		if (row && num(row.count) >= (this.options.lazyFrom ?? LAZY_FROM)) {
			const paged = await this.readPaged(name, num(row.generation), num(row.count));
			if (paged) return paged;
		}
		const read = await this.readFrom(0);
		if (!read) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: this.where() });
		return read.read;
	}

	/**
	 * The records below `count` of generation `generation`, in pages, with bodies kept aside
	 * (see {@link read}); undefined when the session is of another version or was replaced
	 * meanwhile (the caller reads it whole).
	 */
	private async readPaged(name: string, generation: number, count: number): Promise<StoreRead | undefined> {
		const spill = new BodySpill();
		try {
			const lines: ParsedLine[] = [];
			let lazy = false;
			let previous: Envelope | undefined;
			const fetch = (from: number) => {
				const page = this.run(
					(client) =>
						client.query<{ generation: string; seq: string | null; line: string | null }>(this.sql.range, [
							name,
							from,
							Math.min(count, from + READ_PAGE),
						]),
					() => undefined,
				);
				// A page asked ahead and never taken (the read ended early) fails nobody.
				page.catch(() => undefined);
				return page;
			};
			let next = fetch(0);
			for (let from = 0; from < count; from += READ_PAGE) {
				const to = Math.min(count, from + READ_PAGE);
				const page = await next;
				// The next page is asked for now: the server reads it while this one's rows are taken.
				if (to < count) next = fetch(to);
				const rows = page?.rows ?? [];
				if (rows.length !== to - from || num(rows[0]?.generation) !== generation) return undefined;
				for (const row of rows) {
					if (row.seq === null || row.line === null) return undefined;
					const seq = num(row.seq);
					if (seq === 0) {
						const header = parseStoredLine(row.line, 0, this.location);
						if (header.record?.type !== "session" || header.record.version !== 3) return undefined;
						lazy = true;
						lines.push(header);
						continue;
					}
					const bytes = Buffer.from(row.line);
					const envelope =
						lazy && oneRecord(bytes)
							? readEnvelope(bytes, 0, bytes.length, spill.offset, seq + 1, previous)
							: undefined;
					previous = envelope;
					if (envelope) {
						spill.write(bytes);
						lines.push(envelope);
					} else lines.push(parseStoredLine(row.line, seq, this.location));
				}
			}
			const read: StoreRead = { lines, position: encodePosition(generation, count) };
			const source = spill.source(this.where());
			if (source) read.source = source;
			return read;
		} finally {
			spill.release();
		}
	}

	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		const at = decodePosition(position, this.where());
		const read = await this.readFrom(at.count);
		if (!read || read.generation !== at.generation || at.count > read.count) return undefined;
		return read.read;
	}

	/**
	 * Makes the rows of `records` (their JSON lines and search words, most of an append's own
	 * work) while an earlier append waits for the server; the append of the same array takes
	 * them. See {@link SessionStore.prepareAppend}.
	 */
	prepareAppend(records: readonly object[]): Promise<void> {
		const ahead = columnsAhead(records, this.where());
		this.ahead.set(records, ahead);
		return ahead.then(() => undefined);
	}

	async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		const at = decodePosition(expected, this.where());
		const name = this.required();
		const count = at.count + records.length;
		let resent = false;
		let lines: string[] = [];
		const made = this.ahead.get(records);
		let ahead: ColumnsAhead | undefined;
		if (made) {
			this.ahead.delete(records);
			ahead = await made;
		}
		return compareAndWrite<AppendOutcome>(at, {
			// One statement compares and appends: the row lock is held for it only, not for round trips.
			end: async () => {
				const row = await indexing((limit) => {
					const rows = rowsOf(records, at.count, limit, this.where(), ahead);
					lines = rows.line;
					const values = [...rowValues(name, rows, count), at.generation, at.count];
					const bulk = this.bulk(records.length);
					const send = async (client: ClientBase) => {
						// A transaction's settings are its BEGIN's (a SET in it would be undone by a rollback).
						if (!bulk) await this.configure(client);
						const query = timed(this.sql.append, values, bulk?.queryMs);
						return (await client.query<{ generation: string; count: string }>(query)).rows[0];
					};
					const again = () => {
						resent = true;
					};
					// A bulk append (a fork's copies) runs in a transaction, for its own statement_timeout.
					return bulk ? this.transaction(send, again, bulk.begin) : this.write(send, again);
				});
				if (!row) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: this.where() });
				const current = { generation: num(row.generation), count: num(row.count) };
				// Sent again after a lost connection: what follows `expected` may be the first try's own records.
				if (!sameEnd(current, at) && resent && (await this.holds(name, at.generation, at.count, lines))) return at;
				return current;
			},
			write: () => {
				if (this.durability === "none") this.unflushed = true;
				return { status: "ok", position: encodePosition(at.generation, count) };
			},
			// Behind: what others appended, read with the position in one snapshot (a replace since makes it stale).
			since: async (from) => {
				const read = await this.readFrom(from);
				return read && read.generation === at.generation ? read.read : undefined;
			},
		});
	}

	async replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		const at = decodePosition(expected, this.where());
		const name = this.required();
		let resent = false;
		let lines: string[] = [];
		// The old records are copied and deleted, the new ones inserted: time for each.
		const bulk = this.bulk(at.count + records.length);
		const outcome = await indexing((limit) => {
			const rows = rowsOf(records, 0, limit, this.where());
			lines = rows.line;
			return this.transaction(
				async (client) =>
					compareAndWrite<ReplaceOutcome>(at, {
						end: () => this.lock(client, name),
						write: async (current) => {
							await client.query(timed(this.sql.backup, [name, current.generation], bulk?.queryMs));
							await client.query(timed(this.sql.clear, [name], bulk?.queryMs));
							await client.query(this.sql.bump, [name]);
							await insertRows(client, this.sql, name, rows, records.length, bulk?.queryMs);
							// Sent when the transaction commits: readers that follow the session read it again.
							await client.query(this.sql.notify, [name]);
							return this.replaced(current.generation, records.length);
						},
						since: (count, current) => this.rowsSince(client, name, count, current),
					}),
				() => {
					resent = true;
				},
				bulk?.begin,
			);
		});
		// Sent again after a lost connection: the replace that made the position stale may be the first try.
		if (outcome.status === "stale" && resent && (await this.holds(name, at.generation + 1, 0, lines))) {
			return this.replaced(at.generation, records.length);
		}
		return outcome;
	}

	/** The outcome of a replace of generation `generation` by `count` records. */
	private replaced(generation: number, count: number): ReplaceOutcome {
		return {
			status: "ok",
			backup: `${this.location}@backup-${generation}`,
			position: encodePosition(generation + 1, count),
		};
	}

	/**
	 * True when session `name` is in `generation` and holds exactly `lines` (the stored JSON
	 * text) from sequence number `seq` on: after a write was sent again, the first try's doing.
	 */
	private async holds(name: string, generation: number, seq: number, lines: readonly string[]): Promise<boolean> {
		const result = await this.pool().run(
			this.where(name),
			this.url.schema,
			(client) =>
				client.query<{ generation: string; seq: string | null; line: string | null }>(this.sql.range, [
					name,
					seq,
					seq + lines.length,
				]),
			{ absent: () => undefined },
		);
		const rows = result?.rows ?? [];
		if (rows.length !== lines.length || num(rows[0]?.generation) !== generation) return false;
		return rows.every((row, k) => row.seq !== null && num(row.seq) === seq + k && row.line === lines[k]);
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
		const result = await this.run(
			(client) => client.query<{ seq: string; line: string; copies: string }>(this.sql.path, [name, limit]),
			() => undefined,
		);
		if (!result) return undefined;
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
			await this.write(async (client) => {
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
	private async configure(client: ClientBase): Promise<void> {
		if (configured.get(client) === this.settings) return;
		await client.query(this.settings);
		configured.set(client, this.settings);
	}

	/** The session's row, locked until the transaction ends. */
	private async lock(client: ClientBase, name: string): Promise<{ generation: number; count: number }> {
		const row = (await client.query(this.sql.lock, [name])).rows[0];
		if (!row) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: this.where() });
		return { generation: num(row.generation), count: num(row.count) };
	}

	/** The records from `seq` on, read in the transaction of `client` that locked the session row at `current`. */
	private async rowsSince(client: ClientBase, name: string, seq: number, current: SqlEnd): Promise<StoreRead> {
		const rows = await client.query<{ seq: string; line: string }>(this.sql.rowsFrom, [name, seq]);
		const lines = rows.rows.map((row) => parseStoredLine(row.line, num(row.seq), this.location));
		return { lines, position: encodePosition(current.generation, current.count) };
	}

	/** The rows from `seq` on and the position after them, or undefined when the session does not exist. */
	private async readFrom(seq: number): Promise<{ read: StoreRead; generation: number; count: number } | undefined> {
		const name = this.name;
		if (name === undefined) return undefined;
		const result = await this.run(
			(client) =>
				client.query<{ generation: string; count: string; seq: string | null; line: string | null }>(this.sql.read, [
					name,
					seq,
				]),
			() => undefined,
		);
		const first = result?.rows[0];
		if (!first) return undefined;
		const generation = num(first.generation);
		const count = num(first.count);
		const lines: ParsedLine[] = [];
		for (const row of result?.rows ?? []) {
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

	/** A read: `absent` answers when the schema holds no store (nothing is created). */
	private run<T>(work: (client: ClientBase) => Promise<T>, absent: () => T): Promise<T> {
		return this.pool().run(this.where(), this.url.schema, work, { absent });
	}

	/**
	 * A write outside a transaction (an append is one statement): the schema is migrated first.
	 * `resent` is called when it is sent again after a lost connection (see `RunAccess.resent`).
	 */
	private write<T>(work: (client: ClientBase) => Promise<T>, resent?: () => void): Promise<T> {
		return this.pool().run(this.where(), this.url.schema, work, resent ? { write: true, resent } : { write: true });
	}

	/** A write in a transaction opened by `begin` (default: {@link begin}); see {@link write} for `resent`. */
	private transaction<T>(work: (client: ClientBase) => Promise<T>, resent: () => void, begin = this.begin): Promise<T> {
		return this.pool().transaction(this.where(), this.url.schema, begin, work, resent);
	}

	/**
	 * The limits of a write that stores or copies `records` records, when they are many: the
	 * location's (docs/durability.md), and {@link MS_PER_RECORD} more for each, so that a repair
	 * or fork of a large session is not cut off by limits meant for a server that stopped
	 * answering. `begin` opens its transaction with that statement_timeout; `queryMs` is the
	 * client's wait for each of its statements. Undefined below {@link BULK_RECORDS}.
	 */
	private bulk(records: number): { begin: string; queryMs: number | undefined } | undefined {
		if (records < BULK_RECORDS) return undefined;
		const { statementMs, queryMs } = this.url.limits;
		const extra = records * MS_PER_RECORD;
		return {
			begin: statementMs > 0 ? `${this.begin}; SET LOCAL statement_timeout = ${statementMs + extra}` : this.begin,
			queryMs: queryMs > 0 ? queryMs + extra : undefined,
		};
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
 * The bodies of a full read, written one after another to a temporary file that is removed at
 * once (only its descriptor names it), then read by offset through a {@link FileLineSource},
 * which closes the descriptor when nobody can reach it any more.
 */
class BodySpill {
	offset = 0;
	private fd: number | undefined;
	private file: string | undefined;
	private handedOver = false;
	/** Bodies not written yet: one write per {@link SPILL_PIECE} bytes, not one per body (100,000 writes took 0.8 s of a 30 s copy). */
	private readonly pending = Buffer.allocUnsafe(SPILL_PIECE);
	private held = 0;
	/** Where in the file the pending bytes go. */
	private heldAt = 0;

	write(bytes: Buffer): void {
		if (this.fd === undefined) {
			const dir = mkdtempSync(join(tmpdir(), "session-tree-pg-"));
			this.file = join(dir, "bodies");
			this.fd = openSync(this.file, "w+", 0o600);
			unlinkSync(this.file);
			rmSync(dir, { recursive: true, force: true });
		}
		if (this.held + bytes.length > this.pending.length) this.flush();
		if (bytes.length > this.pending.length) this.writeAt(bytes, this.offset);
		else {
			if (this.held === 0) this.heldAt = this.offset;
			bytes.copy(this.pending, this.held);
			this.held += bytes.length;
		}
		this.offset += bytes.length;
	}

	private flush(): void {
		if (this.held === 0) return;
		this.writeAt(this.pending.subarray(0, this.held), this.heldAt);
		this.held = 0;
	}

	private writeAt(bytes: Buffer, at: number): void {
		const fd = this.fd as number;
		for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
	}

	/** The source of the bodies written, which owns the descriptor from now on; undefined when none were. */
	source(where: string): FileLineSource | undefined {
		if (this.fd === undefined || this.file === undefined) return undefined;
		this.flush();
		this.handedOver = true;
		return new FileLineSource(
			`${where} (bodies kept in a removed temporary file)`,
			this.fd,
			fileIdentity(fstatSync(this.fd)),
		);
	}

	/** Closes the descriptor unless a source took it. */
	release(): void {
		if (!this.handedOver && this.fd !== undefined) closeSync(this.fd);
		this.fd = undefined;
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
	const result = await PostgresPool.shared(url).run(
		where,
		url.schema,
		(client) => client.query<{ seq: string; line: string }>(statements(url.schema).backupRows, [name, generation]),
		{ absent: () => ({ rows: [] as { seq: string; line: string }[] }) },
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
			const page = await this.run(
				async (client) =>
					(await client.query<{ name: string; modified_at: Date; bytes: string }>(sql.list, [after, this.pageSize]))
						.rows,
				() => [],
			);
			for (const row of page) {
				yield { location: sessionUrl(this.url.base, row.name), modified: row.modified_at, bytes: num(row.bytes) };
			}
			const last = page.at(-1);
			if (!last || page.length < this.pageSize) return;
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
		const names = await this.run(
			async (client) => {
				const built = await client.query<{ query: string | null }>(sql.tsquery, [words.join(" ")]);
				const tsquery = built.rows[0]?.query;
				if (!tsquery) return undefined;
				return (await client.query<{ session: string }>(sql.search, [tsquery])).rows.map((row) => row.session);
			},
			(): string[] => [],
		);
		return names?.map((name) => sessionUrl(this.url.base, name));
	}

	/**
	 * Deletes a session with its records and backups (cascade), committed durably.
	 * @throws SessionTreeError INVALID_ARGUMENT for a location of another server or schema,
	 *   FILE_NOT_FOUND for a session that does not exist
	 */
	async remove(location: string): Promise<void> {
		const url = parsePostgresUrl(location);
		const name = url.name;
		const where = maskPassword(location);
		if (name === undefined) {
			throw new SessionTreeError("INVALID_ARGUMENT", "remove needs a session URL (…#SESSION_ID)", { file: where });
		}
		if (url.connectionString !== this.url.connectionString || url.schema !== this.url.schema) {
			throw new SessionTreeError("INVALID_ARGUMENT", `not a session of ${this.where()}`, { file: where });
		}
		const notFound = () => new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: where });
		// A schema that holds no store has nothing to remove: a remove creates no tables.
		const pool = PostgresPool.shared(url);
		if (!(await pool.run(where, url.schema, async () => true, { absent: () => false }))) throw notFound();
		// A delete sent again after a lost answer finds nothing: the first one removed the session.
		let resent = false;
		const deleted = await pool.transaction(
			where,
			url.schema,
			"BEGIN; SET LOCAL synchronous_commit = on",
			(client) => client.query(statements(url.schema).remove, [name]),
			() => {
				resent = true;
			},
		);
		if (deleted.rowCount === 0 && !resent) throw notFound();
	}

	/** Nothing to release: the pool is the process's (see closePostgresPools). */
	async close(): Promise<void> {}

	private where(): string {
		return maskPassword(this.location);
	}

	/** A read: `absent` answers when the schema holds no store (nothing is created). */
	private run<T>(work: (client: ClientBase) => Promise<T>, absent: () => T): Promise<T> {
		return PostgresPool.shared(this.url).run(this.where(), this.url.schema, work, { absent });
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
