/**
 * What `session-tree browse` draws: the screen as lines of text, exactly `height` of them, none
 * wider than `width` columns. Pure (the model and a few facts in, lines out), so the layout is
 * tested without a terminal.
 *
 * ```
 * session-tree browse · fix the CI                                 9 entries · 6/7   header
 *   97530e19 user: Our CI fails on Node 16: structuredClone is not defined.          the tree,
 *   59067c57 assistant: structuredClone became a global in Node 17. Either add a…    as `tree`
 *   ├── 334bd570 user: Add a polyfill then. [polyfill]                                draws it
 *   └── • 670b1bc9 branch_summary: Tried a polyfill; the team wants Node 20 inste…
 * ›     • ef60ffd5 user: Instead, require Node 20 in package.json and the CI.         (› selected)
 * ────────────────────────────────────────────────────────────────────────────────
 * ef60ffd5  user  2026-12-01 13:16:20                                                the preview
 * context: 4 messages, ~476 tokens  · on the active path
 * Enter: the leaf moves to 670b1bc9 (its parent); the text is printed to edit
 * Instead, require Node 20 in package.json and the CI.
 * filter: default  ? keys  q quit  ⏎ choose  ←→ fold  / search  f filter  l label   footer
 * ```
 */

import type { SessionEntry } from "../../core/types.js";
import { kindStyle } from "../../render/color.js";
import { countOf, describeEntry, groupDigits, oneLineToWidth, sanitize, sanitizeLines } from "../../render/preview.js";
import { displayWidth, fittingLength, painter, type Style, truncateToWidth } from "../../render/terminal.js";
import { clipPrefix, showsActiveMark, type TreeLayoutRow } from "../../render/tree-layout.js";
import { type ContextSize, contextSizeText } from "../../render/usage.js";
import { footerHints, KEY_HELP } from "./keys.js";
import { type BrowseModel, enterOutcome } from "./model.js";

/** The size of the model's context at an entry: one figure, and where it comes from (render/usage.ts). */
export type { ContextSize };

/** Everything a screen shows besides the model. */
export interface ScreenFacts {
	/** The session's name, or its location. */
	readonly title: string;
	readonly entryCount: number;
	readonly color: boolean;
	/** Why Enter and `l` are off, for a source that cannot be written. */
	readonly readOnly?: string;
	/** Show the list of keys instead of the tree. */
	readonly help?: boolean;
	/** An input line in the footer (search, label): its prompt and the input drawn in a width. */
	readonly input?: { readonly prompt: string; line(width: number): string };
	/** A message for the footer (until the next key). */
	readonly status?: string;
	/** The context at the selected entry: its size, `pending` while it is computed, or an error. */
	readonly context?: ContextSize | "pending" | { readonly error: string };
	/** Still reading the tree (no model yet). */
	readonly loading?: boolean;
	/** Rows moved from the preview to the tree (`+`, `-`; see {@link paneHeights}). */
	readonly treeShift?: number;
}

/** How the screen's rows are shared: the header, the tree, a rule, the preview, the footer. */
export interface PaneHeights {
	readonly tree: number;
	readonly preview: number;
}

/** The fewest rows of each pane when `+` and `-` move the rule between them. */
const MIN_PANE = 2;

/**
 * The heights of the tree and preview panes on a screen of `height` rows; `treeShift` rows more
 * for the tree (fewer when negative), taken from the preview (`+` and `-`), each pane keeping at
 * least {@link MIN_PANE} rows.
 */
export function paneHeights(height: number, treeShift = 0): PaneHeights {
	const room = Math.max(0, height - 2);
	// Too small for a preview: the tree alone between the header and the footer.
	if (room < 8) return { tree: room, preview: 0 };
	const base = Math.min(Math.max(3, Math.floor((room - 1) * 0.4)), 20);
	const preview = Math.min(Math.max(MIN_PANE, base - treeShift), room - 1 - MIN_PANE);
	return { tree: room - 1 - preview, preview };
}

