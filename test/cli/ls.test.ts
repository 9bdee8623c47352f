/** `session-tree ls` on a directory of generated sessions laid out like pi's. */

import assert from "node:assert/strict";
import { mkdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type LsRow, lsCommand } from "../../src/cli/commands/ls.js";
import { Session } from "../../src/session.js";
import { buildLayout, clock, type Layout, OTHER, PROJECT, user } from "../catalog/layout.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { cli, lines, removeTempDirs, tempDir, userLine } from "./helpers.js";

type Row = LsRow;

const ESC = "\u001b";

let layout: Layout;
let env: Record<string, string>;

before(async () => {
	// The test runner sets FORCE_COLOR for its children when it runs on a terminal.
	delete process.env.FORCE_COLOR;
	delete process.env.NO_COLOR;
	layout = await buildLayout(tempDir());
	env = { PI_CODING_AGENT_DIR: layout.agentDir };
});
after(removeTempDirs);

async function lsJson(args: string[]): Promise<{ rows: Row[]; stderr: string }> {
	const result = await cli(["ls", ...args, "--json"], { env });
	assert.equal(result.code, 0, result.stderr);
	return { rows: JSON.parse(result.stdout) as Row[], stderr: result.stderr };
}

describe("ls", () => {
	test("--cwd lists the project's sessions newest first, by the time their file last changed", async () => {
		const { rows } = await lsJson(["--cwd", PROJECT]);
		assert.deepEqual(
			rows.map((row) => row.file),
			[layout.empty, layout.branched, layout.named, layout.damaged],
		);
		// The layout sets each file's mtime (test/catalog/layout.ts).
		assert.deepEqual(
			rows.map((row) => row.modified),
			["2025-03-03T08:00:00.000Z", "2025-03-02T09:30:00.000Z", "2025-03-01T10:05:00.000Z", "2025-02-10T08:01:00.000Z"],
		);
		// pi's time: no messages, the header's time; otherwise the last user/assistant message's timestamp.
		assert.deepEqual(
			rows.map((row) => row.lastActivity),
			["2025-03-03T08:00:00.000Z", "2025-03-02T09:30:00.000Z", "2025-03-01T10:05:00.000Z", "2025-02-10T08:01:00.000Z"],
		);
	});

	test("MODIFIED is the file's mtime, not the messages' timestamps: a file written now is listed first", async () => {
		const dir = tempDir();
		// Old message times, written now: pi's time says a year ago, the file says now.
		const fresh = await Session.create({ dir, cwd: PROJECT, now: clock("2024-01-01T00:00:00.000Z") });
		await fresh.appendMessage(user("written just now", "2024-01-01T00:01:00.000Z"));
		await fresh.close();
		// Recent message times in a file last written long ago.
		const stale = await Session.create({ dir, cwd: PROJECT, now: clock("2025-06-01T00:00:00.000Z") });
		await stale.appendMessage(user("written long ago", "2025-06-01T00:01:00.000Z"));
		await stale.close();
		utimesSync(stale.file as string, new Date("2025-06-02T00:00:00.000Z"), new Date("2025-06-02T00:00:00.000Z"));
		const before = Date.now();
		const { rows } = await lsJson([dir]);
		assert.deepEqual(
			rows.map((row) => row.file),
			[fresh.file, stale.file],
		);
		const [first, second] = rows as [Row, Row];
		const mtime = statSync(fresh.file as string).mtime.toISOString();
		assert.equal(first.modified, mtime);
		assert.ok(Math.abs(Date.parse(first.modified) - before) < 60_000, first.modified);
		assert.equal(first.lastActivity, "2024-01-01T00:01:00.000Z");
		assert.equal(second.modified, "2025-06-02T00:00:00.000Z");
		assert.equal(second.lastActivity, "2025-06-01T00:01:00.000Z");
		const table = await cli(["ls", dir], { env });
		assert.match(lines(table.stdout)[1] ?? "", /^(just now|\d+s ago) /, table.stdout);
	});

	test("--json rows have the documented shape and agree with Session.open", async () => {
		const { rows } = await lsJson(["--cwd", PROJECT]);
		for (const row of rows) {
			assert.deepEqual(Object.keys(row), [
				"file",
				"id",
				"cwd",
				"name",
				"firstMessage",
				"modified",
				"lastActivity",
				"created",
				"entries",
				"branches",
				"bytes",
				"parentSession",
			]);
			const session = await Session.open(row.file, { lenient: true });
			assert.equal(row.id, session.getSessionId());
			assert.equal(row.cwd, PROJECT);
			assert.equal(row.entries, session.entryCount, row.file);
			assert.equal(row.branches, session.listBranches().length, row.file);
			assert.equal(row.name, session.getSessionName() ?? null);
			assert.equal(row.created, session.getHeader().timestamp);
			assert.equal(row.parentSession, null);
		}
		const byFile = new Map(rows.map((row) => [row.file, row]));
		const named = byFile.get(layout.named) as Row;
		assert.equal(named.name, "B-tree notes");
		assert.equal(named.firstMessage, "What is a B-tree?");
		assert.equal(named.entries, 4);
		assert.equal(named.branches, 1);
		const branched = byFile.get(layout.branched) as Row;
		assert.equal(branched.name, null);
		assert.equal(branched.firstMessage, "How do tries work?\nExplain briefly.");
		assert.equal(branched.entries, 5);
		assert.equal(branched.branches, 2);
		const empty = byFile.get(layout.empty) as Row;
		assert.equal(empty.firstMessage, null);
		assert.equal(empty.entries, 0);
		assert.equal(empty.branches, 0);
		assert.equal(empty.modified, empty.created);
	});

	test("bad files are warnings on stderr: non-sessions skipped, damaged sessions listed leniently", async () => {
		const result = await cli(["ls", "--cwd", PROJECT, "--json"], { env });
		assert.equal(result.code, 0);
		const warnings = lines(result.stderr);
		assert.equal(warnings.length, 2, result.stderr);
		assert.ok(
			warnings.some(
				(line) =>
					line.startsWith(`session-tree: warning: ${layout.notSession}: not a session file`) &&
					line.endsWith("(skipped)"),
			),
			result.stderr,
		);
		assert.ok(
			warnings.some((line) => line.startsWith(`session-tree: warning: ${layout.damaged}: damaged: line 3: `)),
			result.stderr,
		);
		assert.doesNotMatch(result.stderr, /notes\.txt/);
		const rows = JSON.parse(result.stdout) as Row[];
		assert.ok(!rows.some((row) => row.file === layout.notSession));
		const damaged = rows.find((row) => row.file === layout.damaged) as Row;
		assert.equal(damaged.entries, 2);
		assert.equal(damaged.firstMessage, "Damaged but readable");
	});

	test("the default is the project of the current directory", async () => {
		const root = tempDir();
		const project = join(root, "work");
		mkdirSync(project);
		const agentDir = join(root, "agent");
		const session = await Session.create({ agentDir, cwd: project });
		await session.appendMessage({ role: "user", content: "here", timestamp: Date.now() });
		await session.close();
		const result = await cli(["ls", "--json"], { env: { PI_CODING_AGENT_DIR: agentDir }, cwd: project });
		assert.equal(result.code, 0, result.stderr);
		const rows = JSON.parse(result.stdout) as Row[];
		assert.deepEqual(
			rows.map((row) => row.file),
			[session.file],
		);
	});

	test("--all lists every project; the fork names its parent", async () => {
		const { rows } = await lsJson(["--all"]);
		assert.equal(rows.filter((row) => row.cwd === PROJECT).length, 4);
		const other = rows.filter((row) => row.cwd === OTHER);
		assert.deepEqual(other.map((row) => row.file).sort(), [layout.otherSession, layout.fork].sort());
		const fork = other.find((row) => row.file === layout.fork) as Row;
		assert.equal(fork.parentSession, layout.otherSession);
		assert.equal(fork.name, "Forked work");
		const times = rows.map((row) => Date.parse(row.modified));
		assert.deepEqual(
			times,
			[...times].sort((a, b) => b - a),
		);
	});

	test("DIR: a project directory, or a sessions root with project subdirectories", async () => {
		const project = await lsJson([layout.otherDir]);
		assert.deepEqual(project.rows.map((row) => row.file).sort(), [layout.otherSession, layout.fork].sort());
		const root = await lsJson([join(layout.agentDir, "sessions")]);
		assert.equal(root.rows.length, 6);
	});

	test("an empty or missing project directory lists nothing and says so", async () => {
		const result = await cli(["ls", "--cwd", "/nowhere/at/all"], { env });
		assert.equal(result.code, 0);
		assert.equal(result.stdout, "");
		assert.match(result.stderr, /no sessions in .*--nowhere-at-all--/);
		const json = await lsJson(["--cwd", "/nowhere/at/all"]);
		assert.deepEqual(json.rows, []);
	});

	test("human output: a table, names or quoted first messages, the file below each row", async () => {
		const result = await cli(["ls", "--cwd", PROJECT], { env });
		assert.equal(result.code, 0, result.stderr);
		const out = lines(result.stdout);
		assert.match(out[0] as string, /^MODIFIED +ENTRIES +BRANCHES +SIZE +NAME \/ FIRST MESSAGE$/);
		assert.equal(out.length, 1 + 2 * 4);
		assert.match(out[1] as string, /^\d+\w+ ago \(2025-03-03\) +0 +0 +\d+ B +\(no messages\)$/);
		assert.match(out[2] as string, new RegExp(`^ {4}${layout.empty}$`));
		assert.match(
			out[3] as string,
			/^\d+\w+ ago \(2025-03-02\) +5 +2 +[\d.]+ KiB +"How do tries work\? Explain briefly\."$/,
		);
		assert.match(out[5] as string, / +4 +1 +[\d.]+ KiB +B-tree notes$/);
		assert.ok(!result.stdout.includes(ESC), "no colours when piped");
		assert.doesNotMatch(out[0] as string, /CWD/, "one project: no CWD column");
	});

	test("human output with more than one cwd has a CWD column", async () => {
		const result = await cli(["ls", "--all"], { env });
		assert.equal(result.code, 0, result.stderr);
		const out = lines(result.stdout);
		assert.match(out[0] as string, /SIZE +CWD +NAME/);
		assert.ok(out.some((line) => line.includes(`${OTHER}  `) && line.endsWith("Forked work")));
	});

	test("a long first message is cut to --width", async () => {
		const root = tempDir();
		const session = await Session.create({ dir: root, cwd: PROJECT });
		await session.appendMessage({ role: "user", content: `${"word ".repeat(100)}end`, timestamp: Date.now() });
		await session.close();
		const result = await cli(["ls", root, "--width", "80"], { env });
		const row = lines(result.stdout)[1] as string;
		assert.equal(row.length, 80);
		assert.ok(row.endsWith('…"'));
	});

	test("FORCE_COLOR colours the table; NO_COLOR does not", async () => {
		const forced = await cli(["ls", "--cwd", PROJECT], { env: { ...env, FORCE_COLOR: "1" } });
		assert.ok(forced.stdout.includes(`${ESC}[1mB-tree notes${ESC}[22m`), forced.stdout);
		const none = await cli(["ls", "--cwd", PROJECT], { env: { ...env, NO_COLOR: "1" } });
		assert.ok(!none.stdout.includes(ESC));
	});

	test("usage errors", async () => {
		for (const args of [
			["ls", "--all", layout.projectDir],
			["ls", "--cwd", PROJECT, "--all"],
			["ls", "--cwd", PROJECT, layout.projectDir],
			["ls", "--bogus"],
			["ls", "a", "b"],
			["ls", "--width", "5"],
		]) {
			const result = await cli(args, { env });
			assert.equal(result.code, 2, args.join(" "));
			assert.match(result.stderr, /^session-tree: /);
		}
	});

	test("a missing DIR or a file as DIR fails with exit 1", async () => {
		const missing = await cli(["ls", join(layout.agentDir, "nope")], { env });
		assert.equal(missing.code, 1);
		assert.match(missing.stderr, /nope: no such directory/);
		const file = await cli(["ls", layout.named], { env });
		assert.equal(file.code, 1);
		assert.match(file.stderr, /not a directory/);
	});

	test("a database: MODIFIED is the row's time of its last append, newest first", { skip: SQLITE_SKIP }, async () => {
		const db = `sqlite:${join(tempDir(), "agents.db")}`;
		const made = async () => {
			const result = await cli(["new", "--dir", db, "--cwd", PROJECT]);
			assert.equal(result.code, 0, result.stderr);
			return result.stdout.trim();
		};
		const append = async (url: string, text: string, iso: string) => {
			const result = await cli(["append", url], { input: `${userLine(text, Date.parse(iso))}\n` });
			assert.equal(result.code, 0, result.stderr);
		};
		const a = await made();
		await append(a, "old question", "2020-01-01T00:00:00.000Z");
		const b = await made();
		await append(b, "recent question", "2025-01-01T00:00:00.000Z");
		const before = Date.now();
		// Appended last, with the oldest message time: listed first.
		await append(a, "another old one", "2020-01-02T00:00:00.000Z");
		const { rows } = await lsJson([db]);
		assert.deepEqual(
			rows.map((row) => [row.file, row.lastActivity]),
			[
				[a, "2020-01-02T00:00:00.000Z"],
				[b, "2025-01-01T00:00:00.000Z"],
			],
		);
		const modified = Date.parse((rows[0] as Row).modified);
		assert.ok(modified >= before - 5 && modified <= Date.now(), (rows[0] as Row).modified);
		assert.ok(Date.parse((rows[1] as Row).modified) <= modified);
	});

	test("memory: lists the memory sessions of this process (in-process)", async () => {
		const session = await Session.create({
			location: "memory:ls-test",
			cwd: PROJECT,
			now: clock("2025-08-01T00:00:00.000Z"),
		});
		await session.appendMessage(user("kept in memory", "2025-08-01T00:01:00.000Z"));
		const out: string[] = [];
		const err: string[] = [];
		const io = { stdin: process.stdin, out: (text: string) => out.push(text), err: (text: string) => err.push(text) };
		await lsCommand.run({ values: { json: true }, positionals: ["memory:"], io });
		assert.deepEqual(err, []);
		const rows = JSON.parse(out.join("")) as Row[];
		assert.deepEqual(
			rows.map((row) => [row.file, row.firstMessage, row.lastActivity, row.entries]),
			[["memory:ls-test", "kept in memory", "2025-08-01T00:01:00.000Z", 1]],
		);
		// The memory store's time of its last write.
		assert.ok(Math.abs(Date.parse(rows[0]?.modified ?? "") - Date.now()) < 60_000);
		await session.close();
	});

	test("--help has a description and examples", async () => {
		const result = await cli(["ls", "--help"]);
		assert.equal(result.code, 0);
		assert.match(result.stdout, /^Usage: session-tree ls \[DIR\|STORE\]/);
		assert.match(result.stdout, /Examples:\n {2}session-tree ls\n/);
		assert.match(result.stdout, /PI_CODING_AGENT_DIR/);
	});

	test("1,000 generated sessions: one row each", async (t) => {
		const root = tempDir();
		const dir = join(root, "sessions", "--home-me-many--");
		mkdirSync(dir, { recursive: true });
		const base = Date.parse("2025-01-01T00:00:00.000Z");
		for (let i = 0; i < 1000; i++) {
			const stamp = new Date(base + i * 60_000).toISOString();
			const id = `0000${String(i).padStart(4, "0")}-0000-7000-8000-000000000000`;
			const records: object[] = [{ type: "session", version: 3, id, timestamp: stamp, cwd: "/home/me/many" }];
			let parentId: string | null = null;
			for (let k = 0; k < 20; k++) {
				const entryId = `${i.toString(16).padStart(4, "0")}${k.toString(16).padStart(4, "0")}`;
				const message =
					k % 2 === 0
						? { role: "user", content: `question ${k} of session ${i}`, timestamp: base + i * 60_000 + k }
						: { role: "assistant", content: [{ type: "text", text: `answer ${k}` }], timestamp: base + i * 60_000 + k };
				records.push({ type: "message", id: entryId, parentId, timestamp: stamp, message });
				parentId = entryId;
			}
			const file = join(dir, `${stamp.replace(/[:.]/g, "-")}_${id}.jsonl`);
			writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
			// ls sorts by the file's time: give each file its own, a minute apart.
			utimesSync(file, new Date(stamp), new Date(stamp));
		}
		const started = performance.now();
		const result = await cli(["ls", "--all", "--json"], { env: { PI_CODING_AGENT_DIR: root } });
		const elapsed = performance.now() - started;
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stderr, "");
		const rows = JSON.parse(result.stdout) as Row[];
		assert.equal(rows.length, 1000);
		assert.equal(rows[0]?.firstMessage, "question 0 of session 999");
		assert.ok(rows.every((row) => row.entries === 20 && row.branches === 1));
		t.diagnostic(`ls --all --json over 1,000 files of 20 entries: ${elapsed.toFixed(0)} ms (process start included)`);
	});
});
