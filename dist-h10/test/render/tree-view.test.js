/** The tree view's options: active path, filters, subtree, depth, folding, width and colour. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { displayWidth, stripAnsi } from "../../src/render/terminal.js";
import { renderTreeLines, TREE_FILTERS } from "../../src/render/tree-text.js";
import { Session } from "../../src/session.js";
import { FIXTURES } from "../cli/helpers.js";
import { memorySession, say, toolRound } from "./helpers.js";
function render(s, options = {}) {
    return renderTreeLines(s.getTree(), { leafId: s.getLeafId(), sessionName: s.getSessionName(), ...options });
}
function open(name) {
    return Session.open(join(FIXTURES, `${name}.jsonl`));
}
/** q1, a tool round, a1, a model change, then two branches; the second is active and ends in a label entry. */
async function sample() {
    const s = await memorySession();
    const q1 = await say(s, "user", "q1");
    await toolRound(s, "read", { path: "a.ts" }, "file text");
    const a1 = await say(s, "assistant", "a1 text");
    await s.appendModelChange("openai", "gpt-5");
    await say(s, "user", "q2");
    await say(s, "assistant", "a2");
    await s.branch(a1);
    await say(s, "user", "q2 alt");
    await say(s, "assistant", "a2 alt");
    await s.appendLabelChange(q1, "start");
    return s;
}
/** A chain of `n` user messages m1..mn. */
async function chain(n) {
    const s = await memorySession();
    for (let i = 1; i <= n; i++)
        await say(s, "user", `m${i}`);
    return s;
}
test("without a filter every entry shows; below the fork the active path is marked", async () => {
    assert.deepEqual(render(await sample()), [
        "00000001 user: q1 [start]",
        '00000002 assistant: → read({"path":"a.ts"})',
        "00000003 toolResult: read: file text",
        "00000004 assistant: a1 text",
        "├── 00000005 model_change: openai/gpt-5",
        "│   00000006 user: q2",
        "│   00000007 assistant: a2",
        "└── • 00000009 user: q2 alt",
        "    • 0000000a assistant: a2 alt",
        '    • 0000000b label: 00000001 "start"  ← leaf',
    ]);
    assert.ok(render(await sample(), { markActivePath: false }).every((line) => !line.includes("•")));
});
test("--leaf elsewhere moves the marks and the active path", async () => {
    assert.deepEqual(render(await sample(), { leafId: "00000006" }).slice(4, 9), [
        "├── • 00000005 model_change: openai/gpt-5",
        "│   • 00000006 user: q2  ← leaf",
        "│   00000007 assistant: a2",
        "└── 00000009 user: q2 alt",
        "    0000000a assistant: a2 alt",
    ]);
});
test("filter default: no settings entries, no tool-only assistant messages; children move up", async () => {
    assert.deepEqual(render(await sample(), { filter: "default" }), [
        "00000001 user: q1 [start]",
        "00000003 toolResult: read: file text",
        "00000004 assistant: a1 text",
        "├── 00000006 user: q2",
        "│   00000007 assistant: a2",
        "└── • 00000009 user: q2 alt",
        "    • 0000000a assistant: a2 alt  ← leaf below (0000000b)",
    ]);
});
test("filter no-tools, user-only, labeled-only, all", async () => {
    assert.deepEqual(render(await sample(), { filter: "no-tools" }).slice(0, 2), [
        "00000001 user: q1 [start]",
        "00000004 assistant: a1 text",
    ]);
    assert.deepEqual(render(await sample(), { filter: "user-only" }), [
        "00000001 user: q1 [start]",
        "├── 00000006 user: q2",
        "└── • 00000009 user: q2 alt  ← leaf below (0000000b)",
    ]);
    assert.deepEqual(render(await sample(), { filter: "labeled-only" }), [
        "00000001 user: q1 [start]  ← leaf below (0000000b)",
    ]);
    // "all" is everything but, as in pi, the assistant message that only calls a tool.
    const all = render(await sample(), { filter: "all" });
    assert.equal(all.length, 9);
    assert.ok(!all.some((line) => line.startsWith("00000002")));
    assert.ok(all.at(-1)?.endsWith('label: 00000001 "start"  ← leaf'));
});
test("a tool-only assistant message at the leaf stays visible, as in pi", async () => {
    const s = await memorySession();
    await say(s, "user", "go");
    const [call] = await toolRound(s, "bash", { command: "ls" }, "a b");
    await s.branch(call);
    assert.deepEqual(render(s, { filter: "default" }), [
        "00000001 user: go",
        '00000002 assistant: → bash({"command":"ls"})  ← leaf',
        "00000003 toolResult: bash: a b",
    ]);
});
test("a filter that shows nothing says so", async () => {
    const s = await chain(3);
    assert.deepEqual(render(s, { filter: "labeled-only" }), ["(no entries shown by the labeled-only filter)"]);
    assert.deepEqual(TREE_FILTERS, ["default", "no-tools", "user-only", "labeled-only", "all"]);
});
test("from: one subtree, its root first and unindented", async () => {
    assert.deepEqual(render(await sample(), { from: "00000005" }), [
        "00000005 model_change: openai/gpt-5",
        "00000006 user: q2",
        "00000007 assistant: a2",
    ]);
    // The start is shown even when the filter would hide it.
    assert.deepEqual(render(await sample(), { from: "00000005", filter: "user-only" }), [
        "00000005 model_change: openai/gpt-5",
        "00000006 user: q2",
    ]);
    assert.deepEqual(render(await sample(), { from: "nope" }), ["(empty)"]);
});
test("depth: levels below the start, the rest counted", async () => {
    assert.deepEqual(render(await sample(), { depth: 2 }), [
        "00000001 user: q1 [start]",
        '00000002 assistant: → read({"path":"a.ts"})',
        "00000003 toolResult: read: file text",
        "… 7 more  ← leaf below (0000000b)",
    ]);
    assert.deepEqual(render(await sample(), { depth: 4 }), [
        "00000001 user: q1 [start]",
        '00000002 assistant: → read({"path":"a.ts"})',
        "00000003 toolResult: read: file text",
        "00000004 assistant: a1 text",
        "├── 00000005 model_change: openai/gpt-5",
        "│   … 2 more",
        "└── • 00000009 user: q2 alt",
        "    … 2 more  ← leaf below (0000000b)",
    ]);
    assert.deepEqual(render(await sample(), { depth: 3 }).at(-1), "… 6 more in 2 branches  ← leaf below (0000000b)");
    assert.deepEqual(render(await chain(3), { depth: 0 }), ["00000001 user: m1", "… 2 more  ← leaf below (00000003)"]);
    assert.deepEqual(render(await chain(3), { depth: 0, leafId: "00000001" }), ["00000001 user: m1  ← leaf", "… 2 more"]);
    assert.deepEqual(render(await sample(), { from: "00000005", depth: 0 }), [
        "00000005 model_change: openai/gpt-5",
        "… 2 more",
    ]);
});
test("fold: a straight run of more than 6 shows its first and last two", async () => {
    assert.deepEqual(render(await chain(6), { fold: true }).length, 6);
    assert.deepEqual(render(await chain(7), { fold: true }), [
        "00000001 user: m1",
        "00000002 user: m2",
        "┆ … 3 entries …",
        "00000006 user: m6",
        "00000007 user: m7  ← leaf",
    ]);
    assert.deepEqual(render(await chain(40), { fold: true, foldLimit: 10 }), [
        "00000001 user: m1",
        "00000002 user: m2",
        "┆ … 36 entries …",
        "00000027 user: m39",
        "00000028 user: m40  ← leaf",
    ]);
});
test("fold keeps labeled entries and the leaf", async () => {
    const s = await chain(20);
    await s.appendLabelChange("00000009", "middle");
    await s.branch("0000000c");
    const lines = render(s, { fold: true });
    assert.deepEqual(lines, [
        "00000001 user: m1",
        "00000002 user: m2",
        "┆ … 6 entries …",
        "00000009 user: m9 [middle]",
        "┆ … 2 entries …",
        "0000000c user: m12  ← leaf",
        "┆ … 7 entries …",
        "00000014 user: m20",
        '00000015 label: 00000009 "middle"',
    ]);
});
test("fold never hides a single entry", async () => {
    const s = await chain(10);
    await s.appendLabelChange("00000004", "x");
    await s.branch("00000007");
    // Kept: m1, m2, m4 (labeled), m7 (leaf), m10 and the label entry; m3 alone is not folded.
    assert.deepEqual(render(s, { fold: true }), [
        "00000001 user: m1",
        "00000002 user: m2",
        "00000003 user: m3",
        "00000004 user: m4 [x]",
        "┆ … 2 entries …",
        "00000007 user: m7  ← leaf",
        "┆ … 2 entries …",
        "0000000a user: m10",
        '0000000b label: 00000004 "x"',
    ]);
});
test("fold inside a branch keeps the branch's indentation", async () => {
    const s = await chain(2);
    await say(s, "user", "side");
    await s.branch("00000002");
    for (let i = 0; i < 10; i++)
        await say(s, "assistant", `r${i}`);
    assert.deepEqual(render(s, { fold: true }), [
        "00000001 user: m1",
        "00000002 user: m2",
        "├── 00000003 user: side",
        "└── • 00000005 assistant: r0",
        "    • 00000006 assistant: r1",
        "    ┆ … 6 entries …",
        "    • 0000000d assistant: r8",
        "    • 0000000e assistant: r9  ← leaf",
    ]);
});
test("width: every line fits, the preview gets the room that is left", async () => {
    const s = await memorySession();
    const q = await say(s, "user", "a long question ".repeat(20));
    await say(s, "assistant", "宽字符".repeat(40));
    await s.appendLabelChange(q, "a label that is long too ".repeat(5));
    await s.appendSessionInfo("a name ".repeat(30));
    for (const width of [20, 40, 80, 120]) {
        const lines = render(s, { width });
        assert.equal(lines.length, 5);
        for (const line of lines)
            assert.ok(displayWidth(line) <= width, `${width}: ${line}`);
    }
    const lines = render(s, { width: 40 });
    assert.equal(lines[1], "00000001 user: a long question… [a la…]");
    assert.equal(render(s, { width: 80 })[1], "00000001 user: a long question a long question a long ques… [a label that is l…]");
    assert.equal(lines[2], "00000002 assistant: 宽字符宽字符宽字符…");
    assert.equal(displayWidth(lines[2]), 39);
    assert.equal(lines[3], '00000003 label: 00000001 "a label that…');
    // Without a width, previews keep their default length whatever the width of the line.
    assert.ok(render(s)[1]?.startsWith(`00000001 user: ${"a long question ".repeat(4).slice(0, 60).trimEnd()}… [a label`));
});
test("width on a fixture with wide characters and deep forks", async () => {
    for (const name of ["unicode", "labels", "wide-node", "tool-calls"]) {
        const s = await open(name);
        for (const width of [30, 60, 100]) {
            const lines = render(s, { width });
            for (const line of lines)
                assert.ok(displayWidth(line) <= width, `${name} ${width}: ${line}`);
        }
    }
});
test("colour: ANSI only when asked; the text is the same without it", async () => {
    const s = await sample();
    const plain = render(s);
    assert.ok(plain.every((line) => !line.includes("\u001b")));
    const colored = render(s, { color: true });
    assert.ok(colored.some((line) => line.includes("\u001b[36m")), "user in cyan");
    assert.ok(colored.some((line) => line.includes("\u001b[32m")), "assistant in green");
    assert.ok(colored.some((line) => line.includes("\u001b[1m")), "active path in bold");
    assert.deepEqual(colored.map(stripAnsi), plain);
    const cut = render(s, { color: true, width: 30 });
    assert.deepEqual(cut.map(stripAnsi), render(s, { width: 30 }));
});
test("a 5,000-entry chain folded, filtered, cut: short lines, fast", async () => {
    const s = await open("deep-chain");
    const started = performance.now();
    const folded = render(s, { fold: true, width: 80 });
    const filtered = render(s, { filter: "user-only", width: 80 });
    const elapsed = performance.now() - started;
    assert.deepEqual(folded.length, 5);
    assert.match(folded[2], /^┆ … 4,996 entries …$/);
    assert.ok(filtered.length > 2000);
    assert.ok(filtered.every((line) => displayWidth(line) <= 80));
    assert.ok(elapsed < 2000, `${elapsed} ms`);
});
test("the 300-wide node with depth and width", async () => {
    const s = await open("wide-node");
    const lines = render(s, { depth: 2, width: 60 });
    assert.equal(lines.filter((line) => /^[├└]── /.test(line)).length, 300);
    assert.ok(lines.every((line) => displayWidth(line) <= 60));
});
//# sourceMappingURL=tree-view.test.js.map