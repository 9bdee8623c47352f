/**
 * layoutWindow (render/tree-window.ts): the rows around the leaf it makes without laying out the
 * whole tree are exactly the whole layout's rows around the leaf's row. The expectation is
 * `layoutTree` itself (every row laid out, the slice around its `leafShownAt` row taken here),
 * on random trees (chains with forks on either side of the path, hidden entries, archived
 * branches, several roots), every filter, random leaves and window sizes, and on sessions read
 * lazily from files (their messages decided from their bytes).
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { archiveEntry } from "../../src/core/archive.js";
import { type ReadonlySessionTree, SessionTree } from "../../src/core/tree.js";
import { TreeNode } from "../../src/core/tree-node.js";
import { viewId, viewNodeOf } from "../../src/core/tree-view.js";
import type { SessionTreeNode } from "../../src/core/types.js";
import { layoutTree, TREE_FILTERS, type TreeFilter } from "../../src/render/tree-layout.js";
import { layoutWindow } from "../../src/render/tree-window.js";
import { Session } from "../../src/session.js";
import { tempDir } from "../cli/helpers.js";
import { mulberry32 } from "../support/random.js";
import { say, toolRound } from "./helpers.js";
import { plainRow, randomCase } from "./random-trees.js";

/**
 * A session tree holding a random tree (random-trees.ts): its entries in the order they were
 * made (so children keep their order), then, for each node marked so, a label entry and an
 * archive record under it. The window reads the tree's nodes; the expectation is the whole
 * layout of the same tree's `getTree()`.
 */
function realTree(roots: readonly SessionTreeNode[]): ReadonlySessionTree {
	const nodes: SessionTreeNode[] = [];
	const stack = [...roots];
	for (let node = stack.pop(); node; node = stack.pop()) {
		nodes.push(node);
		stack.push(...node.children);
	}
	const number = (node: SessionTreeNode) => Number(node.entry.id.slice(1));
	nodes.sort((a, b) => number(a) - number(b));
	const tree = SessionTree.empty(HEADER);
	for (const node of nodes) tree.insert(node.entry);
	const timestamp = "2026-01-01T00:00:00.000Z";
	for (const node of nodes) {
		const id = node.entry.id;
		if (node.label !== undefined) {
			tree.insert({ type: "label", id: `L${id}`, parentId: id, timestamp, targetId: id, label: node.label });
		}
		if (node.archived) tree.insert(archiveEntry({ id: `A${id}`, parentId: id, timestamp }, id, true));
	}
	return tree.asReadonly();
}

