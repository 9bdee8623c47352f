/**
 * The database side of the PostgreSQL store: what a `postgres://` location names, the
 * connection pools of this process, and the schema with its versioned migrations.
 *
 * The driver (`pg`) is an optional dependency, loaded on first use, so that importing the
 * store (every `storeAt` does) costs nothing when no PostgreSQL location is ever opened.
 *
 * Pools: one per connection string per process, shared by every store object of that database,
 * made on first use. Their idle connections never keep the process alive (`allowExitOnIdle`),
 * so a CLI run ends when its work does. A store may ask for a private pool instead (a second
 * writer with connections of its own, as another process would have).
 */

import type { Pool, PoolClient } from "pg";
import { SessionTreeError } from "../../core/errors.js";
import { isObject } from "../../core/validate.js";
import { maskPassword, type PostgresUrl, SCHEMA_NAME } from "./urls.js";

/** `host:port` of a connection string, for messages (a `host` query parameter wins, as in pg). */
export function serverOf(connectionString: string): string {
	try {
		const url = new URL(connectionString);
		const host = url.searchParams.get("host") ?? (url.hostname || "localhost");
		return `${host}:${url.searchParams.get("port") ?? (url.port || "5432")}`;
	} catch {
		return maskPassword(connectionString);
	}
}

// ---- the driver and the pools -----------------------------------------------------------

type Driver = typeof import("pg");

let driver: Promise<Driver> | undefined;

/**
 * The pg module, imported on first use.
 * @throws SessionTreeError INVALID_ARGUMENT when it is not installed
 */
async function loadDriver(where: string): Promise<Driver> {
	driver ??= import("pg");
	try {
		return await driver;
	} catch (error) {
		driver = undefined;
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			"postgres: locations need the optional dependency pg: npm install pg",
			{ file: where },
			{ cause: error },
		);
	}
}

/** Connections a shared pool keeps open at most: a few writers of one process at once. */
const SHARED_MAX = 4;
/** How long a connect may take before it fails: an unreachable server must not hang a CLI. */
const CONNECT_TIMEOUT_MS = 10_000;

/** The pools of this process that {@link closePostgresPools} ends. */
const livePools = new Set<PostgresPool>();
/** The shared pools, by connection string. */
const sharedPools = new Map<string, PostgresPool>();
/** The schemas migrated (or being migrated) by this process, by connection string and schema. */
const migrated = new Map<string, Promise<void>>();
/** The schemas this process found to be session-tree's, by connection string and schema. */
const owned = new Set<string>();

/** Connections left in a state that must not be reused (a failed ROLLBACK). */
const brokenClients = new WeakSet<PoolClient>();

/**
 * Connections to one database: the pool of its connection string shared by the process, or a
 * store's private one. Made lazily; a private pool retired by its store is ended once the last
 * operation that took it is done, so a `close` racing an append never cuts the append short.
 */
export class PostgresPool {
	private pool: Pool | undefined;
	private users = 0;
	private retired = false;

	private constructor(
		private readonly connectionString: string,
		private readonly max: number,
	) {
		livePools.add(this);
	}

	/** The pool this process shares for the database of `url`. */
	static shared(url: PostgresUrl): PostgresPool {
		let pool = sharedPools.get(url.connectionString);
		if (!pool) {
			pool = new PostgresPool(url.connectionString, SHARED_MAX);
			sharedPools.set(url.connectionString, pool);
		}
		return pool;
	}

	/** A pool of one connection for one store. */
	static private(url: PostgresUrl): PostgresPool {
		return new PostgresPool(url.connectionString, 1);
	}

	/**
	 * Runs `work` on a connection. A write (`access.write`) first migrates `schema` (creating it
	 * when it holds nothing); a read never creates or migrates anything, and runs `access.absent`
	 * instead of `work` when the schema holds no store (without it, that is NOT_A_STORE). Either
	 * refuses a schema that is another application's (NOT_A_STORE, see {@link ownershipOf}).
	 * Errors that are not SessionTreeErrors become IO_ERROR (LOCKED for a lock timeout) naming `where`.
	 */
	async run<T>(
		where: string,
		schema: string,
		work: (client: PoolClient) => Promise<T>,
		access: { write?: boolean; absent?: () => T } = {},
	): Promise<T> {
		this.users++;
		try {
			const pg = await loadDriver(where);
			const pool = this.open(pg);
			const state = await this.prepare(pool, schema, where, access.write === true);
			if (state === "absent") {
				if (access.absent) return access.absent();
				throw notAStore(schema, where, "the schema holds no session-tree tables");
			}
			const client = await connect(pool, this.connectionString, where);
			let broken = false;
			// A connection lost between queries reports here (the pool listens only to idle ones); unheard, it would crash the process.
			const lost = () => {
				broken = true;
			};
			client.on("error", lost);
			try {
				return await work(client);
			} catch (error) {
				// A server-side error leaves the connection usable; anything else may not.
				broken ||=
					brokenClients.has(client) || !(error instanceof SessionTreeError || error instanceof pg.DatabaseError);
				throw error;
			} finally {
				client.removeListener("error", lost);
				client.release(broken);
			}
		} catch (error) {
			throw storeError(error, where);
		} finally {
			this.users--;
			if (this.retired && this.users === 0) void this.end();
		}
	}

