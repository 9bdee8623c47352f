/**
 * How the renderers colour and fit their lines: the colour of each kind of entry, and lines
 * built of coloured segments cut to a width. Colour itself (whether, and the codes) and widths
 * come from {@link shouldColor} and the rest of `terminal.ts`.
 */

import { displayWidth, type Painter, painter, type Style, truncateToWidth } from "./terminal.js";

// Until src/cli/commands/{ls,search,read}.ts and test/cli/views-tty.test.ts import these from
// terminal.js: names, not copies.
export { type Painter, painter, type Style, shouldColor, stripAnsi, terminalWidth } from "./terminal.js";

/**
 * The colour of an entry or message kind (as {@link describeEntry} and {@link describeMessage}
 * name them): user cyan, assistant green, tool results blue, summaries magenta, the rest gray.
 */
export function kindStyle(kind: string): Style {
	switch (kind) {
		case "user":
			return "cyan";
		case "assistant":
			return "green";
		case "toolResult":
		case "bashExecution":
			return "blue";
		case "compaction":
		case "compaction summary":
		case "compactionSummary":
		case "branch_summary":
		case "branch summary":
		case "branchSummary":
			return "magenta";
		case "custom":
		case "custom_message":
			return "yellow";
		default:
			return "gray";
	}
}

/** A piece of a line and how it is coloured. */
export interface Segment {
	text: string;
	styles?: Array<Style | undefined>;
}

/** Cuts segments (sanitized text) so that together they fit in `width` columns, ending with `…`. */
export function fitSegments(segments: readonly Segment[], width: number): Segment[] {
	const measured = segments.map((segment) => ({ segment, w: displayWidth(segment.text) }));
	const total = measured.reduce((sum, { w }) => sum + w, 0);
	if (total <= width) return [...segments];
	const out: Segment[] = [];
	let room = width;
	for (const { segment, w } of measured) {
		if (w < room) {
			out.push(segment);
			room -= w;
			continue;
		}
		// The text fits exactly, but what follows does not: make room for the `…`.
		const cut = truncateToWidth(w === room ? `${segment.text}…` : segment.text, room);
		out.push({ ...segment, text: cut });
		break;
	}
	return out;
}

/** The segments as one string, coloured by `paint`. */
export function paintSegments(segments: readonly Segment[], paint: Painter): string {
	return segments.map((segment) => paint(segment.text, ...(segment.styles ?? []))).join("");
}

/**
 * How a renderer turns segments into a line: cut to `width` columns when there is one
 * ({@link fitSegments}), then joined, coloured only when `color`.
 */
export function lineWriter(width: number | undefined, color: boolean): (segments: readonly Segment[]) => string {
	const paint = painter(color);
	return (segments) => paintSegments(width === undefined ? segments : fitSegments(segments, width), paint);
}
