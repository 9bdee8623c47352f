import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { cli, removeTempDirs, tempDir } from "./helpers.js";

const dir = tempDir();
after(removeTempDirs);

async function damaged(): Promise<string> {
	const s = await Session.create({ dir, cwd: "/p" });
	await s.appendMessage({ role: "user", content: "q1", timestamp: 1 });
	await s.appendMessage({ role: "user", content: "q2", timestamp: 2 });
	await s.close();
	const file = s.file as string;
	const lines = readFileSync(file, "utf8").trimEnd().split("\n");
	writeFileSync(file, `${[lines[0], "{oops", lines[1], lines[2]].join("\n")}\n{"type":"mess`);
	return file;
}

describe("validate and repair", () => {
	test("validate: a clean file exits 0; a damaged one lists every problem with its line and exits 1", async () => {
		const clean = await Session.create({ dir, cwd: "/p" });
		await clean.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const ok = await cli(["validate", clean.file as string]);
		assert.equal(ok.code, 0, ok.stderr);
		assert.match(ok.stdout, /ok \(1 entry, 1 branch\)/);

		const file = await damaged();
		const before = readFileSync(file);
		const bad = await cli(["validate", file]);
		assert.equal(bad.code, 1);
		assert.match(bad.stdout, new RegExp(`${file}:2: INVALID_JSON: `));
		assert.match(bad.stdout, new RegExp(`${file}:5: TORN_TAIL: `));
		assert.match(bad.stderr, /: 2 problems\n$/);
		const json = await cli(["validate", file, "--json"]);
		assert.deepEqual(
			JSON.parse(json.stdout).map((p: { code: string; line: number }) => [p.code, p.line]),
			[
				["INVALID_JSON", 2],
				["TORN_TAIL", 5],
			],
		);
		assert.deepEqual(readFileSync(file), before, "validate never writes");
	});

	test("repair: writes a clean file atomically, prints the backup, keeps the original bytes", async () => {
		const file = await damaged();
		const before = readFileSync(file);
		const result = await cli(["repair", file]);
		assert.equal(result.code, 0, result.stderr);
		const backup = result.stdout.trim();
		assert.equal(backup, `${file}.bak`);
		assert.deepEqual(readFileSync(backup), before);
		assert.match(result.stderr, /repairing .*INVALID_JSON/);
		const again = await cli(["validate", file]);
		assert.equal(again.code, 0, again.stdout);
		assert.equal((await Session.open(file)).entryCount, 2);
		const nothing = await cli(["repair", file]);
		assert.equal(nothing.stdout, "nothing to repair\n");
		assert.equal(existsSync(`${file}.bak.1`), false);
	});

	test("a missing file is named, exit 1", async () => {
		const missing = join(dir, "nope.jsonl");
		const result = await cli(["validate", missing]);
		assert.equal(result.code, 1);
		assert.match(result.stderr, new RegExp(missing));
	});
});
