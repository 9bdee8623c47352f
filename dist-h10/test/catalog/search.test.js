/** Query compilation, the raw-line pre-filter, searchable texts and snippets. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { compileQuery, InvalidPattern, makeSnippet, searchableTexts } from "../../src/catalog/search.js";
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
        fc.assert(fc.property(text, text, text, fc.boolean(), (before, needle, afterText, ignoreCase) => {
            fc.pre(needle.length > 0);
            const full = before + needle + afterText;
            const line = JSON.stringify({ type: "message", message: { role: "user", content: full } });
            const shown = ignoreCase ? full.toUpperCase() : full;
            const lineShown = JSON.stringify({ type: "message", message: { role: "user", content: shown } });
            const matcher = compileQuery({ pattern: needle, ignoreCase });
            assert.ok(matcher.mayMatch(line), JSON.stringify({ needle, line }));
            if (matcher.find(shown))
                assert.ok(matcher.mayMatch(lineShown), JSON.stringify({ needle, lineShown }));
        }), { numRuns: 2000 });
    });
    test("the pre-filter passes lines that spell characters as \\u escapes", () => {
        const line = '{"type":"message","message":{"role":"user","content":"caf\\u00e9"}}';
        assert.ok(compileQuery({ pattern: "café" }).mayMatch(line));
        assert.ok(!compileQuery({ pattern: "tea" }).mayMatch('{"content":"coffee"}'));
    });
});
describe("searchableTexts", () => {
    test("messages: text, thinking, tool results, bash; custom messages and summaries", () => {
        assert.deepEqual(searchableTexts({
            type: "message",
            message: {
                role: "assistant",
                content: [
                    { type: "thinking", thinking: "hmm" },
                    { type: "text", text: "answer" },
                    { type: "toolCall", id: "t", name: "bash", arguments: { command: "ls" } },
                ],
            },
        }), { role: "assistant", texts: ["hmm", "answer"] });
        assert.deepEqual(searchableTexts({ type: "message", message: { role: "bashExecution", command: "ls", output: "a b" } }), { role: "bashExecution", texts: ["ls", "a b"] });
        assert.deepEqual(searchableTexts({ type: "custom_message", content: [{ type: "text", text: "c" }] }), {
            role: "custom_message",
            texts: ["c"],
        });
        assert.deepEqual(searchableTexts({ type: "compaction", summary: "s" }), { role: "compaction", texts: ["s"] });
        assert.deepEqual(searchableTexts({ type: "branch_summary", summary: "b" }), {
            role: "branch_summary",
            texts: ["b"],
        });
        assert.equal(searchableTexts({ type: "label", label: "x" }), undefined);
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
//# sourceMappingURL=search.test.js.map