/**
 * The tree sidebar: the rows `session-tree tree` draws (the layout, the filters and the
 * active-path marks all come from render/tree-layout.ts), a filter select with the number of
 * rows each filter shows, folding of a branch at its fork, the active path and the leaf.
 *
 * Up to {@link VIRTUAL_THRESHOLD} rows every row is in the DOM; above it the list is
 * virtual: rows have a fixed height ({@link ROW_HEIGHT}, as the stylesheet sets it) and only
 * those in view (and a few around) exist.
 */

import { viewId, viewParentId } from "../../../core/tree-view.js";
import type { SessionTreeNode } from "../../../core/types.js";
import { countOf, describeEntry, oneLine, sanitize } from "../../preview.js";
import {
	clipPrefix,
	putAwayIds,
	showsActiveMark,
	showsArchived,
	TREE_FILTERS,
	type TreeFilter,
	type TreeLayout,
	type TreeLayoutRow,
	treeFilterShows,
} from "../../tree-layout.js";
import { LeafLayout } from "../../tree-leaf.js";
import { el } from "./dom.js";
import { groupDigits } from "./format.js";

/** Records how long the layout took (`session-tree:layout`), for `npm run bench`. */
function measureLayout(started: number): void {
	performance.clearMeasures("session-tree:layout");
	performance.measure("session-tree:layout", { start: started, end: performance.now() });
}

/** More rows than this are virtualised. */
export const VIRTUAL_THRESHOLD = 2000;
/** The height of a row in pixels (the stylesheet's `--row-height`). */
export const ROW_HEIGHT = 22;
/** Rows rendered above and below the visible ones. */
const OVERSCAN = 12;
/** Characters of indentation shown (3 nested forks) before it is cut on the left, marked `«N» ` with the depth: the sidebar is narrow, and deep trees (a 100k session nests dozens of forks) would leave no room for the preview. */
const MAX_INDENT = 12;
/** Characters of a row's preview. */
const PREVIEW = 60;

/** What the sidebar reads of the session. */
export interface SidebarSource {
	readonly roots: readonly SessionTreeNode[];
	/** Every node by id. */
	readonly nodes: ReadonlyMap<string, SessionTreeNode>;
}

/** The tree sidebar. */
export class Sidebar {
	/** The `aside` holding the filter select and the rows. */
	readonly element: HTMLElement;
	/** `select[data-role="filter"]`. */
	readonly select: HTMLSelectElement;
	private readonly list: HTMLElement;
	private readonly spacer: HTMLElement;
	private readonly source: SidebarSource;
	private readonly onSelect: (id: string) => void;
	private filter: TreeFilter = "default";
	private readonly collapsed = new Set<string>();
	private leafId: string | null = null;
	private currentId: string | null = null;
	private layout: TreeLayout | undefined;
	/** The layout kept for changes of the leaf (made again for a filter or a fold). */
	private kept: LeafLayout | undefined;
	/** Row index by entry id, for the current layout: built only when a row is looked for that is not shown (see {@link rowIndex}). */
	private rowOf: Map<string, number> | undefined;
	/** Whether a row was looked for in the current layout (see {@link rowIndex}). */
	private looked = false;
	private virtual = false;
	private frame = 0;
	/** The first and last row rendered (virtual mode). */
	private rendered: [number, number] = [0, -1];
	/**
	 * Where a draw left the list to be scrolled (virtual mode), until {@link applyScroll} scrolls
	 * it: a scroll position written makes the page lay out, so a caller that changes other panes
	 * in the same change writes them first and then scrolls, and the page lays out once.
	 */
	private scrollTarget: number | undefined;

