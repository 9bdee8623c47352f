import assert from "node:assert/strict";
import { test } from "node:test";
import { fitSegments, kindStyle } from "../../src/render/color.js";
import { oneLineToWidth, sanitizeLines } from "../../src/render/preview.js";
import { displayWidth } from "../../src/render/terminal.js";
test("kindStyle: a colour per kind of entry", () => {
    assert.equal(kindStyle("user"), "cyan");
    assert.equal(kindStyle("assistant"), "green");
    assert.equal(kindStyle("toolResult"), "blue");
    assert.equal(kindStyle("compaction summary"), "magenta");
    assert.equal(kindStyle("model_change"), "gray");
});
test("oneLineToWidth counts columns, the … included", () => {
    assert.equal(oneLineToWidth("a\nb   c  d e f g", 7), "a b c…");
    assert.equal(oneLineToWidth("宽\n字符宽字符", 6), "宽 字…");
    for (let columns = 1; columns < 12; columns++) {
        assert.ok(displayWidth(oneLineToWidth("宽字符 and ascii 👩‍👩‍👧‍👦", columns)) <= columns, String(columns));
    }
});
test("fitSegments: cuts across segments, marks the cut", () => {
    const segments = [{ text: "abc " }, { text: "defgh", styles: ["red"] }, { text: " [x]" }];
    assert.deepEqual(fitSegments(segments, 20), segments);
    assert.deepEqual(fitSegments(segments, 8), [{ text: "abc " }, { text: "def…", styles: ["red"] }]);
    assert.deepEqual(fitSegments(segments, 9), [{ text: "abc " }, { text: "defg…", styles: ["red"] }]);
    assert.deepEqual(fitSegments(segments, 4), [{ text: "abc…" }]);
});
test("sanitizeLines: every kind of line break, controls blanked, trailing spaces dropped", () => {
    assert.deepEqual(sanitizeLines("a\r\nb\rc\u2028d\u0085e  \n\u001b[31mf"), ["a", "b", "c", "d", "e", " [31mf"]);
});
//# sourceMappingURL=color.test.js.map