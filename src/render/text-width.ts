/**
 * How many columns text takes on a terminal (one East Asian width table, grapheme clusters),
 * and cutting or padding text to a number of columns. Pure: no Node module, so the renderers
 * that use it (previews, the tree layout) also run in a browser (the HTML export's client).
 * `terminal.ts` re-exports all of it.
 */

/** Resets every style: ends a line cut inside styled text. */
export const RESET = "\u001b[0m";

/** An escape sequence: CSI (colours, cursor moves, erasing) or OSC (titles, links). */
const ESCAPE_SOURCE = "\\u001b\\[[0-9;?]*[ -/]*[@-~]|\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)";
const ESCAPE_AT = new RegExp(ESCAPE_SOURCE, "y");
const ESCAPES = new RegExp(ESCAPE_SOURCE, "g");
/** White space and escape sequences at the end of a line. */
const BLANK_TAIL = new RegExp(`(?:\\s|${ESCAPE_SOURCE})*$`);

/** Removes escape sequences (colours and the like) from text. */
export function stripAnsi(text: string): string {
	return text.replace(ESCAPES, "");
}

/**
 * East Asian Width W (wide) and F (fullwidth) of Unicode 17 (EastAsianWidth.txt, UAX #11) as
 * first/last code point pairs, adjacent ranges merged: the characters a terminal gives two
 * columns. Emoji with emoji presentation are W since Unicode 9, so they are here too.
 */
// biome-ignore format: the table reads better in rows of six ranges
const WIDE: readonly number[] = [
	0x1100, 0x115f, 0x231a, 0x231b, 0x2329, 0x232a, 0x23e9, 0x23ec, 0x23f0, 0x23f0, 0x23f3, 0x23f3,
	0x25fd, 0x25fe, 0x2614, 0x2615, 0x2630, 0x2637, 0x2648, 0x2653, 0x267f, 0x267f, 0x268a, 0x268f,
	0x2693, 0x2693, 0x26a1, 0x26a1, 0x26aa, 0x26ab, 0x26bd, 0x26be, 0x26c4, 0x26c5, 0x26ce, 0x26ce,
	0x26d4, 0x26d4, 0x26ea, 0x26ea, 0x26f2, 0x26f3, 0x26f5, 0x26f5, 0x26fa, 0x26fa, 0x26fd, 0x26fd,
	0x2705, 0x2705, 0x270a, 0x270b, 0x2728, 0x2728, 0x274c, 0x274c, 0x274e, 0x274e, 0x2753, 0x2755,
	0x2757, 0x2757, 0x2795, 0x2797, 0x27b0, 0x27b0, 0x27bf, 0x27bf, 0x2b1b, 0x2b1c, 0x2b50, 0x2b50,
	0x2b55, 0x2b55, 0x2e80, 0x2e99, 0x2e9b, 0x2ef3, 0x2f00, 0x2fd5, 0x2ff0, 0x303e, 0x3041, 0x3096,
	0x3099, 0x30ff, 0x3105, 0x312f, 0x3131, 0x318e, 0x3190, 0x31e5, 0x31ef, 0x321e, 0x3220, 0x3247,
	0x3250, 0xa48c, 0xa490, 0xa4c6, 0xa960, 0xa97c, 0xac00, 0xd7a3, 0xf900, 0xfaff, 0xfe10, 0xfe19,
	0xfe30, 0xfe52, 0xfe54, 0xfe66, 0xfe68, 0xfe6b, 0xff01, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x16fe4,
	0x16ff0, 0x16ff6, 0x17000, 0x18cda, 0x18cff, 0x18d20, 0x18d80, 0x18df2, 0x18e00, 0x19191, 0x191a0, 0x191d2,
	0x1aff0, 0x1aff3, 0x1aff5, 0x1affb, 0x1affd, 0x1affe, 0x1b000, 0x1b128, 0x1b132, 0x1b132, 0x1b150, 0x1b152,
	0x1b155, 0x1b155, 0x1b164, 0x1b168, 0x1b170, 0x1b2fb, 0x1d300, 0x1d356, 0x1d360, 0x1d376, 0x1f004, 0x1f004,
	0x1f0cf, 0x1f0cf, 0x1f18e, 0x1f18e, 0x1f191, 0x1f19a, 0x1f1ae, 0x1f1ae, 0x1f200, 0x1f202, 0x1f210, 0x1f23b,
	0x1f240, 0x1f248, 0x1f250, 0x1f251, 0x1f260, 0x1f265, 0x1f300, 0x1f320, 0x1f32d, 0x1f335, 0x1f337, 0x1f37c,
	0x1f37e, 0x1f393, 0x1f3a0, 0x1f3ca, 0x1f3cf, 0x1f3d3, 0x1f3e0, 0x1f3f0, 0x1f3f4, 0x1f3f4, 0x1f3f8, 0x1f43e,
	0x1f440, 0x1f440, 0x1f442, 0x1f4fc, 0x1f4ff, 0x1f53d, 0x1f54b, 0x1f54e, 0x1f550, 0x1f567, 0x1f57a, 0x1f57a,
	0x1f595, 0x1f596, 0x1f5a4, 0x1f5a4, 0x1f5fb, 0x1f64f, 0x1f680, 0x1f6c5, 0x1f6cc, 0x1f6cc, 0x1f6d0, 0x1f6d2,
	0x1f6d5, 0x1f6d9, 0x1f6dc, 0x1f6df, 0x1f6eb, 0x1f6ec, 0x1f6f4, 0x1f6fc, 0x1f7da, 0x1f7da, 0x1f7e0, 0x1f7eb,
	0x1f7f0, 0x1f7f0, 0x1f90c, 0x1f93a, 0x1f93c, 0x1f945, 0x1f947, 0x1f9ff, 0x1fa70, 0x1fa7c, 0x1fa80, 0x1fac6,
	0x1fac8, 0x1fac8, 0x1facc, 0x1fadd, 0x1fadf, 0x1faeb, 0x1faef, 0x1fafa, 0x20000, 0x2fffd, 0x30000, 0x3fffd,
];

