/**
 * The README's shell walkthrough and the examples of docs/cli.md, run as printed (issue 23):
 * the ```console blocks are read from the Markdown now, so a change there that no longer works
 * fails here. Each file runs in one bash, in order, in a fresh temporary HOME (nothing of the
 * developer's: no pi folder, no colours, UTC), with `session-tree` put on PATH by the README's
 * own `export PATH=…` line, run in the clone as the README says. Blocks marked
 * `<!-- not run: why -->` are skipped (they need a terminal, another agent's files, an export);
 * the test checks that enough is still run. How outputs are compared: doc-examples.ts.
 */

import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, type TestContext, test } from "node:test";
import { SQLITE_SKIP } from "../support/sqlite.js";
import {
	compareRun,
	consoleBlocks,
	type DocBlock,
	freshEnv,
	matchLine,
	runAndCompare,
	runCommands,
	withRunIds,
} from "./doc-examples.js";
import { REPO, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

const readme = readFileSync(join(REPO, "README.md"), "utf8");

/** The README's line that puts `session-tree` on PATH, run in the clone. */
function pathLine(): string {
	const line = readme.split("\n").find((text) => /^export PATH=/.test(text));
	assert.ok(line, "the README says how to put session-tree on PATH (an `export PATH=…` line)");
	return `cd ${JSON.stringify(REPO)} && ${line.replace(/\s+#.*$/, "")} && cd "$HOME" || exit 99`;
}

/**
 * Runs the runnable blocks of one Markdown file; returns how many commands ran. Where
 * better-sqlite3 does not load (test/support/sqlite.ts), the blocks that use a `sqlite:`
 * location are left out, and said so (`t.diagnostic`).
 */
async function runDoc(file: string, t: TestContext): Promise<{ ran: number; skipped: number }> {
	const blocks = consoleBlocks(readFileSync(join(REPO, file), "utf8"));
	const needsSqlite = (block: DocBlock) => block.commands.some(({ command }) => command.includes("sqlite:"));
	if (SQLITE_SKIP !== undefined) {
		const left = blocks.filter((block) => block.notRun === null && needsSqlite(block));
		if (left.length > 0)
			t.diagnostic(`${file}: blocks at lines ${left.map((block) => block.line).join(", ")} not run: ${SQLITE_SKIP}`);
	}
	const run = blocks.filter((block) => block.notRun === null && (SQLITE_SKIP === undefined || !needsSqlite(block)));
	const commands = run.flatMap((block) => block.commands);
	const home = tempDir();
	const problems = await runAndCompare(commands, { cwd: home, env: freshEnv(home), prelude: pathLine() });
	assert.deepEqual(problems, [], `${file}:\n${problems.join("\n\n")}`);
	return { ran: commands.length, skipped: blocks.length - run.length };
}

describe("the documentation's shell examples, run as printed", () => {
	test("README.md: the walkthrough, in order, on a fresh machine", async (t) => {
		const { ran, skipped } = await runDoc("README.md", t);
		t.diagnostic(`README.md: ${ran} commands run, ${skipped} blocks not run`);
		// The walkthrough (new … validate) and the scripted REPL.
		assert.ok(ran >= 12, `${ran} commands`);
	});

	test("docs/cli.md: the example session and the views", async (t) => {
		const { ran, skipped } = await runDoc("docs/cli.md", t);
		t.diagnostic(`docs/cli.md: ${ran} commands run, ${skipped} blocks not run`);
		assert.ok(ran >= 25, `${ran} commands`);
	});

	test("the README says how session-tree gets on PATH, and it works from the clone", async () => {
		const home = tempDir();
		mkdirSync(join(home, "elsewhere"));
		const [run] = await runCommands(
			[{ command: "cd elsewhere && command -v session-tree && session-tree --version", expected: [], line: 0 }],
			{
				cwd: home,
				env: freshEnv(home),
				prelude: pathLine(),
			},
		);
		const version = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string }).version;
		assert.deepEqual(run?.actual, [join(REPO, "bin", "session-tree"), version]);
	});

	test("every block that is not run says why; blocks are found in both files", () => {
		for (const file of ["README.md", "docs/cli.md"]) {
			const blocks = consoleBlocks(readFileSync(join(REPO, file), "utf8"));
			assert.ok(blocks.length >= 4, file);
			for (const block of blocks) {
				if (block.notRun !== null) assert.ok(block.notRun.length > 10, `${file}:${block.line}: a reason`);
				assert.ok(block.commands.length > 0, `${file}:${block.line}: a block without commands`);
			}
		}
	});
});

