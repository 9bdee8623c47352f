/** Choosing a store by location (`storeAt`), registered schemes, and where derived stores go. */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import {
	type AppendOutcome,
	type Awaitable,
	FileSessionStore,
	isSessionTreeError,
	MemorySessionStore,
	type ReplaceOutcome,
	registerStoreScheme,
	Session,
	type SessionHeader,
	type SessionStore,
	type StoreOptions,
	type StorePosition,
	type StoreRead,
	schemeOf,
	sessionFileName,
	storeAt,
} from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "st-locations-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `f${++n}.jsonl`);
const freshMemory = () => `memory:locations-${process.pid}-${++n}`;

const T0 = "2026-03-01T10:00:00.000Z";
const header = (id = `sess-${++n}`): SessionHeader => ({ type: "session", version: 3, id, timestamp: T0, cwd: "/p" });

const invalidArgument = (e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT");

/** A store of a registered scheme: a memory session under another name (a stand-in for a database). */
class KeyValueStore implements SessionStore {
	readonly capabilities;
	private readonly inner: MemorySessionStore;
	constructor(
		readonly location: string,
		durability: readonly ("none" | "fsync" | "group")[] = ["none", "fsync"],
	) {
		this.inner = new MemorySessionStore(`kv/${location.slice(location.indexOf(":") + 1)}`);
		this.capabilities = { lazyBodies: false, tailReads: false, pathReads: false, durability };
	}
	exists(): Promise<boolean> {
		return this.inner.exists();
	}
	create(h: SessionHeader): Promise<StorePosition> {
		return this.inner.create(h);
	}
	read(): Promise<StoreRead> {
		return this.inner.read();
	}
	readSince(position: StorePosition): Promise<StoreRead | undefined> {
		return this.inner.readSince(position);
	}
	append(records: readonly object[], expected: StorePosition): Awaitable<AppendOutcome> {
		return this.inner.append(records, expected);
	}
	replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		return this.inner.replace(records, expected);
	}
	derive(h: SessionHeader): SessionStore {
		return new KeyValueStore(`test-kv:${h.id}`);
	}
	flush(): Promise<void> {
		return this.inner.flush();
	}
	close(): Promise<void> {
		return this.inner.close();
	}
}

const factoryCalls: Array<[string, StoreOptions]> = [];
registerStoreScheme("test-kv", (location, options) => {
	factoryCalls.push([location, options]);
	return new KeyValueStore(location);
});
registerStoreScheme("test-weak", (location) => new KeyValueStore(location, ["none"]));

describe("storeAt", () => {
	test("an absolute path: the JSONL file store of that file", async () => {
		const file = fresh();
		const store = storeAt(file);
		assert.ok(store instanceof FileSessionStore);
		assert.equal(store.file, file);
		assert.equal(store.location, file);
		await store.create(header());
		assert.equal(statSync(file).mode & 0o777, 0o600);
	});

	test("a relative path is resolved against the working directory", async () => {
		const file = fresh();
		const rel = relative(process.cwd(), file);
		assert.ok(!rel.startsWith("/"), rel);
		const store = storeAt(rel);
		assert.ok(store instanceof FileSessionStore);
		assert.equal(store.file, file);
		await store.create(header());
		assert.ok(existsSync(file));
		const session = await Session.open(rel);
		assert.equal(session.file, file);
	});

	test("a file: URL, percent-encoding decoded", async () => {
		const sub = join(dir, "with space %");
		mkdirSync(sub);
		const file = join(sub, "ü.jsonl");
		const url = pathToFileURL(file).href;
		assert.match(url, /^file:\/\/.*%20/);
		const store = storeAt(url);
		assert.ok(store instanceof FileSessionStore);
		assert.equal(store.file, file);
		const created = await Session.create({ location: url, cwd: "/u" });
		assert.equal(created.file, file);
		await created.appendMessage({ role: "user", content: "via URL", timestamp: 1 });
		assert.equal((await Session.open(url)).entryCount, 1);
		assert.equal((await Session.open(file)).entryCount, 1);
		assert.equal(statSync(file).mode & 0o777, 0o600);
	});

	test("memory:NAME: two store objects for one name share one session", async () => {
		const name = freshMemory();
		const a = storeAt(name);
		const b = storeAt(name);
		assert.ok(a instanceof MemorySessionStore && b instanceof MemorySessionStore);
		assert.notEqual(a, b);
		assert.equal(a.location, name);
		assert.equal(await b.exists(), false);
		await a.create(header());
		assert.equal(await b.exists(), true);
		assert.equal((await b.read()).lines.length, 1);

		const other = freshMemory();
		const session = await Session.create({ location: other, cwd: "/m" });
		const id = await session.appendMessage({ role: "user", content: "shared", timestamp: 1 });
		assert.equal(session.file, undefined);
		assert.equal(session.location, other);
		const reopened = await Session.open(other);
		assert.equal(reopened.getLeafId(), id);
		(storeAt(other) as MemorySessionStore).delete();
		(a as MemorySessionStore).delete();
	});

	test("an unknown scheme is INVALID_ARGUMENT naming it", async () => {
		assert.throws(
			() => storeAt("nosuch:abc"),
			(e: unknown) => invalidArgument(e) && (e as Error).message.includes("nosuch"),
		);
		await assert.rejects(Session.open("nosuch:abc"), invalidArgument);
		await assert.rejects(Session.create({ location: "nosuch:abc" }), invalidArgument);
	});

	test("a durability the store cannot honour is INVALID_ARGUMENT, and nothing is created", async () => {
		for (const durability of ["fsync", "group"] as const) {
			const name = freshMemory();
			assert.throws(() => storeAt(name, { durability }), invalidArgument);
			await assert.rejects(Session.create({ location: name, durability }), invalidArgument);
			assert.equal(await storeAt(name).exists(), false);
			assert.throws(() => storeAt(`test-weak:${++n}`, { durability }), invalidArgument);
		}
		assert.ok(storeAt(freshMemory(), { durability: "none" }) instanceof MemorySessionStore);
		// The file store honours all three.
		for (const durability of ["none", "fsync", "group"] as const) {
			assert.ok(storeAt(fresh(), { durability }) instanceof FileSessionStore);
		}
		const name = freshMemory();
		await storeAt(name).create(header());
		await assert.rejects(Session.open(name, { durability: "fsync" }), invalidArgument);
		(storeAt(name) as MemorySessionStore).delete();
	});

	test("schemeOf: two or more letters make a scheme, lower-cased; one letter is a drive", () => {
		assert.equal(schemeOf("memory:x"), "memory");
		assert.equal(schemeOf("File:///tmp/x"), "file");
		assert.equal(schemeOf("Test-KV:x"), "test-kv");
		assert.equal(schemeOf("C:\\sessions\\x.jsonl"), undefined);
		assert.equal(schemeOf("/tmp/x.jsonl"), undefined);
		assert.equal(schemeOf("relative/x.jsonl"), undefined);
	});
});

