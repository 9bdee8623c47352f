/**
 * Copies between stores: every pi fixture file → SQLite → PostgreSQL → file gives the same
 * bytes; a whole store copied into another lists the same sessions; search narrowed by a
 * database's index finds what a scan of the files finds; prune on a database. PostgreSQL parts
 * skip without a server (see test/support/postgres.ts), SQLite parts without better-sqlite3
 * (see test/support/sqlite.ts).
 */

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { compileQuery, searchSessions } from "../../src/catalog/search.js";
import { copyLocation, copySession, pruneCandidates } from "../../src/catalog/transfer.js";
import type { SessionHeader } from "../../src/core/types.js";
import { Session } from "../../src/index.js";
import { readAllRecords } from "../../src/storage/batches.js";
import { collectionAt, storeAt } from "../../src/storage/locations.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-store.js";
import { FIXTURES } from "../cli/helpers.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "st-transfer-"));
after(async () => {
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

const server = await postgresServer();
const pg = "url" in server ? testSchema(server.url, "transfer") : undefined;
const pgMany = "url" in server ? testSchema(server.url, "transfer_many") : undefined;
const pgPartial = "url" in server ? testSchema(server.url, "transfer_partial") : undefined;

/** Every pi fixture file (the damaged ones too: a copy refuses only lines it cannot read). */
function fixtureFiles(): string[] {
	return readdirSync(FIXTURES)
		.filter((file) => file.endsWith(".jsonl"))
		.sort()
		.map((file) => join(FIXTURES, file));
}

const isDirectory = (path: string) => {
	try {
		return readdirSync(path) !== undefined;
	} catch {
		return false;
	}
};

describe("copy between stores", () => {
	test("every pi fixture: file → SQLite → PostgreSQL → file is byte-identical, with the same context", {
		skip: SQLITE_SKIP,
	}, async (t) => {
		const files = fixtureFiles();
		assert.ok(files.length >= 20, `fixtures found: ${files.length}`);
		const sqlite = `sqlite:${join(dir, "fixtures.db")}`;
		const back = join(dir, "back");
		mkdirSync(back);
		for (const file of files) {
			const inSqlite = await copySession(storeAt(file), { collection: collectionAt(sqlite) });
			let last = inSqlite;
			if (pg) last = await copySession(storeAt(inSqlite), { collection: collectionAt(pg.url) });
			const out = await copySession(storeAt(last), { location: join(back, file.split("/").at(-1) as string) });
			assert.deepEqual(readFileSync(out), readFileSync(file), `${file} came back the same`);
			// Damaged fixtures (a missing parent, say) open leniently, the same way from either place.
			const original = await Session.open(file, { lenient: true });
			const copied = await Session.open(last, { lenient: true });
			assert.deepEqual(
				copied.problems,
				original.problems.map((problem) => ({ ...problem })),
				`${file}: the same problems`,
			);
			assert.deepEqual(copied.buildSessionContext(), original.buildSessionContext(), `${file}: the same context`);
			assert.equal(copied.getLeafId(), original.getLeafId());
		}
		if (!pg) t.diagnostic("PostgreSQL leg skipped: no server");
	});

	// Without the driver the PostgreSQL leg still runs; with neither there is nothing to copy into.
	test("a directory into SQLite (and PostgreSQL): the same sessions; copying again copies nothing", {
		skip: pgMany ? undefined : SQLITE_SKIP,
	}, async (t) => {
		const from = join(dir, "many");
		mkdirSync(from);
		for (let i = 0; i < 5; i++) {
			const session = await Session.create({ dir: from, cwd: "/p" });
			await session.appendMessage({ role: "user", content: `question ${i} about zebra crossings`, timestamp: i });
			await session.close();
		}
		if (SQLITE_SKIP) t.diagnostic(SQLITE_SKIP);
		const targets = [...(SQLITE_SKIP ? [] : [`sqlite:${join(dir, "many.db")}`]), ...(pgMany ? [pgMany.url] : [])];
		for (const target of targets) {
			const events = [];
			for await (const event of copyLocation(from, target, isDirectory)) events.push(event);
			assert.deepEqual(
				events.map((event) => event.kind),
				["copied", "copied", "copied", "copied", "copied"],
			);
			const again = [];
			for await (const event of copyLocation(from, target, isDirectory)) again.push(event.kind);
			assert.deepEqual(again, ["exists", "exists", "exists", "exists", "exists"], "a second copy leaves them alone");
			const listed = [];
			for await (const listing of collectionAt(target).list()) listed.push(listing.location);
			assert.equal(listed.length, 5);
			// Search narrowed by the index finds what a scan finds.
			const matcher = compileQuery({ pattern: "zebra crossing", ignoreCase: true });
			const indexed = await searchSessions(collectionAt(target), matcher);
			const scanned = await searchSessions(collectionAt(target), matcher, { scan: true });
			const files = await searchSessions(collectionAt(from), matcher);
			assert.equal(indexed.hits.length, 5, target);
			assert.deepEqual(indexed.hits.map((hit) => hit.entryId).sort(), scanned.hits.map((hit) => hit.entryId).sort());
			assert.deepEqual(indexed.hits.map((hit) => hit.entryId).sort(), files.hits.map((hit) => hit.entryId).sort());
			assert.equal((await searchSessions(collectionAt(target), compileQuery({ pattern: "giraffe" }))).hits.length, 0);
			// Prune: keep 2, the others go, each in one step.
			const chosen = await pruneCandidates(collectionAt(target), { keep: 2 });
			assert.equal(chosen.length, 3);
			const collection = collectionAt(target);
			for (const listing of chosen) await collection.remove?.(listing.location);
			const left = [];
			for await (const listing of collectionAt(target).list()) left.push(listing.location);
			assert.equal(left.length, 2);
		}
	});
});

describe("a copy that stopped part way", () => {
	test("memory:, SQLite and PostgreSQL: a target holding the first records gets the others; one that went its own way is refused, untouched", async (t) => {
		const file = join(FIXTURES, "branched-session-clean.jsonl");
		const records = await readAllRecords(storeAt(file));
		assert.ok(records.length > 4, `${records.length} records`);
		const header = records[0] as unknown as SessionHeader;
		const targets = [
			"memory:",
			...(SQLITE_SKIP ? [] : [`sqlite:${join(dir, "partial.db")}`]),
			...(pgPartial ? [pgPartial.url] : []),
		];
		for (const target of targets) {
			const collection = collectionAt(target);
			// An interrupted copy: the header and two entries, written as a copy writes them.
			const partial = collection.sessionFor(header);
			await partial.append(records.slice(1, 3), await partial.create(header));
			await partial.close();
			const events = [];
			for await (const event of copyLocation(file, target, isDirectory)) events.push(event);
			assert.deepEqual(events, [
				{ kind: "completed", source: file, location: partial.location, appended: records.length - 3 },
			]);
			assert.deepEqual(await readAllRecords(storeAt(partial.location)), records, `${target}: the whole session`);
			await assert.rejects(copySession(storeAt(file), { collection: collectionAt(target) }), {
				code: "FILE_EXISTS",
				message: /already holds this session/,
			});
			// Gone its own way: the same first two records, then another.
			await collectionAt(target).remove?.(partial.location);
			const other = collection.sessionFor(header);
			const mine = { ...records[2], id: "ffff0001" };
			await other.append([records[1] as object, mine], await other.create(header));
			await other.close();
			await assert.rejects(copySession(storeAt(file), { collection: collectionAt(target) }), {
				code: "FILE_EXISTS",
				message: /holds a different session/,
			});
			assert.deepEqual(
				await readAllRecords(storeAt(other.location)),
				[header, records[1], mine],
				`${target}: untouched`,
			);
			await collection.close?.();
		}
		if (!pgPartial) t.diagnostic("PostgreSQL leg skipped: no server");
		if (SQLITE_SKIP) t.diagnostic(SQLITE_SKIP);
	});
});

describe("a database as the place of a new session", () => {
	test("Session.create({ dir }) keys the session by its id there, with the durability asked for", {
		skip: SQLITE_SKIP,
	}, async () => {
		const db = `sqlite:${join(dir, "made.db")}`;
		const session = await Session.create({ dir: db, cwd: "/p", durability: "fsync" });
		assert.equal(session.location, `${db}#${session.getSessionId()}`);
		await session.close();
		await assert.rejects(Session.create({ dir: db, cwd: "/p", durability: "group" }), { code: "INVALID_ARGUMENT" });
	});
});
