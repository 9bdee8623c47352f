/**
 * Files session-tree writes, opened by pi's own SessionManager (0.73.1, a dev dependency used
 * only here and in the property test), give the same model context as session-tree computes.
 */
import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { Session } from "../../src/index.js";
import { asJson } from "../support/fixtures.js";
import { assistantMessage, userMessage } from "../support/messages.js";
const dir = mkdtempSync(join(tmpdir(), "st-interop-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let clock = Date.parse("2026-01-01T00:00:00.000Z");
const now = () => {
    clock += 7;
    return new Date(clock);
};
const user = (text) => userMessage(text, clock);
const assistant = (text, model) => assistantMessage(text, clock, model);
/** pi's view of a file: opened from a copy, since pi may rewrite what it opens. */
function piContext(file) {
    const copy = join(dir, `pi-${Math.random().toString(16).slice(2)}.jsonl`);
    copyFileSync(file, copy);
    return asJson(SessionManager.open(copy, dir).buildSessionContext());
}
async function assertSameContext(session) {
    const file = session.file;
    const ours = asJson((await Session.open(file)).buildSessionContext());
    assert.deepEqual(ours, asJson(session.buildSessionContext()), "reopened context equals the live one");
    assert.deepEqual(piContext(file), ours, "pi builds the same context from our file");
}
describe("pi reads what session-tree writes", () => {
    test("a linear chat with every entry type", async () => {
        const s = await Session.create({ dir, cwd: "/p", now });
        await s.appendModelChange("anthropic", "claude-sonnet-4-5");
        await s.appendThinkingLevelChange("high");
        const q1 = await s.appendMessage(user("first question"));
        await s.appendMessage(assistant("first answer"));
        await s.appendCustomEntry("ext-state", { n: 1 });
        await s.appendCustomMessageEntry("reminder", "run the tests", true, { why: "ci" });
        await s.appendCustomMessageEntry("hidden", [{ type: "text", text: "blocks" }], false);
        await s.appendLabelChange(q1, "start");
        await s.appendSessionInfo("  named  ");
        await s.appendMessage(user("second"));
        await assertSameContext(s);
        assert.equal(s.getSessionName(), "named");
    });
    test("branch without a following append: the leaf record keeps pi on the same context", async () => {
        const s = await Session.create({ dir, cwd: "/p", now });
        await s.appendMessage(user("q1"));
        const a1 = await s.appendMessage(assistant("a1"));
        await s.appendMessage(user("q2"));
        await s.appendMessage(assistant("a2"));
        await s.branch(a1);
        assert.equal((await Session.open(s.file)).getLeafId(), a1);
        await assertSameContext(s);
        // Branch, then append: the new entry hangs off a1.
        await s.appendMessage(user("q2 asked differently"));
        await assertSameContext(s);
        assert.equal((await Session.open(s.file)).listBranches().length, 2);
    });
    test("resetLeaf and branchWithSummary (also from the root)", async () => {
        const s = await Session.create({ dir, cwd: "/p", now });
        const q1 = await s.appendMessage(user("q1"));
        await s.appendMessage(assistant("a1"));
        await s.resetLeaf();
        assert.equal((await Session.open(s.file)).getLeafId(), null);
        await assertSameContext(s);
        await s.branchWithSummary(q1, "tried something else", { files: ["a.ts"] });
        await s.appendMessage(assistant("after summary"));
        await assertSameContext(s);
        await s.branchWithSummary(null, "start over");
        await assertSameContext(s);
        await s.branchWithSummary(q1, "");
        await assertSameContext(s);
    });
    test("compactions, with and without retainedTail", async () => {
        const s = await Session.create({ dir, cwd: "/p", now });
        const ids = [];
        for (let i = 0; i < 6; i++) {
            ids.push(await s.appendMessage(user(`q${i}`)));
            ids.push(await s.appendMessage(assistant(`a${i}`)));
        }
        await s.appendCompaction("summary one", ids[4], 1000, { readFiles: [] }, false);
        await s.appendMessage(user("after one"));
        await assertSameContext(s);
        await s.appendCustomMessageEntry("note", "kept custom message", true);
        await s.appendCompaction("summary two", ids[8], 2000, undefined, true, true);
        const tail = s.getLeafEntry();
        assert.ok(Array.isArray(tail.retainedTail) && tail.retainedTail.length > 0);
        await s.appendMessage(user("after two"));
        await assertSameContext(s);
    });
    test("navigate: a user message moves the leaf to its parent; the root one resets it", async () => {
        const s = await Session.create({ dir, cwd: "/p", now });
        const q1 = await s.appendMessage(user("q1"));
        const a1 = await s.appendMessage(assistant("a1"));
        const q2 = await s.appendMessage({
            role: "user",
            content: [
                { type: "text", text: "q2 " },
                { type: "text", text: "blocks" },
            ],
            timestamp: 1,
        });
        await s.appendMessage(assistant("a2"));
        assert.deepEqual(await s.navigate(q2), { leafId: a1, editorText: "q2 blocks" });
        await assertSameContext(s);
        assert.deepEqual(await s.navigate(q1), { leafId: null, editorText: "q1" });
        await assertSameContext(s);
        assert.deepEqual(await s.navigate(a1), { leafId: a1 });
        const result = await s.navigate(q2, { summary: "left the q2 branch" });
        assert.equal(s.getEntry(result.summaryEntryId)?.parentId, a1);
        await assertSameContext(s);
    });
    test("fork and clone write a file pi reads to the same context, labels included", async () => {
        const s = await Session.create({ dir, cwd: "/p", now });
        const q1 = await s.appendMessage(user("q1"));
        await s.appendLabelChange(q1, "first");
        const a1 = await s.appendMessage(assistant("a1"));
        await s.appendLabelChange(a1, "answer");
        const q2 = await s.appendMessage(user("q2"));
        await s.appendMessage(assistant("a2"));
        const forked = await s.fork(q2);
        assert.equal(forked.getHeader().parentSession, s.file);
        assert.deepEqual(forked.getBranch().map((e) => e.id), [q1, a1, q2]);
        assert.equal(forked.getLabel(q1), "first");
        assert.equal(forked.getLabel(a1), "answer");
        assert.deepEqual(forked.problems, []);
        await assertSameContext(forked);
        const reopened = await Session.open(forked.file);
        assert.equal(reopened.getLeafId(), q2);
        assert.equal(reopened.getLabel(a1), "answer");
        const cloned = await s.clone();
        assert.deepEqual(asJson(cloned.buildSessionContext()), asJson(s.buildSessionContext()));
        await assertSameContext(cloned);
    });
    test("what pi appends after our leaf record is read by us as pi reads it", async () => {
        const s = await Session.create({ dir, cwd: "/p", now });
        await s.appendMessage(user("q1"));
        const a1 = await s.appendMessage(assistant("a1"));
        await s.appendMessage(user("q2"));
        await s.branch(a1);
        const file = s.file;
        const pi = SessionManager.open(file, dir);
        pi.appendMessage(user("written by pi"));
        pi.appendMessage(assistant("pi's answer"));
        const ours = await Session.open(file);
        assert.deepEqual(asJson(ours.buildSessionContext()), asJson(pi.buildSessionContext()));
        assert.equal(ours.getBranch()[1]?.id, a1, "pi's entry hangs off the leaf record's target");
        // And we can keep writing after pi.
        await ours.appendMessage(user("back in session-tree"));
        await assertSameContext(ours);
    });
    test("appending to a file without a final newline does not glue lines", async () => {
        const s = await Session.create({ dir, cwd: "/p", now });
        await s.appendMessage(user("q1"));
        await s.close();
        const file = s.file;
        const text = readFileSync(file, "utf8");
        const reopened = await Session.open(file);
        rmSync(file);
        appendFileSync(file, text.slice(0, -1));
        await reopened.appendMessage(assistant("a1"));
        assert.equal((await Session.open(file)).entryCount, 2);
        await assertSameContext(reopened);
    });
});
//# sourceMappingURL=pi.test.js.map