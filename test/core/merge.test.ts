/**
 * The union of two copies of one session (core/merge.ts), with every expectation derived by
 * hand: branched copies, a compaction whose id B drew again, labels and names set on both
 * sides, a copy merged with itself, copies of different sessions, a child before its parent.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildSessionContext } from "../../src/core/context.js";
import { isEntryId } from "../../src/core/ids.js";
import { loadTree } from "../../src/core/load.js";
import { mergeRecords } from "../../src/core/merge.js";
import type { RawRecord } from "../../src/core/records.js";

const HEADER: RawRecord = {
	type: "session",
	version: 3,
	id: "merge-session",
	timestamp: "2026-03-01T00:00:00.000Z",
	cwd: "/",
};
const at = (second: number) => `2026-03-01T00:00:${String(second).padStart(2, "0")}.000Z`;

const user = (id: string, parentId: string | null, second: number, text = `question ${id}`): RawRecord => ({
	type: "message",
	id,
	parentId,
	timestamp: at(second),
	message: { role: "user", content: text, timestamp: second },
});
const assistant = (id: string, parentId: string | null, second: number): RawRecord => ({
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
});
const label = (id: string, parentId: string, second: number, targetId: string, text?: string): RawRecord => ({
	type: "label",
	id,
	parentId,
	timestamp: at(second),
	targetId,
	label: text,
});
const info = (id: string, parentId: string, second: number, name: string): RawRecord => ({
	type: "session_info",
	id,
	parentId,
	timestamp: at(second),
	name,
});
const leaf = (id: string, targetId: string | null, second: number): RawRecord => ({
	type: "leaf",
	id,
	parentId: targetId,
	timestamp: at(second),
	targetId,
});
const compaction = (id: string, parentId: string, second: number, firstKeptEntryId: string): RawRecord => ({
	type: "compaction",
	id,
	parentId,
	timestamp: at(second),
	summary: `summary ${id}`,
	firstKeptEntryId,
	tokensBefore: 100,
});

const ids = (records: readonly RawRecord[]) => records.slice(1).map((record) => record.id);
const treeOf = (records: readonly RawRecord[]) => loadTree(records.map((record, line) => ({ line: line + 1, record })));
const texts = (records: readonly RawRecord[]) => records.map((record) => JSON.stringify(record));

describe("mergeRecords", () => {
	// u1 → a1 → u2 shared; A goes on from u2, B branches back to a1 (a leaf record) and asks again.
	const base = [
		HEADER,
		user("00000001", null, 1),
		assistant("00000002", "00000001", 2),
		user("00000003", "00000002", 3),
	];
	const a = [...base, assistant("0000000a", "00000003", 5), user("0000000b", "0000000a", 6)];
	const b = [
		...base,
		leaf("000000b0", "00000002", 7),
		user("000000b1", "00000002", 8, "asked again"),
		assistant("000000b2", "000000b1", 9),
	];

	test("branched copies: A's records, then B's that A lacks; the newer copy's leaf", () => {
		const { records, report } = mergeRecords(a, b);
		assert.deepEqual(ids(records), [
			"00000001",
			"00000002",
			"00000003",
			"0000000a",
			"0000000b",
			"000000b0",
			"000000b1",
			"000000b2",
		]);
		assert.equal(records[0], HEADER, "A's header");
		// B's last record (09 s) is newer than A's (06 s); the union already ends at B's leaf.
		assert.deepEqual(report.leaf, { a: "0000000b", b: "000000b2", merged: "000000b2", from: "b", reason: "newer" });
		assert.equal(report.fromA, 5);
		assert.equal(report.fromB, 3);
		assert.equal(report.shared, 3);
		assert.deepEqual(report.conflicts, []);
		assert.equal(report.moved, 0);
		const tree = treeOf(records).tree;
		assert.equal(tree.getLeafId(), "000000b2");
		assert.deepEqual(
			tree.getChildren("00000002").map((entry) => entry.id),
			["00000003", "000000b1"],
			"both branches hang off a1",
		);
	});

	test("--leaf a: a persisted-leaf record to A's leaf, stamped with the later copy's last time", () => {
		const { records, report } = mergeRecords(a, b, { leaf: "a" });
		assert.equal(records.length, a.length + 3 + 1);
		const last = records.at(-1) as RawRecord;
		assert.equal(report.leaf.recordId, last.id);
		assert.ok(isEntryId(last.id as string));
		assert.deepEqual(last, { type: "leaf", id: last.id, parentId: "0000000b", timestamp: at(9), targetId: "0000000b" });
		assert.equal(report.leaf.reason, "chosen");
		assert.equal(treeOf(records).tree.getLeafId(), "0000000b");
		// The same inputs give the same record: merging again writes the same bytes.
		assert.deepEqual(texts(mergeRecords(a, b, { leaf: "a" }).records), texts(records));
	});

	test("the other order: B's records first, then A's; the same entries and the same (newer) leaf", () => {
		const { records, report } = mergeRecords(b, a);
		assert.deepEqual(ids(records).slice(0, -1), [
			"00000001",
			"00000002",
			"00000003",
			"000000b0",
			"000000b1",
			"000000b2",
			"0000000a",
			"0000000b",
		]);
		assert.equal(report.leaf.from, "a", "the first argument is the newer copy now");
		assert.equal(treeOf(records).tree.getLeafId(), "000000b2");
		assert.equal(records.at(-1)?.type, "leaf");
		const forward = new Set(texts(mergeRecords(a, b).records.slice(1)));
		assert.deepEqual(new Set(texts(records.slice(1, -1))), forward);
	});

	test("equal times: A's leaf (a tie)", () => {
		const tied = [...a.slice(0, -1), user("0000000b", "0000000a", 9)];
		const { report } = mergeRecords(tied, b);
		assert.equal(report.leaf.reason, "tie");
		assert.equal(report.leaf.from, "a");
	});

	test("a copy merged with itself, or with a copy it contains, is that copy byte for byte", () => {
		for (const other of [a, base]) {
			const { records, report } = mergeRecords(a, other);
			assert.deepEqual(texts(records), texts(a));
			assert.equal(report.fromB, 0);
			assert.equal(report.leaf.recordId, undefined);
		}
	});

	test("the same id with different content: B's version under a new id, its children and label follow it", () => {
		// Shared u1 a1 u2 a2; A compacts (keeping from u2) and goes on; B drew the compaction's id for a question.
		const shared = [...base, assistant("00000004", "00000003", 4)];
		const ca = [...shared, compaction("0000000c", "00000004", 5, "00000003"), user("0000000d", "0000000c", 6)];
		const cb = [
			...shared,
			user("0000000c", "00000004", 5, "B's question"),
			assistant("000000e1", "0000000c", 7),
			label("000000e2", "000000e1", 8, "0000000c", "B's mark"),
		];
		const { records, report } = mergeRecords(ca, cb, { names: { a: "a.jsonl", b: "b.jsonl" } });
		assert.equal(report.conflicts.length, 1);
		const [conflict] = report.conflicts;
		const newId = conflict?.newId as string;
		assert.ok(isEntryId(newId) && newId !== "0000000c", newId);
		assert.deepEqual(conflict, { id: "0000000c", newId, renamedReferences: 2 });
		assert.deepEqual(records.slice(ca.length), [
			{ ...user("0000000c", "00000004", 5, "B's question"), id: newId },
			assistant("000000e1", newId, 7),
			label("000000e2", "000000e1", 8, newId, "B's mark"),
		]);
		assert.deepEqual(records.slice(0, ca.length), ca, "A's records as they were");
		const loaded = treeOf(records).tree;
		assert.equal(loaded.getLeafId(), "000000e2");
		assert.equal(loaded.getLabel(newId), "B's mark");
		assert.equal(loaded.getLabel("0000000c"), undefined, "A's compaction is not labelled");
		// Each side's context reads as it did in its own copy.
		const contextAt = (id: string) =>
			buildSessionContext(loaded.getBranch(id)).messages.map((m) => ("content" in m ? m.content : m.role));
		assert.deepEqual(contextAt("000000e1"), [
			"question 00000001",
			[{ type: "text", text: "answer 00000002" }],
			"question 00000003",
			[{ type: "text", text: "answer 00000004" }],
			"B's question",
			[{ type: "text", text: "answer 000000e1" }],
		]);
		const summarised = contextAt("0000000d");
		assert.equal(summarised.length, 4, "summary, kept u2 and a2, then the question after it");
		assert.deepEqual(summarised.slice(1), [
			"question 00000003",
			[{ type: "text", text: "answer 00000004" }],
			"question 0000000d",
		]);
		// The new id is derived: the same inputs give it again.
		assert.equal(mergeRecords(ca, cb).report.conflicts[0]?.newId, newId);
	});

	test("labels and names set on both sides: all kept, B's in effect (later), the disagreement reported", () => {
		const shared = [HEADER, user("00000001", null, 1), assistant("00000002", "00000001", 2)];
		const la = [
			...shared,
			label("000000a1", "00000002", 3, "00000002", "alpha"),
			info("000000a2", "000000a1", 4, "Name A"),
		];
		const lb = [
			...shared,
			label("000000b1", "00000002", 5, "00000002", "beta"),
			info("000000b2", "000000b1", 6, "Name B"),
		];
		const { records, report } = mergeRecords(la, lb);
		assert.deepEqual(ids(records), ["00000001", "00000002", "000000a1", "000000a2", "000000b1", "000000b2"]);
		assert.deepEqual(report.names, { a: "Name A", b: "Name B", merged: "Name B" });
		assert.deepEqual(report.labels, [{ targetId: "00000002", a: "alpha", b: "beta", merged: "beta" }]);
		const { tree } = treeOf(records);
		assert.equal(tree.getSessionName(), "Name B");
		assert.equal(tree.getLabel("00000002"), "beta");
		assert.equal(mergeRecords(la, la).report.names, undefined, "no disagreement, no report");
	});

	test("a child before its parent (pi accepts that) is moved after it; nothing else moves", () => {
		const forward = [HEADER, user("00000002", "00000001", 2), user("00000001", null, 1), user("00000003", null, 3)];
		const { records, report } = mergeRecords(forward, [HEADER]);
		assert.deepEqual(ids(records), ["00000001", "00000002", "00000003"]);
		assert.equal(report.moved, 1);
	});

	test("the same record with its keys in another order is the same record", () => {
		const reordered = base.map((record, i) =>
			i === 2 ? Object.fromEntries(Object.entries(record).reverse()) : record,
		) as RawRecord[];
		const { records, report } = mergeRecords(base, reordered);
		assert.deepEqual(report.conflicts, []);
		assert.deepEqual(texts(records), texts(base));
	});

	test("copies of different sessions are refused unless forced (A's header kept)", () => {
		const other = [{ ...HEADER, id: "another-session" }, ...b.slice(1)];
		assert.throws(
			() => mergeRecords(a, other, { names: { a: "x.jsonl", b: "y.jsonl" } }),
			(error: Error & { code?: string }) =>
				error.code === "INVALID_ARGUMENT" &&
				/x\.jsonl is session merge-session, y\.jsonl is session another-session/.test(error.message),
		);
		const forced = mergeRecords(a, other, { force: true });
		assert.equal(forced.records[0], HEADER);
		assert.deepEqual(forced.report.sessionIds, { a: "merge-session", b: "another-session" });
	});

	test("a copy that is not a clean current-version session is refused, naming it", () => {
		assert.throws(
			() => mergeRecords(a, [{ ...HEADER, version: 2 }], { names: { b: "old.jsonl" } }),
			/old\.jsonl:1: version 2/,
		);
		assert.throws(() => mergeRecords([HEADER, user("00000002", "0000dead", 1)], base), /MISSING|not in|parent/i);
	});
});
