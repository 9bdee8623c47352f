/**
 * The conformance suite of the storage contract ({@link SessionStore}): every operation, the
 * records read back byte for byte, the session facade on top (leaf records, labels, names,
 * forks and clones), pi's golden fixtures, several writers at once, replaced and closed
 * stores. Written for `node:test`; any store runs it through a {@link ConformanceTarget}.
 */

import assert from "node:assert/strict";
import { after, before, describe, type TestContext, test } from "node:test";
import type { AgentMessage, EntryBase, MessageEntry, SessionHeader } from "../core/types.js";
import { errorCode, isHeaderRecord } from "../core/validate.js";
import { Session } from "../session.js";
import {
	isPending,
	type SessionStore,
	type StoreCapabilities,
	type StorePosition,
	type StoreRead,
} from "../storage/store.js";
import {
	asJson,
	assertCode,
	assertRecords,
	assertStale,
	behindRead,
	chain,
	entryId,
	itemAt,
	jsonTexts,
	LostAnswerStore,
	messageRecord,
	newHeader,
	okPosition,
	okReplace,
	parseRecordText,
	RecordingStore,
	recordsOf,
	treeRows,
} from "./helpers.js";
import { PI_CASES } from "./pi-fixtures.js";

/**
 * How the suite gets stores of the kind under test. Only {@link newStore} and
 * {@link sameSession} are required.
 *
 * @example A file store
 * ```ts
 * const dir = mkdtempSync(join(tmpdir(), "sessions-"));
 * let n = 0;
 * storeConformance("FileSessionStore", {
 *   newStore: () => new FileSessionStore(join(dir, `s${++n}.jsonl`)),
 *   sameSession: (store) => new FileSessionStore(store.location),
 *   readBackup: (backup) => readFileSync(backup, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)),
 *   cleanup: () => rmSync(dir, { recursive: true, force: true }),
 * });
 * ```
 *
 * @example A database store (one session per id, one connection pool per writer)
 * ```ts
 * let pools: Pool[] = [];
 * storeConformance("PostgresSessionStore", {
 *   setup: async () => { pools = [new Pool(config), new Pool(config)]; await migrate(pools[0]); },
 *   newStore: () => new PostgresSessionStore(pools[0], `postgres://test/${randomUUID()}`),
 *   sameSession: (store) => new PostgresSessionStore(pools[1], store.location),
 *   cleanup: async () => { await dropTestSessions(pools[0]); await Promise.all(pools.map((p) => p.end())); },
 * });
 * ```
 */
export interface ConformanceTarget {
	/**
	 * A store for a new session that does not exist yet: a different session on every call (a
	 * fresh file name, memory name, or session id in the database). The suite creates it.
	 */
	newStore(): SessionStore | Promise<SessionStore>;
	/**
	 * Another store object for the session of `store`, as a second writer or another process
	 * would open it: a new store on the same path, another connection to the same database row.
	 * Never `store` itself. `store` may come from {@link newStore}, from `sameSession`, or from
	 * `derive` (the copy of a fork), and its session may not exist yet.
	 */
	sameSession(store: SessionStore): SessionStore | Promise<SessionStore>;
	/**
	 * The records a backup holds, given the `backup` name a `replace` of `store` returned
	 * (header first). When given, the suite checks that a replace keeps the replaced records.
	 */
	readBackup?(backup: string, store: SessionStore): readonly object[] | Promise<readonly object[]>;
	/** Runs once before the suite's tests (connect, create a schema or a directory). */
	setup?(): void | Promise<void>;
	/** Runs once after them, whether they passed or not (remove files, drop data, close pools). */
	cleanup?(): void | Promise<void>;
	/** How many writers write at once in the concurrency tests. Default 4. */
	writers?: number;
	/** A string this store never issues as a position and refuses to read. Default `"not a position"`. */
	malformedPosition?: string;
	/** Time limit of each test in milliseconds. Default 60,000. */
	timeout?: number;
}

/** How many writes each writer starts in the concurrency tests. */
const WRITES_PER_WRITER = 8;
/** Records of about this size make the session a store with `tailReads` is asked for its tail. */
const TAIL_RECORD_BYTES = 64 * 1024;
/** So many of them: a session of about 9.4 MiB, more than a file store reads whole. */
const TAIL_RECORDS = 150;

/**
 * Registers the conformance suite of `name` with `node:test`: a `describe` block of tests that
 * each make their own sessions through `target`. Run the test file with `node --test`.
 *
 * What it checks, beyond each operation's TSDoc in {@link SessionStore}:
 * - records come back as the JSON text that was written, key order included (a database must
 *   keep the text, e.g. PostgreSQL `json` or `text`, not `jsonb`);
 * - positions are used only with the store object that issued them, and stay valid across
 *   `close` until a `replace`; any position from before a replace is stale for ever;
 * - `derive(header)` names the new session by its header: deriving again with the same header
 *   gives a store of the same session (that is how the suite reopens a fork);
 * - capabilities are honest: no envelopes and no `source` without `lazyBodies`, a `readTail`
 *   that returns a tail for a large session with `tailReads`;
 * - errors are `SessionTreeError`s, checked by their `code` (not their class).
 */
