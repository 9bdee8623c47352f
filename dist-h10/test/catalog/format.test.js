/** Relative times, sizes, one-line text and the progress bar. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { flatten, formatBytes, relativeTime, whenText } from "../../src/catalog/format.js";
import { createProgress, progressLine } from "../../src/render/progress.js";
describe("format", () => {
    test("relative times", () => {
        const now = new Date("2025-06-15T12:00:00.000Z");
        const ago = (ms) => relativeTime(new Date(now.getTime() - ms), now);
        assert.equal(ago(0), "just now");
        assert.equal(ago(12_000), "12s ago");
        assert.equal(ago(3 * 60_000 + 5), "3m ago");
        assert.equal(ago(5 * 3_600_000), "5h ago");
        assert.equal(ago(2 * 86_400_000), "2d ago");
        assert.equal(ago(21 * 86_400_000), "3w ago");
        assert.equal(ago(120 * 86_400_000), "4mo ago");
        assert.equal(ago(800 * 86_400_000), "2y ago");
        assert.equal(ago(-5 * 60_000), "in 5m");
        assert.equal(whenText(new Date(now.getTime() - 3 * 60_000), now), "3m ago");
        assert.match(whenText(new Date(now.getTime() - 2 * 86_400_000), now), /^2d ago \(2025-06-1[34]\)$/);
    });
    test("sizes", () => {
        assert.equal(formatBytes(0), "0 B");
        assert.equal(formatBytes(1023), "1023 B");
        assert.equal(formatBytes(4200), "4.1 KiB");
        assert.equal(formatBytes(293_000), "286 KiB");
        assert.equal(formatBytes(1024 * 1024 - 1), "1.0 MiB");
        assert.equal(formatBytes(5 * 1024 ** 3), "5.0 GiB");
    });
    test("one line", () => {
        assert.equal(flatten("  a\n\tb\u0007c  "), "a b c");
        assert.equal(flatten("x".repeat(10_000)).length, 4096);
    });
});
describe("progress", () => {
    function fakeTerminal(isTTY) {
        const writes = [];
        return { stream: { isTTY, columns: 60, write: (text) => writes.push(text) }, writes };
    }
    test("nothing at all when stderr is not a terminal", () => {
        const { stream, writes } = fakeTerminal(false);
        let time = 0;
        const progress = createProgress(stream, { label: "listing", now: () => time });
        for (let i = 1; i <= 100; i++) {
            time += 100;
            progress.update(i, 100);
        }
        progress.finish();
        assert.deepEqual(writes, []);
    });
    test("nothing for quick work; after the delay a bar on one line, erased at the end", () => {
        const { stream, writes } = fakeTerminal(true);
        let time = 0;
        const progress = createProgress(stream, { label: "listing", now: () => time });
        time = 200;
        progress.update(1, 10);
        assert.equal(writes.length, 0);
        time = 400;
        progress.update(5, 10);
        time = 420; // within the redraw interval: not drawn
        progress.update(6, 10);
        time = 500;
        progress.update(10, 10);
        progress.finish();
        assert.equal(writes.length, 3);
        assert.equal(writes[0], `\r${progressLine("listing", 5, 10, 60)}\u001b[K`);
        assert.match(writes[0], /listing \[#+\.+\] 5\/10/);
        assert.equal(writes[1], `\rlisting [${"#".repeat(40)}] 10/10\u001b[K`);
        assert.equal(writes[2], "\r\u001b[K");
        const quick = fakeTerminal(true);
        const fast = createProgress(quick.stream, { label: "x", now: () => 0 });
        fast.update(1, 1);
        fast.finish();
        assert.deepEqual(quick.writes, []);
    });
    test("the bar fits the terminal", () => {
        assert.equal(progressLine("listing", 1, 4, 80), `listing [${"#".repeat(10)}${".".repeat(30)}] 1/4`);
        assert.ok(progressLine("listing", 500, 1000, 30).length < 30);
        assert.equal(progressLine("listing", 1, 2, 12), "listing 1/2");
    });
});
//# sourceMappingURL=format.test.js.map