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
function both(content) {
    const file = join(dir, "f.jsonl");
    writeFileSync(file, content);
    const fd = openSync(file, "r");
    try {
        const ours = [...mapLines(scanByteLines(fd))];
        const theirs = [...scanLines(fd)].map((raw) => [raw.line, raw.text, raw.terminated]);
        return { ours, theirs };
    }
    finally {
        closeSync(fd);
    }
}
function* mapLines(lines) {
    for (const line of lines)
        yield [line.line, lineText(line), line.terminated];
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
    test("random content (property)", () => {
        fc.assert(fc.property(fc.array(fc.oneof(fc.string({ unit: "binary", maxLength: 30 }), fc.constant("\n")), { maxLength: 30 }), (parts) => {
            const { ours, theirs } = both(parts.join(""));
            assert.deepEqual(ours, theirs);
        }), { numRuns: 300 });
    });
});
//# sourceMappingURL=lines.test.js.map