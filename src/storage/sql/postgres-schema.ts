/**
 * The schema of the PostgreSQL store: whose a schema is (ours, absent, another application's)
 * and the versioned migrations that make and update ours. The connections that run them are
 * in postgres-pool.ts.
 */

import type { ClientBase } from "pg";
import { SessionTreeError } from "../../core/errors.js";
import { isObject } from "../../core/validate.js";
import { SCHEMA_NAME } from "./urls.js";

/** Connections left in a state that must not be reused (a failed ROLLBACK): the pool drops them. */
export const brokenClients = new WeakSet<ClientBase>();

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
export async function ownershipOf(client: ClientBase, schema: string): Promise<"ours" | "absent" | "foreign"> {
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
export async function migratePostgres(client: ClientBase, schema: string): Promise<number[]> {
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
