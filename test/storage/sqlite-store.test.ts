/**
 * What the conformance suite does not check of the SQLite store: locations, file modes,
 * migrations (again, and from several processes at once), the stored text byte for byte,
 * path reads by index, the collection (list, full-text search, remove).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { Session } from "../../src/session.js";
import { collectionAt, storeAt } from "../../src/storage/locations.js";
import {
	closeSqliteDatabases,
	loadDriver,
	migrate,
	openDatabase,
	SCHEMA_VERSION,
	statementsOf,
} from "../../src/storage/sql/sqlite-schema.js";
import {
	likePattern,
	parseSqliteUrl,
	readSqliteBackup,
	SqliteCollection,
	SqliteSessionStore,
	sqliteStore,
	textPattern,
} from "../../src/storage/sql/sqlite-store.js";
import {
	assertCode,
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
import { repoRoot } from "../support/fixtures.js";
import { assistantMessage, userMessage } from "../support/messages.js";
import { mulberry32 } from "../support/random.js";
import { SQLITE_SKIP, sqliteDriver } from "../support/sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "st-sqlite-"));
after(() => {
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

/** The schema this library wrote at version 2 (before the text index by chunks). */
const VERSION_2_SQL = `CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO counters (name, value) VALUES ('generation', 0);
CREATE TABLE sessions (name TEXT PRIMARY KEY, generation INTEGER NOT NULL, count INTEGER NOT NULL,
	created_ms INTEGER NOT NULL, modified_ms INTEGER NOT NULL, bytes INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE records (rid INTEGER PRIMARY KEY, session TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT, id TEXT,
	parent_id TEXT, line TEXT NOT NULL, UNIQUE (session, seq));
CREATE INDEX records_by_id ON records (session, id);
CREATE VIRTUAL TABLE records_text USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram');
CREATE TABLE backups (session TEXT NOT NULL, generation INTEGER NOT NULL, seq INTEGER NOT NULL, line TEXT NOT NULL,
	PRIMARY KEY (session, generation, seq)) WITHOUT ROWID;
CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL);
INSERT INTO schema_migrations VALUES (1, 0);
CREATE TABLE session_tree_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
INSERT INTO session_tree_meta (key, value) VALUES ('format', 'session-tree');
INSERT INTO schema_migrations VALUES (2, 0);`;

let databases = 0;
/** A database file that does not exist yet. */
function newDatabase(): string {
	return join(dir, `db-${++databases}.sqlite`);
}

/** The rows of a query on the database file, through a connection of the test's own. */
function query<Row>(file: string, sql: string, ...params: unknown[]): Row[] {
	const Database = sqliteDriver();
	const db = new Database(file, { readonly: true, fileMustExist: true });
	try {
		return db.prepare<unknown[], Row>(sql).all(...params);
	} finally {
		db.close();
	}
}

