/**
 * The state of `session-tree browse`, without a terminal: the rows of the tree (laid out by
 * `render/tree-layout.ts` with the drawing rules of `tree`), the selection and the scroll
 * position, the folded entries, the filter and search. Pure: no I/O, no timers; the app
 * (app.ts) feeds it keys' actions and asks it what to draw.
 *
 * The rows of each filter are laid out once per tree (iteratively: any depth of tree) and kept:
 * a change of filter takes the kept rows, and the folds are applied to them in one pass that
 * skips what a fold hides (see {@link foldRows}), instead of laying the whole tree out again.
 * Only the rows on the screen are drawn.
 */

import { peekViewEntries, viewId } from "../../core/tree-view.js";
import type { SessionEntry, SessionTreeNode } from "../../core/types.js";
import { describeEntry } from "../../render/preview.js";
import {
	countBelow,
	decideAssistantsShown,
	layoutTree,
	TREE_BRANCH,
	TREE_FILTERS,
	TREE_LAST,
	TREE_PIPE,
	TREE_SPACE,
	type TreeEntryRow,
	type TreeFilter,
	type TreeLayout,
	type TreeLayoutIndex,
	type TreeLayoutRow,
} from "../../render/tree-layout.js";
import type { TreeWindow } from "../../render/tree-window.js";

/** The tree to browse: as {@link Session.getTree} returns it, with its leaf and parents. */
export interface BrowseSource {
	readonly roots: readonly SessionTreeNode[];
	readonly leafId: string | null;
	/** The resolved parent of an entry (null for a root, undefined for an unknown id). */
	parentOf(id: string): string | null | undefined;
}

/** The key of a row, stable across layouts: the entry id, or `more:` and the folded entry's id. */
export function rowKey(row: TreeLayoutRow): string {
	switch (row.kind) {
		case "entry":
			// Without parsing the entry's body (tree-view.ts).
			return viewId(row.node);
		case "more":
			return `more:${row.parentId}`;
		case "fold":
			return `fold:${row.prefix}:${row.count}`;
	}
}

/** The filter after `filter` in pi's order (`f`), wrapping around. */
export function nextFilter(filter: TreeFilter): TreeFilter {
	const i = TREE_FILTERS.indexOf(filter);
	return TREE_FILTERS[(i + 1) % TREE_FILTERS.length] ?? "default";
}

/** What Enter does on an entry (pi's navigate rule, as `Session.navigate` applies it). */
export interface EnterOutcome {
	/** The leaf afterwards (null: before the first entry). */
	leafId: string | null;
	/** True when the entry's text is handed back to be edited and sent again. */
	editsText: boolean;
}

/**
 * pi's navigate rule: choosing a user message (or a custom message) moves the leaf to its
 * parent (before the first entry, for a root) and hands its text back to edit; any other
 * entry becomes the leaf.
 */
export function enterOutcome(entry: SessionEntry, parentId: string | null): EnterOutcome {
	const editsText = (entry.type === "message" && entry.message?.role === "user") || entry.type === "custom_message";
	return editsText ? { leafId: parentId, editsText } : { leafId: entry.id, editsText };
}

/** Whether a search query matches text: case-insensitive unless the query has a capital letter. */
export function searchMatcher(query: string): (text: string) => boolean {
	if (query !== query.toLowerCase()) return (text) => text.includes(query);
	return (text) => text.toLowerCase().includes(query);
}

/** The text a search looks at for an entry, before its label: the id, the kind and the whole text. */
export function entrySearchText(entry: SessionEntry): string {
	const { kind, text } = describeEntry(entry);
	return `${entry.id} ${kind} ${text} `;
}

/** The text a search looks at for a row: the id, the kind, the whole text and the label. */
export function rowSearchText(row: TreeLayoutRow): string {
	if (row.kind !== "entry") return "";
	return `${entrySearchText(row.node.entry)}${row.node.label ?? ""}`;
}

