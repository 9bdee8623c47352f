/** Text formatting for the collection commands: relative times, sizes, one-line text fitted to a width. */

import { sanitize } from "../render/preview.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long ago `date` was, shortly: `12s ago`, `3m ago`, `5h ago`, `2d ago`, `3w ago`,
 * `4mo ago`, `2y ago` (`just now` under a second; `in 5m` for a time in the future).
 */
export function relativeTime(date: Date, now: Date): string {
	const diff = now.getTime() - date.getTime();
	const span = Math.abs(diff);
	if (span < SECOND) return "just now";
	let amount: string;
	if (span < MINUTE) amount = `${Math.floor(span / SECOND)}s`;
	else if (span < HOUR) amount = `${Math.floor(span / MINUTE)}m`;
	else if (span < DAY) amount = `${Math.floor(span / HOUR)}h`;
	else if (span < 14 * DAY) amount = `${Math.floor(span / DAY)}d`;
	else if (span < 60 * DAY) amount = `${Math.floor(span / (7 * DAY))}w`;
	else if (span < 730 * DAY) amount = `${Math.floor(span / (30 * DAY))}mo`;
	else amount = `${Math.floor(span / (365 * DAY))}y`;
	return diff >= 0 ? `${amount} ago` : `in ${amount}`;
}

/** The local calendar date, `YYYY-MM-DD`. */
export function localDate(date: Date): string {
	const pad = (n: number) => String(n).padStart(2, "0");
	return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The time column of `ls`: relative, plus the local date once it is a day or more ago. */
export function whenText(date: Date, now: Date): string {
	const relative = relativeTime(date, now);
	return Math.abs(now.getTime() - date.getTime()) >= DAY ? `${relative} (${localDate(date)})` : relative;
}

/** A size in bytes for people: `812 B`, `4.1 KiB`, `287 KiB`, `1.2 MiB`. */
export function formatBytes(bytes: number): string {
	const units = ["B", "KiB", "MiB", "GiB", "TiB"];
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	if (unit === 0) return `${bytes} B`;
	const shown = value < 10 ? value.toFixed(1) : String(Math.round(value));
	// 1023.6 KiB rounds to 1024: say 1.0 MiB instead.
	if (shown === "1024" && unit < units.length - 1) return `1.0 ${units[unit + 1]}`;
	return `${shown} ${units[unit]}`;
}

/**
 * Text as one terminal-safe line: controls and line breaks become spaces, runs of white space
 * collapse, the ends are trimmed. At most `maxChars` characters of the input are looked at
 * (a first message may be a pasted megabyte).
 */
export function flatten(text: string, maxChars = 4096): string {
	const head = text.length > maxChars ? text.slice(0, maxChars) : text;
	return sanitize(head).replace(/\s+/g, " ").trim();
}

/** Removes white space runs and controls like {@link flatten}, but keeps the ends (for snippets). */
export function flattenKeepEnds(text: string): string {
	return sanitize(text).replace(/\s+/g, " ");
}

let segmenter: Intl.Segmenter | undefined;

function graphemes(text: string): Iterable<string> {
	segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
	return Array.from(segmenter.segment(text), (part) => part.segment);
}

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;
const EMOJI = /\p{Extended_Pictographic}/u;

/** Columns a grapheme takes on a terminal: 0, 1 or 2 (East Asian wide and emoji). */
function graphemeWidth(grapheme: string): number {
	if (ZERO_WIDTH.test(grapheme)) return 0;
	const code = grapheme.codePointAt(0) ?? 0;
	if (code < 0x1100) return 1;
	if (EMOJI.test(grapheme) && (grapheme.includes("\ufe0f") || code >= 0x1f000)) return 2;
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

/** Columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
	if (/^[\u0020-\u007e]*$/.test(text)) return text.length;
	let width = 0;
	for (const grapheme of graphemes(text)) width += graphemeWidth(grapheme);
	return width;
}

/** `text` cut to at most `width` columns, a cut marked with `…`. */
export function fitWidth(text: string, width: number): string {
	if (width <= 0) return "";
	if (displayWidth(text) <= width) return text;
	let out = "";
	let used = 0;
	for (const grapheme of graphemes(text)) {
		const w = graphemeWidth(grapheme);
		if (used + w > width - 1) break;
		out += grapheme;
		used += w;
	}
	return `${out.trimEnd()}…`;
}

/** The last characters of `text` taking at most `width` columns, a cut marked with a leading `…`. */
export function fitWidthFromEnd(text: string, width: number): string {
	if (width <= 0) return "";
	if (displayWidth(text) <= width) return text;
	const parts = Array.from(graphemes(text));
	let out = "";
	let used = 0;
	for (let i = parts.length - 1; i >= 0; i--) {
		const grapheme = parts[i] as string;
		const w = graphemeWidth(grapheme);
		if (used + w > width - 1) break;
		out = grapheme + out;
		used += w;
	}
	return `…${out.trimStart()}`;
}
