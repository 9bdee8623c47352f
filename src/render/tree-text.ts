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
 *
 * Which rows there are and how they are indented and marked is decided in `tree-layout.ts`,
 * which the HTML export's sidebar draws from too; this module turns the rows into text.
 */

import { peekViewEntries, viewId } from "../core/tree-view.js";
import type { SessionEntry, SessionTreeNode } from "../core/types.js";
import { kindStyle, lineWriter, type Segment } from "./color.js";
import {
	countOf,
	DEFAULT_PREVIEW_LENGTH,
	describeEntry,
	groupDigits,
	oneLine,
	oneLineToWidth,
	sanitize,
} from "./preview.js";
import { displayWidth, type Style, truncateToWidth } from "./terminal.js";
import {
	decideAssistantsShown,
	layoutTree,
	showsActiveMark,
	type TreeEntryRow,
	type TreeFilter,
	type TreeLayoutRow,
} from "./tree-layout.js";

// The layout (which rows, their prefixes, the filters) is in tree-layout.ts, shared with the
// HTML export; these names are part of this module's interface as before.
export { filterTree, TREE_FILTERS, type TreeFilter, treeFilterShows } from "./tree-layout.js";

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
	/**
	 * Read each entry without keeping its body in the tree (see `peekViewEntry`): a session
	 * read lazily then holds one body at a time instead of every one, for a tree printed once
	 * (`session-tree tree`); printed again, it parses them again. Default false.
	 */
	transient?: boolean;
	/**
	 * Previews made elsewhere (`session-tree tree` makes most of them in a second thread), used
	 * for plain lines (no `width`, no `color`) when made at the preview length those lines use.
	 */
	previews?: TreePreviews;
}

/**
 * The kind and preview of entry rows, made from their bodies elsewhere: for a node, exactly
 * what {@link describeEntry} and {@link oneLine} at `previewLength` make of its entry, or
 * undefined for a row this module is to read itself.
 */
export interface TreePreviews {
	/** The preview length the previews were cut to. */
	readonly previewLength: number;
	/** The kind (not sanitized yet) and the one-line preview of the node's entry, if made. */
	previewOf(node: SessionTreeNode): { kind: string; preview: string } | undefined;
}

const ACTIVE = "• ";

/** Renders a tree (as {@link SessionTree.getTree} returns it) as lines of text. */
export function renderTreeLines(roots: readonly SessionTreeNode[], options: TreeTextOptions = {}): string[] {
	const lines: string[] = [];
	// A transient line may hold a view of a body's text (a preview cut from it): a line of its
	// own (flattened, then cut) lets the body go once the line is made.
	const flatten = options.transient === true;
	renderRows(roots, options, (line) => {
		lines.push(flatten ? ` ${line}`.slice(1) : line);
	});
	return lines;
}

/**
 * Lines per piece of {@link renderTreePieces}: a piece of 128 lines (about 40 KB) is made in the
 * young generation; one of 2,048 (650 KB of two-byte text) was a large object in new memory each
 * time, and its join took five times as long.
 */
const PIECE_LINES = 128;

/**
 * {@link renderTree}'s text in pieces, one after the other (each a run of whole lines, each
 * line ended by a newline): what `session-tree tree` writes, a piece at a time, instead of
 * one string of every line (and an array of 100,000 lines before it).
 */
export function renderTreePieces(roots: readonly SessionTreeNode[], options: TreeTextOptions = {}): string[] {
	return renderTreeParts(roots, options, (text) => text);
}

/**
 * {@link renderTreePieces} encoded as UTF-8, each piece as soon as it is made: what `session-tree
 * tree` holds until every line is made (so that an error prints nothing). Bytes lie outside the
 * JavaScript heap, where the collector does not copy them: held as text, s100k's 16 MB of
 * output were 32 MB of two-byte strings that every young collection copied on towards the old
 * generation, then flattened again to be written (1.66–1.91 s against 1.84–2.18 s for the tree,
 * 221–227 MB against 239–244 MB, five alternating runs).
 */
export function renderTreeBytes(roots: readonly SessionTreeNode[], options: TreeTextOptions = {}): Uint8Array[] {
	// Buffer.from, not TextEncoder: 35 against 53 ms for 16 MB of such pieces here.
	return renderTreeParts(roots, options, (text) => Buffer.from(text, "utf8"));
}