/** True when every character of `text` is ASCII. */
function isAscii(text: string): boolean {
	for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
	return true;
}

/** Entries {@link SearchTexts.fill} reads per pass over the store (about 40 KB of pi's lines). */
const TEXTS_BATCH = 32;

/** The entries a search looks at: parsed already, or the views of a tree whose bodies are read as the texts are made. */
export type SearchSource = readonly SessionEntry[] | { readonly roots: readonly SessionTreeNode[] };

/**
 * The search texts of a session's entries ({@link entrySearchText}) in lower case, made a slice
 * at a time ({@link fill}, between keys) so that a search looks at strings instead of
 * describing every entry again. {@link BrowseModel.search} uses a text where it has one and
 * describes the entry otherwise; the results are the same (see {@link matchesRow}).
 *
 * Given a tree, the bodies are read {@link TEXTS_BATCH} at a time, each batch in one pass over
 * the store, and not kept in the tree (see `peekViewEntries`): the first frame reads no body
 * for them, and the texts hold what a search needs instead of every parsed entry.
 */
export class SearchTexts {
	private readonly texts = new Map<string, string>();
	private next = 0;
	/** The entries, or the views whose entries are read (every node of the tree, found on the first fill). */
	private items: readonly SessionEntry[] | readonly SessionTreeNode[] | undefined;
	private readonly roots: readonly SessionTreeNode[] | undefined;

	constructor(source: SearchSource) {
		if (Array.isArray(source)) this.items = source as readonly SessionEntry[];
		else this.roots = (source as { readonly roots: readonly SessionTreeNode[] }).roots;
	}

	/** True once every entry's text is in. */
	get done(): boolean {
		return this.items !== undefined && this.next >= this.items.length;
	}

	/**
	 * Adds the texts of the next entries until `due()` says to stop (asked after each entry, or
	 * each batch of bodies read).
	 * @throws SessionTreeError when a body cannot be read (as the entry's own read would)
	 */
	fill(due: () => boolean): void {
		if (this.items === undefined) {
			// Every node of the tree, in no particular order (a text is found by id).
			const views: SessionTreeNode[] = [];
			const stack = [...(this.roots ?? [])];
			for (let view = stack.pop(); view; view = stack.pop()) {
				views.push(view);
				for (const child of view.children) stack.push(child);
			}
			this.items = views;
			if (due()) return;
		}
		const items = this.items;
		if (this.roots === undefined) {
			while (this.next < items.length) {
				const entry = items[this.next++] as SessionEntry;
				this.texts.set(entry.id, entrySearchText(entry).toLowerCase());
				if (due()) return;
			}
			return;
		}
		while (this.next < items.length) {
			const to = Math.min(items.length, this.next + TEXTS_BATCH);
			const entries = peekViewEntries((items as readonly SessionTreeNode[]).slice(this.next, to));
			for (const entry of entries) this.texts.set(entry.id, entrySearchText(entry).toLowerCase());
			this.next = to;
			if (due()) return;
		}
	}

	/** The search text of an entry in lower case, if it is in. */
	lowered(id: string): string | undefined {
		return this.texts.get(id);
	}
}

/**
 * Whether `query` matches a row as {@link searchMatcher} on {@link rowSearchText} says, given
 * the row's lowered search text from {@link SearchTexts} where there is one: a query in lower
 * case is looked for in the lowered text (what the matcher does); a query with capitals must
 * be in the lowered text in lower case first (for an ASCII query lowering keeps a match a
 * match), then in the row's own text. A row with a label, or without a lowered text, is
 * described as before.
 */
export function rowMatcher(query: string): (row: TreeLayoutRow, lowered: string | undefined) => boolean {
	const matches = searchMatcher(query);
	const lower = query.toLowerCase();
	const caseless = lower === query;
	const ascii = isAscii(query);
	return (row, lowered) => {
		if (row.kind !== "entry") return matches("");
		if (lowered !== undefined && row.node.label === undefined) {
			if (caseless) return lowered.includes(query);
			if (ascii && !lowered.includes(lower)) return false;
		}
		return matches(rowSearchText(row));
	};
}

