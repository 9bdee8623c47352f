/**
 * Records derived from a loaded tree (core/copy.ts): what a fork writes after its header
 * (`forkRecords`) and what `migrate` and `repair` write in place of a session
 * (`rewriteRecords`). Both are pure functions of the tree.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildSessionContext } from "../../src/core/context.js";
import { forkRecords, type IdMaker, rewriteRecords } from "../../src/core/copy.js";
import { isUnreadable, type LineSource } from "../../src/core/lazy.js";
import { loadTree } from "../../src/core/load.js";
import type { ParsedLine, RawRecord } from "../../src/core/records.js";
import type { SessionTree } from "../../src/core/tree.js";
import { Envelope } from "../../src/core/tree-node.js";
import type { SessionEntry, SessionHeader } from "../../src/core/types.js";
import { parseLine } from "../../src/storage/codec.js";

const NOW = "2026-03-01T12:00:00.000Z";
const HEADER: SessionHeader = {
	type: "session",
	version: 3,
	id: "copy-session",
	timestamp: "2026-03-01T00:00:00.000Z",
	cwd: "/",
};
const at = (second: number) => `2026-03-01T00:00:${String(second).padStart(2, "0")}.000Z`;

const user = (id: string, parentId: string | null, second: number, text = `question ${id}`): SessionEntry =>
	({
		type: "message",
		id,
		parentId,
		timestamp: at(second),
		message: { role: "user", content: text, timestamp: second },
	}) as SessionEntry;
const assistant = (id: string, parentId: string | null, second: number): SessionEntry =>
	({
		type: "message",
		id,
		parentId,
		timestamp: at(second),
		message: {
			role: "assistant",
			content: [{ type: "text", text: `answer ${id}` }],
			provider: "p",
			model: "m",
			timestamp: second,
		},
	}) as SessionEntry;
const label = (id: string, parentId: string, second: number, targetId: string, text?: string): SessionEntry =>
	({ type: "label", id, parentId, timestamp: at(second), targetId, label: text }) as SessionEntry;
const compaction = (id: string, parentId: string, second: number, firstKeptEntryId: string): SessionEntry =>
	({
		type: "compaction",
		id,
		parentId,
		timestamp: at(second),
		summary: `summary ${id}`,
		firstKeptEntryId,
		tokensBefore: 100,
	}) as SessionEntry;
const leafRecord = (id: string, targetId: string | null, second: number): RawRecord => ({
	type: "leaf",
	id,
	parentId: targetId,
	timestamp: at(second),
	targetId,
});

function lines(...records: object[]): ParsedLine[] {
	return records.map((record, i) => parseLine(JSON.stringify(record), i + 1));
}

/** A tree read from records (a header first), as a session has it. */
function treeOf(records: object[], lenient = false): SessionTree {
	return loadTree(lines(...records), { lenient }).tree;
}

