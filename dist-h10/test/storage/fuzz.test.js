/**
 * Fuzzing opens with damaged copies of real pi files: random truncations, byte flips, inserted,
 * duplicated, deleted and swapped lines. An open either gives a usable tree or throws the typed
 * error, within a time bound, and never changes the file.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import fc from "fast-check";
import { isSessionTreeError, Session } from "../../src/index.js";
import { fixtureFile } from "../support/fixtures.js";
const BASES = [
    "linear-chat",
    "branch-in-place",
    "compaction",
    "labels",
    "tool-calls",
    "legacy-v2",
    "unicode",
    "reset-leaf",
].map((name) => readFileSync(fixtureFile(name)));
const dir = mkdtempSync(join(tmpdir(), "st-fuzz-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const hexId = fc.integer({ min: 0, max: 0xffffffff }).map((n) => n.toString(16).padStart(8, "0"));
const junkLine = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom("{}", "[]", "null", '{"type":"message"}', '{"type":"session","id":"x"}', "\0\0\0\0", '{"type":"leaf","id":"abcdef12","parentId":"00000000","timestamp":"t","targetId":"00000000"}'), fc
    .record({
    type: fc.constantFrom("message", "label", "leaf", "compaction", "zzz"),
    id: hexId,
    parentId: fc.option(hexId),
    timestamp: fc.constant("2026-01-01T00:00:00.000Z"),
})
    .map((r) => JSON.stringify(r)));
const mutation = fc.oneof(fc.record({ kind: fc.constant("truncate"), at: fc.nat() }), fc.record({ kind: fc.constant("flip"), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }), fc.record({ kind: fc.constant("insert"), at: fc.nat(), line: junkLine }), fc.record({ kind: fc.constant("duplicate"), at: fc.nat() }), fc.record({ kind: fc.constant("delete"), at: fc.nat() }), fc.record({ kind: fc.constant("swap"), at: fc.nat(), with: fc.nat() }));
function apply(bytes, m) {
    if (bytes.length === 0)
        return bytes;
    if (m.kind === "truncate")
        return bytes.subarray(0, m.at % bytes.length);
    if (m.kind === "flip") {
        const copy = Buffer.from(bytes);
        const at = m.at % copy.length;
        copy[at] = copy[at] ^ (1 << m.bit);
        return copy;
    }
    const lines = bytes.toString("latin1").split("\n");
    const at = m.at % lines.length;
    if (m.kind === "insert")
        lines.splice(at, 0, Buffer.from(m.line, "utf8").toString("latin1"));
    else if (m.kind === "duplicate")
        lines.splice(at, 0, lines[at]);
    else if (m.kind === "delete")
        lines.splice(at, 1);
    else {
        const other = m.with % lines.length;
        [lines[at], lines[other]] = [lines[other], lines[at]];
    }
    return Buffer.from(lines.join("\n"), "latin1");
}
/** A loaded session must be fully usable. */
function exercise(session) {
    const rows = session.flattenTree();
    assert.equal(rows.length, session.entryCount);
    for (const id of session.listBranches()) {
        const path = session.getBranch(id);
        assert.equal(path.at(-1)?.id, id);
    }
    session.buildSessionContext();
    session.getTree();
}
test("fuzzed files: a usable tree or a typed error, fast, file untouched", async () => {
    let opened = 0;
    let refused = 0;
    await fc.assert(fc.asyncProperty(fc.nat({ max: BASES.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }), async (base, mutations) => {
        const bytes = mutations.reduce(apply, BASES[base]);
        const file = join(dir, "fuzz.jsonl");
        writeFileSync(file, bytes);
        const hash = createHash("sha256").update(bytes).digest("hex");
        for (const lenient of [false, true]) {
            const started = performance.now();
            try {
                exercise(await Session.open(file, { lenient }));
                opened++;
            }
            catch (error) {
                if (!isSessionTreeError(error))
                    throw error;
                assert.ok(error.message.includes(file), "the error names the file");
                refused++;
            }
            assert.ok(performance.now() - started < 5000, "an open finishes within 5 s");
        }
        assert.equal(createHash("sha256").update(readFileSync(file)).digest("hex"), hash, "the file is unchanged");
    }), { numRuns: Number(process.env.SESSION_TREE_FUZZ_RUNS ?? 1000) });
    assert.ok(opened > 0 && refused > 0, `both outcomes occur (opened ${opened}, refused ${refused})`);
});
//# sourceMappingURL=fuzz.test.js.map