/** The pieces of the tree's text (runs of {@link PIECE_LINES} whole lines), each made by `make`. */
function renderTreeParts<T>(
	roots: readonly SessionTreeNode[],
	options: TreeTextOptions,
	make: (text: string) => T,
): T[] {
	const pieces: T[] = [];
	let lines: string[] = [];
	const flush = () => {
		// Each line ended by a newline: the empty last line gives the last one. A join makes
		// one flat string, so no line of it keeps a view of a body's text.
		lines.push("");
		pieces.push(make(lines.join("\n")));
		lines = [];
	};
	renderRows(roots, options, (line) => {
		lines.push(line);
		if (lines.length === PIECE_LINES) flush();
	});
	if (lines.length > 0) flush();
	return pieces;
}

/**
 * Rows whose entries are read together (one pass over the store for a transient tree): the
 * bodies of a batch are alive together, so a small one keeps what the garbage collector copies small.
 */
const ENTRY_BATCH = 256;

/** Renders the tree's lines, each given to `emit` in order. */
function renderRows(roots: readonly SessionTreeNode[], options: TreeTextOptions, emit: (line: string) => void): void {
	const width = options.width !== undefined && options.width > 0 ? Math.floor(options.width) : undefined;
	const previewLength = options.previewLength ?? (width === undefined ? DEFAULT_PREVIEW_LENGTH : undefined);
	let maxIndent = options.maxIndent ?? 64;
	if (width !== undefined) maxIndent = Math.min(maxIndent, Math.floor(width / 2));
	maxIndent = Math.max(4, Math.floor(maxIndent / 4) * 4);
	const leafMarker = options.leafMarker ?? "← leaf";
	const leafId = options.leafId ?? null;
	const markActive = options.markActivePath !== false;
	const color = options.color === true;

	const fit = lineWriter(width, color);
	if (options.sessionName !== undefined) {
		emit(
			fit([
				{ text: "Session: ", styles: ["bold"] },
				{ text: sanitize(options.sessionName), styles: ["bold"] },
			]),
		);
	}

	const filter = options.filter;
	// The filter's rule for assistant messages from their bytes, in one pass: the bodies of the
	// rows it hides are never parsed (those it shows are, below, for their previews).
	if (filter !== undefined) decideAssistantsShown(roots, options.from);
	// Prefixes come clipped to `maxIndent` (see clipPrefix): whole ones can be thousands of
	// characters long below deep forks.
	const { rows, active, leafShownAt, activePath } = layoutTree(roots, {
		leafId,
		...(filter !== undefined ? { filter } : {}),
		...(options.from !== undefined ? { from: options.from } : {}),
		...(options.depth !== undefined ? { depth: options.depth } : {}),
		...(options.fold !== undefined ? { fold: options.fold } : {}),
		...(options.foldLimit !== undefined ? { foldLimit: options.foldLimit } : {}),
		maxIndent,
	});
	if (rows.length === 0) {
		const empty =
			roots.length > 0 && filter !== undefined
				? `(no entries shown by the ${filter} filter)`
				: (options.emptyText ?? "(empty)");
		emit(empty);
		return;
	}
	// Ids are data too (a file may hold any string as one): sanitized like the rest.
	const leafBelow = `  ${leafMarker} below (${sanitize(String(leafId))})`;
	const leafText = leafShownAt === leafId ? `  ${leafMarker}` : leafBelow;

	const tails = (node: SessionTreeNode, id: string) => ({
		label: node.label === undefined ? undefined : sanitize(node.label),
		leafTail: leafShownAt !== null && id === leafShownAt ? leafText : "",
		// The first entry of an archived branch, where `--filter all` shows it.
		archivedTail: node.archived === true ? " (archived)" : "",
	});
	// Plain text (no width, no colour): the segments below, joined, without making them.
	const plain = width === undefined && !color;
	const plainLine = (
		node: SessionTreeNode,
		id: string,
		kind: string,
		preview: string,
		prefix: string,
		marked: boolean,
	) => {
		const { label, leafTail, archivedTail } = tails(node, id);
		return (
			prefix +
			(marked && markActive ? ACTIVE : "") +
			`${sanitize(id)} ${sanitize(kind)}` +
			(preview ? `: ${preview}` : "") +
			(label !== undefined ? ` [${label}]` : "") +
			archivedTail +
			leafTail
		);
	};
	const entryLine = (node: SessionTreeNode, entry: SessionEntry, prefix: string, marked: boolean): string => {
		const description = describeEntry(entry);
		if (plain)
			return plainLine(node, entry.id, description.kind, oneLine(description.text, previewLength), prefix, marked);
		const kind = sanitize(description.kind);
		const { label, leafTail, archivedTail } = tails(node, entry.id);
		const bold: Style | undefined = color && active.has(entry.id) ? "bold" : undefined;
		const head: Segment[] = [];
		if (prefix) head.push({ text: prefix, styles: ["gray"] });
		if (marked && markActive) head.push({ text: ACTIVE, styles: ["cyan", "bold"] });
		head.push({ text: `${sanitize(entry.id)} `, styles: ["gray", bold] });
		head.push({ text: kind, styles: [kindStyle(description.kind), bold] });
		const tail = (labelText: string | undefined): Segment[] => {
			const segments: Segment[] = [];
			if (labelText !== undefined) segments.push({ text: ` [${labelText}]`, styles: ["yellow", "bold"] });
			if (archivedTail) segments.push({ text: archivedTail, styles: ["gray"] });
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
			const room = width - headWidth - displayWidth(leafTail) - archivedTail.length - 2;
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
		if (prefix) segments.push({ text: prefix, styles: ["gray"] });
		segments.push({ text, styles: ["gray"] });
		return fit(segments);
	};
	// A row on the active path, asked of each row once, top to bottom: by the path's nodes when
	// the layout gives them (they come in the rows in the path's order), else by id.
	let nextOnPath = 0;
	const marks = (row: TreeEntryRow): boolean => {
		if (activePath === undefined) return showsActiveMark(row, active);
		if (row.node !== activePath[nextOnPath]) return false;
		nextOnPath++;
		return row.prefix !== "";
	};
	const transient = options.transient === true;
	const previews = plain && options.previews?.previewLength === previewLength ? options.previews : undefined;
	const batch: SessionTreeNode[] = [];
	// The previews made elsewhere for the rows of a batch, by row (see TreePreviews).
	const made: Array<{ kind: string; preview: string } | undefined> = [];
	for (let from = 0; from < rows.length; from += ENTRY_BATCH) {
		const to = Math.min(rows.length, from + ENTRY_BATCH);
		// Transient: the bodies of these rows read in one pass, none kept in the tree (but those
		// of the rows whose previews were made elsewhere).
		batch.length = 0;
		made.length = 0;
		for (let i = from; i < to; i++) {
			const row = rows[i] as TreeLayoutRow;
			if (row.kind !== "entry") continue;
			const preview = previews?.previewOf(row.node);
			made[i - from] = preview;
			if (transient && !preview) batch.push(row.node);
		}
		const entries = transient ? peekViewEntries(batch) : undefined;
		let next = 0;
		for (let i = from; i < to; i++) {
			const row = rows[i] as TreeLayoutRow;
			switch (row.kind) {
				case "entry": {
					const marked = marks(row);
					const preview = made[i - from];
					if (preview) {
						emit(plainLine(row.node, viewId(row.node), preview.kind, preview.preview, row.prefix, marked));
						break;
					}
					const entry = entries ? (entries[next++] as SessionEntry) : row.node.entry;
					emit(entryLine(row.node, entry, row.prefix, marked));
					break;
				}
				case "fold":
					emit(noteLine(row.prefix, `┆ … ${countOf(row.count, "entry")} …`));
					break;
				case "more": {
					const branches = row.branches > 1 ? ` in ${countOf(row.branches, "branch")}` : "";
					emit(noteLine(row.prefix, `… ${groupDigits(row.count)} more${branches}${row.leafBelow ? leafBelow : ""}`));
					break;
				}
			}
		}
	}
}

/** {@link renderTreeLines} joined, with a final newline. */
export function renderTree(roots: readonly SessionTreeNode[], options: TreeTextOptions = {}): string {
	return `${renderTreeLines(roots, options).join("\n")}\n`;
}
