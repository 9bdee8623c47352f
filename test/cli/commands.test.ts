/** Every command of the `session-tree` executable, run as a real process on real temp files. */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import {
	assistantLine,
	BIN,
	cli,
	cliJson,
	expected,
	fixture,
	lines,
	REPO,
	removeTempDirs,
	tempDir,
	userLine,
} from "./helpers.js";

after(removeTempDirs);

const COMMANDS = [
	"tree",
	"ctx",
	"path",
	"leaves",
	"info",
	"new",
	"append",
	"branch",
	"fork",
	"clone",
	"migrate",
	"demo",
];

interface Info {
	id: string;
	version: number;
	cwd: string;
	parentSession: string | null;
	name: string | null;
	entryCount: number;
	leafId: string | null;
}

interface Context {
	messages: Array<Record<string, unknown>>;
	thinkingLevel: string;
	model: { provider: string; modelId: string } | null;
}

/** A new session file in a temp dir. */
async function newSession(): Promise<string> {
	const result = await cli(["new", "--dir", tempDir(), "--cwd", "/home/dev/project"]);
	assert.equal(result.code, 0, result.stderr);
	return result.stdout.trim();
}

/** A session holding `messages` (JSON lines); returns the file and the new ids. */
async function sessionWith(messages: string[]): Promise<{ file: string; ids: string[] }> {
	const file = await newSession();
	const result = await cli(["append", file], { input: `${messages.join("\n")}\n` });
	assert.equal(result.code, 0, result.stderr);
	return { file, ids: lines(result.stdout) };
}

describe("help and version", () => {
	test("no arguments prints the help listing every command", async () => {
		const result = await cli([]);
		assert.equal(result.code, 0);
		assert.equal(result.stderr, "");
		assert.match(result.stdout, /^Usage: session-tree <command>/m);
		for (const command of COMMANDS) assert.match(result.stdout, new RegExp(`^ {2}${command} `, "m"), command);
	});

	test("--help and help print the same listing", async () => {
		const [none, long, short, word] = await Promise.all([cli([]), cli(["--help"]), cli(["-h"]), cli(["help"])]);
		assert.equal(long.stdout, none.stdout);
		assert.equal(short.stdout, none.stdout);
		assert.equal(word.stdout, none.stdout);
	});

	test("every command has --help with a usage line and an example", async () => {
		const results = await Promise.all(COMMANDS.map((command) => cli([command, "--help"])));
		results.forEach((result, i) => {
			const command = COMMANDS[i] as string;
			assert.equal(result.code, 0, command);
			assert.ok(result.stdout.startsWith(`Usage: session-tree ${command}`), result.stdout);
			assert.match(result.stdout, /^Examples?:\n {2}.*session-tree /m, command);
			assert.match(result.stdout, /--help/, command);
		});
	});

	test("help COMMAND is the command's --help; -h works after the file too", async () => {
		const [word, flag, late] = await Promise.all([
			cli(["help", "ctx"]),
			cli(["ctx", "--help"]),
			cli(["ctx", "x.jsonl", "-h"]),
		]);
		assert.equal(word.stdout, flag.stdout);
		assert.equal(late.stdout, flag.stdout);
		assert.equal(late.code, 0);
	});

	test("--version prints the package version", async () => {
		const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };
		const [long, short] = await Promise.all([cli(["--version"]), cli(["-V"])]);
		assert.equal(long.code, 0);
		assert.equal(long.stdout, `${pkg.version}\n`);
		assert.equal(short.stdout, `${pkg.version}\n`);
	});
});

