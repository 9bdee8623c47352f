/** The one colour and width module: the colour decision, styling, the East Asian width table, fitting. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { WriteStream } from "node:tty";
import { inspect } from "node:util";
import { applyStyle, displayWidth, graphemeWidth, padEndToWidth, padStartToWidth, painter, RESET, shouldColor, stripAnsi, terminalWidth, truncateToWidth, } from "../../src/render/terminal.js";
const tty = { isTTY: true };
const pipe = { isTTY: false };
describe("shouldColor", () => {
    test("terminals only", () => {
        assert.equal(shouldColor(tty, {}), true);
        assert.equal(shouldColor(pipe, {}), false);
        assert.equal(shouldColor({}, {}), false);
        assert.equal(shouldColor(undefined, {}), false);
    });
    test("NO_COLOR and TERM=dumb forbid colour; an empty NO_COLOR does not count (no-color.org)", () => {
        assert.equal(shouldColor(tty, { NO_COLOR: "1" }), false);
        assert.equal(shouldColor(tty, { NO_COLOR: "" }), true);
        assert.equal(shouldColor(tty, { TERM: "dumb" }), false);
    });
    test("FORCE_COLOR forces colour even when piped, FORCE_COLOR=0 or false forbids it, and it wins", () => {
        assert.equal(shouldColor(pipe, { FORCE_COLOR: "1" }), true);
        assert.equal(shouldColor(pipe, { FORCE_COLOR: "" }), true);
        assert.equal(shouldColor(pipe, { FORCE_COLOR: "3" }), true);
        assert.equal(shouldColor(undefined, { FORCE_COLOR: "yes" }), true);
        assert.equal(shouldColor(tty, { FORCE_COLOR: "0" }), false);
        assert.equal(shouldColor(tty, { FORCE_COLOR: "false" }), false);
        assert.equal(shouldColor(tty, { FORCE_COLOR: "FALSE" }), false);
        assert.equal(shouldColor(pipe, { FORCE_COLOR: "1", NO_COLOR: "1" }), true, "FORCE_COLOR wins, as in Node");
    });
    test("a terminal is asked whether it shows colours, without the switches already decided", () => {
        const asked = [];
        const terminal = (answer) => ({
            isTTY: true,
            hasColors(env) {
                asked.push(env ?? {});
                return answer;
            },
        });
        assert.equal(shouldColor(terminal(true), { TERM: "xterm", NO_COLOR: "" }), true);
        assert.equal(shouldColor(terminal(false), { TERM: "xterm" }), false);
        assert.deepEqual(asked, [
            { TERM: "xterm", NO_COLOR: undefined, FORCE_COLOR: undefined },
            { TERM: "xterm", NO_COLOR: undefined, FORCE_COLOR: undefined },
        ]);
        assert.equal(shouldColor(terminal(false), { FORCE_COLOR: "1" }), true, "FORCE_COLOR is not second-guessed");
        assert.equal(asked.length, 2);
    });
    test("Node's own hasColors: what TERM says the terminal can show", () => {
        const { hasColors } = WriteStream.prototype;
        const terminal = { isTTY: true, hasColors };
        assert.equal(shouldColor(terminal, { TERM: "xterm-256color" }), true);
        assert.equal(shouldColor(terminal, { TERM: "xterm-256color", NO_COLOR: "" }), true);
        assert.equal(shouldColor(terminal, { TERM: "xterm-256color", NODE_DISABLE_COLORS: "1" }), false);
        assert.equal(shouldColor(terminal, {}), false, "a terminal of no known type");
        assert.equal(shouldColor({ ...terminal, isTTY: false }, { TERM: "xterm-256color" }), false);
    });
});
test("terminalWidth: the columns of a terminal, nothing for a pipe", () => {
    assert.equal(terminalWidth({ isTTY: true, columns: 132 }), 132);
    assert.equal(terminalWidth({ isTTY: true }), 80);
    assert.equal(terminalWidth({ isTTY: true, columns: 0 }), 80);
    assert.equal(terminalWidth({ isTTY: false, columns: 132 }), undefined);
    assert.equal(terminalWidth(undefined), undefined);
});
describe("styling", () => {
    test("painter: SGR codes around the text, the first style innermost; nothing when off", () => {
        assert.equal(painter(false)("x", "bold", "red"), "x");
        assert.equal(painter(true)("x", "bold"), "\u001b[1mx\u001b[22m");
        assert.equal(painter(true)("x", "red", undefined, "bold"), "\u001b[1m\u001b[31mx\u001b[39m\u001b[22m");
        assert.equal(painter(true)("x", "gray"), "\u001b[90mx\u001b[39m");
        assert.equal(painter(true)("", "red"), "");
        assert.equal(stripAnsi(painter(true)("a b", "cyan", "bold")), "a b");
    });
    test("the fallback codes are Node's: util.inspect.colors, as util.styleText uses them", () => {
        const styles = ["bold", "dim", "red", "green", "yellow", "blue", "magenta", "cyan", "gray"];
        for (const style of styles) {
            const [open, close] = inspect.colors[style];
            assert.equal(applyStyle(style, "x"), `\u001b[${open}mx\u001b[${close}m`, style);
        }
    });
    test("stripAnsi: colours, other CSI sequences and OSC sequences go", () => {
        assert.equal(stripAnsi("\u001b[1;31ma\u001b[0m b\u001b[K"), "a b");
        assert.equal(stripAnsi("\u001b]8;;https://x.org\u0007link\u001b]8;;\u001b\\"), "link");
    });
});
describe("display width", () => {
    test("ASCII, Latin, Greek, Cyrillic, box drawing and arrows take one column each", () => {
        assert.equal(displayWidth("abc"), 3);
        assert.equal(displayWidth("├── │ └── • ← …"), 15);
        assert.equal(displayWidth("Ünïcødé ΑΒΓ Жизнь"), 17);
        assert.equal(displayWidth(""), 0);
    });
    test("CJK: wide and fullwidth characters take two columns", () => {
        assert.equal(displayWidth("宽字符"), 6);
        assert.equal(displayWidth("日本語です"), 10);
        assert.equal(displayWidth("한국어"), 6);
        assert.equal(displayWidth("ｆｕｌｌ"), 8, "fullwidth Latin");
        assert.equal(displayWidth("\u3000"), 2, "ideographic space");
        assert.equal(displayWidth("ｶﾀｶﾅ"), 4, "halfwidth katakana stays narrow");
        assert.equal(displayWidth("\u{20000}"), 2, "CJK extension B");
        assert.equal(displayWidth("a宽b"), 4);
    });
    test("combining marks and invisibles take no column", () => {
        assert.equal(displayWidth("e\u0301"), 1);
        assert.equal(displayWidth("a\u0301\u0302\u0303"), 1);
        assert.equal(displayWidth("\u0301"), 0, "a lone combining mark");
        assert.equal(displayWidth("Ж\u0483"), 1, "a Cyrillic combining mark");
        assert.equal(displayWidth("a\u200bb"), 2, "zero width space");
        assert.equal(displayWidth("\u200d"), 0);
        assert.equal(displayWidth("\u00ad"), 1, "the soft hyphen shows, as in wcwidth");
        assert.equal(displayWidth("が"), 2);
        assert.equal(displayWidth("か\u3099"), 2, "kana with a combining voiced mark");
    });
    test("emoji: emoji presentation, VS16, ZWJ sequences, skin tones, flags, keycaps", () => {
        assert.equal(displayWidth("👍"), 2);
        assert.equal(displayWidth("👍🏽"), 2);
        assert.equal(displayWidth("👩‍👩‍👧‍👦x"), 3);
        assert.equal(displayWidth("⌚"), 2, "emoji presentation in the BMP");
        assert.equal(displayWidth("✅"), 2);
        assert.equal(displayWidth("\u2764\ufe0f"), 2, "text style turned emoji by VS16");
        assert.equal(displayWidth("\u2764"), 1, "text style");
        assert.equal(displayWidth("1\ufe0f\u20e3"), 2, "keycap");
        assert.equal(displayWidth("🇯🇵"), 2, "flag");
        assert.equal(displayWidth("\u{1f321}"), 1, "text-style thermometer");
    });
    test("controls and escape sequences take no columns", () => {
        assert.equal(displayWidth("\u001b[31mabc\u001b[39m"), 3);
        assert.equal(displayWidth("\u001b[1;38;5;208m宽\u001b[0m"), 2);
        assert.equal(displayWidth("\u001b]8;;https://example.org\u0007link\u001b]8;;\u0007"), 4);
        assert.equal(displayWidth("a\u0007b\u009b"), 2);
    });
    test("graphemeWidth agrees with the fast path for every one-column character it skips", () => {
        const narrow = [
            [0x20, 0x7e],
            [0xa0, 0x2ff],
            [0x370, 0x3ff],
            [0x400, 0x482],
            [0x48a, 0x4ff],
            [0x2010, 0x2027],
            [0x2030, 0x205e],
            [0x2190, 0x21ff],
            [0x2500, 0x259f],
        ];
        for (const [first, last] of narrow) {
            for (let code = first; code <= last; code++) {
                const char = String.fromCodePoint(code);
                // A character the fast path can skip must be one column and start its own grapheme.
                if (/\p{Cn}/u.test(char))
                    continue;
                assert.equal(graphemeWidth(char), 1, code.toString(16));
                assert.equal(displayWidth(`${char}宽`), 3, code.toString(16));
            }
        }
    });
});
describe("fitting to a width", () => {
    test("truncateToWidth counts columns, the … included, and drops the white space before it", () => {
        assert.equal(truncateToWidth("abcdef", 6), "abcdef");
        assert.equal(truncateToWidth("abcdefg", 6), "abcde…");
        assert.equal(truncateToWidth("abc   defg", 6), "abc…");
        assert.equal(truncateToWidth("宽字符宽字符", 7), "宽字符…");
        assert.equal(truncateToWidth("宽字符", 5), "宽字…");
        assert.equal(truncateToWidth("日本語です", 7), "日本語…");
        assert.equal(truncateToWidth("👩‍👩‍👧‍👦👩‍👩‍👧‍👦", 3), "👩‍👩‍👧‍👦…");
        assert.equal(truncateToWidth("e\u0301e\u0301e\u0301", 2), "e\u0301…");
        assert.equal(truncateToWidth("abc", 1), "…");
        assert.equal(truncateToWidth("abc", 0), "");
    });
    test("escape sequences are kept, take no room, and a cut line ends with a reset", () => {
        assert.equal(truncateToWidth("\u001b[31mabc\u001b[39m", 3), "\u001b[31mabc\u001b[39m");
        assert.equal(truncateToWidth("\u001b[31mabcdefg\u001b[39m", 4), `\u001b[31mabc…${RESET}`);
        assert.equal(truncateToWidth("\u001b[1mab \u001b[22m\u001b[2mcdefg\u001b[22m", 4), `\u001b[1mab\u001b[22m\u001b[2m…${RESET}`, "the blank goes, the escapes after it stay");
        for (let columns = 1; columns < 14; columns++) {
            const line = painter(true)("宽字符 and 👍🏽 ascii", "red", "bold");
            const cut = truncateToWidth(line, columns);
            assert.ok(displayWidth(cut) <= columns, String(columns));
            assert.ok(stripAnsi(cut).length > 0);
        }
    });
    test("padEndToWidth and padStartToWidth pad to columns, not characters", () => {
        assert.equal(padEndToWidth("宽", 4), "宽  ");
        assert.equal(padStartToWidth("宽", 4), "  宽");
        assert.equal(padEndToWidth("\u001b[31mab\u001b[39m", 3), "\u001b[31mab\u001b[39m ");
        assert.equal(padEndToWidth("abcdef", 3), "abcdef");
        assert.equal(padStartToWidth("abc", 3), "abc");
    });
});
//# sourceMappingURL=terminal.test.js.map