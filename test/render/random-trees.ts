/**
 * Random session trees for the layout tests (tree-leaf, tree-window): mostly chains, with forks,
 * a few roots, labels, archived branches and entries every filter treats differently.
 */

import { ARCHIVE_CUSTOM_TYPE } from "../../src/core/archive.js";
import { viewId } from "../../src/core/tree-view.js";
import type { SessionEntry, SessionTreeNode } from "../../src/core/types.js";
import { TREE_FILTERS, type TreeFilter, type TreeLayoutRow } from "../../src/render/tree-layout.js";
import { mulberry32 } from "../support/random.js";

/** An entry of a kind chosen at random: many assistant messages without text (shown only as the leaf). */
export function randomEntry(id: string, parentId: string | null, pick: () => number): SessionEntry {
	const base = { id, parentId, timestamp: "2026-01-01T00:00:00.000Z" };
	const r = pick();
	const message = (m: Record<string, unknown>) => ({ ...base, type: "message", message: m }) as unknown as SessionEntry;
	if (r < 0.3) {
		// A tool call alone: hidden by every filter unless it is the leaf.
		return message({
			role: "assistant",
			content: [{ type: "toolCall", id: "t", name: "read", arguments: {} }],
			stopReason: "toolUse",
		});
	}
	if (r < 0.45) return message({ role: "assistant", content: [{ type: "text", text: "answer" }], stopReason: "stop" });
	if (r < 0.5) return message({ role: "assistant", content: [], stopReason: "aborted" });
	if (r < 0.7) return message({ role: "user", content: "question" });
	if (r < 0.8)
		return message({ role: "toolResult", toolCallId: "t", toolName: "read", content: [{ type: "text", text: "out" }] });
	if (r < 0.86) return { ...base, type: "model_change", provider: "p", modelId: "m" } as unknown as SessionEntry;
	if (r < 0.9) return { ...base, type: "label", targetId: id, label: "l" } as unknown as SessionEntry;
	if (r < 0.93)
		return { ...base, type: "custom", customType: ARCHIVE_CUSTOM_TYPE, data: {} } as unknown as SessionEntry;
	return { ...base, type: "custom", customType: "x", data: {} } as unknown as SessionEntry;
}

/** A random tree of `size` nodes: mostly chains, with forks, a few roots, labels and archived branches. */
export function randomTree(
	size: number,
	pick: () => number,
	chain = 0.75,
): { roots: SessionTreeNode[]; nodes: SessionTreeNode[] } {
	const roots: SessionTreeNode[] = [];
	const nodes: SessionTreeNode[] = [];
	for (let i = 0; i < size; i++) {
		const id = `n${i}`;
		const r = pick();
		// Most often below the last node (a chain), else below any earlier one (a fork), rarely a new root.
		const parent = i === 0 || r < 0.04 ? undefined : r < chain ? nodes[i - 1] : nodes[Math.floor(pick() * i)];
		const node: SessionTreeNode = { entry: randomEntry(id, parent ? parent.entry.id : null, pick), children: [] };
		if (pick() < 0.08) node.label = `label ${i}`;
		if (pick() < 0.03) node.archived = true;
		(parent ? parent.children : roots).push(node);
		nodes.push(node);
	}
	return { roots, nodes };
}

/** A random tree of a seed, its generator (to go on drawing), any of its ids, and the filters (none first). */
export function randomCase(seed: number, chain = 0.75, maxSize = 60) {
	const pick = mulberry32(seed);
	const { roots, nodes } = randomTree(2 + Math.floor(pick() * maxSize), pick, chain);
	const ids = nodes.map((node) => node.entry.id);
	const any = () => ids[Math.floor(pick() * ids.length)] as string;
	const filters: Array<TreeFilter | undefined> = [undefined, ...TREE_FILTERS];
	return { pick, roots, any, filters };
}

/** What a row shows, in plain values (the node as its id and its shown children's ids). */
export function plainRow(row: TreeLayoutRow): unknown {
	if (row.kind !== "entry") return row;
	return {
		kind: row.kind,
		id: viewId(row.node),
		shownChildren: row.node.children.map((child) => viewId(child)),
		prefix: row.prefix,
		children: row.children,
		collapsed: row.collapsed,
	};
}
