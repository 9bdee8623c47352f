/**
 * The rows of a tree layout below a start (tree-layout.ts's rules, see its documentation):
 * straight runs, fork prefixes, folded runs and `more` rows. Shared by `layoutTree`, which lays
 * out a whole tree, and tree-leaf.ts, which lays out again the part of a tree that a change of
 * its leaf moves. Iterative.
 */

import { viewId } from "../core/tree-view.js";
import type { SessionTreeNode } from "../core/types.js";

/** The connector before an entry that has a later sibling. */
export const TREE_BRANCH = "├── ";
/** The connector before the last of several siblings. */
export const TREE_LAST = "└── ";
/** The indentation below an entry that has a later sibling. */
export const TREE_PIPE = "│   ";
/** The indentation below the last of several siblings. */
export const TREE_SPACE = "    ";

/** The one node of a list of children, if there is exactly one. */
function onlyChild(children: readonly SessionTreeNode[]): SessionTreeNode | undefined {
	return children.length === 1 ? children[0] : undefined;
}

/** Number of entries below a node. */
export function countBelow(node: SessionTreeNode): number {
	let count = 0;
	const stack = [...node.children];
	for (let next = stack.pop(); next; next = stack.pop()) {
		count++;
		for (const child of next.children) stack.push(child);
	}
	return count;
}

/** One straight run, with its middle folded: nodes to show and the number of entries between. */
function foldRun(
	run: readonly SessionTreeNode[],
	limit: number,
	keep: (view: SessionTreeNode) => boolean,
): Array<SessionTreeNode | number> {
	if (run.length <= limit) return [...run];
	const rows: Array<SessionTreeNode | number> = [];
	let hidden = 0;
	const flush = (before: SessionTreeNode | undefined) => {
		if (hidden === 1 && before) rows.push(before);
		else if (hidden > 1) rows.push(hidden);
		hidden = 0;
	};
	let lastHidden: SessionTreeNode | undefined;
	run.forEach((view, i) => {
		if (i < 2 || i >= run.length - 2 || keep(view)) {
			flush(lastHidden);
			rows.push(view);
		} else {
			hidden++;
			lastHidden = view;
		}
	});
	return rows;
}

/** A row that shows an entry. */
export interface TreeEntryRow {
	readonly kind: "entry";
	/** The node, as the filter shows it: `children` are its shown children. */
	readonly node: SessionTreeNode;
	/** What is drawn before the entry: the indentation and the connector (empty above the first fork). */
	readonly prefix: string;
	/** Its shown children, of which there may be more than the rows show (depth, `collapsed`). */
	readonly children: number;
	/** True when its descendants are folded away by `collapsed`. */
	readonly collapsed: boolean;
}

/** A row that stands for the middle of a folded straight run (`┆ … N entries …`). */
export interface TreeFoldRow {
	readonly kind: "fold";
	/** The indentation of the run. */
	readonly prefix: string;
	/** Entries folded away. */
	readonly count: number;
}

/** A row that stands for what lies below the depth limit or a collapsed entry (`… N more`). */
export interface TreeMoreRow {
	readonly kind: "more";
	/** The indentation of the entries below. */
	readonly prefix: string;
	/** The entry whose descendants these are. */
	readonly parentId: string;
	/** Entries below. */
	readonly count: number;
	/** Its shown children: more than one means as many branches. */
	readonly branches: number;
	/** True when the leaf (the end of the active path) is among them. */
	readonly leafBelow: boolean;
}

/** One row of a {@link TreeLayout}. */
export type TreeLayoutRow = TreeEntryRow | TreeFoldRow | TreeMoreRow;

/** A straight run waiting to be laid out. */
export interface Pending {
	view: SessionTreeNode;
	/** Drawn before the entry: the indentation and the connector (clipped with `maxIndent`). */
	linePrefix: string;
	/** Indentation of the rows below this entry (clipped with `maxIndent`). */
	childPrefix: string;
	/** With `maxIndent`: the last `maxIndent` characters of the whole indentation below this entry. */
	childTail: string;
	/** Levels of indentation (4 characters each) of both prefixes. */
	levels: number;
	/** Levels below the start. */
	depth: number;
}

/** The prefixes of the children of one fork (all but the last share theirs). @internal */
export interface ForkPrefixes {
	branchLine: string;
	branchChild: string;
	branchTail: string;
	lastLine: string;
	lastChild: string;
	lastTail: string;
}

/**
 * What the rows below a start depend on besides the shown tree: the options, the leaf's row
 * and the active path. @internal
 */
export interface RowRules {
	readonly maxDepth: number | undefined;
	readonly collapsed: ReadonlySet<string> | undefined;
	readonly fold: boolean;
	readonly foldLimit: number;
	/** `maxIndent`, a whole number, or undefined for whole prefixes. */
	readonly clip: number | undefined;
	readonly leafShownAt: string | null;
	readonly active: ReadonlySet<string>;
}

/** With `maxIndent` (`clip`), an indentation is kept as its last `clip` characters and its levels. */
function shownPrefix(clip: number | undefined, tail: string, levels: number): string {
	return clip === undefined || levels * TREE_PIPE.length <= clip ? tail : `«${levels}» ${tail}`;
}

function keepLast(clip: number | undefined, text: string): string {
	return clip === undefined || text.length <= clip ? text : text.slice(text.length - clip);
}

