/**
 * How the PostgreSQL tests find their server: the URL in SESSION_TREE_PG_URL. Without it they
 * skip, except under CI (CI=true), where a missing or unreachable server fails the run: a CI
 * that silently skipped them would test nothing.
 *
 * Each test file gets a schema of its own ({@link testSchema}), dropped when the file is done,
 * so test files running at once never see each other's sessions.
 */

import { randomBytes } from "node:crypto";
import { after } from "node:test";
import type { Client, QueryResultRow } from "pg";
import { closePostgresPools, maskPassword } from "../../src/storage/sql/postgres-store.js";

/** Why the PostgreSQL tests skip when no server is named. */
export const PG_SKIP_MESSAGE =
	"PostgreSQL tests skipped: set SESSION_TREE_PG_URL=postgres://postgres@127.0.0.1:5432/test to run them (CI sets it)";

/** A server to test against, or why the tests skip. */
export type PostgresServer = { url: string } | { skip: string };

const underCi = process.env.CI === "true";

/**
 * The server of SESSION_TREE_PG_URL once it answered a query, or why the tests skip.
 * @throws Error under CI=true when the variable is unset or the server cannot be reached
 */
export async function postgresServer(): Promise<PostgresServer> {
	const url = process.env.SESSION_TREE_PG_URL;
	if (!url) {
		if (underCi) throw new Error(`CI=true but SESSION_TREE_PG_URL is not set: ${PG_SKIP_MESSAGE}`);
		return { skip: PG_SKIP_MESSAGE };
	}
	let client: Client | undefined;
	try {
		client = await connectTo(url, 5000);
		await client.query("SELECT 1");
		return { url };
	} catch (error) {
		const why = `PostgreSQL tests: cannot reach SESSION_TREE_PG_URL=${maskPassword(url)}: ${
			error instanceof AggregateError ? error.errors.map(String).join("; ") : String(error)
		}`;
		if (underCi) throw new Error(why, { cause: error });
		return { skip: `${why} (skipped outside CI)` };
	} finally {
		await client?.end().catch(() => {});
	}
}

/** A schema of one test file. */
export interface TestSchema {
	/** Its name. */
	schema: string;
	/** The server's URL choosing the schema (`?schema=…`): a collection's location. */
	url: string;
	/** The URL of session `name` in the schema. */
	session(name: string): string;
}

/**
 * A fresh schema for this test file (named after `label`, the process and a random part): the
 * store creates it on first use; after the file's tests, the process's pools are closed and
 * the schema is dropped with everything in it.
 */
export function testSchema(server: string, label: string): TestSchema {
	const schema =
		`st_${label.toLowerCase().replace(/[^a-z0-9_]/g, "_")}_${process.pid}_${randomBytes(3).toString("hex")}`.slice(
			0,
			63,
		);
	const url = `${server}${server.includes("?") ? "&" : "?"}schema=${schema}`;
	after(async () => {
		await closePostgresPools();
		await dropSchema(server, schema);
	});
	return { schema, url, session: (name) => `${url}#${name}` };
}

/** Drops a schema and everything in it. */
export async function dropSchema(server: string, schema: string): Promise<void> {
	const client = await connectTo(server);
	try {
		await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
	} finally {
		await client.end();
	}
}

/** Runs one query on a connection of its own (for checks the store has no operation for). */
export async function query<R extends QueryResultRow>(
	server: string,
	text: string,
	values: unknown[] = [],
): Promise<R[]> {
	const client = await connectTo(server);
	try {
		return (await client.query<R>(text, values)).rows;
	} finally {
		await client.end();
	}
}

/** A connected client (pg is imported here, not at the top: without it the tests still load, and skip). */
async function connectTo(url: string, timeoutMs = 10_000): Promise<Client> {
	const pg = await import("pg");
	const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
	await client.connect();
	return client;
}
