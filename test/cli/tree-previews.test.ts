/**
 * The previews `session-tree tree` makes in a second thread (src/cli/tree-previews.ts): the
 * lines printed with them are the lines printed without them, whichever thread made which
 * preview, and a body that cannot be read fails as it did. The expectation is the renderer's
 * own output with no worker (the path every other view takes), on pi's golden fixtures; the
 * chunks are made tiny (256 bytes) so that each file is many chunks, lines longer than a chunk
 * (big-line.jsonl's is 1 MB) included.
 */

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { TreePreviewThread } from "../../src/cli/tree-previews.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { viewLineOf } from "../../src/core/tree-view.js";
import { renderTreeLines, type TreePreviews } from "../../src/render/tree-text.js";
import { Session } from "../../src/session.js";
import { FIXTURES, tempDir } from "./helpers.js";

/** Fixtures of the current version (read lazily, so their nodes know where their lines are). */
const FILES = [
	"big-line",
	"branched-session-clean",
	"branch-with-summary",
	"compaction-on-side-branch",
	"custom-and-custom-message",
	"deep-chain",
	"labels",
	"lone-surrogate",
	"tool-calls",
	"two-compactions",
	"unicode",
	"wide-node",
];

async function lines(file: string, previews?: TreePreviews): Promise<string[]> {
	const session = await Session.open(file);
	return renderTreeLines(session.getTree(), {
		leafId: session.getLeafId(),
		transient: true,
		...(previews ? { previews } : {}),
	});
}

/**
 * The rows whose nodes know where their lines are (what the worker can be matched against): the
 * entries the open left unparsed. Those it parsed (a line not in pi's exact layout, say) are
 * read here, as without the worker.
 */
async function linedRows(file: string): Promise<number> {
	const session = await Session.open(file);
	let count = 0;
	const stack = [...session.getTree()];
	for (let node = stack.pop(); node; node = stack.pop()) {
		if (viewLineOf(node)) count++;
		stack.push(...node.children);
	}
	return count;
}

for (const name of FILES) {
	test(`tree previews from the worker: ${name} prints as without it, every preview the worker's`, async () => {
		const file = join(FIXTURES, `${name}.jsonl`);
		const expected = await lines(file);
		const thread = TreePreviewThread.start(file, { previewLength: 60, chunkBytes: 256 });
		assert.ok(thread, "the worker starts");
		try {
			assert.equal(await thread.settled(), true, "the worker went through every chunk");
			assert.deepEqual(await lines(file, thread), expected);
			const rows = await linedRows(file);
			assert.ok(rows > 0);
			assert.equal(thread.served, rows);
		} finally {
			thread.stop();
		}
	});
}

test("tree previews: the rows this thread reaches first are read here, the rest come from the worker", async () => {
	const file = join(FIXTURES, "deep-chain.jsonl");
	const expected = await lines(file);
	for (let run = 0; run < 5; run++) {
		const thread = TreePreviewThread.start(file, { previewLength: 60, chunkBytes: 512 });
		assert.ok(thread);
		try {
			// No wait: the session opens while the worker starts, and the two meet wherever they do.
			assert.deepEqual(await lines(file, thread), expected);
			assert.ok(thread.served <= (await linedRows(file)));
		} finally {
			thread.stop();
		}
	}
});

test("tree previews: a worker reading another file (same places, other ids) gives none", async () => {
	const dir = tempDir();
	const file = join(FIXTURES, "branched-session-clean.jsonl");
	const other = join(dir, "other.jsonl");
	const text = readFileSync(file, "utf8");
	// Every id's last character changed (same lengths, so every line is where it was).
	const ids = new Set([...text.matchAll(/"id":"([^"]+)"/g)].map((match) => match[1] as string));
	let changed = text;
	for (const id of ids) changed = changed.replaceAll(`"${id}"`, `"${id.slice(0, -1)}${id.endsWith("z") ? "y" : "z"}"`);
	assert.equal(changed.length, text.length);
	writeFileSync(other, changed);
	const thread = TreePreviewThread.start(other, { previewLength: 60, chunkBytes: 256 });
	assert.ok(thread);
	try {
		assert.equal(await thread.settled(), true);
		assert.deepEqual(await lines(file, thread), await lines(file));
		assert.equal(thread.served, 0);
	} finally {
		thread.stop();
	}
});

test("tree previews: a body that cannot be read fails here, with its file and line, as without the worker", async () => {
	const dir = tempDir();
	const file = join(dir, "damaged.jsonl");
	const text = readFileSync(join(FIXTURES, "branch-with-summary.jsonl"), "utf8").split("\n");
	// A message off the active path (so the open, which reads the path's bodies, succeeds): its
	// envelope (the start and end of the line) intact, its body no JSON (a raw control character
	// in a string). The first such line is found by trying each one.
	let at = -1;
	for (let i = 1; i < text.length && at < 0; i++) {
		if (!text[i]?.includes('"text":"')) continue;
		const damaged = [...text];
		damaged[i] = (text[i] as string).replace('"text":"', '"text":"\u0001');
		writeFileSync(file, damaged.join("\n"));
		if (
			await Session.open(file).then(
				() => true,
				() => false,
			)
		)
			at = i;
	}
	assert.ok(at > 0, "a line off the active path");
	const failure = async (previews?: TreePreviews) => {
		try {
			await lines(file, previews);
		} catch (error) {
			assert.ok(isSessionTreeError(error, "INVALID_JSON"), String(error));
			return { message: error.message, line: error.line, file: error.file };
		}
		assert.fail("the tree was printed");
	};
	const expected = await failure();
	assert.equal(expected.line, at + 1);
	const thread = TreePreviewThread.start(file, { previewLength: 60, chunkBytes: 256 });
	assert.ok(thread);
	try {
		assert.equal(await thread.settled(), true);
		assert.deepEqual(await failure(thread), expected);
		assert.ok(thread.served > 0, "the worker made the other lines' previews");
	} finally {
		thread.stop();
	}
});
