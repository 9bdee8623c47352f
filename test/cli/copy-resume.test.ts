/**
 * An interrupted `copy`: the real CLI copying a 30,000–50,000-entry session is SIGKILLed once the
 * target holds some but not all of it, then run again (it completes the copy: exit 0, the
 * target equals the source record for record), and a third time (already there). Into a
 * directory (where the unfinished copy is a hidden `.NAME.partial` that nothing lists), SQLite
 * (skipped without better-sqlite3, see test/support/sqlite.ts) and PostgreSQL (skipped without a
 * server, see test/support/postgres.ts). A partial copy that holds something else is refused
 * and left as it is.
 */

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { readAllRecords } from "../../src/storage/batches.js";
import { collectionAt, storeAt } from "../../src/storage/locations.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-store.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { BIN, cli, lines, REPO, removeTempDirs, tempDir } from "./helpers.js";

after(() => {
	closeSqliteDatabases();
	removeTempDirs();
});

const server = await postgresServer();
const pg = "url" in server ? testSchema(server.url, "copy_resume") : undefined;

/**
 * Entries of the session copied: enough that a copy is caught part way on any machine (the
 * kill comes a few appends in), few enough to keep the test short. PostgreSQL, the slowest
 * target by far, gets fewer.
 */
const ENTRIES = { directory: 50_000, sqlite: 50_000, postgres: 30_000 };
/** A kill once the target holds about this many records: a few appends in (the copy appends 1,000 at a time). */
const SOME = 2_000;

interface Source {
	file: string;
	id: string;
	/** Its lines, without the newline after the last: what a copy must hold, line for line. */
	lines: string[];
	/** Bytes of its first {@link SOME} lines. */
	someBytes: number;
	/** The name pi gives its file: `<timestamp>_<id>.jsonl`. */
	fileName: string;
}

/** A session of `entries` messages in a chain, written as pi writes it. */
function bigSession(dir: string, id: string, entries: number): Source {
	const timestamp = "2026-11-30T07:04:10.123Z";
	const out = [JSON.stringify({ type: "session", version: 3, id, timestamp, cwd: "/p" })];
	let parent: string | null = null;
	for (let i = 0; i < entries; i++) {
		const entryId = (0x10000000 + i).toString(16);
		const role = i % 2 === 0 ? "user" : "assistant";
		const message = { role, content: `message ${i} of a long session`, timestamp: 1748768400000 + i };
		out.push(JSON.stringify({ type: "message", id: entryId, parentId: parent, timestamp, message }));
		parent = entryId;
	}
	const file = join(dir, "source.jsonl");
	writeFileSync(file, `${out.join("\n")}\n`);
	const someBytes = out.slice(0, SOME).reduce((sum, line) => sum + line.length + 1, 0);
	return { file, id, lines: out, someBytes, fileName: `2026-11-30T07-04-10-123Z_${id}.jsonl` };
}

/** `session-tree copy SRC DST` as a child process. */
function startCopy(source: string, target: string): { child: ChildProcess; exited: Promise<void> } {
	const child = spawn(process.execPath, [BIN, "copy", source, target], { cwd: REPO, stdio: "ignore" });
	const exited = new Promise<void>((done) => child.on("close", () => done()));
	return { child, exited };
}

/**
 * Starts the copy and SIGKILLs it as soon as `written()` (how many bytes the target holds)
 * passes `bytes`. Fails when the copy ends first: then nothing was interrupted.
 */
async function copyAndKill(source: string, target: string, bytes: number, written: () => Promise<number>) {
	const { child, exited } = startCopy(source, target);
	let done = false;
	void exited.then(() => {
		done = true;
	});
	while (!done) {
		if ((await written().catch(() => 0)) >= bytes) break;
		await sleep(5);
	}
	assert.equal(done, false, "the copy ended before it could be interrupted");
	child.kill("SIGKILL");
	await exited;
	assert.equal(child.signalCode, "SIGKILL");
}

/** The size of the first of `files` that exists, or 0. */
function sizeOfAny(...files: string[]): number {
	for (const file of files) {
		const stats = statSync(file, { throwIfNoEntry: false });
		if (stats) return stats.size;
	}
	return 0;
}

/** The bytes of the session `location` a database's listing names (0 while it has none). */
async function listedBytes(database: string, location: string): Promise<number> {
	const collection = collectionAt(database);
	try {
		for await (const listing of collection.list()) if (listing.location === location) return listing.bytes ?? 0;
		return 0;
	} finally {
		await collection.close?.();
	}
}

/** The records a database session holds, each as its JSON text. */
async function recordLines(location: string): Promise<string[]> {
	const store = storeAt(location);
	try {
		return (await readAllRecords(store)).map((record) => JSON.stringify(record));
	} finally {
		await store.close();
	}
}