describe("sqlite: locations", () => {
	test("a relative path resolves against the working directory; the location is canonical", () => {
		assert.deepEqual(parseSqliteUrl("sqlite:rel/x.db#abc"), {
			file: resolve("rel/x.db"),
			base: `sqlite:${resolve("rel/x.db")}`,
			name: "abc",
		});
		assert.equal(parseSqliteUrl("SQLite:/tmp/x.db").name, undefined);
		assert.equal(storeAt("sqlite:rel.db#s-1").location, `sqlite:${resolve("rel.db")}#s-1`);
		assert.equal(collectionAt("sqlite:rel.db").location, `sqlite:${resolve("rel.db")}`);
	});

	test("bad locations: INVALID_ARGUMENT naming the location", async () => {
		for (const bad of [
			"sqlite:",
			"sqlite:#abc",
			"sqlite:/tmp/x.db#",
			"sqlite:/tmp/x.db#bad name",
			"sqlite:/tmp/x.db#-dash",
			"sqlite:/tmp/x.db#a/b",
			`sqlite:/tmp/x.db#${"a".repeat(129)}`,
		]) {
			await assertCode(async () => storeAt(bad), "INVALID_ARGUMENT", bad);
		}
		await assertCode(async () => new SqliteSessionStore("memory:x"), "INVALID_ARGUMENT", "another scheme");
		await assertCode(async () => collectionAt("sqlite:/tmp/x.db#abc"), "INVALID_ARGUMENT", "a collection with #");
		try {
			storeAt("sqlite:/tmp/x.db#bad name");
		} catch (error) {
			assert.match(String(error), /sqlite:\/tmp\/x\.db#bad name/, "the message names the location");
		}
	});

	test("durability: none and fsync are honoured, group is refused", { skip: SQLITE_SKIP }, async () => {
		const file = newDatabase();
		assert.deepEqual(storeAt(`sqlite:${file}#a`).capabilities.durability, ["none", "fsync"]);
		await assertCode(async () => storeAt(`sqlite:${file}#a`, { durability: "group" }), "INVALID_ARGUMENT", "group");
		const session = await Session.create({ location: `sqlite:${file}#f`, durability: "fsync" });
		await session.appendMessage(userMessage("durable", 1));
		assert.equal((await Session.open(`sqlite:${file}#f`, { durability: "fsync" })).entryCount, 1);
	});

	test("a store without a name takes its header's id at create", { skip: SQLITE_SKIP }, async () => {
		const file = newDatabase();
		const store = sqliteStore(`sqlite:${file}`, {});
		assert.equal(store.location, `sqlite:${file}`);
		assert.equal(await store.exists(), false);
		await assertCode(() => store.read(), "FILE_NOT_FOUND", "read before create");
		assert.equal(await store.readPath?.(10), undefined);
		const header = newHeader();
		await store.create(header);
		assert.equal(store.location, `sqlite:${file}#${header.id}`);
		assert.equal(await store.exists(), true);
		const session = await Session.create({ location: `sqlite:${file}` });
		assert.equal(session.location, `sqlite:${file}#${session.getSessionId()}`);
		const viaDir = await Session.create({ dir: `sqlite:${file}` });
		assert.equal(viaDir.location, `sqlite:${file}#${viaDir.getSessionId()}`);
		// A session is keyed by its name, not by the id in its header.
		const named = sqliteStore(`sqlite:${file}#other-name`, {});
		await named.create(header);
		assert.equal((await named.read()).lines.length, 1);
	});

	test("reading a database that does not exist creates nothing; a missing directory is FILE_NOT_FOUND", {
		skip: SQLITE_SKIP,
	}, async () => {
		const file = newDatabase();
		const store = sqliteStore(`sqlite:${file}#a`, {});
		assert.equal(await store.exists(), false);
		await assertCode(() => store.read(), "FILE_NOT_FOUND", "read");
		assert.equal(await store.readSince("0:1"), undefined);
		const collection = new SqliteCollection(`sqlite:${file}`);
		const listed = [];
		for await (const item of collection.list()) listed.push(item);
		assert.deepEqual(listed, []);
		assert.deepEqual(await collection.searchText({ text: "anything", ignoreCase: true }), []);
		assert.equal(existsSync(file), false, "no file was created");
		const nowhere = sqliteStore(`sqlite:${join(dir, "missing-dir", "x.db")}#a`, {});
		await assertCode(() => nowhere.create(newHeader()), "FILE_NOT_FOUND", "create in a missing directory");
	});

	test("without better-sqlite3: INVALID_ARGUMENT saying what to install", async () => {
		const store = pathToFileURL(resolve(import.meta.dirname, "../../src/storage/sql/sqlite-store.js")).href;
		// The loader that hides better-sqlite3, as when the optional dependency is not installed.
		const hidden = join(repoRoot, "test", "support", "no-sqlite.mjs");
		const script = `
			const { sqliteStore } = await import(${JSON.stringify(store)});
			try {
				await sqliteStore("sqlite:/nowhere/x.db#a", {}).exists();
			} catch (error) {
				process.stdout.write(JSON.stringify({ code: error.code, file: error.file, message: error.message }));
			}
		`;
		const child = spawn(
			process.execPath,
			["--import", pathToFileURL(hidden).href, "--input-type=module", "-e", script],
			{
				stdio: ["ignore", "pipe", "inherit"],
			},
		);
		let out = "";
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
		});
		await new Promise((done) => child.on("close", done));
		const got = JSON.parse(out);
		assert.equal(got.code, "INVALID_ARGUMENT");
		assert.equal(got.file, "sqlite:/nowhere/x.db#a");
		assert.match(got.message, /npm install better-sqlite3@12/);
	});

	test("a file that is not a database: IO_ERROR naming the location", { skip: SQLITE_SKIP }, async () => {
		const file = join(dir, "not-a-db.jsonl");
		const { writeFileSync } = await import("node:fs");
		writeFileSync(file, `${"x".repeat(200)}\n`);
		await assertCode(() => sqliteStore(`sqlite:${file}#a`, {}).exists(), "IO_ERROR", "not a database");
	});
});

