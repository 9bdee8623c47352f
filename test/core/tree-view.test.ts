/**
 * Reading a tree's nodes without parsing their bodies (src/core/tree-view.ts): the layout of a
 * printed tree reads ids and parent ids only, and a tree printed once (`transient`, as
 * `session-tree tree` prints it) reads each body for its line without keeping it, so a large
 * session read lazily (a pi file, another agent's transcript) holds one body at a time.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadTree } from "../../src/core/load.js";
import { copyViewNode, peekViewEntry, viewId, viewNodeOf, viewParentId, viewType } from "../../src/core/tree-view.js";
import type { SessionTreeNode } from "../../src/core/types.js";
import { decideAssistantsShown, layoutTree, TREE_FILTERS } from "../../src/render/tree-layout.js";
import { renderTreeLines } from "../../src/render/tree-text.js";
import { FileSessionStore } from "../../src/storage/file-store.js";
import { FIXTURES } from "../cli/helpers.js";

/** A fixture written by pi, its messages read lazily (envelopes), as the file store reads it. */
async function lazyTree(name: string) {
	const file = join(FIXTURES, `${name}.jsonl`);
	const read = await new FileSessionStore(file).read();
	assert.ok(read.source, "the file store left bodies unparsed");
	return loadTree(read.lines, { source: read.source, file }).tree;
}

for (const name of ["branched-session-clean", "two-compactions", "deep-chain"]) {
	test(`a tree printed once parses no body into the tree, and prints as before (${name})`, async () => {
		const tree = await lazyTree(name);
		const unparsed = () => tree.nodesInOrder().filter((node) => node.envelope !== undefined && !node.loaded).length;
		const lazy = unparsed();
		assert.ok(lazy > 0, "some bodies are unparsed after the open");
		const leafId = tree.getLeafId();
		layoutTree(tree.getTree(), { leafId });
		assert.equal(unparsed(), lazy, "the layout parsed no body");
		const printed = renderTreeLines(tree.getTree(), { leafId, transient: true });
		assert.equal(unparsed(), lazy, "the transient print kept no body");
		// Printed as a tree that keeps its bodies prints it.
		assert.deepEqual(renderTreeLines(tree.getTree(), { leafId }), printed);
		assert.equal(unparsed(), 0);
	});
}

/** Plain copies of a tree's nodes, each holding its parsed entry (no tree node behind it). */
function plainTree(roots: readonly SessionTreeNode[]): SessionTreeNode[] {
	return roots.map((node) => ({
		entry: structuredClone(node.entry),
		children: plainTree(node.children),
		...(node.label !== undefined ? { label: node.label } : {}),
		...(node.archived === true ? { archived: true } : {}),
	}));
}

for (const name of ["two-compactions", "branch-with-summary", "model-and-thinking-changes"]) {
	test(`a layout under each filter parses no body once the messages' bytes decided it (${name})`, async () => {
		const tree = await lazyTree(name);
		const unparsed = () => tree.nodesInOrder().filter((node) => node.envelope !== undefined && !node.loaded).length;
		const leafId = tree.getLeafId();
		const roots = tree.getTree();
		decideAssistantsShown(roots);
		const lazy = unparsed();
		assert.ok(lazy > 0, "some bodies are unparsed after the open");
		const others = tree.nodesInOrder().filter((node) => node.type !== "message" && !node.loaded).length;
		assert.ok(others > 0, "entries other than messages are among them");
		for (const filter of TREE_FILTERS) {
			const rows = layoutTree(roots, { leafId, filter }).rows;
			assert.equal(unparsed(), lazy, `${filter}: the layout parsed no body`);
			// The same rows as plain nodes holding parsed entries (the filter then reads each entry).
			const whole = layoutTree(plainTree((await lazyTree(name)).getTree()), { leafId, filter }).rows.map((row) =>
				row.kind === "entry" ? `${row.prefix}${row.node.entry.id}` : row.kind,
			);
			assert.deepEqual(
				rows.map((row) => (row.kind === "entry" ? `${row.prefix}${viewId(row.node)}` : row.kind)),
				whole,
				`${filter}: the rows of a tree read whole`,
			);
		}
	});
}