/**
 * The indentation of the rows below an entry row drawn with `prefix`: its connector (`├── `,
 * `└── `) becomes the line that continues below it (`│   `, `    `); an only child's prefix
 * is already that (tree-layout's rule, see {@link layoutTree}).
 */
export function prefixBelow(prefix: string): string {
	if (prefix.endsWith(TREE_BRANCH)) return prefix.slice(0, -TREE_BRANCH.length) + TREE_PIPE;
	if (prefix.endsWith(TREE_LAST)) return prefix.slice(0, -TREE_LAST.length) + TREE_SPACE;
	return prefix;
}

/** A fold {@link foldRows} made: the folded entry's row in the layout, and the rows it hides. */
export interface FoldAt {
	readonly at: number;
	readonly count: number;
}

/**
 * The rows of `layout` (laid out with nothing folded) with the descendants of each entry of
 * `collapsed` folded into a `… N more` row: the rows {@link layoutTree} gives with that
 * `collapsed` option, made in one pass over the rows without laying the tree out again. A
 * folded entry's descendants are the rows right after it (the layout is depth-first), as many
 * as {@link countBelow} counts below its node. `index` gives the row of each entry's id in
 * `layout` (the folded entries are looked up there, not every row looked at). Returns
 * `layout.rows` itself when nothing is folded; each fold made is added to `folds`, in order.
 */
export function foldRows(
	layout: TreeLayout,
	collapsed: ReadonlySet<string>,
	index: ReadonlyMap<string, number>,
	folds?: FoldAt[],
): TreeLayoutRow[] {
	const { rows, active, leafShownAt } = layout;
	// The rows of the folded entries that have children, top to bottom.
	const ats: number[] = [];
	for (const id of collapsed) {
		const at = index.get(id);
		const row = at === undefined ? undefined : rows[at];
		if (at !== undefined && row?.kind === "entry" && row.children > 0) ats.push(at);
	}
	if (ats.length === 0) return rows;
	ats.sort((a, b) => a - b);
	const out: TreeLayoutRow[] = [];
	let from = 0;
	for (const at of ats) {
		// Inside a fold above: hidden with it.
		if (at < from) continue;
		const row = rows[at] as TreeEntryRow;
		const id = viewId(row.node);
		const count = countBelow(row.node);
		for (let i = from; i < at; i++) out.push(rows[i] as TreeLayoutRow);
		out.push({ ...row, collapsed: true });
		out.push({
			kind: "more",
			prefix: prefixBelow(row.prefix),
			parentId: id,
			count,
			branches: row.children,
			leafBelow: leafShownAt !== null && active.has(id) && id !== leafShownAt,
		});
		folds?.push({ at, count });
		from = at + 1 + count;
	}
	for (let i = from; i < rows.length; i++) out.push(rows[i] as TreeLayoutRow);
	return out;
}

/** A filter's rows with nothing folded, and the row of each key among them. */
interface KeptLayout {
	readonly layout: TreeLayout;
	readonly index: ReadonlyMap<string, number>;
	/** The key of each row. */
	readonly keys: readonly string[];
}

