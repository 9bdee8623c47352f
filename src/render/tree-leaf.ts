/**
 * A tree layout ({@link layoutTree}) kept for changes of its leaf: choosing another leaf
 * changes the rows in proportion to what changes, not with a new layout of every entry.
 *
 * What a leaf changes in a layout (tree-layout.ts):
 *
 * - the active path and the row that carries the leaf marker (`active`, `leafShownAt`): the
 *   path is walked from the new leaf, the rows themselves do not hold the marks;
 * - a `more` row says whether the leaf is below it (`leafBelow`): those of the entries folded
 *   away (`collapsed`) on the old or the new path are made again;
 * - what a filter shows: {@link treeFilterShows} shows an assistant message without text when it
 *   is the leaf, so the old leaf can disappear and the new one appear. Each such change edits
 *   the shown tree at the entry's nearest shown ancestor (its shown descendants move below it,
 *   or up to the ancestor), and the rows of that ancestor's children are made again where their
 *   prefixes change; the rows of a child whose prefixes stay are kept as they are.
 *
 * The rows are those a fresh {@link layoutTree} with the new leaf gives (a property test
 * compares them on random trees). Straight-run folding (`fold`), a `depth` limit and
 * `maxIndent` make the rows depend on the leaf in more places (the kept entries of a folded
 * run, the levels below a moved entry, clipped prefixes): with any of them, and wherever the
 * tree is not as its entries declare it (a parent id that is not the node's parent), the update
 * is a fresh layout. Every walk is iterative.
 */

import { copyViewNode, viewId, viewParentId } from "../core/tree-view.js";
import type { SessionTreeNode } from "../core/types.js";
import {
	activePathIds,
	indexTreeNodes,
	isPutAway,
	layOutTree,
	lazyIds,
	rowRules,
	shownAncestor,
	showsArchived,
	TREE_BRANCH,
	TREE_LAST,
	TREE_PIPE,
	TREE_SPACE,
	type TreeEntryRow,
	type TreeLayout,
	type TreeLayoutOptions,
	type TreeLayoutRow,
	treeFilterShows,
} from "./tree-layout.js";
import { entryRow, isCollapsedIn, layRows, moreRow } from "./tree-rows.js";

const NO_IDS: ReadonlySet<string> = new Set();

/** A stand-in node: in the walk of {@link LeafLayout.treeSpans}, the end of a node's descendants. */
const EXIT = { entry: undefined, children: [] } as unknown as SessionTreeNode;

/** Each node's position in the tree's depth-first order (`start`), and the one after its descendants (`end`, by position). */
interface TreeSpans {
	readonly start: ReadonlyMap<string, number>;
	readonly end: Int32Array;
}

/**
 * A layout of a tree under fixed options, whose leaf can be changed ({@link setLeaf}). The
 * rows array and the shown set of {@link layout} are updated in place: a layout read before a
 * change is stale after it.
 */
export class LeafLayout {
	private readonly roots: readonly SessionTreeNode[];
	private readonly options: TreeLayoutOptions;
	/** Whether a leaf change can update the rows (see the module's documentation). */
	private readonly incremental: boolean;
	private current!: TreeLayout;
	private leaf: string | null;
	/** The shown tree's roots (copies, or the nodes themselves when `whole`). */
	private view!: SessionTreeNode[];
	private whole!: boolean;
	private byId: Map<string, SessionTreeNode> | undefined;
	/** The tree's spans (see {@link treeSpans}): undefined until made, null where they cannot answer. */
	private spans: TreeSpans | null | undefined;
	/** The shown tree's nodes by id, made on the first change of what is shown. */
	private copies: Map<string, SessionTreeNode> | undefined;

	constructor(roots: readonly SessionTreeNode[], options: TreeLayoutOptions = {}) {
		this.roots = roots;
		// The caller may change its set of folded entries; this layout keeps the one it was made with.
		this.options = { ...options, ...(options.collapsed ? { collapsed: new Set(options.collapsed) } : {}) };
		this.leaf = options.leafId ?? null;
		const rules = rowRules(options, null, NO_IDS);
		this.incremental = !rules.fold && rules.maxDepth === undefined && rules.clip === undefined;
		this.layOut(this.leaf);
	}

