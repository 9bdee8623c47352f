/**
 * Messages that once leaked internals: a directory given as a session (EISDIR), a file that is
 * not a session ("no such session"), a mistyped command (no suggestion), "1 branches", and
 * `model: undefined/undefined` for an assistant message appended without a model.
 */

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { editDistance, nearestName } from "../../src/cli/suggest.js";
import { describeSystemError, isSessionTreeError } from "../../src/core/errors.js";
import { Session } from "../../src/index.js";
import { countOf, modelLabel } from "../../src/render/preview.js";
import { cli, lines, REPO, removeTempDirs, tempDir, userLine } from "./helpers.js";

after(removeTempDirs);

/** A directory holding one session file; the session's path. */
async function sessionDir(): Promise<{ dir: string; file: string }> {
	const dir = join(tempDir(), "sessions");
	mkdirSync(dir);
	const session = await Session.create({ dir, cwd: "/p" });
	await session.appendMessage({ role: "user", content: "hi", timestamp: 1 });
	await session.close();
	return { dir, file: session.file as string };
}

describe("a location that is not a session", () => {
	test("a directory: said to be one, with `session-tree ls DIR`, for reads and writes and DIR#ID", async () => {
		const { dir } = await sessionDir();
		const cwd = join(dir, "..");
		for (const args of [
			["tree", "./sessions"],
			["ctx", "sessions"],
			["append", "./sessions"],
			["tree", "sessions#0195"],
		]) {
			const result = await cli(args, { cwd, input: `${userLine("x")}\n` });
			assert.equal(result.code, 1, args.join(" "));
			assert.doesNotMatch(result.stderr, /EISDIR|illegal operation/);
			const shown = (args[1] as string).replace(/#.*/, "");
			assert.equal(
				result.stderr,
				`session-tree: ${dir}: is a directory, not a session file (session-tree ls ${shown} lists the sessions in it)\n`,
			);
		}
		// The suggested command works.
		const ls = await cli(["ls", "./sessions"], { cwd });
		assert.equal(ls.code, 0, ls.stderr);
		assert.match(ls.stdout, /"hi"/);
	});

	test("the library says it in plain words too: IO_ERROR, is a directory (EISDIR)", async () => {
		const { dir } = await sessionDir();
		await assert.rejects(Session.open(dir), (error) => {
			assert.ok(isSessionTreeError(error, "IO_ERROR"));
			assert.equal(error.message, `${dir}: cannot read: is a directory (EISDIR)`);
			return true;
		});
	});

	test("README.md: not a session file, naming what line 1 holds (file:1:)", async () => {
		const readme = join(REPO, "README.md");
		const firstLine = readFileSync(readme, "utf8").split("\n")[0] as string;
		const result = await cli(["tree", readme]);
		assert.equal(result.code, 1);
		assert.equal(
			result.stderr,
			`session-tree: ${readme}:1: not a session file: not a pi session, nor a Claude Code, Codex, Gemini CLI, ChatGPT, Claude.ai or Open WebUI history (this line is not JSON: ${JSON.stringify(firstLine.slice(0, 60) + (firstLine.length > 60 ? "…" : ""))})\n`,
		);
	});

	test("a JSON file of another shape and an empty line 1 are described", async () => {
		const dir = tempDir();
		const json = join(dir, "package.jsonl");
		writeFileSync(json, `${JSON.stringify({ name: "x", version: "1.0.0", type: "module" })}\n`);
		const object = await cli(["ctx", json]);
		assert.equal(object.code, 1);
		assert.match(
			object.stderr,
			/not a session file: .*\(this line is a JSON object with type "module" \(keys: name, version, type\)\)\n$/,
		);
		const blank = join(dir, "blank.jsonl");
		writeFileSync(blank, "\n\n");
		const empty = await cli(["tree", blank]);
		assert.equal(empty.code, 1);
		assert.doesNotMatch(empty.stderr, /undefined/);
	});
});

describe("typos and counts", () => {
	test("an unknown command suggests the nearest one (edit distance), and none for far ones", async () => {
		const tre = await cli(["tre", "x.jsonl"]);
		assert.equal(tre.code, 2);
		assert.equal(tre.stderr, `session-tree: unknown command "tre" (did you mean tree?)\nTry 'session-tree --help'.\n`);
		const help = await cli(["help", "serch"]);
		assert.match(help.stderr, /unknown command "serch" \(did you mean search\?\)/);
		const far = await cli(["frobnicate"]);
		assert.equal(far.stderr, `session-tree: unknown command "frobnicate"\nTry 'session-tree --help'.\n`);
	});

	test("nearestName and editDistance", () => {
		assert.equal(editDistance("tre", "tree"), 1);
		assert.equal(editDistance("kitten", "sitting"), 3);
		assert.equal(editDistance("", "ls"), 2);
		const names = ["tree", "ls", "ctx", "info", "search", "import", "export"];
		assert.equal(nearestName("tre", names), "tree");
		assert.equal(nearestName("TREE", names), "tree");
		assert.equal(nearestName("lss", names), "ls");
		assert.equal(nearestName("exprot", names), "export");
		assert.equal(nearestName("x", names), undefined);
		assert.equal(nearestName("zzzz", names), undefined);
	});

	test("countOf: singular for 1, the right plural otherwise", () => {
		assert.equal(countOf(1, "branch"), "1 branch");
		assert.equal(countOf(2, "branch"), "2 branches");
		assert.equal(countOf(0, "entry"), "0 entries");
		assert.equal(countOf(1, "entry"), "1 entry");
		assert.equal(countOf(12345, "session"), "12,345 sessions");
		assert.equal(countOf(3, "key"), "3 keys");
		assert.equal(countOf(2, "child", "children"), "2 children");
	});

	test("validate of a one-entry session says 1 entry, 1 branch", async () => {
		const { file } = await sessionDir();
		const result = await cli(["validate", file]);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout, `${file}: ok (1 entry, 1 branch)\n`);
	});
});