describe("usage errors exit 2", () => {
	const cases: Array<[string, string[], RegExp]> = [
		["unknown command", ["frobnicate"], /^session-tree: unknown command "frobnicate"\n/],
		["unknown top-level option", ["--frob"], /^session-tree: unknown option "--frob"\n/],
		["help for an unknown command", ["help", "frob"], /^session-tree: unknown command "frob"\n/],
		["unknown option", ["ctx", "f.jsonl", "--bogus"], /^session-tree: unknown option "--bogus"\n/],
		["option without its value", ["ctx", "f.jsonl", "--leaf"], /^session-tree: option --leaf needs a value\n/],
		["value for a flag", ["ctx", "f.jsonl", "--json=yes"], /^session-tree: option --json takes no value\n/],
		["missing FILE", ["tree"], /^session-tree: missing FILE\n/],
		["missing ID", ["branch", "f.jsonl"], /^session-tree: missing ID\n/],
		["extra argument", ["leaves", "a.jsonl", "b.jsonl"], /^session-tree: unexpected argument "b.jsonl"\n/],
	];
	for (const [name, args, message] of cases) {
		test(name, async () => {
			const result = await cli(args);
			assert.equal(result.code, 2, result.stderr);
			assert.equal(result.stdout, "");
			assert.match(result.stderr, message);
			assert.match(result.stderr, /Try 'session-tree .*--help'/);
		});
	}
});

describe("failures exit 1 with the reason on stderr", () => {
	test("a missing file is named", async () => {
		const missing = join(tempDir(), "no-such-session.jsonl");
		for (const command of ["tree", "ctx", "path", "leaves", "info", "branch", "fork", "clone", "migrate", "append"]) {
			const args = command === "branch" ? [command, missing, "0000abcd"] : [command, missing];
			const result = await cli(args);
			assert.equal(result.code, 1, command);
			assert.equal(result.stdout, "", command);
			assert.ok(result.stderr.startsWith("session-tree: "), result.stderr);
			assert.ok(result.stderr.includes(missing), result.stderr);
		}
	});

	test("an unknown entry id", async () => {
		const file = fixture("linear-chat");
		for (const args of [
			["ctx", file, "--leaf", "deadbeef"],
			["path", file, "--leaf", "deadbeef", "--json"],
			["fork", file, "deadbeef"],
		]) {
			const result = await cli(args);
			assert.equal(result.code, 1, args.join(" "));
			assert.equal(result.stdout, "");
			assert.match(result.stderr, /^session-tree: .*linear-chat\.jsonl: no entry id starts with deadbeef\n$/);
		}
		const { file: own } = await sessionWith([userLine("hi")]);
		const before = readFileSync(own, "utf8");
		const result = await cli(["branch", own, "deadbeef"]);
		assert.equal(result.code, 1);
		assert.match(result.stderr, /no entry id starts with deadbeef/);
		assert.equal(readFileSync(own, "utf8"), before, "a failed branch writes nothing");
	});

	test("an ambiguous id prefix lists the candidates", async () => {
		const file = fixture("wide-node");
		const result = await cli(["path", file, "--leaf", "1", "--json"]);
		assert.equal(result.code, 1);
		assert.equal(result.stdout, "");
		assert.match(result.stderr, /^session-tree: .*wide-node\.jsonl: 1 is ambiguous: .*10bb7d42 \(message\)/);
	});

	test("a damaged line: strict names file and line; --lenient warns and reads the rest", async () => {
		const dir = tempDir();
		const file = join(dir, "damaged.jsonl");
		const text = readFileSync(fixture("linear-chat"), "utf8").split("\n");
		text.splice(3, 0, "{this is not json");
		writeFileSync(file, text.join("\n"));
		const strict = await cli(["tree", file]);
		assert.equal(strict.code, 1);
		assert.ok(strict.stderr.startsWith(`session-tree: ${file}:4: `), strict.stderr);
		const lenient = await cli(["path", file, "--json", "--lenient"]);
		assert.equal(lenient.code, 0, lenient.stderr);
		assert.ok(lenient.stderr.startsWith(`session-tree: warning: ${file}:4: `), lenient.stderr);
		assert.deepEqual(JSON.parse(lenient.stdout), expected("linear-chat").path);
	});
});

