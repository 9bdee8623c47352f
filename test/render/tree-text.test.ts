import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { renderTree, renderTreeLines } from "../../src/render/tree-text.js";
import { Session } from "../../src/session.js";
import { FIXTURES } from "../cli/helpers.js";
import { memorySession, say } from "./helpers.js";

function render(s: Session): string[] {
	return renderTreeLines(s.getTree(), { leafId: s.getLeafId(), sessionName: s.getSessionName() });
}

function open(name: string): Promise<Session> {
	return Session.open(join(FIXTURES, `${name}.jsonl`));
}

test("an empty tree", async () => {
	assert.deepEqual(render(await memorySession()), ["(empty)"]);
	assert.equal(renderTree([], { emptyText: "nothing" }), "nothing\n");
});

test("a chain is printed flat; a fork indents its branches only", async () => {
	const s = await memorySession();
	await say(s, "user", "q1");
	const a1 = await say(s, "assistant", "a1");
	await say(s, "user", "q2");
	await say(s, "assistant", "a2");
	await s.branch(a1);
	await say(s, "user", "q2 again");
	const a2b = await say(s, "assistant", "a2 again");
	await s.appendLabelChange(a2b, "good");
	await s.branch(a2b);
	assert.deepEqual(render(s), [
		"00000001 user: q1",
		"00000002 assistant: a1",
		"├── 00000003 user: q2",
		"│   00000004 assistant: a2",
		"└── • 00000006 user: q2 again",
		"    • 00000007 assistant: a2 again [good]  ← leaf",
		'    00000008 label: 00000007 "good"',
	]);
});

test("nested forks, the session name, several roots", async () => {
	const s = await memorySession();
	const q = await say(s, "user", "q");
	const a = await say(s, "assistant", "a");
	await say(s, "user", "x");
	await s.branch(a);
	const y = await say(s, "user", "y");
	await say(s, "assistant", "y1");
	await s.branch(y);
	await say(s, "assistant", "y2");
	await s.branch(q);
	await say(s, "assistant", "b");
	await s.resetLeaf();
	await say(s, "user", "second root");
	await s.appendSessionInfo("  my session  ");
	assert.deepEqual(render(s), [
		"Session: my session",
		"├── 00000001 user: q",
		"│   ├── 00000002 assistant: a",
		"│   │   ├── 00000003 user: x",
		"│   │   └── 00000005 user: y",
		"│   │       ├── 00000006 assistant: y1",
		"│   │       └── 00000008 assistant: y2",
		"│   └── 0000000a assistant: b",
		"└── • 0000000c user: second root",
		"    • 0000000d session_info: my session  ← leaf",
	]);
});

test("labels and names cannot break the line or reorder the terminal", async () => {
	const s = await memorySession();
	const q = await say(s, "user", "line one\nline two\u2028three \u202eevil\u0007");
	await s.appendLabelChange(q, "a\nb\u001b[31m");
	await s.appendSessionInfo("name\r\nwith\u2029breaks");
	const lines = render(s);
	assert.equal(lines[0], "Session: name  with breaks");
	assert.equal(lines[1], "00000001 user: line one line two three evil [a b [31m]");
	for (const line of lines) {
		for (const char of line) {
			const code = char.codePointAt(0) as number;
			assert.ok(code >= 0x20 && code !== 0x2028 && code !== 0x2029 && (code < 0x202a || code > 0x202e), line);
		}
	}
});

test("the 5,000-deep chain: flat, short lines, leaf at the end", async () => {
	const s = await open("deep-chain");
	const lines = render(s);
	assert.equal(lines.length, s.entryCount);
	assert.ok(Math.max(...lines.map((line) => line.length)) < 200);
	assert.ok(lines.every((line) => /^[0-9a-f]{8} /.test(line)));
	assert.ok(lines.at(-1)?.startsWith(`${s.getLeafId()} `));
	assert.ok(lines.at(-1)?.endsWith("  ← leaf"));
	assert.equal(lines.filter((line) => line.includes("← leaf")).length, 1);
});

test("the 300-child node: children in pi's order with connectors", async () => {
	const s = await open("wide-node");
	const lines = render(s);
	const expected = JSON.parse(readFileSync(join(FIXTURES, "wide-node.expected.json"), "utf8")) as {
		tree: Array<{ id: string }>;
	};
	assert.deepEqual(
		lines.map((line) => /([0-9a-f]{8}) /.exec(line)?.[1]),
		expected.tree.map((row) => row.id),
	);
	const children = lines.filter((line) => /^[├└]── /.test(line));
	assert.equal(children.length, 300);
	assert.ok(children[299]?.startsWith("└── "));
	assert.ok(Math.max(...lines.map((line) => line.length)) < 200);
});

test("display order equals flattenTree's on every fixture", async () => {
	for (const name of ["labels", "reset-leaf", "branch-in-place", "legacy-v2", "unicode", "tool-calls"]) {
		const s = await open(name);
		const ids = render(s)
			.filter((line) => !line.startsWith("Session: "))
			.map((line) => /([0-9a-f]{8}) /.exec(line)?.[1]);
		assert.deepEqual(
			ids,
			s.flattenTree().map((row) => row.entry.id),
			name,
		);
	}
});

test("forks nested thousands deep: no recursion, indentation capped", async () => {
	// Every assistant reply gets two children; the second one continues: 2,000 nested forks.
	const s = await memorySession();
	let reply = await say(s, "assistant", "start");
	for (let i = 0; i < 2000; i++) {
		await say(s, "user", `dead end ${i}`);
		await s.branch(reply);
		await say(s, "user", `go on ${i}`);
		reply = await say(s, "assistant", `reply ${i}`);
	}
	const lines = renderTreeLines(s.getTree(), { leafId: s.getLeafId(), maxIndent: 40 });
	assert.equal(lines.length, s.entryCount);
	assert.ok(Math.max(...lines.map((line) => line.length)) < 200);
	// Cut indentation says the depth: «N» (issue 25).
	assert.ok(lines.some((line) => /^«\d+» /.test(line)));
	assert.ok(lines.at(-1)?.endsWith("← leaf"));
});

test("previews are cut to the requested length", async () => {
	const s = await memorySession();
	await say(s, "user", "x".repeat(500));
	const [line] = renderTreeLines(s.getTree(), { previewLength: 10 });
	assert.equal(line, `00000001 user: ${"x".repeat(10)}…`);
});
