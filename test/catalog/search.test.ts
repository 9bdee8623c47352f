/** Query compilation, the raw-line pre-filter, searchable texts, snippets, and the order sessions are read in. */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { compileQuery, InvalidPattern, makeSnippet, newestFirst, searchSessions } from "../../src/catalog/search.js";
import { DirectoryCollection } from "../../src/storage/directory-collection.js";
import { buildLayout } from "./layout.js";

describe("compileQuery", () => {
	test("plain text is literal; -i folds case; --regex is a regular expression", () => {
		assert.deepEqual(compileQuery({ pattern: "a.b" }).find("axb a.b"), { start: 4, end: 7 });
		assert.equal(compileQuery({ pattern: "ABC" }).find("abc"), undefined);
		assert.deepEqual(compileQuery({ pattern: "ABC", ignoreCase: true }).find("xabc"), { start: 1, end: 4 });
		assert.deepEqual(compileQuery({ pattern: "a.b", regex: true }).find("axb"), { start: 0, end: 3 });
		assert.deepEqual(compileQuery({ pattern: "ß", ignoreCase: true }).find("STRASSE ß"), { start: 8, end: 9 });
		// `\-` is not valid with the u flag; it still works.
		assert.deepEqual(compileQuery({ pattern: "a\\-b", regex: true }).find("a-b"), { start: 0, end: 3 });
		assert.throws(() => compileQuery({ pattern: "(", regex: true }), InvalidPattern);
	});

	test("the raw-line pre-filter never hides a match (property)", () => {
		const text = fc.string({ unit: "binary", maxLength: 40 });
		fc.assert(
			fc.property(text, text, text, fc.boolean(), (before, needle, afterText, ignoreCase) => {
				fc.pre(needle.length > 0);
				const full = before + needle + afterText;
				const line = JSON.stringify({ type: "message", message: { role: "user", content: full } });
				const shown = ignoreCase ? full.toUpperCase() : full;
				const lineShown = JSON.stringify({ type: "message", message: { role: "user", content: shown } });
				const matcher = compileQuery({ pattern: needle, ignoreCase });
				assert.ok(matcher.mayMatch(line), JSON.stringify({ needle, line }));
				if (matcher.find(shown)) assert.ok(matcher.mayMatch(lineShown), JSON.stringify({ needle, lineShown }));
			}),
			{ numRuns: 2000 },
		);
	});

	test("the pre-filter on bytes answers as on text, line after line of one buffer (property)", () => {
		// Few characters, so that needles (long ones too) and their pieces occur often.
		const char = fc.constantFrom("a", "b", "q", "z", "I", " ", "é", "😀", "\\", '"', "\n", "u", "0");
		const text = fc.array(char, { maxLength: 24 }).map((chars) => chars.join(""));
		fc.assert(
			fc.property(
				fc.array(text, { minLength: 1, maxLength: 6 }),
				text,
				fc.boolean(),
				fc.nat(9),
				(contents, needle, ignoreCase, pad) => {
					fc.pre(needle.length > 0);
					const matcher = compileQuery({ pattern: needle, ignoreCase });
					const lines = contents.map((content) => JSON.stringify({ message: { role: "user", content } }));
					const bytes = Buffer.from(`${"x".repeat(pad)}${lines.join("\n")}`);
					let start = pad;
					for (const line of lines) {
						const end = start + Buffer.byteLength(line);
						assert.equal(
							matcher.mayMatchBytes(bytes, start, end),
							matcher.mayMatch(line),
							JSON.stringify({ needle, line }),
						);
						start = end + 1;
					}
				},
			),
			{ numRuns: 3000 },
		);
	});

	test("a long needle whose rarest piece occurs often is still found, and only where it is", () => {
		const needle = "xqqqqqqqqy";
		const matcher = compileQuery({ pattern: needle });
		const lines = [`${"q".repeat(200)}${needle}`, "q".repeat(300), `${needle}q`, `qqqqqqqqqq${"xqqqqqqqq".repeat(30)}`];
		const bytes = Buffer.from(lines.join("\n"));
		let start = 0;
		const found = lines.map((line) => {
			const end = start + line.length;
			const result = matcher.mayMatchBytes(bytes, start, end);
			start = end + 1;
			return result;
		});
		assert.deepEqual(found, [true, false, true, false]);
		// Lines visited out of order, and in other buffers, are searched again.
		assert.equal(matcher.mayMatchBytes(bytes, 0, lines[0]?.length ?? 0), true);
		assert.equal(matcher.mayMatchBytes(Buffer.from(lines[1] ?? ""), 0, lines[1]?.length ?? 0), false);
		assert.equal(matcher.mayMatchBytes(new Uint8Array(Buffer.from(`a${needle}`)), 1, needle.length + 1), true);
	});

	test("U+FFFD, what stands for bytes that are not UTF-8, is looked for in the decoded line", () => {
		const matcher = compileQuery({ pattern: "a\uFFFDb" });
		const bytes = Buffer.from([0x61, 0xff, 0x62]);
		assert.equal(matcher.mayMatchBytes(bytes, 0, bytes.length), true);
		assert.equal(compileQuery({ pattern: "a\uFFFDc" }).mayMatchBytes(bytes, 0, bytes.length), false);
	});

	test("the pre-filter passes lines that spell characters as \\u escapes", () => {
		const line = '{"type":"message","message":{"role":"user","content":"caf\\u00e9"}}';
		assert.ok(compileQuery({ pattern: "café" }).mayMatch(line));
		assert.ok(!compileQuery({ pattern: "tea" }).mayMatch('{"content":"coffee"}'));
	});
});