/** Whether a code point is in {@link WIDE} (binary search over the ranges). */
function isWide(code: number): boolean {
	if (code < 0x1100) return false;
	let low = 0;
	let high = WIDE.length / 2 - 1;
	while (low <= high) {
		const mid = (low + high) >> 1;
		if (code < (WIDE[2 * mid] as number)) high = mid - 1;
		else if (code > (WIDE[2 * mid + 1] as number)) low = mid + 1;
		else return true;
	}
	return false;
}

const MARK_START = /^\p{M}/u;
const IGNORABLE_START = /^\p{Default_Ignorable_Code_Point}/u;
const EMOJI_START = /^\p{Emoji}/u;

/**
 * Columns one grapheme cluster takes: 0 for controls, a lone combining mark or an invisible
 * (zero-width space, joiner, variation selector); 2 for East Asian wide and fullwidth characters
 * and emoji (a wide first character, a text-style one turned emoji by U+FE0F, a flag); else 1.
 * Only the first character counts otherwise: the rest of a cluster combines with it.
 */
export function graphemeWidth(grapheme: string): number {
	const code = grapheme.codePointAt(0) ?? 0;
	if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
	// Latin-1 alone: the common case, and the soft hyphen (invisible to Unicode) shows as 1, as in wcwidth.
	if (grapheme.length === 1 && code < 0x300) return 1;
	if (MARK_START.test(grapheme)) return 0;
	if (isWide(code)) return 2;
	if (IGNORABLE_START.test(grapheme)) return 0;
	if (grapheme.includes("\ufe0f") && EMOJI_START.test(grapheme)) return 2;
	// Two regional indicators are a flag: one picture, two columns.
	if (code >= 0x1f1e6 && code <= 0x1f1ff && grapheme.length >= 4) return 2;
	return 1;
}

let segmenter: Intl.Segmenter | undefined;

/** Text split into grapheme clusters (user-perceived characters), with one shared segmenter. */
export function segmentGraphemes(text: string): Intl.Segments {
	segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
	return segmenter.segment(text);
}

/**
 * Text made only of characters one column wide that never combine (ASCII, Latin, Greek, Cyrillic
 * without its combining marks, punctuation, arrows, box drawing): its width is its length, no
 * segmenting needed. Tree lines and tables are mostly this.
 */
const NARROW_ONLY =
	/^[\u0020-\u007e\u00a0-\u02ff\u0370-\u03ff\u0400-\u0482\u048a-\u04ff\u2010-\u2027\u2030-\u205e\u2190-\u21ff\u2500-\u259f]*$/;

/**
 * The characters that make a grapheme cluster of more than one code unit (Unicode's grapheme
 * break rules, UAX #29): surrogates (astral characters, emoji modifiers, regional indicators),
 * combining and spacing marks and the other extenders (ZWNJ, ZWJ, halfwidth sound marks), Hangul
 * jamo, the prepended characters, and the two spacing marks that are letters (Thai and Lao AM).
 * Text without any of them, once sanitized and flattened, has one cluster per code unit: it is
 * cut without the segmenter, which costs about half a microsecond a cluster (most of `tree`'s
 * time on a 100,000-entry session, issue 28).
 */
export const JOINS =
	// biome-ignore lint/suspicious/noMisleadingCharacterClass: single characters are what is asked (ZWJ alone is one)
	/[\p{M}\u200c\u200d\uff9e\uff9f\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\ud800-\udfff\u{10000}-\u{10ffff}\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u0d4e\u0e33\u0eb3]/u;

/**
 * {@link JOINS} for text walked a code point at a time ({@link measure}): without the astral
 * pictographs (U+1F300 to U+1FAFF but the skin tones U+1F3FB to U+1F3FF), which are clusters of
 * their own unless a character of this set comes before or after them (a ZWJ, a variation
 * selector, a skin tone, a tag). A reply with an emoji in it is then measured without the
 * segmenter, whose first use loads about 12–18 ms of data before browse's first frame. (The
 * previews cut by code units, preview.ts, keep {@link JOINS}.)
 * @internal
 */
