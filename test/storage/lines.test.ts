/** The byte-range line reader agrees with the storage layer's scanLines. */

import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { scanLines } from "../../src/storage/file-store.js";
import { lineText, scanByteLines } from "../../src/storage/lines.js";

const dir = mkdtempSync(join(tmpdir(), "session-tree-lines-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function both(content: string | Buffer): {
	ours: Array<[number, string, boolean]>;
	theirs: Array<[number, string, boolean]>;
} {
	const file = join(dir, "f.jsonl");
	writeFileSync(file, content);
	const fd = openSync(file, "r");
	try {
		const ours = [...mapLines(scanByteLines(fd))];
		const theirs = [...scanLines(fd)].map((raw): [number, string, boolean] => [raw.line, raw.text, raw.terminated]);
		return { ours, theirs };
	} finally {
		closeSync(fd);
	}
}

function* mapLines(lines: ReturnType<typeof scanByteLines>): Generator<[number, string, boolean]> {
	for (const line of lines) yield [line.line, lineText(line), line.terminated];
}

describe("scanByteLines", () => {
	test("same lines as scanLines: BOM, CRLF, blank lines, U+2028, no final newline", () => {
		for (const content of [
			"",
			"\n",
			"a",
			"a\n",
			"\ufeff{}\n{}",
			"a\r\nb\r\n",
			"x\u2028y\n\nz\u0085\n",
			"é\n日本\n😀",
		]) {
			const { ours, theirs } = both(content);
			assert.deepEqual(ours, theirs, JSON.stringify(content));
		}
	});

	test("lines longer than a chunk, and lines across chunk boundaries", () => {
		const long = "x".repeat((1 << 20) + 17);
		const content = `${"a".repeat((1 << 20) - 3)}\n${long}\n${"é".repeat(1 << 19)}\nend`;
		const { ours, theirs } = both(content);
		assert.deepEqual(ours, theirs);
		assert.equal(ours.length, 4);
	});

	test("a line across several chunks (pieces joined once at its end), and one left unterminated", () => {
		// 5.5 chunks of distinct bytes, so a piece lost, doubled or out of order changes the text.
		const piece = (n: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
		const long = piece((5 << 20) + (1 << 19));
		const content = `head\n${long}\nmid\n${long}é`;
		const { ours, theirs } = both(content);
		assert.deepEqual(ours, theirs);
		assert.deepEqual(
			ours.map(([line, text, terminated]) => [line, text.length, terminated]),
			[
				[1, 4, true],
				[2, long.length, true],
				[3, 3, true],
				[4, long.length + 1, false],
			],
		);
		const file = join(dir, "f.jsonl");
		const fd = openSync(file, "r");
		try {
			const offsets: number[] = [];
			for (const line of scanByteLines(fd)) offsets.push(line.offset); // one line object, yielded again
			assert.deepEqual(offsets, [0, 5, 6 + long.length, 10 + long.length]);
		} finally {
			closeSync(fd);
		}
	});

	test("random content (property)", () => {
		fc.assert(
			fc.property(
				fc.array(fc.oneof(fc.string({ unit: "binary", maxLength: 30 }), fc.constant("\n")), { maxLength: 30 }),
				(parts) => {
					const { ours, theirs } = both(parts.join(""));
					assert.deepEqual(ours, theirs);
				},
			),
			{ numRuns: 300 },
		);
	});
});