	constructor(source: SidebarSource, onSelect: (id: string) => void) {
		this.source = source;
		this.onSelect = onSelect;
		this.select = el("select", { attrs: { "data-role": "filter", "aria-label": "Tree filter" } });
		for (const filter of TREE_FILTERS) this.select.append(el("option", { attrs: { value: filter }, text: filter }));
		this.select.value = this.filter;
		this.select.addEventListener("change", () => {
			const chosen = TREE_FILTERS.find((filter) => filter === this.select.value);
			if (chosen) this.setFilter(chosen);
		});
		this.spacer = el("div", { class: "tree-rows" });
		this.list = el(
			"div",
			{ class: "tree", attrs: { "data-role": "tree", role: "tree", "aria-label": "Session tree", tabindex: "-1" } },
			this.spacer,
		);
		this.list.addEventListener("scroll", () => {
			if (!this.virtual || this.frame !== 0) return;
			this.frame = requestAnimationFrame(() => {
				this.frame = 0;
				this.renderWindow();
			});
		});
		this.element = el(
			"aside",
			{ class: "sidebar" },
			el("div", { class: "sidebar-head" }, el("label", { class: "filter-label" }, "Filter ", this.select)),
			this.list,
		);
	}

	/**
	 * Shows the tree with `leafId` as the leaf and `currentId` highlighted; lays out again only
	 * when needed. A large (virtual) tree reads its scroll position first and writes its rows for
	 * where it will be scrolled, but leaves the scroll itself to {@link applyScroll} (at the
	 * latest in a microtask, once the caller's code has run): call this before writing other
	 * parts of the page, and `applyScroll` after.
	 */
	setSelection(leafId: string | null, currentId: string | null): void {
		const leafChanged = leafId !== this.leafId || this.layout === undefined;
		this.leafId = leafId;
		this.currentId = currentId;
		if (leafChanged) {
			this.updateCounts();
			if (this.kept) this.changeLeaf(leafId, this.kept);
			else this.relayout(true);
		} else {
			this.refreshRows();
			this.reveal(currentId ?? leafId);
		}
	}

	/** Shows what `filter` shows. */
	setFilter(filter: TreeFilter): void {
		this.filter = filter;
		this.select.value = filter;
		this.relayout(true);
	}

	/** Folds or unfolds the branches below an entry. */
	toggleFold(id: string): void {
		if (this.collapsed.has(id)) this.collapsed.delete(id);
		else this.collapsed.add(id);
		this.relayout(false);
	}

	/** The number of rows of the current layout. */
	get rowCount(): number {
		return this.layout?.rows.length ?? 0;
	}

	/** Rows of each filter without a leaf: only the leaf's own row can differ (see treeFilterShows). */
	private baseCounts: Map<TreeFilter, number> | undefined;
	/** Whether the base counts are being computed (after the first render, when the page is idle). */
	private countsPending = false;

	/**
	 * Writes the number of rows of each filter into its option. The counts go over every node
	 * (every filter's rule for each), which the first render does not wait for: they are
	 * computed once, when the page is next idle, and the options show the bare filter names
	 * until then.
	 */
	private updateCounts(): void {
		if (!this.baseCounts) {
			if (this.countsPending) return;
			this.countsPending = true;
			const compute = () => {
				this.baseCounts = this.computeBaseCounts();
				this.updateCounts();
			};
			whenIdle(compute);
			return;
		}
		const leaf = this.leafId === null ? undefined : this.source.nodes.get(this.leafId);
		for (const option of this.select.options) {
			const filter = option.value as TreeFilter;
			let count = this.baseCounts.get(filter) ?? 0;
			if (leaf && treeFilterShows(leaf, filter, this.leafId) && !treeFilterShows(leaf, filter, null)) count++;
			option.textContent = `${filter} (${groupDigits(count)})`;
		}
	}

	private computeBaseCounts(): Map<TreeFilter, number> {
		const base = new Map<TreeFilter, number>(TREE_FILTERS.map((filter) => [filter, 0]));
		// Archived branches count only where they are shown (the `all` filter).
		const away = putAwayIds(this.source.roots);
		for (const node of this.source.nodes.values()) {
			const hidden = away.has(viewId(node));
			for (const filter of TREE_FILTERS) {
				if (hidden && !showsArchived(filter)) continue;
				if (treeFilterShows(node, filter, null)) base.set(filter, (base.get(filter) ?? 0) + 1);
			}
		}
		return base;
	}

