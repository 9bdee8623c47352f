import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { archiveEntry } from "../../src/core/archive.js";
import {
	isSessionTreeError,
	resolveIdPrefix,
	type SessionEntry,
	SessionTree,
	type SessionTreeNode,
} from "../../src/core/index.js";
import { Session } from "../../src/session.js";

const header = { type: "session" as const, version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" };
const entry = (id: string, parentId: string | null, timestamp = "2026-01-01T00:00:00.000Z"): SessionEntry => ({
	type: "message",
	id,
	parentId,
	timestamp,
	message: { role: "user", content: id, timestamp: 0 },
});
const hex = (i: number) => i.toString(16).padStart(8, "0");

describe("SessionTree", () => {
	test("a 200,000-deep chain: getBranch, getTree, flatten and listBranches without recursion", () => {
		const tree = SessionTree.empty(header);
		const N = 200_000;
		for (let i = 0; i < N; i++) tree.insert(entry(hex(i), i === 0 ? null : hex(i - 1)));
		assert.equal(tree.getBranch().length, N);
		assert.equal(tree.getBranch(hex(10))[10]?.id, hex(10));
		let depth = 0;
		for (let node: SessionTreeNode | undefined = tree.getTree()[0]; node; node = node.children[0]) depth++;
		assert.equal(depth, N);
		const rows = tree.flatten();
		assert.equal(rows.length, N);
		assert.equal(rows[N - 1]?.depth, N - 1);
		assert.deepEqual(tree.listBranches(), [hex(N - 1)]);
	});

	test("a node with 200,000 children: children in O(children), stable order by instant", () => {
		const tree = SessionTree.empty(header);
		const N = 200_000;
		tree.insert(entry("root0000", null));
		for (let i = 1; i <= N; i++) {
			// Half the children share one millisecond; one is earlier than all.
			const ts = i === N ? "2025-12-31T23:59:59.999Z" : "2026-01-01T00:00:00.000Z";
			tree.insert(entry(hex(i), "root0000", ts));
		}
		assert.equal(tree.getChildren("root0000").length, N);
		const children = tree.getTree()[0]?.children ?? [];
		assert.equal(children.length, N);
		assert.equal(children[0]?.entry.id, hex(N), "earliest instant first");
		assert.equal(children[1]?.entry.id, hex(1), "then file order among equal instants");
		assert.equal(tree.listBranches().length, N);
		assert.equal(tree.flatten().length, N + 1);
	});

	test("instants, not strings, order siblings", () => {
		const tree = SessionTree.empty(header);
		tree.insert(entry("aaaaaaaa", null));
		tree.insert(entry("bbbbbbbb", "aaaaaaaa", "2026-01-01T12:00:00.500+02:00")); // 10:00:00.500Z
		tree.insert(entry("cccccccc", "aaaaaaaa", "2026-01-01T10:00:00Z"));
		assert.deepEqual(
			tree.flatten().map((r) => r.entry.id),
			["aaaaaaaa", "cccccccc", "bbbbbbbb"],
		);
	});

	test("siblings in the order of the reference sort, whether written in order or not, with invalid instants", () => {
		// The expectation is pi's own rule, written here independently: a stable
		// Array.prototype.sort by the difference of Date.parse (NaN compares as equal). The tree
		// skips the sort when the instants it can read already ascend; these cases hold runs in
		// order, out of order, equal, and unreadable timestamps between them.
		const stamps = [
			"2026-01-01T00:00:00.000Z",
			"2026-01-01T00:00:01.000Z",
			"2026-01-01T02:00:00.500+02:00",
			"2026-01-02T00:00:00Z",
			"not a time",
			"",
		];
		fc.assert(
			fc.property(fc.array(fc.nat({ max: stamps.length - 1 }), { minLength: 1, maxLength: 12 }), (picks) => {
				const tree = SessionTree.empty(header);
				tree.insert(entry("root0000", null));
				const written = picks.map((pick, i) => ({ id: hex(i + 1), timestamp: stamps[pick] as string }));
				for (const child of written) tree.insert(entry(child.id, "root0000", child.timestamp));
				const expected = [...written]
					.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
					.map((child) => child.id);
				assert.deepEqual(
					tree.getTree()[0]?.children.map((node) => node.entry.id),
					expected,
				);
				assert.deepEqual(
					tree
						.flatten()
						.slice(1)
						.map((row) => row.entry.id),
					expected,
				);
			}),
			{ numRuns: 400 },
		);
	});

	test("getTree(id): the subtree of an entry, node for node as the whole tree's (order, labels, archived)", () => {
		// Random trees with out-of-order instants, labels and archive records; the expectation is
		// the whole tree's node of that id (found by a walk here), compared as plain data, and a
		// deep chain for the iteration.
		fc.assert(
			fc.property(
				fc.array(fc.tuple(fc.nat(), fc.nat({ max: 5 }), fc.nat({ max: 9 })), { minLength: 1, maxLength: 60 }),
				fc.nat(),
				(steps, pickRoot) => {
					const tree = SessionTree.empty(header);
					const ids: string[] = [];
					steps.forEach(([parent, stamp, extra], i) => {
						const id = hex(i);
						const parentId = i === 0 || parent % 7 === 0 ? null : (ids[parent % ids.length] as string);
						tree.insert(entry(id, parentId, `2026-01-01T00:00:0${stamp}.000Z`));
						ids.push(id);
						const at = { parentId: id, timestamp: "2026-01-02T00:00:00.000Z" };
						if (extra === 1) tree.insert({ type: "label", id: `L${id}`, ...at, targetId: id, label: `l${i}` });
						if (extra === 2) tree.insert(archiveEntry({ id: `A${id}`, ...at }, id, true));
					});
					const all = [...ids, ...ids.map((id) => `L${id}`), ...ids.map((id) => `A${id}`)].filter((id) => tree.has(id));
					const rootId = all[pickRoot % all.length] as string;
					const plain = (node: SessionTreeNode): unknown => ({ ...node, children: node.children.map(plain) });
					let expected: SessionTreeNode | undefined;
					const stack = [...tree.getTree()];
					for (let node = stack.pop(); node; node = stack.pop()) {
						if (node.entry.id === rootId) expected = node;
						stack.push(...node.children);
					}
					const got = tree.asReadonly().getTree(rootId);
					assert.equal(got.length, 1);
					assert.deepEqual(plain(got[0] as SessionTreeNode), plain(expected as SessionTreeNode));
				},
			),
			{ numRuns: 300 },
		);
		const chain = SessionTree.empty(header);
		chain.insert(entry(hex(0), null));
		for (let i = 1; i < 200_000; i++) chain.insert(entry(hex(i), hex(i - 1)));
		let depth = 0;
		for (let node: SessionTreeNode | undefined = chain.getTree(hex(1))[0]; node; node = node.children[0]) depth++;
		assert.equal(depth, 199_999);
		assert.throws(
			() => chain.getTree("nothere0"),
			(error: unknown) => isSessionTreeError(error, "ENTRY_NOT_FOUND"),
		);
	});

	test("insert refuses duplicate ids and unknown parents; setLeaf refuses unknown ids", () => {
		const tree = SessionTree.empty(header);
		tree.insert(entry("aaaaaaaa", null));
		assert.throws(
			() => tree.insert(entry("aaaaaaaa", null)),
			(e: unknown) => isSessionTreeError(e, "DUPLICATE_ID"),
		);
		assert.throws(
			() => tree.insert(entry("bbbbbbbb", "zzzzzzzz")),
			(e: unknown) => isSessionTreeError(e, "MISSING_PARENT"),
		);
		assert.throws(
			() => tree.setLeaf("zzzzzzzz"),
			(e: unknown) => isSessionTreeError(e, "ENTRY_NOT_FOUND"),
		);
		assert.equal(tree.size, 1);
	});

	test("labels: set, overwrite, clear; name: latest session_info, trimmed, empty clears", () => {
		const tree = SessionTree.empty(header);
		tree.insert(entry("aaaaaaaa", null));
		const label = (id: string, label?: string): SessionEntry => ({
			type: "label",
			id,
			parentId: null,
			timestamp: "2026-01-02T00:00:00.000Z",
			targetId: "aaaaaaaa",
			label,
		});
		tree.insert(label("11111111", "one"));
		tree.insert(label("22222222", "two"));
		assert.equal(tree.getLabel("aaaaaaaa"), "two");
		tree.insert(label("33333333", ""));
		assert.equal(tree.getLabel("aaaaaaaa"), undefined);
		const info = (id: string, name: string): SessionEntry => ({
			type: "session_info",
			id,
			parentId: null,
			timestamp: "2026-01-02T00:00:00.000Z",
			name,
		});
		tree.insert(info("44444444", "  hello "));
		assert.equal(tree.getSessionName(), "hello");
		tree.insert(info("55555555", "   "));
		assert.equal(tree.getSessionName(), undefined);
	});
});

describe("resolveIdPrefix", () => {
	test("a unique prefix resolves; none and several are typed errors listing candidates", () => {
		const tree = SessionTree.empty(header);
		tree.insert(entry("abc12345", null));
		tree.insert(entry("abd12345", "abc12345"));
		tree.insert(entry("ff000000", "abd12345"));
		assert.equal(resolveIdPrefix(tree, "abc"), "abc12345");
		assert.equal(resolveIdPrefix(tree, "f"), "ff000000");
		assert.equal(resolveIdPrefix(tree, "abd12345"), "abd12345");
		assert.throws(
			() => resolveIdPrefix(tree, "ab"),
			(e: unknown) =>
				isSessionTreeError(e, "AMBIGUOUS_ID") && e.message.includes("abc12345") && e.message.includes("abd12345"),
		);
		assert.throws(
			() => resolveIdPrefix(tree, "99"),
			(e: unknown) => isSessionTreeError(e, "ENTRY_NOT_FOUND"),
		);
	});
});

describe("the tree a session hands out", () => {
	test("is a frozen view: reads work, mutators are absent, assignment throws, labels are a copy", async () => {
		const session = await Session.inMemory({ cwd: "/" });
		const q = await session.appendMessage({ role: "user", content: "q", timestamp: 1 });
		await session.appendLabelChange(q, "start");
		const view = session.getTreeIndex();
		assert.equal(view.getLeafId(), session.getLeafId());
		assert.equal(view.getLabel(q), "start");
		// The subtree of an entry, from the session and its view: the entry with its label, and the label entry below it.
		for (const subtree of [session.getTree(q), view.getTree(q)]) {
			assert.deepEqual(
				subtree.map((node) => [node.entry.id, node.label, node.children.map((child) => child.entry.type)]),
				[[q, "start", ["label"]]],
			);
		}
		assert.ok(Object.isFrozen(view));
		const loose = view as unknown as Record<string, unknown>;
		for (const name of ["setLeaf", "insert", "attach", "addNode", "link", "getNode"]) {
			assert.equal(loose[name], undefined, `${name} is not on the view`);
		}
		assert.throws(() => {
			loose.getLeafId = () => "x";
		}, TypeError);
		const labels = view.getLabels() as Map<string, unknown>;
		labels.clear();
		assert.equal(session.getLabel(q), "start", "clearing the returned labels changes nothing");
		assert.equal(session.getTreeIndex(), view, "one view per tree");
	});
});
