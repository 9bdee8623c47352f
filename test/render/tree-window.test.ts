/**
 * layoutWindow (render/tree-window.ts): the rows around the leaf it makes without laying out the
 * whole tree are exactly the whole layout's rows around the leaf's row. The expectation is
 * `layoutTree` itself (every row laid out, the slice around its `leafShownAt` row taken here),
 * on random trees (chains with forks on either side of the path, hidden entries, archived
 * branches, several roots), every filter, random leaves and window sizes, and on sessions read
 * lazily from files (their messages decided from their bytes).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
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

/** Each node's parent in the tree, as the session's index answers `parentOf`. */
function parents(roots: readonly SessionTreeNode[]): Map<string, string | null> {
	const out = new Map<string, string | null>();
	const stack: Array<[SessionTreeNode, string | null]> = roots.map((node) => [node, null]);
	for (let item = stack.pop(); item; item = stack.pop()) {
		const [node, parent] = item;
		const id = viewId(node);
		out.set(id, parent);
		for (const child of node.children) stack.push([child, id]);
	}
	return out;
}

/**
 * Checks the window of one case against the whole layout; true when a window was made. A window
 * may be refused (the leaf too near the top, a leaf no row shows); it is never wrong.
 */
function check(
	roots: readonly SessionTreeNode[],
	leafId: string,
	filter: TreeFilter | undefined,
	archived: "hide" | "show" | undefined,
	above: number,
	below: number,
	what: string,
): boolean {
	const byId = parents(roots);
	const window = layoutWindow(roots, { leafId, filter, archived, parentOf: (id) => byId.get(id) }, above, below);
	const whole = layoutTree(roots, {
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
		for (let step = 0; step < 4; step++) {
			const filter = filters[Math.floor(pick() * filters.length)];
			const archived = pick() < 0.15 ? (pick() < 0.5 ? "show" : "hide") : undefined;
			const above = Math.floor(pick() * 12);
			const below = Math.floor(pick() * 12);
			const leaf = any();
			cases++;
			const what = `seed ${seed}, step ${step}, leaf ${leaf}, ${filter}, ${archived}, ${above}/${below}`;
			if (check(roots, leaf, filter, archived, above, below, what)) {
				made++;
				// Windows that reach past the subtree they start in (the forks' later children).
				const whole = layoutTree(roots, { leafId: leaf, ...(filter ? { filter } : {}) });
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
		const roots = opened.getTree();
		const index = opened.getTreeIndex();
		const leafId = opened.getLeafId() as string;
		const window = layoutWindow(roots, { leafId, filter, parentOf: (id) => index.getParentId(id) }, 20, 20);
		assert.ok(window !== undefined || filter === "labeled-only", `${filter}: a window`);
		// What it asked of the messages: their bytes scanned (an answer kept) or their bodies parsed.
		let messages = 0;
		let asked = 0;
		const stack = [...roots];
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