	/**
	 * Runs `work` in a transaction opened by `begin` (`BEGIN` and any `SET LOCAL`, one round
	 * trip): committed when it resolves, rolled back when it throws.
	 */
	async transaction<T>(
		where: string,
		schema: string,
		begin: string,
		work: (client: PoolClient) => Promise<T>,
	): Promise<T> {
		return this.run(
			where,
			schema,
			async (client) => {
				await client.query(begin);
				try {
					const result = await work(client);
					await client.query("COMMIT");
					return result;
				} catch (error) {
					await client.query("ROLLBACK").catch(() => brokenClients.add(client));
					throw error;
				}
			},
			{ write: true },
		);
	}

	/** Ends the pool once the operations using it are done (a private pool, when its store closes). */
	async retire(): Promise<void> {
		this.retired = true;
		if (this.users === 0) await this.end();
	}

	/** Ends the pool now: its idle connections close, busy ones when released. */
	async end(): Promise<void> {
		livePools.delete(this);
		if (sharedPools.get(this.connectionString) === this) sharedPools.delete(this.connectionString);
		const pool = this.pool;
		this.pool = undefined;
		if (pool) await pool.end();
	}

	private open(pg: Driver): Pool {
		if (!this.pool) {
			this.pool = new pg.Pool({
				connectionString: this.connectionString,
				max: this.max,
				allowExitOnIdle: true,
				connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
				// What pg_stat_activity shows, unless the URL names an application_name.
				fallback_application_name: "session-tree",
				// A private pool serves one store for a while: let its connection go soon.
				idleTimeoutMillis: this.max === 1 ? 1000 : 10_000,
			});
			// An idle connection the server closed reports here; the pool drops it. Unheard, it would crash the process.
			this.pool.on("error", () => {});
		}
		return this.pool;
	}

	/**
	 * Whose `schema` is, checked once per process while it is ours; for a write, migrated
	 * first (once per process). A schema another application uses is refused before anything
	 * is written to it.
	 */
	private async prepare(pool: Pool, schema: string, where: string, write: boolean): Promise<"ours" | "absent"> {
		const key = `${this.connectionString}\0${schema}`;
		if (write) {
			let done = migrated.get(key);
			if (!done) {
				done = this.withClient(pool, where, async (client) => {
					const state = await ownershipOf(client, schema);
					if (state === "foreign") throw notAStore(schema, where, "it holds tables of another application");
					await migratePostgres(client, schema);
				});
				migrated.set(key, done);
				// A failed migration is tried again by the next operation.
				done.catch(() => migrated.delete(key));
			}
			await done;
			owned.add(key);
			return "ours";
		}
		if (owned.has(key)) return "ours";
		const state = await this.withClient(pool, where, (client) => ownershipOf(client, schema));
		if (state === "foreign") throw notAStore(schema, where, "it holds tables of another application");
		// Only a positive answer is kept: a store another process creates later is seen.
		if (state === "ours") owned.add(key);
		return state;
	}

	/** Runs `work` on a connection of its own (for the schema checks), released after. */
	private async withClient<T>(pool: Pool, where: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
		const client = await connect(pool, this.connectionString, where);
		const lost = () => {};
		client.on("error", lost);
		try {
			const result = await work(client);
			client.removeListener("error", lost);
			client.release();
			return result;
		} catch (error) {
			client.removeListener("error", lost);
			client.release(true);
			throw error;
		}
	}
}

/** A connection from `pool`; a failure names the server. */
async function connect(pool: Pool, connectionString: string, where: string): Promise<PoolClient> {
	try {
		return await pool.connect();
	} catch (error) {
		throw new SessionTreeError(
			"IO_ERROR",
			`postgres: cannot connect to ${serverOf(connectionString)}: ${describe(error)}`,
			{ file: where },
			{ cause: error },
		);
	}
}