	/** Lays the tree out afresh (a filter or a fold changed) and draws it. */
	private relayout(reveal: boolean): void {
		const started = performance.now();
		this.kept = new LeafLayout(this.source.roots, {
			leafId: this.leafId,
			filter: this.filter,
			collapsed: this.collapsed,
		});
		this.layout = this.kept.layout;
		// The layout's share of a filter or fold change, for `npm run bench`.
		measureLayout(started);
		this.draw(reveal);
		// What the first leaf change would read (indexes of 100,000 nodes, 8–9 ms), made when the
		// page is next idle.
		const kept = this.kept;
		whenIdle(() => {
			if (this.kept === kept) kept.prepare();
		});
	}

	/**
	 * Another leaf: the kept layout updates the rows that change (the marks, the rows the filter
	 * shows or hides with the leaf), then the rows are drawn.
	 */
	private changeLeaf(leafId: string | null, kept: LeafLayout): void {
		const started = performance.now();
		this.layout = kept.setLeaf(leafId);
		// The layout's share of a leaf change, for `npm run bench`.
		measureLayout(started);
		this.draw(true);
	}

	/** Draws the rows of the current layout, keeping the scroll position (or moving it to the current row, with `reveal`). */
	private draw(reveal: boolean): void {
		if (!this.layout) return;
		// Read before anything is written: a read after a write lays the page out again.
		const scrollTop = this.list.scrollTop;
		const height = this.list.clientHeight;
		this.rowOf = undefined;
		this.looked = false;
		this.virtual = this.layout.rows.length > VIRTUAL_THRESHOLD;
		this.spacer.replaceChildren();
		this.spacer.classList.toggle("virtual", this.virtual);
		if (this.layout.rows.length === 0) {
			this.spacer.style.height = "";
			const text = this.source.roots.length === 0 ? "(empty)" : `(no entries shown by the ${this.filter} filter)`;
			this.spacer.append(el("div", { class: "tree-empty", text }));
			return;
		}
		if (this.virtual) {
			const rowsHeight = this.layout.rows.length * ROW_HEIGHT;
			this.spacer.style.height = `${rowsHeight}px`;
			// Where the browser puts a scroll position: within the list's scroll range.
			const within = (top: number) => Math.max(0, Math.min(top, rowsHeight - height));
			let top = within(scrollTop);
			if (reveal) top = within(this.revealedTop(this.currentId ?? this.leafId, top, height) ?? top);
			this.rendered = [0, -1];
			this.renderRows(top, height);
			this.scrollLater(top);
		} else {
			this.spacer.style.height = "";
			const fragment = document.createDocumentFragment();
			this.layout.rows.forEach((row, i) => {
				fragment.append(this.rowElement(row, i));
			});
			this.spacer.append(fragment);
			this.list.scrollTop = scrollTop;
			if (reveal) this.reveal(this.currentId ?? this.leafId);
		}
	}

	/** Renders the rows in view (virtual mode), as the list is scrolled now. */
	private renderWindow(): void {
		this.renderRows(this.list.scrollTop, this.list.clientHeight);
	}

	/** Renders the rows in view (virtual mode) when the list is scrolled to `scrollTop` and `height` tall. */
	private renderRows(scrollTop: number, height: number): void {
		const layout = this.layout;
		if (!layout || !this.virtual) return;
		const shown = height || 600;
		const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
		const last = Math.min(layout.rows.length - 1, Math.ceil((scrollTop + shown) / ROW_HEIGHT) + OVERSCAN);
		if (first === this.rendered[0] && last === this.rendered[1]) return;
		this.rendered = [first, last];
		const fragment = document.createDocumentFragment();
		for (let i = first; i <= last; i++) {
			const row = layout.rows[i];
			if (!row) continue;
			const node = this.rowElement(row, i);
			node.style.top = `${i * ROW_HEIGHT}px`;
			fragment.append(node);
		}
		this.spacer.replaceChildren(fragment);
	}

	/** Leaves the list to be scrolled to `top` by {@link applyScroll}, or in a microtask if no one calls it. */
	private scrollLater(top: number): void {
		const pending = this.scrollTarget !== undefined;
		this.scrollTarget = top;
		if (!pending) queueMicrotask(() => this.applyScroll());
	}