/** `YYYY-MM-DD HH:MM:SS` in local time, or the text as it is when it is not a time. */
export function formatTime(timestamp: string): string {
	const date = new Date(timestamp);
	if (Number.isNaN(date.getTime())) return sanitize(timestamp);
	const two = (n: number) => String(n).padStart(2, "0");
	return (
		`${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
		`${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`
	);
}

/** The longest head of `line` that fits in `width` columns (at least one character), and the rest. */
function cutLine(line: string, width: number): { head: string; rest: string } {
	let end = fittingLength(line, width);
	if (end === 0) end = [...line][0]?.length ?? line.length;
	if (end >= line.length) return { head: line, rest: "" };
	// Break after the last space of the head, when that keeps at least half of it.
	const space = line.lastIndexOf(" ", end);
	if (space > end / 2) return { head: line.slice(0, space).trimEnd(), rest: line.slice(space + 1).trimStart() };
	return { head: line.slice(0, end), rest: line.slice(end).trimStart() };
}

/**
 * Text wrapped to `width` columns, at most `maxLines` lines (terminal-safe: see
 * {@link sanitizeLines}); `more` when some was left out. A huge text is read only as far as
 * the lines need.
 */
export function wrapText(text: string, width: number, maxLines: number): { lines: string[]; more: boolean } {
	const lines: string[] = [];
	if (maxLines <= 0 || width <= 0) return { lines, more: text !== "" };
	const budget = (maxLines + 1) * Math.max(width, 16) * 4;
	const head = text.length > budget ? text.slice(0, budget) : text;
	for (let line of sanitizeLines(head)) {
		if (lines.length > maxLines) break;
		if (line === "") lines.push("");
		while (line !== "" && lines.length <= maxLines) {
			const cut = cutLine(line, width);
			lines.push(cut.head);
			line = cut.rest;
		}
	}
	// Blank lines at the end show nothing.
	while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
	const more = lines.length > maxLines || head.length < text.length;
	return { lines: lines.slice(0, maxLines), more };
}

/** Pads or cuts a plain line to exactly `width` columns. */
function fitPlain(text: string, width: number): string {
	const w = displayWidth(text);
	if (w <= width) return text + " ".repeat(width - w);
	const cut = truncateToWidth(text, width);
	return cut + " ".repeat(Math.max(0, width - displayWidth(cut)));
}

/** A piece of a line: text (one line; {@link draw} sanitizes it) and its styles. */
interface Piece {
	readonly text: string;
	readonly styles?: ReadonlyArray<Style | undefined>;
}

/**
 * Draws pieces into exactly `width` columns (cut with `…`, or padded); `inverse` marks a
 * selection. Every piece is sanitized here, whatever it holds: ids, labels, a file's name and
 * error messages are all the session's data.
 */
function draw(pieces: readonly Piece[], width: number, color: boolean, inverse = false): string {
	const paint = painter(color);
	let out = "";
	let room = width;
	for (const piece of pieces) {
		if (room <= 0) break;
		let text = sanitize(piece.text);
		const w = displayWidth(text);
		if (w > room) text = truncateToWidth(text, room);
		room -= displayWidth(text);
		out += paint(text, ...(piece.styles ?? []));
	}
	out += " ".repeat(Math.max(0, room));
	return inverse && color ? `\u001b[7m${out}\u001b[27m` : out;
}

/**
 * The widest indentation drawn in the tree pane: a third of the width, a multiple of 4, at most
 * 32; deeper rows say their depth (`«N» `, see clipPrefix), so the id, the kind and `← leaf`
 * keep their room.
 */
function maxIndentFor(width: number): number {
	return Math.max(4, Math.floor(Math.min(32, Math.floor(width / 3)) / 4) * 4);
}

/** One row of the tree pane, as `tree` draws it, with the selection gutter. */
function treeRowLine(model: BrowseModel, row: TreeLayoutRow, selected: boolean, width: number, color: boolean): string {
	const gutter: Piece = { text: selected ? "› " : "  ", styles: ["bold"] };
	const indent = maxIndentFor(width - 2);
	const prefix: Piece[] = row.prefix ? [{ text: clipPrefix(row.prefix, indent), styles: ["gray"] }] : [];
	const leafId = model.leafId;
	if (row.kind === "fold") {
		return draw(
			[gutter, ...prefix, { text: `┆ … ${countOf(row.count, "entry")} …`, styles: ["gray"] }],
			width,
			color,
			selected,
		);
	}
	if (row.kind === "more") {
		const branches = row.branches > 1 ? ` in ${countOf(row.branches, "branch")}` : "";
		const leaf = row.leafBelow ? `  ← leaf below (${leafId})` : "";
		const hint = selected ? "  (→ unfolds)" : "";
		const text = `… ${groupDigits(row.count)} more${branches}${leaf}${hint}`;
		return draw([gutter, ...prefix, { text, styles: ["gray"] }], width, color, selected);
	}
	const { entry } = row.node;
	const isActive = model.active.has(entry.id);
	const bold: Style | undefined = isActive ? "bold" : undefined;
	const description = describeEntry(entry);
	const kind = sanitize(description.kind);
	const head: Piece[] = [gutter, ...prefix];
	if (showsActiveMark(row, model.active)) head.push({ text: "• ", styles: ["cyan", "bold"] });
	head.push({ text: `${entry.id} `, styles: ["gray", bold] });
	head.push({ text: kind, styles: [kindStyle(description.kind), bold] });
	const tail: Piece[] = [];
	const widthOf = (pieces: readonly Piece[]) => pieces.reduce((sum, piece) => sum + displayWidth(piece.text), 0);
	const leaf: Piece[] = [];
	if (entry.id === model.leafShownAt) {
		const below = model.leafShownAt === leafId ? "" : ` below (${leafId})`;
		leaf.push({ text: `  ← leaf${below}`, styles: ["cyan", "bold"] });
	}
	if (row.node.label !== undefined) {
		// A label too long for the line is cut (with `…`) before the leaf marker is.
		const room = width - widthOf(head) - widthOf(leaf);
		const label = ` [${sanitize(row.node.label)}]`;
		// Too narrow for even a few of its characters: left out (the preview shows it).
		if (displayWidth(label) <= room) tail.push({ text: label, styles: ["yellow", "bold"] });
		else if (room >= 6) tail.push({ text: `${truncateToWidth(label, room - 1)}]`, styles: ["yellow", "bold"] });
	}
	tail.push(...leaf);
	const used = widthOf(head) + widthOf(tail);
	// The preview gets the room the rest leaves.
	const room = width - used - 2;
	const preview = room >= 4 ? oneLineToWidth(description.text, room) : "";
	const body: Piece[] = preview ? [{ text: `: ${preview}`, styles: [bold] }] : [];
	return draw([...head, ...body, ...tail], width, color, selected);
}

/** The lines of the preview pane for the selected row. */
function previewLines(model: BrowseModel, facts: ScreenFacts, width: number, height: number): string[] {
	const { color } = facts;
	const lines: string[] = [];
	const row = model.selectedRow();
	const plain = (text: string, styles: Style[] = []) => draw([{ text, styles }], width, color);
	if (!row) {
		lines.push(plain(facts.loading ? "" : "(no entry shown: press f for another filter)", ["gray"]));
	} else if (row.kind !== "entry") {
		const what = row.kind === "more" ? `${countOf(row.count, "entry")} folded below ${row.parentId}` : "";
		lines.push(plain(what, ["gray"]), plain(row.kind === "more" ? "→ or Enter unfolds them" : "", ["gray"]));
	} else {
		const { entry } = row.node;
		const description = describeEntry(entry);
		const headline: Piece[] = [
			{ text: `${entry.id}  `, styles: ["bold"] },
			{ text: sanitize(description.kind), styles: [kindStyle(description.kind), "bold"] },
			{ text: `  ${formatTime(entry.timestamp)}` },
		];
		if (row.node.label !== undefined)
			headline.push({ text: `  [${sanitize(row.node.label)}]`, styles: ["yellow", "bold"] });
		lines.push(draw(headline, width, color));
		if (height >= 2) lines.push(draw(contextPieces(model, entry, facts), width, color));
		if (height >= 5) lines.push(draw([{ text: enterText(model, entry, facts), styles: ["gray"] }], width, color));
		const room = height - lines.length;
		const { lines: body, more } = wrapText(description.text, width, room);
		if (more && body.length === room) body[room - 1] = `${oneLineToWidth(body[room - 1] ?? "", width - 2)} …`;
		for (const line of body) lines.push(fitPlain(line, width));
	}
	while (lines.length < height) lines.push(" ".repeat(width));
	return lines.slice(0, height);
}

/** `context: N messages, T tokens (where T comes from)` and where the entry is. */
function contextPieces(model: BrowseModel, entry: SessionEntry, facts: ScreenFacts): Piece[] {
	const context = facts.context;
	let size: string;
	if (context === undefined || context === "pending") size = "context: …";
	else if ("error" in context) size = `context: ${context.error}`;
	else {
		const messages = `${groupDigits(context.messages)} message${context.messages === 1 ? "" : "s"}`;
		size = `context: ${messages}, ${contextSizeText(context).short}`;
	}
	const where = entry.id === model.leafId ? "the leaf" : model.active.has(entry.id) ? "on the active path" : "";
	const pieces: Piece[] = [{ text: size }];
	if (where) pieces.push({ text: `  · ${where}`, styles: ["cyan"] });
	return pieces;
}

/** What Enter would do on an entry. */
function enterText(model: BrowseModel, entry: SessionEntry, facts: ScreenFacts): string {
	if (facts.readOnly !== undefined) return "Enter: off (read-only)";
	const { leafId, editsText } = enterOutcome(entry, model.parentOf(entry.id) ?? null);
	if (!editsText) return entry.id === model.leafId ? "Enter: already the leaf" : "Enter: becomes the leaf";
	const where = leafId === null ? "before the first entry" : `${leafId} (its parent)`;
	return `Enter: the leaf moves to ${where}; the text is printed to edit`;
}

/** The list of keys (`?`), in the tree pane. */
function helpLines(facts: ScreenFacts, width: number, height: number): string[] {
	const { color } = facts;
	const lines = [draw([{ text: "Keys (any key closes this list)", styles: ["bold"] }], width, color)];
	const keysWidth = Math.max(...KEY_HELP.map(([keys]) => displayWidth(keys))) + 2;
	for (const [keys, what] of KEY_HELP) {
		lines.push(draw([{ text: `  ${keys.padEnd(keysWidth)}`, styles: ["bold"] }, { text: what }], width, color));
	}
	if (facts.readOnly !== undefined) {
		lines.push(draw([{ text: `read-only: ${facts.readOnly}`, styles: ["yellow"] }], width, color));
	}
	lines.push(
		draw(
			[{ text: "Labels are written at once; Enter writes the new leaf when the screen closes.", styles: ["gray"] }],
			width,
			color,
		),
	);
	while (lines.length < height) lines.push(" ".repeat(width));
	return lines.slice(0, height);
}

/** The footer: an open input, a message, or the filter, a read-only note and the keys. */
function footerLine(model: BrowseModel | undefined, facts: ScreenFacts, width: number): string {
	const { color } = facts;
	if (facts.input) {
		const prompt = sanitize(facts.input.prompt);
		const promptWidth = displayWidth(prompt);
		// The input draws itself (with its cursor); it was given the width left.
		return `${painter(color)(prompt, "bold")}${facts.input.line(Math.max(1, width - promptWidth))}`;
	}
	if (facts.status !== undefined) return draw([{ text: sanitize(facts.status), styles: ["bold"] }], width, color);
	const pieces: Piece[] = [{ text: `filter: ${model?.filter ?? "default"}`, styles: ["bold"] }];
	if (facts.readOnly !== undefined) pieces.push({ text: `  read-only: ${facts.readOnly}`, styles: ["yellow"] });
	pieces.push({ text: `  ${footerHints(facts.readOnly !== undefined)}`, styles: ["gray"] });
	return draw(pieces, width, color);
}

/** The whole screen: `height` lines of `width` columns (see the module's documentation). */
export function renderScreen(
	model: BrowseModel | undefined,
	facts: ScreenFacts,
	width: number,
	height: number,
): string[] {
	if (width <= 0 || height <= 0) return [];
	const { color } = facts;
	const panes = paneHeights(height, facts.treeShift);
	const lines: string[] = [];
	const count = !model
		? ""
		: model.partial
			? // The rows around the leaf only (tree-window.ts): the whole layout, and its count, come next.
				`${countOf(facts.entryCount, "entry")} · counting rows…`
			: `${countOf(facts.entryCount, "entry")} · ${groupDigits(model.rows.length === 0 ? 0 : model.selected + 1)}/${groupDigits(model.rows.length)}`;
	const titleRoom = Math.max(0, width - displayWidth(count) - 2);
	const title = oneLineToWidth(`session-tree browse · ${facts.title}`, titleRoom);
	const gap = Math.max(1, width - displayWidth(title) - displayWidth(count));
	lines.push(
		draw(
			[{ text: title, styles: ["bold"] }, { text: " ".repeat(gap) }, { text: count, styles: ["gray"] }],
			width,
			color,
		),
	);
	if (height === 1) return lines;

	if (facts.help) {
		// The list takes the tree's and the preview's rows.
		lines.push(...helpLines(facts, width, height - 2));
		if (height >= 2) lines.push(footerLine(model, facts, width));
		return lines.slice(0, height);
	}
	if (!model) {
		lines.push(draw([{ text: `  reading ${countOf(facts.entryCount, "entry")}…`, styles: ["gray"] }], width, color));
		for (let i = 1; i < panes.tree; i++) lines.push(" ".repeat(width));
	} else {
		model.scrollIntoView(panes.tree);
		if (model.rows.length === 0) {
			lines.push(
				draw([{ text: `  (no entries shown by the ${model.filter} filter: press f)`, styles: ["gray"] }], width, color),
			);
		}
		for (let i = model.top; i < model.top + panes.tree && i < model.rows.length; i++) {
			const row = model.rows[i];
			if (row) lines.push(treeRowLine(model, row, i === model.selected, width, color));
		}
		while (lines.length < 1 + panes.tree) lines.push(" ".repeat(width));
	}
	if (panes.preview > 0) {
		lines.push(draw([{ text: "─".repeat(width), styles: ["gray"] }], width, color));
		if (model) lines.push(...previewLines(model, facts, width, panes.preview));
		else for (let i = 0; i < panes.preview; i++) lines.push(" ".repeat(width));
	}
	if (height >= 2) lines.push(footerLine(model, facts, width));
	return lines.slice(0, height);
}
