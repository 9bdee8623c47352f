/**
 * A tiny ANSI colour helper. The renderers never look at the environment: they colour only
 * when asked to ({@link Painter}); the command line decides with {@link shouldColor}.
 */

import { displayWidth, truncateToWidth } from "./preview.js";

/** The styles the renderers use. */
export type Style = "bold" | "dim" | "red" | "green" | "yellow" | "blue" | "magenta" | "cyan" | "gray";

const CODES: Record<Style, [number, number]> = {
	bold: [1, 22],
	dim: [2, 22],
	red: [31, 39],
	green: [32, 39],
	yellow: [33, 39],
	blue: [34, 39],
	magenta: [35, 39],
	cyan: [36, 39],
	gray: [90, 39],
};

/** Applies styles to text, or returns it as it is when colour is off. */
export type Painter = (text: string, ...styles: Array<Style | undefined>) => string;

/** A painter that colours (`enabled`) or leaves text alone. */
export function painter(enabled: boolean): Painter {
	if (!enabled) return (text) => text;
	return (text, ...styles) => {
		if (text === "") return text;
		let out = text;
		for (const style of styles) {
			if (style === undefined) continue;
			const [open, close] = CODES[style];
			out = `\u001b[${open}m${out}\u001b[${close}m`;
		}
		return out;
	};
}

/** Removes ANSI colour sequences (SGR) from text. */
export function stripAnsi(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is the point
	return text.replace(/\u001b\[[0-9;]*m/g, "");
}

/**
 * Whether output to `stream` should be coloured: `FORCE_COLOR` (any value but `0`/`false`)
 * forces colour and `FORCE_COLOR=0` forbids it, as in Node itself; otherwise a non-empty
 * `NO_COLOR` forbids it (no-color.org), `TERM=dumb` too, and else colour goes to terminals only.
 */
export function shouldColor(
	stream: { isTTY?: boolean } | undefined = process.stdout,
	env: Record<string, string | undefined> = process.env,
): boolean {
	const force = env.FORCE_COLOR;
	if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (env.TERM === "dumb") return false;
	return stream?.isTTY === true;
}

/**
 * The width to fit lines to: the terminal's columns when `stream` is a terminal, else
 * undefined (no cut).
 */
export function terminalWidth(
	stream: { isTTY?: boolean; columns?: number } | undefined = process.stdout,
): number | undefined {
	if (stream?.isTTY !== true) return undefined;
	const columns = stream.columns;
	return typeof columns === "number" && columns > 0 ? columns : 80;
}

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
	const widths = segments.map((segment) => displayWidth(segment.text));
	const total = widths.reduce((sum, w) => sum + w, 0);
	if (total <= width) return [...segments];
	const out: Segment[] = [];
	let room = width;
	for (const [i, segment] of segments.entries()) {
		const w = widths[i] as number;
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
