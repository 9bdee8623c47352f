/**
 * One rule for `-o`: `-o -` is standard output in every command that writes a file (export,
 * html, import), never a file named `-`; an existing OUT is refused alike without --force.
 * (html's own cases are in html.test.ts.)
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { after, describe, test } from "node:test";
import { outputFile } from "../../src/cli/output.js";
import { cli, fixture, REPO, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

/** A real ChatGPT conversation (test/fixtures/import, see its SOURCES). */
const CHATGPT = join(REPO, "test", "fixtures", "import", "chatgpt", "polylogue-native-conversation-v1.json");

describe("-o - is stdout", () => {
	test("outputFile: undefined for no -o and for -, else the absolute path", () => {
		assert.equal(outputFile(undefined), undefined);
		assert.equal(outputFile("-"), undefined);
		assert.equal(outputFile("out.json"), resolve("out.json"));
		assert.equal(outputFile("./-"), resolve("-"), "./- is a file named -, as in other tools");
	});

	test("export -o - prints what -o FILE writes, and leaves no file named -, run after run", async () => {
		const dir = tempDir();
		const out = join(dir, "conversations.json");
		const written = await cli(["export", fixture("labels"), "--to", "chatgpt", "-o", out], { cwd: dir });
		assert.equal(written.code, 0, written.stderr);
		for (let run = 0; run < 2; run++) {
			const printed = await cli(["export", fixture("labels"), "--to", "chatgpt", "-o", "-"], { cwd: dir });
			assert.equal(printed.code, 0, printed.stderr);
			assert.equal(printed.stdout, readFileSync(out, "utf8"));
			assert.deepEqual(readdirSync(dir), ["conversations.json"]);
		}
		const bare = await cli(["export", fixture("labels"), "--to", "openwebui"], { cwd: dir });
		assert.ok(Array.isArray(JSON.parse(bare.stdout)), "no -o: stdout too");
	});

	test("export refuses an existing OUT with the message html gives, and replaces it with --force", async () => {
		const dir = tempDir();
		const out = join(dir, "chat.json");
		writeFileSync(out, "mine");
		const refused = await cli(["export", fixture("labels"), "--to", "openwebui", "-o", out]);
		assert.equal(refused.code, 1);
		assert.equal(refused.stderr, `session-tree: ${out}: the file exists (--force replaces it)\n`);
		assert.equal(readFileSync(out, "utf8"), "mine");
		const forced = await cli(["export", fixture("labels"), "--to", "openwebui", "-o", out, "--force"]);
		assert.equal(forced.code, 0, forced.stderr);
		assert.ok(Array.isArray(JSON.parse(readFileSync(out, "utf8"))));
	});

	test("import -o - prints the session's JSONL, byte for byte what -o FILE.jsonl writes, and leaves nothing behind", async () => {
		const dir = tempDir();
		const scratch = tempDir();
		const file = join(dir, "chat.jsonl");
		const written = await cli(["import", CHATGPT, "-o", file], { cwd: dir });
		assert.equal(written.code, 0, written.stderr);
		const printed = await cli(["import", CHATGPT, "-o", "-"], { cwd: dir, env: { TMPDIR: scratch } });
		assert.equal(printed.code, 0, printed.stderr);
		assert.equal(printed.stdout, readFileSync(file, "utf8"));
		assert.match(printed.stderr, /1 session: 1 written/);
		assert.deepEqual(readdirSync(dir), ["chat.jsonl"], "no file named -");
		assert.deepEqual(readdirSync(scratch), [], "the scratch copy is removed");
		// What it printed is a session: it opens as one.
		const copy = join(dir, "copy.jsonl");
		writeFileSync(copy, printed.stdout);
		const tree = await cli(["leaves", copy]);
		assert.equal(tree.code, 0, tree.stderr);
	});

	test("an OUT in a missing directory is named, not the temporary file, and not in Node's words", async () => {
		const dir = tempDir();
		for (const args of [
			["export", fixture("labels"), "--to", "chatgpt"],
			["html", fixture("labels")],
		]) {
			const out = join(dir, "missing", "out.txt");
			const result = await cli([...args, "-o", out]);
			assert.equal(result.code, 1, args.join(" "));
			assert.equal(result.stderr, `session-tree: ${out}: cannot write: no such file or directory (ENOENT)\n`);
		}
	});
});
