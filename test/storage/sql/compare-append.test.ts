/**
 * The one compare-and-write path of the SQL stores (src/storage/sql/compare-append.ts): the
 * path itself with steps of the test's own (at once or awaited), then through SQLite's and
 * PostgreSQL's append and replace on a real database (PostgreSQL when SESSION_TREE_PG_URL is
 * set; under CI=true it must be).
 */

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { isSessionTreeError } from "../../../src/core/errors.js";
import type { SessionHeader } from "../../../src/core/types.js";
import { compareAndWrite, type SqlEnd, type WriteSteps } from "../../../src/storage/sql/compare-append.js";
import { PostgresCollection, PostgresSessionStore } from "../../../src/storage/sql/postgres-store.js";
import { closeSqliteDatabases, SqliteCollection, SqliteSessionStore } from "../../../src/storage/sql/sqlite-store.js";
import type {
	AppendOutcome,
	ReplaceOutcome,
	SessionStore,
	StorePosition,
	StoreRead,
} from "../../../src/storage/store.js";
import { recordsOf } from "../../../src/testing/helpers.js";
import { postgresServer, testSchema } from "../../support/postgres.js";
import { SQLITE_SKIP } from "../../support/sqlite.js";

// Asked before any test is declared: the runner would start them (and this file's hooks) meanwhile.
const server = await postgresServer();
const dir = mkdtempSync(join(tmpdir(), "st-compare-append-"));
after(() => {
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

const header = (): SessionHeader => ({
	type: "session",
	version: 3,
	id: randomUUID(),
	timestamp: "2026-03-01T10:00:00.000Z",
	cwd: "/compare",
});
let ids = 0;
/** A user message entry with a fresh id under `parentId`. */
const message = (parentId: string | null, text: string) => ({
	type: "message",
	id: (++ids).toString(16).padStart(8, "0"),
	parentId,
	timestamp: "2026-03-01T10:00:00.000Z",
	message: { role: "user", content: text, timestamp: 1 },
});

function ok(outcome: AppendOutcome | ReplaceOutcome): StorePosition {
	assert.equal(outcome.status, "ok", JSON.stringify(outcome));
	return outcome.status === "ok" ? outcome.position : "";
}

function behind(outcome: AppendOutcome | ReplaceOutcome): StoreRead {
	assert.equal(outcome.status, "behind", JSON.stringify(outcome));
	if (outcome.status !== "behind") throw new Error("not behind");
	return outcome.read;
}

/** The texts of the user messages a read holds, in order. */
function texts(read: StoreRead): unknown[] {
	// Bodies a store left unparsed (SQLite's envelopes) are read through its source.
	const lazy = { lazyBodies: true, tailReads: false, pathReads: false, durability: [] };
	return recordsOf(read, lazy).flatMap((line) => {
		const record = line as { message?: { content?: unknown } } | undefined;
		return record?.message ? [record.message.content] : [];
	});
}

describe("compareAndWrite: the path", () => {
	/** Steps over an end the test sets, recording what ran; `now`: they complete at once. */
	function steps(end: SqlEnd, now: boolean, since: StoreRead | undefined) {
		const ran: string[] = [];
		const value = <T>(v: T): T | Promise<T> => (now ? v : Promise.resolve(v));
		const made: WriteSteps<{ status: "ok"; at: SqlEnd }> = {
			end: () => {
				ran.push("end");
				return value(end);
			},
			write: (at) => {
				ran.push(`write ${at.generation}:${at.count}`);
				return value({ status: "ok" as const, at });
			},
			since: (count, at) => {
				ran.push(`since ${count} (end ${at.generation}:${at.count})`);
				return value(since);
			},
		};
		return { ran, steps: made };
	}
	const read: StoreRead = { lines: [], position: "0:5" };

	test("writes only when the ends are the same; stale for another generation or a longer expected end; behind with what followed", async () => {
		for (const now of [true, false]) {
			const same = steps({ generation: 2, count: 5 }, now, read);
			assert.deepEqual(await compareAndWrite({ generation: 2, count: 5 }, same.steps), {
				status: "ok",
				at: { generation: 2, count: 5 },
			});
			assert.deepEqual(same.ran, ["end", "write 2:5"]);

			const replaced = steps({ generation: 3, count: 5 }, now, read);
			assert.deepEqual(await compareAndWrite({ generation: 2, count: 5 }, replaced.steps), { status: "stale" });
			assert.deepEqual(replaced.ran, ["end"], "nothing written, nothing read");

			const shorter = steps({ generation: 2, count: 4 }, now, read);
			assert.deepEqual(await compareAndWrite({ generation: 2, count: 5 }, shorter.steps), { status: "stale" });
			assert.deepEqual(shorter.ran, ["end"]);

			const longer = steps({ generation: 2, count: 7 }, now, read);
			assert.deepEqual(await compareAndWrite({ generation: 2, count: 5 }, longer.steps), { status: "behind", read });
			assert.deepEqual(longer.ran, ["end", "since 5 (end 2:7)"], "what followed the expected end, not written");

			const gone = steps({ generation: 2, count: 7 }, now, undefined);
			assert.deepEqual(await compareAndWrite({ generation: 2, count: 5 }, gone.steps), { status: "stale" });
		}
	});

	test("steps that complete at once give the outcome at once (SQLite's transaction runs no await)", () => {
		const outcome = compareAndWrite({ generation: 0, count: 1 }, steps({ generation: 0, count: 1 }, true, read).steps);
		assert.equal(outcome instanceof Promise, false);
		assert.deepEqual(outcome, { status: "ok", at: { generation: 0, count: 1 } });
		const awaited = compareAndWrite({ generation: 0, count: 1 }, steps({ generation: 0, count: 1 }, false, read).steps);
		assert.equal(awaited instanceof Promise, true);
	});
});

/** A SQL store of each kind: a new session's store, and a way to remove a session. */
interface Backend {
	name: string;
	/** Why its tests skip here, if they do. */
	skip?: string | undefined;
	store(): SessionStore;
	remove(location: string): Promise<void>;
}

const backends: Backend[] = [
	{
		name: "SQLite",
		skip: SQLITE_SKIP,
		store: () => new SqliteSessionStore(`sqlite:${join(dir, "compare.db")}`),
		remove: (location) => new SqliteCollection(`sqlite:${join(dir, "compare.db")}`).remove(location),
	},
];
if ("skip" in server) {
	test("PostgreSQL compare-and-write", { skip: server.skip }, () => {});
} else {
	const schema = testSchema(server.url, "compare");
	backends.push({
		name: "PostgreSQL",
		store: () => new PostgresSessionStore(schema.url),
		remove: (location) => new PostgresCollection(schema.url).remove(location),
	});
}

for (const backend of backends) {
	describe(`compare-and-write through the ${backend.name} store`, { skip: backend.skip }, () => {
		test("an append at the end is ok; one at an old position is behind by exactly what came since, writes nothing, and succeeds once caught up", async () => {
			const writer = backend.store();
			const p0 = await writer.create(header());
			const first = message(null, "first");
			const p1 = ok(await writer.append([first], p0));
			const second = message(first.id, "second");
			const p2 = ok(await writer.append([second], p1));

			const late = message(first.id, "late");
			const missed = behind(await writer.append([late], p1));
			assert.deepEqual(texts(missed), ["second"]);
			assert.equal(missed.position, p2, "the position after what was missed");
			assert.deepEqual(texts(await writer.read()), ["first", "second"], "the behind append wrote nothing");

			const p3 = ok(await writer.append([late], missed.position));
			assert.deepEqual(texts(await writer.read()), ["first", "second", "late"]);
			assert.deepEqual(texts((await writer.readSince(p3)) ?? { lines: [], position: "" }), []);
			await writer.close();
		});

		test("a replace at the end is ok and keeps a backup; then every older position is stale, for appends and replaces", async () => {
			const store = backend.store();
			const p0 = await store.create(header());
			const first = message(null, "first");
			const p1 = ok(await store.append([first], p0));
			const replaced = await store.replace([header(), message(null, "new")], p1);
			assert.equal(replaced.status, "ok");
			assert.ok(replaced.status === "ok" && replaced.backup.includes("@backup-"));
			assert.deepEqual(await store.append([message(first.id, "x")], p1), { status: "stale" });
			assert.deepEqual(await store.replace([header()], p1), { status: "stale" });
			assert.deepEqual(await store.append([message(first.id, "x")], p0), { status: "stale" });
			assert.deepEqual(texts(await store.read()), ["new"], "nothing written by the stale writes");
			await store.close();
		});

		test("a position past the end (a count the session never had) is stale; a replace behind is behind and replaces nothing", async () => {
			const store = backend.store();
			const p0 = await store.create(header());
			const first = message(null, "first");
			const p1 = ok(await store.append([first], p0));
			const [generation] = p1.split(":");
			assert.deepEqual(await store.append([message(null, "far")], `${generation}:9`), { status: "stale" });
			ok(await store.append([message(first.id, "second")], p1));
			const missed = behind(await store.replace([header()], p1));
			assert.deepEqual(texts(missed), ["second"]);
			assert.deepEqual(texts(await store.read()), ["first", "second"]);
			const done = await store.replace([header(), message(null, "only")], missed.position);
			assert.equal(done.status, "ok");
			assert.deepEqual(texts(await store.read()), ["only"]);
			await store.close();
		});

		test("a write to a session removed since: FILE_NOT_FOUND, as before the path was shared", async () => {
			const store = backend.store();
			const p0 = await store.create(header());
			await backend.remove(store.location);
			for (const write of [() => store.append([message(null, "x")], p0), () => store.replace([header()], p0)]) {
				await assert.rejects(
					async () => write(),
					(error: unknown) => isSessionTreeError(error, "FILE_NOT_FOUND"),
				);
			}
			await store.close();
		});
	});
}