	/** The current layout (as {@link layoutTree} gives it with the current leaf). */
	get layout(): TreeLayout {
		return this.current;
	}

	/** The current leaf. */
	get leafId(): string | null {
		return this.leaf;
	}

	/**
	 * Makes the indexes a change of the leaf reads (the tree's nodes by id and their spans;
	 * under a filter, the shown tree's nodes), so that the first change does not: a caller with
	 * idle time (the page once it is drawn) calls it then. A change makes what is missing; the
	 * rows are the same either way.
	 */
	prepare(): void {
		if (!this.incremental) return;
		this.treeSpans();
		if (this.options.filter !== undefined) this.copyIndex();
	}

	/**
	 * The ids on the path from the root to `leafId`. Where the tree is as its entries declare it,
	 * an entry is on the path when the leaf is within its span (see {@link treeSpans}): nothing
	 * is made per change, where a set of the path's ids was 5–9 ms of a leaf change in the page
	 * for a path of 73,000 entries. Otherwise (ids that are not their node's parent, repeated
	 * ids) the set of {@link activePathIds}, which the other answers equal (a property test
	 * compares them).
	 */
	private activeOf(leafId: string | null): ReadonlySet<string> {
		const byId = this.index();
		const spans = this.treeSpans();
		if (spans === null) return activePathIds(byId, leafId);
		const leaf = leafId === null ? undefined : spans.start.get(leafId);
		if (leaf === undefined) return NO_IDS;
		// An id is on the path when its span holds the leaf's position; the set itself (its size,
		// its ids in order) is made only if read, which no view does.
		return lazyIds(
			() => activePathIds(byId, leafId),
			(id) => {
				const at = spans.start.get(id);
				return at !== undefined && at <= leaf && leaf < (spans.end[at] as number);
			},
		);
	}

	/**
	 * Each node's span in the tree's depth-first order: its position, and the position after its
	 * last descendant. Null when a node's parent id is not its parent's (or a root names a node of
	 * the tree), or an id comes twice: the path up the parent ids is then not the tree's.
	 */
	private treeSpans(): TreeSpans | null {
		if (this.spans !== undefined) return this.spans;
		const byId = this.index();
		const start = new Map<string, number>();
		const end: number[] = [];
		// Nodes to enter, with the id their parent id must name (undefined: a root); an EXIT item
		// ends the span of the node whose position is last in `exits`.
		const stack: Array<{ node: SessionTreeNode; parent: string | undefined }> = [];
		const exits: number[] = [];
		for (let i = this.roots.length - 1; i >= 0; i--)
			stack.push({ node: this.roots[i] as SessionTreeNode, parent: undefined });
		let position = 0;
		this.spans = null;
		for (let item = stack.pop(); item; item = stack.pop()) {
			const { node, parent } = item;
			if (node === EXIT) {
				end[exits.pop() as number] = position;
				continue;
			}
			const id = viewId(node);
			const declared = viewParentId(node);
			if (parent === undefined ? declared !== null && byId.has(declared) : declared !== parent) return null;
			if (start.has(id)) return null;
			start.set(id, position);
			exits.push(position);
			position++;
			stack.push({ node: EXIT, parent: undefined });
			const { children } = node;
			for (let k = children.length - 1; k >= 0; k--) stack.push({ node: children[k] as SessionTreeNode, parent: id });
		}
		this.spans = { start, end: Int32Array.from(end) };
		return this.spans;
	}