/** The prefixes of the children of a fork whose own children's indentation is `child` (`tail`, `levels`). @internal */
export function forkPrefixes(clip: number | undefined, child: string, tail: string, levels: number): ForkPrefixes {
	if (clip === undefined) {
		return {
			branchLine: child + TREE_BRANCH,
			branchChild: child + TREE_PIPE,
			branchTail: "",
			lastLine: child + TREE_LAST,
			lastChild: child + TREE_SPACE,
			lastTail: "",
		};
	}
	const branchTail = keepLast(clip, tail + TREE_PIPE);
	const lastTail = keepLast(clip, tail + TREE_SPACE);
	return {
		branchLine: shownPrefix(clip, keepLast(clip, tail + TREE_BRANCH), levels + 1),
		branchChild: shownPrefix(clip, branchTail, levels + 1),
		branchTail,
		lastLine: shownPrefix(clip, keepLast(clip, tail + TREE_LAST), levels + 1),
		lastChild: shownPrefix(clip, lastTail, levels + 1),
		lastTail,
	};
}

/**
 * Pushes the runs that `children` (of the entry `at`, or the roots) start onto `stack`, last
 * child first so that they pop in order. @internal
 */
export function pushChildren(
	rules: RowRules,
	stack: Pending[],
	children: readonly SessionTreeNode[],
	at: Pending | undefined,
	depth: number,
): void {
	const childPrefix = at ? at.childPrefix : "";
	const childTail = at ? at.childTail : "";
	const levels = at ? at.levels : 0;
	const only = onlyChild(children);
	if (only) {
		stack.push({ view: only, linePrefix: childPrefix, childPrefix, childTail, levels, depth });
		return;
	}
	pushForkChildren(stack, children, forkPrefixes(rules.clip, childPrefix, childTail, levels), levels + 1, depth);
}

/**
 * Pushes `children`, the shown children of a fork (or the part of them after a path through
 * it, tree-window.ts) with the fork's `prefixes`, onto `stack`, last first so that they pop in
 * order; the last of them is drawn as the fork's last child. @internal
 */
export function pushForkChildren(
	stack: Pending[],
	children: readonly SessionTreeNode[],
	prefixes: ForkPrefixes,
	levels: number,
	depth: number,
): void {
	for (let k = children.length - 1; k >= 0; k--) {
		const last = k === children.length - 1;
		stack.push({
			view: children[k] as SessionTreeNode,
			linePrefix: last ? prefixes.lastLine : prefixes.branchLine,
			childPrefix: last ? prefixes.lastChild : prefixes.branchChild,
			childTail: last ? prefixes.lastTail : prefixes.branchTail,
			levels,
			depth,
		});
	}
}

/** Whether a shown node's descendants are folded away by `collapsed`. @internal */
export function isCollapsedIn(rules: RowRules, node: SessionTreeNode): boolean {
	return rules.collapsed !== undefined && node.children.length > 0 && rules.collapsed.has(viewId(node));
}

/**
 * Lays out the runs on `stack` and everything below them, appending to `rows`; with `enough`,
 * stops once it says so after a run (what is left stays on `stack`). Iterative. @internal
 */
export function layRows(
	rules: RowRules,
	stack: Pending[],
	rows: TreeLayoutRow[],
	enough?: (rows: readonly TreeLayoutRow[]) => boolean,
): void {
	const { maxDepth, leafShownAt, active } = rules;
	const isCollapsed = (node: SessionTreeNode) => isCollapsedIn(rules, node);
	const keep = (node: SessionTreeNode) => node.label !== undefined || viewId(node) === leafShownAt;
	const run: SessionTreeNode[] = [];
	for (let item = stack.pop(); item; item = stack.pop()) {
		if (enough?.(rows)) {
			stack.push(item);
			return;
		}
		const { linePrefix, childPrefix } = item;
		// The straight run starting here: every later entry is its predecessor's only child.
		run.length = 0;
		run.push(item.view);
		let depth = item.depth;
		let last = item.view;
		for (
			let next = onlyChild(last.children);
			next && (maxDepth === undefined || depth < maxDepth) && !isCollapsed(last);
			next = onlyChild(last.children)
		) {
			last = next;
			run.push(last);
			depth++;
		}
		if (rules.fold && run.length > rules.foldLimit) {
			const folded = foldRun(run, rules.foldLimit, keep);
			for (let i = 0; i < folded.length; i++) {
				const row = folded[i] as SessionTreeNode | number;
				const prefix = i === 0 ? linePrefix : childPrefix;
				if (typeof row === "number") rows.push({ kind: "fold", prefix, count: row });
				else rows.push(entryRow(row, prefix, row === last && isCollapsed(row)));
			}
		} else {
			for (let i = 0; i < run.length; i++) {
				const node = run[i] as SessionTreeNode;
				rows.push(entryRow(node, i === 0 ? linePrefix : childPrefix, node === last && isCollapsed(node)));
			}
		}
		if (last.children.length === 0) continue;
		if ((maxDepth !== undefined && depth >= maxDepth) || isCollapsed(last)) {
			rows.push(moreRow(last, childPrefix, leafShownAt, active));
			continue;
		}
		pushChildren(rules, stack, last.children, item, depth + 1);
	}
}

/** The `more` row below a node whose descendants are cut (depth) or folded away (`collapsed`). @internal */
export function moreRow(
	node: SessionTreeNode,
	prefix: string,
	leafShownAt: string | null,
	active: ReadonlySet<string>,
): TreeMoreRow {
	const id = viewId(node);
	return {
		kind: "more",
		prefix,
		parentId: id,
		count: countBelow(node),
		branches: node.children.length,
		// The leaf among them: say so, as a filter's hidden leaf is pointed at.
		leafBelow: leafShownAt !== null && active.has(id) && id !== leafShownAt,
	};
}

/** An entry row (one shape for all of them). @internal */
export function entryRow(node: SessionTreeNode, prefix: string, collapsed: boolean): TreeEntryRow {
	return { kind: "entry", node, prefix, children: node.children.length, collapsed };
}
