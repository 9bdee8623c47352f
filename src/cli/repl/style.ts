/**
 * Terminal styling for the REPL: colours that honour NO_COLOR and FORCE_COLOR, and fitting
 * lines to the terminal width (escape sequences take no room, wide characters take two).
 */

/**
 * Whether to colour what goes to `stream`: FORCE_COLOR (any value but `0`/`false`) forces
 * colour and `FORCE_COLOR=0` forbids it, as in Node; else a non-empty NO_COLOR
 * (https://no-color.org) or TERM=dumb forbids it; else terminals get colour.
 */
export function colorWanted(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
	const force = env.FORCE_COLOR;
	if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
	if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
	if (env.TERM === "dumb") return false;
	return stream.isTTY === true;
}

/** The styles the REPL uses; each is the identity when colours are off. */
export interface Style {
	readonly enabled: boolean;
	bold(text: string): string;
	dim(text: string): string;
	red(text: string): string;
	green(text: string): string;
	yellow(text: string): string;
	cyan(text: string): string;
	magenta(text: string): string;
}

function sgr(open: number, close: number): (text: string) => string {
	return (text) => (text === "" ? text : `\x1b[${open}m${text}\x1b[${close}m`);
}

const plain = (text: string): string => text;

/** Styles that colour when `enabled`, and do nothing otherwise. */
export function makeStyle(enabled: boolean): Style {
	if (!enabled) {
		return { enabled, bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain, magenta: plain };
	}
	return {
		enabled,
		bold: sgr(1, 22),
		dim: sgr(2, 22),
		red: sgr(31, 39),
		green: sgr(32, 39),
		yellow: sgr(33, 39),
		cyan: sgr(36, 39),
		magenta: sgr(35, 39),
	};
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching escape sequences is the point
const ESCAPE = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/y;

let segmenter: Intl.Segmenter | undefined;

/** Columns a grapheme takes: 2 for wide (East Asian, emoji), 0 for a lone combining mark, else 1. */
export function graphemeWidth(grapheme: string): number {
	const code = grapheme.codePointAt(0) ?? 0;
	if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
	if (/^\p{M}/u.test(grapheme)) return 0;
	if (/\p{Extended_Pictographic}/u.test(grapheme) && (grapheme.includes("\ufe0f") || code >= 0x1f000)) return 2;
	if (
		(code >= 0x1100 && code <= 0x115f) ||
		(code >= 0x2e80 && code <= 0x303e) ||
		(code >= 0x3041 && code <= 0x33ff) ||
		(code >= 0x3400 && code <= 0x4dbf) ||
		(code >= 0x4e00 && code <= 0x9fff) ||
		(code >= 0xa000 && code <= 0xa4cf) ||
		(code >= 0xac00 && code <= 0xd7a3) ||
		(code >= 0xf900 && code <= 0xfaff) ||
		(code >= 0xfe30 && code <= 0xfe4f) ||
		(code >= 0xff00 && code <= 0xff60) ||
		(code >= 0xffe0 && code <= 0xffe6) ||
		(code >= 0x20000 && code <= 0x3fffd)
	) {
		return 2;
	}
	return 1;
}

/** Columns a line takes on a terminal (escape sequences take none). */
export function displayWidth(line: string): number {
	return fit(line, Number.POSITIVE_INFINITY).width;
}

/**
 * Cuts a line to at most `width` columns, ending a cut line with `…`. Escape sequences are
 * kept (they take no room), and a reset is added after a cut when the line had any.
 */
export function fitWidth(line: string, width: number): string {
	if (width <= 0) return "";
	const whole = fit(line, width);
	if (!whole.cut) return line;
	const head = fit(line, width - 1);
	return `${head.text}…${head.escapes ? "\x1b[0m" : ""}`;
}

function fit(line: string, width: number): { text: string; width: number; cut: boolean; escapes: boolean } {
	segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
	let text = "";
	let used = 0;
	let escapes = false;
	let i = 0;
	while (i < line.length) {
		if (line.charCodeAt(i) === 0x1b) {
			ESCAPE.lastIndex = i;
			const match = ESCAPE.exec(line);
			if (match) {
				text += match[0];
				escapes = true;
				i += match[0].length;
				continue;
			}
		}
		// The grapheme starting at i (segmenting only up to the next escape keeps this linear).
		const nextEscape = line.indexOf("\x1b", i + 1);
		const chunk = line.slice(i, nextEscape === -1 ? line.length : nextEscape);
		for (const { segment } of segmenter.segment(chunk)) {
			const w = graphemeWidth(segment);
			if (used + w > width) return { text, width: used, cut: true, escapes };
			text += segment;
			used += w;
		}
		i += chunk.length;
	}
	return { text, width: used, cut: false, escapes };
}
