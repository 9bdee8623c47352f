/**
 * The built CLI on a session whose tool result's `details` are 100,000 nested arrays (a file
 * `validate` passed before): every command either reads it as damage (strict: exit 1 with one
 * clear line naming the file, the line and the path; `--lenient`: a warning and the rest of
 * the session) or refuses it, never with a stack trace; no command leaves a session file
 * holding only a header. docs/durability.md, "Nesting".
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { postgresServer, query, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { BIN, type CliResult, cli, lines, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

const DEEP = 100_000;
const TS = "2025-01-01T00:00:00.000Z";
const SESSION_ID = "0195f3c2-0000-7000-8000-000000000002";
const HEADER = JSON.stringify({ type: "session", version: 3, id: SESSION_ID, timestamp: TS, cwd: "/p" });
const message = (id: string, parentId: string | null, body: string) =>
	`{"type":"message","id":"${id}","parentId":${parentId === null ? "null" : `"${parentId}"`},"timestamp":"${TS}","message":${body}}`;
const user = (id: string, parentId: string | null, text: string) =>
	message(id, parentId, `{"role":"user","content":${JSON.stringify(text)},"timestamp":1735689600000}`);
const TOOL_CALL = message(
	"a2",
	"a1",
	'{"role":"assistant","content":[{"type":"toolCall","id":"call1","name":"bash","arguments":{"command":"ls"}}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1735689600000}',
);
const DEEP_RESULT = message(
	"a3",
	"a2",
	`{"role":"toolResult","toolCallId":"call1","toolName":"bash","content":[{"type":"text","text":"ok"}],"details":${"[".repeat(DEEP)}${"]".repeat(DEEP)},"isError":false,"timestamp":1735689600000}`,
);

/** A directory holding only `deep.jsonl`: a1 user, a2 tool call, a3 its result (line 4, deep), a4 user. */
function deepSession(): { dir: string; file: string } {
	const dir = tempDir();
	const file = join(dir, "deep.jsonl");
	writeFileSync(
		file,
		`${[HEADER, user("a1", null, "hi"), TOOL_CALL, DEEP_RESULT, user("a4", "a3", "after")].join("\n")}\n`,
	);
	return { dir, file };
}

/** What the strict commands say, for the session of {@link deepSession}. */
const NAMED = (file: string) =>
	new RegExp(
		`^session-tree: ${file}:4: message entry a3 is nested deeper than 1000 levels of arrays and objects at message\\.details\\[0\\]\\[0\\]`,
	);

/** Exit 1 with a clear message: `first` matches the first line of stderr; no stack trace, no internal error. */
function assertRefused(result: CliResult, first: RegExp): void {
	assert.equal(result.code, 1, result.stderr);
	assert.doesNotMatch(result.stderr, /internal error|Maximum call stack|\n\s+at /, result.stderr);
	assert.match(lines(result.stderr)[0] ?? "", first);
}

