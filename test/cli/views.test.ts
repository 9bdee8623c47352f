/** `tree` and `ctx` as a person uses them: filters, subtrees, folding, width, colours, errors. */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { displayWidth } from "../../src/render/terminal.js";
import { BIN, type CliResult, cli, cliJson, expected, fixture, lines, removeTempDirs, tempDir } from "./helpers.js";

// Colour depends on these (node --test sets FORCE_COLOR=1 for its children on a terminal):
// each test says what it wants.
delete process.env.FORCE_COLOR;
delete process.env.NO_COLOR;

after(removeTempDirs);

const ESC = "\u001b[";

function maxWidth(text: string): number {
	return Math.max(0, ...lines(text).map(displayWidth));
}

async function ok(args: string[], env?: Record<string, string>): Promise<CliResult> {
	const result = await cli(args, env ? { env } : {});
	assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
	return result;
}

/** Runs the CLI and measures the wall time, in milliseconds. */
async function timed(args: string[]): Promise<{ result: CliResult; ms: number }> {
	const started = performance.now();
	const result = await cli(args);
	return { result, ms: performance.now() - started };
}

describe("tree", () => {
	test("without options: every entry, the leaf marked, the active branch marked below the fork", async () => {
		const out = lines((await ok(["tree", fixture("labels")])).stdout);
		assert.equal(out.length, (expected("labels").tree as unknown[]).length);
		assert.equal(out.filter((line) => line.includes("• ")).length, 6);
		assert.ok(out.some((line) => line.startsWith("└── • b5ec523e user: ")));
		assert.ok(out.at(-1)?.startsWith("    • 34cbcd08 label: "));
		assert.ok(out.at(-1)?.endsWith("  ← leaf"));
	});

	test("--filter: pi's modes; an unknown one is a usage error", async () => {
		const defaults = lines((await ok(["tree", fixture("labels"), "--filter", "default"])).stdout);
		assert.deepEqual(
			defaults.map((line) => /([0-9a-f]{8}) /.exec(line)?.[1]),
			["0347e0c9", "c02dc46a", "165b0ac7", "1ed8b9cb", "428edbad", "2cf4db27", "b5ec523e", "b1f59230"],
		);
		assert.ok(defaults.at(-1)?.endsWith("  ← leaf below (34cbcd08)"));
		const users = lines((await ok(["tree", fixture("tool-calls"), "--filter", "user-only"])).stdout);
		assert.deepEqual(
			users.map((line) => line.split(" ")[1]),
			["user:", "user:", "user:"],
		);
		const noTools = (await ok(["tree", fixture("tool-calls"), "--filter", "no-tools"])).stdout;
		assert.doesNotMatch(noTools, /toolResult/);
		assert.match(noTools, /bashExecution/);
		const labeled = lines((await ok(["tree", fixture("labels"), "--filter", "labeled-only"])).stdout);
		assert.ok(labeled.every((line) => / \[.*\]/.test(line)));

		const bad = await cli(["tree", fixture("labels"), "--filter", "tools"]);
		assert.equal(bad.code, 2);
		assert.match(
			bad.stderr,
			/^session-tree: unknown filter "tools" \(use one of default, no-tools, user-only, labeled-only, all\)\n/,
		);
	});

	test("--from ID (a prefix) shows one subtree, --depth cuts it, --leaf moves the marks", async () => {
		const from = lines((await ok(["tree", fixture("labels"), "--from", "165b"])).stdout);
		assert.ok(from[0]?.startsWith("165b0ac7 user: "));
		assert.equal(from.length, 12);
		const depth = lines((await ok(["tree", fixture("labels"), "--from", "165b", "--depth", "2"])).stdout);
		assert.deepEqual(depth.at(-1), "… 9 more");
		assert.equal(depth.length, 4);
		const leaf = lines((await ok(["tree", fixture("labels"), "--leaf", "428e"])).stdout);
		assert.ok(leaf.some((line) => line.startsWith("│   • 428edbad user: ") && line.endsWith("← leaf")));
		assert.ok(leaf.some((line) => line.startsWith("└── b5ec523e ")));

		const json = await cliJson<Array<{ id: string; depth: number }>>([
			"tree",
			fixture("labels"),
			"--from",
			"165b",
			"--json",
		]);
		assert.equal(json[0]?.id, "165b0ac7");
		assert.equal(json[0]?.depth, 0);
		assert.equal(json.length, 12);
	});

	test("options that shape the text view are refused with --json; bad numbers are usage errors", async () => {
		for (const args of [
			["--json", "--filter", "all"],
			["--json", "--depth", "2"],
			["--json", "--fold"],
			["--depth", "-1"],
			["--depth", "two"],
			["--width", "5"],
			["--fold-limit", "2"],
		]) {
			const result = await cli(["tree", fixture("labels"), ...args]);
			assert.equal(result.code, 2, args.join(" "));
			assert.match(result.stderr, /^session-tree: .*\nTry 'session-tree tree --help'\.\n$/, args.join(" "));
		}
	});

	test("--width N cuts every line to N columns, piped output is not cut", async () => {
		for (const name of ["unicode", "labels", "tool-calls", "wide-node"]) {
			const narrow = await ok(["tree", fixture(name), "--width", "40"]);
			assert.ok(maxWidth(narrow.stdout) <= 40, name);
			assert.equal(lines(narrow.stdout).length, lines((await ok(["tree", fixture(name)])).stdout).length);
		}
		const wide = await ok(["tree", fixture("labels"), "--width", "300"]);
		assert.ok(maxWidth(wide.stdout) > 120, "a wide terminal gets long previews");
	});

	test("--fold and --fold-limit", async () => {
		const folded = lines((await ok(["tree", fixture("deep-chain"), "--fold"])).stdout);
		assert.equal(folded.length, 5);
		assert.equal(folded[2], "┆ … 4,996 entries …");
		const limit = lines((await ok(["tree", fixture("linear-chat"), "--fold-limit", "4"])).stdout);
		assert.match(limit[2] as string, /^┆ … \d+ entries …$/);
	});

	test("colours: none when piped or with NO_COLOR, FORCE_COLOR=1 forces them, FORCE_COLOR=0 forbids them", async () => {
		const piped = await ok(["tree", fixture("labels")]);
		assert.ok(!piped.stdout.includes(ESC));
		const noColor = await ok(["tree", fixture("labels")], { NO_COLOR: "1" });
		assert.ok(!noColor.stdout.includes(ESC));
		const forced = await ok(["tree", fixture("labels")], { FORCE_COLOR: "1" });
		assert.ok(forced.stdout.includes(`${ESC}36m`), "users in cyan");
		assert.ok(forced.stdout.includes(`${ESC}1m`), "bold");
		// biome-ignore lint/suspicious/noControlCharactersInRegex: removing colour codes
		assert.equal(forced.stdout.replace(/\u001b\[[0-9;]*m/g, ""), piped.stdout);
		const forbidden = await ok(["tree", fixture("labels")], { FORCE_COLOR: "0" });
		assert.equal(forbidden.stdout, piped.stdout);
		const ctx = await ok(["ctx", fixture("compaction")], { FORCE_COLOR: "1" });
		assert.ok(ctx.stdout.includes(`${ESC}35m`), "summaries in magenta");
		assert.ok(!(await ok(["ctx", fixture("compaction")], { NO_COLOR: "1" })).stdout.includes(ESC));
		assert.ok(!(await ok(["ctx", fixture("compaction"), "--json"], { FORCE_COLOR: "1" })).stdout.includes(ESC));
		assert.ok(!(await ok(["tree", fixture("labels"), "--json"], { FORCE_COLOR: "1" })).stdout.includes(ESC));
	});

	test("the 5,000-deep chain and the 300-wide node: bounded lines, every row, fast", async () => {
		const deep = await timed(["tree", fixture("deep-chain")]);
		const deepCut = await timed(["tree", fixture("deep-chain"), "--width", "80"]);
		const wide = await timed(["tree", fixture("wide-node")]);
		const wideCut = await timed(["tree", fixture("wide-node"), "--width", "80"]);
		for (const { result } of [deep, deepCut, wide, wideCut]) assert.equal(result.code, 0, result.stderr);
		assert.equal(lines(deep.result.stdout).length, expected("deep-chain").entryCount);
		assert.equal(lines(deepCut.result.stdout).length, expected("deep-chain").entryCount);
		assert.equal(lines(wide.result.stdout).length, expected("wide-node").entryCount);
		assert.ok(maxWidth(deep.result.stdout) <= 200);
		assert.ok(maxWidth(wide.result.stdout) <= 200);
		assert.ok(maxWidth(deepCut.result.stdout) <= 80);
		assert.ok(maxWidth(wideCut.result.stdout) <= 80);
		const timings = { deep: deep.ms, deepCut: deepCut.ms, wide: wide.ms, wideCut: wideCut.ms };
		for (const [name, ms] of Object.entries(timings)) assert.ok(ms < 5000, `${name}: ${Math.round(ms)} ms`);
	});

	test("a closed pipe after a few lines of a wide view is not an error", async () => {
		const code = await new Promise<number | null>((done) => {
			const child = spawn(process.execPath, [BIN, "tree", fixture("deep-chain"), "--width", "60"]);
			child.stdout.once("data", () => child.stdout.destroy());
			child.on("close", done);
		});
		assert.equal(code, 0);
	});
});

describe("ctx", () => {
	test("previews by default, --full for whole texts indented, --width cuts", async () => {
		const preview = lines((await ok(["ctx", fixture("tool-calls")])).stdout);
		assert.match(preview[1] as string, /^ 2\. ce60c284 assistant: \[thinking\] The screenshot shows/);
		const full = lines((await ok(["ctx", fixture("tool-calls"), "--full"])).stdout);
		assert.ok(full.length > preview.length);
		assert.ok(full.includes('      → bash({"command":"npm test -- --run","timeout":120})'));
		assert.ok(full.includes(" 3. d9c881b0 toolResult: bash"));
		assert.ok(full.includes('      Expected: "b"'));
		assert.equal(full.at(-1), "thinking level: high");
		const cut = await ok(["ctx", fixture("tool-calls"), "--width", "40"]);
		assert.ok(maxWidth(cut.stdout) <= 40);
	});

	test("custom messages show their customType, summaries are marked", async () => {
		const custom = (await ok(["ctx", fixture("custom-and-custom-message")])).stdout;
		assert.match(custom, /^3\. [0-9a-f]{8} custom: reminder: Remember to run the tests/m);
		const branch = (await ok(["ctx", fixture("branch-with-summary"), "--full"])).stdout;
		assert.match(branch, /^1\. [0-9a-f]{8} branch summary: \(from root\)\n {5}Started over/m);
	});

	test("--json is unchanged by the text options' defaults", async () => {
		assert.deepEqual(await cliJson(["ctx", fixture("compaction"), "--json"]), expected("compaction").context);
	});
});

describe("errors name what is wrong", () => {
	test("a missing file, a file that is not a session, a directory", async () => {
		const dir = tempDir();
		const missing = join(dir, "nope.jsonl");
		const notSession = join(dir, "config.json");
		writeFileSync(notSession, '{"compilerOptions":{"strict":true}}\n');
		for (const command of ["tree", "ctx"]) {
			const a = await cli([command, missing]);
			assert.equal(a.code, 1);
			assert.equal(a.stderr, `session-tree: ${missing}: no such session\n`);
			const b = await cli([command, notSession]);
			assert.equal(b.code, 1);
			assert.match(
				b.stderr,
				new RegExp(
					`^session-tree: ${notSession.replace(/[.]/g, "\\.")}:1: not a session file: not a pi session, nor a Claude Code, Codex, Gemini CLI, ChatGPT, Claude.ai or Open WebUI history \\(this line is a JSON object \\(keys: compilerOptions\\)\\)\n$`,
				),
			);
			const c = await cli([command, dir]);
			assert.equal(c.code, 1);
			assert.match(c.stderr, /^session-tree: /);
			assert.doesNotMatch(c.stderr, /internal error/);
		}
	});

	test("an unknown id and an ambiguous prefix", async () => {
		const unknown = await cli(["tree", fixture("labels"), "--from", "ffff"]);
		assert.equal(unknown.code, 1);
		assert.match(unknown.stderr, /labels\.jsonl: no entry id starts with ffff\n$/);
		const ambiguous = await cli(["tree", fixture("wide-node"), "--leaf", "1"]);
		assert.equal(ambiguous.code, 1);
		assert.match(ambiguous.stderr, /1 is ambiguous: it starts \d+ ids: [0-9a-f]{8} \(message\), /);
	});
});
