/**
 * Reading the nodes of {@link SessionTree.getTree} (and the rows of `flatten`) without parsing
 * their bodies: their id and parent id are known without it, and their entry can be read for
 * the caller without being kept in the tree. A printed tree of a large session read lazily
 * (a pi file, another agent's transcript) then holds one body at a time instead of every one
 * (for a 130 MiB transcript that was most of the memory `session-tree tree` took). Any other
 * node (a plain object, a node whose `entry` was assigned) is read through its `entry`. Pure.
 */

import { childlessViewNode, nodeBehind } from "./tree.js";
import { TreeNode } from "./tree-node.js";
import type { SessionEntry, SessionTreeNode } from "./types.js";

type Node = NonNullable<ReturnType<typeof nodeBehind>>;

// Copies (copyViewNode) are nodes of the same class as the tree's: one way to find the node behind.
const nodeOf = nodeBehind;

/**
 * The tree node behind a view (its `id`, `type` and `declaredParentId` known without parsing),
 * or undefined for a view read through its `entry`: what {@link viewId} and {@link viewType}
 * read, looked up once for both.
 */
export function viewNodeOf(
	view: object,
): { readonly id: string; readonly type: string; readonly declaredParentId: string | null } | undefined {
	return nodeOf(view);
}

/**
 * Where the line of a view's entry is in its store (byte offset and length) with what the
 * store's envelope of it says (type, id, parent), for an entry read lazily from a store of
 * lines; undefined for any other view. What another reader of the same file (the second
 * thread of `session-tree tree`) matches its own reading of that line against.
 */
export function viewLineOf(view: object):
	| {
			readonly offset: number;
			readonly length: number;
			readonly type: string;
			readonly id: string;
			readonly parentId: string | null;
	  }
	| undefined {
	return nodeOf(view)?.envelope;
}

/** The entry's id, without parsing its body. */
export function viewId(view: { readonly entry: SessionEntry }): string {
	return nodeOf(view)?.id ?? view.entry.id;
}

/** The parent id the entry names, without parsing its body. */
export function viewParentId(view: { readonly entry: SessionEntry }): string | null {
	const node = nodeOf(view);
	return node ? node.declaredParentId : view.entry.parentId;
}

/** The entry's type, without parsing its body. */
export function viewType(view: { readonly entry: SessionEntry }): string {
	return nodeOf(view)?.type ?? view.entry.type;
}

/**
 * The entry, read for the caller: a body the store left unparsed is parsed and not kept in
 * the tree (each call parses it again; see `TreeNode.peekEntry`).
 */
export function peekViewEntry(view: { readonly entry: SessionEntry }): SessionEntry {
	return nodeOf(view)?.peekEntry() ?? view.entry;
}

/**
 * {@link peekViewEntry} of many views at once, in the order given: the bodies a store left
 * unparsed are read in one pass over the store (by offset, nearby lines together) instead of
 * one read each, and not kept in the tree.
 */
export function peekViewEntries(views: readonly { readonly entry: SessionEntry }[]): SessionEntry[] {
	const nodes: Node[] = [];
	const at: number[] = [];
	const out = new Array<SessionEntry>(views.length);
	for (let i = 0; i < views.length; i++) {
		const view = views[i] as { readonly entry: SessionEntry };
		const node = nodeOf(view);
		if (node) {
			nodes.push(node);
			at.push(i);
		} else out[i] = view.entry;
	}
	const entries = nodes.length > 0 ? TreeNode.peekMany(nodes) : [];
	for (let k = 0; k < at.length; k++) out[at[k] as number] = entries[k] as SessionEntry;
	return out;
}

/**
 * A copy of a node with no children (`{ ...node, children: [] }`) that does not parse its
 * body: its `entry` reads the same tree node's entry when it is read.
 */
export function copyViewNode(view: SessionTreeNode): SessionTreeNode {
	const node = nodeOf(view);
	if (!node) return { ...view, children: [] };
	// A node of the tree's own class (entry, then children, first), then the other keys in their
	// order, as a spread copies them. (Made by a constructor, not a plain object with a side
	// table: a filtered layout copies every node it shows, 100,000 at a time.)
	const copy = childlessViewNode(node);
	const from = view as unknown as Record<string, unknown>;
	const to = copy as unknown as Record<string, unknown>;
	for (const key of Object.keys(view)) if (key !== "entry" && key !== "children") to[key] = from[key];
	return copy;
}