	/** Scrolls the list where the last draw left it to be (see {@link setSelection}). */
	applyScroll(): void {
		const top = this.scrollTarget;
		if (top === undefined) return;
		this.scrollTarget = undefined;
		this.list.scrollTop = top;
	}

	/** Updates the marks of the rows in the DOM (the layout is unchanged). */
	private refreshRows(): void {
		for (const node of this.spacer.querySelectorAll<HTMLElement>("[data-tree-id]")) {
			const id = node.getAttribute("data-tree-id");
			node.classList.toggle("current", id !== null && id === this.currentId);
		}
	}

	/** Scrolls the row of an entry (or of its nearest shown ancestor) into view. */
	reveal(id: string | null): void {
		const layout = this.layout;
		if (!layout || id === null) return;
		if (this.virtual) {
			// A scroll left for later is where the list is, as far as the rows go.
			const scrollTop = this.scrollTarget ?? this.list.scrollTop;
			const height = this.list.clientHeight;
			const top = this.revealedTop(id, scrollTop, height);
			if (top !== undefined) {
				this.renderRows(top, height);
				this.scrollLater(top);
			}
			return;
		}
		const index = this.shownRow(id, layout);
		if (index === undefined) return;
		const height = this.list.clientHeight;
		const node = this.spacer.children[index];
		if (node instanceof HTMLElement && height > 0) {
			const rowTop = node.offsetTop;
			if (rowTop < this.list.scrollTop || rowTop + node.offsetHeight > this.list.scrollTop + height) {
				this.list.scrollTop = Math.max(0, rowTop - height / 2);
			}
		}
	}

	/**
	 * Virtual mode: where the list must be scrolled for the row of an entry (or of its nearest
	 * shown ancestor) to be in view, when it is scrolled to `scrollTop` and `height` tall; undefined
	 * when the row is in view already, or no row stands for the entry.
	 */
	private revealedTop(id: string | null, scrollTop: number, height: number): number | undefined {
		const layout = this.layout;
		if (!layout || id === null) return undefined;
		const index = this.shownRow(id, layout);
		if (index === undefined) return undefined;
		const top = index * ROW_HEIGHT;
		if (top >= scrollTop && top + ROW_HEIGHT <= scrollTop + height) return undefined;
		return Math.max(0, top - height / 2);
	}

	/** The row of an entry, or of its nearest shown ancestor. */
	private shownRow(id: string, layout: TreeLayout): number | undefined {
		let at: string | null = id;
		let index = this.rowIndex(at, layout);
		// Up the parents to a shown one; a walk longer than the tree went round (parent ids in a
		// circle), and nothing is revealed.
		for (let steps = 0; index === undefined && at !== null && steps <= this.source.nodes.size; steps++) {
			const node = this.source.nodes.get(at);
			at = node ? viewParentId(node) : null;
			index = at === null ? undefined : this.rowIndex(at, layout);
		}
		return index;
	}

	/**
	 * The row of an entry in the layout, or undefined when it is not shown: one scan of the rows
	 * for the first look (a leaf change reveals a row that is shown), an index by id from the
	 * second look on (moving along the path with the keys looks once per key).
	 */
	private rowIndex(id: string, layout: TreeLayout): number | undefined {
		if (this.rowOf === undefined) {
			const rows = layout.rows;
			// The rows drawn first: a leaf chosen in the sidebar is among them (a leaf change keeps
			// the scroll position), and a scan of every row was 10–13 ms of such a change at
			// 98,000 rows.
			if (this.virtual) {
				const [first, last] = this.rendered;
				for (let i = first; i <= last && i < rows.length; i++) {
					const row = rows[i] as TreeLayoutRow;
					if (row.kind === "entry" && viewId(row.node) === id) return i;
				}
			}
			if (!this.looked) {
				this.looked = true;
				for (let i = 0; i < rows.length; i++) {
					const row = rows[i] as TreeLayoutRow;
					if (row.kind === "entry" && viewId(row.node) === id) return i;
				}
			}
			this.rowOf = new Map();
			for (let i = 0; i < rows.length; i++) {
				const row = rows[i] as TreeLayoutRow;
				if (row.kind === "entry") this.rowOf.set(viewId(row.node), i);
			}
		}
		return this.rowOf.get(id);
	}

