/**
 * The PostgreSQL store's rows and statements: how a record becomes a row (its JSON text, the
 * indexed columns, the words of its searchable text as a `tsvector` input, or `unindexed`
 * when they would be too many), and the SQL of every operation, prepared per schema. Split
 * from postgres-store.ts, which holds the store and collection classes that run them.
 */

import type { ClientBase, QueryConfig } from "pg";
import { SessionTreeError } from "../../core/errors.js";
import { isObject } from "../../core/validate.js";
import { indexRecord } from "./common.js";
import { quoteSchema } from "./postgres-schema.js";

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
/** {@link WORD} in a text of ASCII only, folded to upper case: the same runs, without Unicode classes. */
const ASCII_WORD = /[A-Z0-9]+/g;
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * The distinct words of a text as the search index holds them: runs of letters, digits and
 * marks (PostgreSQL's parser would keep `src/a.ts` as one token, and a search for `a.ts`
 * would miss it), case folded so that an ignore-case search finds every case, clipped to
 * {@link MAX_WORD}. Query and records go through the same function, so a query's words are
 * prefixes of the words of any text holding it that start where they start.
 */
export function searchWords(text: string): string[] {
	const words = new Set<string>();
	// A text of ASCII only (most of a session's) has no letters, digits or marks beyond [A-Za-z0-9], and
	// upper case alone folds its every case: the same words at a fraction of the cost (the Unicode
	// classes and a second case mapping took most of the time of indexing a copy's records).
	const ascii = !NOT_ASCII.test(text);
	// Lower then upper: σ and ς, ſ and s, the Kelvin sign and k end up alike, and no mapping depends on context.
	const folded = ascii ? text.toUpperCase() : text.toLowerCase().toUpperCase();
	for (const [word] of folded.matchAll(ascii ? ASCII_WORD : WORD)) {
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
export interface Rows extends Columns {
	seq: number[];
	/** The columns' array literals, when they were made ahead ({@link columnsAhead}). */
	literals?: ColumnLiterals;
}

/** The columns of {@link Rows} that depend on the records alone (not on where they go). */
export interface Columns {
	type: (string | null)[];
	id: (string | null)[];
	parentId: (string | null)[];
	line: string[];
	words: (string | null)[];
	unindexed: boolean[];
	/** The size of a JSONL copy: each line and its newline. */
	bytes: number;
}

/** The columns of `records`, made ahead of their append by {@link columnsAhead}, and the index limit they were made with. */
export interface ColumnsAhead {
	readonly records: readonly object[];
	readonly indexLimit: number;
	readonly columns: Columns;
	/** The columns as the array literals the INSERT is sent (see {@link arrayLiteral}). */
	readonly literals: ColumnLiterals;
}

/** The array columns of {@link Columns} as PostgreSQL array literals. */
type ColumnLiterals = { readonly [K in ArrayColumn]: string };
type ArrayColumn = "type" | "id" | "parentId" | "line" | "words" | "unindexed";

/** `\` and `"`: what a double-quoted element of an array literal escapes with a backslash. */
const ARRAY_ESCAPED = /[\\"]/g;

/**
 * The PostgreSQL array literal of `values` (PostgreSQL's "Array Value Input"): each element in
 * double quotes with `\` and `"` escaped by a backslash, `NULL` unquoted. pg makes the same text
 * of a JavaScript array parameter; made here, it can be made ahead of the INSERT (a string is
 * sent as it is): 13 s of the client's work in a copy of s1m, on the path between the server's
 * answer to one batch and its next INSERT.
 */
export function arrayLiteral(values: readonly (string | number | boolean | null)[]): string {
	let literal = "{";
	for (let k = 0; k < values.length; k++) {
		if (k > 0) literal += ",";
		const value = values[k];
		literal += value === null || value === undefined ? "NULL" : `"${String(value).replace(ARRAY_ESCAPED, "\\$&")}"`;
	}
	return `${literal}}`;
}

function literalsOf(columns: Columns): ColumnLiterals {
	return {
		type: arrayLiteral(columns.type),
		id: arrayLiteral(columns.id),
		parentId: arrayLiteral(columns.parentId),
		line: arrayLiteral(columns.line),
		words: arrayLiteral(columns.words),
		unindexed: arrayLiteral(columns.unindexed),
	};
}

/** Records made into columns per turn of the event loop ahead of an append (about 4 ms of work). */
const AHEAD_SLICE = 64;

/**
 * `records[from, to)` added to `columns`: each record's JSON line, its indexed columns and its
 * search words (or `unindexed` past `indexLimit`).
 */
function addColumns(
	columns: Columns,
	records: readonly object[],
	from: number,
	to: number,
	indexLimit: number,
	location?: string,
): void {
	for (let k = from; k < to; k++) {
		const indexed = indexRecord(records[k] as object, location);
		const words = indexed.text === null ? [] : searchWords(indexed.text);
		let size = 0;
		for (const word of words) size += wordCost(word);
		columns.type.push(column(indexed.type));
		columns.id.push(column(indexed.id));
		columns.parentId.push(column(indexed.parentId));
		columns.line.push(indexed.line);
		columns.words.push(words.length === 0 || size > indexLimit ? null : words.join(" "));
		columns.unindexed.push(size > indexLimit);
		columns.bytes += Buffer.byteLength(indexed.line) + 1;
	}
}

function noColumns(): Columns {
	return { type: [], id: [], parentId: [], line: [], words: [], unindexed: [], bytes: 0 };
}

/**
 * The rows of `records` from sequence number `from`: their columns made here, or taken from
 * `ahead` when it holds these records made with this index limit.
 */
export function rowsOf(
	records: readonly object[],
	from: number,
	indexLimit: number,
	location?: string,
	ahead?: ColumnsAhead,
): Rows {
	const seq = new Array<number>(records.length);
	for (let k = 0; k < records.length; k++) seq[k] = from + k;
	if (ahead !== undefined && ahead.records === records && ahead.indexLimit === indexLimit) {
		return { seq, ...ahead.columns, literals: ahead.literals };
	}
	const columns = noColumns();
	addColumns(columns, records, 0, records.length, indexLimit, location);
	return { seq, ...columns };
}

/**
 * The columns of `records` as the first try of an append makes them ({@link indexing}'s
 * limit), a slice at a time with a turn of the event loop between slices: made while an
 * earlier append waits for the server, whose answers are taken between the slices.
 * Undefined when a record cannot be encoded (the append then meets the error itself).
 */
export async function columnsAhead(records: readonly object[], location?: string): Promise<ColumnsAhead | undefined> {
	const columns = noColumns();
	try {
		for (let at = 0; at < records.length; at += AHEAD_SLICE) {
			addColumns(columns, records, at, Math.min(records.length, at + AHEAD_SLICE), MAX_INDEX_BYTES, location);
			await new Promise<void>((resolve) => setImmediate(resolve));
		}
	} catch {
		return undefined;
	}
	return { records, indexLimit: MAX_INDEX_BYTES, columns, literals: literalsOf(columns) };
}

/**
 * Runs a write with records indexed up to {@link MAX_INDEX_BYTES}; should PostgreSQL still find
 * a `tsvector` too long (SQLSTATE 54000: its parser split words more finely than ours), runs
 * it again with none of them indexed, rather than refuse the write.
 */
export async function indexing<T>(write: (indexLimit: number) => Promise<T>): Promise<T> {
	try {
		return await write(MAX_INDEX_BYTES);
	} catch (error) {
		if (!(error instanceof SessionTreeError && isObject(error.cause) && error.cause.code === "54000")) throw error;
		return write(0);
	}
}

/** A bigint column (pg hands those over as strings) as a number. */
export function num(value: unknown): number {
	return typeof value === "number" ? value : Number(value);
}

/**
 * The channel of the NOTIFY each committed append or replace sends, one per database, with
 * the payload {@link notifyPayload} (a channel per schema could exceed the 63 bytes of a name).
 */
export const NOTIFY_CHANNEL = "session_tree";

/** The payload of a change of session `name` in `schema`: `SCHEMA#NAME` (a schema name has no `#`). */
export function notifyPayload(schema: string, name: string): string {
	return `${schema}#${name}`;
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
		position: `SELECT generation, count FROM ${s}.sessions WHERE name = $1`,
		// Records and the session row in one statement: one snapshot, so the position matches the rows.
		read: `SELECT s.generation, s.count, r.seq, r.line FROM ${s}.sessions s
	LEFT JOIN ${s}.records r ON r.session = s.name AND r.seq >= $2
	WHERE s.name = $1 ORDER BY r.seq`,
		rowsFrom: `SELECT seq, line FROM ${s}.records WHERE session = $1 AND seq >= $2 ORDER BY seq`,
		// The records from seq $2 to before $3, with the session's generation: what a write sent twice checks.
		range: `SELECT s.generation, r.seq, r.line FROM ${s}.sessions s
	LEFT JOIN ${s}.records r ON r.session = s.name AND r.seq >= $2 AND r.seq < $3
	WHERE s.name = $1 ORDER BY r.seq`,
		insert: `WITH added AS (${insert})
	UPDATE ${s}.sessions SET count = $9, bytes = bytes + $10, modified_at = now() WHERE name = $1`,
		// Compare-and-append in one statement: lock the session row (a concurrent writer's commit
		// is waited for, and its row version read), insert and count only if the session still
		// ends at generation $11, count $12; return the row either way. The row lock is held for
		// the statement only, not for round trips. An append that took place notifies the
		// session's readers (LISTEN, see postgres-notify.ts) when it commits; the scalar
		// subquery is in the result so that it runs (a CTE nothing reads would not).
		append: `WITH current AS (SELECT generation, count FROM ${s}.sessions WHERE name = $1 FOR UPDATE),
	go AS (SELECT 1 FROM current WHERE generation = $11 AND count = $12),
	added AS (${insert} WHERE EXISTS (SELECT 1 FROM go)),
	counted AS (UPDATE ${s}.sessions SET count = $9, bytes = bytes + $10, modified_at = now()
		WHERE name = $1 AND EXISTS (SELECT 1 FROM go))
	SELECT generation, count, (SELECT pg_notify('${NOTIFY_CHANNEL}', '${schema}#' || $1) FROM go) IS NULL AS quiet FROM current`,
		// What an append does in its statement, for a replace's transaction (see notifyPayload).
		notify: `SELECT pg_notify('${NOTIFY_CHANNEL}', '${schema}#' || $1)`,
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

export type Statements = ReturnType<typeof statementsFor>;
const statementCache = new Map<string, Statements>();

export function statements(schema: string): Statements {
	let sql = statementCache.get(schema);
	if (!sql) {
		sql = statementsFor(schema);
		statementCache.set(schema, sql);
	}
	return sql;
}

/** The parameters $1 to $10 of the INSERT of `rows` into session `name`, whose count becomes `count`. */
export function rowValues(name: string, rows: Rows, count: number): unknown[] {
	const { type, id, parentId, line, words, unindexed } = rows.literals ?? literalsOf(rows);
	return [name, arrayLiteral(rows.seq), type, id, parentId, line, words, unindexed, count, rows.bytes];
}

/** A query with pg's own client-side limit on the wait for its answer (undefined: the connection's). */
interface TimedQuery extends QueryConfig {
	query_timeout?: number | undefined;
}

/** `text` with `values`, its answer awaited at most `queryMs` (undefined: as long as the connection's limit says). */
export function timed(text: string, values: unknown[], queryMs: number | undefined): TimedQuery {
	return { text, values, query_timeout: queryMs };
}

/** Runs the INSERT of `rows` into session `name` and sets its count to `count`, waiting at most `queryMs` for it. */
export async function insertRows(
	client: ClientBase,
	sql: Statements,
	name: string,
	rows: Rows,
	count: number,
	queryMs?: number,
): Promise<void> {
	await client.query(timed(sql.insert, rowValues(name, rows, count), queryMs));
}