describe("the comparison of outputs", () => {
	test("placeholders: ids stay the same across lines, … is any text, relative times any", () => {
		const ids = new Map<string, string>();
		assert.equal(matchLine("2d70391a user: hi  ← leaf", "0a1b2c3d user: hi  ← leaf", ids), null);
		assert.equal(ids.get("2d70391a"), "0a1b2c3d");
		assert.equal(matchLine("  2d70391a  assistant", "  0a1b2c3d  assistant", ids), null);
		// A known id is its value of this run; two ids in one line must agree.
		assert.equal(matchLine("2d70391a x", "ffffffff x", ids), "differs");
		assert.match(matchLine("1234abcd 1234abcd", "0000000a 0000000b", new Map()) ?? "", /stands for 0000000a/);
		assert.match(matchLine("029d534f y", "0a1b2c3d y", ids) ?? "", /another id/);
		assert.equal(
			matchLine("/p/2026-12-02T01-51-40-657Z_01a23473-….jsonl", "/p/2027-01-01T00-00-00-000Z_0aaaaaaa-1-2.jsonl", ids),
			null,
		);
		assert.equal(matchLine("1s ago          4", "just now        4", ids), null);
		assert.equal(matchLine("1s ago          4", "12s ago         4", ids), null);
		assert.equal(matchLine("ok (4 entries)", "ok (5 entries)", ids), "differs");
		assert.equal(matchLine("a {x} [y] (z)?", "a {x} [y] (z)?", ids), null);
	});

	test("a wrong line, a missing line or an unexpected failure is reported", async () => {
		const home = tempDir();
		const commands = [
			{ command: "echo one", expected: ["one"], line: 1 },
			{ command: "echo two", expected: ["three"], line: 2 },
			{ command: "printf 'a\\nb\\n'", expected: ["a"], line: 3 },
			{ command: "false", expected: [], line: 4 },
			{ command: "x=5; echo $x >&2; exit_code() { return 3; }; exit_code", expected: ["5", "[exit 3]"], line: 5 },
			{ command: 'echo "$x"', expected: ["5"], line: 6 },
		];
		const ids = new Map<string, string>();
		const problems = (await runCommands(commands, { cwd: home, env: freshEnv(home) }))
			.map((run) => compareRun(run, home, ids))
			.filter((problem) => problem !== null);
		assert.equal(problems.length, 3, problems.join("\n"));
		assert.match(problems[0] ?? "", /^line 2: /);
		assert.match(problems[1] ?? "", /^line 3: .*\n {2}2 lines instead of 1/);
		assert.match(problems[2] ?? "", /^line 4: [\s\S]*\[exit 1\]/);
	});

	test("an id or a prefix of one in a command stands for this run's id", () => {
		const ids = new Map([
			["5cca3bbe", "0123abcd"],
			["534bb85e", "fedc9876"],
		]);
		assert.equal(
			withRunIds("session-tree nav s.jsonl 5cca --summary x", ids),
			"session-tree nav s.jsonl 0123abcd --summary x",
		);
		assert.equal(withRunIds("tree s.jsonl --from 534bb85e --depth 1", ids), "tree s.jsonl --from fedc9876 --depth 1");
		// Not a prefix of a known id, too short, or part of a longer word: left alone.
		assert.equal(withRunIds("label s.jsonl 5c x 1764583200000 abcd", ids), "label s.jsonl 5c x 1764583200000 abcd");
	});
});
