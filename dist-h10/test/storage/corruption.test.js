/**
 * Every kind of damage a session file can suffer has a defined outcome, strict and lenient,
 * and opening never changes the file (compared by hash).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { isSessionTreeError, MemorySessionStore, Session } from "../../src/index.js";
const dir = mkdtempSync(join(tmpdir(), "st-corrupt-"));
after(() => rmSync(dir, { recursive: true, force: true }));
/** A clean session: header and six entries (a chain of five, one branch). */
async function cleanLines() {
    let clock = Date.parse("2026-02-01T00:00:00.000Z");
    const store = new MemorySessionStore();
    const s = await Session.createIn(store, {
        cwd: "/p",
        now: () => {
            clock += 1000;
            return new Date(clock);
        },
    });
    await s.appendMessage({ role: "user", content: "q1", timestamp: 1 });
    const a1 = await s.appendMessage({
        role: "assistant",
        content: [{ type: "text", text: "a1" }],
        provider: "p",
        model: "m",
        timestamp: 2,
    });
    await s.appendMessage({ role: "user", content: "q2", timestamp: 3 });
    await s.appendMessage({
        role: "assistant",
        content: [{ type: "text", text: "a2" }],
        provider: "p",
        model: "m",
        timestamp: 4,
    });
    await s.appendMessage({ role: "user", content: "q3", timestamp: 5 });
    await s.branchWithSummary(a1, "tried q2 first");
    return store.text().trimEnd().split("\n");
}
const CLEAN = await cleanLines();
const ENTRIES = CLEAN.length - 1;
const record = (i) => JSON.parse(CLEAN[i]);
const withRecord = (i, change) => JSON.stringify({ ...record(i), ...change });
const text = (lines) => `${lines.join("\n")}\n`;
const replaceLine = (i, line) => CLEAN.map((l, j) => (j === i ? line : l));
const torn = CLEAN[3].slice(0, 25);
const CASES = [
    {
        name: "a torn last line (an append that never completed)",
        content: `${text(CLEAN)}${torn}`,
        strict: { entries: ENTRIES, problems: ["TORN_TAIL"] },
        lenient: { entries: ENTRIES, problems: ["TORN_TAIL"] },
    },
    {
        name: "an invalid line in the middle",
        content: text([...CLEAN.slice(0, 3), "{not json at all", ...CLEAN.slice(3)]),
        strict: { throws: "INVALID_JSON", line: 4 },
        lenient: { entries: ENTRIES, problems: ["INVALID_JSON"] },
    },
    {
        name: "an entry whose parent is missing",
        content: text(replaceLine(4, withRecord(4, { parentId: "deadbeef" }))),
        strict: { throws: "MISSING_PARENT", line: 5 },
        lenient: { entries: ENTRIES, problems: ["MISSING_PARENT"], messages: 3 },
    },
    {
        name: "an entry that is its own parent",
        content: text(replaceLine(2, withRecord(2, { parentId: record(2).id }))),
        strict: { throws: "PARENT_CYCLE", line: 3 },
        lenient: { entries: ENTRIES, problems: ["PARENT_CYCLE"] },
    },
    {
        name: "a longer parent cycle",
        content: text(replaceLine(1, withRecord(1, { parentId: record(3).id }))),
        strict: { throws: "PARENT_CYCLE", line: 2 },
        lenient: { entries: ENTRIES, problems: ["PARENT_CYCLE"] },
    },
    {
        name: "a duplicated line",
        content: text([...CLEAN.slice(0, 4), CLEAN[3], ...CLEAN.slice(4)]),
        strict: { throws: "DUPLICATE_ID", line: 5 },
        lenient: { entries: ENTRIES, problems: ["DUPLICATE_ID"] },
    },
    {
        name: "two different entries with one id",
        content: text(replaceLine(5, withRecord(5, { id: record(4).id, parentId: record(3).id }))),
        strict: { throws: "DUPLICATE_ID", line: 6 },
        lenient: { entries: ENTRIES, problems: ["DUPLICATE_ID"] },
    },
    { name: "an empty file", content: "", strict: { throws: "EMPTY_FILE" }, lenient: { throws: "EMPTY_FILE" } },
    { name: "a blank file", content: "\n \n\t\n", strict: { throws: "EMPTY_FILE" }, lenient: { throws: "EMPTY_FILE" } },
    {
        name: "a missing header",
        content: text(CLEAN.slice(1)),
        strict: { throws: "INVALID_HEADER", line: 1 },
        lenient: { entries: ENTRIES, problems: ["INVALID_HEADER"] },
    },
    {
        name: "an unparsable header",
        content: text(['{"type":"session","vers', ...CLEAN.slice(1)]),
        strict: { throws: "INVALID_HEADER", line: 1 },
        lenient: { entries: ENTRIES, problems: ["INVALID_HEADER"] },
    },
    {
        name: "a header that is not a session header",
        content: text([JSON.stringify({ type: "conversation", title: "x" }), ...CLEAN.slice(1)]),
        strict: { throws: "INVALID_HEADER", line: 1 },
        lenient: { entries: ENTRIES, problems: ["INVALID_HEADER"] },
    },
    {
        name: "a UTF-8 byte-order mark",
        content: `\ufeff${text(CLEAN)}`,
        strict: { entries: ENTRIES, problems: [] },
        lenient: { entries: ENTRIES, problems: [] },
    },
    {
        name: "CRLF line ends",
        content: `${CLEAN.join("\r\n")}\r\n`,
        strict: { entries: ENTRIES, problems: [] },
        lenient: { entries: ENTRIES, problems: [] },
    },
    {
        name: "NUL padding at the end (a crash after the file grew)",
        content: Buffer.concat([Buffer.from(text(CLEAN)), Buffer.alloc(4096)]),
        strict: { entries: ENTRIES, problems: ["TORN_TAIL"] },
        lenient: { entries: ENTRIES, problems: ["TORN_TAIL"] },
    },
    {
        name: "a line of NUL padding in the middle",
        content: text([...CLEAN.slice(0, 3), "\0".repeat(100), ...CLEAN.slice(3)]),
        strict: { throws: "NUL_PADDING", line: 4 },
        lenient: { entries: ENTRIES, problems: ["NUL_PADDING"] },
    },
    {
        name: "NUL bytes before a record",
        content: text([...CLEAN.slice(0, 3), `${"\0".repeat(50)}${CLEAN[3]}`, ...CLEAN.slice(4)]),
        strict: { throws: "NUL_PADDING", line: 4 },
        lenient: { entries: ENTRIES, problems: ["NUL_PADDING"] },
    },
    {
        name: "two records glued on one line",
        content: text([...CLEAN.slice(0, 3), `${CLEAN[3]}${CLEAN[4]}`, ...CLEAN.slice(5)]),
        strict: { throws: "GLUED_RECORDS", line: 4 },
        lenient: { entries: ENTRIES, problems: ["GLUED_RECORDS"] },
    },
    {
        name: "a torn record glued to a whole one",
        content: text([...CLEAN.slice(0, 3), `${CLEAN[3].slice(0, 40)}${CLEAN[4]}`, ...CLEAN.slice(5)]),
        strict: { throws: "GLUED_RECORDS", line: 4 },
        // The torn record is gone; its child is bridged to the previous entry.
        lenient: { entries: ENTRIES - 1, problems: ["GLUED_RECORDS", "MISSING_PARENT"] },
    },
    {
        name: "unknown entry types and unknown fields",
        content: text([
            ...replaceLine(2, withRecord(2, { futureField: { nested: [1, "x"] } })),
            JSON.stringify({
                type: "hologram",
                id: "abcdef01",
                parentId: record(6).id,
                timestamp: "2026-03-01T00:00:00.000Z",
                payload: 42,
            }),
        ]),
        strict: { entries: ENTRIES + 1, problems: [] },
        lenient: { entries: ENTRIES + 1, problems: [] },
    },
];
function sha256(path) {
    return createHash("sha256").update(readFileSync(path)).digest("hex");
}
async function check(file, lenient, outcome) {
    if ("throws" in outcome) {
        await assert.rejects(Session.open(file, { lenient }), (error) => {
            assert.ok(isSessionTreeError(error), `expected a SessionTreeError, got ${String(error)}`);
            assert.equal(error.code, outcome.throws, error.message);
            assert.equal(error.file, file);
            assert.ok(error.message.startsWith(file), "the message names the file");
            if (outcome.line !== undefined)
                assert.equal(error.line, outcome.line, error.message);
            return true;
        });
        return;
    }
    const session = await Session.open(file, { lenient });
    assert.equal(session.entryCount, outcome.entries);
    assert.deepEqual(session.problems.map((p) => p.code), outcome.problems, session.problems.map((p) => p.message).join("; "));
    for (const problem of session.problems)
        assert.ok(problem.message.length > 10);
    // The tree is usable: every path walks to a root, the context builds.
    for (const id of session.listBranches())
        session.getBranch(id);
    const context = session.buildSessionContext();
    if (outcome.messages !== undefined)
        assert.equal(context.messages.length, outcome.messages);
    assert.equal(session.flattenTree().length, session.entryCount);
}
describe("damaged files: strict and lenient outcomes, file untouched", () => {
    CASES.forEach((c, i) => {
        test(c.name, async () => {
            const file = join(dir, `case-${i}.jsonl`);
            writeFileSync(file, c.content);
            const before = sha256(file);
            await check(file, false, c.strict);
            await check(file, true, c.lenient);
            assert.equal(sha256(file), before, "opening must not change the file");
        });
    });
    test("unknown types and fields are kept verbatim through a repair rewrite", async () => {
        const unknown = {
            type: "hologram",
            id: "abcdef01",
            parentId: record(6).id,
            timestamp: "2026-03-01T00:00:00.000Z",
            payload: [1, { a: null }],
        };
        const file = join(dir, "unknown.jsonl");
        writeFileSync(file, text([...replaceLine(2, withRecord(2, { futureField: "kept" })), "{broken", JSON.stringify(unknown)]));
        const session = await Session.open(file, { lenient: true });
        const backup = await session.repair();
        assert.ok(backup);
        const lines = readFileSync(file, "utf8").trimEnd().split("\n");
        assert.ok(lines.includes(JSON.stringify(unknown)));
        assert.ok(lines.includes(withRecord(2, { futureField: "kept" })));
        assert.deepEqual((await Session.open(file)).problems, []);
    });
});
describe("repair", () => {
    CASES.forEach((c, i) => {
        const outcome = c.lenient;
        if ("throws" in outcome)
            return;
        test(`repairs: ${c.name}`, async () => {
            const file = join(dir, `repair-${i}.jsonl`);
            writeFileSync(file, c.content);
            const original = readFileSync(file);
            const lenient = await Session.open(file, { lenient: true });
            const context = JSON.stringify(lenient.buildSessionContext());
            const backup = await lenient.repair();
            if (outcome.problems.length === 0) {
                assert.equal(backup, undefined, "a clean file is left alone");
                assert.deepEqual(readFileSync(file), original);
                return;
            }
            assert.ok(backup);
            assert.deepEqual(readFileSync(backup), original, "the backup holds the original bytes");
            const repaired = await Session.open(file);
            assert.deepEqual(repaired.problems, []);
            assert.equal(repaired.entryCount, outcome.entries);
            assert.equal(JSON.stringify(repaired.buildSessionContext()), context, "same context as the lenient open");
        });
    });
});
describe("torn tails and appends", () => {
    test("the next append moves a torn tail to a backup first, so it is never glued", async () => {
        const s = await Session.create({ dir, cwd: "/p" });
        await s.appendMessage({ role: "user", content: "q1", timestamp: 1 });
        await s.close();
        const file = s.file;
        const fd = openSync(file, "a");
        writeSync(fd, '{"type":"message","id":"0badf00d","parentId":nu');
        closeSync(fd);
        const reopened = await Session.open(file);
        assert.deepEqual(reopened.problems.map((p) => p.code), ["TORN_TAIL"]);
        const id = await reopened.appendMessage({ role: "user", content: "q2", timestamp: 2 });
        assert.equal(readFileSync(`${file}.torn`, "utf8"), '{"type":"message","id":"0badf00d","parentId":nu');
        const again = await Session.open(file);
        assert.deepEqual(again.problems, []);
        assert.equal(again.getLeafId(), id);
        assert.equal(again.entryCount, 2);
    });
    test("a last line that is whole but lacks its newline is kept and the append starts a new line", async () => {
        const s = await Session.create({ dir, cwd: "/p" });
        await s.appendMessage({ role: "user", content: "q1", timestamp: 1 });
        await s.close();
        const file = s.file;
        writeFileSync(file, readFileSync(file, "utf8").trimEnd());
        const reopened = await Session.open(file);
        assert.deepEqual(reopened.problems, []);
        await reopened.appendMessage({ role: "user", content: "q2", timestamp: 2 });
        assert.equal((await Session.open(file)).entryCount, 2);
    });
});
describe("a file larger than 512 MiB", {
    skip: process.env.SESSION_TREE_LARGE_TESTS ? false : "set SESSION_TREE_LARGE_TESTS=1",
}, () => {
    test("opens and gives its context (a string that large cannot exist in V8)", async () => {
        const file = join(dir, "large.jsonl");
        const fd = openSync(file, "w");
        const big = "x".repeat(1 << 20);
        writeSync(fd, `${CLEAN[0]}\n`);
        let parent = null;
        const count = 530;
        for (let i = 0; i < count; i++) {
            const id = i.toString(16).padStart(8, "0");
            const message = { role: "user", content: `${i}:${big}`, timestamp: i };
            writeSync(fd, `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-01-01T00:00:00.000Z", message })}\n`);
            parent = id;
        }
        closeSync(fd);
        const session = await Session.open(file);
        assert.equal(session.entryCount, count);
        assert.equal(session.buildSessionContext().messages.length, count);
        rmSync(file);
    });
});
//# sourceMappingURL=corruption.test.js.map