describe("makeSnippet", () => {
	test("short text is whole; offsets point at the match", () => {
		const s = makeSnippet("What is a B-tree?", 10, 16);
		assert.deepEqual(s, { snippet: "What is a B-tree?", matchStart: 10, matchEnd: 16 });
	});

	test("long text is cut on both sides; white space and controls are flattened", () => {
		const text = `${"x".repeat(500)} line one\n\tline\u0007two MATCH after\r\nmore ${"y".repeat(500)}`;
		const start = text.indexOf("MATCH");
		const s = makeSnippet(text, start, start + 5, 60);
		assert.ok(s.snippet.startsWith("…") && s.snippet.endsWith("…"), s.snippet);
		assert.equal(s.snippet.slice(s.matchStart, s.matchEnd), "MATCH");
		assert.ok(s.snippet.includes("line one line two MATCH after more"), s.snippet);
		assert.ok(s.snippet.length <= 62);
	});

	test("a very long match is cut; a surrogate pair is never split", () => {
		const text = "😀".repeat(300);
		const s = makeSnippet(text, 100, 500, 40);
		assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s.snippet));
		assert.ok(s.matchEnd - s.matchStart <= 201);
		assert.ok(s.snippet.slice(s.matchStart, s.matchEnd).endsWith("…"));
	});
});

describe("searchSessions", () => {
	const root = mkdtempSync(join(tmpdir(), "session-tree-search-order-"));
	after(() => rmSync(root, { recursive: true, force: true }));

	test("without a limit sessions are read smallest first, and what is found is reported newest first", async () => {
		const layout = await buildLayout(root);
		const opened: string[] = [];
		const collection = new DirectoryCollection(join(layout.agentDir, "sessions"));
		const open = collection.open.bind(collection);
		collection.open = (location) => {
			opened.push(location);
			return open(location);
		};
		const listings = [];
		for await (const listing of collection.list()) listings.push(listing);
		const newest = newestFirst(listings).map((listing) => listing.location);
		const bySize = [...newest].sort((a, b) => statSync(a).size - statSync(b).size);
		assert.notDeepEqual(bySize, newest, "the layout's newest sessions are not its smallest");
		for (const pattern of ["e", "B-tree", "zzzz"]) {
			const matcher = compileQuery({ pattern });
			opened.length = 0;
			const progress: number[] = [];
			const all = await searchSessions(collection, matcher, { onProgress: (done) => progress.push(done) });
			assert.deepEqual(opened, bySize, pattern);
			assert.deepEqual(
				progress,
				newest.map((_, i) => i + 1),
			);
			opened.length = 0;
			const limited = await searchSessions(collection, matcher, { limit: 1e9 });
			assert.deepEqual(opened, newest, `${pattern}: a limit reads newest first`);
			assert.deepEqual(all, limited, pattern);
		}
		const all = await searchSessions(collection, compileQuery({ pattern: "e" }));
		assert.ok(all.hits.length > 3 && all.warnings.length > 0 && all.skipped.length > 0, "hits, warnings and skips");
		const files = all.hits.map((hit) => hit.file);
		assert.deepEqual(
			[...new Set(files)],
			newest.filter((file) => files.includes(file)),
			"hits newest session first",
		);
	});
});
