/** `session-tree search` on a directory of generated sessions laid out like pi's. */

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type SearchRow, searchCommand } from "../../src/cli/commands/search.js";
import { Session } from "../../src/session.js";
import { assistant, buildLayout, clock, type Layout, PROJECT, user } from "../catalog/layout.js";
import { cli, lines, removeTempDirs, tempDir } from "./helpers.js";

type Hit = SearchRow;

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

async function searchJson(args: string[]): Promise<Hit[]> {
	const result = await cli(["search", ...args, "--json"], { env });
	assert.equal(result.code, 0, result.stderr);
	return JSON.parse(result.stdout) as Hit[];
}

function matched(hit: Hit): string {
	return hit.snippet.slice(hit.matchStart, hit.matchEnd);
}

describe("search", () => {
	test("hits name the file, session, entry, role and whether the entry is on the active branch", async () => {
		const hits = await searchJson(["tree", "--cwd", PROJECT]);
		const branched = hits.filter((hit) => hit.file === layout.branched);
		const session = await Session.open(layout.branched);
		assert.deepEqual(
			branched.map((hit) => [hit.entryId, hit.role, hit.onActiveBranch]),
			[
				[layout.ids.radix, "user", false],
				[layout.ids.radixAnswer, "assistant", false],
				[layout.ids.compare, "user", true],
			],
		);
		for (const hit of branched) {
			assert.equal(hit.sessionId, session.getSessionId());
			assert.equal(hit.name, null);
			assert.equal(matched(hit), "tree");
			assert.equal(
				hit.onActiveBranch,
				session.getBranch().some((entry) => entry.id === hit.entryId),
			);
		}
		const named = hits.filter((hit) => hit.file === layout.named);
		assert.deepEqual(
			named.map((hit) => [hit.role, hit.name, hit.onActiveBranch, hit.snippet]),
			[
				["user", "B-tree notes", true, "What is a B-tree?"],
				["assistant", "B-tree notes", true, "A balanced search tree with wide nodes."],
			],
		);
		assert.deepEqual(Object.keys(hits[0] as Hit), [
			"file",
			"sessionId",
			"name",
			"entryId",
			"role",
			"onActiveBranch",
			"snippet",
			"matchStart",
			"matchEnd",
		]);
	});

	test("after a branch, the entries left behind are off the active branch", async () => {
		const dir = tempDir();
		const session = await Session.create({ dir, cwd: PROJECT, now: clock("2025-04-01T00:00:00.000Z") });
		const q = await session.appendMessage(user("needle one", "2025-04-01T00:00:00.000Z"));
		const a = await session.appendMessage(assistant("needle two", "2025-04-01T00:00:01.000Z"));
		const hits1 = await searchJson(["needle", dir]);
		assert.deepEqual(
			hits1.map((hit) => [hit.entryId, hit.onActiveBranch]),
			[
				[q, true],
				[a, true],
			],
		);
		await session.branch(q); // a persisted leaf record: the answer is now on a side branch
		const hits2 = await searchJson(["needle", dir]);
		assert.deepEqual(
			hits2.map((hit) => [hit.entryId, hit.onActiveBranch]),
			[
				[q, true],
				[a, false],
			],
		);
		await session.resetLeaf();
		const hits3 = await searchJson(["needle", dir]);
		assert.ok(hits3.every((hit) => !hit.onActiveBranch));
		await session.close();
	});

	test("searches thinking, tool results, custom messages, compaction and branch summaries", async () => {
		const dir = tempDir();
		const session = await Session.create({ dir, cwd: PROJECT, now: clock("2025-04-02T00:00:00.000Z") });
		const q = await session.appendMessage(user("start", "2025-04-02T00:00:00.000Z"));
		const a = await session.appendMessage(assistant("visible", "2025-04-02T00:00:01.000Z", "hidden zebra thought"));
		const tool = await session.appendMessage({
			role: "toolResult",
			toolCallId: "call-1",
			toolName: "bash",
			content: [{ type: "text", text: "zebra in the output" }],
			isError: false,
			timestamp: Date.parse("2025-04-02T00:00:02.000Z"),
		});
		const custom = await session.appendCustomMessageEntry("note", "a zebra note", true);
		const compaction = await session.appendCompaction("summary of the zebra talk", q, 100);
		const summary = await session.branchWithSummary(q, "left the zebra branch");
		const hits = await searchJson(["zebra", dir]);
		assert.deepEqual(
			hits.map((hit) => [hit.entryId, hit.role]),
			[
				[a, "assistant"],
				[tool, "toolResult"],
				[custom, "custom_message"],
				[compaction, "compaction"],
				[summary, "branch_summary"],
			],
		);
		assert.ok(hits.every((hit) => matched(hit) === "zebra"));
		await session.close();
	});

	test("--regex and -i", async () => {
		const plain = await cli(["search", "b-tree", "--cwd", PROJECT], { env });
		assert.equal(plain.code, 1, "case-sensitive by default");
		const folded = await searchJson(["-i", "b-tree", "--cwd", PROJECT]);
		assert.deepEqual(
			folded.map((hit) => [hit.file, matched(hit)]),
			[
				[layout.branched, "B-tree"],
				[layout.named, "B-tree"],
			],
		);
		const regex = await searchJson(["--regex", "tries|radix", "--cwd", PROJECT]);
		assert.deepEqual(
			regex.map((hit) => matched(hit)),
			["tries", "radix", "radix", "tries"],
		);
		const both = await searchJson(["-E", "-i", "^WHAT IS", "--cwd", PROJECT]);
		assert.deepEqual(
			both.map((hit) => hit.snippet),
			["What is a B-tree?"],
		);
	});

	test("an invalid --regex is a usage error (exit 2)", async () => {
		const result = await cli(["search", "--regex", "(unclosed", "--cwd", PROJECT], { env });
		assert.equal(result.code, 2);
		assert.match(result.stderr, /^session-tree: invalid --regex: /);
		assert.equal(result.stdout, "");
		// Without --regex the same text is searched literally.
		const literal = await cli(["search", "(unclosed", "--cwd", PROJECT], { env });
		assert.equal(literal.code, 1);
	});

	test("exit status as grep's: 0 with hits, 1 without", async () => {
		const found = await cli(["search", "radix", "--cwd", PROJECT], { env });
		assert.equal(found.code, 0);
		const none = await cli(["search", "no such words anywhere", "--cwd", PROJECT], { env });
		assert.equal(none.code, 1);
		assert.equal(none.stdout, "");
		assert.match(none.stderr, /session-tree: no matches\n$/);
		const json = await cli(["search", "no such words anywhere", "--cwd", PROJECT, "--json"], { env });
		assert.equal(json.code, 1);
		assert.equal(json.stdout, "[]\n");
	});

	test("human output: a heading per session file, one line per hit, no colours when piped", async () => {
		const result = await cli(["search", "tree", "--cwd", PROJECT], { env });
		assert.equal(result.code, 0, result.stderr);
		assert.ok(!result.stdout.includes(ESC));
		assert.ok(!result.stdout.includes("[["));
		const out = lines(result.stdout);
		assert.deepEqual(out, [
			layout.branched,
			`  ${layout.ids.radix}  user       side    And radix trees?`,
			`  ${layout.ids.radixAnswer}  assistant  side    A radix tree merges chains of single children.`,
			`  ${layout.ids.compare}  user       active  Compare tries and B-trees`,
			"",
			`${layout.named}  B-tree notes`,
			out[6] as string,
			out[7] as string,
		]);
		assert.match(out[6] as string, /^ {2}[0-9a-f]{8} {2}user {7}active {2}What is a B-tree\?$/);
	});

	test("FORCE_COLOR highlights the match; NO_COLOR does not", async () => {
		const forced = await cli(["search", "radix", "--cwd", PROJECT], { env: { ...env, FORCE_COLOR: "1" } });
		assert.ok(forced.stdout.includes(`${ESC}[31m${ESC}[1mradix${ESC}[22m${ESC}[39m`), forced.stdout);
		const none = await cli(["search", "radix", "--cwd", PROJECT], { env: { ...env, NO_COLOR: "1" } });
		assert.ok(!none.stdout.includes(ESC));
	});

	test("--limit stops after N hits", async () => {
		const hits = await searchJson(["tree", "--cwd", PROJECT, "--limit", "2"]);
		assert.equal(hits.length, 2);
		const bad = await cli(["search", "tree", "--limit", "0"], { env });
		assert.equal(bad.code, 2);
	});

	test("--all, DIR, and bad files as warnings", async () => {
		const all = await searchJson(["project", "--all"]);
		assert.deepEqual([...new Set(all.map((hit) => hit.file))].sort(), [layout.otherSession, layout.fork].sort());
		const fork = all.filter((hit) => hit.file === layout.fork);
		assert.ok(fork.length === 2 && fork.every((hit) => hit.name === "Forked work" && hit.onActiveBranch));
		const dir = await cli(["search", "Damaged", layout.projectDir, "--json"], { env });
		assert.equal(dir.code, 0);
		assert.equal((JSON.parse(dir.stdout) as Hit[])[0]?.file, layout.damaged);
		assert.match(dir.stderr, /warning: .*events\.jsonl: not a session file.*\(skipped\)/);
		assert.match(dir.stderr, /warning: .*: damaged: line 3: /);
	});

	test("memory: searches the memory sessions of this process (in-process)", async () => {
		const session = await Session.create({ location: "memory:search-test", cwd: PROJECT });
		const q = await session.appendMessage(user("a needle in memory", "2025-08-01T00:00:00.000Z"));
		const out: string[] = [];
		const io = { stdin: process.stdin, out: (text: string) => out.push(text), err: () => {} };
		await searchCommand.run({ values: { json: true }, positionals: ["needle", "memory:"], io });
		const hits = JSON.parse(out.join("")) as Hit[];
		assert.deepEqual(
			hits.map((hit) => [hit.file, hit.entryId, hit.onActiveBranch, matched(hit)]),
			[["memory:search-test", q, true, "needle"]],
		);
		await session.close();
	});

	test("snippets: one line, cut around the match, offsets into the snippet", async () => {
		const dir = tempDir();
		const session = await Session.create({ dir, cwd: PROJECT });
		const long = `${"alpha ".repeat(100)}\n\n  NEEDLE\there ${"omega ".repeat(100)}`;
		await session.appendMessage({ role: "user", content: long, timestamp: Date.now() });
		await session.close();
		const [hit] = await searchJson(["NEEDLE", dir]);
		assert.ok(hit);
		assert.equal(matched(hit), "NEEDLE");
		assert.ok(hit.snippet.startsWith("…") && hit.snippet.endsWith("…"));
		assert.ok(!/[\n\t]/.test(hit.snippet));
		assert.ok(hit.snippet.includes("alpha NEEDLE here omega"));
		assert.ok(hit.snippet.length <= 102, String(hit.snippet.length));
	});

	test("a catastrophic regular expression over a 30 KB message answers, or is refused, in about a second", async () => {
		const dir = tempDir();
		const session = await Session.create({ dir, cwd: PROJECT });
		await session.appendMessage({ role: "user", content: `${"a".repeat(30_000)}!`, timestamp: Date.now() });
		await session.appendMessage({ role: "user", content: "xaaa", timestamp: Date.now() });
		await session.close();
		// The linear engine: the answer, the 30 KB message not matching.
		let start = performance.now();
		const hits = await searchJson(["--regex", "(a+)+$", dir]);
		assert.deepEqual(hits.map(matched), ["aaa"]);
		assert.ok(performance.now() - start < 3000, `${performance.now() - start} ms (a process start included)`);
		// With -i (which the linear engine does not take) the worker's time limit refuses it: exit 2.
		start = performance.now();
		const refused = await cli(["search", "-i", "--regex", "(a+)+$", dir], { env });
		assert.equal(refused.code, 2, refused.stderr);
		assert.match(refused.stderr, /refused --regex: the regular expression \/\(a\+\)\+\$\/ took more than 500 ms/);
		assert.equal(refused.stdout, "");
		assert.ok(performance.now() - start < 3000, `${performance.now() - start} ms (a process start included)`);
	});

	test("usage: TEXT is required and not empty; --help documents the exit status", async () => {
		assert.equal((await cli(["search"], { env })).code, 2);
		assert.equal((await cli(["search", ""], { env })).code, 2);
		const help = await cli(["search", "--help"]);
		assert.equal(help.code, 0);
		assert.match(help.stdout, /^Usage: session-tree search TEXT/);
		assert.match(help.stdout, /0 when something was found, 1 when nothing was/);
		assert.match(help.stdout, /Examples:\n {2}session-tree search/);
	});
});