describe("sqlite: files and schema", { skip: SQLITE_SKIP }, () => {
	test("the database and its -wal and -shm files are owner-only (0600)", async () => {
		const file = newDatabase();
		const session = await Session.create({ location: `sqlite:${file}#a` });
		await session.appendMessage(userMessage("q", 1));
		for (const name of [file, `${file}-wal`, `${file}-shm`]) {
			assert.ok(existsSync(name), `${name} exists`);
			assert.equal((statSync(name).mode & 0o777).toString(8), "600", `${name} is owner-only`);
		}
		assert.equal(query<{ journal_mode: string }>(file, "PRAGMA journal_mode")[0]?.journal_mode, "wal");
	});

	test("migrations run again change nothing; the version is recorded once", async () => {
		const file = newDatabase();
		const driver = await loadDriver(file);
		const first = openDatabase(driver, file, true);
		const second = openDatabase(driver, file, true);
		assert.ok(first && second);
		migrate(first, file);
		migrate(second, file);
		statementsOf(second);
		first.close();
		second.close();
		const versions = query<{ version: number }>(file, "SELECT version FROM schema_migrations ORDER BY version");
		assert.deepEqual(
			versions.map((row) => row.version),
			Array.from({ length: SCHEMA_VERSION }, (_, k) => k + 1),
		);
		const store = sqliteStore(`sqlite:${file}#a`, {});
		await store.create(newHeader());
		assert.equal(await store.exists(), true);
	});

	test("a newer schema than this code knows is refused", async () => {
		const file = newDatabase();
		await sqliteStore(`sqlite:${file}#a`, {}).create(newHeader());
		const Database = sqliteDriver();
		const db = new Database(file);
		db.prepare("INSERT INTO schema_migrations (version, applied_ms) VALUES (?, 0)").run(SCHEMA_VERSION + 1);
		db.close();
		closeSqliteDatabases();
		await assertCode(() => sqliteStore(`sqlite:${file}#a`, {}).exists(), "INVALID_ARGUMENT", "a newer schema");
	});

	test("six processes opening a new database at once: each migration applied once, every session created", async () => {
		const file = newDatabase();
		const schema = pathToFileURL(resolve(import.meta.dirname, "../../src/storage/sql/sqlite-store.js")).href;
		const script = `
			const { sqliteStore } = await import(${JSON.stringify(schema)});
			const store = sqliteStore(process.argv[1], {});
			await store.create({ type: "session", version: 3, id: "x", timestamp: new Date().toISOString(), cwd: "/" });
		`;
		const runs = Array.from({ length: 6 }, (_, k) => {
			const child = spawn(process.execPath, ["--input-type=module", "-e", script, `sqlite:${file}#p${k}`], {
				stdio: ["ignore", "ignore", "pipe"],
			});
			let stderr = "";
			child.stderr.on("data", (chunk: Buffer) => {
				stderr += chunk.toString("utf8");
			});
			return new Promise<string>((done) => child.on("close", (code) => done(`${code} ${stderr}`)));
		});
		assert.deepEqual(await Promise.all(runs), Array(6).fill("0 "));
		const versions = query<{ version: number }>(file, "SELECT version FROM schema_migrations ORDER BY version");
		assert.equal(versions.length, SCHEMA_VERSION);
		const names = query<{ name: string }>(file, "SELECT name FROM sessions ORDER BY name").map((row) => row.name);
		assert.deepEqual(names, ["p0", "p1", "p2", "p3", "p4", "p5"]);
	});
});

