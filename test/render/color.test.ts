import assert from "node:assert/strict";
import { test } from "node:test";
import { fitSegments, kindStyle, painter, shouldColor, stripAnsi, terminalWidth } from "../../src/render/color.js";
import { displayWidth, oneLineToWidth, sanitizeLines, truncateToWidth } from "../../src/render/preview.js";

const tty = { isTTY: true };
const pipe = { isTTY: false };

test("shouldColor: terminals only; NO_COLOR, TERM=dumb and FORCE_COLOR as everyone expects", () => {
	assert.equal(shouldColor(tty, {}), true);
	assert.equal(shouldColor(pipe, {}), false);
	assert.equal(shouldColor(undefined, {}), false);
	assert.equal(shouldColor(tty, { NO_COLOR: "1" }), false);
	assert.equal(shouldColor(tty, { NO_COLOR: "" }), true, "an empty NO_COLOR does not count");
	assert.equal(shouldColor(tty, { TERM: "dumb" }), false);
	assert.equal(shouldColor(pipe, { FORCE_COLOR: "1" }), true);
	assert.equal(shouldColor(pipe, { FORCE_COLOR: "" }), true);
	assert.equal(shouldColor(pipe, { FORCE_COLOR: "3" }), true);
	assert.equal(shouldColor(tty, { FORCE_COLOR: "0" }), false);
	assert.equal(shouldColor(tty, { FORCE_COLOR: "false" }), false);
	assert.equal(shouldColor(pipe, { FORCE_COLOR: "1", NO_COLOR: "1" }), true, "FORCE_COLOR wins, as in Node");
});

test("terminalWidth: the columns of a terminal, nothing for a pipe", () => {
	assert.equal(terminalWidth({ isTTY: true, columns: 132 }), 132);
	assert.equal(terminalWidth({ isTTY: true }), 80);
	assert.equal(terminalWidth({ isTTY: false, columns: 132 }), undefined);
});

test("painter: SGR codes around the text, nothing when off", () => {
	assert.equal(painter(false)("x", "bold", "red"), "x");
	assert.equal(painter(true)("x", "bold"), "\u001b[1mx\u001b[22m");
	assert.equal(painter(true)("x", "red", undefined, "bold"), "\u001b[1m\u001b[31mx\u001b[39m\u001b[22m");
	assert.equal(painter(true)("", "red"), "");
	assert.equal(stripAnsi(painter(true)("a b", "cyan", "bold")), "a b");
	assert.equal(kindStyle("user"), "cyan");
	assert.equal(kindStyle("assistant"), "green");
	assert.equal(kindStyle("toolResult"), "blue");
	assert.equal(kindStyle("compaction summary"), "magenta");
	assert.equal(kindStyle("model_change"), "gray");
});

test("displayWidth: wide characters and emoji take two columns, box drawing one", () => {
	assert.equal(displayWidth("abc"), 3);
	assert.equal(displayWidth("├── │ └── • ← …"), 15);
	assert.equal(displayWidth("宽字符"), 6);
	assert.equal(displayWidth("👩‍👩‍👧‍👦x"), 3);
	assert.equal(displayWidth("e\u0301"), 1);
	assert.equal(displayWidth("\u2764\ufe0f"), 2);
	assert.equal(displayWidth("한국어"), 6);
});

test("truncateToWidth and oneLineToWidth count columns, the … included", () => {
	assert.equal(truncateToWidth("abcdef", 6), "abcdef");
	assert.equal(truncateToWidth("abcdefg", 6), "abcde…");
	assert.equal(truncateToWidth("宽字符宽字符", 7), "宽字符…");
	assert.equal(truncateToWidth("宽字符", 5), "宽字…");
	assert.equal(truncateToWidth("abc", 0), "");
	assert.equal(oneLineToWidth("a\nb   c  d e f g", 7), "a b c…");
	assert.equal(oneLineToWidth("宽\n字符宽字符", 6), "宽 字…");
	for (let columns = 1; columns < 12; columns++) {
		assert.ok(displayWidth(oneLineToWidth("宽字符 and ascii 👩‍👩‍👧‍👦", columns)) <= columns, String(columns));
	}
});

test("fitSegments: cuts across segments, marks the cut", () => {
	const segments = [{ text: "abc " }, { text: "defgh", styles: ["red" as const] }, { text: " [x]" }];
	assert.deepEqual(fitSegments(segments, 20), segments);
	assert.deepEqual(fitSegments(segments, 8), [{ text: "abc " }, { text: "def…", styles: ["red"] }]);
	assert.deepEqual(fitSegments(segments, 9), [{ text: "abc " }, { text: "defg…", styles: ["red"] }]);
	assert.deepEqual(fitSegments(segments, 4), [{ text: "abc…" }]);
});

test("sanitizeLines: every kind of line break, controls blanked, trailing spaces dropped", () => {
	assert.deepEqual(sanitizeLines("a\r\nb\rc\u2028d\u0085e  \n\u001b[31mf"), ["a", "b", "c", "d", "e", " [31mf"]);
});
