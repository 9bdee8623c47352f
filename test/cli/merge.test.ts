/**
 * `session-tree merge` on two copies of one session file that grew apart, read back strictly and
 * by pi's own SessionManager; and `copy --update` between a file, SQLite (skipped without
 * better-sqlite3, see test/support/sqlite.ts) and PostgreSQL (skipped without a server, see
 * test/support/postgres.ts) until every store holds the same records.
 */

import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { readAllRecords } from "../../src/storage/batches.js";
import { collectionAt, storeAt } from "../../src/storage/locations.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-store.js";
import { asJson } from "../support/fixtures.js";
import { piContext } from "../support/pi.js";
import { PG_SKIP_MESSAGE, postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { cli, lines, removeTempDirs, tempDir } from "./helpers.js";

after(() => {
	closeSqliteDatabases();
	removeTempDirs();
});

const server = await postgresServer();
const pg = "url" in server ? testSchema(server.url, "merge_update") : undefined;

let clock = Date.parse("2026-06-01T10:00:00.000Z");
const now = () => {
	clock += 1000;
	return new Date(clock);
};
const user = (text: string) => ({ role: "user" as const, content: text, timestamp: clock });
const assistant = (text: string) => ({
	role: "assistant" as const,
	content: [{ type: "text" as const, text }],
	api: "anthropic-messages",
	provider: "anthropic",
	model: "m",
	usage: {
		input: 1,
		output: 1,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 2,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	},
	stopReason: "stop" as const,
	timestamp: clock,
});

/** A session file (pi's name, in its own directory) of three turns' start: q1, a1, q2. */
async function startSession(): Promise<{ file: string; q1: string; a1: string }> {
	const session = await Session.create({ dir: tempDir(), cwd: "/p", now });
	const q1 = await session.appendMessage(user("What is a B-tree?"));
	const a1 = await session.appendMessage(assistant("A balanced search tree."));
	await session.appendMessage(user("And a trie?"));
	await session.close();
	return { file: session.file as string, q1, a1 };
}

/** Entry ids of a session, leaf records left out. */
async function entryIds(location: string): Promise<string[]> {
	const session = await Session.open(location);
	try {
		return session.getEntries().map((entry) => entry.id);
	} finally {
		await session.close();
	}
}

/**
 * Two copies of one file: A goes on from q2 and is labelled and named on its side; B (the
 * sync tool's conflict copy, written to later) branches back to a1, asks again, and is labelled
 * and named on its side.
 */
async function twoCopies() {
	const { file: a, q1, a1 } = await startSession();
	const b = join(dirname(a), "session (conflict).jsonl");
	copyFileSync(a, b);
	const sideA = await Session.open(a, { now });
	await sideA.appendMessage(assistant("A prefix tree."));
	await sideA.appendLabelChange(q1, "start");
	await sideA.appendSessionInfo("on the laptop");
	await sideA.close();
	const sideB = await Session.open(b, { now });
	await sideB.branch(a1);
	await sideB.appendMessage(user("How do B-trees split?"));
	const leafB = await sideB.appendMessage(assistant("At the median key."));
	await sideB.appendLabelChange(q1, "first question");
	await sideB.appendSessionInfo("on the desktop");
	await sideB.branch(leafB);
	await sideB.close();
	return { a, b, q1, leafB };
}

describe("merge", () => {
	test("two copies of a file: the union opens strictly, holds both sides, reads the same in pi; A and B untouched", async () => {
		const { a, b, q1, leafB } = await twoCopies();
		const before = [readFileSync(a), readFileSync(b)];
		const out = join(tempDir(), "merged.jsonl");
		const result = await cli(["merge", a, b, "-o", out]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout, `${out}\n`);
		assert.match(
			result.stderr,
			/the copies name the session differently: A "on the laptop", B "on the desktop"; in effect: "on the desktop"/,
		);
		assert.match(
			result.stderr,
			new RegExp(`entry ${q1} is labelled "start" in A and "first question" in B; in effect: "first question"`),
		);
		assert.match(
			result.stderr,
			/merged: 6 records of A and 6 more of B \(3 in both\); leaf: [0-9a-f]{8}, B's \(the newer copy\)/,
		);
		assert.deepEqual([readFileSync(a), readFileSync(b)], before, "never writes to A or B");

		const merged = await Session.open(out);
		const ids = new Set(merged.getEntries().map((entry) => entry.id));
		for (const id of [...(await entryIds(a)), ...(await entryIds(b))]) assert.ok(ids.has(id), `${id} is in the union`);
		assert.equal(merged.getLeafId(), leafB, "B's leaf: B was written to last");
		assert.equal(merged.getSessionName(), "on the desktop");
		assert.equal(merged.getLabel(q1), "first question");
		assert.equal(merged.listBranches().length, 2, "A's leaf and B's both end a branch");
		assert.deepEqual(piContext(out), asJson(merged.buildSessionContext()), "pi builds the same context");
		await merged.close();

		const printed = await cli(["merge", a, b, "-o", "-"]);
		assert.equal(printed.code, 0, printed.stderr);
		assert.equal(printed.stdout, readFileSync(out, "utf8"), "`-o -` prints what -o OUT writes");
		const again = await cli(["merge", a, b, "-o", out]);
		assert.equal(again.code, 0, again.stderr);
		assert.match(again.stderr, /already holds this merge: nothing written/);

		const leafA = await cli(["merge", a, b, "-o", join(tempDir(), "a-leaf.jsonl"), "--leaf", "a", "--json"]);
		assert.equal(leafA.code, 0, leafA.stderr);
		const report = JSON.parse(leafA.stdout);
		assert.equal(report.leaf.from, "a");
		assert.equal(report.leaf.reason, "chosen");
		assert.equal((await Session.open(report.location)).getLeafId(), report.leaf.a);
	});

	test("never writes to A or B: no -o, -o A, or a store where A is the session by its id, are refused", async () => {
		const { a, b } = await twoCopies();
		const before = [readFileSync(a), readFileSync(b)];
		const missing = await cli(["merge", a, b]);
		assert.equal(missing.code, 2);
		assert.match(missing.stderr, /name the new session with -o OUT/);
		for (const out of [a, b, dirname(a)]) {
			const refused = await cli(["merge", a, b, "-o", out]);
			assert.equal(refused.code, 1, `${out}: ${refused.stderr}`);
			assert.match(refused.stderr, /the output is [AB] .*merge never writes to the sessions it merges/);
		}
		const other = join(tempDir(), "other.jsonl");
		writeFileSync(other, readFileSync(a));
		const exists = await cli(["merge", a, b, "-o", other]);
		assert.equal(exists.code, 1);
		assert.match(exists.stderr, /holds a session already/);
		assert.deepEqual([readFileSync(a), readFileSync(b)], before);
		assert.deepEqual(readdirSync(dirname(a)).sort(), [basename(a), "session (conflict).jsonl"].sort());
	});

	test("the same id with different content: reported with both sources, B's version kept under a new id", async () => {
		const { file: a } = await startSession();
		const b = join(dirname(a), "b.jsonl");
		const text = readFileSync(a, "utf8");
		// B's copy of the last question was edited by hand; B then went on under it.
		const last = text.trimEnd().split("\n").at(-1) as string;
		const id = JSON.parse(last).id as string;
		const edited = last.replace("And a trie?", "And a radix tree?");
		const child = JSON.stringify({ ...JSON.parse(last), id: "0bb0c0de", parentId: id, message: user("and then?") });
		writeFileSync(b, `${text.replace(last, edited)}${child}\n`);
		const result = await cli(["merge", a, b, "-o", join(tempDir(), "m.jsonl"), "--json"]);
		assert.equal(result.code, 0, result.stderr);
		const report = JSON.parse(result.stdout);
		assert.equal(report.conflicts.length, 1);
		const [conflict] = report.conflicts;
		assert.deepEqual(conflict, { id, newId: conflict.newId, renamedReferences: 1, a, b });
		const merged = await Session.open(report.location);
		assert.equal(merged.getEntry(conflict.newId)?.type, "message");
		assert.equal(merged.getEntry("0bb0c0de")?.parentId, conflict.newId, "B's child follows B's version");
		assert.equal(JSON.stringify(merged.getEntry(id)), JSON.stringify(JSON.parse(last)), "A's version keeps the id");
		const plain = await cli(["merge", a, b, "-o", join(tempDir(), "m2.jsonl")]);
		assert.match(
			plain.stderr,
			new RegExp(
				`warning: entry ${id} differs between ${a} and ${b}: B's version is kept as ${conflict.newId} \\(1 record of B naming it follow it\\)`,
			),
		);
	});

	test("the same session in a file and in SQLite: merged into the database under a name of its own, never into B's row", {
		skip: SQLITE_SKIP,
	}, async () => {
		const { a, b, leafB } = await twoCopies();
		const db = `sqlite:${join(tempDir(), "agents.db")}`;
		const [url] = lines((await ok(["copy", b, db])).stdout) as [string];
		const intoB = await cli(["merge", a, url, "-o", db]);
		assert.equal(intoB.code, 1);
		assert.match(intoB.stderr, /the output is B \(sqlite:.*\): merge never writes to the sessions it merges/);
		const out = `${collectionAt(db).location}#merged`;
		const merged = await ok(["merge", a, url, "-o", out]);
		assert.equal(merged.stdout, `${out}\n`);
		const fromFiles = join(tempDir(), "files.jsonl");
		await ok(["merge", a, b, "-o", fromFiles]);
		assert.deepEqual(await recordTexts(out), await recordTexts(fromFiles), "the same union as from the two files");
		assert.equal((await held(out)).leaf, leafB);
	});

	test("copies of different sessions: refused, unless --force", async () => {
		const { file: a } = await startSession();
		const { file: b } = await startSession();
		const refused = await cli(["merge", a, b, "-o", join(tempDir(), "m.jsonl")]);
		assert.equal(refused.code, 1);
		assert.match(refused.stderr, /not copies of one session: .* is session [\w-]+, .* is session [\w-]+ \(--force/);
		const forced = await cli(["merge", a, b, "-o", join(tempDir(), "m.jsonl"), "--force"]);
		assert.equal(forced.code, 0, forced.stderr);
		assert.match(forced.stderr, /merged two sessions/);
	});
});

/** Each record's JSON text, in order, as a store reads it. */
async function recordTexts(location: string): Promise<string[]> {
	const store = storeAt(location);
	try {
		return (await readAllRecords(store)).map((record) => JSON.stringify(record));
	} finally {
		await store.close();
	}
}

/** The leaf and the records by id of a session: what "the same session" compares when the order may differ. */
async function held(location: string): Promise<{ leaf: string | null; records: Map<string, string> }> {
	const texts = await recordTexts(location);
	const records = new Map(texts.slice(1).map((text) => [JSON.parse(text).id as string, text]));
	const session = await Session.open(location);
	const leaf = session.getLeafId();
	await session.close();
	return { leaf, records };
}

/** Runs the CLI and insists on success. */
async function ok(args: string[], input?: string): Promise<{ stdout: string; stderr: string }> {
	const result = await cli(args, input === undefined ? {} : { input });
	assert.equal(result.code, 0, `session-tree ${args.join(" ")}: ${result.stderr}`);
	return result;
}

describe("copy --update", () => {
	test("file → SQLite → PostgreSQL and back: each grows in turn, and every store ends with the same lines", {
		skip: SQLITE_SKIP,
	}, async (t) => {
		if (!pg) t.diagnostic(`${PG_SKIP_MESSAGE}: SQLite only`);
		const { file, a1 } = await startSession();
		const dir = dirname(file);
		const db = `sqlite:${join(tempDir(), "agents.db")}`;
		const [sqliteUrl] = lines((await ok(["copy", file, db])).stdout) as [string];
		const pgUrl = pg ? (lines((await ok(["copy", sqliteUrl, pg.url])).stdout)[0] as string) : undefined;

		// The file grows and its leaf moves back without an append: the stores lag behind.
		const side = await Session.open(file, { now });
		await side.appendMessage(assistant("A prefix tree."));
		await side.branch(a1);
		await side.close();
		const whole = await ok(["copy", "--update", dir, db]);
		assert.match(whole.stderr, /completed: 2 records appended/);
		if (pgUrl) await ok(["copy", "--update", sqliteUrl, pgUrl]);

		// Then the farthest store grows: an append and a branch there, carried back to the file.
		const far = pgUrl ?? sqliteUrl;
		await ok(["append", far], `${JSON.stringify(user("How do B-trees split?"))}\n`);
		await ok(["branch", far, a1]);
		if (pgUrl) await ok(["copy", "--update", pgUrl, db]);
		await ok(["copy", "--update", sqliteUrl, file]);

		const expected = readFileSync(file, "utf8").trimEnd().split("\n");
		assert.equal(expected.length, 8, "header, 3 + 1 + 1 entries, 2 leaf records");
		for (const location of [sqliteUrl, ...(pgUrl ? [pgUrl] : [])]) {
			assert.deepEqual(await recordTexts(location), expected, `${location} holds the file's lines`);
		}
		const back = join(tempDir(), "back.jsonl");
		await ok(["copy", pgUrl ?? sqliteUrl, back]);
		assert.deepEqual(readFileSync(back), readFileSync(file), "a copy back to a file is byte-identical");
		const same = await ok(["copy", "--update", file, db]);
		assert.match(same.stderr, /already holds this session/);
		// The other way round, once the file is ahead: nothing written, and the message says which way to copy.
		await ok(["append", file], `${JSON.stringify(user("One more."))}\n`);
		const before = readFileSync(file);
		const ahead = await cli(["copy", "--update", sqliteUrl, file]);
		assert.equal(ahead.code, 1);
		assert.match(
			ahead.stderr,
			/holds 1 entry the source lacks \([0-9a-f]{8}…\) and every record of it: it is ahead; nothing written\. `session-tree copy --update /,
		);
		assert.deepEqual(readFileSync(file), before);
	});

	test("a session updated out of order (a merge's copy), in SQLite and PostgreSQL; refused when both grew", {
		skip: SQLITE_SKIP,
	}, async (t) => {
		if (!pg) t.diagnostic(`${PG_SKIP_MESSAGE}: SQLite only`);
		const { file: a } = await startSession();
		const b = join(tempDir(), "b.jsonl");
		copyFileSync(a, b);
		for (const [file, text] of [
			[a, "from A"],
			[b, "from B"],
		] as const) {
			const side = await Session.open(file, { now });
			await side.appendMessage(assistant(text));
			await side.close();
		}
		const db = `sqlite:${join(tempDir(), "agents.db")}`;
		const [sqliteUrl] = lines((await ok(["copy", b, db])).stdout) as [string];
		const pgUrl = pg ? (lines((await ok(["copy", b, pg.url])).stdout)[0] as string) : undefined;
		const merged = join(tempDir(), "merged.jsonl");
		await ok(["merge", a, b, "-o", merged, "--leaf", "a"]);

		// B's records are not the first of the merge's: `copy` alone refuses, `--update` appends what each lacks.
		const plain = await cli(["copy", merged, sqliteUrl]);
		assert.equal(plain.code, 1);
		assert.match(plain.stderr, /holds a different session/);
		for (const target of [b, sqliteUrl, ...(pgUrl ? [pgUrl] : [])]) {
			const updated = await ok(["copy", "--update", merged, target]);
			// "from A", then the merge's leaf record (to A's leaf): no leaf record of its own is needed.
			assert.match(updated.stderr, /updated: 2 records appended\n/);
			assert.equal(updated.stdout, `${target === b ? b : target}\n`);
		}
		const want = await held(merged);
		for (const target of [b, sqliteUrl, ...(pgUrl ? [pgUrl] : [])]) {
			assert.deepEqual(await held(target), want, `${target}: the merge's records and leaf`);
			const again = await ok(["copy", "--update", merged, target]);
			assert.match(again.stderr, /already holds this session/);
		}

		// B's leaf moves (a leaf record only B holds: a move, no entry): the update moves it back.
		const moving = await Session.open(b, { now });
		const q1 = moving.getEntries()[0]?.id as string;
		await moving.branch(q1);
		await moving.close();
		assert.equal((await held(b)).leaf, q1);
		const moved = await ok(["copy", "--update", merged, b]);
		assert.match(moved.stderr, /updated: 1 record appended \(the last one moves its leaf to the source's\)/);
		assert.equal((await held(b)).leaf, want.leaf);

		// B grows again, the merge too: both grew, nothing is written, and merge is named.
		appendFileSync(
			b,
			`${JSON.stringify({ type: "message", id: "0bb0c0de", parentId: want.leaf, timestamp: now().toISOString(), message: user("more") })}\n`,
		);
		const side = await Session.open(merged, { now });
		await side.appendMessage(user("and more"));
		await side.close();
		const before = readFileSync(b);
		const refused = await cli(["copy", "--update", merged, b]);
		assert.equal(refused.code, 1);
		assert.match(
			refused.stderr,
			/holds 1 entry the source lacks \(0bb0c0de…\): both copies grew; nothing written\. Join them with `session-tree merge/,
		);
		assert.deepEqual(readFileSync(b), before);
		const whole = await cli(["copy", "--update", dirname(merged), collectionAt(db).location]);
		assert.equal(whole.code, 0, whole.stderr);
		assert.match(whole.stderr, /updated: 1 record appended/);
	});
});