/** The selection, the scroll position and the rows of the tree being browsed. */
export class BrowseModel {
	private source: BrowseSource;
	/** The pi `/tree` filter in force. */
	filter: TreeFilter;
	/** Entries whose descendants are folded away. */
	readonly collapsed = new Set<string>();
	/** The rows, top to bottom. */
	rows: TreeLayoutRow[] = [];
	/** Ids on the path from the root to the leaf. */
	active: ReadonlySet<string> = new Set();
	/** The row that carries the leaf marker (the leaf, or its nearest shown ancestor). */
	leafShownAt: string | null = null;
	/** Index of the selected row (0 when there are none). */
	selected = 0;
	/** Index of the first row on the screen. */
	top = 0;
	/** The kept rows of the filter in force, with nothing folded (see {@link foldRows}). */
	private base: KeptLayout = {
		layout: { rows: [], active: new Set(), leafShownAt: null, shown: new Set() },
		index: new Map(),
		keys: [],
	};
	/** The folds applied to them, in order. */
	private folds: FoldAt[] = [];
	/** The entries' search texts, as far as they are made (see {@link SearchTexts}). */
	searchTexts: SearchTexts | undefined;
	/** The key of the last row selected: kept while a filter shows no row. */
	private anchor: string | undefined;
	/** Each filter's rows with nothing folded, laid out once per tree. */
	private layouts = new Map<TreeFilter, KeptLayout>();
	/** Whether the tree's assistant messages were decided from their bytes (see {@link layout}). */
	private decided = false;
	/** What every filter's layout of this tree shares (see `TreeLayoutOptions.index`). */
	private treeIndex: TreeLayoutIndex = {};

	/**
	 * True for a model of the rows around the leaf only (see {@link around}): it can be drawn, not
	 * moved in; the whole model follows.
	 */
	readonly partial: boolean;

	constructor(source: BrowseSource, filter: TreeFilter = "default", window?: TreeWindow) {
		this.source = source;
		this.filter = filter;
		this.partial = window !== undefined;
		if (window) {
			this.rows = window.rows;
			this.active = window.active;
			this.leafShownAt = window.leafShownAt;
			this.selected = window.leafRow;
			return;
		}
		this.layout();
		this.selectId(this.leafShownAt ?? undefined);
	}

	/**
	 * A model of the rows around the leaf (render/tree-window.ts), drawn while the whole layout
	 * is made: the leaf selected, nothing else to do with it ({@link partial}).
	 */
	static around(source: BrowseSource, filter: TreeFilter, window: TreeWindow): BrowseModel {
		return new BrowseModel(source, filter, window);
	}

	get leafId(): string | null {
		return this.source.leafId;
	}

	/** The resolved parent of an entry. */
	parentOf(id: string): string | null | undefined {
		return this.source.parentOf(id);
	}

	/** Lays the rows out again (tree, filter or folds changed), keeping the selected entry. */
	private layout(): void {
		const keep = this.selectedKey() ?? this.anchor;
		this.anchor = keep;
		let base = this.layouts.get(this.filter);
		if (base === undefined) {
			// Once per tree: the filters' rule for the assistant messages from their bytes, so that
			// no layout parses a body (each node is asked once; a later tree asks only its new ones).
			if (!this.decided) {
				decideAssistantsShown(this.source.roots);
				this.decided = true;
			}
			const layout = layoutTree(this.source.roots, {
				leafId: this.source.leafId,
				filter: this.filter,
				index: this.treeIndex,
			});
			const index = new Map<string, number>();
			const keys: string[] = [];
			for (let i = 0; i < layout.rows.length; i++) {
				const key = rowKey(layout.rows[i] as TreeLayoutRow);
				keys.push(key);
				index.set(key, i);
			}
			base = { layout, index, keys };
			this.layouts.set(this.filter, base);
		}
		this.base = base;
		this.folds = [];
		const rows = foldRows(base.layout, this.collapsed, base.index, this.folds);
		this.rows = rows;
		this.active = base.layout.active;
		this.leafShownAt = base.layout.leafShownAt;
		if (keep !== undefined) this.selectKey(keep);
		else this.selected = Math.min(this.selected, Math.max(0, rows.length - 1));
	}

	/**
	 * The row in the kept layout of each row (-1 for a `… N more` row), or undefined when nothing
	 * is folded (each row is its own).
	 */
	private baseRows(): Int32Array | undefined {
		if (this.folds.length === 0) return undefined;
		const out = new Int32Array(this.rows.length);
		let at = 0;
		let i = 0;
		for (const fold of this.folds) {
			while (at <= fold.at) out[i++] = at++;
			out[i++] = -1;
			at += fold.count;
		}
		while (i < out.length) out[i++] = at++;
		return out;
	}

