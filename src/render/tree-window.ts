/**
 * The rows of a tree's layout around its leaf, made without laying out the whole tree: what
 * `browse` draws first, while the whole layout (every row, to count and scroll them) is made.
 *
 * `layoutTree` lays out every node, and under a filter it first needs pi's rule decided for
 * every message (for the bench's 100,000-entry session, 0.5 s of byte scans and 0.33 s of layout
 * after a 0.5 s open). The rows around the leaf depend on much less: the shown path above the
 * leaf for some rows, the forks of the path (which of them hold a shown entry off the path, and
 * on which side), and the subtrees near the leaf. So:
 *
 * 1. The path from the root to the leaf is read through the tree's nodes' parent links (checked
 *    against the parents the entries declare: any difference and no window is made). The steps
 *    walk the tree's nodes themselves: a view (what the filters read) is made for each node they
 *    decide, and the views of the subtrees step 4 lays out; `getTree`'s 100,000 views of a large
 *    session are made after the first frame, for the whole layout.
 * 2. `top`: the shown entry `above` shown entries above the row of the leaf (the leaf, or its
 *    nearest shown ancestor). The rows from `top` down to the leaf are at least `above`.
 * 3. The indentation of `top` is what every fork above it makes of it. A fork in the shown tree
 *    is a shown path entry (or the roots) below which, down to the next shown path entry, some
 *    node has a child off the path with a shown entry in its subtree; the path goes on as the
 *    fork's last child when no such child comes after the path's (tree-rows.ts's prefixes).
 * 4. The subtree of `top` is laid out as `layoutTree` lays it out, until `below` rows after the
 *    leaf are made; when it ends before, the forks' later children follow, nearest fork first.
 *
 * Only the entries these steps look at are decided (from their bytes when unparsed); past a
 * budget, or when the leaf is too near the top, no window is made and the caller lays out the
 * whole tree. Options other than the leaf, the filter and `archived` are not taken. A property
 * test holds the window to the whole layout's rows around the leaf (test/render/tree-window).
 */

import { type ReadonlySessionTree, type SessionTree, sortedChildren, treeBehind } from "../core/tree.js";
import { TreeNode } from "../core/tree-node.js";
import { viewId, viewNodeOf } from "../core/tree-view.js";
import type { SessionTreeNode } from "../core/types.js";
import {
	buildView,
	decideAssistantsShown,
	isPutAway,
	rowRules,
	showsArchived,
	type TreeFilter,
	treeFilterShows,
} from "./tree-layout.js";
import {
	type ForkPrefixes,
	forkPrefixes,
	layRows,
	type Pending,
	pushForkChildren,
	type TreeLayoutRow,
} from "./tree-rows.js";

/** What {@link layoutWindow} lays out. */
export interface TreeWindowOptions {
	/** The leaf: the window is around its row. */
	readonly leafId: string;
	readonly filter?: TreeFilter | undefined;
	readonly archived?: "hide" | "show" | undefined;
}

/** Rows of `layoutTree` around the leaf's row. */
export interface TreeWindow {
	/** Consecutive rows of the whole layout. */
	readonly rows: TreeLayoutRow[];
	/** The index in {@link rows} of the row that carries the leaf marker. */
	readonly leafRow: number;
	/** As `TreeLayout.leafShownAt`. */
	readonly leafShownAt: string;
	/**
	 * As `TreeLayout.active` for the ids of {@link rows}: those on the path from the root to the
	 * leaf. (It holds the path's ids from the first of its rows down, the only ones a row can have.)
	 */
	readonly active: ReadonlySet<string>;
}

/** Entries decided before the window is given up (the caller then lays out the whole tree). */
export const WINDOW_BUDGET = 20_000;

/** Entries of a subtree off the path decided together, breadth first (`holdsShown` in {@link makeWindow}). */
const AHEAD = 8;

/** Thrown inside when the budget is spent. */
class OverBudget extends Error {}

