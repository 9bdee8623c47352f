/**
 * The command line on "version 3" files whose entries have no ids (issue 14): `ctx` rejects
 * them as before, `ctx --lenient` shows the chained context, `repair` writes it out. Expected
 * outputs are written by hand from test/fixtures/idless/README.md.
 */

import assert from "node:assert/strict";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { cli, lines, REPO, removeTempDirs, tempDir } from "./helpers.js";

const FIXTURES = join(REPO, "test", "fixtures", "idless");
const dir = tempDir();
after(removeTempDirs);

let copies = 0;
function copyOf(name: string): string {
	const file = join(dir, `${copies++}-${name}.jsonl`);
	copyFileSync(join(FIXTURES, `${name}.jsonl`), file);
	return file;
}

const LINEAR_CTX = [
	"1. 9d1ea795 user: How many lines are in notes.txt?",
	'2. 9c1ea602 assistant: Let me count them. → bash({"command":"wc -l notes.txt"})',
	"3. 971e9e23 toolResult: bash: 12 notes.txt",
	"4. 961e9c90 assistant: notes.txt has 12 lines.",
	"5. 981e9fb6 user: Summarise it in one sentence.",
	"6. a31eb107 assistant: Twelve errands for the week.",
	"model: openai/gpt-5",
	"thinking level: off",
];

const MIXED_CTX = [
	"1. aa000001 user: Which port does the dev server use?",
	"2. aa000002 assistant: Port 5173.",
	"3. bb000001 user: Can I change the dev port?",
	"4. bb000002 assistant: Yes: set server.port in vite.config.ts.",
	"5. 02c16338 user: Show me the line.",
	"6. 03c164cb assistant: server: { port: 3000 }",
	"model: anthropic/claude-sonnet-4-5",
	"thinking level: off",
];

describe("id-less entries on the command line", () => {
	test("ctx: a strict open fails as before, naming the file and the first id-less line", async () => {
		const file = copyOf("linear-chat");
		const result = await cli(["ctx", file]);
		assert.equal(result.code, 1);
		assert.equal(result.stdout, "");
		assert.match(result.stderr, new RegExp(`${file}:2: the model_change entry has no string id`));
	});

	test("ctx --lenient: the chained context, and one warning per run of id-less entries", async () => {
		const linear = copyOf("linear-chat");
		const one = await cli(["ctx", "--lenient", linear]);
		assert.equal(one.code, 0, one.stderr);
		assert.deepEqual(lines(one.stdout), LINEAR_CTX);
		assert.deepEqual(lines(one.stderr), [
			`session-tree: warning: ${linear}:2: 8 entries without id and parentId on lines 2-9 of ${linear}; chained in file order, each under the entry before it, with generated ids 9a1ea2dc to a31eb107`,
		]);

		const mixed = copyOf("mixed");
		const two = await cli(["ctx", "--lenient", mixed]);
		assert.equal(two.code, 0, two.stderr);
		assert.deepEqual(lines(two.stdout), MIXED_CTX);
		const warnings = lines(two.stderr);
		assert.equal(warnings.length, 2);
		assert.match(warnings[0] ?? "", new RegExp(`^session-tree: warning: ${mixed}:4: 2 entries .* on lines 4-5 `));
		assert.match(warnings[1] ?? "", new RegExp(`^session-tree: warning: ${mixed}:8: 3 entries .* on lines 8-10 `));
	});

	test("repair: writes the chained session, keeps the original as FILE.bak, then opens strictly", async () => {
		for (const [name, ctx] of [
			["linear-chat", LINEAR_CTX],
			["mixed", MIXED_CTX],
		] as const) {
			const file = copyOf(name);
			const original = readFileSync(file);
			const result = await cli(["repair", file]);
			assert.equal(result.code, 0, result.stderr);
			assert.equal(result.stdout, `${file}.bak\n`);
			assert.deepEqual(readFileSync(`${file}.bak`), original);
			assert.match(
				result.stderr,
				new RegExp(`repairing ${file}:\\d+: INVALID_RECORD: \\d+ entries without id and parentId`),
			);
			const validate = await cli(["validate", file]);
			assert.equal(validate.code, 0, validate.stdout);
			const strict = await cli(["ctx", file]);
			assert.equal(strict.code, 0, strict.stderr);
			assert.deepEqual(lines(strict.stdout), ctx, "the same context, strictly");
			assert.equal(strict.stderr, "");
			const again = await cli(["repair", file]);
			assert.equal(again.stdout, "nothing to repair\n");
		}
	});
});