	/**
	 * The row of a key ({@link rowKey}), if one shows it: its row in the kept layout, moved up by
	 * the rows the folds above it hide.
	 */
	private rowOf(key: string): number | undefined {
		let at = this.base.index.get(key);
		const more = at === undefined && key.startsWith("more:");
		if (more) at = this.base.index.get(key.slice(5));
		if (at === undefined) return undefined;
		let shift = 0;
		for (const fold of this.folds) {
			if (fold.at >= at) {
				if (more) return fold.at === at ? at - shift + 1 : undefined;
				break;
			}
			// Folded away.
			if (at <= fold.at + fold.count) return undefined;
			shift += fold.count - 1;
		}
		return more ? undefined : at - shift;
	}

	/** Takes a new tree (after a write), keeping the selection, the folds and the filter. */
	setSource(source: BrowseSource): void {
		this.source = source;
		this.layouts.clear();
		this.decided = false;
		this.treeIndex = {};
		this.layout();
	}

	/** The selected row, if any. */
	selectedRow(): TreeLayoutRow | undefined {
		return this.rows[this.selected];
	}

	/** The selected entry row, if the selection is one. */
	selectedEntry(): TreeEntryRow | undefined {
		const row = this.selectedRow();
		return row?.kind === "entry" ? row : undefined;
	}

	private selectedKey(): string | undefined {
		const row = this.selectedRow();
		return row ? rowKey(row) : undefined;
	}

	/** Selects the row of a key; an entry no row shows selects its nearest shown ancestor. */
	private selectKey(key: string): void {
		const found = this.rowOf(key);
		if (found !== undefined) {
			this.selected = found;
			return;
		}
		const id = key.startsWith("more:") ? key.slice(5) : key;
		this.selectId(id);
	}

	/**
	 * Selects the row of entry `id`, or of its nearest ancestor that has a row (filtered out or
	 * folded away); the first row when none has.
	 */
	selectId(id: string | undefined): boolean {
		const seen = new Set<string>();
		let current: string | null | undefined = id;
		while (current !== null && current !== undefined && !seen.has(current)) {
			const found = this.rowOf(current);
			if (found !== undefined) {
				this.selected = found;
				return current === id;
			}
			seen.add(current);
			current = this.source.parentOf(current);
		}
		this.selected = 0;
		return false;
	}

	/** Moves the selection by `delta` rows, stopping at the ends. */
	moveBy(delta: number): void {
		if (this.rows.length === 0) return;
		this.selected = Math.max(0, Math.min(this.rows.length - 1, this.selected + delta));
	}

	first(): void {
		this.selected = 0;
	}

	last(): void {
		this.selected = Math.max(0, this.rows.length - 1);
	}

	/** Whether a row is a branch point: an entry with more than one shown child. */
	static isBranchPoint(row: TreeLayoutRow | undefined): boolean {
		return row?.kind === "entry" && row.children > 1;
	}

	/** Selects the next (`dir` 1) or previous (-1) branch point; false when there is none that way. */
	branchPoint(dir: 1 | -1): boolean {
		for (let i = this.selected + dir; i >= 0 && i < this.rows.length; i += dir) {
			if (BrowseModel.isBranchPoint(this.rows[i])) {
				this.selected = i;
				return true;
			}
		}
		return false;
	}

	/**
	 * ←: folds the selected entry's descendants away; on an entry already folded or without
	 * children, or on a `… N more` row, moves to the entry it hangs from (the nearest row above
	 * that is less indented). Returns what it did.
	 */
	foldLeft(): "folded" | "moved" | "none" {
		const row = this.selectedRow();
		if (!row) return "none";
		if (row.kind === "entry" && row.children > 0 && !row.collapsed) {
			this.collapsed.add(row.node.entry.id);
			this.layout();
			return "folded";
		}
		if (row.kind === "more") {
			const at = this.rowOf(row.parentId);
			if (at === undefined) return "none";
			this.selected = at;
			return "moved";
		}
		const indent = row.prefix.length;
		for (let i = this.selected - 1; i >= 0; i--) {
			const above = this.rows[i];
			if (above && above.kind === "entry" && above.prefix.length < indent) {
				this.selected = i;
				return "moved";
			}
		}
		return "none";
	}

