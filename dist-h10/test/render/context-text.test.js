import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { renderContext, renderContextLines } from "../../src/render/context-text.js";
import { displayWidth, stripAnsi } from "../../src/render/terminal.js";
import { Session } from "../../src/session.js";
import { FIXTURES } from "../cli/helpers.js";
function open(name) {
    return Session.open(join(FIXTURES, `${name}.jsonl`));
}
test("an empty context", () => {
    assert.equal(renderContext({ messages: [], thinkingLevel: "off", model: null }), "(no messages)\nmodel: (none)\nthinking level: off\n");
    assert.deepEqual(renderContextLines({ messages: [], thinkingLevel: "off", model: null }, { messagesOnly: true }), [
        "(no messages)",
    ]);
});
test("numbered messages, padded numbers, then model and thinking level", async () => {
    const s = await open("linear-chat");
    const context = s.buildSessionContext();
    const lines = renderContextLines(context);
    assert.equal(lines.length, context.messages.length + 2);
    assert.match(lines[0], /^ 1\. user: /);
    assert.match(lines[1], /^ 2\. assistant: /);
    assert.match(lines[9], /^10\. /);
    assert.equal(lines.at(-2), "model: anthropic/claude-sonnet-4-5");
    assert.equal(lines.at(-1), "thinking level: off");
});
test("with entries: the source id, and summaries marked as such", async () => {
    const s = await open("compaction");
    const lines = renderContextLines(s.buildSessionContext(), { entries: s.buildContextEntries() });
    const compaction = s.getBranch().find((entry) => entry.type === "compaction");
    assert.ok(compaction);
    assert.match(lines[0], new RegExp(`^ 1\\. ${compaction.id} compaction summary: .+ \\(48,213 tokens before\\)$`));
    assert.match(lines[1], /^ 2\. [0-9a-f]{8} user: /);
    const b = await open("branch-with-summary");
    const blines = renderContextLines(b.buildSessionContext(), { entries: b.buildContextEntries() });
    assert.match(blines[0], /^1\. [0-9a-f]{8} branch summary: Started over from scratch.* \(from root\)$/);
});
test("messages a compaction carries itself are marked (kept)", async () => {
    const s = await Session.inMemory({ cwd: "/x" });
    const q1 = await s.appendMessage({ role: "user", content: "old question", timestamp: 1 });
    await s.appendMessage({ role: "user", content: "kept question", timestamp: 2 });
    const c = await s.appendCompaction("summary of the old question", q1, 100, undefined, false, true);
    await s.appendThinkingLevelChange("high");
    await s.appendModelChange("openai", "gpt-5");
    const lines = renderContextLines(s.buildSessionContext(), { entries: s.buildContextEntries() });
    assert.deepEqual(lines, [
        `1. ${c} compaction summary: summary of the old question (100 tokens before)`,
        "2. (kept)   user: old question",
        "3. (kept)   user: kept question",
        "model: openai/gpt-5",
        "thinking level: high",
    ]);
});
test("tool calls, tool results, bash executions and custom messages get one line each", async () => {
    const s = await open("tool-calls");
    const context = s.buildSessionContext();
    const lines = renderContextLines(context, { messagesOnly: true, previewLength: 200 });
    assert.equal(lines.length, context.messages.length);
    const text = lines.join("\n");
    assert.match(text, /assistant: \[thinking\] /);
    assert.match(text, /→ edit\(\{"path":/);
    assert.match(text, /toolResult: edit \(error\): /);
    assert.match(text, /bashExecution: \$ git status --short \(exit 0\)/);
    assert.match(text, /assistant: \(error: overloaded_error: Overloaded\)/);
    assert.match(text, /\[image image\/png\]|\[image image\/gif\]/);
    const c = await open("custom-and-custom-message");
    assert.match(renderContext(c.buildSessionContext()), /custom: [^\n]+: /);
});
test("full: each message whole, indented below its numbered line", async () => {
    const s = await Session.inMemory({ cwd: "/x" });
    await s.appendMessage({ role: "user", content: "line one\nline two\n\n", timestamp: 1 });
    await s.appendMessage({
        role: "assistant",
        content: [
            { type: "thinking", thinking: "hmm\nwell" },
            { type: "text", text: "I will read it." },
            { type: "toolCall", id: "c1", name: "read", arguments: { path: "a.ts" } },
        ],
        provider: "anthropic",
        model: "m",
        stopReason: "toolUse",
        timestamp: 1,
    });
    await s.appendMessage({
        role: "toolResult",
        toolCallId: "c1",
        toolName: "read",
        content: [{ type: "text", text: "x = 1\n\ty = 2" }],
        isError: true,
        timestamp: 1,
    });
    await s.appendCustomMessageEntry("note", "remember\nthis", true);
    const lines = renderContextLines(s.buildSessionContext(), { full: true, messagesOnly: true });
    assert.deepEqual(lines, [
        "1. user:",
        "     line one",
        "     line two",
        "2. assistant:",
        "     [thinking] hmm",
        "       well",
        "     I will read it.",
        '     → read({"path":"a.ts"})',
        "3. toolResult: read (error)",
        "     x = 1",
        "      y = 2",
        "4. custom: note",
        "     remember",
        "     this",
    ]);
});
test("full: summaries keep their mark and suffix, their text below", async () => {
    const s = await open("compaction");
    const lines = renderContextLines(s.buildSessionContext(), { entries: s.buildContextEntries(), full: true });
    assert.match(lines[0], /^ 1\. [0-9a-f]{8} compaction summary: \(48,213 tokens before\)$/);
    assert.equal(lines[1], "      ## Goal");
});
test("width: the numbered lines fit, the model lines too", async () => {
    const s = await open("tool-calls");
    for (const width of [24, 50, 100]) {
        const lines = renderContextLines(s.buildSessionContext(), { entries: s.buildContextEntries(), width });
        for (const line of lines)
            assert.ok(displayWidth(line) <= width, `${width}: ${line}`);
    }
    const [first] = renderContextLines(s.buildSessionContext(), { entries: s.buildContextEntries(), width: 50 });
    assert.equal(first, " 1. fd40dd00 user: Here is a screenshot of the fa…");
});
test("colour only when asked; the same text without it", async () => {
    const s = await open("compaction");
    const options = { entries: s.buildContextEntries() };
    const plain = renderContextLines(s.buildSessionContext(), options);
    const colored = renderContextLines(s.buildSessionContext(), { ...options, color: true });
    assert.ok(plain.every((line) => !line.includes("\u001b")));
    assert.ok(colored[0]?.includes("\u001b[35m"), "summaries in magenta");
    assert.deepEqual(colored.map(stripAnsi), plain);
});
//# sourceMappingURL=context-text.test.js.map