export const JOINS_BY_POINT =
	// biome-ignore lint/suspicious/noMisleadingCharacterClass: single characters are what is asked (ZWJ alone is one)
	/[\p{M}\u200c\u200d\uff9e\uff9f\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\ud800-\udfff\u{10000}-\u{1f2ff}\u{1f3fb}-\u{1f3ff}\u{1fb00}-\u{10ffff}\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u0d4e\u0e33\u0eb3]/u;

/** The grapheme clusters of text, as strings. */
function* clusters(text: string): Generator<string> {
	for (const { segment } of segmentGraphemes(text)) yield segment;
}

/** How far text fits in a number of columns: see {@link measure}. */
interface Measure {
	/** Columns of the part that fits (of all the text when `end` is its length). */
	width: number;
	/** Where the part that fits in `limit` columns ends. */
	end: number;
	/** Where the part that fits in `limit - 1` columns ends: the head of a cut, before the `…`. */
	headEnd: number;
	/** Whether that head holds escape sequences. */
	headEscapes: boolean;
}

/**
 * Walks `text` (once) while it fits in `limit` columns. Escape sequences take no room and stay
 * with what comes before the next character, so a cut keeps the colours set up to it.
 */
function measure(text: string, limit: number): Measure {
	let width = 0;
	let escapes = false;
	let headEnd = -1;
	let headEscapes = false;
	let i = 0;
	while (i < text.length) {
		if (text.charCodeAt(i) === 0x1b) {
			ESCAPE_AT.lastIndex = i;
			if (ESCAPE_AT.test(text)) {
				escapes = true;
				i = ESCAPE_AT.lastIndex;
				continue;
			}
		}
		// Segmenting only up to the next escape keeps the walk linear and escapes out of clusters.
		const next = text.indexOf("\u001b", i + 1);
		const chunk = i === 0 && next === -1 ? text : text.slice(i, next === -1 ? text.length : next);
		// Without a character that joins (see JOINS_BY_POINT) each code point is a cluster of its
		// own: no segmenter, whose first use alone loads about 18 ms of data (before browse's first frame).
		for (const segment of JOINS_BY_POINT.test(chunk) ? clusters(chunk) : chunk) {
			const w = graphemeWidth(segment);
			if (headEnd === -1 && width + w > limit - 1) {
				headEnd = i;
				headEscapes = escapes;
			}
			if (width + w > limit) return { width, end: i, headEnd, headEscapes };
			width += w;
			i += segment.length;
		}
	}
	return { width, end: text.length, headEnd: headEnd === -1 ? text.length : headEnd, headEscapes };
}

/**
 * The length (in code units) of the longest head of `text` that fits in `columns` columns, cut
 * between grapheme clusters (0 when the first one is wider).
 */
export function fittingLength(text: string, columns: number): number {
	if (NARROW_ONLY.test(text)) return Math.min(text.length, Math.max(0, columns));
	return measure(text, columns).end;
}

/** Columns text takes on a terminal: wide characters and emoji two, escape sequences none. */
export function displayWidth(text: string): number {
	if (NARROW_ONLY.test(text)) return text.length;
	return measure(text, Number.POSITIVE_INFINITY).width;
}

/**
 * Cuts text to at most `columns` columns, ending a cut with `…` (which counts) after dropping the
 * white space before it. Never cuts inside a grapheme cluster. Escape sequences are kept (they
 * take no room), and a cut line that had any ends with {@link RESET}, so no colour runs on.
 */
export function truncateToWidth(text: string, columns: number): string {
	if (columns <= 0) return "";
	if (NARROW_ONLY.test(text)) {
		return text.length <= columns ? text : `${text.slice(0, columns - 1).trimEnd()}…`;
	}
	const { end, headEnd, headEscapes } = measure(text, columns);
	if (end === text.length) return text;
	const head = text.slice(0, headEnd);
	if (!headEscapes) return `${head.trimEnd()}…`;
	// Drop the white space at the end, but not the escape sequences among it.
	const tail = BLANK_TAIL.exec(head);
	const start = tail?.index ?? head.length;
	return `${head.slice(0, start)}${head.slice(start).match(ESCAPES)?.join("") ?? ""}…${RESET}`;
}

/** Text followed by spaces up to `columns` columns (as it is when already that wide). */
export function padEndToWidth(text: string, columns: number): string {
	const gap = columns - displayWidth(text);
	return gap > 0 ? text + " ".repeat(gap) : text;
}

/** Text preceded by spaces up to `columns` columns (as it is when already that wide). */
export function padStartToWidth(text: string, columns: number): string {
	const gap = columns - displayWidth(text);
	return gap > 0 ? " ".repeat(gap) + text : text;
}