const HEADER = { type: "session" as const, version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" };

/**
 * Checks the window of one case against the whole layout; true when a window was made. A window
 * may be refused (the leaf too near the top, a leaf no row shows); it is never wrong.
 */
function check(
	tree: ReadonlySessionTree,
	leafId: string,
	filter: TreeFilter | undefined,
	archived: "hide" | "show" | undefined,
	above: number,
	below: number,
	what: string,
): boolean {
	const window = layoutWindow(tree, { leafId, filter, archived }, above, below);
	const whole = layoutTree(tree.getTree(), {
		leafId,
		...(filter !== undefined ? { filter } : {}),
		...(archived !== undefined ? { archived } : {}),
	});
	if (window === undefined) {
		// Refused only where fewer than `above` rows above the leaf's are its shown ancestors, or no row is the leaf's.
		const at = whole.rows.findIndex((row) => row.kind === "entry" && viewId(row.node) === whole.leafShownAt);
		const ancestors = whole.rows
			.slice(0, Math.max(0, at))
			.filter((row) => row.kind === "entry" && whole.active.has(viewId(row.node))).length;
		assert.ok(at < 0 || ancestors < above, `${what}: refused with ${ancestors} shown ancestors above the leaf's row`);
		return false;
	}
	const at = whole.rows.findIndex((row) => row.kind === "entry" && viewId(row.node) === whole.leafShownAt);
	assert.ok(at >= 0, `${what}: the whole layout has the leaf's row`);
	const first = Math.max(0, at - above);
	assert.deepEqual(window.rows.map(plainRow), whole.rows.slice(first, at + below + 1).map(plainRow), `${what}: rows`);
	assert.equal(window.leafRow, at - first, `${what}: leafRow`);
	assert.equal(window.leafShownAt, whole.leafShownAt, `${what}: leafShownAt`);
	const rowIds = window.rows.flatMap((row) => (row.kind === "entry" ? [viewId(row.node)] : []));
	assert.deepEqual(
		rowIds.map((id) => window.active.has(id)),
		rowIds.map((id) => whole.active.has(id)),
		`${what}: active`,
	);
	return true;
}

test("the window is the whole layout's rows around the leaf (random trees, filters, leaves, sizes)", () => {
	let made = 0;
	let later = 0;
	let cases = 0;
	for (let seed = 1; seed <= 1500; seed++) {
		// Trees from long chains to bushes, up to 200 entries.
		const chain = [0.5, 0.75, 0.9][seed % 3] as number;
		const { pick, roots, any, filters } = randomCase(seed, chain, 200);
		const tree = realTree(roots);
		for (let step = 0; step < 4; step++) {
			const filter = filters[Math.floor(pick() * filters.length)];
			const archived = pick() < 0.15 ? (pick() < 0.5 ? "show" : "hide") : undefined;
			const above = Math.floor(pick() * 12);
			const below = Math.floor(pick() * 12);
			const leaf = any();
			cases++;
			const what = `seed ${seed}, step ${step}, leaf ${leaf}, ${filter}, ${archived}, ${above}/${below}`;
			if (check(tree, leaf, filter, archived, above, below, what)) {
				made++;
				// Windows that reach past the subtree they start in (the forks' later children).
				const whole = layoutTree(tree.getTree(), { leafId: leaf, ...(filter ? { filter } : {}) });
				const at = whole.rows.findIndex((row) => row.kind === "entry" && viewId(row.node) === whole.leafShownAt);
				if (at + below < whole.rows.length && at >= above) later++;
			}
		}
	}
	// Not vacuous: refused only where it must be (checked in each case), made in thousands of
	// cases, many of them reaching rows after the leaf.
	assert.ok(made > 1200, `windows made: ${made} of ${cases}`);
	assert.ok(later > 500, `windows with rows after the leaf: ${later}`);
});

test("random trees read lazily from files: the window is the whole layout's (messages decided from their bytes)", async () => {
	// The window decides the cheapest entries first where any one shown answers its question; on
	// entries read lazily that order is real (a free answer, a short line, an assistant's line).
	// Each random tree is written as pi writes lines (type, id, parentId, timestamp first), opened
	// twice: the window from one open, the expectation the whole layout of the other (nothing
	// decided there before it lays out).
	const dir = tempDir();
	let made = 0;
	let lazy = 0;
	for (let seed = 1; seed <= 120; seed++) {
		const { pick, roots, any, filters } = randomCase(seed, [0.5, 0.75, 0.9][seed % 3] as number, 150);
		const file = join(dir, `r${seed}.jsonl`);
		const lines = [JSON.stringify({ ...HEADER, id: "00000000-0000-4000-8000-000000000000" })];
		for (const { type, id, parentId, timestamp, ...rest } of realTree(roots).getEntries()) {
			lines.push(JSON.stringify({ type, id, parentId, timestamp, ...rest }));
		}
		writeFileSync(file, `${lines.join("\n")}\n`);
		for (let step = 0; step < 6; step++) {
			const filter = filters[Math.floor(pick() * filters.length)];
			const above = Math.floor(pick() * 12);
			const below = Math.floor(pick() * 12);
			const leafId = any();
			const opened = await Session.open(file);
			const window = layoutWindow(opened.getTreeIndex(), { leafId, filter }, above, below);
			const fresh = await Session.open(file);
			const whole = layoutTree(fresh.getTree(), { leafId, ...(filter !== undefined ? { filter } : {}) });
			const what = `seed ${seed}, step ${step}, leaf ${leafId}, ${filter}, ${above}/${below}`;
			const stack = [...fresh.getTree()];
			for (let view = stack.pop(); view; view = stack.pop()) {
				stack.push(...view.children);
				const node = viewNodeOf(view);
				if (node instanceof TreeNode && node.type === "message" && !node.loaded) lazy++;
			}
			if (window !== undefined) {
				made++;
				const at = whole.rows.findIndex((row) => row.kind === "entry" && viewId(row.node) === whole.leafShownAt);
				const first = Math.max(0, at - above);
				assert.deepEqual(window.rows.map(plainRow), whole.rows.slice(first, at + below + 1).map(plainRow), what);
				assert.equal(window.leafRow, at - first, what);
			}
			await opened.close();
			await fresh.close();
		}
	}
	// Not vacuous: messages read lazily (unparsed before the whole layout), and windows made.
	assert.ok(lazy > 5_000, `messages read lazily: ${lazy}`);
	assert.ok(made > 100, `windows made: ${made}`);
});

test("a session read lazily from its file: the window decides few messages and is the whole layout's", async () => {
	const dir = tempDir();
	const file = join(dir, "s.jsonl");
	const pick = mulberry32(7);
	const s = await Session.create({ file, cwd: "/x" });
	const points: string[] = [];
	for (let i = 0; i < 400; i++) {
		points.push(await say(s, "user", `question ${i}`));
		await toolRound(s, "read", { path: `${i}.ts` }, "text");
		if (pick() < 0.5) await say(s, "assistant", `answer ${i}`);
		// Branches now and then, from anywhere before (so forks on both sides of the path).
		if (i % 9 === 8) await s.branch(points[Math.floor(pick() * points.length)] as string);
	}
	await s.close();
	for (const filter of [undefined, ...TREE_FILTERS]) {
		const opened = await Session.open(file);
		const index = opened.getTreeIndex();
		const leafId = opened.getLeafId() as string;
		const window = layoutWindow(index, { leafId, filter }, 20, 20);
		assert.ok(window !== undefined || filter === "labeled-only", `${filter}: a window`);
		// What it asked of the messages: their bytes scanned (an answer kept) or their bodies parsed.
		let messages = 0;
		let asked = 0;
		const stack = [...opened.getTree()];
		for (let view = stack.pop(); view; view = stack.pop()) {
			stack.push(...view.children);
			const node = viewNodeOf(view);
			if (!(node instanceof TreeNode) || node.type !== "message") continue;
			messages++;
			if (node.loaded || node.assistantShown !== undefined || node.roleChecked) asked++;
		}
		// Around the forks of the path and near the leaf only (221–400 of 1,376 when written).
		assert.ok(asked < messages * 0.35, `${filter}: ${asked} of ${messages} messages asked`);
		// Its rows, against the whole layout of a fresh open (nothing decided before).
		const fresh = await Session.open(file);
		const whole = layoutTree(fresh.getTree(), { leafId, ...(filter ? { filter } : {}) });
		if (window) {
			const at = whole.rows.findIndex((row) => row.kind === "entry" && viewId(row.node) === whole.leafShownAt);
			const first = Math.max(0, at - 20);
			assert.deepEqual(window.rows.map(plainRow), whole.rows.slice(first, at + 21).map(plainRow), `${filter}`);
		}
		await opened.close();
		await fresh.close();
	}
});
