/**
 * `compareBranches`: where two paths of a tree part. Expectations are read off trees built here
 * by hand (the ids say where each entry sits).
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compareBranches, isSessionTreeError, type SessionEntry, SessionTree } from "../../src/core/index.js";

const header = { type: "session" as const, version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" };
const entry = (id: string, parentId: string | null): SessionEntry => ({
	type: "message",
	id,
	parentId,
	timestamp: "2026-01-01T00:00:00.000Z",
	message: { role: "user", content: id, timestamp: 0 },
});

/** root → a → {b1 → b2, c1}; a second root r2. */
function tree(): SessionTree {
	const t = SessionTree.empty(header);
	for (const [id, parent] of [
		["root", null],
		["a", "root"],
		["b1", "a"],
		["b2", "b1"],
		["c1", "a"],
		["r2", null],
	] as const)
		t.insert(entry(id, parent));
	return t;
}

describe("compareBranches", () => {
	test("two leaves: the fork and each side below it, root first", () => {
		assert.deepEqual(compareBranches(tree(), "b2", "c1"), { ancestorId: "a", onlyA: ["b1", "b2"], onlyB: ["c1"] });
	});

	test("an entry and its descendant: the entry is the ancestor, one side is empty", () => {
		assert.deepEqual(compareBranches(tree(), "a", "b2"), { ancestorId: "a", onlyA: [], onlyB: ["b1", "b2"] });
		assert.deepEqual(compareBranches(tree(), "b2", "b2"), { ancestorId: "b2", onlyA: [], onlyB: [] });
	});

	test("two roots share nothing", () => {
		assert.deepEqual(compareBranches(tree(), "c1", "r2"), {
			ancestorId: null,
			onlyA: ["root", "a", "c1"],
			onlyB: ["r2"],
		});
	});

	test("an unknown id is ENTRY_NOT_FOUND", () => {
		assert.throws(
			() => compareBranches(tree(), "a", "zz"),
			(error) => isSessionTreeError(error, "ENTRY_NOT_FOUND"),
		);
	});

	test("a chain of 200,000 entries and a fork at its end, without recursion", () => {
		const t = SessionTree.empty(header);
		const n = 200_000;
		t.insert(entry("e0", null));
		for (let i = 1; i < n; i++) t.insert(entry(`e${i}`, `e${i - 1}`));
		t.insert(entry("side", `e${n - 2}`));
		const parts = compareBranches(t, `e${n - 1}`, "side");
		assert.deepEqual(parts, { ancestorId: `e${n - 2}`, onlyA: [`e${n - 1}`], onlyB: ["side"] });
	});
});