/** What went wrong, from an Error or an AggregateError (Node reports each address tried). */
function describe(error: unknown): string {
	if (error instanceof AggregateError && error.message === "") {
		return error.errors.map((e) => describe(e)).join("; ");
	}
	if (error instanceof Error) return error.message || String(isObject(error) ? error.code : error.name);
	return String(error);
}

/** A SessionTreeError for what pg threw: LOCKED when the session row stayed locked, else IO_ERROR. */
function storeError(error: unknown, where: string): SessionTreeError {
	if (error instanceof SessionTreeError) return error;
	const code = isObject(error) && typeof error.code === "string" ? error.code : undefined;
	if (code === "55P03") {
		return new SessionTreeError("LOCKED", "another writer held the session's row lock too long", { file: where });
	}
	const sqlState = code && /^[0-9A-Z]{5}$/.test(code) ? ` (SQLSTATE ${code})` : "";
	return new SessionTreeError("IO_ERROR", `postgres: ${describe(error)}${sqlState}`, { file: where }, { cause: error });
}

/**
 * Ends every pool of this process, shared and private: for tests and for programs that want to
 * exit before idle connections time out (idle connections never keep the process alive).
 */
export async function closePostgresPools(): Promise<void> {
	const pools = [...livePools];
	await Promise.all(pools.map((pool) => pool.end()));
	migrated.clear();
	owned.clear();
}

// ---- the schema -------------------------------------------------------------------------

/** A constant of session-tree's for its advisory locks ("STRE"), the first of the two keys. */
const LOCK_SPACE = 0x53545245;

/** The second key: FNV-1a of the schema name, as a signed 32-bit integer. */
function schemaLockKey(schema: string): number {
	let hash = 0x811c9dc5;
	for (const byte of Buffer.from(schema)) hash = Math.imul(hash ^ byte, 0x01000193);
	return hash | 0;
}

/** The DDL of each schema version, in the schema `s` (a checked name, quoted). */
const MIGRATIONS: ReadonlyArray<{ version: number; ddl: (s: string) => string[] }> = [
	{
		version: 1,
		ddl: (s) => [
			`CREATE TABLE IF NOT EXISTS ${s}.sessions (
	name text PRIMARY KEY,
	generation bigint NOT NULL DEFAULT 0,
	count bigint NOT NULL DEFAULT 0,
	created_at timestamptz NOT NULL DEFAULT now(),
	modified_at timestamptz NOT NULL DEFAULT now(),
	bytes bigint NOT NULL DEFAULT 0
)`,
			`CREATE TABLE IF NOT EXISTS ${s}.records (
	session text NOT NULL REFERENCES ${s}.sessions (name) ON DELETE CASCADE,
	seq bigint NOT NULL,
	type text,
	id text,
	parent_id text,
	line text NOT NULL,
	search tsvector,
	unindexed boolean NOT NULL DEFAULT false,
	PRIMARY KEY (session, seq)
)`,
			`CREATE INDEX IF NOT EXISTS records_session_id ON ${s}.records (session, id) WHERE id IS NOT NULL`,
			`CREATE INDEX IF NOT EXISTS records_search ON ${s}.records USING gin (search)`,
			`CREATE INDEX IF NOT EXISTS records_unindexed ON ${s}.records (session) WHERE unindexed`,
			`CREATE TABLE IF NOT EXISTS ${s}.backups (
	session text NOT NULL REFERENCES ${s}.sessions (name) ON DELETE CASCADE,
	generation bigint NOT NULL,
	seq bigint NOT NULL,
	line text NOT NULL,
	PRIMARY KEY (session, generation, seq)
)`,
		],
	},
	{
		// The walk of readPath looks each parent up by (session, id) and takes its latest copy
		// (ORDER BY seq DESC LIMIT 1): with seq in the index that is one index probe per step.
		// Without it, a server without statistics (autovacuum off, never analysed) chose a
		// backward scan of the primary key per step, and a walk of 16,000 took a minute.
		version: 2,
		ddl: (s) => [
			`CREATE INDEX IF NOT EXISTS records_session_id_seq ON ${s}.records (session, id, seq) WHERE id IS NOT NULL`,
			`DROP INDEX IF EXISTS ${s}.records_session_id`,
		],
	},
	{
		// The marker that claims the schema for session-tree (see ownershipOf). A schema of
		// version 2 has none; it is recognised by its exact tables and columns and gets it on
		// its first write.
		version: 3,
		ddl: (s) => [
			`CREATE TABLE IF NOT EXISTS ${s}.${MARKER_TABLE} (key text PRIMARY KEY, value text NOT NULL)`,
			`INSERT INTO ${s}.${MARKER_TABLE} (key, value) VALUES ('format', '${FORMAT}') ON CONFLICT (key) DO NOTHING`,
		],
	},
];