describe("commands on a session nested 100,000 deep", () => {
	for (const args of [
		["tree"],
		["ctx"],
		["ctx", "--json"],
		["md"],
		["export", "--to", "chatgpt"],
		["export", "--to", "openwebui"],
		["export", "--to", "claude-code"],
	]) {
		test(`${args.join(" ")}: exit 1, one line naming the file, the line and the path`, async () => {
			const { file } = deepSession();
			const result = await cli([...args, file]);
			assertRefused(result, NAMED(file));
			assert.equal(lines(result.stderr).length, 1, result.stderr);
			assert.equal(result.stdout, "");
		});
	}

	test("html: exit 1, one line, no page written", async () => {
		const { dir, file } = deepSession();
		const result = await cli(["html", file, "-o", join(dir, "page.html")]);
		assertRefused(result, NAMED(file));
		assert.deepEqual(readdirSync(dir), ["deep.jsonl"]);
	});

	test("validate: exit 1, the problem listed with its code, line and path", async () => {
		const { file } = deepSession();
		const result = await cli(["validate", file]);
		assert.equal(result.code, 1, result.stderr);
		assert.match(
			result.stdout,
			new RegExp(`${file}:4: INVALID_RECORD: message entry a3 is nested deeper than 1000 levels`),
		);
		assert.doesNotMatch(result.stderr, /internal error|Maximum call stack/);
	});

	for (const args of [["ctx", "--json"], ["md"], ["html", "-o", "-"]]) {
		test(`${args.join(" ")} --lenient: exit 0, a warning naming the line, the rest of the session`, async () => {
			const { file } = deepSession();
			const result = await cli([...args, file, "--lenient"]);
			assert.equal(result.code, 0, result.stderr);
			assert.match(result.stderr, new RegExp(`warning: ${file}:4: message entry a3 is nested deeper than 1000 levels`));
			if (args[0] === "ctx") assert.ok(result.stdout.includes('"after"'), result.stdout);
			else assert.ok(result.stdout.length > 0);
		});
	}

	test("repair: exit 0, backup kept; the repaired file opens strictly without the entry", async () => {
		const { file } = deepSession();
		const before = readFileSync(file);
		const result = await cli(["repair", file]);
		assert.equal(result.code, 0, result.stderr);
		assert.deepEqual(readFileSync(`${file}.bak`), before);
		const path = await cli(["path", file]);
		assert.equal(path.code, 0, path.stderr);
		assert.deepEqual(
			lines(path.stdout).map((line) => line.split(" ")[0]),
			["a1", "a2", "a4"],
		);
	});

	test("ls and search: the session is listed and found", async () => {
		const { dir, file } = deepSession();
		const ls = await cli(["ls", dir]);
		assert.equal(ls.code, 0, ls.stderr);
		assert.ok(ls.stdout.includes(file));
		const search = await cli(["search", "after", dir]);
		assert.equal(search.code, 0, search.stderr);
		assert.match(search.stdout, /a4 {2}user/);
	});

	test("append of a message nested 100,000 deep: exit 1, INVALID_ARGUMENT's message, the file unchanged", async () => {
		const dir = tempDir();
		const file = join(dir, "s.jsonl");
		writeFileSync(file, `${HEADER}\n${user("a1", null, "hi")}\n`);
		const before = readFileSync(file);
		const input = `{"role":"user","content":${"[".repeat(DEEP)}${"]".repeat(DEEP)},"timestamp":1}`;
		const result = await cli(["append", file], { input });
		assertRefused(
			result,
			new RegExp(
				`^session-tree: ${file}: cannot write message entry \\w+: it is nested deeper than 1000 levels .* at message\\.content\\[0\\]\\[0\\].*; nothing was written`,
			),
		);
		assert.deepEqual(readFileSync(file), before);
	});

	test("another agent's transcript with a tool input nested 100,000 deep: ctx --json refuses it, import --lenient skips the line", async () => {
		const dir = tempDir();
		const file = join(dir, "claude.jsonl");
		const base = { sessionId: "cc-1", cwd: "/p", version: "2.0.0", isSidechain: false, userType: "external" };
		const first = JSON.stringify({
			...base,
			type: "user",
			uuid: "u1",
			parentUuid: null,
			timestamp: TS,
			message: { role: "user", content: "hi" },
		});
		const deep = JSON.stringify({
			...base,
			type: "assistant",
			uuid: "u2",
			parentUuid: "u1",
			timestamp: TS,
			message: { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: "DEEP" }] },
		}).replace('"DEEP"', `${"[".repeat(DEEP)}${"]".repeat(DEEP)}`);
		writeFileSync(file, `${first}\n${deep}\n`);
		const ctx = await cli(["ctx", "--json", file]);
		assertRefused(
			ctx,
			new RegExp(
				`^session-tree: ${file}:2: the line is nested deeper than 1000 levels .* at message\\.content\\[0\\]\\.input\\[0\\]`,
			),
		);
		const out = tempDir();
		const imported = await cli(["import", file, "--dir", out, "--lenient"]);
		assert.equal(imported.code, 0, imported.stderr);
		assert.match(imported.stderr, /skipped: .*claude\.jsonl: 2: the line is nested deeper than 1000 levels/);
		assert.equal(readdirSync(out).length, 1);
	});
});