export function storeConformance(name: string, target: ConformanceTarget): void {
	const timeout = target.timeout ?? 60_000;
	const writers = target.writers ?? 4;
	const malformed = target.malformedPosition ?? "not a position";

	const fresh = async (): Promise<SessionStore> => target.newStore();
	const same = async (store: SessionStore): Promise<SessionStore> => {
		const other = await target.sameSession(store);
		assert.notEqual(other, store, "sameSession returns another store object");
		return other;
	};
	/** A new session with its header; the position create returned. */
	const created = async (): Promise<{ store: SessionStore; header: SessionHeader; position: StorePosition }> => {
		const store = await fresh();
		const header = newHeader();
		const position = await store.create(header);
		return { store, header, position };
	};
	const read = async (store: SessionStore, what = "read") => recordsOf(await store.read(), store.capabilities, what);
	const since = async (store: SessionStore, position: StorePosition, what = "readSince"): Promise<StoreRead> => {
		const got = await store.readSince(position);
		assert.ok(got, `${what}: a current position is not stale`);
		return got;
	};
	const reopen = async (store: SessionStore): Promise<Session> => Session.openStore(await same(store));
	/** A test with the time limit. */
	const it = (title: string, body: (t: TestContext) => Promise<void>) => test(title, { timeout }, body);

	describe(name, () => {
		if (target.setup) before(() => target.setup?.());
		if (target.cleanup) after(() => target.cleanup?.());

		describe("the store contract", () => {
			it("location and capabilities are declared, and honest", async () => {
				const store = await fresh();
				assert.equal(typeof store.location, "string");
				assert.notEqual(store.location, "", "a location");
				const caps: StoreCapabilities = store.capabilities;
				assert.equal(typeof caps.lazyBodies, "boolean", "lazyBodies");
				assert.equal(typeof caps.tailReads, "boolean", "tailReads");
				assert.ok(Array.isArray(caps.durability) && caps.durability.length > 0, "at least one durability mode");
				for (const mode of caps.durability) assert.ok(["none", "fsync", "group"].includes(mode), `mode ${mode}`);
				assert.equal(new Set(caps.durability).size, caps.durability.length, "durability modes are listed once");
				if (caps.tailReads) assert.equal(typeof store.readTail, "function", "tailReads: true needs readTail");
				assert.equal(typeof caps.pathReads, "boolean", "pathReads");
				if (caps.pathReads) assert.equal(typeof store.readPath, "function", "pathReads: true needs readPath");
				const other = await same(store);
				assert.equal(other.location, store.location, "another store object of the session has its location");
				assert.deepEqual(other.capabilities, caps);
			});

			it("exists, create, and FILE_EXISTS on a second create (through any store object)", async () => {
				const store = await fresh();
				const early = await same(store);
				assert.equal(await store.exists(), false, "a new store's session does not exist yet");
				assert.equal(await early.exists(), false);
				const header = newHeader();
				const position = await store.create(header);
				assert.equal(typeof position, "string", "create returns a position");
				assert.equal(await store.exists(), true);
				assert.equal(await early.exists(), true, "a store object made before the create sees the session");
				assertRecords(await early.read(), [header], store.capabilities, "the header");
				await assertCode(() => store.create(newHeader()), "FILE_EXISTS", "a second create");
				await assertCode(() => early.create(newHeader()), "FILE_EXISTS", "a create through another store object");
				await assertCode(
					async () => (await same(store)).create(newHeader()),
					"FILE_EXISTS",
					"a create through a new one",
				);
				assertRecords(await store.read(), [header], store.capabilities, "after the failed creates");
				okPosition(await store.append(chain(1, null), position), "append at the position create returned");
			});

			it("a session that does not exist: FILE_NOT_FOUND from read and Session.openStore", async () => {
				const store = await fresh();
				await assertCode(() => store.read(), "FILE_NOT_FOUND", "read");
				await assertCode(() => Session.openStore(store), "FILE_NOT_FOUND", "Session.openStore");
				assert.equal(await store.exists(), false, "reading created nothing");
			});

			it("append: records read back as written, key order and text included; readSince reads what follows", async () => {
				const { store, header, position: p0 } = await created();
				const caps = store.capabilities;
				const first = chain(3, null, "first");
				const p1 = okPosition(await store.append(first, p0), "append of three records");
				const lastId = itemAt(first, 2).id;
				const odd = oddRecords(lastId);
				const p2 = okPosition(await store.append(odd, p1), "append of unusual records");
				const all = [header, ...first, ...odd];
				assertRecords(await store.read(), all, caps, "read");
				assertRecords(await since(store, p0), [...first, ...odd], caps, "readSince the create");
				assertRecords(await since(store, p1), odd, caps, "readSince the first append");
				const end = await since(store, p2);
				assertRecords(end, [], caps, "readSince the end");
				const more = chain(1, itemAt(odd, -1).id, "more");
				okPosition(await store.append(more, end.position), "append at readSince's position");
				const whole = await store.read();
				assertRecords(whole, [...all, ...more], caps, "read");
				assertRecords(await (await same(store)).read(), [...all, ...more], caps, "read through another store object");
				okPosition(await store.append(chain(1, null), whole.position), "append at read's position");
			});

			it("append behind: nothing appended, the read holds what others appended, its position appends", async () => {
				const { store: a, header, position: pa0 } = await created();
				const caps = a.capabilities;
				const b = await same(a);
				const pb0 = (await b.read()).position;
				const x = chain(2, null, "a's");
				const pa1 = okPosition(await a.append(x, pa0), "a appends");
				const y = chain(1, null, "b's");
				const behind = behindRead(await b.append(y, pb0), "b appends at a position a wrote past");
				assertRecords(behind, x, caps, "what b is behind by");
				assertRecords(await a.read(), [header, ...x], caps, "after the behind append");
				okPosition(await b.append(y, behind.position), "b appends at the behind read's position");
				const z = chain(1, null, "a's again");
				const behindA = behindRead(await a.append(z, pa1), "a appends at a position b wrote past");
				assertRecords(behindA, y, caps, "what a is behind by");
				assertRecords(behindRead(await a.append(z, pa0), "a appends at its oldest position"), [...x, ...y], caps);
				okPosition(await a.append(z, behindA.position), "a appends at the behind read's position");
				assertRecords(await b.read(), [header, ...x, ...y, ...z], caps, "everything, once");
			});

			it("append answered at once (an outcome, not a promise): done when it returns, back to back and behind", async () => {
				// A store may answer an append with its outcome instead of a promise (SessionStore.append).
				// Such an answer must mean the records are stored: the next append, made in the same
				// synchronous run at the position it returned, lands after them, and another store object
				// reads them. A store that always answers with a promise passes this as well.
				const { store, header, position: p0 } = await created();
				const caps = store.capabilities;
				const other = await same(store);
				const po = (await other.read()).position;
				const written: object[] = [];
				let position = p0;
				for (let i = 0; i < 4; i++) {
					const records = chain(1, null, `burst ${i}`);
					written.push(...records);
					const answer = store.append(records, position);
					if (isPending(answer)) {
						position = okPosition(await answer, `append ${i} of a burst`);
					} else {
						position = okPosition(answer, `append ${i} of a burst, answered at once`);
					}
				}
				assertRecords(await other.read(), [header, ...written], caps, "the burst, through another store object");
				const late = chain(1, null, "late");
				const answer = other.append(late, po);
				const behind = behindRead(isPending(answer) ? await answer : answer, "an append behind the burst");
				assertRecords(behind, written, caps, "what the other store object is behind by");
				okPosition(await other.append(late, behind.position), "the append at the behind read's position");
				assertRecords(await store.read(), [header, ...written, ...late], caps, "everything, once");
			});

			it("replace: exactly the new records, a backup of the old, stale positions from before it", async () => {
				const { store, header, position: p0 } = await created();
				const caps = store.capabilities;
				const old = chain(3, null, "before");
				const p1 = okPosition(await store.append(old, p0));
				const other = await same(store);
				const po = (await other.read()).position;
				const replacement = [header, ...chain(2, null, "after")];
				const { position: p2, backup: backup1 } = okReplace(await store.replace(replacement, p1), "replace");
				assert.ok(typeof backup1 === "string" && backup1 !== "", "replace names its backup");
				assertRecords(await store.read(), replacement, caps, "after the replace");
				assertRecords(await other.read(), replacement, caps, "after the replace, through another store object");
				if (target.readBackup) {
					const kept = await target.readBackup(backup1, store);
					assert.deepEqual(jsonTexts(kept), jsonTexts([header, ...old]), "the backup holds the old records");
				}
				const one = chain(1, null, "late");
				assertStale(await store.append(one, p1), "append at a position from before the replace");
				assertStale(await store.append(one, p0), "append at the create's position, from before the replace");
				assertStale(await other.append(one, po), "another store object appends at its position from before");
				assertStale(await store.replace([header], p1), "replace at a position from before the replace");
				assert.equal(await store.readSince(p1), undefined, "readSince a position from before the replace");
				assert.equal(await store.readSince(p0), undefined, "readSince the create's position");
				assert.equal(await other.readSince(po), undefined, "readSince another store object's position from before");
				assertRecords(await store.read(), replacement, caps, "the stale writes changed nothing");
				const more = chain(1, itemAt(replacement, 2).id, "more");
				const p3 = okPosition(await store.append(more, p2), "append at the position replace returned");
				const behind = behindRead(await store.replace([header], p2), "replace at a position others wrote past");
				assertRecords(behind, more, caps, "what the replace is behind by");
				assertRecords(await store.read(), [...replacement, ...more], caps, "a replace that is behind replaces nothing");
				// As long as the first session, so that only the position, not the size, can tell it is stale.
				const third = [header, ...chain(6, null, "third")];
				const { backup: backup2 } = okReplace(await store.replace(third, p3), "a second replace");
				assert.notEqual(backup2, backup1, "a second replace keeps its own backup");
				if (target.readBackup) {
					assert.deepEqual(jsonTexts(await target.readBackup(backup1, store)), jsonTexts([header, ...old]), "backup 1");
					assert.deepEqual(
						jsonTexts(await target.readBackup(backup2, store)),
						jsonTexts([...replacement, ...more]),
						"backup 2",
					);
				}
				assertStale(await store.append(one, p1), "a position from before two replaces");
				assertStale(await store.append(one, p3), "a position from before the second replace");
				assert.equal(await store.readSince(p1), undefined, "readSince a position from before two replaces");
				assertRecords(await store.read(), third, caps, "after the second replace");
			});

			it("a malformed position: INVALID_ARGUMENT from readSince, append and replace", async () => {
				const { store, header } = await created();
				await assertCode(() => store.readSince(malformed), "INVALID_ARGUMENT", "readSince");
				await assertCode(() => store.append(chain(1, null), malformed), "INVALID_ARGUMENT", "append");
				await assertCode(() => store.replace([header], malformed), "INVALID_ARGUMENT", "replace");
				assertRecords(await store.read(), [header], store.capabilities, "nothing was written");
			});

			it("lazy bodies: envelopes only when declared, and their bodies read back", async () => {
				const { store, header, position } = await created();
				const records = chain(5, null, "lazy");
				okPosition(await store.append(records, position));
				const got = await store.read();
				const envelopes = got.lines.filter((line) => line.envelope !== undefined).length;
				if (!store.capabilities.lazyBodies) {
					assert.equal(envelopes, 0, "lazyBodies: false, yet envelopes");
					assert.equal(got.source, undefined, "lazyBodies: false, yet a source");
				}
				assertRecords(got, [header, ...records], store.capabilities, "read");
				await store.close();
				assertRecords(got, [header, ...records], store.capabilities, "bodies read after the store was closed");
			});

			it("readTail, when tailReads: the header and the last records, whole only when they are all", async (t) => {
				const { store, header, position } = await created();
				if (!store.capabilities.tailReads || !store.readTail) {
					t.skip("the store declares no tail reads");
					return;
				}
				const small = chain(4, null, "small");
				const p1 = okPosition(await store.append(small, position));
				const answers: string[] = [];
				const check = async (count: number, entries: readonly object[], what: string) => {
					const tail = await store.readTail?.(count);
					answers.push(tail ? "tail" : "undefined");
					if (!tail) return;
					assert.equal(JSON.stringify(tail.header), JSON.stringify(header), `${what}: the header`);
					assert.ok(tail.records.length > 0 && tail.records.length <= entries.length, `${what}: how many records`);
					assert.deepEqual(
						jsonTexts(tail.records),
						jsonTexts(entries.slice(entries.length - tail.records.length)),
						`${what}: the last records, in order`,
					);
					assert.equal(tail.whole, tail.records.length === entries.length, `${what}: whole`);
				};
				await check(2, small, "a small session");
				const big = bigChain(itemAt(small, -1).id);
				okPosition(await store.append(big, p1));
				await check(10, [...small, ...big], "a large session");
				await check(100, [...small, ...big], "a large session, 100 records");
				assert.ok(answers.includes("tail"), "tailReads: true, yet no tail even for a session of 9 MiB");
			});

			it("readPath, when pathReads: the header and the active path, in stream order", async (t) => {
				const { store, header, position } = await created();
				if (!store.capabilities.pathReads || !store.readPath) {
					t.skip("the store declares no path reads");
					return;
				}
				const trunk = chain(3, null, "trunk");
				const [a1, a2, a3] = [itemAt(trunk, 0), itemAt(trunk, 1), itemAt(trunk, 2)];
				const side = chain(2, a2.id, "side");
				const leaf = { type: "leaf", id: entryId(), parentId: a3.id, timestamp: a3.timestamp, targetId: a3.id };
				const p1 = okPosition(await store.append([...trunk, ...side, leaf], position));
				const path = async (count: number, expected: readonly object[], what: string) => {
					const read = await store.readPath?.(count);
					assert.ok(read, `${what}: a current-version session has a path`);
					assert.equal(JSON.stringify(read.header), JSON.stringify(header), `${what}: the header`);
					assert.deepEqual(jsonTexts(read.records), jsonTexts(expected), `${what}: the records of the path`);
					assert.equal(read.whole, false, `${what}: not the whole session`);
				};
				await path(100, [a1, a2, a3, leaf], "through a leaf record to the root");
				await path(2, [a3, leaf], "at most count records, nearest the leaf");
				const next = chain(2, leaf.id, "after the leaf record");
				okPosition(await store.append(next, p1));
				await path(100, [a1, a2, a3, leaf, ...next], "an entry whose parent is a leaf record");
				const reopened = await Session.openStore(await same(store), { load: "context" });
				assert.equal(reopened.getLeafId(), itemAt(next, -1).id, "a context-only open resumes at the leaf");
				assert.deepEqual(
					reopened.buildSessionContext(),
					(await reopen(store)).buildSessionContext(),
					"the context read by path is the context of a full open",
				);
				await assertCode(async () => reopened.getEntries(), "NOT_LOADED", "only the path was read");
				await reopened.load();
				assert.equal(reopened.getEntries().length, trunk.length + side.length + next.length, "load reads the rest");
			});

			it("derive: a store of the same kind for a new session, named by its header", async () => {
				const { store, header } = await created();
				const next = newHeader();
				const derived = store.derive(next);
				assert.notEqual(derived.location, store.location, "another location");
				assert.deepEqual(derived.capabilities, store.capabilities, "the same kind of store");
				assert.equal(await derived.exists(), false, "not created yet");
				const position = await derived.create(next);
				const records = chain(2, null, "derived");
				okPosition(await derived.append(records, position));
				assertRecords(await derived.read(), [next, ...records], derived.capabilities, "the derived session");
				assertRecords(await store.read(), [header], store.capabilities, "the source is untouched");
				const again = store.derive(next);
				assert.equal(again.location, derived.location, "deriving with the same header names the same session");
				assertRecords(await again.read(), [next, ...records], again.capabilities, "read through a second derive");
				assertRecords(await (await same(derived)).read(), [next, ...records], derived.capabilities, "sameSession");
				const grandchild = derived.derive(newHeader());
				assert.notEqual(grandchild.location, derived.location, "a derived store derives too");
			});

			it("flush and close; after close every operation works again", async () => {
				const unused = await fresh();
				await unused.close();
				await unused.flush();
				const { store, header, position: p0 } = await created();
				const caps = store.capabilities;
				const first = chain(2, null, "first");
				const p1 = okPosition(await store.append(first, p0));
				await store.flush();
				await store.close();
				await store.close();
				assert.equal(await store.exists(), true, "exists after close");
				assertRecords(await store.read(), [header, ...first], caps, "read after close");
				await store.close();
				const second = chain(1, itemAt(first, 1).id, "second");
				const p2 = okPosition(await store.append(second, p1), "append after close, at a position from before it");
				await store.close();
				assertRecords(await since(store, p1), second, caps, "readSince after close");
				await store.flush();
				await store.close();
				const p3 = okPosition(await store.replace([header], p2), "replace after close");
				await store.close();
				okPosition(await store.append(chain(1, null), p3), "append after close, at the replace's position");
				await store.close();
				assert.equal((await read(store, "read after the last close")).length, 2);
			});
		});

		describe("the session facade", () => {
			it("a session reads back the same after reopening: entries, leaf, tree, context", async () => {
				const store = await fresh();
				const s = await Session.createIn(store, { cwd: "/conformance" });
				assert.equal(s.location, store.location);
				const q = await s.appendMessage(user("question"));
				const a = await s.appendMessage(assistant("answer"));
				await s.appendModelChange("openai", "gpt-5");
				await s.appendThinkingLevelChange("high");
				await s.appendCustomEntry("state", { n: 1, list: [1, 2] });
				await s.appendCustomMessageEntry("note", "an extension note", true, { k: "v" });
				await s.appendMessage(user("follow-up"));
				await s.appendCompaction("summary of the start", a, 1234, { files: [] }, false, true);
				await s.appendMessage(assistant("after the compaction"));
				const r = await reopen(store);
				assert.deepEqual(r.getHeader(), s.getHeader());
				assert.deepEqual(r.getEntries(), s.getEntries());
				assert.equal(r.getLeafId(), s.getLeafId());
				assert.deepEqual(treeRows(r), treeRows(s));
				assert.deepEqual(asJson(r.buildSessionContext()), asJson(s.buildSessionContext()));
				assert.deepEqual(asJson(r.buildSessionContext(q)), asJson(s.buildSessionContext(q)));
				assert.deepEqual(r.problems, []);
				const records = await read(store);
				assert.equal(records.length, 1 + s.entryCount, "one record per entry after the header");
				assert.deepEqual(jsonTexts(records.slice(1)), jsonTexts(s.getEntries()), "the entries, as written");
			});

			it("the leaf record: branch, resetLeaf, branchWithSummary and navigate persist; a reopen resumes the leaf", async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				const q1 = await s.appendMessage(user("q1"));
				const a1 = await s.appendMessage(assistant("a1"));
				const q2 = await s.appendMessage(user("q2"));
				await s.appendMessage(assistant("a2"));
				await s.branch(q1);
				assert.equal((await reopen(store)).getLeafId(), q1, "branch persists");
				const records = await read(store);
				const last = itemAt(records, -1);
				assert.equal(last.type, "leaf", "branch appends a leaf record");
				assert.equal(last.targetId, q1);
				await s.branch(q1);
				assert.equal((await read(store)).length, records.length, "a branch to the leaf writes nothing");
				const q3 = await s.appendMessage(user("q1, second answer"));
				let r = await reopen(store);
				assert.equal(r.getLeafId(), q3);
				assert.deepEqual(
					r.getBranch().map((e) => e.id),
					[q1, q3],
					"the new branch hangs under the entry branched to",
				);
				assert.deepEqual(
					r.getChildren(q1).map((e) => e.id),
					[a1, q3],
				);
				await s.resetLeaf();
				r = await reopen(store);
				assert.equal(r.getLeafId(), null, "resetLeaf persists");
				assert.deepEqual(r.buildSessionContext().messages, []);
				const root2 = await s.appendMessage(user("a second root"));
				r = await reopen(store);
				assert.equal(r.getEntry(root2)?.parentId, null);
				assert.equal(r.getTree().length, 2, "two roots");
				const summary = await s.branchWithSummary(a1, "what the other branch did");
				r = await reopen(store);
				assert.equal(r.getLeafId(), summary, "the summary is the leaf");
				assert.equal(r.buildSessionContext().messages.at(-1)?.role, "branchSummary");
				const nav = await s.navigate(q2);
				assert.equal(nav.leafId, a1, "navigating to a user message moves to its parent");
				assert.equal(nav.editorText, "q2");
				r = await reopen(store);
				assert.equal(r.getLeafId(), a1, "navigate persists");
				assert.deepEqual(asJson(r.buildSessionContext()), asJson(s.buildSessionContext()));
				assert.equal(r.entryCount, s.entryCount, "leaf records are not entries");
			});

			it("labels: set, overwrite, clear, on another branch; a reopen shows them", async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				const q = await s.appendMessage(user("q"));
				const a = await s.appendMessage(assistant("a"));
				await s.appendLabelChange(q, "start");
				await s.appendLabelChange(a, "first answer");
				await s.appendLabelChange(a, "the answer");
				await s.branch(q);
				const other = await s.appendMessage(assistant("another answer"));
				await s.appendLabelChange(a, "  padded  ");
				await s.appendLabelChange(other, "other");
				await s.appendLabelChange(other, "");
				let r = await reopen(store);
				assert.equal(r.getLabel(q), "start");
				assert.equal(r.getLabel(a), "  padded  ", "labels are not trimmed");
				assert.equal(r.getLabel(other), undefined, "an empty label clears");
				assert.deepEqual(treeRows(r), treeRows(s));
				await s.appendLabelChange(q);
				r = await reopen(store);
				assert.equal(r.getLabel(q), undefined, "no label clears");
			});

			it("session names: trimmed, the latest wins, an empty one clears", async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				assert.equal((await reopen(store)).getSessionName(), undefined);
				await s.appendMessage(user("q"));
				await s.appendSessionInfo("  first name  ");
				assert.equal((await reopen(store)).getSessionName(), "first name");
				await s.appendSessionInfo("second name");
				assert.equal((await reopen(store)).getSessionName(), "second name");
				await s.appendSessionInfo("   ");
				assert.equal((await reopen(store)).getSessionName(), undefined);
				assert.equal(s.getSessionName(), undefined);
			});

			it("fork: the copy lands where derive puts it, names its source, holds the path and its labels", async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				const q1 = await s.appendMessage(user("q1"));
				const a1 = await s.appendMessage(assistant("a1"));
				await s.appendLabelChange(q1, "start");
				await s.appendMessage(user("q2"));
				await s.appendMessage(assistant("a2"));
				const before = jsonTexts(await read(store));
				const f = await s.fork(a1);
				assert.notEqual(f.location, s.location, "the copy is another session");
				assert.equal(f.getHeader().parentSession, store.location, "parentSession names the source");
				const derived = store.derive(f.getHeader());
				assert.equal(derived.location, f.location, "the copy is in the store derive gives for its header");
				const copy = await Session.openStore(derived);
				assert.deepEqual(copy.getEntries(), f.getEntries());
				assert.equal(copy.getLeafId(), a1);
				assert.deepEqual(
					copy.getBranch().map((e) => e.id),
					[q1, a1],
				);
				assert.equal(copy.getLabel(q1), "start", "labels on the path come along");
				assert.deepEqual(asJson(copy.buildSessionContext()), asJson(s.buildSessionContext(a1)));
				assert.deepEqual(jsonTexts(await read(store)), before, "the source is untouched");
				const added = await f.appendMessage(user("in the copy"));
				assert.equal((await Session.openStore(await same(derived))).getLeafId(), added, "the copy is writable");
				const ff = await f.fork();
				assert.equal(ff.getHeader().parentSession, f.location, "a fork of the fork names the fork");
				assert.equal(
					derived.derive(ff.getHeader()).location,
					ff.location,
					"a fork of the fork is where the fork's store derives it",
				);
				await assertCode(() => s.fork("ffffffff"), "ENTRY_NOT_FOUND", "fork at a missing entry");
			});

			it("clone: a new session holding the active path", async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				const q1 = await s.appendMessage(user("q1"));
				await s.appendMessage(assistant("a1"));
				await s.appendLabelChange(q1, "start");
				const q2 = await s.appendMessage(user("q2"));
				await s.branch(q1);
				const other = await s.appendMessage(assistant("a1 again"));
				const c = await s.clone();
				assert.equal(c.getHeader().parentSession, store.location);
				assert.equal(store.derive(c.getHeader()).location, c.location);
				const copy = await Session.openStore(store.derive(c.getHeader()));
				assert.equal(copy.getLeafId(), other);
				assert.deepEqual(
					copy.getBranch().map((e) => e.id),
					[q1, other],
				);
				assert.equal(copy.getEntry(q2), undefined, "off the path: not copied");
				assert.equal(copy.getLabel(q1), "start");
				assert.deepEqual(asJson(copy.buildSessionContext()), asJson(s.buildSessionContext()));
			});

			it("ENTRY_NOT_FOUND for a missing entry; nothing is written", async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				await s.appendMessage(user("q"));
				const before = (await read(store)).length;
				await assertCode(() => s.branch("ffffffff"), "ENTRY_NOT_FOUND", "branch");
				await assertCode(() => s.appendLabelChange("ffffffff", "x"), "ENTRY_NOT_FOUND", "appendLabelChange");
				await assertCode(() => s.navigate("ffffffff"), "ENTRY_NOT_FOUND", "navigate");
				await assertCode(() => s.branchWithSummary("ffffffff", "s"), "ENTRY_NOT_FOUND", "branchWithSummary");
				assert.equal((await read(store)).length, before, "nothing was written");
				await s.appendMessage(user("still writable"));
			});

			it("INVALID_ARGUMENT for an entry the reader would reject; nothing is written", async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				const q = await s.appendMessage(user("q"));
				const before = (await read(store)).length;
				// A message without a role: stored, it would be an INVALID_RECORD on every read.
				const roleless: Parameters<Session["appendMessage"]>[0] = JSON.parse('{"content":"no role","timestamp":1}');
				await assertCode(() => s.appendMessage(roleless), "INVALID_ARGUMENT", "appendMessage without a role");
				assert.equal((await read(store)).length, before, "nothing was written");
				assert.equal(s.getLeafId(), q, "the leaf did not move");
				await s.appendMessage(user("still writable"));
				assert.deepEqual(asJson((await reopen(store)).getEntries()), asJson(s.getEntries()));
			});

			it("close: a closed session, and one reopened and closed, still read and write", async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				for (let i = 0; i < 4; i++) await s.appendMessage(i % 2 ? assistant(`a${i}`) : user(`q${i}`));
				await s.close();
				assert.equal(s.entryCount, 4);
				await s.appendMessage(user("after close"));
				const r = await reopen(store);
				await r.close();
				// Bodies not read yet are read after the close.
				assert.deepEqual(r.getEntries(), s.getEntries());
				assert.deepEqual(asJson(r.buildSessionContext()), asJson(s.buildSessionContext()));
				const added = await r.appendMessage(assistant("after the reopened session's close"));
				await r.close();
				await r.close();
				assert.equal((await reopen(store)).getLeafId(), added);
				await s.flush();
			});

			it("resume from the end (load: context) gives the leaf and context of a full open", async () => {
				const { store, position } = await created();
				// Large records only where the store can read a tail: that is when the end alone is read.
				const records = store.capabilities.tailReads ? bigChain(null) : chain(20, null, "history");
				okPosition(await store.append(records, position));
				const s = await reopen(store);
				const kept = itemAt(records, -3).id;
				await s.appendCompaction("the history so far", kept, 50_000, undefined, undefined, true);
				await s.appendMessage(user("after the compaction"));
				await s.appendMessage(assistant("an answer"));
				const resumed = await Session.openStore(await same(store), { load: "context" });
				assert.equal(resumed.getLeafId(), s.getLeafId());
				assert.deepEqual(asJson(resumed.buildSessionContext()), asJson(s.buildSessionContext()));
				await resumed.load();
				assert.equal(resumed.entryCount, s.entryCount);
				const added = await resumed.appendMessage(user("resumed"));
				assert.equal(resumed.getEntry(added)?.parentId, s.getLeafId());
			});
		});

		describe("pi's fixtures", () => {
			for (const piCase of PI_CASES) {
				it(`${piCase.name}: written with create and append, opened like pi`, async () => {
					const lines = piCase.jsonl.split("\n").filter((line) => line.trim() !== "");
					const records = lines.map((line) => parseRecordText(line, piCase.name));
					const want = piCase.expected;
					const header = itemAt(records, 0);
					assert.ok(isHeaderRecord(header), `${piCase.name}: the first line is a session header`);
					const store = await fresh();
					let position = await store.create(header);
					for (let at = 1; at < records.length; at += 8) {
						position = okPosition(await store.append(records.slice(at, at + 8), position), `append from ${at}`);
					}
					assert.deepEqual(jsonTexts(await read(store)), lines, "the records read back are pi's lines");
					const session = await reopen(store);
					assert.equal(session.getLeafId(), want.leafId, "leafId");
					assert.deepEqual(
						session.getBranch().map((entry) => entry.id),
						want.path,
						"path",
					);
					assert.deepEqual(asJson(session.buildSessionContext()), want.context, "context");
					assert.deepEqual(treeRows(session), want.tree, "tree");
					assert.deepEqual(session.listBranches(), want.leaves, "leaves");
					assert.equal(session.getSessionName() ?? null, want.sessionName, "sessionName");
					assert.equal(session.entryCount, want.entryCount, "entryCount");
					assert.deepEqual(session.problems, [], "problems");
					if (want.migratedText === undefined) return;
					// A legacy case: migrate replaces the session with pi's migrated text, keeping a backup.
					assert.ok(session.fileVersion < 3, "a legacy session is migrated in memory only");
					const backup = await session.migrate();
					assert.ok(typeof backup === "string" && backup !== "", "migrate names its backup");
					const migrated = want.migratedText.split("\n").filter((line) => line !== "");
					assert.deepEqual(jsonTexts(await read(store)), migrated, "the migrated records are pi's");
					if (target.readBackup) {
						assert.deepEqual(jsonTexts(await target.readBackup(backup, store)), lines, "the backup");
					}
					const again = await reopen(store);
					assert.equal(again.fileVersion, 3);
					assert.equal(again.getLeafId(), want.leafId);
					assert.equal(await again.migrate(), undefined, "a second migrate does nothing");
				});
			}
		});

		describe("appends whose answer was lost", () => {
			// A store that loses the answer to an append (a connection cut after the commit) sends
			// it again and gets `behind` with its own records: the write is done, not made twice.
			it("an entry, a leaf record and a label stored although their answers were lost: each stored once", async () => {
				const { store } = await created();
				const lossy = new LostAnswerStore(await same(store), 0);
				const s = await Session.openStore(lossy);
				const q = await s.appendMessage(user("before"));
				lossy.losses = 1;
				const id = await s.appendMessage(user("sent once"));
				assert.equal(s.getLeafId(), id, "the entry is the leaf");
				assert.equal(s.getEntry(id)?.parentId, q);
				const a = await s.appendMessage(assistant("after"));
				assert.equal(s.getEntry(a)?.parentId, id, "the next entry hangs under it");
				lossy.losses = 1;
				await s.branch(q);
				assert.equal(s.getLeafId(), q, "the leaf record moved the leaf");
				lossy.losses = 1;
				const label = await s.appendLabelChange(id, "kept");
				assert.equal(s.getLabel(id), "kept");
				assert.deepEqual(
					lossy.outcomes.map((outcome) => outcome.status),
					["ok", "behind", "ok", "behind", "behind"],
					"the store answered the lost appends with behind",
				);
				const records = await read(store);
				assert.equal(records.length, 6, "the header, three messages, a leaf record and a label: none twice");
				assert.deepEqual(
					jsonTexts(records.slice(1).filter((record) => record.type !== "leaf")),
					jsonTexts(s.getEntries()),
					"the entries, as written",
				);
				const r = await reopen(store);
				assert.deepEqual(r.getEntries(), s.getEntries());
				assert.equal(s.getLeafId(), label, "the label is the leaf, as in pi");
				assert.equal(r.getLeafId(), label);
				assert.equal(r.getLabel(id), "kept");
				assert.equal(r.getEntry(label)?.type, "label");
			});

			it("another writer appending meanwhile: both entries stored once, ours the leaf", async () => {
				const { store } = await created();
				const lossy = new LostAnswerStore(await same(store), 0);
				const s = await Session.openStore(lossy);
				const q = await s.appendMessage(user("q"));
				const other = await reopen(store);
				lossy.afterLoss = async () => {
					await other.appendMessage(user("the other writer's"));
				};
				lossy.losses = 1;
				const id = await s.appendMessage(assistant("ours"));
				assert.equal(s.getLeafId(), id);
				assert.equal(s.entryCount, 3, "ours and the other writer's, once each");
				const next = await s.appendMessage(user("next"));
				assert.equal(s.getEntry(next)?.parentId, id, "our chain goes on from ours");
				const r = await reopen(store);
				assert.equal(r.entryCount, 4);
				assert.deepEqual(
					r.getChildren(q).map((entry) => entry.type === "message" && entry.message.role),
					["assistant", "user"],
					"two children of q: ours, then the other writer's",
				);
			});

			it("a fork's copies stored although their answer was lost: copied once", async () => {
				const { store } = await created();
				const lossy = new LostAnswerStore(await same(store), 0);
				const s = await Session.openStore(lossy);
				await s.appendMessage(user("q1"));
				await s.appendMessage(assistant("a1"));
				lossy.losses = 1;
				const f = await s.fork();
				const copy = await Session.openStore(await same(store.derive(f.getHeader())));
				assert.deepEqual(copy.getEntries(), f.getEntries());
				assert.equal(copy.entryCount, 2, "the path, copied once");
				assert.equal(copy.getLeafId(), f.getLeafId());
			});
		});

		describe("several writers", () => {
			it("store objects appending at once: every append lands whole and once; behind reads are exact", async () => {
				const { store } = await created();
				const stores = [store];
				for (let w = 1; w < writers; w++) stores.push(await same(store));
				const views = await Promise.all(
					stores.map(async (writer, w) => {
						const start = await writer.read();
						let at = start.position;
						const seen = jsonTexts(recordsOf(start, writer.capabilities, `writer ${w}: first read`));
						let parent: string | null = null;
						for (let i = 0; i < WRITES_PER_WRITER; i++) {
							// Two records per append: they must stay together.
							const records = chain(2, parent, `writer ${w} append ${i}`);
							for (let attempt = 0; ; attempt++) {
								assert.ok(attempt < 1000, `writer ${w}: no progress after 1000 attempts`);
								const outcome = await writer.append(records, at);
								if (outcome.status === "ok") {
									at = outcome.position;
									seen.push(...jsonTexts(records));
									break;
								}
								const read = behindRead(outcome, `writer ${w}`);
								seen.push(...jsonTexts(recordsOf(read, writer.capabilities, `writer ${w}: behind read`)));
								at = read.position;
							}
							parent = itemAt(records, 1).id;
						}
						return { writer, seen, at };
					}),
				);
				// Once every writer is done, what each read and wrote, and what follows, is the session.
				for (const [w, view] of views.entries()) {
					const { writer } = view;
					const rest = await since(writer, view.at, `writer ${w}: readSince its last position`);
					view.seen.push(...jsonTexts(recordsOf(rest, writer.capabilities)));
				}
				const final = jsonTexts(await read(await same(store)));
				assert.equal(final.length, 1 + writers * WRITES_PER_WRITER * 2, "every record once");
				assert.equal(new Set(final).size, final.length, "no record twice");
				for (const [w, view] of views.entries()) {
					assert.deepEqual(view.seen, final, `writer ${w}'s reads add up to the session`);
				}
				const records = final.map((text) => parseRecordText(text));
				for (let i = 1; i < records.length; i += 2) {
					assert.equal(records[i + 1]?.parentId, records[i]?.id, `an append's two records are adjacent (at ${i})`);
				}
			});

			it("sessions writing at once through separate store objects: each writer's chain, every entry once", async () => {
				const store = await fresh();
				const first = await Session.createIn(store);
				const root = await first.appendMessage(user("root"));
				const top = await first.appendSessionInfo("shared");
				const sessions = [first];
				for (let w = 1; w < writers; w++) sessions.push(await reopen(store));
				const pending: Array<{ session: Session; ops: Promise<string>[] }> = sessions.map((session) => ({
					session,
					ops: [],
				}));
				const others: Promise<unknown>[] = [];
				for (let i = 0; i < WRITES_PER_WRITER; i++) {
					pending.forEach(({ session: s, ops }, w) => {
						const op =
							i % 4 === 1
								? s.appendLabelChange(root, `label by ${w}`)
								: i % 4 === 3
									? s.appendCustomEntry("progress", { w, i })
									: s.appendMessage(i % 2 ? assistant(`w${w} ${i}`) : user(`w${w} ${i}`));
						ops.push(op);
						if (i === 2) others.push(s.refresh());
						if (i === WRITES_PER_WRITER / 2 && w === 0) others.push(s.close());
					});
				}
				const ids = await Promise.all(pending.map(({ ops }) => Promise.all(ops)));
				await Promise.all(others);
				const all = ids.flat();
				assert.equal(new Set(all).size, all.length, "every write got its own id");
				const r = await reopen(store);
				assert.deepEqual(r.problems, []);
				const entries = r.getEntries();
				const entryIds = entries.map((e) => e.id);
				assert.equal(new Set(entryIds).size, entryIds.length, "every entry once");
				assert.equal(entries.length, 2 + all.length, "every entry present");
				const known = new Set(entryIds);
				for (const entry of entries) {
					assert.ok(entry.parentId === null || known.has(entry.parentId), `the parent of ${entry.id} is present`);
				}
				ids.forEach((chainIds, w) => {
					chainIds.forEach((id, i) => {
						const want = i === 0 ? top : chainIds[i - 1];
						assert.equal(r.getEntry(id)?.parentId, want, `writer ${w}'s write ${i} follows its previous one`);
					});
				});
				await Promise.all(sessions.map((s) => s.refresh()));
				sessions.forEach((s, w) => {
					assert.equal(s.entryCount, entries.length, `writer ${w} sees every entry after refresh`);
					assert.equal(s.getLeafId(), ids[w]?.at(-1), `writer ${w}'s leaf is its own last write`);
				});
			});

			it("refresh: a session reads what another appended; its leaf stays its own", async () => {
				const store = await fresh();
				const a = await Session.createIn(store);
				const q = await a.appendMessage(user("q"));
				const b = await reopen(store);
				const answer = await b.appendMessage(assistant("b's answer"));
				await b.appendLabelChange(q, "by b");
				await b.appendSessionInfo("named by b");
				await b.branch(q);
				assert.equal(a.getEntry(answer), undefined, "not read yet");
				await a.refresh();
				assert.equal(a.getEntry(answer)?.parentId, q);
				assert.equal(a.getLabel(q), "by b");
				assert.equal(a.getSessionName(), "named by b");
				assert.equal(a.getLeafId(), q, "another writer's leaf moves do not move this session's leaf");
				const mine = await a.appendMessage(assistant("a's answer"));
				assert.equal(a.getEntry(mine)?.parentId, q);
			});
		});

		describe("replaced and closed stores", () => {
			it("a session whose position predates a replace meets stale and catches up by re-reading", async () => {
				const store = await fresh();
				const a = await Session.createIn(store);
				const q = await a.appendMessage(user("q"));
				await a.appendMessage(assistant("a"));
				const spy = new RecordingStore(await same(store));
				const b = await Session.openStore(spy);
				const c = await same(store);
				const current = await c.read();
				const records = recordsOf(current, c.capabilities);
				const inserted = messageRecord(entryId(), q, "added by the replace");
				okPosition(await c.replace([...records, inserted], current.position), "replace");
				const answer = await b.appendMessage(assistant("b writes after the replace"));
				assert.ok(
					spy.outcomes.some((o) => o.op === "append" && o.status === "stale"),
					`b's first append meets stale (saw ${JSON.stringify(spy.outcomes)})`,
				);
				assert.equal(spy.outcomes.at(-1)?.status, "ok");
				assert.ok(b.getEntry(inserted.id), "b re-read the replaced session");
				await a.refresh();
				assert.ok(a.getEntry(inserted.id), "refresh re-reads a replaced session");
				assert.ok(a.getEntry(answer), "and what was appended after");
				const r = await reopen(store);
				assert.equal(r.entryCount, 4);
				assert.equal(r.getLeafId(), answer);
			});

			/** A session with an entry off the leaf's path (so a lazy open leaves its body unread), reopened and closed. */
			const closedBeforeReplace = async () => {
				const store = await fresh();
				const s = await Session.createIn(store);
				const q = await s.appendMessage(user("q"));
				await s.appendMessage(assistant("an answer left behind"));
				await s.branch(q);
				const leaf = await s.appendMessage(assistant("the answer on the path"));
				const r = await reopen(store);
				await r.close();
				const c = await same(store);
				const current = await c.read();
				okPosition(await c.replace(recordsOf(current, c.capabilities), current.position), "replace");
				return { s, r, leaf };
			};

			it("a closed session still reads after its session was replaced elsewhere", async () => {
				const { s, r, leaf } = await closedBeforeReplace();
				// Session.close's TSDoc: a closed session can still be read; a body its store reads
				// lazily (after close, from the path again) is gone once the session was replaced
				// elsewhere: that read fails with IO_ERROR naming the remedy, refresh().
				try {
					assert.deepEqual(r.getEntries(), s.getEntries(), "a closed session reads its entries");
				} catch (error) {
					assert.ok(r.getEntry(leaf), "the entries read at open stay readable");
					assert.equal(errorCode(error), "IO_ERROR", String(error));
					assert.match(String(error), /refresh\(\)/, "the error names the remedy");
				}
				await r.refresh();
				assert.deepEqual(r.getEntries(), s.getEntries(), "and after refresh");
			});

			it("a closed session writes after its session was replaced elsewhere, and then reads", async () => {
				const { s, r } = await closedBeforeReplace();
				const added = await r.appendMessage(user("after the replace"));
				assert.equal(r.getEntry(added)?.parentId, s.getLeafId());
				assert.equal(r.entryCount, s.entryCount + 1);
				assert.deepEqual(r.getEntries().slice(0, -1), s.getEntries());
			});

			it("repair through Session: replace keeps a backup; a writer from before it catches up", async () => {
				const { store, header, position } = await created();
				const root = messageRecord(entryId(), null, "root");
				const orphan = messageRecord(entryId(), "fffffff0", "a parent that is missing");
				okPosition(await store.append([root, orphan], position));
				await assertCode(() => reopen(store), "MISSING_PARENT", "a strict open");
				const lenient = await Session.openStore(await same(store), { lenient: true });
				const writer = await Session.openStore(await same(store), { lenient: true });
				assert.deepEqual(
					lenient.problems.map((p) => p.code),
					["MISSING_PARENT"],
				);
				const backup = await lenient.repair();
				assert.ok(typeof backup === "string" && backup !== "", "repair names its backup");
				if (target.readBackup) {
					assert.deepEqual(jsonTexts(await target.readBackup(backup, store)), jsonTexts([header, root, orphan]));
				}
				const repaired = await reopen(store);
				assert.deepEqual(repaired.problems, []);
				assert.equal(repaired.getEntry(orphan.id)?.parentId, root.id, "the gap is bridged");
				assert.equal(await lenient.repair(), undefined, "nothing left to repair");
				const added = await writer.appendMessage(user("from a writer that opened before the repair"));
				const r = await reopen(store);
				assert.deepEqual(r.problems, []);
				assert.equal(r.getEntry(added)?.parentId, orphan.id);
			});

			it("writers closing their stores between interleaved writes lose nothing", async () => {
				const { store } = await created();
				const stores = [store];
				for (let w = 1; w < writers; w++) stores.push(await same(store));
				const opened = await Promise.all(
					stores.map(async (st) => ({ store: st, session: await Session.openStore(st) })),
				);
				const ops: Promise<unknown>[] = [];
				for (let i = 0; i < 4; i++) {
					opened.forEach(({ store: st, session: s }, w) => {
						ops.push(s.appendMessage(user(`w${w} ${i}`)));
						ops.push(st.close());
						if (i % 2) ops.push(s.close());
					});
				}
				await Promise.all(ops);
				const r = await reopen(store);
				assert.equal(r.entryCount, 4 * writers);
				assert.deepEqual(r.problems, []);
			});
		});
	});
}

