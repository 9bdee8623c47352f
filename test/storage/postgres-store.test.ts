/**
 * The PostgreSQL store beyond the conformance suite: its locations, migrations, the exact text
 * of records, path reads, the collection (listing by pages, search, remove), lock timeouts,
 * and what an unreachable server does. Skips without a server (see test/support/postgres.ts).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { PoolClient } from "pg";
import { compileQuery, searchSessions } from "../../src/catalog/search.js";
import type { MessageEntry } from "../../src/core/types.js";
import { isSessionTreeError, Session } from "../../src/index.js";
import { encodeRecord } from "../../src/storage/codec.js";
import { collectionAt, storeAt } from "../../src/storage/locations.js";
import { SCHEMA_VERSION } from "../../src/storage/sql/postgres-schema.js";
import {
	closePostgresPools,
	maskPassword,
	migratePostgres,
	PostgresCollection,
	PostgresSessionStore,
	parsePostgresUrl,
	readPostgresBackup,
	searchWords,
} from "../../src/storage/sql/postgres-store.js";
import {
	chain,
	entryId,
	itemAt,
	jsonTexts,
	messageRecord,
	newHeader,
	okPosition,
	okReplace,
	recordsOf,
} from "../../src/testing/helpers.js";
import { assistantMessage, userMessage } from "../support/messages.js";
import { postgresServer, query, testSchema } from "../support/postgres.js";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");

/** The error `work` rejects with, which must be a SessionTreeError with `code`. */
async function rejects(work: () => Promise<unknown>, code: string): Promise<Error> {
	try {
		await work();
	} catch (error) {
		assert.ok(isSessionTreeError(error), String(error));
		assert.equal(error.code, code, error.message);
		return error;
	}
	assert.fail(`expected ${code}`);
}

/** Runs an ES module script in a child process: its exit code, output and how long it took. */
function runScript(script: string): Promise<{ code: number | null; out: string; err: string; ms: number }> {
	const started = Date.now();
	const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
	let out = "";
	let err = "";
	child.stdout.on("data", (chunk: Buffer) => {
		out += chunk.toString("utf8");
	});
	child.stderr.on("data", (chunk: Buffer) => {
		err += chunk.toString("utf8");
	});
	return new Promise((resolve) => child.on("close", (code) => resolve({ code, out, err, ms: Date.now() - started })));
}