describe("copies of a session nested 100,000 deep", () => {
	test("copy into a directory: exit 1, the reason, nothing in the directory", async () => {
		const { file } = deepSession();
		const target = tempDir();
		const result = await cli(["copy", file, target]);
		assertRefused(result, NAMED(file));
		assert.deepEqual(readdirSync(target), []);
	});

	test("copy into SQLite: exit 1, the reason, no session in the database", { skip: SQLITE_SKIP }, async () => {
		const { dir, file } = deepSession();
		const db = `sqlite:${join(dir, "copy.db")}`;
		const result = await cli(["copy", file, db]);
		assertRefused(result, NAMED(file));
		const listed = await cli(["ls", db]);
		assert.match(listed.stderr, /no sessions in/);
	});

	test("clone and fork: exit 1, the reason, no new file (not even a header)", async () => {
		const { dir, file } = deepSession();
		for (const args of [
			["clone", file],
			["fork", file, "a4"],
		]) {
			const result = await cli(args);
			assertRefused(result, NAMED(file));
			assert.deepEqual(readdirSync(dir), ["deep.jsonl"], args[0]);
		}
	});

	test("clone --lenient: the entry is left out, the clone validates", async () => {
		const { dir, file } = deepSession();
		const result = await cli(["clone", file, "--lenient"]);
		assert.equal(result.code, 0, result.stderr);
		const clone = result.stdout.trim();
		assert.deepEqual(readdirSync(dir).sort(), [clone.split("/").at(-1), "deep.jsonl"].sort());
		const path = await cli(["path", clone]);
		assert.equal(path.code, 0, path.stderr);
		assert.deepEqual(
			lines(path.stdout).map((line) => line.split(" ")[0]),
			["a1", "a2", "a4"],
		);
	});

	test("a clone whose write fails (ulimit -f: EFBIG) leaves no file holding only a header", () => {
		const dir = tempDir();
		const file = join(dir, "big.jsonl");
		const big = (id: string, parentId: string | null) => user(id, parentId, "x".repeat(20_000));
		writeFileSync(file, `${[HEADER, big("b1", null), big("b2", "b1"), big("b3", "b2"), big("b4", "b3")].join("\n")}\n`);
		// 64 KiB: the header fits, the 80 KB of the path do not (Node ignores SIGXFSZ: the write fails with EFBIG).
		const run = spawnSync("bash", ["-c", 'ulimit -f 64 && exec "$0" "$@"', process.execPath, BIN, "clone", file], {
			encoding: "utf8",
		});
		assert.equal(run.status, 1, run.stderr);
		assert.match(run.stderr, /EFBIG/);
		assert.deepEqual(readdirSync(dir), ["big.jsonl"]);
	});
});

const server = await postgresServer();
if ("skip" in server) {
	test("copy of a session nested 100,000 deep into PostgreSQL", { skip: server.skip }, () => {});
} else {
	describe("copy of a session nested 100,000 deep into PostgreSQL", () => {
		const { schema, url } = testSchema(server.url, "depth_cli");
		test("exit 1, the reason, no session row", async () => {
			const { file } = deepSession();
			const result = await cli(["copy", file, url]);
			assertRefused(result, NAMED(file));
			const tables = await query<{ n: string }>(
				server.url,
				"SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'sessions'",
				[schema],
			);
			if (tables[0]?.n !== "0") {
				assert.deepEqual(await query(server.url, `SELECT name FROM "${schema}".sessions`), []);
			}
		});
	});
}

/** The session of {@link deepSession} with its deep result at exactly 1000 levels (the limit), as `limit.jsonl` beside it. */
function limitSession(): { dir: string; file: string } {
	const { dir } = deepSession();
	const file = join(dir, "limit.jsonl");
	const limit = DEEP_RESULT.replace(`${"[".repeat(DEEP)}${"]".repeat(DEEP)}`, `${"[".repeat(998)}${"]".repeat(998)}`);
	writeFileSync(file, `${[HEADER, user("a1", null, "hi"), TOOL_CALL, limit, user("a4", "a3", "after")].join("\n")}\n`);
	return { dir, file };
}

test("the same copy of a session at exactly 1000 levels succeeds", { skip: SQLITE_SKIP }, async () => {
	const { dir, file } = limitSession();
	const db = `sqlite:${join(dir, "limit.db")}`;
	const copy = await cli(["copy", file, db]);
	assert.equal(copy.code, 0, copy.stderr);
});

test("html, ctx --json and clone of a session at exactly 1000 levels succeed", async () => {
	const { dir, file } = limitSession();
	const html = await cli(["html", file, "-o", "-"]);
	assert.equal(html.code, 0, html.stderr);
	const json = await cli(["ctx", "--json", file]);
	assert.equal(json.code, 0, json.stderr);
	copyFileSync(file, join(dir, "limit-copy.jsonl"));
	const clone = await cli(["clone", join(dir, "limit-copy.jsonl")]);
	assert.equal(clone.code, 0, clone.stderr);
});