	/** Makes `leafId` the leaf and returns the layout (the same rows array, updated). */
	setLeaf(leafId: string | null): TreeLayout {
		const old = this.leaf;
		if (leafId === old) return this.current;
		if (!this.incremental) return this.layOut(leafId);
		this.leaf = leafId;
		const byId = this.index();
		const filter = this.options.filter;
		if (filter !== undefined) {
			for (const id of [old, leafId]) {
				const node = id === null ? undefined : byId.get(id);
				if (!node) continue;
				const shows = treeFilterShows(node, filter, leafId);
				if (shows !== treeFilterShows(node, filter, old) && !this.toggle(node, shows)) return this.layOut(leafId);
			}
		}
		const before = this.current;
		const active = this.activeOf(leafId);
		const shown = before.shown;
		const isShown =
			this.whole && this.options.from === undefined ? (id: string) => byId.has(id) : (id: string) => shown.has(id);
		const leafShownAt = shownAncestor(byId, leafId, isShown);
		this.markMoreRows(before.rows, before.active, active, leafShownAt);
		this.current = { rows: before.rows, active, leafShownAt, shown };
		return this.current;
	}

	/** A fresh layout with `leafId` as the leaf (the state made again). */
	private layOut(leafId: string | null): TreeLayout {
		const laid = layOutTree(this.roots, { ...this.options, leafId });
		this.leaf = leafId;
		this.current = laid.layout;
		this.view = laid.view;
		this.whole = laid.whole;
		this.byId ??= laid.byId;
		this.copies = undefined;
		return this.current;
	}

	private index(): Map<string, SessionTreeNode> {
		this.byId ??= indexTreeNodes(this.roots);
		return this.byId;
	}

	/** The shown tree's nodes by id (a walk of the shown tree, once). */
	private copyIndex(): Map<string, SessionTreeNode> {
		if (this.copies) return this.copies;
		const copies = new Map<string, SessionTreeNode>();
		const stack = [...this.view];
		for (let node = stack.pop(); node; node = stack.pop()) {
			copies.set(viewId(node), node);
			const { children } = node;
			for (let k = 0; k < children.length; k++) stack.push(children[k] as SessionTreeNode);
		}
		this.copies = copies;
		return copies;
	}

	/**
	 * The tree's parent of a node: null for a root, undefined when the parent its entry names is
	 * not the node's parent in the tree (then the caller lays out afresh).
	 */
	private parentOf(node: SessionTreeNode): SessionTreeNode | null | undefined {
		const id = viewParentId(node);
		const parent = id === null ? undefined : this.index().get(id);
		if (parent) return parent.children.includes(node) ? parent : undefined;
		return this.roots.includes(node) ? null : undefined;
	}

	/** The `more` rows of entries folded away on the old or the new path: whether the leaf is below them. */
	private markMoreRows(
		rows: TreeLayoutRow[],
		oldActive: ReadonlySet<string>,
		active: ReadonlySet<string>,
		leafShownAt: string | null,
	): void {
		const collapsed = this.options.collapsed;
		if (collapsed === undefined) return;
		const onPaths = new Set<string>();
		for (const id of collapsed) if (oldActive.has(id) || active.has(id)) onPaths.add(id);
		if (onPaths.size === 0) return;
		for (let i = 0; i < rows.length; i++) {
			const row = rows[i] as TreeLayoutRow;
			if (row.kind !== "more" || !onPaths.has(row.parentId)) continue;
			const leafBelow = leafShownAt !== null && active.has(row.parentId) && row.parentId !== leafShownAt;
			if (leafBelow !== row.leafBelow) rows[i] = { ...row, leafBelow };
		}
	}