test("ids, parents, types and entries read without parsing are the entries' own; copies are the spread", async () => {
	const tree = await lazyTree("branched-session-clean");
	const views = tree.getTree();
	const all = [];
	for (const stack = [...views]; stack.length > 0; ) {
		const view = stack.pop();
		if (!view) break;
		all.push(view);
		stack.push(...view.children);
	}
	const rows = tree.flatten();
	assert.ok(all.length > 5);
	for (const view of [...all, ...rows]) {
		assert.equal(viewId(view), view.entry.id);
		assert.equal(viewParentId(view), view.entry.parentId);
		assert.equal(viewType(view), view.entry.type);
		assert.deepEqual(peekViewEntry(view), view.entry);
	}
	for (const view of all) {
		const copy = copyViewNode(view);
		assert.deepEqual(Object.keys(copy), Object.keys({ ...view, children: [] }));
		// A node of the tree's own class (so, read through its own keys, the spread).
		assert.equal(Object.getPrototypeOf(copy), Object.getPrototypeOf(view));
		assert.deepEqual({ ...copy }, { ...view, children: [] });
		assert.equal(viewId(copy), view.entry.id);
		assert.ok(viewNodeOf(copy), "a copy is read without parsing, as its node is");
	}
	{
		// A copy whose entry was replaced is read through what it holds now, like a node.
		const copy = copyViewNode(all[1] as SessionTreeNode);
		copy.entry = { ...copy.entry, id: "replaced copy" };
		assert.equal(viewId(copy), "replaced copy");
		assert.equal(viewNodeOf(copy), undefined);
	}
	// A node whose entry was replaced is read through what it holds now.
	const [first] = all;
	assert.ok(first);
	first.entry = { ...first.entry, id: "replaced" };
	assert.equal(viewId(first), "replaced");
	// A plain node (not a tree's) is read through its entry.
	const plain = { entry: { ...first.entry, id: "plain" }, children: [] };
	assert.equal(viewId(plain), "plain");
	assert.deepEqual(copyViewNode(plain), { ...plain, children: [] });
});

for (const name of ["branched-session-clean", "two-compactions", "deep-chain"]) {
	test(`walkBranch and walkEntries give getBranch's and getEntries' entries, keeping no body (${name})`, async () => {
		const tree = await lazyTree(name);
		const unparsed = () => tree.nodesInOrder().filter((node) => node.envelope !== undefined && !node.loaded).length;
		const lazy = unparsed();
		assert.ok(lazy > 0, "some bodies are unparsed after the open");
		const leafId = tree.getLeafId();
		const walked = [...tree.walkBranch()];
		const entries = [...tree.asReadonly().walkEntries()];
		const side = tree.listBranches().find((id) => id !== leafId);
		const sideWalk = side === undefined ? [] : [...tree.walkBranch(side)];
		assert.equal(unparsed(), lazy, "the walks kept no body");
		assert.deepEqual([...tree.walkBranch(null)], []);
		assert.throws(() => tree.walkBranch("no-such-id"), /no-such-id/);
		// As the reads that keep them give them (they parse every body into the tree).
		assert.deepEqual(walked, tree.getBranch());
		assert.deepEqual(sideWalk, side === undefined ? [] : tree.getBranch(side));
		assert.deepEqual(entries, tree.getEntries());
		assert.equal(unparsed(), 0);
		// A walk is an iterable that can be walked again.
		const again = tree.walkBranch();
		assert.deepEqual([...again], [...again]);
	});
}

test("walkEntryLines gives each entry read for the walk with its stored line's bytes, and nothing for the rest", async () => {
	const file = join(FIXTURES, "branched-session-clean.jsonl");
	const stored = readFileSync(file, "utf8").split("\n");
	const tree = await lazyTree("branched-session-clean");
	// One body parsed into the tree before the walk: the walk has no line for it.
	const kept = tree.nodesInOrder().find((node) => node.envelope !== undefined);
	assert.ok(kept);
	tree.getEntry(kept.id);
	const walked = [...tree.walkEntryLines()];
	assert.deepEqual(
		walked.map((item) => item.entry),
		tree.getEntries(),
	);
	let withLine = 0;
	for (const [i, { entry, line }] of walked.entries()) {
		const node = tree.nodesInOrder()[i];
		assert.ok(node);
		if (node.id === kept.id || node.envelope === undefined) {
			assert.equal(line, undefined, `entry ${entry.id} was not read for the walk`);
			continue;
		}
		assert.ok(line, `entry ${entry.id} has its line`);
		// The bytes of the line as the file holds it (independent: the file split by hand).
		const text = new TextDecoder().decode(line);
		assert.equal(text, stored[node.envelope.line - 1]);
		assert.deepEqual(JSON.parse(text), entry);
		withLine++;
	}
	// Every entry read from its envelope but the one parsed before the walk.
	const lazy = tree.nodesInOrder().filter((node) => node.envelope !== undefined).length;
	assert.ok(lazy >= 5);
	assert.equal(withLine, lazy - 1);
	// A walk that can be walked again, as walkEntries.
	const walk = tree.walkEntryLines();
	assert.deepEqual(
		[...walk].map((item) => item.entry.id),
		[...walk].map((item) => item.entry.id),
	);
	// From the `start`th on, as walkEntries.
	assert.deepEqual(
		[...tree.walkEntryLines(3)].map((item) => item.entry.id),
		[...tree.walkEntries(3)].map((entry) => entry.id),
	);
});