describe("postgres locations (no server needed)", () => {
	test("the schema parameter is removed from the connection string; the location stays as given", () => {
		const url = parsePostgresUrl("postgres://u:pw@db.example:5433/app?sslmode=disable&schema=team_a#s-1");
		assert.equal(url.connectionString, "postgres://u:pw@db.example:5433/app?sslmode=disable");
		assert.equal(url.schema, "team_a");
		assert.equal(url.name, "s-1");
		assert.equal(url.base, "postgres://u:pw@db.example:5433/app?sslmode=disable&schema=team_a");
		const plain = parsePostgresUrl("postgresql://h/db?schema=x");
		assert.deepEqual([plain.connectionString, plain.schema, plain.name], ["postgresql://h/db", "x", undefined]);
		assert.equal(parsePostgresUrl("postgres://h/db").schema, "session_tree");
		const store = new PostgresSessionStore("postgres://h/db?a=1&schema=x#abc");
		assert.equal(store.location, "postgres://h/db?a=1&schema=x#abc");
		assert.equal(store.derive(newHeader()).location.startsWith("postgres://h/db?a=1&schema=x#"), true);
	});

	test("bad schema names, bad session names and other schemes are refused, without the password", async () => {
		for (const schema of ["Upper", "1abc", "a-b", "a;drop", "", "x".repeat(64), "a&schema=b"]) {
			const location = `postgres://me:s3cret@h/db?schema=${encodeURIComponent(schema)}#abc`;
			const error = await rejects(async () => new PostgresSessionStore(location), "INVALID_ARGUMENT");
			assert.ok(!error.message.includes("s3cret"), error.message);
		}
		await rejects(async () => new PostgresSessionStore("postgres://h/db?schema=a&schema=b"), "INVALID_ARGUMENT");
		for (const name of ["", "-x", "a b", "a/b", "x".repeat(129)]) {
			const error = await rejects(
				async () => new PostgresSessionStore(`postgres://me:s3cret@h/db#${name}`),
				"INVALID_ARGUMENT",
			);
			assert.ok(!error.message.includes("s3cret"), error.message);
			assert.match(error.message, /me:\*\*\*@h/);
		}
		await rejects(async () => new PostgresSessionStore("mysql://h/db#abc"), "INVALID_ARGUMENT");
		await rejects(async () => new PostgresCollection("postgres://h/db#abc"), "INVALID_ARGUMENT");
		await rejects(async () => storeAt("postgres://h/db#abc", { durability: "group" }), "INVALID_ARGUMENT");
		const opened = storeAt("postgresql://h/db#abc", { durability: "none" });
		assert.equal(opened.location, "postgresql://h/db#abc");
		assert.equal(opened.capabilities.pathReads, true);
		assert.equal(collectionAt("postgres://h/db").capabilities.search, true);
	});

	test("passwords are masked in the user part and in a password parameter", () => {
		assert.equal(maskPassword("postgres://me:p@ss@h:1/db#x"), "postgres://me:***@h:1/db#x");
		assert.equal(maskPassword("postgres://me@h/db"), "postgres://me@h/db");
		assert.equal(maskPassword("postgres://h/db?user=me&password=pw&x=1"), "postgres://h/db?user=me&password=***&x=1");
	});

	test("search words: letters and digits, case folded, long words clipped", () => {
		assert.deepEqual(searchWords("see src/session.ts, foo-bar!"), ["SEE", "SRC", "SESSION", "TS", "FOO", "BAR"]);
		assert.deepEqual(searchWords("Straße ς σ"), ["STRASSE", "Σ"]);
		assert.deepEqual(searchWords("... --- !!"), []);
		assert.equal(searchWords("y".repeat(2000))[0]?.length, 500);
	});

	test("search words of ASCII text (read without Unicode classes): those of the general rule", () => {
		// The general rule, as the query side had it before the ASCII path: Unicode classes after lower then upper case.
		const general = (text: string) => [
			...new Set(
				[
					...text
						.toLowerCase()
						.toUpperCase()
						.matchAll(/[\p{L}\p{N}\p{M}]+/gu),
				].map(([w]) => w.slice(0, 500)),
			),
		];
		const alphabet = "aZk9_ -./\\\"'\n\t\u0000\u007f{}[]:,!@#$%^&*()+=<>?|~`";
		let seed = 7;
		const random = () => {
			seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
			return seed / 2 ** 31;
		};
		for (let k = 0; k < 300; k++) {
			let text = "";
			const length = Math.floor(random() * 80);
			for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
			assert.deepEqual(searchWords(text), general(text), JSON.stringify(text));
		}
		const long = `${"word ".repeat(3)}${"x".repeat(700)} end`;
		assert.deepEqual(searchWords(long), general(long));
		assert.deepEqual(
			searchWords('{"role":"user","content":"Fix src/a.ts line 42"}'),
			general('{"role":"user","content":"Fix src/a.ts line 42"}'),
		);
	});
});