describe("a model that is not set", () => {
	test("ctx of an assistant message appended without provider and model: (none), and null in --json", async () => {
		const { file } = await sessionDir();
		const appended = await cli(["append", file], {
			input: `${JSON.stringify({ role: "assistant", content: [{ type: "text", text: "yo" }], timestamp: 2 })}\n`,
		});
		assert.equal(appended.code, 0, appended.stderr);
		const text = await cli(["ctx", file]);
		assert.equal(text.code, 0, text.stderr);
		assert.doesNotMatch(text.stdout, /undefined/);
		assert.deepEqual(lines(text.stdout).slice(-2), ["model: (none)", "thinking level: off"]);
		const json = await cli(["ctx", file, "--json"]);
		assert.doesNotMatch(json.stdout, /undefined/);
		assert.equal((JSON.parse(json.stdout) as { model: unknown }).model, null);
		const md = await cli(["md", file]);
		assert.doesNotMatch(md.stdout, /undefined/);
	});

	test("modelLabel", () => {
		assert.equal(modelLabel({ provider: "anthropic", modelId: "claude-sonnet-4-5" }), "anthropic/claude-sonnet-4-5");
		assert.equal(modelLabel({ modelId: "gpt-5" }), "gpt-5");
		assert.equal(modelLabel({}), undefined);
		assert.equal(modelLabel(null), undefined);
	});
});

describe("operating-system errors in plain words", () => {
	test("describeSystemError on real errors of node:fs", () => {
		const dir = tempDir();
		let caught: unknown;
		try {
			readFileSync(dir);
		} catch (error) {
			caught = error;
		}
		assert.equal(describeSystemError(caught), "is a directory (EISDIR)");
		try {
			readFileSync(join(dir, "missing"));
		} catch (error) {
			caught = error;
		}
		assert.equal(describeSystemError(caught), "no such file or directory (ENOENT)");
		assert.equal(describeSystemError(new Error("plain")), "plain");
	});

	test("--dir naming a file: not a directory, for new, fork and import alike (not EEXIST)", async () => {
		const { file } = await sessionDir();
		const dir = tempDir();
		const plain = join(dir, "notes.txt");
		writeFileSync(plain, "x");
		const message = `session-tree: ${plain}: not a directory (--dir takes a directory or a store)\n`;
		for (const args of [
			["new", "--dir", plain],
			["fork", file, "--dir", plain],
			[
				"import",
				join(REPO, "test", "fixtures", "import", "chatgpt", "polylogue-native-conversation-v1.json"),
				"--dir",
				plain,
			],
		]) {
			const result = await cli(args);
			assert.equal(result.code, 1, args.join(" "));
			assert.equal(result.stderr, message, args.join(" "));
		}
	});
});
