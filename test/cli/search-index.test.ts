/**
 * The CLI over the catalog index: `search --agents` and `search TEXT DIR` (through the index)
 * print what `--scan` (every file read, no index) prints; `ls --agents --cwd P` lists one
 * project's sessions; a DIR is searched at any depth (Codex's YYYY/MM/DD). Run on a temporary
 * HOME of real pi, Claude Code, Codex and Gemini CLI sessions (test/catalog/agents-home.ts).
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type AgentsHome, buildAgentsHome } from "../catalog/agents-home.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { cli, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

let home: AgentsHome;
let env: Record<string, string>;
let foreign: Map<string, string>;

function fingerprint(file: string): string {
	const stats = statSync(file);
	return `${stats.size}/${stats.mtimeMs}/${readFileSync(file).toString("base64")}`;
}

before(async () => {
	home = await buildAgentsHome(tempDir());
	// Only the temporary HOME: no agent directory of the developer's.
	env = {
		HOME: home.home,
		XDG_CACHE_HOME: join(home.home, ".cache"),
		PI_CODING_AGENT_DIR: "",
		CLAUDE_CONFIG_DIR: "",
		CODEX_HOME: "",
		GEMINI_CLI_HOME: "",
	};
	foreign = new Map([...home.claude, home.codex, home.gemini].map((file) => [file, fingerprint(file)]));
});

async function json(args: string[]): Promise<unknown> {
	const result = await cli(args, { env });
	assert.ok(result.code === 0 || result.code === 1, result.stderr);
	return result.code === 1 ? [] : JSON.parse(result.stdout);
}

describe("search --agents", () => {
	const queries: Array<[string, string[], number]> = [
		["a word", ["the"], 20],
		["a text only on a side branch", ["radix tree merges"], 1],
		["a regular expression, ignoring case", ["--regex", "-i", "b-?trees?"], 2],
		["two characters", ["ok"], 3],
	];
	for (const [what, args, least] of queries) {
		test(`${what}: the hits of the index are those of --scan`, async () => {
			const scanned = (await json(["search", ...args, "--agents", "--scan", "--json"])) as unknown[];
			assert.ok(scanned.length >= least, `${scanned.length} hits`);
			assert.deepEqual(await json(["search", ...args, "--agents", "--json"]), scanned);
			assert.deepEqual(await json(["search", ...args, "--agents", "--json", "--limit", "2"]), scanned.slice(0, 2));
		});
	}

	test("the side-branch hit is marked side, with its agent; the index file is 0600", {
		skip: SQLITE_SKIP,
	}, async () => {
		const hits = (await json(["search", "radix tree merges", "--agents", "--json"])) as Array<Record<string, unknown>>;
		assert.deepEqual(
			hits.map((hit) => [hit.entryId, hit.onActiveBranch, hit.agent]),
			[[home.pi.ids.radixAnswer, false, "pi"]],
		);
		const index = join(home.home, ".cache", "session-tree", "catalog.sqlite");
		assert.equal(statSync(index).mode & 0o777, 0o600);
		const text = await cli(["search", "radix tree merges", "--agents"], { env });
		assert.equal(text.code, 0, text.stderr);
		assert.match(text.stdout, /side/);
		// Warnings and skipped files as a scan reports them.
		const scanned = await cli(["search", "radix tree merges", "--agents", "--scan"], { env });
		assert.equal(text.stderr, scanned.stderr);
		assert.match(text.stderr, /events\.jsonl: not a session file/);
	});

	test("two processes building the index at once both answer as the scan does", async () => {
		rmSync(join(home.home, ".cache"), { recursive: true, force: true });
		const args = ["search", "the", "--agents", "--json"];
		const [a, b] = await Promise.all([cli(args, { env }), cli(args, { env })]);
		const scanned = await cli([...args, "--scan"], { env });
		assert.equal(a.stdout, scanned.stdout, a.stderr);
		assert.equal(b.stdout, scanned.stdout, b.stderr);
	});

	test("--cwd narrows to one project; --agents takes no DIR", async () => {
		const hits = (await json(["search", "tree", "--agents", "--cwd", "/home/me/proj", "--json"])) as Array<
			Record<string, unknown>
		>;
		const files = new Set([home.pi.named, home.pi.branched, home.pi.empty, home.pi.damaged]);
		assert.ok(hits.length > 0);
		assert.ok(hits.every((hit) => files.has(hit.file as string)));
		assert.deepEqual(await json(["search", "tree", "--agents", "--cwd", "/home/me/proj", "--scan", "--json"]), hits);
		const usage = await cli(["search", "tree", home.home, "--agents"], { env });
		assert.equal(usage.code, 2);
	});
});

describe("ls --agents --cwd", () => {
	test("only the sessions of that project, as --scan lists them", async () => {
		const rows = (await json(["ls", "--agents", "--cwd", "/home/me/proj", "--json"])) as Array<Record<string, unknown>>;
		// By hand: the four pi sessions layout.ts made in /home/me/proj (events.jsonl is no session).
		assert.deepEqual(
			rows.map((row) => row.file).sort(),
			[home.pi.named, home.pi.branched, home.pi.empty, home.pi.damaged].sort(),
		);
		assert.ok(rows.every((row) => row.agent === "pi" && row.cwd === "/home/me/proj"));
		assert.deepEqual(await json(["ls", "--agents", "--cwd", "/home/me/proj", "--json", "--scan"]), rows);
		// Without --cwd: every agent's, the same as --scan lists.
		const all = (await json(["ls", "--agents", "--json"])) as Array<Record<string, unknown>>;
		assert.deepEqual(new Set(all.map((row) => row.agent)), new Set(["pi", "claude-code", "codex", "gemini"]));
		assert.deepEqual(await json(["ls", "--agents", "--json", "--scan"]), all);
	});
});

describe("search TEXT DIR at any depth", () => {
	test("a Codex rollout four levels below DIR is found, through the index and by --scan", async () => {
		const dir = join(home.home, ".codex", "sessions");
		const scanned = (await json(["search", "LM Studio", dir, "--scan", "--json"])) as Array<Record<string, unknown>>;
		assert.ok(scanned.length > 0);
		assert.ok(scanned.every((hit) => hit.file === home.codex));
		assert.deepEqual(await json(["search", "LM Studio", dir, "--json"]), scanned);
		const listed = (await json(["ls", dir, "--json"])) as Array<Record<string, unknown>>;
		assert.deepEqual(
			listed.map((row) => row.file),
			[home.codex],
		);
	});

	test("no other agent's file was written, and the index is in the cache only", { skip: SQLITE_SKIP }, () => {
		for (const [file, before] of foreign) assert.equal(fingerprint(file), before, file);
		assert.ok(existsSync(join(home.home, ".cache", "session-tree", "catalog.sqlite")));
	});
});
