/**
 * The session tree as box-drawing text, one line per entry:
 *
 * ```
 * Session: fix the CI
 * 1a2b3c4d user: Our CI fails on Node 16…
 * 5e6f7a8b assistant: structuredClone became a global in Node 17…
 * ├── 9c0d1e2f user: Also add a polyfill
 * │   3a4b5c6d assistant: Added core-js… [polyfill]
 * └── • 7e8f9a0b user: Instead, declare engines.node >= 20
 *     • 1c2d3e4f assistant: Added "engines"…  ← leaf
 * ```
 *
 * Indentation grows only where the tree forks: an only child is printed at its parent's
 * indentation, so a 5,000-entry chain stays 5,000 short lines. Siblings get `├──`/`└──`.
 * Below a fork, the entries of the active path (root → leaf) carry a `•` so that the chosen
 * branch shows without colour; above the first fork every entry is on every path.
 * The walk is iterative: no depth can overflow the stack.
 *
 * Options add what pi's `/tree` selector has: its filters (hidden entries' children move up
 * to the nearest shown ancestor), a subtree (`from`), a depth limit (`… N more`), folding of
 * long straight runs (`┆ … 37 entries …`), a width to fit each line to, and colours.
 */

import type { SessionTreeNode } from "../core/types.js";
import { isObject } from "../core/validate.js";
import { kindStyle, lineWriter, type Segment } from "./color.js";
import { DEFAULT_PREVIEW_LENGTH, describeEntry, groupDigits, oneLine, oneLineToWidth, sanitize } from "./preview.js";
import { displayWidth, type Style, truncateToWidth } from "./terminal.js";

/** pi's `/tree` filters, see {@link treeFilterShows}. */
export type TreeFilter = "default" | "no-tools" | "user-only" | "labeled-only" | "all";