describe("sqlite: records", { skip: SQLITE_SKIP }, () => {
	test("the stored text is the JSON text byte for byte, U+2028 and all; read gives it back", async () => {
		const file = newDatabase();
		const store = sqliteStore(`sqlite:${file}#bytes`, {});
		const header = newHeader();
		const p0 = await store.create(header);
		const odd = 'sep \u2028 \u2029 nel \u0085 nul \u0000 emoji \u{1f469}\u200d\u{1f467} lone \ud800 \\ "q" \r\n';
		const records = [messageRecord(entryId(), null, odd), { zeta: 1, type: "custom", alpha: "é", id: entryId() }];
		okPosition(await store.append(records, p0));
		const lines = query<{ line: string }>(file, "SELECT line FROM records WHERE session = ? ORDER BY seq", "bytes");
		assert.deepEqual(
			lines.map((row) => row.line),
			[header, ...records].map((record) => JSON.stringify(record)),
		);
		const read = await store.read();
		assert.deepEqual(
			jsonTexts(recordsOf(read, store.capabilities)),
			[header, ...records].map((record) => JSON.stringify(record)),
		);
		assert.deepEqual(
			read.lines.map((line) => line.line),
			[1, 2, 3],
			"line numbers are those of a JSONL copy",
		);
	});

	test("read: entries as envelopes, bodies read by key on first use (after close too); a replaced session's refused", async () => {
		const file = newDatabase();
		const store = sqliteStore(`sqlite:${file}#lazy`, {});
		const header = newHeader();
		const p0 = await store.create(header);
		const messages = chain(3, null, "lazy");
		const custom = {
			type: "custom",
			customType: "x",
			id: entryId(),
			parentId: itemAt(messages, -1).id,
			timestamp: new Date().toISOString(),
		};
		const records = [...messages, custom];
		const p1 = okPosition(await store.append(records, p0));
		const read = await store.read();
		assert.deepEqual(
			read.lines.map((line) => (line.envelope ? "envelope" : line.record ? "record" : "?")),
			["record", "envelope", "envelope", "envelope", "record"],
			"the header and the custom entry parsed, the messages as envelopes",
		);
		assert.deepEqual(
			read.lines.map((line) => line.line),
			[1, 2, 3, 4, 5],
			"line numbers are those of a JSONL copy",
		);
		await store.close();
		closeSqliteDatabases();
		assert.deepEqual(jsonTexts(recordsOf(read, store.capabilities)), jsonTexts([header, ...records]));
		const session = await Session.open(store.location, { load: "all" });
		assert.deepEqual(
			session.getBranch().map((entry) => JSON.stringify(entry)),
			jsonTexts(records),
			"a full open reads the bodies on use",
		);
		okReplace(await store.replace([header, ...records.slice(0, 2)], p1));
		const envelopes = read.lines.flatMap((line) => (line.envelope ? [line.envelope] : []));
		assert.throws(() => read.source?.readLines(envelopes), /replaced or removed since it was read.*refresh\(\)/);
	});

	test("a position from before a remove is stale for a session created again under the same name", async () => {
		const file = newDatabase();
		const location = `sqlite:${file}#again`;
		const store = sqliteStore(location, {});
		const p0 = await store.create(newHeader());
		okPosition(await store.append(chain(2, null), p0));
		await new SqliteCollection(`sqlite:${file}`).remove(location);
		const fresh = sqliteStore(location, {});
		const q0 = await fresh.create(newHeader());
		okPosition(await fresh.append(chain(2, null), q0));
		assert.equal((await store.append(chain(1, null), p0)).status, "stale");
		assert.equal(await store.readSince(p0), undefined);
	});

	test("replace keeps a backup readable by its name until the session is removed", async () => {
		const file = newDatabase();
		const store = sqliteStore(`sqlite:${file}#r`, {});
		const header = newHeader();
		const p0 = await store.create(header);
		const old = chain(2, null, "old");
		const p1 = okPosition(await store.append(old, p0));
		const { backup } = okReplace(await store.replace([header], p1));
		assert.match(backup, /^sqlite:\/.*#r@backup-\d+$/);
		assert.deepEqual(jsonTexts(await readSqliteBackup(backup)), jsonTexts([header, ...old]));
		await assertCode(() => readSqliteBackup(`${store.location}@backup-999999`), "FILE_NOT_FOUND", "no such backup");
		await assertCode(() => readSqliteBackup(store.location), "INVALID_ARGUMENT", "not a backup name");
		await new SqliteCollection(`sqlite:${file}`).remove(store.location);
		await assertCode(() => readSqliteBackup(backup), "FILE_NOT_FOUND", "the backup went with the session");
	});
});

describe("sqlite: path reads", { skip: SQLITE_SKIP }, () => {
	/** A session with a side branch, a branch back, and labels; returns its URL and the session. */
	async function branched(file: string): Promise<{ url: string; session: Session }> {
		const session = await Session.create({ location: `sqlite:${file}` });
		const q1 = await session.appendMessage(userMessage("q1", 1));
		await session.appendMessage(assistantMessage("a1", 2));
		const q2 = await session.appendMessage(userMessage("q2", 1));
		await session.appendMessage(assistantMessage("a2 on the first branch", 2));
		await session.appendLabelChange(q1, "start");
		await session.branch(q2);
		await session.appendMessage(assistantMessage("a2 on the second branch", 2));
		await session.appendMessage(userMessage("q3", 1));
		await session.branch(q1);
		await session.appendMessage(assistantMessage("a1 again", 2));
		await session.appendMessage(userMessage("last question", 1));
		return { url: session.location, session };
	}

	test("readPath returns the active path only, and a context-only open equals a full open", async () => {
		const file = newDatabase();
		const { url, session } = await branched(file);
		const store = storeAt(url);
		const read = await store.readPath?.(1000);
		assert.ok(read, "a path");
		assert.equal(read.whole, false);
		assert.equal(read.header.id, session.getSessionId());
		const entryIds = read.records.filter((record) => record.type !== "leaf").map((record) => record.id);
		assert.deepEqual(
			entryIds,
			session.getBranch().map((entry) => entry.id),
		);
		const short = await store.readPath?.(2);
		assert.deepEqual(
			short?.records.map((record) => record.id),
			read.records.slice(-2).map((record) => record.id),
		);
		const resumed = await Session.open(url, { load: "context" });
		const full = await Session.open(url);
		assert.equal(resumed.getLeafId(), full.getLeafId());
		assert.deepEqual(resumed.buildSessionContext(), full.buildSessionContext());
		await assertCode(async () => resumed.getEntries(), "NOT_LOADED", "only the path was read");
	});

	test("readPath declines an older version and a walk that is not one chain", async () => {
		const file = newDatabase();
		const old = sqliteStore(`sqlite:${file}#v2`, {});
		const p0 = await old.create({ ...newHeader(), version: 2 });
		okPosition(await old.append(chain(3, null), p0));
		assert.equal(await old.readPath?.(100), undefined, "version 2");
		const dup = sqliteStore(`sqlite:${file}#dup`, {});
		const q0 = await dup.create(newHeader());
		const root = messageRecord("aaaaaaaa", null, "root");
		const twin = messageRecord("aaaaaaaa", null, "twin");
		okPosition(await dup.append([root, twin, messageRecord(entryId(), "aaaaaaaa", "child")], q0));
		assert.equal(await dup.readPath?.(100), undefined, "duplicate ids");
	});

	test("the walk uses the indexes only (EXPLAIN QUERY PLAN)", async () => {
		const file = newDatabase();
		await sqliteStore(`sqlite:${file}#a`, {}).create(newHeader());
		const driver = await loadDriver(file);
		const db = openDatabase(driver, file, false);
		assert.ok(db);
		try {
			const plan = db
				.prepare<[{ session: string; count: number; limit: number }], { detail: string }>(
					`EXPLAIN QUERY PLAN ${statementsOf(db).path.source}`,
				)
				.all({ session: "a", count: 10, limit: 11 })
				.map((row) => row.detail);
			assert.ok(plan.includes("SEARCH r USING INDEX records_by_id (session=? AND id=?)"), plan.join("\n"));
			assert.ok(plan.includes("SEARCH r USING INDEX sqlite_autoindex_records_1 (session=? AND seq=?)"));
			const scans = plan.filter((detail) => detail.startsWith("SCAN") && detail !== "SCAN path");
			assert.deepEqual(scans, [], "no table scan");
		} finally {
			db.close();
		}
	});

	test("readPath on a session of 100,000 entries reads 1,000 records by index, quickly", async (t) => {
		const file = newDatabase();
		const store = sqliteStore(`sqlite:${file}#big`, {});
		let position = await store.create(newHeader());
		let parent: string | null = null;
		for (let k = 0; k < 100; k++) {
			const records = chain(1000, parent, `batch ${k}`);
			position = okPosition(await store.append(records, position));
			parent = itemAt(records, -1).id;
		}
		const started = performance.now();
		const read = await store.readPath?.(1000);
		const ms = performance.now() - started;
		assert.equal(read?.records.length, 1000);
		assert.equal(itemAt(read?.records ?? [], -1).id, parent);
		t.diagnostic(`readPath(1000) of 100,000 entries: ${ms.toFixed(1)} ms`);
		assert.ok(ms < 1000, `readPath took ${ms} ms`);
	});
});

describe("sqlite: the collection", { skip: SQLITE_SKIP }, () => {
	test("list: every session with its URL, modification time and JSONL size", async () => {
		const file = newDatabase();
		const a = await Session.create({ location: `sqlite:${file}#a` });
		await a.appendMessage(userMessage("hello", 1));
		await Session.create({ location: `sqlite:${file}#b` });
		const collection = collectionAt(`sqlite:${file}`);
		assert.deepEqual(collection.capabilities, { listing: true, search: true, remove: true });
		const listed = [];
		for await (const item of collection.list()) listed.push(item);
		assert.deepEqual(
			listed.map((item) => item.location),
			[`sqlite:${file}#a`, `sqlite:${file}#b`],
		);
		const lines = query<{ line: string }>(file, "SELECT line FROM records WHERE session = 'a'");
		const bytes = lines.reduce((sum, row) => sum + Buffer.byteLength(row.line) + 1, 0);
		assert.equal(listed[0]?.bytes, bytes);
		assert.ok(listed[0]?.modified instanceof Date && Math.abs(listed[0].modified.getTime() - Date.now()) < 60_000);
		assert.equal((await Session.openStore(collection.open(`sqlite:${file}#a`))).entryCount, 1);
		await assertCode(async () => collection.open(`sqlite:${file}-other#a`), "INVALID_ARGUMENT", "another database");
		await assertCode(async () => collection.open(`sqlite:${file}`), "INVALID_ARGUMENT", "no session name");
		await collection.close?.();
	});

	test("searchText: substrings in any letter case; undefined under 3 characters", async () => {
		const file = newDatabase();
		const one = await Session.create({ location: `sqlite:${file}#one` });
		await one.appendMessage(userMessage("The Quick Brown Fox", 1));
		await one.appendMessage(assistantMessage('said "hi" and 日本語のテキスト', 2));
		const two = await Session.create({ location: `sqlite:${file}#two` });
		await two.appendMessage(userMessage("a lazy dog", 1));
		await two.appendCustomEntry("state", { text: "quick but not searched" });
		const collection = collectionAt(`sqlite:${file}`);
		const find = (text: string, ignoreCase = true) => collection.searchText?.({ text, ignoreCase });
		assert.deepEqual(await find("quick brown"), [`sqlite:${file}#one`]);
		assert.deepEqual(await find("UICK BRO", false), [`sqlite:${file}#one`], "a superset: case is left to the catalog");
		assert.deepEqual(await find("azy"), [`sqlite:${file}#two`]);
		assert.deepEqual(await find('"hi"'), [`sqlite:${file}#one`], "quotes are text");
		assert.deepEqual(await find("のテキ"), [`sqlite:${file}#one`]);
		assert.deepEqual(await find("o"), undefined);
		assert.deepEqual(await find("ox"), undefined);
		assert.deepEqual(await find("日本"), undefined, "two characters");
		assert.deepEqual(await find("not searched"), [], "custom entries have no searchable text");
		assert.deepEqual(await find("nowhere"), []);
		assert.deepEqual(await find("a OR b"), [], "no query syntax");
	});

	test("searchText by chunks: every record of a large write found, other sessions with the words apart checked out", async () => {
		const file = newDatabase();
		const store = sqliteStore(`sqlite:${file}#big`, {});
		const p0 = await store.create(newHeader());
		const records = chain(300, null, "filler text");
		const at = (k: number, text: string) => {
			const record = itemAt(records, k);
			records[k] = messageRecord(record.id, record.parentId, text);
		};
		at(0, "first: zebra crossing protocol");
		at(170, "seventieth: Kelvin \u212aelvin and ſtraße");
		at(299, "last one: ünïcödé text");
		okPosition(await store.append(records, p0));
		const decoy = await Session.create({ location: `sqlite:${file}#decoy` });
		await decoy.appendMessage(userMessage("a protocol for the crossing", 1));
		const collection = collectionAt(`sqlite:${file}`);
		const find = (text: string) => collection.searchText?.({ text, ignoreCase: true });
		const big = [`sqlite:${file}#big`];
		assert.deepEqual(await find("crossing protocol"), big, "the decoy holds every trigram, not the text");
		assert.deepEqual(await find("CROSSING PROTOCOL"), big);
		assert.deepEqual(await find("seventieth"), big);
		assert.deepEqual(await find("kelvin kelvin"), big, "k matches the Kelvin sign, as the catalog's iu match");
		assert.deepEqual(await find("ÜNÏCÖDÉ"), big, "beyond ASCII: not checked, found by the index");
		assert.deepEqual(await find("protocol"), [...big, `sqlite:${file}#decoy`].sort());
		assert.deepEqual(await find("zebra protocol"), [], "every trigram is there, the text is not");
		const rows = query<{ chunks: number }>(file, "SELECT count(*) AS chunks FROM search_chunks");
		assert.ok((rows[0]?.chunks ?? 0) > 1 && (rows[0]?.chunks ?? 0) < 10, "a few index rows for 300 records");
	});

	test("searchText's check (LIKE, then the GLOB where the long s or the Kelvin sign is) finds what the GLOB alone finds", async () => {
		// The check of the candidate chunks' records was a GLOB of letter classes; it is now LIKE,
		// and the GLOB only for a line LIKE refused that holds U+017F or U+212A. The expectation is
		// the GLOB alone over every record (textPattern's, no index, no LIKE), on random texts of
		// pieces with those characters, LIKE's and GLOB's special characters and mixed case.
		const file = newDatabase();
		const pick = mulberry32(11);
		const pieces = [
			"zebra",
			"Kelvin",
			"\u212aelvin",
			"ſtraße",
			"strasse",
			"STRASSE",
			"100%",
			"a_b",
			"[x]",
			"*?",
			"kelvin",
			"sk",
			"SK",
			"ſk",
			"protocol",
			" ",
		];
		const texts: string[] = [];
		for (let i = 0; i < 40; i++) {
			const words = Array.from(
				{ length: 1 + Math.floor(pick() * 6) },
				() => pieces[Math.floor(pick() * pieces.length)],
			);
			const text = words.join(pick() < 0.5 ? " " : "");
			texts.push(text);
			const session = await Session.create({ location: `sqlite:${file}#s${i}` });
			await session.appendMessage(userMessage(text, i));
			await session.close();
		}
		const collection = collectionAt(`sqlite:${file}`);
		let checked = 0;
		let found = 0;
		for (let k = 0; k < 300; k++) {
			const source = texts[Math.floor(pick() * texts.length)] as string;
			const from = Math.floor(pick() * source.length);
			let text = [...source.slice(from, from + 3 + Math.floor(pick() * 10))]
				.map((char) => (pick() < 0.5 ? char.toUpperCase() : char.toLowerCase()))
				.join("");
			if (pick() < 0.2) text = text.replaceAll("s", "S").replaceAll("k", "K");
			const pattern = textPattern({ text, ignoreCase: true });
			if ([...text].length < 3 || pattern === undefined) continue;
			const expected = query<{ session: string }>(
				file,
				"SELECT DISTINCT session FROM records WHERE line GLOB ? ORDER BY session",
				pattern,
			).map((row) => `sqlite:${file}#${row.session}`);
			assert.deepEqual(await collection.searchText?.({ text, ignoreCase: true }), expected, JSON.stringify(text));
			checked++;
			if (expected.length > 0) found++;
		}
		assert.ok(checked > 150 && found > 100, `queries checked: ${checked}, with hits: ${found}`);
		assert.equal(likePattern("100%_x"), "%100\\%\\_x%");
	});

	test("a database of schema version 2 (one index row per record) migrates to chunks, atomically, and keeps its sessions", async () => {
		const file = newDatabase();
		const Database = sqliteDriver();
		const db = new Database(file);
		db.exec(VERSION_2_SQL);
		const header = newHeader();
		const records = chain(3, null, "old text");
		itemAt(records, 1).message = { role: "user", content: "needle in the old store", timestamp: 1 };
		const lines = [header, ...records].map((record) => JSON.stringify(record));
		const insert = db.prepare(
			"INSERT INTO records (session, seq, type, id, parent_id, line) VALUES ('old', ?, ?, ?, ?, ?)",
		);
		const text = db.prepare("INSERT INTO records_text (rowid, text) VALUES (?, ?)");
		lines.forEach((line, seq) => {
			const record = JSON.parse(line) as {
				type: string;
				id?: string;
				parentId?: string | null;
				message?: { content: string };
			};
			const { lastInsertRowid } = insert.run(seq, record.type, record.id ?? null, record.parentId ?? null, line);
			if (record.message) text.run(lastInsertRowid, record.message.content);
		});
		const bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
		db.prepare("INSERT INTO sessions VALUES ('old', 1, ?, 0, 0, ?)").run(lines.length, bytes);
		db.prepare("UPDATE counters SET value = 1").run();
		db.close();
		// A migration that fails part way leaves version 2 as it was.
		const broken = new Database(file);
		broken.exec("CREATE TABLE search_chunks (x)");
		broken.close();
		await assertCode(() => sqliteStore(`sqlite:${file}#old`, {}).append([], "1:4"), "IO_ERROR", "a failed migration");
		closeSqliteDatabases();
		assert.deepEqual(
			query<{ version: number }>(file, "SELECT max(version) AS version FROM schema_migrations")[0]?.version,
			2,
		);
		assert.equal(query(file, "SELECT 1 FROM sqlite_master WHERE name = 'records_text'").length, 1, "kept");
		const fix = new Database(file);
		fix.exec("DROP TABLE search_chunks");
		fix.close();

		const store = sqliteStore(`sqlite:${file}#old`, {});
		assert.deepEqual(jsonTexts(recordsOf(await store.read(), store.capabilities)), lines, "read as it was");
		const reading = collectionAt(`sqlite:${file}`);
		assert.equal(
			await reading.searchText?.({ text: "needle", ignoreCase: true }),
			undefined,
			"a read migrates nothing",
		);
		okPosition(await store.append(chain(1, itemAt(records, -1).id, "new text"), "1:4"));
		assert.equal(
			query<{ version: number }>(file, "SELECT max(version) AS version FROM schema_migrations")[0]?.version,
			SCHEMA_VERSION,
		);
		assert.equal(query(file, "SELECT 1 FROM sqlite_master WHERE name = 'records_text'").length, 0, "dropped");
		const collection = collectionAt(`sqlite:${file}`);
		assert.deepEqual(await collection.searchText?.({ text: "needle", ignoreCase: true }), [store.location]);
		assert.deepEqual(await collection.searchText?.({ text: "new text", ignoreCase: true }), [store.location]);
		await collection.remove?.(store.location);
		assert.deepEqual(query(file, "SELECT * FROM search_chunks"), [], "remove takes the chunks");
		assert.deepEqual(await collection.searchText?.({ text: "needle", ignoreCase: true }), []);
	});

	test("remove: the session, its text and its backups go, in one transaction; others stay", async () => {
		const file = newDatabase();
		const gone = await Session.create({ location: `sqlite:${file}#gone` });
		await gone.appendMessage(userMessage("findable text", 1));
		const kept = await Session.create({ location: `sqlite:${file}#kept` });
		await kept.appendMessage(userMessage("findable too", 1));
		const collection = collectionAt(`sqlite:${file}`);
		await collection.remove?.(`sqlite:${file}#gone`);
		assert.equal(await storeAt(`sqlite:${file}#gone`).exists(), false);
		assert.deepEqual(await collection.searchText?.({ text: "findable", ignoreCase: false }), [`sqlite:${file}#kept`]);
		assert.equal(query(file, "SELECT 1 FROM records WHERE session = 'gone'").length, 0);
		assert.equal((await Session.open(`sqlite:${file}#kept`)).entryCount, 1);
		await assertCode(async () => collection.remove?.(`sqlite:${file}#gone`), "FILE_NOT_FOUND", "removed already");
		await assertCode(
			async () => collection.remove?.(`sqlite:${join(dir, "elsewhere.db")}#kept`),
			"INVALID_ARGUMENT",
			"another database",
		);
	});

	test("sessionFor and derive: the same database, named by the header's id", async () => {
		const file = newDatabase();
		const header = newHeader();
		const collection = new SqliteCollection(`sqlite:${file}`);
		assert.equal(collection.sessionFor(header).location, `sqlite:${file}#${header.id}`);
		assert.equal(sqliteStore(`sqlite:${file}#x`, {}).derive(header).location, `sqlite:${file}#${header.id}`);
		const source = await Session.create({ location: `sqlite:${file}#source` });
		const q = await source.appendMessage(userMessage("q", 1));
		const fork = await source.fork(q);
		assert.equal(fork.location, `sqlite:${file}#${fork.getSessionId()}`);
	});
});