/** The marker table of a session-tree schema, and the value of its `format` row. */
const MARKER_TABLE = "session_tree_meta";
const FORMAT = "session-tree";

/** The tables of a schema of version 1 or 2 (no marker) with their exact columns, sorted. */
const LEGACY_TABLES: Readonly<Record<string, string>> = {
	backups: "generation,line,seq,session",
	records: "id,line,parent_id,search,seq,session,type,unindexed",
	schema_migrations: "applied_at,version",
	sessions: "bytes,count,created_at,generation,modified_at,name",
};

/**
 * Whose `schema` is, by reading the catalog only: `ours` (it has the marker, or exactly the
 * tables and columns of a schema this library made before the marker existed), `absent` (it
 * does not exist or holds no table, view or sequence-free relation), `foreign` (anything
 * else: an application's tables, which session-tree never reads as sessions nor writes).
 */
export async function ownershipOf(client: PoolClient, schema: string): Promise<"ours" | "absent" | "foreign"> {
	const result = await client.query<{ name: string; columns: string | null }>(
		`SELECT c.relname AS name, string_agg(a.attname::text, ',' ORDER BY a.attname::text) AS columns
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
GROUP BY c.relname`,
		[schema],
	);
	const tables = new Map(result.rows.map((row) => [row.name, row.columns ?? ""]));
	if (tables.size === 0) return "absent";
	if (tables.has(MARKER_TABLE)) {
		const s = quoteSchema(schema);
		const format = await client.query<{ value: string }>(`SELECT value FROM ${s}.${MARKER_TABLE} WHERE key = 'format'`);
		return format.rows[0]?.value === FORMAT ? "ours" : "foreign";
	}
	if (tables.size !== Object.keys(LEGACY_TABLES).length) return "foreign";
	for (const [name, columns] of tables) if (LEGACY_TABLES[name] !== columns) return "foreign";
	return "ours";
}

/** The error for a schema that is not session-tree's. */
function notAStore(schema: string, where: string, why: string): SessionTreeError {
	return new SessionTreeError(
		"NOT_A_STORE",
		`not a session-tree store: schema ${schema} (${why}); session-tree reads and writes only schemas it made`,
		{ file: where },
	);
}

/** The newest schema version this library knows. */
export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));

/** `"schema"`: safe to put in SQL, the name matched {@link SCHEMA_NAME}. */
export function quoteSchema(schema: string): string {
	if (!SCHEMA_NAME.test(schema)) throw new SessionTreeError("INVALID_ARGUMENT", `not a schema name: ${schema}`);
	return `"${schema}"`;
}

/** SQLSTATEs of a missing table or schema: nothing migrated yet. */
const UNDEFINED = new Set(["42P01", "3F000"]);

/**
 * Brings `schema` to {@link SCHEMA_VERSION}: creates it and its tables if missing and applies the
 * versions not recorded in `schema_migrations`, in one transaction holding an advisory lock
 * keyed by the schema name, so two processes (or hosts) migrating at once apply each version
 * once. A schema already current is only read (no lock, no DDL: a user without CREATE rights
 * can use a schema made by another).
 * @returns the versions this call applied
 */
export async function migratePostgres(client: PoolClient, schema: string): Promise<number[]> {
	const s = quoteSchema(schema);
	try {
		const current = await client.query<{ v: number }>(
			`SELECT coalesce(max(version), 0) AS v FROM ${s}.schema_migrations`,
		);
		if ((current.rows[0]?.v ?? 0) >= SCHEMA_VERSION) return [];
	} catch (error) {
		if (!(isObject(error) && typeof error.code === "string" && UNDEFINED.has(error.code))) throw error;
	}
	await client.query("BEGIN");
	try {
		await client.query("SELECT pg_advisory_xact_lock($1::int4, $2::int4)", [LOCK_SPACE, schemaLockKey(schema)]);
		const exists = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
		if (exists.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
		await client.query(
			`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
		);
		const done = await client.query<{ version: number }>(`SELECT version FROM ${s}.schema_migrations`);
		const applied = new Set(done.rows.map((row) => row.version));
		const now: number[] = [];
		for (const migration of MIGRATIONS) {
			if (applied.has(migration.version)) continue;
			for (const statement of migration.ddl(s)) await client.query(statement);
			await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [migration.version]);
			now.push(migration.version);
		}
		await client.query("COMMIT");
		return now;
	} catch (error) {
		await client.query("ROLLBACK").catch(() => brokenClients.add(client));
		throw error;
	}
}