/** The second run completes the copy (naming its location and how many records it appended); the third finds it there. */
async function rerunTwice(source: Source, target: string, location: string): Promise<void> {
	const second = await cli(["copy", source.file, target]);
	assert.equal(second.code, 0, second.stderr);
	assert.deepEqual(lines(second.stdout), [location]);
	assert.match(second.stderr, /completed: [\d,]+ records? appended/);
	const third = await cli(["copy", source.file, target]);
	assert.equal(third.code, 0, third.stderr);
	assert.equal(third.stdout, "");
	assert.match(third.stderr, /already holds this session/);
}

describe("an interrupted copy is completed by running it again", () => {
	test("into a directory: hidden while unfinished, then the same bytes under pi's name", {
		timeout: 120_000,
	}, async () => {
		const source = bigSession(tempDir(), "0196aa00-0000-7000-8000-000000000001", ENTRIES.directory);
		const out = tempDir();
		const file = join(out, source.fileName);
		const partial = join(out, `.${source.fileName}.partial`);
		await copyAndKill(source.file, out, source.someBytes, async () => sizeOfAny(partial, file));
		// Interrupted: no session file in the directory, for `ls` or for pi; the copy so far is the partial file.
		const listed = await cli(["ls", out, "--json"]);
		assert.equal(listed.code, 0, listed.stderr);
		assert.deepEqual(JSON.parse(listed.stdout), [], "an unfinished copy is not listed");
		assert.equal(existsSync(file), false, "nothing under the session's name yet");
		const held = readFileSync(partial, "utf8").split("\n").length - 1;
		assert.ok(held >= 1 && held < source.lines.length, `the partial copy holds ${held} lines`);

		await rerunTwice(source, out, file);
		assert.deepEqual(readFileSync(file), readFileSync(source.file), "byte-identical");
		assert.equal(statSync(file).mode & 0o777, 0o600);
		assert.deepEqual(
			readdirSync(out).filter((name) => !name.endsWith(".torn")),
			[source.fileName],
			"the partial file is gone (only a torn line cut off by the completion may be kept beside it)",
		);
	});

	for (const kind of ["sqlite", "postgres"] as const) {
		test(`into ${kind === "sqlite" ? "SQLite" : "PostgreSQL"}: the same records, as the same JSON, in order`, {
			timeout: 120_000,
			skip: kind === "sqlite" ? SQLITE_SKIP : !pg ? "no PostgreSQL server" : false,
		}, async () => {
			const dir = tempDir();
			const source = bigSession(dir, `0196aa00-0000-7000-8000-00000000000${kind === "sqlite" ? 2 : 3}`, ENTRIES[kind]);
			const database = kind === "sqlite" ? `sqlite:${join(dir, "copies.db")}` : (pg?.url as string);
			const location = `${collectionAt(database).location}#${source.id}`;
			// A listing's bytes count the records' text without newlines; half of SOME lines is well past the header.
			await copyAndKill(source.file, database, source.someBytes / 2, () => listedBytes(database, location));
			const held = (await recordLines(location)).length;
			assert.ok(held >= 1 && held < source.lines.length, `the interrupted copy holds ${held} records`);

			await rerunTwice(source, database, location);
			const copied = await recordLines(location);
			assert.equal(copied.length, source.lines.length, "every record");
			for (const [i, line] of source.lines.entries()) {
				if (copied[i] !== line) assert.fail(`record ${i + 1} differs: ${copied[i]?.slice(0, 120)}`);
			}
		});
	}

	test("a partial copy that holds something else: exit 1, left as it is, nothing under the session's name", async () => {
		const dir = tempDir();
		const source = join(dir, "small.jsonl");
		const header = JSON.stringify({
			type: "session",
			version: 3,
			id: "0196aa00-0000-7000-8000-000000000004",
			timestamp: "2026-11-30T07:04:10.123Z",
			cwd: "/p",
		});
		const entry = (id: string, text: string) =>
			JSON.stringify({
				type: "message",
				id,
				parentId: null,
				timestamp: "2026-11-30T07:04:10.123Z",
				message: { role: "user", content: text, timestamp: 1 },
			});
		writeFileSync(source, `${header}\n${entry("aaaa0001", "one")}\n${entry("aaaa0002", "two")}\n`);
		const out = tempDir();
		const name = "2026-11-30T07-04-10-123Z_0196aa00-0000-7000-8000-000000000004.jsonl";
		const partial = join(out, `.${name}.partial`);
		const other = `${header}\n${entry("aaaa0001", "not one")}\n`;
		writeFileSync(partial, other, { mode: 0o600 });
		const result = await cli(["copy", source, out]);
		assert.equal(result.code, 1, result.stderr);
		assert.match(result.stderr, /holds a different session/);
		assert.equal(result.stdout, "");
		assert.equal(readFileSync(partial, "utf8"), other, "the partial file is left as it was");
		assert.equal(existsSync(join(out, name)), false);
	});
});