	private rowElement(row: TreeLayoutRow, index: number): HTMLElement {
		const layout = this.layout as TreeLayout;
		const clipped = row.prefix.length > MAX_INDENT;
		const prefix =
			row.prefix === ""
				? null
				: el("span", {
						class: "prefix",
						text: clipPrefix(row.prefix, MAX_INDENT),
						attrs: clipped ? { title: `${Math.ceil(row.prefix.length / 4)} levels deep (indentation capped)` } : {},
					});
		if (row.kind !== "entry") {
			const text =
				row.kind === "fold"
					? `┆ … ${countOf(row.count, "entry")} …`
					: `… ${groupDigits(row.count)} more${row.branches > 1 ? ` in ${countOf(row.branches, "branch")}` : ""}${row.leafBelow ? `  ← leaf below (${this.leafId})` : ""}`;
			const node = el(
				"div",
				{ class: `row note ${row.kind}`, attrs: { "data-row": String(index) } },
				prefix,
				el("span", { class: "gutter" }),
			);
			if (row.kind === "more") {
				const parentId = row.parentId;
				const open = el("button", { class: "unfold", attrs: { type: "button", title: "Show these entries" }, text });
				open.addEventListener("click", () => this.toggleFold(parentId));
				node.append(open);
			} else node.append(el("span", { class: "note-text", text }));
			return node;
		}
		const { entry } = row.node;
		const id = entry.id;
		const description = describeEntry(entry);
		const kind = sanitize(description.kind);
		const onPath = layout.active.has(id);
		const node = el("div", {
			class: `row k-${kind.replace(/[^A-Za-z0-9_-]/g, "-")}`,
			attrs: { "data-tree-id": id, "data-row": String(index), role: "treeitem", title: id },
		});
		if (onPath) node.setAttribute("data-on-path", "true");
		// The leaf's row, or the row that stands for it when the filter hides it.
		if (id === layout.leafShownAt) node.setAttribute("aria-selected", "true");
		if (id === this.currentId) node.classList.add("current");
		node.append(prefix ?? "");
		// A gutter on every row, so that a fork's fold button does not shift its text.
		const gutter = el("span", { class: "gutter" });
		node.append(gutter);
		if (row.children > 1 || row.collapsed) {
			const fold = el("button", {
				class: "fold",
				attrs: {
					type: "button",
					"aria-expanded": row.collapsed ? "false" : "true",
					title: row.collapsed ? "Unfold the branches below" : "Fold the branches below",
				},
				text: row.collapsed ? "▸" : "▾",
			});
			fold.addEventListener("click", (event) => {
				event.stopPropagation();
				this.toggleFold(id);
			});
			gutter.append(fold);
		}
		if (showsActiveMark(row, layout.active)) node.append(el("span", { class: "mark", text: "• " }));
		node.append(el("span", { class: "rid", text: `${id} ` }), el("span", { class: "rkind", text: kind }));
		const preview = oneLine(description.text, PREVIEW);
		if (preview !== "") node.append(el("span", { class: "rtext", text: `: ${preview}` }));
		if (row.node.label !== undefined)
			node.append(el("span", { class: "rlabel", text: ` [${sanitize(row.node.label)}]` }));
		if (layout.leafShownAt !== null && id === layout.leafShownAt) {
			const below = layout.leafShownAt === this.leafId ? "" : ` below (${this.leafId})`;
			node.append(el("span", { class: "rleaf", text: `  ← leaf${below}` }));
		}
		node.addEventListener("click", () => this.onSelect(id));
		return node;
	}
}

/** Runs `work` when the page is next idle (within a second), or soon where there is no idle callback. */
function whenIdle(work: () => void): void {
	if (typeof requestIdleCallback === "function") requestIdleCallback(work, { timeout: 1000 });
	else setTimeout(work, 0);
}
