/**
 * `readRecordBytes` (the HTML page's reader of its records) against the loader fed every line
 * parsed with `JSON.parse`, the way the page read them before issue 28's sixth round: the
 * same entries, leaf, labels and problems for every fixture of test/fixtures/pi-v3 and the real
 * pi sessions of test/fixtures/real/pi, with the bodies of a version 3 file left unparsed until
 * asked for. The expectation is that independent reading, line by line.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { loadTree } from "../../src/core/load.js";
import { readRecordBytes } from "../../src/core/record-bytes.js";
import type { ParsedLine, RawRecord } from "../../src/core/records.js";
import { REPO } from "../cli/helpers.js";

const DIRS = [join(REPO, "test", "fixtures", "pi-v3"), join(REPO, "test", "fixtures", "real", "pi")];
const FILES = DIRS.flatMap((dir) =>
	readdirSync(dir)
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(dir, name)),
);

/** Every line parsed, as the page did: a line that is not a JSON object is left out. */
function parsedLines(text: string): ParsedLine[] {
	const lines: ParsedLine[] = [];
	text.split("\n").forEach((line, index) => {
		if (line.trim() === "") return;
		try {
			const value: unknown = JSON.parse(line);
			if (value !== null && typeof value === "object" && !Array.isArray(value))
				lines.push({ line: index + 1, record: value as RawRecord });
		} catch {
			// Not JSON: left out.
		}
	});
	return lines;
}

/** A file as the page holds it: session-tree's encoding of each parsed record, one per line. */
function pageBytes(file: string): Uint8Array {
	const lines = parsedLines(readFileSync(file, "utf8"));
	return new TextEncoder().encode(lines.map((line) => `${JSON.stringify(line.record)}\n`).join(""));
}

describe("readRecordBytes: the page's records read from bytes", () => {
	test("the fixtures are there", () => assert.ok(FILES.length >= 20, `${FILES.length} files`));

	for (const file of FILES) {
		test(`same tree as every line parsed: ${file.slice(REPO.length + 1)}`, () => {
			const bytes = pageBytes(file);
			const expected = loadTree(parsedLines(new TextDecoder().decode(bytes)), { lenient: true, file: "session" });
			const read = readRecordBytes(bytes);
			const actual = loadTree(read.lines, {
				lenient: true,
				file: "session",
				...(read.source ? { source: read.source } : {}),
			});
			const version = (read.lines[0]?.record as { version?: unknown } | undefined)?.version;
			const envelopes = read.lines.filter((line) => line.envelope !== undefined).length;
			if (version !== 3) assert.equal(envelopes, 0, "no envelopes in a file that is migrated");
			const unparsed = actual.tree.nodesInOrder().filter((node) => !node.loaded).length;
			assert.equal(unparsed, envelopes, "every envelope's body waits until it is asked for");
			assert.equal(read.unreadable, 0);
			assert.deepEqual(actual.tree.getEntries(), expected.tree.getEntries());
			assert.equal(actual.tree.getLeafId(), expected.tree.getLeafId());
			assert.deepEqual([...actual.tree.getLabels()], [...expected.tree.getLabels()]);
			assert.deepEqual(
				actual.problems.map((p) => [p.code, p.line]),
				expected.problems.map((p) => [p.code, p.line]),
			);
		});
	}

	for (const name of ["labels.jsonl", "unicode.jsonl"])
		test(`pieces cut anywhere read as the whole array: the same lines, envelopes and bodies (property): ${name}`, () => {
			// Sessions with branches and labels, and with multi-byte text, cut at random places
			// (inside lines, inside characters, at newlines, into empty pieces).
			const bytes = pageBytes(join(REPO, "test", "fixtures", "pi-v3", name));
			const whole = readRecordBytes(bytes);
			const wholeLoad = loadTree(whole.lines, { lenient: true, ...(whole.source ? { source: whole.source } : {}) });
			const entries = wholeLoad.tree.getEntries();
			fc.assert(
				fc.property(fc.uniqueArray(fc.integer({ min: 0, max: bytes.length }), { maxLength: 40 }), (cuts) => {
					const at = [0, ...cuts.sort((a, b) => a - b), bytes.length];
					const pieces = at.slice(1).map((end, i) => bytes.slice(at[i], end));
					const read = readRecordBytes(pieces);
					assert.deepEqual(
						read.lines.map((line) => [line.line, line.envelope?.offset, line.envelope?.length, line.record?.type]),
						whole.lines.map((line) => [line.line, line.envelope?.offset, line.envelope?.length, line.record?.type]),
					);
					const load = loadTree(read.lines, { lenient: true, ...(read.source ? { source: read.source } : {}) });
					assert.deepEqual(load.tree.getEntries(), entries);
					// The raw bytes a visitor sees are each line's.
					const spans = read.lines.flatMap((line) => (line.envelope ? [line.envelope] : []));
					const seen: string[] = [];
					read.source?.visitLines?.(spans, (index, view, start, end) => {
						seen[index] = new TextDecoder().decode(view.subarray(start, end));
					});
					assert.deepEqual(seen, read.source?.readLines(spans));
					assert.deepEqual(
						seen,
						spans.map((span) => new TextDecoder().decode(bytes.subarray(span.offset, span.offset + span.length))),
					);
				}),
				{ numRuns: 200 },
			);
		});

	test("a version 3 session's messages come back as envelopes", () => {
		const bytes = pageBytes(join(REPO, "test", "fixtures", "pi-v3", "linear-chat.jsonl"));
		const read = readRecordBytes(bytes);
		const messages = read.lines.filter((line) => line.record?.type === "message" || line.envelope?.type === "message");
		assert.ok(messages.length > 0);
		assert.ok(messages.every((line) => line.envelope !== undefined));
	});

	test("a line that is not what its envelope says is reported with its line when its body is parsed", () => {
		const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}';
		const broken =
			'{"type":"message","id":"m1","parentId":null,"timestamp":"2026-03-01T10:00:00.000Z","message":{"role":"user","content":"x",}}';
		const read = readRecordBytes(new TextEncoder().encode(`${header}\n\n${broken}\nnot json\n`));
		assert.equal(read.unreadable, 1, "the line that is no JSON at all");
		assert.ok(read.lines[1]?.envelope, "the broken line's envelope was read");
		const load = loadTree(read.lines, {
			lenient: true,
			file: "session",
			...(read.source ? { source: read.source } : {}),
		});
		assert.equal(load.problems.length, 0, "nothing is known before the body is parsed");
		load.tree.getEntries();
		assert.deepEqual(
			load.problems.map((p) => [p.code, p.line]),
			[["INVALID_JSON", 3]],
		);
	});
});
