/**
 * The terminal, in one place: whether a stream gets colour, how text is styled, and how many
 * columns text takes (one East Asian width table). The renderers, `ls`, `search`, the REPL and
 * the progress bar all go through it, so that NO_COLOR means the same everywhere and a line
 * fitted to a width here fits there too.
 *
 * It imports nothing of the project but text-width.ts (the pure half: widths of text), so the
 * catalog and the CLI can use it without the renderers.
 */

import * as util from "node:util";

// The widths of text live in text-width.ts (no Node module there, so that a browser can use
// them too); they are part of this module's interface as before.
export {
	displayWidth,
	fittingLength,
	graphemeWidth,
	padEndToWidth,
	padStartToWidth,
	RESET,
	segmentGraphemes,
	stripAnsi,
	truncateToWidth,
} from "./text-width.js";

/** A stream as far as colour and width go: a `tty.WriteStream`, or anything shaped like one. */
export interface TerminalStream {
	isTTY?: boolean;
	columns?: number;
	/** `tty.WriteStream.prototype.hasColors`: whether the terminal shows at least 16 colours. */
	hasColors?(env?: object): boolean;
}

/** Environment variables, as `process.env` has them. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether output to `stream` should be coloured. The user's switches come first: `FORCE_COLOR`
 * (any value but `0`/`false`) forces colour and `FORCE_COLOR=0` forbids it, as in Node; else a
 * non-empty `NO_COLOR` (https://no-color.org) or `TERM=dumb` forbids it. Then only terminals get
 * colour, and of those only the ones Node's `stream.hasColors()` says can show 16 colours (from
 * TERM, COLORTERM, TMUX, CI and the platform; `NODE_DISABLE_COLORS` also turns it off).
 *
 * The switches are not left to `hasColors`: Node takes FORCE_COLOR values other than empty, `1`,
 * `2`, `3` and `true` to mean no colour, counts an empty NO_COLOR as set, and prints a warning
 * when both are set. A stream without `hasColors` (a test's stand-in) counts as able.
 */
export function shouldColor(stream: TerminalStream | undefined = process.stdout, env: Env = process.env): boolean {
	const force = env.FORCE_COLOR;
	if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (env.TERM === "dumb") return false;
	if (stream?.isTTY !== true) return false;
	if (typeof stream.hasColors !== "function") return true;
	return stream.hasColors({ ...env, FORCE_COLOR: undefined, NO_COLOR: undefined });
}

/**
 * The width to fit lines to: the terminal's columns when `stream` is a terminal (80 when it does
 * not say), else undefined (piped output is not cut).
 */
export function terminalWidth(stream: TerminalStream | undefined = process.stdout): number | undefined {
	if (stream?.isTTY !== true) return undefined;
	const columns = stream.columns;
	return typeof columns === "number" && columns > 0 ? columns : 80;
}

/** The styles the command line uses. */
export type Style = "bold" | "dim" | "red" | "green" | "yellow" | "blue" | "magenta" | "cyan" | "gray";

/**
 * SGR codes to open and close each style: the values of `util.inspect.colors`, which
 * `util.styleText` uses, for the Node 20 releases before 20.12 that lack it.
 */
const SGR: Readonly<Record<Style, readonly [number, number]>> = {
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

/** `util.styleText` where Node has it (20.12 and later); the package supports Node 20.6. */
const nodeStyleText: typeof util.styleText | undefined = util.styleText;

/** Erases from the cursor to the end of the line (the progress bar redraws over itself). */
export const ERASE_TO_LINE_END = "\u001b[K";

/**
 * `text` in `style`, always (the caller decided with {@link shouldColor}); empty text stays empty.
 * Uses `util.styleText` with `validateStream: false`, since it would otherwise judge
 * `process.stdout` on every call (Node 20.18 and later), whatever stream the text is for.
 */
export function applyStyle(style: Style, text: string): string {
	if (text === "") return text;
	if (nodeStyleText) return nodeStyleText(style, text, { validateStream: false });
	const [open, close] = SGR[style];
	return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** Applies styles to text (the first innermost), or returns it as it is when colour is off. */
export type Painter = (text: string, ...styles: Array<Style | undefined>) => string;

/** A painter that colours (`enabled`, from {@link shouldColor}) or leaves text alone. */
export function painter(enabled: boolean): Painter {
	if (!enabled) return (text) => text;
	return (text, ...styles) => {
		let out = text;
		for (const style of styles) if (style !== undefined) out = applyStyle(style, out);
		return out;
	};
}
