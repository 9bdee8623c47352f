/**
 * What bounds `copy` into PostgreSQL (issue 28): the server's inserts alone. The file's records
 * are made into rows per batch of 1,000 with the store's own `rowsOf` (not timed), then each
 * batch is inserted in its own transaction with the store's statement shape (`INSERT … SELECT
 * FROM unnest(…)`, `strip(to_tsvector('simple', …))`) into a table with the store's indexes,
 * with the text index (the `tsvector` column and its GIN index) and without it. Only the
 * inserts are timed: the server's share of a copy, before any of the copy's own work (the
 * read, the parse, the read-back). Works in a scratch schema `session_tree_inserts_probe`, dropped after.
 *
 * `tsc -p bench/tsconfig.json && node bench/data/.build/bench/pg-inserts.js FILE [URL]`
 * (URL: default $SESSION_TREE_PG_URL or postgres://postgres@127.0.0.1:5432/test).
 */

import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import pg from "pg";
import { rowsOf } from "../src/storage/sql/postgres-rows.js";

const [file, url] = process.argv.slice(2);
if (file === undefined) throw new Error("usage: pg-inserts.js FILE [URL]");
const client = new pg.Client({
	connectionString: url ?? process.env.SESSION_TREE_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test",
});
await client.connect();
const S = "session_tree_inserts_probe";
const VARIANTS = [
	{ name: "with the text index (tsvector, GIN)", search: "strip(to_tsvector('simple', r.words))", gin: true },
	{ name: "without the text index", search: "NULL", gin: false },
];
/** The store's limit of a record's indexed words (postgres-rows.ts's MAX_INDEX_BYTES). */
const INDEX_LIMIT = 1_000_000;
try {
	for (const variant of VARIANTS) {
		await client.query(`DROP SCHEMA IF EXISTS ${S} CASCADE; CREATE SCHEMA ${S}`);
		await client.query(`CREATE TABLE ${S}.records (session text NOT NULL, seq bigint NOT NULL, type text, id text,
			parent_id text, line text NOT NULL, search tsvector, unindexed boolean NOT NULL DEFAULT false,
			PRIMARY KEY (session, seq))`);
		await client.query(`CREATE INDEX ON ${S}.records (session, id, seq) WHERE id IS NOT NULL`);
		await client.query(`CREATE INDEX ON ${S}.records (session) WHERE unindexed`);
		if (variant.gin) await client.query(`CREATE INDEX ON ${S}.records USING gin (search)`);
		const insert = `INSERT INTO ${S}.records (session, seq, type, id, parent_id, line, search, unindexed)
			SELECT $1, r.seq, r.type, r.id, r.parent_id, r.line, ${variant.search}, r.unindexed
			FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[])
				AS r (seq, type, id, parent_id, line, words, unindexed)`;
		let inserting = 0;
		let count = 0;
		let batch: string[] = [];
		const flush = async () => {
			const rows = rowsOf(
				batch.map((line) => JSON.parse(line) as object),
				count,
				INDEX_LIMIT,
			);
			count += batch.length;
			batch = [];
			const started = performance.now();
			await client.query("BEGIN");
			await client.query(insert, [
				"s",
				rows.seq,
				rows.type,
				rows.id,
				rows.parentId,
				rows.line,
				rows.words,
				rows.unindexed,
			]);
			await client.query("COMMIT");
			inserting += performance.now() - started;
		};
		for await (const line of createInterface({ input: createReadStream(file) })) {
			if (line === "") continue;
			batch.push(line);
			if (batch.length === 1000) await flush();
		}
		if (batch.length > 0) await flush();
		console.log(`${variant.name}: ${count.toLocaleString("en-US")} rows, inserts ${Math.round(inserting)} ms`);
	}
} finally {
	await client.query(`DROP SCHEMA IF EXISTS ${S} CASCADE`);
	await client.end();
}
