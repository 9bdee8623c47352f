/** `copy` and `prune` between directories of session files (the database stores have their own round trips). */

import assert from "node:assert/strict";
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { cli, fixture, lines, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

async function sessionIn(dir: string, text: string): Promise<string> {
	const session = await Session.create({ dir, cwd: "/p" });
	await session.appendMessage({ role: "user", content: text, timestamp: 1 });
	const first = session.getLeafId() as string;
	await session.appendMessage({ role: "user", content: `${text} more`, timestamp: 2 });
	await session.branch(first);
	await session.appendMessage({ role: "user", content: `${text} again`, timestamp: 3 });
	await session.close();
	return session.file as string;
}

describe("copy", () => {
	test("one session into a directory: the same bytes, the new path on stdout, 0600", async () => {
		const source = fixture("branched-session");
		const target = join(tempDir(), "out");
		const result = await cli(["copy", source, target]);
		assert.equal(result.code, 0, result.stderr);
		const [copied] = lines(result.stdout);
		assert.ok(copied?.startsWith(target), result.stdout);
		assert.deepEqual(readFileSync(copied as string), readFileSync(source), "byte-identical");
		assert.equal(statSync(copied as string).mode & 0o777, 0o600);
		const again = await cli(["copy", source, target]);
		assert.equal(again.code, 0, "a session already there is left alone");
		assert.match(again.stderr, /not copied/);
		assert.equal(again.stdout, "");
	});

	test("onto a different session by the same name: exit 1, the target untouched; onto the same session: exit 0; onto the first of its records: completed", async () => {
		const from = tempDir();
		const a = await sessionIn(from, "alpha");
		const exact = join(tempDir(), "b.jsonl");
		assert.equal((await cli(["copy", a, exact])).code, 0);
		const into = tempDir();
		assert.equal((await cli(["copy", from, into])).code, 0);
		const inDir = join(into, a.split("/").at(-1) as string);
		const same = await cli(["copy", a, exact]);
		assert.equal(same.code, 0, same.stderr);
		assert.match(same.stderr, /already holds this session/);
		const entry = (id: string) =>
			`${readFileSync(a, "utf8")
				.split("\n")[1]
				?.replace(/"id":"[^"]+"/, `"id":"${id}"`)}\n`;
		// The source moves on: the copies hold the first of its records, and copying again completes them.
		appendFileSync(a, entry("ffff0001"));
		for (const target of [exact, into]) {
			const grown = await cli(["copy", a, target]);
			assert.equal(grown.code, 0, `${target}: ${grown.stderr}`);
			assert.match(grown.stderr, /completed: 1 record appended/);
			assert.equal(grown.stdout, `${target === into ? inDir : exact}\n`);
		}
		assert.deepEqual(readFileSync(exact), readFileSync(a));
		assert.deepEqual(readFileSync(inDir), readFileSync(a));
		// Then the source and its copies go their own ways: each copy is a different session now,
		// which `copy a b && rm a` would lose.
		appendFileSync(a, entry("ffff0002"));
		appendFileSync(exact, entry("ffff0003"));
		appendFileSync(inDir, entry("ffff0003"));
		const held = readFileSync(exact);
		for (const target of [exact, into]) {
			const differs = await cli(["copy", a, target]);
			assert.equal(differs.code, 1, `${target}: ${differs.stderr}`);
			assert.match(differs.stderr, /holds a different session/);
			assert.equal(differs.stdout, "");
		}
		assert.deepEqual(readFileSync(exact), held, "the session in the way is left as it was");
		assert.deepEqual(readFileSync(inDir), held, "the session in the way is left as it was");
		const whole = await cli(["copy", from, into]);
		assert.equal(whole.code, 1, "a store copy with one session in the way fails");
		assert.match(whole.stderr, /1 session not copied/);
	});

	test("a whole directory into another, then to an exact file; a damaged source is refused, naming the line", async () => {
		const from = tempDir();
		const a = await sessionIn(from, "alpha");
		const b = await sessionIn(from, "beta");
		const into = tempDir();
		const result = await cli(["copy", from, into]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(lines(result.stdout).length, 2);
		for (const file of [a, b]) {
			const name = file.split("/").at(-1) as string;
			assert.deepEqual(readFileSync(join(into, name)), readFileSync(file));
		}
		const exact = join(tempDir(), "exact.jsonl");
		const one = await cli(["copy", a, exact]);
		assert.equal(one.code, 0, one.stderr);
		assert.deepEqual(lines(one.stdout), [exact]);
		assert.deepEqual(readFileSync(exact), readFileSync(a));

		writeFileSync(b, `${readFileSync(b, "utf8").trimEnd()}\n{oops\n`);
		const bad = await cli(["copy", b, join(tempDir(), "bad.jsonl")]);
		assert.equal(bad.code, 1);
		assert.match(bad.stderr, new RegExp(`${b}:6: .*repair the session before copying it`));
		assert.equal(existsSync(join(into, "bad.jsonl")), false);
	});
});

describe("session URLs on the command line", { skip: SQLITE_SKIP }, () => {
	test("a fixture copied into SQLite: ctx, tree, info, ls, search and append take its URL; prune empties the store", async () => {
		const source = fixture("branched-session-clean");
		const db = `sqlite:${join(tempDir(), "agents.db")}`;
		const copied = await cli(["copy", source, db]);
		assert.equal(copied.code, 0, copied.stderr);
		const [url] = lines(copied.stdout);
		assert.match(url as string, /^sqlite:\/.*agents\.db#[\w-]+$/);
		for (const command of [
			["ctx", "--json"],
			["tree", "--json"],
			["path", "--json"],
		]) {
			const fromFile = await cli([command[0] as string, source, ...command.slice(1)]);
			const fromDb = await cli([command[0] as string, url as string, ...command.slice(1)]);
			assert.equal(fromDb.code, 0, fromDb.stderr);
			assert.equal(fromDb.stdout, fromFile.stdout, `${command[0]} reads the same from the database`);
		}
		const ls = await cli(["ls", db, "--json"]);
		assert.equal(ls.code, 0, ls.stderr);
		assert.deepEqual(
			JSON.parse(ls.stdout).map((row: { file: string }) => row.file),
			[url],
		);
		const appended = await cli(["append", url as string], {
			input: `${JSON.stringify({ role: "user", content: "a zebra question", timestamp: 1 })}\n`,
		});
		assert.equal(appended.code, 0, appended.stderr);
		const search = await cli(["search", "zebra", db, "--json"]);
		assert.equal(search.code, 0, search.stderr);
		assert.deepEqual(
			JSON.parse(search.stdout).map((hit: { entryId: string }) => hit.entryId),
			lines(appended.stdout),
		);
		const pruned = await cli(["prune", db, "--keep", "0"]);
		assert.equal(pruned.code, 0, pruned.stderr);
		assert.deepEqual(lines(pruned.stdout), [url]);
		const gone = await cli(["ctx", url as string]);
		assert.equal(gone.code, 1);
		assert.match(gone.stderr, /no such session|FILE_NOT_FOUND|not found/i);
	});

	test("the REPL loads a session URL and creates sessions in a database", async () => {
		const db = `sqlite:${join(tempDir(), "repl.db")}`;
		const copied = await cli(["copy", fixture("branched-session-clean"), db]);
		const [url] = lines(copied.stdout);
		const script = `load ${url}\ninfo\nnew --dir ${db}\nsend user hello there\n`;
		const result = await cli(["repl"], { input: script });
		assert.equal(result.code, 0, result.stderr);
		assert.match(
			result.stdout,
			new RegExp(`${(url as string).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: \\d+ entries, leaf`),
		);
		assert.match(result.stdout, /file: sqlite:\//);
		const listed = await cli(["ls", db, "--json"]);
		assert.equal(JSON.parse(listed.stdout).length, 2, "the session the REPL created is in the database");
	});

	test("new, fork and clone take a database as --dir and print the new session's URL", async () => {
		const db = `sqlite:${join(tempDir(), "made.db")}`;
		const made = await cli(["new", "--dir", db, "--cwd", "/p"]);
		assert.equal(made.code, 0, made.stderr);
		const [url] = lines(made.stdout);
		assert.match(url as string, /^sqlite:\/.*made\.db#[\w-]+$/);
		const appended = await cli(["append", url as string], {
			input: `${JSON.stringify({ role: "user", content: "first", timestamp: 1 })}\n`,
		});
		assert.equal(appended.code, 0, appended.stderr);
		const cloned = await cli(["clone", url as string]);
		assert.equal(cloned.code, 0, cloned.stderr);
		assert.match(
			lines(cloned.stdout)[0] as string,
			/^sqlite:\/.*made\.db#[\w-]+$/,
			"a clone lands in the same database",
		);
		const dir = tempDir();
		const forked = await cli(["fork", url as string, "--dir", dir]);
		assert.equal(forked.code, 0, forked.stderr);
		assert.ok(lines(forked.stdout)[0]?.startsWith(dir), "a fork into a directory is a file");
		const ctx = await cli(["ctx", lines(forked.stdout)[0] as string, "--json"]);
		assert.equal(JSON.parse(ctx.stdout).messages[0].content, "first");
	});
});

describe("prune", () => {
	test("--keep and --older-than, --dry-run deletes nothing, --json", async () => {
		const dir = tempDir();
		const files = [await sessionIn(dir, "one"), await sessionIn(dir, "two"), await sessionIn(dir, "three")];
		const day = 86_400;
		const now = Date.now() / 1000;
		files.forEach((file, i) => {
			utimesSync(file, now - (30 - i * 10) * day, now - (30 - i * 10) * day);
		});
		const dry = await cli(["prune", dir, "--older-than", "15", "--dry-run"]);
		assert.equal(dry.code, 0, dry.stderr);
		assert.deepEqual(lines(dry.stdout), [`would delete ${files[0]}`, `would delete ${files[1]}`]);
		assert.equal(readdirSync(dir).length, 3, "a dry run deletes nothing");
		const keep = await cli(["prune", dir, "--keep", "1", "--json"]);
		assert.equal(keep.code, 0, keep.stderr);
		assert.deepEqual(
			JSON.parse(keep.stdout).map((row: { location: string }) => row.location),
			[files[0], files[1]],
		);
		assert.deepEqual(readdirSync(dir), [files[2]?.split("/").at(-1)]);
		const none = await cli(["prune", dir, "--older-than", "100"]);
		assert.equal(none.code, 0);
		assert.match(none.stderr, /nothing to prune/);
		const usage = await cli(["prune", dir]);
		assert.equal(usage.code, 2);
		assert.match(usage.stderr, /--older-than DAYS or --keep N/);
	});
});