	/**
	 * →: unfolds the selected entry (or the entry of a `… N more` row); on an unfolded entry
	 * with children, moves to its first child. Returns what it did.
	 */
	unfoldRight(): "unfolded" | "moved" | "none" {
		const row = this.selectedRow();
		if (!row) return "none";
		const folded =
			row.kind === "more" ? row.parentId : row.kind === "entry" && row.collapsed ? row.node.entry.id : undefined;
		if (folded !== undefined) {
			const at = this.selected;
			this.collapsed.delete(folded);
			this.layout();
			// From a `more` row: the entry's first child takes its place, and the selection stays there.
			if (row.kind === "more") this.selected = Math.min(at, this.rows.length - 1);
			return "unfolded";
		}
		if (row.kind === "entry" && row.children > 0 && this.selected + 1 < this.rows.length) {
			this.selected++;
			return "moved";
		}
		return "none";
	}

	/** Unfolds everything on the path to an entry that a fold hides, so that it gets a row. */
	reveal(id: string): void {
		let changed = false;
		const seen = new Set<string>();
		for (
			let at = this.source.parentOf(id);
			at !== null && at !== undefined && !seen.has(at);
			at = this.source.parentOf(at)
		) {
			seen.add(at);
			if (this.collapsed.delete(at)) changed = true;
		}
		if (changed) this.layout();
	}

	/** `f`: the next filter; the selection stays on its entry or moves to the nearest shown ancestor. */
	cycleFilter(): TreeFilter {
		this.setFilter(nextFilter(this.filter));
		return this.filter;
	}

	setFilter(filter: TreeFilter): void {
		this.filter = filter;
		this.layout();
	}

	/**
	 * Selects the next row (`dir` 1) or previous one (-1) after the selection whose text matches
	 * `query` (see {@link searchMatcher}), wrapping around; `includeSelected` starts at the
	 * selection itself. Returns whether one was found.
	 */
	search(query: string, dir: 1 | -1, includeSelected = false): boolean {
		const count = this.rows.length;
		if (query === "" || count === 0) return false;
		const matches = rowMatcher(query);
		const texts = this.searchTexts;
		// The texts not made yet are made now, their bodies read in batches: else each row
		// without one would read its own body (one read each).
		if (texts && !texts.done) texts.fill(() => false);
		// Each row's id from the kept layout's keys (`rowKey` on every row would cost more than the search).
		const { keys } = this.base;
		const baseRows = texts ? this.baseRows() : undefined;
		const start = includeSelected ? this.selected : this.selected + dir;
		for (let k = 0; k < count; k++) {
			const i = (((start + dir * k) % count) + count) % count;
			const row = this.rows[i];
			const at = baseRows ? (baseRows[i] as number) : i;
			const id = texts && at >= 0 ? keys[at] : undefined;
			if (row && matches(row, id === undefined ? undefined : texts?.lowered(id))) {
				this.selected = i;
				return true;
			}
		}
		return false;
	}

	/** Scrolls so that the selection is on a screen of `height` rows (with a row of context). */
	scrollIntoView(height: number): void {
		const rows = this.rows.length;
		if (height <= 0 || rows === 0) {
			this.top = 0;
			return;
		}
		const margin = height >= 5 ? 1 : 0;
		if (this.selected - margin < this.top) this.top = this.selected - margin;
		if (this.selected + margin >= this.top + height) this.top = this.selected + margin - height + 1;
		this.top = Math.max(0, Math.min(this.top, rows - height));
	}

	/** Scrolls so that the selection is in the middle of a screen of `height` rows. */
	center(height: number): void {
		this.top = this.selected - Math.floor(height / 2);
		this.scrollIntoView(height);
	}
}