/** A user message. */
function user(text: string): AgentMessage {
	return { role: "user", content: text, timestamp: Date.now() };
}

/** An assistant message with one text block. */
function assistant(text: string): AgentMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
		stopReason: "stop",
		timestamp: Date.now(),
	};
}

/** About 9.4 MiB of user messages in one chain under `parentId`. */
function bigChain(parentId: string | null): MessageEntry[] {
	const filler = "x".repeat(TAIL_RECORD_BYTES);
	return chain(TAIL_RECORDS, parentId, "large").map((record, i) => ({
		...record,
		message: { role: "user", content: `${i} ${filler}`, timestamp: 1 },
	}));
}

/**
 * Records that test a store's encoding: keys in no alphabetical order, non-ASCII keys, an
 * empty key, every kind of character JSON strings may hold (line and paragraph separators,
 * NUL, a lone surrogate, a byte-order mark), large and small numbers, a 200 KB string.
 */
function oddRecords(parentId: string): EntryBase[] {
	const text =
		"line\nbreak \u2028 \u2029 \u0085 \r\n tab\t nul\u0000 bom\ufeff emoji \u{1f469}\u200d\u{1f469}\u200d\u{1f467} " +
		'rtl \u202e lone \ud800 end \\ "quoted" \u{10ffff} \uffff';
	const message = messageRecord(entryId(), parentId, text);
	const custom = {
		zeta: 1,
		type: "custom",
		alpha: 2,
		customType: "encoding",
		id: entryId(),
		parentId: message.id,
		timestamp: new Date().toISOString(),
		data: {
			b: [3, { y: null, x: "\u00e9" }],
			a: true,
			"\u043a\u043b\u044e\u0447": "\u0437\u043d\u0430\u0447\u0435\u043d\u0438\u0435",
			"": "an empty key",
			big: 1e21,
			small: 5e-324,
			negative: -0.5,
			nested: { deeper: { deepest: [[], {}, ""] } },
		},
	};
	const large = messageRecord(entryId(), custom.id, "y".repeat(200_000));
	return [message, custom, large];
}