	/**
	 * Shows or hides one entry (the filter's verdict on it changed with the leaf): edits the
	 * shown tree and the rows. False when the tree is not as its entries declare it.
	 */
	private toggle(node: SessionTreeNode, show: boolean): boolean {
		const { options } = this;
		const shown = this.current.shown as Set<string>;
		const id = viewId(node);
		const hideArchived = !showsArchived(options.filter, options.archived);
		if (id === options.from) return true;
		if (hideArchived && isPutAway(node)) return true;
		// The nearest shown ancestor (null: the roots); a branch put away or outside `from` shows nothing.
		let above: string | null = null;
		for (let at = node; ; ) {
			const parent = this.parentOf(at);
			if (parent === undefined) return false;
			if (parent === null) {
				if (options.from !== undefined) return true;
				break;
			}
			const parentId = viewId(parent);
			if (shown.has(parentId)) {
				above = parentId;
				break;
			}
			if (hideArchived && isPutAway(parent)) return true;
			at = parent;
		}
		const copies = this.copyIndex();
		const holder = above === null ? this.view : copies.get(above)?.children;
		if (!holder) return false;
		const before = [...holder];
		let copy: SessionTreeNode;
		if (show) {
			copy = copyViewNode(node);
			// The shown children of the ancestor that are below the entry become its children.
			let first = -1;
			let count = 0;
			for (let i = 0; i < holder.length; i++) {
				const below = this.isBelow(holder[i] as SessionTreeNode, id, above);
				if (below === undefined) return false;
				if (below) {
					if (first < 0) first = i;
					count++;
				}
			}
			if (count > 0) {
				for (let i = first; i < first + count; i++) copy.children.push(holder[i] as SessionTreeNode);
				replaceRange(holder, first, first + count, [copy]);
			} else {
				const at = this.positionAmong(holder, node, above);
				if (at === undefined) return false;
				replaceRange(holder, at, at, [copy]);
			}
			copies.set(id, copy);
			shown.add(id);
		} else {
			const found = copies.get(id);
			const at = found === undefined ? -1 : holder.indexOf(found);
			if (found === undefined || at < 0) return false;
			copy = found;
			replaceRange(holder, at, at + 1, copy.children);
			copies.delete(id);
			shown.delete(id);
		}
		return this.relayChildren(above, before, holder, copy, show);
	}

	/** Whether a shown node is below the entry `id` (before its nearest shown ancestor `above`). */
	private isBelow(view: SessionTreeNode, id: string, above: string | null): boolean | undefined {
		let at = this.index().get(viewId(view));
		if (!at) return undefined;
		for (;;) {
			const parent = this.parentOf(at);
			if (parent === undefined) return undefined;
			if (parent === null) return false;
			const parentId = viewId(parent);
			if (parentId === id) return true;
			if (parentId === above) return false;
			at = parent;
		}
	}

	/**
	 * Where an entry with no shown descendant goes among the shown children of its nearest shown
	 * ancestor: before the first that comes after it in the tree's order (depth first).
	 */
	private positionAmong(
		holder: readonly SessionTreeNode[],
		node: SessionTreeNode,
		above: string | null,
	): number | undefined {
		// The entry's ancestors up to `above`, each with the node below it on the entry's path.
		const path = new Map<string, SessionTreeNode>();
		let top = node;
		for (;;) {
			const parent = this.parentOf(top);
			if (parent === undefined) return undefined;
			if (parent === null) break;
			path.set(viewId(parent), top);
			if (viewId(parent) === above) break;
			top = parent;
		}
		const byId = this.index();
		for (let i = 0; i < holder.length; i++) {
			let at = byId.get(viewId(holder[i] as SessionTreeNode));
			if (!at) return undefined;
			for (;;) {
				const parent = this.parentOf(at);
				if (parent === undefined) return undefined;
				const siblings = parent === null ? this.roots : parent.children;
				const mine = parent === null ? top : path.get(viewId(parent));
				if (mine !== undefined) {
					if (siblings.indexOf(at) > siblings.indexOf(mine)) return i;
					break;
				}
				at = parent as SessionTreeNode;
			}
		}
		return holder.length;
	}

