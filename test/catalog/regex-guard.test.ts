/** A user's regular expression cannot hang a search: the linear engine, or a worker under a time limit. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { guardRegex } from "../../src/catalog/regex-guard.js";
import { compileQuery, InvalidPattern } from "../../src/catalog/search.js";

/** 30,000 a's and a character that makes `(a+)+$` fail: the backtracking engine tries 2^30000 splits. */
const EVIL = `${"a".repeat(30_000)}!`;

function timed<T>(run: () => T): { value: T | Error; ms: number } {
	const start = performance.now();
	try {
		return { value: run(), ms: performance.now() - start };
	} catch (error) {
		return { value: error as Error, ms: performance.now() - start };
	}
}

describe("regular expressions in search", () => {
	test("(a+)+$ over a 30 KB text answers within a second (the linear engine)", () => {
		const matcher = compileQuery({ pattern: "(a+)+$", regex: true });
		const { value, ms } = timed(() => matcher.find(EVIL));
		assert.equal(value, undefined);
		assert.ok(ms < 1000, `${ms} ms`);
		assert.equal(guardRegex("(a+)+$", "u").engine, "linear");
		// And it still matches where it should.
		assert.deepEqual(matcher.find("xaaa"), { start: 1, end: 4 });
	});

	test("a catastrophic pattern the linear engine cannot take (-i, a backreference) is refused within a second", () => {
		for (const query of [
			{ pattern: "(a+)+$", regex: true, ignoreCase: true },
			{ pattern: "(a|a)+\\1$", regex: true },
			{ pattern: "(?=a)(a+)+$", regex: true },
		]) {
			const matcher = compileQuery(query);
			const { value, ms } = timed(() => matcher.find(EVIL));
			assert.ok(value instanceof InvalidPattern, `${query.pattern}: ${String(value)}`);
			assert.match(value.message, /took more than 500 ms on one text of 30001 characters .*: refused/);
			assert.ok(ms < 1000, `${query.pattern}: ${ms} ms`);
			// Refused once, refused at once: a search of many texts does not wait on each.
			const again = timed(() => matcher.find("aaa"));
			assert.ok(again.value instanceof InvalidPattern);
			assert.ok(again.ms < 50, `${again.ms} ms`);
		}
	});

	test("ordinary regular expressions match as JavaScript's own engine does, on both engines", () => {
		const texts = ["the Quick brown fox", "a-b a_b", "x = 42; y = 7", "naïve café", "line one\nline two", ""];
		const patterns = [
			["qu?ick", ""],
			["\\bquick\\b", "i"],
			["\\d+", ""],
			["(\\w+) = (\\d+)", ""],
			["a\\-b", ""],
			["caf.", ""],
			["^line", ""],
			["one$", ""],
			["(?<name>b)r", ""],
			["(o)\\w*\\1", ""],
			["x{1,3}", "i"],
			["(?<=a)-b", ""],
		] as const;
		for (const [pattern, flags] of patterns) {
			const matcher = compileQuery({ pattern, regex: true, ignoreCase: flags === "i" });
			let reference: RegExp;
			try {
				reference = new RegExp(pattern, `${flags}u`);
			} catch {
				reference = new RegExp(pattern, flags);
			}
			for (const text of texts) {
				const m = reference.exec(text);
				const want = m ? { start: m.index, end: m.index + m[0].length } : undefined;
				assert.deepEqual(matcher.find(text), want, `/${pattern}/${flags} on ${JSON.stringify(text)}`);
			}
		}
	});
});
