import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
	isPending,
	isSessionTreeError,
	MemoryCollection,
	MemorySessionStore,
	Session,
	type SessionHeader,
	type SessionStore,
} from "../../src/index.js";

const T0 = "2026-03-01T10:00:00.000Z";
const HEADER: SessionHeader = { type: "session", version: 3, id: "sess-memory", timestamp: T0, cwd: "/m" };
const message = (id: string, parentId: string | null) => ({
	type: "message",
	id,
	parentId,
	timestamp: T0,
	message: { role: "user", content: id, timestamp: 1 },
});
let n = 0;
const freshName = () => `memory:test-${process.pid}-${++n}`;

describe("MemorySessionStore", () => {
	test("behaves like a file: reopen gives the same leaf, tree and context", async () => {
		const store = new MemorySessionStore();
		const s = await Session.createIn(store, { cwd: "/m" });
		const q = await s.appendMessage({ role: "user", content: "q", timestamp: 1 });
		await s.appendMessage({ role: "user", content: "q again", timestamp: 2 });
		await s.branch(q);
		const reopened = await Session.openStore(store);
		assert.equal(reopened.getLeafId(), q);
		assert.deepEqual(reopened.getEntries(), s.getEntries());
		assert.deepEqual(reopened.buildSessionContext(), s.buildSessionContext());
		assert.equal(store.text().split("\n").length, 5, "header, two entries, one leaf record, final newline");
		store.delete();
	});

	test("fork of an in-memory session stays in memory", async () => {
		const s = await Session.inMemory();
		await s.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const f = await s.fork();
		assert.equal(f.file, undefined);
		assert.match(String(f.getHeader().parentSession), /^memory:/);
		assert.match(f.location, /^memory:/);
		assert.notEqual(f.location, s.location);
		assert.equal(f.entryCount, 1);
		const reopened = await Session.open(f.location);
		assert.deepEqual(reopened.getEntries(), f.getEntries());
	});

	test("declares no lazy bodies, no tail reads, durability none only", () => {
		const store = new MemorySessionStore();
		assert.deepEqual(store.capabilities, {
			lazyBodies: false,
			tailReads: false,
			pathReads: false,
			durability: ["none"],
		});
		assert.equal((store as SessionStore).readTail, undefined);
	});

	test("store objects for one name share one session; delete forgets it", async () => {
		const name = freshName();
		const a = new MemorySessionStore(name);
		const b = new MemorySessionStore(name.slice("memory:".length));
		assert.equal(a.location, name);
		assert.equal(b.location, name, "with or without the scheme");
		assert.equal(await b.exists(), false);
		const position = await a.create(HEADER);
		assert.equal(await b.exists(), true);
		await assert.rejects(b.create(HEADER), (e: unknown) => isSessionTreeError(e, "FILE_EXISTS"));
		const r1 = message("aaaa0001", null);
		const outcome = await a.append([r1], position);
		assert.equal(outcome.status, "ok");
		assert.deepEqual(
			(await b.read()).lines.map((l) => l.record),
			[HEADER, r1],
		);
		assert.equal(b.text(), a.text());
		b.delete();
		assert.equal(await a.exists(), false);
		await assert.rejects(a.read(), (e: unknown) => isSessionTreeError(e, "FILE_NOT_FOUND"));
		assert.throws(
			() => new MemorySessionStore("memory:"),
			(e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT"),
		);
	});

	test("appends answer at once; a session's write is in its state before the call returns", async () => {
		const store = new MemorySessionStore(freshName());
		const p0 = await store.create(HEADER);
		const answer = store.append([message("aaaa0001", null)], p0);
		assert.equal(isPending(answer), false, "the outcome itself, not a promise");
		assert.equal(isPending(answer) ? undefined : answer.status, "ok");

		const session = await Session.create({ location: freshName(), cwd: "/m" });
		const first = session.appendMessage({ role: "user", content: "one", timestamp: 1 });
		const leaf = session.getLeafId();
		assert.notEqual(leaf, null, "the leaf moved before the promise was awaited");
		assert.equal(await first, leaf);
		// A write that cannot be stored still rejects: it never throws at the caller.
		const roleless: Parameters<Session["appendMessage"]>[0] = JSON.parse('{"content":"no role","timestamp":1}');
		const refused = session.appendMessage(roleless);
		await assert.rejects(refused, (e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT"));
		assert.equal(session.getLeafId(), leaf);
	});

	test("compare-and-append: behind with exactly the others' records; stale after a replace", async () => {
		const name = freshName();
		const a = new MemorySessionStore(name);
		const b = new MemorySessionStore(name);
		const p0 = await a.create(HEADER);
		const b0 = (await b.read()).position;
		const r1 = message("aaaa0001", null);
		const r2 = message("aaaa0002", "aaaa0001");
		const ok = await a.append([r1, r2], p0);
		assert.equal(ok.status, "ok");
		const text = a.text();

		const mine = message("bbbb0001", null);
		const behind = await b.append([mine], b0);
		assert.equal(behind.status, "behind");
		const read = (behind as { read: { lines: Array<{ record?: unknown; line: number }>; position: string } }).read;
		assert.deepEqual(
			read.lines.map((l) => l.record),
			[r1, r2],
		);
		assert.deepEqual(
			read.lines.map((l) => l.line),
			[2, 3],
		);
		assert.equal(a.text(), text, "nothing appended");
		const appended = await b.append([mine], read.position);
		assert.equal(appended.status, "ok");
		const seen = await a.readSince((ok as { position: string }).position);
		assert.deepEqual(
			seen?.lines.map((l) => l.record),
			[mine],
		);

		const bEnd = (appended as { position: string }).position;
		const replaced = await b.replace([HEADER], bEnd);
		assert.equal(replaced.status, "ok");
		assert.match((replaced as { backup: string }).backup, /^memory:.+#backup-1$/);
		assert.equal(a.text(), `${JSON.stringify(HEADER)}\n`);
		for (const [store, stale] of [
			[a, p0],
			[b, b0],
			[b, bEnd],
		] as const) {
			assert.deepEqual(await store.append([mine], stale), { status: "stale" });
			assert.deepEqual(await store.replace([HEADER], stale), { status: "stale" });
			assert.equal(await store.readSince(stale), undefined);
		}
		assert.equal(a.text(), `${JSON.stringify(HEADER)}\n`, "a stale write changes nothing");
		a.delete();
	});

	test("derive: another memory session named under this one by the new header's id, not created yet", async () => {
		const store = new MemorySessionStore(freshName());
		const id = `derived-${process.pid}-${++n}`;
		const derived = store.derive({ ...HEADER, id });
		assert.ok(derived instanceof MemorySessionStore);
		assert.equal(derived.location, `${store.location}/${id}`);
		assert.equal(await derived.exists(), false);
	});

	test("the memory collection lists the sessions of this process", async () => {
		const name = freshName();
		const store = new MemorySessionStore(name);
		await store.create(HEADER);
		const listed: string[] = [];
		for await (const listing of new MemoryCollection().list()) listed.push(listing.location);
		assert.ok(listed.includes(name));
		store.delete();
	});
});
