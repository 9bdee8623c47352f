/**
 * Another program's data where a store is named: a PostgreSQL schema holding an application's
 * own `sessions` table, a SQLite file that is another program's database, an empty file. Reads
 * (`tree`, `ls`, `validate`) create and change nothing and say "not a session-tree store";
 * `prune` and `copy` delete or write nothing there. Each check runs the real CLI on a real
 * server and real files, and compares the foreign rows and bytes before and after.
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { postgresServer, query, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP, sqliteDriver } from "../support/sqlite.js";
import { cli, fixture, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

/** Another program's database: a `users` table with two rows (rollback journal, as SQLite makes by default). */
function usersDatabase(): string {
	const file = join(tempDir(), "app.db");
	const db = new (sqliteDriver())(file);
	db.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL)");
	db.exec("INSERT INTO users (email) VALUES ('a@example.com'), ('b@example.com')");
	db.close();
	return file;
}

describe("another program's SQLite file", { skip: SQLITE_SKIP }, () => {
	for (const kind of ["a users database", "an empty file"] as const) {
		test(`${kind}: tree and validate change no byte and say it is not a session-tree database`, async () => {
			const file = kind === "an empty file" ? join(tempDir(), "empty.db") : usersDatabase();
			if (kind === "an empty file") writeFileSync(file, "");
			const before = readFileSync(file);
			for (const args of [
				["tree", `sqlite:${file}#s1`],
				["validate", `sqlite:${file}#s1`],
				["ls", `sqlite:${file}`],
			]) {
				const result = await cli(args);
				assert.equal(result.code, 1, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
				assert.match(result.stderr, /not a session-tree database/, args.join(" "));
				assert.deepEqual(readFileSync(file), before, `${args.join(" ")} left the bytes as they were`);
			}
			// Not switched to WAL: that would leave -wal and -shm files beside it.
			assert.equal(existsSync(`${file}-wal`), false);
			assert.equal(existsSync(`${file}-shm`), false);
		});
	}

	test("a users database: copy into it is refused and writes nothing; an empty file becomes a store", async () => {
		const file = usersDatabase();
		const before = readFileSync(file);
		const copied = await cli(["copy", fixture("branched-session"), `sqlite:${file}`]);
		assert.equal(copied.code, 1, copied.stderr);
		assert.match(copied.stderr, /not a session-tree database/);
		assert.deepEqual(readFileSync(file), before);

		const empty = join(tempDir(), "empty.db");
		writeFileSync(empty, "");
		const made = await cli(["copy", fixture("branched-session"), `sqlite:${empty}`]);
		assert.equal(made.code, 0, made.stderr);
		const ls = await cli(["ls", `sqlite:${empty}`]);
		assert.equal(ls.code, 0, ls.stderr);
	});

	test("a database of the previous version (our tables, no marker) is read, and gets the marker on a write", async () => {
		const file = join(tempDir(), "old.db");
		assert.equal((await cli(["copy", fixture("branched-session"), `sqlite:${file}`])).code, 0);
		// Back to version 1: the marker table and its migration row gone, and version 1's text
		// index instead of version 3's (empty: a search then finds nothing, which this test does not ask).
		const db = new (sqliteDriver())(file);
		db.exec(`DROP TABLE session_tree_meta; DELETE FROM schema_migrations WHERE version > 1;
DROP TABLE search_chunks; DROP TABLE records_search;
CREATE VIRTUAL TABLE records_text USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram')`);
		db.close();
		const before = readFileSync(file);
		const ls = await cli(["ls", `sqlite:${file}`]);
		assert.equal(ls.code, 0, ls.stderr);
		assert.deepEqual(readFileSync(file), before, "a read does not add the marker");
		const again = await cli(["copy", fixture("branch-in-place"), `sqlite:${file}`]);
		assert.equal(again.code, 0, again.stderr);
		const check = new (sqliteDriver())(file, { readonly: true });
		const marker = check.prepare("SELECT value FROM session_tree_meta WHERE key = 'format'").get();
		check.close();
		assert.deepEqual(marker, { value: "session-tree" }, "the write added the marker");
	});
});

const server = await postgresServer();
if ("skip" in server) {
	test("another application's PostgreSQL schema", { skip: server.skip }, () => {});
} else {
	describe("another application's PostgreSQL schema", () => {
		const { schema, url, session } = testSchema(server.url, "foreign");
		const rows = () =>
			query<{ id: number; name: string }>(server.url, `SELECT id, name FROM "${schema}".sessions ORDER BY id`);
		const tables = async () =>
			(
				await query<{ name: string }>(
					server.url,
					"SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
					[schema],
				)
			).map((row) => row.name);

		test("tree, ls, prune --keep 0 and copy leave its rows and create no table", async () => {
			await query(server.url, `CREATE SCHEMA "${schema}"`);
			await query(server.url, `CREATE TABLE "${schema}".sessions (id serial PRIMARY KEY, name text, token text)`);
			await query(server.url, `INSERT INTO "${schema}".sessions (name, token) VALUES ('alice', 't1'), ('bob', 't2')`);
			const original = await rows();
			assert.equal(original.length, 2);
			for (const args of [
				["tree", session("alice")],
				["ls", url],
				["prune", url, "--keep", "0"],
				["copy", fixture("branched-session"), url],
				["validate", session("alice")],
			]) {
				const result = await cli(args);
				assert.equal(result.code, 1, `${args[0]}: ${result.stdout}${result.stderr}`);
				assert.match(result.stderr, /not a session-tree store/, args[0]);
				assert.deepEqual(await rows(), original, `${args[0]} left the application's rows`);
				assert.deepEqual(await tables(), ["sessions"], `${args[0]} created no table`);
			}
		});

		test("a read of a schema that does not exist creates nothing; a copy creates the store", async () => {
			const other = testSchema(server.url, "absent");
			const ls = await cli(["ls", other.url]);
			assert.equal(ls.code, 0, ls.stderr);
			const tree = await cli(["tree", other.session("nope")]);
			assert.equal(tree.code, 1);
			assert.match(tree.stderr, /no such session/);
			const exists = await query(server.url, "SELECT 1 FROM pg_namespace WHERE nspname = $1", [other.schema]);
			assert.equal(exists.length, 0, "no schema made by a read");
			const copied = await cli(["copy", fixture("branched-session"), other.url]);
			assert.equal(copied.code, 0, copied.stderr);
			const marker = await query(
				server.url,
				`SELECT value FROM "${other.schema}".session_tree_meta WHERE key = 'format'`,
			);
			assert.deepEqual(marker, [{ value: "session-tree" }]);
		});

		test("a schema of the previous version (our tables, no marker) is read, and gets the marker on a write", async () => {
			const old = testSchema(server.url, "legacy");
			assert.equal((await cli(["copy", fixture("branched-session"), old.url])).code, 0);
			await query(server.url, `DROP TABLE "${old.schema}".session_tree_meta`);
			await query(server.url, `DELETE FROM "${old.schema}".schema_migrations WHERE version > 2`);
			const ls = await cli(["ls", old.url, "--json"]);
			assert.equal(ls.code, 0, ls.stderr);
			assert.equal(JSON.parse(ls.stdout).length, 1, ls.stdout);
			const marked = () =>
				query(server.url, "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2", [
					old.schema,
					"session_tree_meta",
				]);
			assert.equal((await marked()).length, 0, "a read does not add the marker");
			const copied = await cli(["copy", fixture("branch-in-place"), old.url]);
			assert.equal(copied.code, 0, copied.stderr);
			assert.equal((await marked()).length, 1, "the write added the marker");
		});
	});
}
