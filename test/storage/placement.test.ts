/**
 * Where a session lives (src/storage/placement.ts): the store each kind of target gives a new
 * session, the precedence of the options, keyed places and their keys, the collection that
 * holds a session, and removing a session created a moment ago.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { SessionHeader } from "../../src/core/types.js";
import { Session } from "../../src/session.js";
import { collectionAt, storeAt } from "../../src/storage/locations.js";
import { MemoryCollection, MemorySessionStore } from "../../src/storage/memory-store.js";
import { sessionFileName } from "../../src/storage/paths.js";
import {
	checkSessionKey,
	collectionOfSession,
	discardCreatedSession,
	keyedLocation,
	keyedPlace,
	SESSION_KEY,
	type SessionTarget,
	sessionStoreFor,
	targetOf,
} from "../../src/storage/placement.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-schema.js";
import { SqliteSessionStore } from "../../src/storage/sql/sqlite-store.js";
import type { SessionCollection, SessionStore } from "../../src/storage/store.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "st-placement-"));
after(() => {
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

let n = 0;
const T0 = "2026-03-01T10:00:00.000Z";
const header = (id = `0198a0b0-0000-7000-8000-${String(++n).padStart(12, "0")}`): SessionHeader => ({
	type: "session",
	version: 3,
	id,
	timestamp: T0,
	cwd: "/p",
});
const freshMemory = () => `memory:placement-${process.pid}-${++n}`;
const freshDatabase = () => join(dir, `db-${++n}.sqlite`);
const invalidArgument = (e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT");

describe("sessionStoreFor", () => {
	test("a location: the store storeAt opens there (a path, a file: URL, memory:NAME, sqlite:PATH#ID)", async () => {
		const file = join(dir, "at-location.jsonl");
		const h = header();
		assert.equal(sessionStoreFor({ location: file }, h).file, file);
		const rel = relative(process.cwd(), join(dir, "relative.jsonl"));
		assert.equal(sessionStoreFor({ location: rel }, h).file, join(dir, "relative.jsonl"));
		assert.equal(sessionStoreFor({ location: pathToFileURL(file).href }, h).file, file);
		const memory = freshMemory();
		const store = sessionStoreFor({ location: memory }, h);
		assert.equal(store.location, memory);
		assert.equal(store.file, undefined);
		const database = freshDatabase();
		assert.equal(sessionStoreFor({ location: `sqlite:${database}#s1` }, h).location, `sqlite:${database}#s1`);
		assert.throws(() => sessionStoreFor({ location: "nosuch:abc" }, h), invalidArgument);
		// A durability the store cannot honour is refused before anything is created.
		assert.throws(() => sessionStoreFor({ location: freshMemory() }, h, { durability: "fsync" }), invalidArgument);
	});

	test("a file: that JSONL file, a path (resolved) or a file: URL, with the durability asked for", async () => {
		const h = header();
		const file = join(dir, "sub", "exact.jsonl");
		const store = sessionStoreFor({ file: relative(process.cwd(), file) }, h, { durability: "fsync" });
		assert.equal(store.file, file);
		assert.deepEqual(store.capabilities.durability, ["none", "fsync", "group"]);
		assert.equal(sessionStoreFor({ file: pathToFileURL(file).href }, h).file, file);
		await store.create(h);
		assert.ok(existsSync(file));
	});

	test("a directory: the file named as pi names sessions, the directory created with it", async () => {
		const h = header();
		const sub = join(dir, "not-yet");
		const store = sessionStoreFor({ dir: sub }, h);
		assert.equal(store.file, join(sub, sessionFileName(h.timestamp, h.id)));
		assert.equal(existsSync(sub), false, "nothing is created before the session is");
		await store.create(h);
		assert.ok(existsSync(store.file as string));
		// A file: URL is a collection's location: the directory must exist.
		const url = pathToFileURL(sub).href;
		assert.equal(sessionStoreFor({ dir: url }, h).file, join(sub, sessionFileName(h.timestamp, h.id)));
		assert.throws(
			() => sessionStoreFor({ dir: pathToFileURL(join(dir, "missing")).href }, h),
			(e: unknown) => isSessionTreeError(e, "FILE_NOT_FOUND"),
		);
	});

	test("a collection's location as dir: the collection names the session (memory:ID)", () => {
		const h = header();
		assert.equal(sessionStoreFor({ dir: "memory:" }, h).location, `memory:${h.id}`);
		// Not a place of many sessions: refused as collectionAt refuses it.
		assert.throws(() => sessionStoreFor({ dir: "memory:one" }, h), invalidArgument);
		// With a durability, the session is opened again by its location: refused where it cannot be honoured.
		assert.throws(() => sessionStoreFor({ dir: "memory:" }, h, { durability: "group" }), invalidArgument);
	});

	test("a collection's location as dir: the collection names the session (DATABASE#ID)", {
		skip: SQLITE_SKIP,
	}, async () => {
		const h = header();
		const database = freshDatabase();
		const store = sessionStoreFor({ dir: `sqlite:${database}` }, h);
		assert.equal(store.location, `sqlite:${database}#${h.id}`);
		await store.create(h);
		assert.equal(await storeAt(`sqlite:${database}#${h.id}`).exists(), true);
		// Not a place of many sessions: refused as collectionAt refuses it.
		assert.throws(() => sessionStoreFor({ dir: `sqlite:${database}#x` }, h), invalidArgument);
		// With a durability, the session is opened again by its location: honoured here.
		assert.equal(
			sessionStoreFor({ dir: `sqlite:${database}` }, header(), {
				durability: "fsync",
			}).capabilities.durability.includes("fsync"),
			true,
		);
	});

	test("a collection: its sessionFor, the very store without options, opened again by location with them", () => {
		const chosen = new MemorySessionStore(`chosen-${process.pid}-${++n}`);
		const memory = new MemoryCollection();
		const collection: SessionCollection = {
			location: memory.location,
			capabilities: memory.capabilities,
			list: () => memory.list(),
			open: (location) => memory.open(location),
			sessionFor: () => chosen,
		};
		const h = header();
		assert.equal(sessionStoreFor({ collection }, h), chosen);
		const reopened = sessionStoreFor({ collection }, h, { durability: "none" });
		assert.notEqual(reopened, chosen);
		assert.equal(reopened.location, chosen.location);
	});

	test("beside a store: a file beside it, memory:THIS/ID, a row of the same database", () => {
		const h = header();
		const file = join(dir, "source.jsonl");
		assert.equal(sessionStoreFor({ beside: storeAt(file) }, h).file, join(dir, sessionFileName(h.timestamp, h.id)));
		const memory = freshMemory();
		assert.equal(sessionStoreFor({ beside: storeAt(memory) }, h).location, `${memory}/${h.id}`);
		const database = freshDatabase();
		assert.equal(
			sessionStoreFor({ beside: storeAt(`sqlite:${database}#source`) }, h).location,
			`sqlite:${database}#${h.id}`,
		);
	});

	test("targetOf: location before file before dir, else the fallback", () => {
		const otherwise = (): SessionTarget => ({ dir: "fallback" });
		assert.deepEqual(targetOf({ location: "memory:a", file: "f", dir: "d" }, otherwise), { location: "memory:a" });
		assert.deepEqual(targetOf({ file: "f", dir: "sqlite:x.db" }, otherwise), { file: "f" });
		assert.deepEqual(targetOf({ dir: "d" }, otherwise), { dir: "d" });
		assert.deepEqual(targetOf({}, otherwise), { dir: "fallback" });
	});

	test("Session.create and fork place sessions through it", async () => {
		const sub = join(dir, "sessions");
		const session = await Session.create({ dir: sub, cwd: "/s" });
		assert.equal(session.file, join(sub, sessionFileName(session.getHeader().timestamp, session.getSessionId())));
		await session.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const beside = await session.fork();
		assert.equal(beside.file, join(sub, sessionFileName(beside.getHeader().timestamp, beside.getSessionId())));
		const exact = join(dir, "exact-fork.jsonl");
		assert.equal((await session.clone({ file: exact })).file, exact);
	});

	test("Session.clone into a database places the session through it", { skip: SQLITE_SKIP }, async () => {
		const session = await Session.create({ dir: join(dir, "sessions"), cwd: "/s" });
		await session.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const database = freshDatabase();
		const inDatabase = await session.clone({ dir: `sqlite:${database}` });
		assert.equal(inDatabase.location, `sqlite:${database}#${inDatabase.getSessionId()}`);
	});
});

describe("the file of a store", () => {
	test("a session in a database has none: opened, forked once its store is loaded, or from the store itself", {
		skip: SQLITE_SKIP,
	}, async () => {
		const database = freshDatabase();
		const session = await Session.create({ location: `sqlite:${database}` });
		await session.appendMessage({ role: "user", content: "q", timestamp: 1 });
		assert.equal(session.file, undefined);
		// The fork is derived from the loaded SQLite store, not from the lazy one storeAt gave.
		const forked = await session.fork();
		assert.equal(forked.location, `sqlite:${database}#${forked.getSessionId()}`);
		assert.equal(forked.file, undefined);
		const direct = new SqliteSessionStore(`sqlite:${database}#${session.getSessionId()}`);
		assert.equal((direct as SessionStore).file, undefined);
		assert.equal(direct.databaseFile, database);
		assert.equal((await Session.openStore(direct)).file, undefined);
	});
});

describe("keyed places", () => {
	test("a directory: DIR/KEY.jsonl; keys lists the sessions there, remove deletes one", async () => {
		const sub = join(dir, "keyed");
		const place = keyedPlace(sub, "chat id");
		assert.equal(place.sessionLocation("chat-1"), join(sub, "chat-1.jsonl"));
		assert.deepEqual(await place.keys(), [], "a missing directory holds none");
		mkdirSync(sub);
		for (const name of ["b.jsonl", "a.jsonl", "not a key.jsonl", "c.txt"]) writeFileSync(join(sub, name), "");
		mkdirSync(join(sub, "d.jsonl"));
		assert.deepEqual(await place.keys(), ["a", "b"]);
		assert.equal(await place.remove("a"), true);
		assert.equal(await place.remove("a"), false);
		assert.deepEqual(await place.keys(), ["b"]);
		assert.equal(keyedPlace(pathToFileURL(sub).href).sessionLocation("b"), join(sub, "b.jsonl"));
		assert.equal(keyedLocation(sub, "k"), join(sub, "k.jsonl"));
	});

	test("memory: and memory:NAME: memory:KEY and memory:NAME/KEY", async () => {
		const name = `keyed-${process.pid}-${++n}`;
		const place = keyedPlace(`memory:${name}`);
		assert.equal(place.sessionLocation("k1"), `memory:${name}/k1`);
		assert.equal(keyedLocation("memory:", "k1"), "memory:k1");
		await storeAt(place.sessionLocation("k2")).create(header());
		await storeAt(place.sessionLocation("k1")).create(header());
		assert.deepEqual(await place.keys(), ["k1", "k2"]);
		assert.equal(await place.remove("k1"), true);
		assert.equal(await place.remove("k1"), false);
		assert.deepEqual(await place.keys(), ["k2"]);
	});

	test("a database: LOCATION#KEY; a location that names a session is refused", { skip: SQLITE_SKIP }, async () => {
		const database = `sqlite:${freshDatabase()}`;
		const place = keyedPlace(database);
		assert.equal(place.sessionLocation("k"), `${database}#k`);
		await storeAt(place.sessionLocation("k")).create(header());
		assert.deepEqual(await place.keys(), ["k"]);
		assert.equal(await place.remove("k"), true);
		assert.equal(await place.remove("k"), false);
		assert.throws(
			() => keyedPlace(`${database}#one`),
			(e: unknown) => invalidArgument(e) && (e as Error).message.includes("without #SESSION_ID"),
		);
		assert.throws(
			() => keyedPlace("postgres://user:secret@host/db#one"),
			(e: unknown) => invalidArgument(e) && !JSON.stringify(e).includes("secret"),
		);
	});

	test("keys that could leave their place are refused, naming what they are", () => {
		const places = [keyedPlace(join(dir, "refuse")), keyedPlace("memory:"), keyedPlace(`sqlite:${freshDatabase()}`)];
		const bad: unknown[] = [
			"",
			"../x",
			"a/b",
			"a\\b",
			".",
			"..",
			"x.y",
			"x:y",
			"x#y",
			"-x",
			"_x",
			"a b",
			"x".repeat(129),
		];
		for (const place of places) {
			for (const key of bad) {
				assert.throws(
					() => place.sessionLocation(key as string),
					(e: unknown) => invalidArgument(e) && (e as Error).message.includes("not a valid session key"),
					`${place.location}: ${JSON.stringify(key)}`,
				);
			}
			assert.doesNotThrow(() => place.sessionLocation("x".repeat(128)));
		}
		assert.throws(
			() => checkSessionKey(42, "chat id"),
			(e: unknown) => invalidArgument(e) && (e as Error).message.includes("not a valid chat id: number"),
		);
		assert.equal(checkSessionKey("Ab_9-z"), "Ab_9-z");
		assert.ok(SESSION_KEY.test("0"));
	});
});

describe("collectionOfSession", () => {
	test("the collection holding a session and its name there; undefined for a file", () => {
		assert.equal(collectionOfSession("/tmp/x.jsonl"), undefined);
		assert.equal(collectionOfSession("relative/x.jsonl"), undefined);
		assert.equal(collectionOfSession("file:///tmp/x.jsonl"), undefined);
		assert.deepEqual(collectionOfSession("memory:x"), { collection: "memory:", name: "x" });
		assert.deepEqual(collectionOfSession("memory:a/b"), { collection: "memory:", name: "a/b" });
		assert.deepEqual(collectionOfSession("memory:"), { collection: "memory:", name: undefined });
		assert.deepEqual(collectionOfSession("sqlite:/d.sqlite#s"), { collection: "sqlite:/d.sqlite", name: "s" });
		assert.deepEqual(collectionOfSession("sqlite:/d.sqlite"), { collection: "sqlite:/d.sqlite", name: undefined });
		assert.deepEqual(collectionOfSession("sqlite:/d.sqlite#"), { collection: "sqlite:/d.sqlite", name: "" });
		assert.deepEqual(collectionOfSession("postgres://h/db?schema=s#id"), {
			collection: "postgres://h/db?schema=s",
			name: "id",
		});
	});
});

describe("discardCreatedSession", () => {
	test("a file (by path or file: URL), a memory session; others stay", async () => {
		const h = header();
		const file = join(dir, "discard.jsonl");
		await storeAt(file).create(h);
		await discardCreatedSession(file);
		assert.equal(existsSync(file), false);
		await storeAt(file).create(h);
		await discardCreatedSession(pathToFileURL(file).href);
		assert.equal(existsSync(file), false);

		const memory = freshMemory();
		const kept = freshMemory();
		await storeAt(memory).create(h);
		await storeAt(kept).create(h);
		await discardCreatedSession(memory);
		assert.equal(await storeAt(memory).exists(), false);
		assert.equal(await storeAt(kept).exists(), true);
	});

	test("a database's session; the others in the database stay", { skip: SQLITE_SKIP }, async () => {
		const h = header();
		const database = `sqlite:${freshDatabase()}`;
		await storeAt(`${database}#gone`).create(h);
		await storeAt(`${database}#kept`).create(h);
		await discardCreatedSession(`${database}#gone`);
		assert.equal(await storeAt(`${database}#gone`).exists(), false);
		assert.equal(await storeAt(`${database}#kept`).exists(), true);
		const collection = collectionAt(database);
		const left: string[] = [];
		for await (const listing of collection.list()) left.push(listing.location);
		await collection.close?.();
		assert.deepEqual(left, [`${database}#kept`]);
	});

	test("what is not there, or cannot be removed, is left quietly", async () => {
		await discardCreatedSession(join(dir, "never.jsonl"));
		await discardCreatedSession(freshMemory());
		await discardCreatedSession("nosuch:abc#x");
		await discardCreatedSession(`sqlite:${join(dir, "no-such-dir", "db.sqlite")}#x`);
	});
});

const server = await postgresServer();
if ("skip" in server) {
	test("placement in PostgreSQL", { skip: server.skip }, () => {});
} else {
	const db = testSchema(server.url, "placement");
	test("placement in PostgreSQL: dir, beside, keyed place, discard", async () => {
		const h = header();
		const store = sessionStoreFor({ dir: db.url }, h);
		assert.equal(store.location, db.session(h.id));
		await store.create(h);
		const forked = header();
		assert.equal(sessionStoreFor({ beside: store }, forked).location, db.session(forked.id));
		const place = keyedPlace(db.url);
		assert.equal(place.sessionLocation("k"), db.session("k"));
		await storeAt(place.sessionLocation("k")).create(header());
		assert.deepEqual(await place.keys(), [h.id, "k"]);
		await discardCreatedSession(db.session(h.id));
		assert.deepEqual(await place.keys(), ["k"]);
		assert.equal(await storeAt(db.session(h.id)).exists(), false);
		assert.equal(await place.remove("k"), true);
		await store.close();
	});
}