/** Ids from a fixed list, skipping those taken: deterministic, and it shows the collision checks work. */
function idsFrom(...candidates: string[]): IdMaker {
	return (taken) => {
		const id = candidates.find((candidate) => !taken(candidate));
		assert.ok(id, "ran out of candidate ids");
		return id;
	};
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
const contextAt = (tree: SessionTree, id?: string | null) => plain(buildSessionContext(tree.getBranch(id)));

describe("forkRecords", () => {
	/**
	 * m1 ← L1 (label on m1) ← m2 ← L2 (label on m2) ← c1 (compaction keeping from L1) ← m3, and a
	 * side branch m1 ← x1 ← L3 (label on x1).
	 */
	const source = () =>
		treeOf([
			HEADER,
			user("m1", null, 1),
			label("L1", "m1", 2, "m1", "start"),
			assistant("m2", "L1", 3),
			label("L2", "m2", 4, "m2", "answer"),
			compaction("c1", "L2", 5, "L1"),
			user("m3", "c1", 6),
			user("x1", "m1", 7),
			label("L3", "x1", 8, "x1", "side"),
		]);

	test("the path without label entries, re-chained; labels re-created after it; a leaf record back", () => {
		const tree = source();
		const records = forkRecords(tree, "m3", idsFrom("m1", "m3", "n0000001", "n0000002", "n0000003"), NOW);
		assert.deepEqual(records, [
			user("m1", null, 1),
			assistant("m2", "m1", 3),
			// Kept from the dropped label entry L1: keeps from the next copied entry, m2.
			compaction("c1", "m2", 5, "m2"),
			user("m3", "c1", 6),
			// Labels in effect on the copied entries, as set (with their time); none for x1, not copied.
			label("n0000001", "m3", 2, "m1", "start"),
			label("n0000002", "n0000001", 4, "m2", "answer"),
			// The labels moved the leaf off m3: a persisted-leaf record puts it back.
			{ type: "leaf", id: "n0000003", parentId: "m3", timestamp: NOW, targetId: "m3" },
		]);
		// Entries that needed no change are the tree's own; changed ones are copies.
		assert.equal(records[0], tree.getEntry("m1"));
		assert.equal(records[3], tree.getEntry("m3"));
		assert.equal(tree.getEntry("m2")?.parentId, "L1", "the tree is untouched");
		assert.equal((tree.getEntry("c1") as { firstKeptEntryId: string }).firstKeptEntryId, "L1");
	});

	test("the fork, read back, has the source's context, path and labels at the fork point", () => {
		const tree = source();
		const records = forkRecords(tree, "m3", idsFrom("n0000001", "n0000002", "n0000003"), NOW);
		const fork = loadTree(lines({ ...HEADER, id: "fork" }, ...records)).tree;
		assert.equal(fork.getLeafId(), "m3");
		assert.deepEqual(
			fork.getBranch().map((entry) => entry.id),
			["m1", "m2", "c1", "m3"],
		);
		assert.deepEqual(contextAt(fork), contextAt(tree, "m3"));
		assert.deepEqual(
			contextAt(fork).messages.map((m: { role: string }) => m.role),
			["compactionSummary", "assistant", "user"],
			"the kept message survives the dropped label",
		);
		assert.equal(fork.getLabel("m1"), "start");
		assert.equal(fork.getLabel("m2"), "answer");
		assert.equal(fork.getLabel("x1"), undefined);
	});

	test("at a label entry: forks at the nearest copied entry above it", () => {
		const tree = source();
		const records = forkRecords(tree, "L2", idsFrom("n0000001", "n0000002", "n0000003"), NOW);
		assert.deepEqual(
			records.map((entry) => [entry.type, entry.id, entry.parentId]),
			[
				["message", "m1", null],
				["message", "m2", "m1"],
				["label", "n0000001", "m2"],
				["label", "n0000002", "n0000001"],
				["leaf", "n0000003", "m2"],
			],
		);
		const fork = loadTree(lines(HEADER, ...records)).tree;
		assert.equal(fork.getLeafId(), "m2");
		assert.deepEqual(contextAt(fork), contextAt(tree, "L2"));
	});

	test("labels as they are now: a cleared label is not re-created, a changed one has its latest text and time", () => {
		const tree = treeOf([
			HEADER,
			user("m1", null, 1),
			assistant("m2", "m1", 2),
			label("L1", "m2", 3, "m1", "first"),
			label("L2", "L1", 4, "m2", "old"),
			label("L3", "L2", 5, "m2", "new"),
			label("L4", "L3", 6, "m1", undefined),
		]);
		const records = forkRecords(tree, "m2", idsFrom("n0000001", "n0000002"), NOW);
		assert.deepEqual(records, [
			user("m1", null, 1),
			assistant("m2", "m1", 2),
			label("n0000001", "m2", 5, "m2", "new"),
			{ type: "leaf", id: "n0000002", parentId: "m2", timestamp: NOW, targetId: "m2" },
		]);
	});

	test("no labels on the path: the path alone, no leaf record", () => {
		const tree = source();
		const plainTree = treeOf([HEADER, user("m1", null, 1), assistant("m2", "m1", 2), user("m3", "m1", 3)]);
		assert.deepEqual(forkRecords(plainTree, "m2", idsFrom("n0000001"), NOW), [
			user("m1", null, 1),
			assistant("m2", "m1", 2),
		]);
		// The side branch's own label comes along with it.
		assert.deepEqual(
			forkRecords(tree, "x1", idsFrom("n0000001", "n0000002", "n0000003"), NOW).map((entry) => entry.type),
			["message", "message", "label", "label", "leaf"],
		);
	});

	test("fresh ids are neither copied ids nor each other", () => {
		const tree = source();
		const records = forkRecords(
			tree,
			"m3",
			idsFrom("m1", "m2", "c1", "m3", "L1", "n0000001", "n0000002", "n0000003"),
			NOW,
		);
		const ids = records.map((entry) => entry.id);
		assert.equal(new Set(ids).size, ids.length);
		// L1 is not copied: the fork may use it again.
		assert.deepEqual(ids.slice(4), ["L1", "n0000001", "n0000002"]);
	});
});

/** A line source over texts by entry id, for entries given as envelopes. */
function sourceOf(texts: Map<string, string>): LineSource {
	return { readLines: (spans) => spans.map((span) => texts.get(span.id) ?? "") };
}

/** Lines where the entries are envelopes whose bodies come from `texts` (`damaged` ids get a broken body). */
function lazyLines(entries: SessionEntry[], damaged: readonly string[]): { lines: ParsedLine[]; source: LineSource } {
	const texts = new Map<string, string>();
	const out: ParsedLine[] = [parseLine(JSON.stringify(HEADER), 1)];
	entries.forEach((entry, i) => {
		const text = JSON.stringify(entry);
		texts.set(entry.id, damaged.includes(entry.id) ? text.replace("question", 'ques"tion') : text);
		const role = (entry as { message?: { role?: string } }).message?.role;
		out.push(new Envelope(entry.type, entry.id, entry.parentId, entry.timestamp, role, 0, text.length, i + 2));
	});
	return { lines: out, source: sourceOf(texts) };
}

describe("rewriteRecords", () => {
	test("unreadable entries are dropped; their children move up to the nearest readable ancestor", () => {
		const entries = [
			user("a1", null, 1),
			user("a2", "a1", 2),
			user("a5", "a2", 3),
			user("a6", "a5", 4),
			user("a4", "a2", 5),
			user("a3", "a1", 6),
		];
		const { lines: parsed, source } = lazyLines(entries, ["a2", "a5"]);
		const { tree, problems } = loadTree(parsed, { lenient: true, source });
		tree.getEntries(); // a lenient session learns of damaged bodies when it reads them
		assert.deepEqual(
			problems.map((p) => [p.code, p.entryId]),
			[
				["INVALID_JSON", "a2"],
				["INVALID_JSON", "a5"],
			],
		);
		assert.ok(isUnreadable(tree.getEntry("a2") as SessionEntry));
		const records = rewriteRecords(tree, idsFrom("n0000001"), NOW);
		assert.deepEqual(records, [
			HEADER,
			user("a1", null, 1),
			user("a6", "a1", 4),
			user("a4", "a1", 5),
			user("a3", "a1", 6),
		]);
		assert.equal(records[0], tree.header);
		// The leaf on an unreadable entry: the leaf record names its nearest readable ancestor.
		tree.setLeaf("a5");
		const leafOnDamaged = rewriteRecords(tree, idsFrom("n0000001"), NOW);
		assert.deepEqual(leafOnDamaged.at(-1), {
			type: "leaf",
			id: "n0000001",
			parentId: "a1",
			timestamp: NOW,
			targetId: "a1",
		});
		// The rewrite reads back strictly, without problems.
		const reread = loadTree(lines(...leafOnDamaged));
		assert.deepEqual(reread.problems, []);
		assert.equal(reread.tree.getLeafId(), "a1");
	});

	test("bridged parents are written out; the tree's entries are not changed", () => {
		const tree = treeOf([HEADER, user("a1", null, 1), user("b1", "gone0000", 2), user("b2", "b1", 3)], true);
		assert.equal(tree.getParentId("b1"), "a1");
		const records = rewriteRecords(tree, idsFrom("n0000001"), NOW);
		assert.deepEqual(records, [HEADER, user("a1", null, 1), user("b1", "a1", 2), user("b2", "b1", 3)]);
		assert.equal(tree.getEntry("b1")?.parentId, "gone0000");
		assert.equal(records[3], tree.getEntry("b2"), "unchanged entries are written as they are");
		assert.deepEqual(loadTree(lines(...records)).problems, []);
	});

	test("parents naming persisted-leaf records are written as the entries they mean; old leaf records are not kept", () => {
		const tree = treeOf([
			HEADER,
			user("a1", null, 1),
			user("a2", "a1", 2),
			leafRecord("l1", "a1", 3),
			user("a3", "l1", 4),
		]);
		assert.equal(tree.getParentId("a3"), "a1");
		const records = rewriteRecords(tree, idsFrom("n0000001"), NOW);
		assert.deepEqual(records, [HEADER, user("a1", null, 1), user("a2", "a1", 2), user("a3", "a1", 4)]);
	});

	test("a leaf record when the leaf is not the last entry (an entry, or before the first)", () => {
		const tree = treeOf([HEADER, user("a1", null, 1), user("a2", "a1", 2), user("a3", "a1", 3)]);
		assert.equal(rewriteRecords(tree, idsFrom("n0000001"), NOW).length, 4, "the leaf is last: no record");
		tree.setLeaf("a2");
		const records = rewriteRecords(tree, idsFrom("a1", "a2", "n0000001"), NOW);
		assert.deepEqual(records.at(-1), { type: "leaf", id: "n0000001", parentId: "a2", timestamp: NOW, targetId: "a2" });
		assert.equal(loadTree(lines(...records)).tree.getLeafId(), "a2");
		tree.setLeaf(null);
		const reset = rewriteRecords(tree, idsFrom("n0000002"), NOW);
		assert.deepEqual(reset.at(-1), { type: "leaf", id: "n0000002", parentId: null, timestamp: NOW, targetId: null });
		assert.equal(loadTree(lines(...reset)).tree.getLeafId(), null);
		// An empty session: just the header.
		assert.deepEqual(rewriteRecords(treeOf([HEADER]), idsFrom("n0000001"), NOW), [HEADER]);
	});

	test("the current version's header and migrated records; renamed duplicates keep their new ids", () => {
		const v2 = { ...HEADER, version: 2 };
		const hook = {
			type: "message",
			id: "a2",
			parentId: "a1",
			timestamp: at(2),
			message: { role: "hookMessage", customType: "x", content: "hook", display: true, timestamp: 2 },
		};
		const migrated = treeOf([v2, user("a1", null, 1), hook]);
		const records = rewriteRecords(migrated, idsFrom("n0000001"), NOW);
		assert.deepEqual(records[0], HEADER);
		assert.equal((records[2] as unknown as { message: { role: string } }).message.role, "custom");

		const dup = loadTree(lines(HEADER, user("a1", null, 1), user("a1", null, 2, "other")), { lenient: true });
		const renamed = dup.problems[0]?.message.match(/is given id (\S+)$/)?.[1];
		assert.ok(renamed);
		const rewritten = rewriteRecords(dup.tree, idsFrom("n0000001"), NOW);
		assert.deepEqual(
			rewritten.slice(1).map((entry) => entry.id),
			["a1", renamed],
		);
		const reread = loadTree(lines(...rewritten));
		assert.deepEqual(reread.problems, []);
		assert.deepEqual(contextAt(reread.tree), contextAt(dup.tree));
	});
});
