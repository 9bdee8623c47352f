/**
 * LeafLayout (render/tree-leaf.ts): after each change of the leaf, the rows, marks and shown
 * ids are those of a fresh layoutTree with that leaf, on random trees, leaves, filters and
 * folds, and on a chain 100,000 entries deep; and layouts sharing a tree's index
 * (`TreeLayoutOptions.index`) are fresh layouts too.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { viewId } from "../../src/core/tree-view.js";
import type { SessionEntry, SessionTreeNode } from "../../src/core/types.js";
import { layoutTree, TREE_FILTERS, type TreeLayout, type TreeLayoutOptions } from "../../src/render/tree-layout.js";
import { LeafLayout } from "../../src/render/tree-leaf.js";
import { memorySession, say, toolRound } from "./helpers.js";
import { plainRow, randomCase } from "./random-trees.js";

function plainLayout(layout: TreeLayout): unknown {
	return {
		rows: layout.rows.map(plainRow),
		active: [...layout.active].sort(),
		leafShownAt: layout.leafShownAt,
		shown: [...layout.shown].sort(),
	};
}

function assertSameAsFresh(
	roots: readonly SessionTreeNode[],
	kept: LeafLayout,
	options: TreeLayoutOptions,
	leafId: string | null,
	what: string,
): void {
	const fresh = layoutTree(roots, { ...options, leafId });
	// `has` of every id of the tree (and one that is not in it) as the fresh layout's set answers.
	const ids = ["no-such-id"];
	const stack = [...roots];
	for (let node = stack.pop(); node; node = stack.pop()) {
		ids.push(viewId(node));
		stack.push(...node.children);
	}
	const onPath = (layout: TreeLayout) => ids.filter((id) => layout.active.has(id));
	assert.deepEqual(onPath(kept.layout), onPath(fresh), `${what}: active.has`);
	assert.deepEqual(plainLayout(kept.layout), plainLayout(fresh), what);
}

test("after every change of the leaf, the layout is a fresh layoutTree's (random trees, filters, folds, leaves)", () => {
	let toggled = 0;
	for (let seed = 1; seed <= 400; seed++) {
		const { pick, roots, any, filters } = randomCase(seed);
		const options: TreeLayoutOptions = { filter: filters[Math.floor(pick() * filters.length)] };
		const r = pick();
		if (r < 0.6) options.collapsed = new Set(Array.from({ length: Math.floor(pick() * 4) }, any));
		if (pick() < 0.15) options.archived = pick() < 0.5 ? "show" : "hide";
		if (pick() < 0.1) options.from = any();
		// Options under which a change of the leaf is a fresh layout: the rows must match too.
		if (pick() < 0.05) options.fold = true;
		if (pick() < 0.05) options.depth = Math.floor(pick() * 4);
		if (pick() < 0.05) options.maxIndent = Math.floor(pick() * 10);
		const first = pick() < 0.1 ? null : any();
		const kept = new LeafLayout(roots, { ...options, leafId: first });
		assertSameAsFresh(roots, kept, options, first, `seed ${seed}, first leaf`);
		for (let step = 0; step < 12; step++) {
			const leaf = pick() < 0.05 ? null : pick() < 0.03 ? "no-such-id" : any();
			const before = kept.layout.shown.size;
			kept.setLeaf(leaf);
			if (kept.layout.shown.size !== before) toggled++;
			assertSameAsFresh(
				roots,
				kept,
				options,
				leaf,
				`seed ${seed}, step ${step}, leaf ${leaf}, ${JSON.stringify({ ...options, collapsed: [...(options.collapsed ?? [])] })}`,
			);
		}
	}
	// The leaf's own row came and went (an assistant message without text) often enough to test it.
	assert.ok(toggled > 500, `entries shown or hidden by a change of the leaf: ${toggled}`);
});

test("entries whose parent ids are not their tree's (missing, another branch, going round): the active path as a fresh layout's", () => {
	// The kept active path is changed in place from one leaf to the next; where the parent ids
	// the entries declare go round (a damaged file read leniently), it must be made afresh. The
	// expectation is a fresh layoutTree with that leaf (its own walk up the declared parents).
	let circular = 0;
	for (let seed = 1; seed <= 300; seed++) {
		const { pick, roots, any } = randomCase(seed);
		const byId = new Map<string, SessionTreeNode>();
		const stack = [...roots];
		for (let node = stack.pop(); node; node = stack.pop()) {
			byId.set(node.entry.id, node);
			stack.push(...node.children);
		}
		for (let k = Math.floor(pick() * 4); k > 0; k--) {
			const node = byId.get(any()) as SessionTreeNode;
			(node.entry as { parentId: string | null }).parentId = pick() < 0.2 ? "no-such-id" : any();
		}
		for (const node of byId.values()) {
			const seen = new Set<string>();
			let id: string | null = node.entry.id;
			while (id !== null && !seen.has(id)) {
				seen.add(id);
				id = byId.get(id)?.entry.parentId ?? null;
			}
			if (id !== null) circular++;
		}
		const options: TreeLayoutOptions = pick() < 0.5 ? {} : { filter: "all" };
		const first = any();
		const kept = new LeafLayout(roots, { ...options, leafId: first });
		assertSameAsFresh(roots, kept, options, first, `seed ${seed}, first leaf`);
		for (let step = 0; step < 12; step++) {
			const leaf = pick() < 0.05 ? null : any();
			kept.setLeaf(leaf);
			assertSameAsFresh(roots, kept, options, leaf, `seed ${seed}, step ${step}, leaf ${leaf}`);
		}
	}
	assert.ok(circular > 100, `entries whose walk up goes round: ${circular}`);
});

test("layouts of one tree sharing an index (TreeLayoutOptions.index) are fresh layouts (random filters, leaves, from)", () => {
	let reused = 0;
	for (let seed = 1; seed <= 300; seed++) {
		const { pick, roots, any, filters } = randomCase(seed);
		// One index for the tree, as browse keeps it: filled by the first layout, read by the rest.
		const index = {};
		for (let step = 0; step < 10; step++) {
			const options: TreeLayoutOptions = {
				filter: filters[Math.floor(pick() * filters.length)],
				leafId: pick() < 0.1 ? null : pick() < 0.05 ? "no-such-id" : any(),
			};
			if (pick() < 0.15) options.archived = pick() < 0.5 ? "show" : "hide";
			if (pick() < 0.1) options.from = any();
			const what = `seed ${seed}, step ${step}, ${JSON.stringify(options)}`;
			if (step > 0 && Object.keys(index).length > 0) reused++;
			assert.deepEqual(
				plainLayout(layoutTree(roots, { ...options, index })),
				plainLayout(layoutTree(roots, options)),
				what,
			);
		}
	}
	assert.ok(reused > 1000, `layouts that read a filled index: ${reused}`);
});

test("a session's own tree nodes (parsed on demand): the same rows as a fresh layout", async () => {
	const s = await memorySession();
	const ids: string[] = [];
	for (let i = 0; i < 6; i++) {
		ids.push(await say(s, "user", `q${i}`));
		await toolRound(s, "read", { path: `${i}.ts` }, "text");
		ids.push(s.getLeafId() as string);
		if (i % 2 === 1) await s.branch(ids[i] as string);
	}
	const roots = s.getTree();
	const all: string[] = [];
	const stack = [...roots];
	for (let node = stack.pop(); node; node = stack.pop()) {
		all.push(node.entry.id);
		stack.push(...node.children);
	}
	for (const filter of TREE_FILTERS) {
		const kept = new LeafLayout(roots, { filter, leafId: s.getLeafId() });
		for (const leaf of [...all, ...all.toReversed()]) {
			kept.setLeaf(leaf);
			assertSameAsFresh(roots, kept, { filter }, leaf, `${filter}, leaf ${leaf}`);
		}
	}
});

test("a chain 100,000 entries deep: leaves shown and hidden in its middle, no stack overflow", () => {
	const roots: SessionTreeNode[] = [];
	let parent: SessionTreeNode | undefined;
	const nodes: SessionTreeNode[] = [];
	for (let i = 0; i < 100_000; i++) {
		const id = `c${i}`;
		// user, a tool call alone (hidden unless the leaf), its result, an answer; a fork now and then.
		const kind = i % 4;
		const base = {
			id,
			parentId: parent ? parent.entry.id : null,
			timestamp: "2026-01-01T00:00:00.000Z",
			type: "message",
		};
		const message =
			kind === 0
				? { role: "user", content: "q" }
				: kind === 1
					? {
							role: "assistant",
							content: [{ type: "toolCall", id: "t", name: "x", arguments: {} }],
							stopReason: "toolUse",
						}
					: kind === 2
						? { role: "toolResult", toolCallId: "t", toolName: "x", content: "r" }
						: { role: "assistant", content: [{ type: "text", text: "a" }], stopReason: "stop" };
		const node: SessionTreeNode = { entry: { ...base, message } as unknown as SessionEntry, children: [] };
		(parent ? parent.children : roots).push(node);
		nodes.push(node);
		if (i % 25_000 === 10 && parent) {
			const side: SessionTreeNode = {
				entry: { ...base, id: `side${i}`, message: { role: "user", content: "side" } } as unknown as SessionEntry,
				children: [],
			};
			parent.children.push(side);
		}
		parent = node;
	}
	const toolCalls = nodes.filter((_, i) => i % 4 === 1);
	const leaves = [
		nodes.at(-1),
		toolCalls[20_000],
		toolCalls[3],
		nodes[50_001],
		toolCalls.at(-1),
		toolCalls[12_345],
	].map((node) => (node as SessionTreeNode).entry.id);
	for (const filter of ["default", "no-tools"] as const) {
		const kept = new LeafLayout(roots, { filter, leafId: leaves[0] as string });
		for (const leaf of leaves.slice(1)) {
			kept.setLeaf(leaf);
			assertSameAsFresh(roots, kept, { filter }, leaf, `${filter}, leaf ${leaf}`);
		}
	}
});