const server = await postgresServer();
if ("skip" in server) {
	test("PostgreSQL store", { skip: server.skip }, () => {});
} else {
	const db = testSchema(server.url, "store");
	const listSchema = testSchema(server.url, "list");
	const searchSchema = testSchema(server.url, "search");
	const pg = server.url;

	describe("postgres store", () => {
		test("migrations: twice, and from two pools and two processes at once, apply each version once", async () => {
			const { Pool } = await import("pg");
			const pools = [new Pool({ connectionString: pg, max: 1 }), new Pool({ connectionString: pg, max: 1 })];
			const schema = `${db.schema}_m`;
			const other = `${db.schema}_p`;
			const versions = Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1);
			// Released in `finally`: a pool with a client checked out never ends (a failure must not hang).
			let clients: PoolClient[] = [];
			try {
				clients = await Promise.all(pools.map((pool) => pool.connect()));
				const [a, b] = clients;
				assert.ok(a && b);
				const both = await Promise.all([migratePostgres(a, schema), migratePostgres(b, schema)]);
				assert.deepEqual(both.flat().sort(), versions, "each version applied once, by one of them");
				assert.deepEqual(await migratePostgres(a, schema), [], "a second run applies nothing");
				const script = `import pg from "pg";
import { migratePostgres } from ${JSON.stringify(join(SRC, "storage", "sql", "postgres-store.js"))};
const client = new pg.Client(${JSON.stringify(pg)});
await client.connect();
process.stdout.write(JSON.stringify(await migratePostgres(client, ${JSON.stringify(other)})));
await client.end();`;
				const runs = await Promise.all([runScript(script), runScript(script)]);
				assert.deepEqual(
					runs.map((run) => run.code),
					[0, 0],
					runs.map((run) => run.err).join("\n"),
				);
				assert.deepEqual(runs.flatMap((run) => JSON.parse(run.out)).sort(), versions);
				for (const s of [schema, other]) {
					const rows = await query<{ version: number }>(pg, `SELECT version FROM "${s}".schema_migrations`);
					assert.deepEqual(rows.map((row) => row.version).sort(), versions);
				}
			} finally {
				for (const client of clients) client.release();
				await Promise.all(pools.map((pool) => pool.end()));
				await query(pg, `DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${other}" CASCADE`);
			}
		});

		test("a large session's full read: envelopes, bodies kept aside and read on use, after close too", async () => {
			const location = db.session(randomUUID());
			const store = new PostgresSessionStore(location, { lazyFrom: 0 });
			const header = newHeader();
			const p0 = await store.create(header);
			const records = chain(2500, null, "paged");
			const last = itemAt(records, -1);
			const custom = { type: "custom", customType: "x", id: entryId(), parentId: last.id, timestamp: last.timestamp };
			const p1 = okPosition(await store.append([...records, custom], p0));
			const read = await store.read();
			assert.equal(read.lines.filter((line) => line.envelope).length, 2500, "every message an envelope");
			assert.equal(read.lines.at(-1)?.record?.type, "custom", "the custom entry parsed");
			assert.deepEqual(
				read.lines.map((line) => line.line),
				Array.from({ length: 2502 }, (_, k) => k + 1),
			);
			await store.close();
			assert.deepEqual(jsonTexts(recordsOf(read, store.capabilities)), jsonTexts([header, ...records, custom]));
			const session = await Session.openStore(new PostgresSessionStore(location, { lazyFrom: 0 }), { load: "all" });
			assert.equal(session.getBranch().length, 2501, "a full open reads the bodies on use");
			assert.equal(JSON.stringify(session.getEntry(itemAt(records, 1234).id)), JSON.stringify(itemAt(records, 1234)));
			// Below the threshold: parsed, as before.
			const small = await new PostgresSessionStore(location).read();
			assert.equal(small.lines.filter((line) => line.envelope).length, 0);
			// After a replace: the new generation's records.
			const racing = new PostgresSessionStore(location, { lazyFrom: 0 });
			const replaced = okReplace(await racing.replace([header, ...records.slice(0, 3)], p1));
			const again = await new PostgresSessionStore(location, { lazyFrom: 0 }).read();
			assert.equal(again.position, replaced.position);
			assert.deepEqual(jsonTexts(recordsOf(again, store.capabilities)), jsonTexts([header, ...records.slice(0, 3)]));
		});

		test("a full read's bodies larger than its temporary file's write piece (1 MiB), and across pieces, read back whole", async () => {
			const location = db.session(randomUUID());
			const store = new PostgresSessionStore(location, { lazyFrom: 0 });
			const header = newHeader();
			const p0 = await store.create(header);
			const records: MessageEntry[] = [];
			let parent: string | null = null;
			// 1.5 MiB, then 300 KiB bodies (three and a bit fill a piece), between small ones.
			const sizes = [10, 1_572_864, 10, 307_200, 307_200, 307_200, 307_200, 307_200, 10];
			sizes.forEach((size, k) => {
				const id = entryId();
				records.push(messageRecord(id, parent, `${k} ${"x".repeat(size)} é`));
				parent = id;
			});
			okPosition(await store.append(records, p0));
			const read = await store.read();
			assert.equal(read.lines.filter((line) => line.envelope).length, sizes.length, "every message an envelope");
			await store.close();
			assert.deepEqual(jsonTexts(recordsOf(read, store.capabilities)), jsonTexts([header, ...records]));
		});

		test("records come back byte for byte: unicode, U+2028, emoji, escapes; bytes counts the JSONL size", async () => {
			const store = new PostgresSessionStore(db.session(randomUUID()));
			const header = newHeader();
			const p0 = await store.create(header);
			const texts = [
				"plain",
				"line\u2028sep\u2029para \u0085",
				"emoji \u{1f469}\u200d\u{1f4bb} \u{1f600}",
				"nul \u0000 lone \udc00 bom \ufeff",
				'quotes " \\ back',
				"日本語 Ünïcödé",
			];
			const records = [
				...texts.map((text, i) => messageRecord(`e${i}`, i === 0 ? null : `e${i - 1}`, text)),
				{
					z: 1,
					type: "custom",
					a: 2,
					id: "odd\u0000id",
					parentId: "e5",
					timestamp: "t",
					data: { "\u00e9": [1e21, -0] },
				},
			];
			const outcome = await store.append(records, p0);
			assert.equal(outcome.status, "ok");
			const read = await store.read();
			const all = [header, ...records];
			assert.deepEqual(
				read.lines.map((line) => JSON.stringify(line.record)),
				all.map((record) => JSON.stringify(record)),
			);
			const name = parsePostgresUrl(store.location).name;
			const rows = await query<{ line: string }>(
				pg,
				`SELECT line FROM "${db.schema}".records WHERE session = $1 ORDER BY seq`,
				[name],
			);
			const want = all.map((record) => encodeRecord(record).slice(0, -1));
			assert.deepEqual(
				rows.map((row) => Buffer.from(row.line).toString("hex")),
				want.map((line) => Buffer.from(line).toString("hex")),
				"the stored text is the codec's, byte for byte",
			);
			const [size] = await query<{ bytes: string }>(pg, `SELECT bytes FROM "${db.schema}".sessions WHERE name = $1`, [
				name,
			]);
			assert.equal(Number(size?.bytes), Buffer.byteLength(all.map((record) => encodeRecord(record)).join("")));
		});

		test("a location without #: nothing until create, which names the session by its header", async () => {
			const store = new PostgresSessionStore(db.url);
			assert.equal(await store.exists(), false);
			await rejects(() => store.read(), "FILE_NOT_FOUND");
			assert.equal(await store.readPath(10), undefined);
			const header = newHeader();
			await store.create(header);
			assert.equal(store.location, `${db.url}#${header.id}`);
			assert.equal(await new PostgresSessionStore(store.location).exists(), true);
			await rejects(() => new PostgresSessionStore(db.url).create(header), "FILE_EXISTS");
		});

		test("readPath reads only the active path; a context-only open gives the full open's context", async () => {
			const created = await Session.create({ location: db.url, cwd: "/path" });
			const location = created.location;
			let t = 0;
			const q1 = await created.appendMessage(userMessage("q1", t++));
			await created.appendMessage(assistantMessage("a1", t++));
			const q2 = await created.appendMessage(userMessage("q2", t++));
			await created.appendMessage(assistantMessage("a2 off the path", t++));
			await created.branch(q2);
			await created.appendMessage(assistantMessage("a2 again", t++));
			await created.appendLabelChange(q1, "first");
			await created.branch(q1);
			for (let i = 0; i < 50; i++) await created.appendMessage(userMessage(`side ${i}`, t++));
			await created.branch(q2);
			await created.appendMessage(assistantMessage("a2, third", t++));
			await created.appendMessage(userMessage("q3", t++));
			await created.close();
			const full = await Session.open(location);
			const path = await new PostgresSessionStore(location).readPath(1000);
			assert.ok(path);
			assert.equal(path.whole, false);
			assert.equal(JSON.stringify(path.header), JSON.stringify(full.getHeader()));
			assert.deepEqual(
				path.records.filter((record) => record.type !== "leaf").map((record) => record.id),
				full.getBranch().map((entry) => entry.id),
				"the entries of the active path, in stream order, and nothing else",
			);
			const short = await new PostgresSessionStore(location).readPath(2);
			assert.deepEqual(
				short?.records.map((record) => record.id),
				full
					.getBranch()
					.slice(-2)
					.map((entry) => entry.id),
			);
			const resumed = await Session.open(location, { load: "context" });
			assert.equal(resumed.getLeafId(), full.getLeafId());
			assert.deepEqual(resumed.buildSessionContext(), full.buildSessionContext());
			await rejects(async () => resumed.getEntries(), "NOT_LOADED");
		});

		test("readPath declines a session with a duplicate id, an older version, or a line that does not parse", async () => {
			const dup = new PostgresSessionStore(db.session(randomUUID()));
			const p = await dup.create(newHeader());
			await dup.append(
				[messageRecord("d1", null, "a"), messageRecord("d1", null, "b"), messageRecord("d2", "d1", "c")],
				p,
			);
			assert.equal(await dup.readPath(100), undefined);
			const old = new PostgresSessionStore(db.session(randomUUID()));
			const po = await old.create({ ...newHeader(), version: 2 });
			await old.append(chain(2, null), po);
			assert.equal(await old.readPath(100), undefined);
			const fine = new PostgresSessionStore(db.session(randomUUID()));
			const pf = await fine.create(newHeader());
			await fine.append(chain(3, null), pf);
			assert.equal((await fine.readPath(100))?.records.length, 3);
		});

		test("list fetches page by page; remove deletes a session with its records and backups", async () => {
			const schema = listSchema;
			const locations: string[] = [];
			for (let i = 0; i < 8; i++) {
				const store = new PostgresSessionStore(schema.url);
				const p = await store.create(newHeader());
				const outcome = await store.append(chain(i, null), p);
				if (i === 3 && outcome.status === "ok") await store.replace([newHeader()], outcome.position);
				locations.push(store.location);
			}
			const collection = new PostgresCollection(schema.url, { pageSize: 3 });
			const listed = [];
			for await (const listing of collection.list()) listed.push(listing);
			assert.deepEqual(listed.map((l) => l.location).sort(), [...locations].sort());
			for (const listing of listed) {
				assert.ok(listing.modified instanceof Date);
				const read = await collection.open(listing.location).read();
				const size = Buffer.byteLength(read.lines.map((line) => encodeRecord(line.record ?? {})).join(""));
				assert.equal(listing.bytes, size, "bytes is the size of a JSONL copy");
			}
			const gone = locations[3] as string;
			const name = parsePostgresUrl(gone).name;
			await collection.remove(gone);
			// A second remove finds no session, as with the other collections (the collection suite).
			await rejects(() => collection.remove(gone), "FILE_NOT_FOUND");
			assert.equal(await new PostgresSessionStore(gone).exists(), false);
			for (const table of ["records", "backups"]) {
				const [rows] = await query<{ n: string }>(
					pg,
					`SELECT count(*) AS n FROM "${schema.schema}".${table} WHERE session = $1`,
					[name],
				);
				assert.equal(Number(rows?.n), 0, `no ${table} left`);
			}
			let left = 0;
			for await (const _ of collectionAt(schema.url).list()) left++;
			assert.equal(left, 7);
			await rejects(() => collection.remove(schema.url), "INVALID_ARGUMENT");
		});

		test("backups: readPostgresBackup gives the replaced records; an unknown one is FILE_NOT_FOUND", async () => {
			const store = new PostgresSessionStore(db.session(randomUUID()));
			const header = newHeader();
			const p = await store.create(header);
			const old = chain(2, null, "old");
			const outcome = await store.append(old, p);
			assert.equal(outcome.status, "ok");
			const replaced = outcome.status === "ok" ? await store.replace([header], outcome.position) : undefined;
			assert.equal(replaced?.status, "ok");
			const backup = replaced?.status === "ok" ? replaced.backup : "";
			assert.equal(backup, `${store.location}@backup-0`);
			assert.deepEqual(
				(await readPostgresBackup(backup)).map((r) => JSON.stringify(r)),
				[header, ...old].map((r) => JSON.stringify(r)),
			);
			await rejects(() => readPostgresBackup(`${store.location}@backup-7`), "FILE_NOT_FOUND");
			await rejects(() => readPostgresBackup(store.location), "INVALID_ARGUMENT");
		});

		test("searchText narrows by word prefixes, finds what the catalog finds, and declines texts without words", async () => {
			const schema = searchSchema;
			const texts = {
				code: "I edited src/session-log.ts and Foo_Bar.test.ts today",
				greek: "Η ΣΟΦΙΑ είναι Straße café",
				other: "nothing to see here",
			};
			const at: Record<string, string> = {};
			for (const [key, text] of Object.entries(texts)) {
				const session = await Session.create({ location: schema.url });
				await session.appendMessage(userMessage(text, 1));
				await session.appendMessage(assistantMessage(`answer ${key}`, 2));
				at[key] = session.location;
			}
			const big = await Session.create({ location: schema.url });
			const huge = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}x`).join(" ");
			await big.appendMessage(userMessage(huge, 1));
			const collection = new PostgresCollection(schema.url);
			const found = async (text: string, ignoreCase = false) =>
				(await collection.searchText({ text, ignoreCase }))?.sort();
			const sessions = (...keys: string[]) => [...keys.map((k) => at[k]), big.location].sort();
			assert.deepEqual(await found("session-log.ts"), sessions("code"));
			assert.deepEqual(await found("log.ts and foo"), sessions("code"));
			assert.deepEqual(await found("FOO_BAR.TEST", true), sessions("code"));
			assert.deepEqual(await found("edit"), sessions("code"));
			assert.deepEqual(await found("σοφια είν", true), sessions("greek"));
			assert.deepEqual(await found("STRASSE", true), sessions("greek"));
			assert.deepEqual(await found("answer"), sessions("code", "greek", "other"));
			assert.deepEqual(await found("absent words"), sessions(), "only the session too large to index");
			assert.equal(await found(" .,;- "), undefined);
			for (const pattern of ["session-log", "ΣΟΦΙΑ", "answer o", "see here"]) {
				for (const ignoreCase of [false, true]) {
					const matcher = compileQuery({ pattern, ignoreCase });
					const scanned = await searchSessions(collection, matcher, { scan: true });
					const indexed = await searchSessions(collection, matcher);
					assert.deepEqual(indexed.hits, scanned.hits, `${pattern} (ignoreCase ${ignoreCase})`);
					assert.ok(indexed.hits.length > 0, pattern);
				}
			}
		});

		test("durability none: flush and close make the appends durable; storeAt honours the modes", async () => {
			const location = db.session(randomUUID());
			const store = storeAt(location, { durability: "none" });
			assert.deepEqual(store.capabilities.durability, ["none", "fsync"]);
			const p = await store.create(newHeader());
			const outcome = await store.append(chain(3, null), p);
			assert.equal(outcome.status, "ok");
			await store.flush();
			await store.close();
			assert.equal((await storeAt(location, { durability: "fsync" }).read()).lines.length, 4);
		});

		test("a writer that waits too long for another's row lock gets LOCKED", async () => {
			const location = db.session(randomUUID());
			const store = new PostgresSessionStore(location, { lock: { timeoutMs: 200 } });
			const p = await store.create(newHeader());
			const { Client } = await import("pg");
			const holder = new Client(pg);
			await holder.connect();
			try {
				await holder.query("BEGIN");
				await holder.query(`SELECT 1 FROM "${db.schema}".sessions WHERE name = $1 FOR UPDATE`, [
					parsePostgresUrl(location).name,
				]);
				const started = Date.now();
				await rejects(() => store.append(chain(1, null), p), "LOCKED");
				assert.ok(Date.now() - started < 5000);
				await holder.query("ROLLBACK");
				assert.equal((await store.append(chain(1, null), p)).status, "ok", "the connection is usable after");
			} finally {
				await holder.end();
			}
		});

		test("an unreachable server: IO_ERROR naming the host, without the password, quickly; no process hangs", async () => {
			const location = `postgres://me:s3cret@127.0.0.1:1/test#${randomUUID()}`;
			const started = Date.now();
			const error = await rejects(() => new PostgresSessionStore(location).exists(), "IO_ERROR");
			assert.ok(Date.now() - started < 5000, "failed fast");
			assert.match(error.message, /127\.0\.0\.1:1/);
			assert.match(error.message, /me:\*\*\*@/);
			assert.ok(!error.message.includes("s3cret"), error.message);
			await rejects(() => Session.open(location), "IO_ERROR");
			const script = `import { Session } from ${JSON.stringify(join(SRC, "index.js"))};
try { await Session.open(${JSON.stringify(location)}); } catch (error) { process.stdout.write(error.code); }`;
			const run = await runScript(script);
			assert.equal(run.out, "IO_ERROR", run.err);
			assert.ok(run.ms < 8000, `the process ended after ${run.ms} ms`);
		});

		test("a process that used the database exits at once, without closing anything", async () => {
			const script = `import { Session } from ${JSON.stringify(join(SRC, "index.js"))};
const s = await Session.create({ location: ${JSON.stringify(db.url)} });
await s.appendMessage({ role: "user", content: "hi", timestamp: 1 });
process.stdout.write(s.location);`;
			const run = await runScript(script);
			assert.equal(run.code, 0, run.err);
			assert.ok(run.ms < 5000, `the process ended after ${run.ms} ms (idle connections kept it alive?)`);
			assert.equal((await Session.open(run.out)).entryCount, 1);
		});

		test("connections the server terminates crash nothing; the next operation connects again", async () => {
			const app = `st_terminate_${process.pid}`;
			const url = `${pg}${pg.includes("?") ? "&" : "?"}application_name=${app}&schema=${db.schema}`;
			const store = new PostgresSessionStore(`${url}#${randomUUID()}`);
			const p = await store.create(newHeader());
			const killed = await query(
				pg,
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
				[app],
			);
			assert.ok(killed.length > 0, "the store's connection was there to terminate");
			await new Promise((resolve) => setTimeout(resolve, 200));
			assert.equal((await store.append(chain(1, null), p)).status, "ok");
			assert.equal((await store.read()).lines.length, 2);
		});

		test("closePostgresPools ends every pool; the stores connect again afterwards", async () => {
			const store = new PostgresSessionStore(db.session(randomUUID()));
			await store.create(newHeader());
			await closePostgresPools();
			assert.equal(await store.exists(), true);
		});
	});
}
