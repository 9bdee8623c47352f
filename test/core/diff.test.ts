/**
 * The diff of two paths (core/diff.ts), on trees built here: the expected pairs and word
 * changes are read off the texts by hand.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { diffPaths, diffWords, emptyUsage, type SessionEntry } from "../../src/core/index.js";

let clock = 0;
const at = () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)).toISOString();
const user = (id: string, parentId: string | null, text: string): SessionEntry => ({
	type: "message",
	id,
	parentId,
	timestamp: at(),
	message: { role: "user", content: text, timestamp: 0 },
});
const assistant = (id: string, parentId: string, text: string, calls: Array<[string, unknown]> = []): SessionEntry => ({
	type: "message",
	id,
	parentId,
	timestamp: at(),
	message: {
		role: "assistant",
		content: [
			{ type: "text", text },
			...calls.map(([name, args], i) => ({
				type: "toolCall" as const,
				id: `c${i}`,
				name,
				arguments: args as Record<string, unknown>,
			})),
		],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "m",
		usage: emptyUsage(),
		stopReason: "stop",
		timestamp: 0,
	},
});
const label = (id: string, parentId: string, targetId: string): SessionEntry => ({
	type: "label",
	id,
	parentId,
	timestamp: at(),
	targetId,
	label: "x",
});

describe("diffWords", () => {
	test("an edited prompt: the changed words only, the rest kept", () => {
		assert.deepEqual(diffWords("Add a polyfill then.", "Add a polyfill for Node 16 then."), [
			{ op: "same", text: "Add a polyfill " },
			{ op: "added", text: "for Node 16 " },
			{ op: "same", text: "then." },
		]);
		assert.deepEqual(diffWords("use port 5432", "use port 6543"), [
			{ op: "same", text: "use port " },
			{ op: "removed", text: "5432" },
			{ op: "added", text: "6543" },
		]);
	});

	test("the same text is one unchanged piece; texts with nothing in common are removed then added", () => {
		assert.deepEqual(diffWords("same", "same"), [{ op: "same", text: "same" }]);
		assert.deepEqual(diffWords("alpha", "beta"), [
			{ op: "removed", text: "alpha" },
			{ op: "added", text: "beta" },
		]);
		assert.deepEqual(diffWords("", "new"), [{ op: "added", text: "new" }]);
	});

	test("a middle too large to align is removed then added, and the pieces still rebuild both texts", () => {
		const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join(" ");
		const b = Array.from({ length: 3000 }, (_, i) => `b${i}`).join(" ");
		const changes = diffWords(`start ${a} end`, `start ${b} end`);
		const side = (op: "removed" | "added") =>
			changes
				.filter((c) => c.op === "same" || c.op === op)
				.map((c) => c.text)
				.join("");
		assert.equal(side("removed"), `start ${a} end`);
		assert.equal(side("added"), `start ${b} end`);
	});
});

describe("diffPaths", () => {
	// q1 → a1 → { q2 → a2 (with a tool call), q2' (edited) → a2' }
	const q1 = user("q1", null, "What is a B-tree?");
	const a1 = assistant("a1", "q1", "A balanced search tree.");
	const q2 = user("q2", "a1", "And a trie?");
	const a2 = assistant("a2", "q2", "A prefix tree.", [["read", { path: "trie.md" }]]);
	const q2e = user("q2e", "a1", "And a radix trie?");
	const lb = label("lb", "q2e", "q1");
	const a2e = assistant("a2e", "lb", "A compressed prefix tree.");

	test("two leaves: the ancestor, the edited prompt paired with its original, the regenerated answer with the first", () => {
		const diff = diffPaths([q1, a1, q2, a2], [q1, a1, q2e, lb, a2e]);
		assert.equal(diff.ancestorId, "a1");
		assert.equal(diff.afterA, 2);
		assert.equal(diff.afterB, 3, "the label counts as an entry after it, but takes no part");
		assert.deepEqual(
			diff.rows.map((row) => [row.kind, "a" in row ? row.a.id : null, "b" in row ? row.b.id : null]),
			[
				["changed", "q2", "q2e"],
				["changed", "a2", "a2e"],
			],
		);
		const [prompt, answer] = diff.rows;
		assert.ok(prompt?.kind === "changed");
		assert.deepEqual(prompt.words, [
			{ op: "same", text: "And a " },
			{ op: "added", text: "radix " },
			{ op: "same", text: "trie?" },
		]);
		assert.ok(answer?.kind === "changed");
		// The tool call is part of the answer's text: its removal shows.
		assert.ok(answer.words.some((c) => c.op === "removed" && c.text.includes('read {"path":"trie.md"}')));
	});

	test("an extra round on one side stays unpaired, in its place", () => {
		const q3 = user("q3", "a2", "Thanks");
		const a3 = assistant("a3", "q3", "You are welcome.");
		const diff = diffPaths(
			[q1, a1, q2, a2, q3, a3],
			[q1, a1, q2, assistant("a2b", "q2", "A prefix tree.", [["read", { path: "trie.md" }]])],
		);
		assert.equal(diff.ancestorId, "q2");
		assert.deepEqual(
			diff.rows.map((row) => row.kind),
			["same", "only-a", "only-a"],
		);
	});

	test("a compaction on one side: its summary is a row of its own, the answers after it still paired", () => {
		const compaction: SessionEntry = {
			type: "compaction",
			id: "cp",
			parentId: "a2",
			timestamp: at(),
			summary: "The user asked about tries.",
			firstKeptEntryId: "q2",
			tokensBefore: 1000,
		};
		const q3 = user("q3", "cp", "And B-trees?");
		const q3b = user("q3b", "a2", "And B+ trees?");
		const diff = diffPaths([q1, a1, q2, a2, compaction, q3], [q1, a1, q2, a2, q3b]);
		assert.equal(diff.ancestorId, "a2");
		assert.deepEqual(
			diff.rows.map((row) => [row.kind, "a" in row ? row.a.role : null, "b" in row ? row.b.id : null]),
			[
				["only-a", "compaction", null],
				["changed", "user", "q3b"],
			],
		);
	});

	test("an entry and its descendant: one side empty; paths with no shared entry: no ancestor", () => {
		const down = diffPaths([q1, a1], [q1, a1, q2, a2]);
		assert.equal(down.ancestorId, "a1");
		assert.deepEqual(
			down.rows.map((row) => row.kind),
			["only-b", "only-b"],
		);
		const none = diffPaths([q1], [user("r", null, "Other")]);
		assert.equal(none.ancestorId, null);
		assert.deepEqual(
			none.rows.map((row) => row.kind),
			["changed"],
		);
	});
});