/** Every {@link TreeFilter}, in pi's order. */
export const TREE_FILTERS: readonly TreeFilter[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

/** Options of {@link renderTree}. */
export interface TreeTextOptions {
	/** The entry to mark as the leaf; the active path runs from the root to it. */
	leafId?: string | null;
	/** Printed on the first line when set. */
	sessionName?: string;
	/** Preview length in characters. Default 60, or what `width` leaves room for. */
	previewLength?: number;
	/**
	 * Widest indentation in characters (a multiple of 4). Deeper levels are cut off on the left
	 * and marked with `… `. Default 64 (16 nested forks), at most half of `width`.
	 */
	maxIndent?: number;
	/** Marker after the leaf's line. Default `← leaf`. */
	leafMarker?: string;
	/** Text for a tree without entries. Default `(empty)`. */
	emptyText?: string;
	/** Show only what this pi `/tree` filter shows. Default: every entry. */
	filter?: TreeFilter;
	/** Show only the subtree of this entry (a full id). */
	from?: string;
	/** Show this many levels below the start (the roots or `from`); deeper ones become `… N more`. */
	depth?: number;
	/** Fold straight runs of more than `foldLimit` entries to their first and last two. */
	fold?: boolean;
	/** Longest straight run left unfolded. Default 6. */
	foldLimit?: number;
	/** Fit every line into this many terminal columns (the preview gets the room left). */
	width?: number;
	/** Colour by role, the active path in bold (ANSI). Default false. */
	color?: boolean;
	/** Put `•` before active-path entries below a fork. Default true. */
	markActivePath?: boolean;
}

interface Pending {
	view: SessionTreeNode;
	/** Printed before the entry: the indentation and the connector. */
	linePrefix: string;
	/** Indentation of the lines below this entry. */
	childPrefix: string;
	/** Levels below the start. */
	depth: number;
}

const BRANCH = "├── ";
const LAST = "└── ";
const PIPE = "│   ";
const SPACE = "    ";
const ACTIVE = "• ";
const DEFAULT_FOLD_LIMIT = 6;

function hasText(content: unknown): boolean {
	if (typeof content === "string") return content.trim().length > 0;
	if (!Array.isArray(content)) return false;
	return content.some(
		(block) =>
			isObject(block) && block.type === "text" && typeof block.text === "string" && block.text.trim().length > 0,
	);
}

const SETTINGS_TYPES = new Set(["label", "custom", "model_change", "thinking_level_change", "session_info"]);

/**
 * Whether pi's `/tree` selector shows an entry under a filter (pi-coding-agent's
 * tree-selector `applyFilter`). In every mode, assistant messages without text (only tool
 * calls) are hidden unless they stopped with an error or were aborted, or are the leaf.
 * - `default`: everything but settings entries (label, custom, model_change,
 *   thinking_level_change, session_info);
 * - `no-tools`: `default` without tool results;
 * - `user-only`: user messages;
 * - `labeled-only`: entries with a label;
 * - `all`: everything.
 */
export function treeFilterShows(node: SessionTreeNode, filter: TreeFilter, leafId?: string | null): boolean {
	const { entry } = node;
	const message = entry.type === "message" ? entry.message : undefined;
	const role = message?.role;
	if (message?.role === "assistant" && entry.id !== leafId) {
		const stop = message.stopReason;
		const errorOrAborted = !!stop && stop !== "stop" && stop !== "toolUse";
		if (!hasText(message.content) && !errorOrAborted) return false;
	}
	switch (filter) {
		case "user-only":
			return role === "user";
		case "no-tools":
			return !SETTINGS_TYPES.has(entry.type) && role !== "toolResult";
		case "labeled-only":
			return node.label !== undefined;
		case "all":
			return true;
		default:
			return !SETTINGS_TYPES.has(entry.type);
	}
}

/** Every node by id, found without recursion. */
function indexNodes(roots: readonly SessionTreeNode[]): Map<string, SessionTreeNode> {
	const byId = new Map<string, SessionTreeNode>();
	const stack = [...roots];
	for (let node = stack.pop(); node; node = stack.pop()) {
		byId.set(node.entry.id, node);
		for (const child of node.children) stack.push(child);
	}
	return byId;
}

/**
 * The tree as pi's `/tree` shows it under `filter`: the shown entries, each with its shown
 * descendants re-attached to it where hidden entries were between (children stay in order).
 * Returns copies of the nodes; `keep` is shown whatever the filter says. Iterative.
 */
export function filterTree(
	roots: readonly SessionTreeNode[],
	filter: TreeFilter,
	options: { leafId?: string | null; keep?: string } = {},
): SessionTreeNode[] {
	return buildView(roots, (node) => treeFilterShows(node, filter, options.leafId), options.keep).roots;
}

/** The shown tree below `starts` (copies), and the ids shown; `always` is shown whatever `show` says. */
function buildView(
	starts: readonly SessionTreeNode[],
	show: ((node: SessionTreeNode) => boolean) | undefined,
	always: string | undefined,
): { roots: SessionTreeNode[]; shown: Set<string> } {
	const roots: SessionTreeNode[] = [];
	const shown = new Set<string>();
	const stack: Array<{ node: SessionTreeNode; holder: SessionTreeNode | undefined }> = [];
	for (const node of starts.toReversed()) stack.push({ node, holder: undefined });
	for (let item = stack.pop(); item; item = stack.pop()) {
		const { node } = item;
		let holder = item.holder;
		if (!show || node.entry.id === always || show(node)) {
			const copy: SessionTreeNode = { ...node, children: [] };
			(holder ? holder.children : roots).push(copy);
			shown.add(node.entry.id);
			holder = copy;
		}
		const { children } = node;
		for (const child of children.toReversed()) stack.push({ node: child, holder });
	}
	return { roots, shown };
}

/** The one node of a list of children, if there is exactly one. */
function onlyChild(children: readonly SessionTreeNode[]): SessionTreeNode | undefined {
	return children.length === 1 ? children[0] : undefined;
}

/** Number of shown entries below a node. */
function countBelow(view: SessionTreeNode): number {
	let count = 0;
	const stack = [...view.children];
	for (let next = stack.pop(); next; next = stack.pop()) {
		count++;
		for (const child of next.children) stack.push(child);
	}
	return count;
}

/** Ids on the path from the root to `leafId`. */
function activePath(byId: Map<string, SessionTreeNode>, leafId: string | null | undefined): Set<string> {
	const ids = new Set<string>();
	let id = leafId ?? null;
	while (id !== null && !ids.has(id)) {
		const node = byId.get(id);
		if (!node) break;
		ids.add(id);
		id = node.entry.parentId;
	}
	return ids;
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

/** Renders a tree (as {@link SessionTree.getTree} returns it) as lines of text. */
export function renderTreeLines(roots: readonly SessionTreeNode[], options: TreeTextOptions = {}): string[] {
	const width = options.width !== undefined && options.width > 0 ? Math.floor(options.width) : undefined;
	const previewLength = options.previewLength ?? (width === undefined ? DEFAULT_PREVIEW_LENGTH : undefined);
	let maxIndent = options.maxIndent ?? 64;
	if (width !== undefined) maxIndent = Math.min(maxIndent, Math.floor(width / 2));
	maxIndent = Math.max(4, Math.floor(maxIndent / 4) * 4);
	const leafMarker = options.leafMarker ?? "← leaf";
	const leafId = options.leafId ?? null;
	const markActive = options.markActivePath !== false;
	const foldLimit = Math.max(4, options.foldLimit ?? DEFAULT_FOLD_LIMIT);
	const maxDepth = options.depth !== undefined && options.depth >= 0 ? Math.floor(options.depth) : undefined;

	const lines: string[] = [];
	const fit = lineWriter(width, options.color === true);
	if (options.sessionName !== undefined) {
		lines.push(
			fit([
				{ text: "Session: ", styles: ["bold"] },
				{ text: sanitize(options.sessionName), styles: ["bold"] },
			]),
		);
	}

	const byId = options.from !== undefined || leafId !== null ? indexNodes(roots) : new Map<string, SessionTreeNode>();
	const from = options.from === undefined ? undefined : byId.get(options.from);
	const starts: readonly SessionTreeNode[] = options.from === undefined ? roots : from ? [from] : [];
	const filter = options.filter;
	const { roots: view, shown } = buildView(
		starts,
		filter === undefined ? undefined : (node) => treeFilterShows(node, filter, leafId),
		from?.entry.id,
	);
	if (view.length === 0) {
		const empty =
			roots.length > 0 && filter !== undefined
				? `(no entries shown by the ${filter} filter)`
				: (options.emptyText ?? "(empty)");
		lines.push(empty);
		return lines;
	}
	const active = activePath(byId, leafId);
	// A leaf the filter hides is pointed at from its nearest shown ancestor, as pi selects that one.
	let leafShownAt = leafId;
	while (leafShownAt !== null && !shown.has(leafShownAt)) leafShownAt = byId.get(leafShownAt)?.entry.parentId ?? null;
	const leafText = leafShownAt === leafId ? `  ${leafMarker}` : `  ${leafMarker} below (${leafId})`;

	const entryLine = (node: SessionTreeNode, prefix: string): string => {
		const { entry } = node;
		const isActive = active.has(entry.id);
		const bold: Style | undefined = isActive && options.color ? "bold" : undefined;
		const description = describeEntry(entry);
		const kind = sanitize(description.kind);
		const head: Segment[] = [];
		if (prefix) head.push({ text: clip(prefix, maxIndent), styles: ["gray"] });
		if (isActive && markActive && prefix) head.push({ text: ACTIVE, styles: ["cyan", "bold"] });
		head.push({ text: `${entry.id} `, styles: ["gray", bold] });
		head.push({ text: kind, styles: [kindStyle(description.kind), bold] });
		const label = node.label === undefined ? undefined : sanitize(node.label);
		const leafTail = leafShownAt !== null && entry.id === leafShownAt ? leafText : "";
		const tail = (labelText: string | undefined): Segment[] => {
			const segments: Segment[] = [];
			if (labelText !== undefined) segments.push({ text: ` [${labelText}]`, styles: ["yellow", "bold"] });
			if (leafTail) segments.push({ text: leafTail, styles: ["cyan", "bold"] });
			return segments;
		};

		let preview = "";
		let labelText = label;
		if (width === undefined) {
			preview = oneLine(description.text, previewLength);
		} else {
			const headWidth = head.reduce((sum, segment) => sum + displayWidth(segment.text), 0);
			// Room for the preview (after ": ") and the label (in " [...]").
			const room = width - headWidth - displayWidth(leafTail) - 2;
			const cap = previewLength === undefined ? room : Math.min(room, previewLength + 1);
			const full = cap >= 4 ? oneLineToWidth(description.text, cap) : "";
			if (label !== undefined) {
				const labelWidth = displayWidth(label) + 3;
				if (full && labelWidth + displayWidth(full) > room) {
					// Both do not fit: the label keeps a third of the room (or what the preview leaves).
					const budget = Math.max(Math.floor(room / 3), room - displayWidth(full), 8);
					if (labelWidth > budget) labelText = truncateToWidth(label, budget - 3);
				}
				const left = room - displayWidth(labelText ?? "") - 3;
				preview = left >= 4 ? oneLineToWidth(description.text, Math.min(left, cap)) : "";
			} else {
				preview = full;
			}
		}
		const segments = preview
			? [...head, { text: `: ${preview}`, styles: [bold] }, ...tail(labelText)]
			: [...head, ...tail(labelText)];
		return fit(segments);
	};
	const noteLine = (prefix: string, text: string): string => {
		const segments: Segment[] = [];
		if (prefix) segments.push({ text: clip(prefix, maxIndent), styles: ["gray"] });
		segments.push({ text, styles: ["gray"] });
		return fit(segments);
	};

	const stack: Pending[] = [];
	const pushChildren = (children: readonly SessionTreeNode[], prefix: string, depth: number) => {
		const only = onlyChild(children);
		if (only) {
			stack.push({ view: only, linePrefix: prefix, childPrefix: prefix, depth });
			return;
		}
		// Pushed last child first, so that they pop in order.
		for (const [k, child] of children.toReversed().entries()) {
			const last = k === 0;
			stack.push({
				view: child,
				linePrefix: prefix + (last ? LAST : BRANCH),
				childPrefix: prefix + (last ? SPACE : PIPE),
				depth,
			});
		}
	};
	pushChildren(view, "", 0);

	const keep = (node: SessionTreeNode) => node.label !== undefined || node.entry.id === leafShownAt;
	for (let item = stack.pop(); item; item = stack.pop()) {
		const { linePrefix, childPrefix } = item;
		// The straight run starting here: every later entry is its predecessor's only child.
		const run: SessionTreeNode[] = [item.view];
		let depth = item.depth;
		let last = item.view;
		for (
			let next = onlyChild(last.children);
			next && (maxDepth === undefined || depth < maxDepth);
			next = onlyChild(last.children)
		) {
			last = next;
			run.push(last);
			depth++;
		}
		const rows = options.fold ? foldRun(run, foldLimit, keep) : run;
		rows.forEach((row, i) => {
			const prefix = i === 0 ? linePrefix : childPrefix;
			if (typeof row === "number") lines.push(noteLine(prefix, `┆ … ${groupDigits(row)} entries …`));
			else lines.push(entryLine(row, prefix));
		});
		if (last.children.length === 0) continue;
		if (maxDepth !== undefined && depth >= maxDepth) {
			const more = countBelow(last);
			const branches = last.children.length > 1 ? ` in ${last.children.length} branches` : "";
			// The leaf among them: say so, as a filter's hidden leaf is pointed at.
			const leafBelow =
				leafShownAt !== null && active.has(last.entry.id) && last.entry.id !== leafShownAt
					? `  ${leafMarker} below (${leafId})`
					: "";
			lines.push(noteLine(childPrefix, `… ${groupDigits(more)} more${branches}${leafBelow}`));
			continue;
		}
		pushChildren(last.children, childPrefix, depth + 1);
	}
	return lines;
}

/** {@link renderTreeLines} joined, with a final newline. */
export function renderTree(roots: readonly SessionTreeNode[], options: TreeTextOptions = {}): string {
	return `${renderTreeLines(roots, options).join("\n")}\n`;
}

/** Keeps the rightmost `max` characters of an over-deep indentation. */
function clip(prefix: string, max: number): string {
	return prefix.length <= max ? prefix : `… ${prefix.slice(prefix.length - max)}`;
}