/** A fork of the shown tree on the path (step 3 of the module's comment). */
interface PathFork {
	/** The prefixes of its children. */
	readonly prefixes: ForkPrefixes;
	/** The path goes on as its last child. */
	readonly last: boolean;
	/** Levels of indentation of its children. */
	readonly levels: number;
	/** The path's nodes (indexes) below it, down to the next shown one, with a child off the path holding a shown entry. */
	readonly nodes: number[];
}

/**
 * The rows of `layoutTree(tree.getTree(), { leafId, filter, archived })` from `above` rows
 * before the leaf's row to `below` rows after it (fewer where the layout ends), or undefined
 * when it is not made that way (see the module's comment): lay out the whole tree then.
 */
export function layoutWindow(
	tree: ReadonlySessionTree,
	options: TreeWindowOptions,
	above: number,
	below: number,
): TreeWindow | undefined {
	try {
		return makeWindow(tree, options, Math.max(0, Math.floor(above)), Math.max(0, Math.floor(below)));
	} catch (error) {
		if (error instanceof OverBudget) return undefined;
		throw error;
	}
}

function makeWindow(
	tree: ReadonlySessionTree,
	options: TreeWindowOptions,
	above: number,
	below: number,
): TreeWindow | undefined {
	const { leafId, filter } = options;
	const hide = !showsArchived(filter, options.archived);
	// The tree's nodes (their links): a view of a tree hands none out.
	const behind = treeBehind(tree);
	if (behind === undefined) return undefined;
	const path = pathTo(behind, leafId);
	if (path === undefined) return undefined;
	const roots = behind.getRootNodes();
	const archivedIds = behind.getArchived();

	// A view of each node the steps decide (no children: what the filters and `isPutAway` read of
	// it, its label and mark as `getTree` attaches them); the rows are the subtrees' own views.
	const views = new Map<TreeNode, SessionTreeNode>();
	const viewOf = (node: TreeNode): SessionTreeNode => {
		let view = views.get(node);
		if (view === undefined) {
			view = behind.nodeView(node);
			views.set(node, view);
		}
		return view;
	};
	let decided = 0;
	const showsView = (view: SessionTreeNode): boolean => {
		if (filter === undefined) return true;
		if (++decided > WINDOW_BUDGET) throw new OverBudget();
		const behind = viewNodeOf(view);
		// From its bytes, as decideAssistantsShown does for the whole layout (no body kept).
		if (behind instanceof TreeNode && behind.type === "message" && behind.role !== undefined && !behind.loaded) {
			TreeNode.decideShown([behind]);
		}
		return treeFilterShows(view, filter, leafId);
	};
	const shows = (node: TreeNode): boolean => filter === undefined || showsView(viewOf(node));
	// Only an archived entry or a custom one can be put away: the others need no view for it.
	const putAway = (node: TreeNode): boolean =>
		(archivedIds.has(node.id) || node.type === "custom") && isPutAway(viewOf(node));
	/**
	 * What deciding a node costs: 0 nothing (the filters read its type, or it was decided), 1 a
	 * scan of the line of a message of another role, 2 of an assistant's (the longest lines: their
	 * thinking and tool calls) or a parse. Where any of several entries being shown is all a step
	 * asks, the cheapest are decided first: most questions end at a free or a short one.
	 */
	const cost = (node: TreeNode): number => {
		if (filter === undefined || node.type !== "message") return 0;
		if (node.loaded || node.assistantShown !== undefined || node.roleChecked) return 0;
		return node.role === undefined || node.role === "assistant" ? 2 : 1;
	};
	/** Whether any of `nodes` is shown, the cheapest decided first (see {@link cost}). */
	const anyShown = (nodes: readonly TreeNode[], from: number, to: number, shown: (k: number) => boolean): boolean => {
		for (let pass = 0; pass <= 2; pass++) {
			for (let k = from; k < to; k++) if (cost(nodes[k] as TreeNode) === pass && shown(k)) return true;
		}
		return false;
	};
	/**
	 * Whether the subtree of `node` holds a shown entry (put-away branches hold none): its entries
	 * breadth first, {@link AHEAD} at a time, each group's cheapest decided first.
	 */
	const holdsShown = (node: TreeNode): boolean => {
		if (hide && putAway(node)) return false;
		const queue = [node];
		let expanded = 0;
		let asked = 0;
		for (;;) {
			while (queue.length - asked < AHEAD && expanded < queue.length) {
				for (let child = (queue[expanded++] as TreeNode).firstChild; child; child = child.nextSibling) {
					if (!(hide && putAway(child))) queue.push(child);
				}
			}
			// Every entry asked, and every one expanded (the expansion stops only then or AHEAD ahead).
			if (asked === queue.length) return false;
			const from = asked;
			asked = queue.length;
			if (anyShown(queue, from, asked, (k) => shows(queue[k] as TreeNode))) return true;
		}
	};
	/** The children of a path node in display order (of the roots, for -1). */
	const childrenAt = (i: number): readonly TreeNode[] => (i < 0 ? roots : sortedChildren(path[i] as TreeNode));

	// A put-away entry on the path hides the rest of it.
	let end = path.length;
	if (hide) {
		for (let i = 0; i < path.length; i++) {
			if (putAway(path[i] as TreeNode)) {
				end = i;
				break;
			}
		}
	}
	/** Whether each path entry is shown, as decided (0: not yet, 1: shown, 2: hidden). */
	const pathShown = new Uint8Array(path.length);
	const shownAt = (i: number): boolean => {
		const known = pathShown[i];
		if (known !== 0) return known === 1;
		const answer = shows(path[i] as TreeNode);
		pathShown[i] = answer ? 1 : 2;
		return answer;
	};
	/** Whether a path entry from `from` to `to` (inclusive) is shown, the cheapest decided first. */
	const shownBetween = (from: number, to: number): boolean => anyShown(path, from, to + 1, (i) => shownAt(i));
	/** The nearest shown path entry at or above `index` (-1: none, the roots). */
	const ownerOf = (index: number): number => {
		let at = index;
		while (at >= 0 && !shownAt(at)) at--;
		return at;
	};

	const leafAt = ownerOf(end - 1);
	if (leafAt < 0) return undefined;
	// Step 2: `above` shown entries above the leaf's row; too near the top: no window.
	let top = leafAt;
	for (let count = 0; count < above; count++) {
		top = ownerOf(top - 1);
		if (top < 0) return undefined;
	}

	// Step 3: the forks above `top` with a shown entry off the path, root first. Most path nodes
	// have one child: no list is made for them. Forks with no shown path entry between them have
	// the same shown entry above them (or none: the roots) and make one level of indentation.
	const groups: Array<{ nodes: number[]; after: boolean }> = [];
	let lastFork = -1;
	for (let i = -1; i < top; i++) {
		const parent = i < 0 ? undefined : (path[i] as TreeNode);
		if (parent ? parent.firstChild === parent.lastChild : roots.length < 2) continue;
		const onPath = path[i + 1] as TreeNode;
		let before = false;
		let after = false;
		let passed = false;
		for (const child of childrenAt(i)) {
			if (child === onPath) {
				passed = true;
				continue;
			}
			if (passed ? after : before) continue;
			if (!holdsShown(child)) continue;
			if (passed) after = true;
			else before = true;
		}
		if (!before && !after) continue;
		const group = groups.at(-1);
		// From the path entry after the last fork down to this one (from the first entry: the roots' group).
		if (group && !shownBetween(lastFork + 1, i)) {
			group.nodes.push(i);
			group.after ||= after;
		} else groups.push({ nodes: [i], after });
		lastFork = i;
	}
	// The rows start at `top` or below it: the path's ids from there down are all a row can have.
	const active = new Set<string>();
	for (let i = top; i < path.length; i++) active.add((path[i] as TreeNode).id);
	const rules = rowRules({}, (path[leafAt] as TreeNode).id, active);
	let childPrefix = "";
	let childTail = "";
	let levels = 0;
	let linePrefix = "";
	const pathForks: PathFork[] = [];
	// The row of `top` is a child of the last group's fork when no shown path entry comes between them.
	const topInLast = groups.length > 0 && !shownBetween(lastFork + 1, top - 1);
	for (const [g, group] of groups.entries()) {
		const prefixes = forkPrefixes(rules.clip, childPrefix, childTail, levels);
		const last = !group.after;
		pathForks.push({ prefixes, last, levels: levels + 1, nodes: group.nodes });
		childPrefix = last ? prefixes.lastChild : prefixes.branchChild;
		childTail = last ? prefixes.lastTail : prefixes.branchTail;
		levels++;
		if (topInLast && g === groups.length - 1) linePrefix = last ? prefixes.lastLine : prefixes.branchLine;
	}
	if (!topInLast) linePrefix = childPrefix;

	// Step 4: the subtree of `top`, then the forks' later children, until `below` rows follow the
	// leaf: the views of those subtrees only, as the whole tree's would be.
	const show = filter === undefined ? undefined : showsView;
	const leafShownAt = rules.leafShownAt as string;
	const rows: TreeLayoutRow[] = [];
	let leafRow = -1;
	let scanned = 0;
	const enough = (made: readonly TreeLayoutRow[]): boolean => {
		for (; leafRow < 0 && scanned < made.length; scanned++) {
			const row = made[scanned] as TreeLayoutRow;
			if (row.kind === "entry" && viewId(row.node) === leafShownAt) leafRow = scanned;
		}
		return leafRow >= 0 && made.length - leafRow - 1 >= below;
	};
	/** The views of subtrees to lay out (as the whole tree's would be). */
	const subtrees = (nodes: readonly TreeNode[]): SessionTreeNode[] => {
		const views = nodes.flatMap((node) => tree.getTree(node.id));
		// Their messages decided in one pass over the store (nearby lines read together), not one
		// read each as the layout asks.
		if (filter !== undefined) decideAssistantsShown(views, undefined, WINDOW_BUDGET - decided);
		return views;
	};
	const start = buildView(subtrees([path[top] as TreeNode]), show, undefined, hide).roots[0];
	if (start === undefined) return undefined;
	const stack: Pending[] = [{ view: start, linePrefix, childPrefix, childTail, levels, depth: 0 }];
	layRows(rules, stack, rows, enough);
	for (let f = pathForks.length - 1; f >= 0 && !enough(rows); f--) {
		const fork = pathForks[f] as PathFork;
		if (fork.last) continue;
		// Its children after the path's: the deepest path node's first (as the shown tree orders them).
		const later: TreeNode[] = [];
		for (let n = fork.nodes.length - 1; n >= 0; n--) {
			const i = fork.nodes[n] as number;
			const children = childrenAt(i);
			later.push(...children.slice(children.indexOf(path[i + 1] as TreeNode) + 1));
		}
		pushForkChildren(stack, buildView(subtrees(later), show, undefined, hide).roots, fork.prefixes, fork.levels, 0);
		layRows(rules, stack, rows, enough);
	}
	enough(rows);
	if (leafRow < 0) return undefined;
	const first = Math.max(0, leafRow - above);
	return {
		rows: rows.slice(first, leafRow + below + 1),
		leafRow: leafRow - first,
		leafShownAt,
		active,
	};
}

/**
 * The nodes from the root down to `leafId` through their resolved parents, or undefined for an
 * id not in the tree or a node whose declared parent is not the one the path goes through (a
 * tree whose parents were mended: `layoutTree`'s active path follows the declared ones).
 */
function pathTo(tree: SessionTree, leafId: string): TreeNode[] | undefined {
	const path: TreeNode[] = [];
	for (let node = tree.getNode(leafId); node; node = node.parent) {
		// More steps than entries: parents in a circle (a load cuts them; never walked forever).
		if (path.length >= tree.size) return undefined;
		if (node.declaredParentId !== (node.parent ? node.parent.id : null)) return undefined;
		path.push(node);
	}
	if (path.length === 0) return undefined;
	return path.reverse();
}