test("walkEntryLinesKnowing gives what `known` gave for the lines it knew, in file order, each item naming its line", async () => {
	const file = join(FIXTURES, "deep-chain.jsonl");
	const stored = readFileSync(file, "utf8").split("\n");
	const tree = await lazyTree("deep-chain");
	// One body parsed into the tree before the walk: it is not offered to `known`.
	const kept = tree.nodesInOrder().find((node) => node.envelope !== undefined);
	assert.ok(kept);
	tree.getEntry(kept.id);
	const offered: number[] = [];
	// Every other line offered is "known" (its line number), the rest read here.
	const walked = [
		...tree.walkEntryLinesKnowing((line) => {
			offered.push(line.line);
			return offered.length % 2 === 0 ? line.line : undefined;
		}),
	];
	const nodes = tree.nodesInOrder();
	assert.equal(walked.length, nodes.length);
	// Offered in file order, once each: every node left unparsed, none other.
	const lazy = nodes.filter((node) => node.envelope !== undefined && !node.loaded);
	assert.deepEqual(
		offered,
		lazy.map((node) => node.envelope?.line),
	);
	assert.ok(lazy.length >= 300, "deep-chain is several batches of the walk (256 entries each)");
	let known = 0;
	for (const [i, item] of walked.entries()) {
		const node = nodes[i];
		assert.ok(node);
		if (item.known !== undefined) {
			known++;
			assert.equal(item.known, node.envelope?.line);
			assert.equal(item.place, node.envelope);
			continue;
		}
		assert.equal(item.entry.id, node.id);
		assert.equal(item.place, node.loaded ? undefined : node.envelope);
		if (node.id === kept.id) assert.equal(item.line, undefined);
		else if (item.place) assert.equal(new TextDecoder().decode(item.line), stored[item.place.line - 1]);
	}
	assert.equal(known, Math.floor(lazy.length / 2));
	// The walk parsed no body into the tree (those it read here were peeked).
	assert.equal(nodes.filter((node) => node.loaded).length, nodes.length - lazy.length);
});

test("walkEntryLines: a body a lenient read cannot use has no line (its stub is not its parse)", async () => {
	const dir = mkdtempSync(join(tmpdir(), "walk-lines-"));
	try {
		const lines = readFileSync(join(FIXTURES, "branched-session-clean.jsonl"), "utf8").split("\n");
		const at = lines.findIndex((line, i) => i > 0 && line.startsWith('{"type":"message"'));
		assert.ok(at > 0);
		// The envelope (type, id, parent, timestamp) stays readable; the body after it is not JSON.
		const line = lines[at] as string;
		assert.ok(line.includes('"content":'));
		lines[at] = line.replace('"content":', '"content";');
		const file = join(dir, "damaged.jsonl");
		writeFileSync(file, lines.join("\n"));
		const read = await new FileSessionStore(file).read();
		assert.ok(read.source);
		const { tree, problems } = loadTree(read.lines, { source: read.source, file, lenient: true });
		const id = (JSON.parse(line) as { id: string }).id;
		const walked = [...tree.walkEntryLines()];
		const damaged = walked.find((item) => item.entry.id === id);
		assert.ok(damaged, "the damaged entry is walked (its stub)");
		assert.equal(damaged.line, undefined);
		assert.equal(problems.filter((problem) => problem.code === "INVALID_JSON").length, 1);
		// Read strictly, the walk gives the entries before the damaged one, then its error.
		const again = await new FileSessionStore(file).read();
		const strict = loadTree(again.lines, { source: again.source, file }).tree;
		const before: string[] = [];
		assert.throws(
			() => {
				for (const item of strict.walkEntryLines()) before.push(item.entry.id);
			},
			(error: unknown) => error instanceof Error && /not valid JSON/.test(error.message),
		);
		const order = strict.nodesInOrder().map((node) => node.id);
		assert.deepEqual(before, order.slice(0, order.indexOf(id)));
		assert.equal(
			walked.filter((item) => item.line !== undefined).length,
			walked.filter((item) => tree.nodesInOrder().find((node) => node.id === item.entry.id)?.envelope).length - 1,
		);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