describe("registerStoreScheme", () => {
	test("locations of a registered scheme open the factory's store, with the options given", async () => {
		factoryCalls.length = 0;
		const store = storeAt("test-kv:one", { durability: "fsync" });
		assert.ok(store instanceof KeyValueStore);
		assert.deepEqual(factoryCalls, [["test-kv:one", { durability: "fsync" }]]);
		assert.ok(storeAt("TEST-KV:two") instanceof KeyValueStore, "the scheme is case-insensitive");
	});

	test("sessions are created, opened, written and forked there", async () => {
		const location = `test-kv:session-${++n}`;
		const s = await Session.create({ location, cwd: "/kv" });
		assert.equal(s.location, location);
		assert.equal(s.file, undefined);
		const q = await s.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const reopened = await Session.open(location);
		assert.equal(reopened.getLeafId(), q);
		assert.equal(reopened.getSessionId(), s.getSessionId());
		const forked = await s.fork();
		assert.equal(forked.location, `test-kv:${forked.getSessionId()}`, "derived in the same kind of store");
		assert.equal(forked.getHeader().parentSession, location);
		assert.deepEqual(
			(await Session.open(forked.location)).getEntries().map((e) => e.id),
			[q],
		);
	});

	test("refuses built-in schemes and malformed names", () => {
		for (const scheme of ["file", "memory", "x", "1abc", "a b", "", "kv:"]) {
			assert.throws(() => registerStoreScheme(scheme, (location) => new KeyValueStore(location)), invalidArgument);
		}
	});
});

describe("derive", () => {
	test("a file store derives a file beside it, named as pi names sessions, not created yet", async () => {
		const file = fresh();
		const store = new FileSessionStore(file, { durability: "fsync" });
		const h = header("0198a0b0-0000-7000-8000-000000000001");
		const derived = store.derive(h);
		assert.ok(derived instanceof FileSessionStore);
		assert.equal(derived.file, join(dirname(file), sessionFileName(h.timestamp, h.id)));
		assert.equal(await derived.exists(), false);
		assert.equal(existsSync(derived.file), false);
	});

	test("a file session forks beside itself; a location puts the fork elsewhere, any kind", async () => {
		const sub = join(dir, "forks");
		const s = await Session.create({ dir: sub, cwd: "/f" });
		const q = await s.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const beside = await s.fork();
		assert.equal(dirname(beside.file as string), sub);
		assert.equal(statSync(beside.file as string).mode & 0o777, 0o600);
		const memory = freshMemory();
		const inMemory = await s.fork(q, { location: memory });
		assert.equal(inMemory.location, memory);
		assert.equal(inMemory.getHeader().parentSession, s.file);
		assert.deepEqual(
			(await Session.open(memory)).getEntries().map((e) => e.id),
			[q],
		);
	});

	test("a memory store derives another memory session named under it by the header's id", async () => {
		const h = header(`derived-${process.pid}-${++n}`);
		const source = new MemorySessionStore(freshMemory());
		const derived = source.derive(h);
		assert.equal(derived.location, `${source.location}/${h.id}`);
		assert.equal(await derived.exists(), false);
		// Forks of two sessions whose ids repeat (a seeded generator) do not collide.
		const other = new MemorySessionStore(freshMemory()).derive(h);
		assert.notEqual(other.location, derived.location);
	});
});