describe("new", () => {
	test("--dir and --cwd: prints the absolute path of a fresh v3 file", async () => {
		const dir = tempDir();
		const result = await cli(["new", "--dir", dir, "--cwd", "/home/dev/project"]);
		assert.equal(result.code, 0, result.stderr);
		const file = result.stdout.trim();
		assert.equal(result.stdout, `${file}\n`);
		assert.ok(isAbsolute(file));
		assert.ok(file.startsWith(dir));
		assert.match(file, /\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
		const info = await cliJson<Info>(["info", file, "--json"]);
		assert.deepEqual(
			{ ...info, id: "" },
			{ id: "", version: 3, cwd: "/home/dev/project", parentSession: null, name: null, entryCount: 0, leafId: null },
		);
		assert.ok(file.endsWith(`_${info.id}.jsonl`));
	});

	test("without --dir: pi's layout under the agent dir", async () => {
		const agent = tempDir();
		const result = await cli(["new", "--cwd", "/home/dev/my-project"], { env: { PI_CODING_AGENT_DIR: agent } });
		assert.equal(result.code, 0, result.stderr);
		const file = result.stdout.trim();
		assert.ok(file.startsWith(join(agent, "sessions", "--home-dev-my-project--")), file);
		assert.ok(existsSync(file));
	});

	test("a relative --dir is resolved against the working directory", async () => {
		const base = tempDir();
		const result = await cli(["new", "--dir", "sub/dir"], { cwd: base });
		assert.equal(result.code, 0, result.stderr);
		assert.ok(result.stdout.startsWith(join(base, "sub", "dir")));
		const info = await cliJson<Info>(["info", result.stdout.trim(), "--json"]);
		assert.equal(info.cwd, base);
	});
});

describe("append", () => {
	test("appends each stdin line as a child of the leaf and prints the ids", async () => {
		const messages = [userLine("What is a leaf?"), assistantLine("The end of the active branch.")];
		const file = await newSession();
		const result = await cli(["append", file], { input: `${messages[0]}\n\n   \n${messages[1]}\r\n` });
		assert.equal(result.code, 0, result.stderr);
		const ids = lines(result.stdout);
		assert.equal(ids.length, 2);
		for (const id of ids) assert.match(id, /^[0-9a-f]{8}$/);
		assert.deepEqual(await cliJson(["path", file, "--json"]), ids);
		const ctx = await cliJson<Context>(["ctx", file, "--json"]);
		assert.deepEqual(ctx, {
			messages: messages.map((line) => JSON.parse(line)),
			thinkingLevel: "off",
			model: { provider: "anthropic", modelId: "claude-sonnet-4-5" },
		});

		const more = await cli(["append", file], { input: `${userLine("And a branch?")}\n` });
		assert.equal(more.code, 0);
		const tree = await cliJson<Array<{ id: string; parentId: string | null }>>(["tree", file, "--json"]);
		assert.equal(tree.find((row) => row.id === more.stdout.trim())?.parentId, ids[1]);
	});

	test("empty stdin appends nothing", async () => {
		const file = await newSession();
		const result = await cli(["append", file], { input: "" });
		assert.equal(result.code, 0);
		assert.equal(result.stdout, "");
		assert.equal((await cliJson<Info>(["info", file, "--json"])).entryCount, 0);
	});

	const bad: Array<[string, string, RegExp]> = [
		["invalid JSON", "{not json", /not valid JSON/],
		["an array", "[1, 2]", /expected a JSON object, got an array/],
		["a string", '"hello"', /expected a JSON object, got string/],
		["null", "null", /expected a JSON object, got null/],
		["no role", '{"content":"hi"}', /no string "role"/],
		["a numeric role", '{"role":7,"content":"hi"}', /no string "role"/],
	];
	for (const [name, line, reason] of bad) {
		test(`a bad line (${name}) stops it: lines before stay, nothing after is appended`, async () => {
			const file = await newSession();
			const input = [userLine("one"), "", assistantLine("two"), line, userLine("never")].join("\n");
			const result = await cli(["append", file], { input: `${input}\n` });
			assert.equal(result.code, 1);
			assert.match(result.stderr, /^session-tree: stdin line 4: /);
			assert.match(result.stderr, reason);
			const printed = lines(result.stdout);
			assert.equal(printed.length, 2);
			assert.deepEqual(await cliJson(["path", file, "--json"]), printed);
			const ctx = await cliJson<Context>(["ctx", file, "--json"]);
			assert.deepEqual(
				ctx.messages.map((m) => m.role),
				["user", "assistant"],
			);
		});
	}
});

describe("branch", () => {
	test("moves the persisted leaf: a reopen shows it, the next append forks there", async () => {
		const { file, ids } = await sessionWith([userLine("q1"), assistantLine("a1"), userLine("q2"), assistantLine("a2")]);
		const a1 = ids[1] as string;
		const result = await cli(["branch", file, a1]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout, "");
		assert.equal(result.stderr, "");

		const info = await cliJson<Info>(["info", file, "--json"]);
		assert.equal(info.leafId, a1);
		assert.equal(info.entryCount, 4, "a leaf record is not an entry");
		assert.deepEqual(await cliJson(["path", file, "--json"]), ids.slice(0, 2));
		const ctx = await cliJson<Context>(["ctx", file, "--json"]);
		assert.deepEqual(
			ctx.messages.map((m) => m.content),
			["q1", [{ type: "text", text: "a1" }]],
		);

		const fork = await cli(["append", file], { input: `${userLine("q2, asked differently")}\n` });
		const q2b = fork.stdout.trim();
		assert.deepEqual(await cliJson(["path", file, "--json"]), [ids[0], a1, q2b]);
		assert.deepEqual(await cliJson(["leaves", file, "--json"]), [ids[3], q2b].sort());
	});
});

describe("abbreviated ids", () => {
	test("a unique prefix works wherever an id is taken", async () => {
		const { file, ids } = await sessionWith([userLine("q1"), assistantLine("a1"), userLine("q2"), assistantLine("a2")]);
		const full = ids[1] as string;
		// The shortest prefix of a1's id that no other id shares.
		let prefix = full.slice(0, 1);
		while (ids.some((id) => id !== full && id.startsWith(prefix))) prefix = full.slice(0, prefix.length + 1);
		assert.deepEqual(await cliJson(["path", file, "--leaf", prefix, "--json"]), ids.slice(0, 2));
		const atPrefix = await cliJson(["ctx", file, "--leaf", prefix, "--json"]);
		assert.deepEqual(atPrefix, await cliJson(["ctx", file, "--leaf", full, "--json"]));
		const fork = await cli(["fork", file, prefix]);
		assert.equal(fork.code, 0, fork.stderr);
		assert.equal((await cliJson<Info>(["info", fork.stdout.trim(), "--json"])).leafId, full);
		const branch = await cli(["branch", file, prefix]);
		assert.equal(branch.code, 0, branch.stderr);
		assert.equal((await cliJson<Info>(["info", file, "--json"])).leafId, full);
	});
});

describe("fork and clone", () => {
	test("fork FILE ID copies root→ID into a new file naming FILE as parentSession", async () => {
		const { file, ids } = await sessionWith([userLine("q1"), assistantLine("a1"), userLine("q2"), assistantLine("a2")]);
		const before = readFileSync(file, "utf8");
		const result = await cli(["fork", file, ids[1] as string]);
		assert.equal(result.code, 0, result.stderr);
		const forked = result.stdout.trim();
		assert.equal(result.stdout, `${forked}\n`);
		assert.notEqual(forked, file);
		assert.ok(existsSync(forked));
		const info = await cliJson<Info>(["info", forked, "--json"]);
		assert.equal(info.parentSession, file);
		assert.equal(info.leafId, ids[1]);
		assert.deepEqual(await cliJson(["path", forked, "--json"]), ids.slice(0, 2));
		assert.equal(readFileSync(file, "utf8"), before, "the source is not changed");
	});

	test("fork FILE without ID and clone FILE copy the active path", async () => {
		const { file, ids } = await sessionWith([userLine("q1"), assistantLine("a1"), userLine("q2")]);
		const dir = tempDir();
		const [fork, clone] = await Promise.all([cli(["fork", file]), cli(["clone", file, "--dir", dir])]);
		assert.equal(fork.code, 0, fork.stderr);
		assert.equal(clone.code, 0, clone.stderr);
		assert.ok(clone.stdout.startsWith(dir));
		for (const out of [fork.stdout.trim(), clone.stdout.trim()]) {
			assert.deepEqual(await cliJson(["path", out, "--json"]), ids);
			assert.equal((await cliJson<Info>(["info", out, "--json"])).parentSession, file);
		}
	});

	test("fork keeps labels on the path (pi fixture)", async () => {
		const dir = tempDir();
		// b1f59230 is the last message on the leaf's path of the labels fixture.
		const result = await cli(["fork", fixture("labels"), "b1f59230", "--dir", dir]);
		assert.equal(result.code, 0, result.stderr);
		const forked = result.stdout.trim();
		const tree = await cliJson<Array<{ id: string; label?: string }>>(["tree", forked, "--json"]);
		assert.equal(tree.find((row) => row.id === "0347e0c9")?.label, "beginning");
		assert.equal(tree.find((row) => row.id === "b5ec523e")?.label, "set again");
		assert.equal((await cliJson<Info>(["info", forked, "--json"])).leafId, "b1f59230");
	});
});

describe("clone at a label leaf", () => {
	test("the labels fixture ends in label entries: the clone ends at the last message", async () => {
		const dir = tempDir();
		const result = await cli(["clone", fixture("labels"), "--dir", dir]);
		assert.equal(result.code, 0, result.stderr);
		const info = await cliJson<Info>(["info", result.stdout.trim(), "--json"]);
		assert.equal(info.leafId, "b1f59230");
		assert.deepEqual(await cliJson(["ctx", result.stdout.trim(), "--json"]), expected("labels").context);
	});
});

describe("migrate", () => {
	test("rewrites a v2 file and prints the backup; then it is already current", async () => {
		const dir = tempDir();
		const file = join(dir, "legacy.jsonl");
		copyFileSync(fixture("legacy-v2"), file);
		const original = readFileSync(file, "utf8");
		const result = await cli(["migrate", file]);
		assert.equal(result.code, 0, result.stderr);
		const backup = result.stdout.trim();
		assert.equal(result.stdout, `${backup}\n`);
		assert.equal(readFileSync(backup, "utf8"), original);
		const info = await cliJson<Info>(["info", file, "--json"]);
		assert.equal(info.version, 3);
		assert.deepEqual(await cliJson(["ctx", file, "--json"]), expected("legacy-v2").context);
		const again = await cli(["migrate", file]);
		assert.equal(again.code, 0);
		assert.equal(again.stdout, "already current\n");
	});

	test("a v3 file is already current and is not touched", async () => {
		const { file } = await sessionWith([userLine("hi")]);
		const before = readFileSync(file, "utf8");
		const result = await cli(["migrate", file]);
		assert.equal(result.stdout, "already current\n");
		assert.equal(readFileSync(file, "utf8"), before);
		assert.deepEqual(
			readdirSync(join(file, "..")).filter((name) => name.includes(".bak")),
			[],
		);
	});
});

describe("text outputs", () => {
	test("ctx: numbered messages, summaries marked, then model and thinking level", async () => {
		const compaction = await cli(["ctx", fixture("compaction")]);
		assert.equal(compaction.code, 0);
		const out = lines(compaction.stdout);
		assert.match(out[0] as string, /^ ?1\. [0-9a-f]{8} compaction summary: .+ \([\d,]+ tokens before\)$/);
		assert.match(out[1] as string, /^ ?2\. [0-9a-f]{8} (user|assistant): /);
		assert.equal(out[out.length - 2], "model: anthropic/claude-sonnet-4-5");
		assert.equal(out[out.length - 1], "thinking level: off");
		const count = (expected("compaction").context as Context).messages.length;
		assert.equal(out.length, count + 2);

		const branch = await cli(["ctx", fixture("branch-with-summary")]);
		assert.match(branch.stdout, /^1\. [0-9a-f]{8} branch summary: .+ \(from root\)$/m);

		const thinking = await cli(["ctx", fixture("model-and-thinking-changes")]);
		const want = expected("model-and-thinking-changes").context as Context;
		assert.match(thinking.stdout, new RegExp(`^thinking level: ${want.thinkingLevel}$`, "m"));
		assert.match(thinking.stdout, new RegExp(`^model: ${want.model?.provider}/${want.model?.modelId}$`, "m"));

		const empty = await cli(["ctx", fixture("empty-session")]);
		assert.equal(empty.stdout, "(no messages)\nmodel: (none)\nthinking level: off\n");
	});

	test("path: one entry per line with its type (and role)", async () => {
		const result = await cli(["path", fixture("labels")]);
		const out = lines(result.stdout);
		assert.deepEqual(
			out.map((line) => line.split(" ")[0]),
			expected("labels").path,
		);
		assert.equal(out[0], "0347e0c9 message user");
		assert.equal(out[1], "c02dc46a message assistant");
		assert.equal(out[out.length - 1], "34cbcd08 label");
	});

	test("leaves: one id per line, sorted", async () => {
		const result = await cli(["leaves", fixture("wide-node")]);
		assert.deepEqual(lines(result.stdout), expected("wide-node").leaves);
	});

	test("info: key: value lines", async () => {
		const result = await cli(["info", fixture("session-info-rename")]);
		const out = lines(result.stdout);
		assert.deepEqual(
			out.map((line) => line.split(":")[0]),
			["file", "id", "version", "cwd", "parentSession", "name", "entries", "leaf"],
		);
		assert.ok(out.includes(`name: ${expected("session-info-rename").sessionName}`));
		assert.ok(out.includes(`leaf: ${expected("session-info-rename").leafId}`));
		assert.ok(out.includes("parentSession: (none)"));
	});

	test("tree: box drawing, labels, the leaf marked, the name on top", async () => {
		const labels = lines((await cli(["tree", fixture("labels")])).stdout);
		assert.equal(labels.length, (expected("labels").tree as unknown[]).length);
		assert.ok(labels[0]?.startsWith("0347e0c9 user: "));
		assert.ok(labels[0]?.endsWith(" [beginning]"));
		assert.ok(labels.some((line) => line.startsWith("├── ")));
		assert.ok(labels.some((line) => line.startsWith("└── ")));
		assert.ok(labels.some((line) => line.startsWith("│   ")));
		const marked = labels.filter((line) => line.endsWith("← leaf"));
		assert.deepEqual(marked.length, 1);
		assert.ok(marked[0]?.includes(expected("labels").leafId as string));

		const named = lines((await cli(["tree", fixture("session-info-rename")])).stdout);
		assert.equal(named[0], `Session: ${expected("session-info-rename").sessionName}`);
	});

	test("tree on the 5,000-deep chain: one short line per entry", async () => {
		const result = await cli(["tree", fixture("deep-chain")]);
		assert.equal(result.code, 0, result.stderr);
		const out = lines(result.stdout);
		assert.equal(out.length, expected("deep-chain").entryCount);
		assert.ok(Math.max(...out.map((line) => line.length)) < 200);
		assert.ok(out[out.length - 1]?.endsWith("← leaf"));
	});

	test("tree on the 300-child node: one connector per child", async () => {
		const result = await cli(["tree", fixture("wide-node")]);
		const out = lines(result.stdout);
		assert.equal(out.filter((line) => line.startsWith("├── ")).length, 299);
		assert.equal(out.filter((line) => line.startsWith("└── ")).length, 1);
		assert.ok(Math.max(...out.map((line) => line.length)) < 200);
	});

	test("tree with several roots gives each root a connector", async () => {
		const out = lines((await cli(["tree", fixture("reset-leaf")])).stdout);
		assert.ok(out[0]?.startsWith("├── "));
		assert.equal(out.filter((line) => /^[├└]/.test(line)).length, 2);
	});

	test("a closed pipe is not an error", async () => {
		const result = await new Promise<{ code: number | null; stderr: string }>((done) => {
			const child = spawn(process.execPath, [BIN, "tree", fixture("deep-chain")]);
			let stderr = "";
			child.stderr.on("data", (chunk: Buffer) => {
				stderr += chunk.toString();
			});
			child.stdout.once("data", () => child.stdout.destroy());
			child.on("close", (code) => done({ code, stderr }));
		});
		assert.equal(result.stderr, "");
		assert.equal(result.code, 0);
	});
});

describe("demo", () => {
	test("runs the narrated lifecycle and leaves its files in --dir", async () => {
		const dir = tempDir();
		const result = await cli(["demo", "--dir", dir]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stderr, "");
		const out = lines(result.stdout);
		assert.ok(out.length >= 100 && out.length <= 200, `${out.length} lines`);
		assert.match(result.stdout, /branch only moves the leaf pointer; nothing is rewritten/);
		assert.match(result.stdout, /├── /);
		assert.match(result.stdout, /compaction summary: /);
		assert.match(result.stdout, /leaf after reopening: [0-9a-f]{8} \(it survived\)/);

		const files = readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
		assert.equal(files.length, 2, "the session and its fork");
		const infos = await Promise.all(files.map((name) => cliJson<Info>(["info", join(dir, name), "--json"])));
		const main = infos.find((info) => info.parentSession === null);
		const fork = infos.find((info) => info.parentSession !== null);
		assert.ok(main && fork);
		assert.ok(fork.parentSession?.endsWith(`_${main.id}.jsonl`));
		assert.equal(fork.entryCount, 6);
		const mainFile = join(dir, files.find((name) => name.endsWith(`_${main.id}.jsonl`)) as string);
		const ctx = await cliJson<Context>(["ctx", mainFile, "--json"]);
		assert.equal(ctx.messages[0]?.role, "compactionSummary");
		assert.equal(
			(await cliJson<Array<{ type: string }>>(["tree", mainFile, "--json"])).filter((row) => row.type === "compaction")
				.length,
			1,
		);
		assert.match(result.stdout, new RegExp(`leaf after reopening: ${main.leafId}`));
	});

	test("without --dir it writes to a fresh temp dir and prints the path", async () => {
		const result = await cli(["demo"]);
		assert.equal(result.code, 0, result.stderr);
		const file = /^file: (\S+\.jsonl)$/m.exec(result.stdout)?.[1];
		assert.ok(file && existsSync(file));
		const dir = dirname(file);
		assert.equal(dirname(dir), resolve(tmpdir()));
		assert.match(basename(dir), /^session-tree-demo-/);
		rmSync(dir, { recursive: true, force: true });
	});
});

/**
 * The modules `file` loads before it runs anything: its static imports, followed from file to
 * file (`import type` is erased and does not count; a dynamic `import()` loads later, when used).
 */
function staticImports(file: string, seen = new Set<string>()): Set<string> {
	if (seen.has(file)) return seen;
	seen.add(file);
	const text = readFileSync(file, "utf8");
	for (const match of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?\bfrom\s+"(\.[^"]+)\.js";/gms)) {
		staticImports(resolve(dirname(file), `${match[1]}.ts`), seen);
	}
	return seen;
}

describe("start-up: each command loads what it uses", () => {
	const src = (path: string) => join(REPO, "src", path);
	const loaded = (file: string) => [...staticImports(src(file))].map((path) => path.slice(src("").length + 1));

	test("--version and --help load no command, no session code, no renderer", () => {
		const modules = loaded("cli/main.ts");
		assert.ok(modules.includes("cli/registry.ts"), modules.join(" "));
		// But render/sanitize.ts: a few expressions and no imports, which error output goes through.
		const heavy = modules.filter(
			(path) =>
				/^(cli\/commands|cli\/repl|render|storage|catalog)\/|^session\.ts$/.test(path) && path !== "render/sanitize.ts",
		);
		assert.deepEqual(heavy, []);
	});

	test("ctx loads neither the REPL nor the catalog", () => {
		const modules = loaded("cli/commands/read.ts");
		assert.ok(modules.includes("session.ts"));
		assert.deepEqual(
			modules.filter((path) => /^(cli\/repl|catalog)\//.test(path)),
			[],
		);
	});
});