	/**
	 * Makes the rows below the shown ancestor `above` again after its shown children went from
	 * `before` to `after` (`changed` shown or hidden), keeping the rows of each child whose
	 * prefixes stay.
	 */
	private relayChildren(
		above: string | null,
		before: readonly SessionTreeNode[],
		after: readonly SessionTreeNode[],
		changed: SessionTreeNode,
		shown: boolean,
	): boolean {
		const rows = this.current.rows;
		const copies = this.copyIndex();
		const collapsed = this.options.collapsed;
		// Rows made here say nothing of the leaf: `setLeaf` marks the `more` rows on the paths after.
		const rules = rowRules(this.options, null, NO_IDS);
		let at = -1;
		let line = "";
		const aboveCopy = above === null ? undefined : copies.get(above);
		if (above !== null) {
			if (aboveCopy === undefined) return false;
			at = rowOf(rows, aboveCopy, 0);
			if (at < 0) return this.countFoldedAway(above, shown ? 1 : -1);
			const row = rows[at] as TreeEntryRow;
			line = row.prefix;
			const folds = collapsed?.has(above) === true;
			const wasFolded = folds && before.length > 0;
			const isFolded = folds && after.length > 0;
			if (wasFolded || isFolded) {
				rows[at] = entryRow(aboveCopy, line, isFolded);
				const more = rows[at + 1];
				if (wasFolded && isFolded && more?.kind === "more") {
					rows[at + 1] = { ...more, count: more.count + (shown ? 1 : -1), branches: after.length };
				} else if (wasFolded) replaceRange(rows, at + 1, at + 2, []);
				else replaceRange(rows, at + 1, at + 1, [moreRow(aboveCopy, childPrefixOf(line), null, NO_IDS)]);
				return true;
			}
		}
		const end = at < 0 ? rows.length : subtreeEnd(rows, at);
		// Where each old child's rows are (and, for an entry hidden now, its children's).
		const ranges = new Map<SessionTreeNode, [number, number]>();
		if (!findRanges(rows, at + 1, end, before, ranges)) return false;
		if (!shown && !isCollapsedIn(rules, changed)) {
			const range = ranges.get(changed);
			if (!range || !findRanges(rows, range[0] + 1, range[1], changed.children, ranges)) return false;
		}
		// The new rows below the ancestor: rows made, and ranges of old rows kept as they are.
		const pieces: Array<TreeLayoutRow | [number, number]> = [];
		const made: TreeLayoutRow[] = [];
		// Recurses once at most: below the entry shown now, whose children were the ancestor's.
		const emit = (children: readonly SessionTreeNode[], prefix: string) => {
			for (let k = 0; k < children.length; k++) {
				const child = children[k] as SessionTreeNode;
				const only = children.length === 1;
				const last = k === children.length - 1;
				const childLine = only ? prefix : prefix + (last ? TREE_LAST : TREE_BRANCH);
				const childPrefix = only ? prefix : prefix + (last ? TREE_SPACE : TREE_PIPE);
				const range = ranges.get(child);
				const old = range ? (rows[range[0]] as TreeEntryRow) : undefined;
				if (range && old && childPrefixOf(old.prefix) === childPrefix) {
					// The rows below the child keep their prefixes; its own row may get another connector.
					if (old.prefix === childLine) pieces.push(range);
					else pieces.push(entryRow(child, childLine, old.collapsed), [range[0] + 1, range[1]]);
				} else if (shown && child === changed && !isCollapsedIn(rules, child)) {
					pieces.push(entryRow(child, childLine, false));
					emit(child.children, childPrefix);
				} else {
					made.length = 0;
					layRows(
						rules,
						[{ view: child, linePrefix: childLine, childPrefix, childTail: "", levels: 0, depth: 0 }],
						made,
					);
					for (const row of made) pieces.push(row);
				}
			}
		};
		emit(after, at < 0 ? "" : childPrefixOf(line));
		if (aboveCopy !== undefined) rows[at] = entryRow(aboveCopy, line, false);
		// Old rows kept where they are, at either end, are left in place: only the rows between move.
		let start = at + 1;
		let stop = end;
		let first = 0;
		let last = pieces.length;
		for (; first < last; first++) {
			const piece = pieces[first];
			if (!Array.isArray(piece) || piece[0] !== start) break;
			start = piece[1];
		}
		for (; last > first; last--) {
			const piece = pieces[last - 1];
			if (!Array.isArray(piece) || piece[1] !== stop || piece[0] < start) break;
			stop = piece[0];
		}
		const out: TreeLayoutRow[] = [];
		for (let p = first; p < last; p++) {
			const piece = pieces[p] as TreeLayoutRow | [number, number];
			if (!Array.isArray(piece)) out.push(piece);
			else for (let i = piece[0]; i < piece[1]; i++) out.push(rows[i] as TreeLayoutRow);
		}
		replaceRange(rows, start, stop, out);
		return true;
	}

	/**
	 * An entry shown or hidden below an entry folded away (`collapsed`): the `more` row of the
	 * topmost folded entry above it counts one entry more or less.
	 */
	private countFoldedAway(above: string, delta: number): boolean {
		const collapsed = this.options.collapsed;
		const shown = this.current.shown;
		let top: string | undefined;
		for (let at = this.index().get(above); at; ) {
			const id = viewId(at);
			if (collapsed?.has(id) && shown.has(id)) top = id;
			const parent = this.parentOf(at);
			if (parent === undefined) return false;
			at = parent ?? undefined;
		}
		const copy = top === undefined ? undefined : this.copyIndex().get(top);
		const rows = this.current.rows;
		const at = copy === undefined ? -1 : rowOf(rows, copy, 0);
		const more = rows[at + 1];
		if (at < 0 || more?.kind !== "more" || more.parentId !== top) return false;
		rows[at + 1] = { ...more, count: more.count + delta };
		return true;
	}
}

/** The index of the entry row of `node` (a node of the shown tree) from `from` on, or -1. */
function rowOf(rows: readonly TreeLayoutRow[], node: SessionTreeNode, from: number): number {
	for (let i = from; i < rows.length; i++) {
		const row = rows[i] as TreeLayoutRow;
		if (row.kind === "entry" && row.node === node) return i;
	}
	return -1;
}

/**
 * The end of the rows below the entry row at `at` (whole prefixes): the rows after it that are
 * deeper, or as deep and not the start of a sibling (whose prefix ends with a connector).
 */
function subtreeEnd(rows: readonly TreeLayoutRow[], at: number): number {
	const level = (rows[at] as TreeLayoutRow).prefix.length;
	let end = at + 1;
	for (; end < rows.length; end++) {
		const prefix = (rows[end] as TreeLayoutRow).prefix;
		if (prefix.length < level) break;
		if (prefix.length === level && (prefix.endsWith(TREE_BRANCH) || prefix.endsWith(TREE_LAST))) break;
	}
	return end;
}

/**
 * The rows of each of `children` in rows[from, to): each starts at its own entry row and ends
 * where the next starts (the last at `to`). False when one has no row there.
 */
function findRanges(
	rows: readonly TreeLayoutRow[],
	from: number,
	to: number,
	children: readonly SessionTreeNode[],
	ranges: Map<SessionTreeNode, [number, number]>,
): boolean {
	const starts: number[] = [];
	for (let i = from; i < to && starts.length < children.length; i++) {
		const row = rows[i] as TreeLayoutRow;
		if (row.kind === "entry" && row.node === children[starts.length]) starts.push(i);
	}
	if (starts.length < children.length) return false;
	for (let k = 0; k < children.length; k++) {
		ranges.set(children[k] as SessionTreeNode, [
			starts[k] as number,
			k + 1 < children.length ? (starts[k + 1] as number) : to,
		]);
	}
	return true;
}

/** The indentation of the rows below an entry drawn with `prefix` (whole prefixes). */
function childPrefixOf(prefix: string): string {
	if (prefix.endsWith(TREE_BRANCH)) return prefix.slice(0, -TREE_BRANCH.length) + TREE_PIPE;
	if (prefix.endsWith(TREE_LAST)) return prefix.slice(0, -TREE_LAST.length) + TREE_SPACE;
	return prefix;
}

/** Replaces items[start, end) with `items` in place, without spreading them as arguments (any length). */
function replaceRange<T>(list: T[], start: number, end: number, items: readonly T[]): void {
	if (items.length <= 4096) {
		list.splice(start, end - start, ...items);
		return;
	}
	const delta = items.length - (end - start);
	const length = list.length;
	if (delta > 0) {
		list.length = length + delta;
		for (let i = length - 1; i >= end; i--) list[i + delta] = list[i] as T;
	} else if (delta < 0) {
		for (let i = end; i < length; i++) list[i + delta] = list[i] as T;
		list.length = length + delta;
	}
	for (let i = 0; i < items.length; i++) list[start + i] = items[i] as T;
}
