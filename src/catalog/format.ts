/** Text formatting for the collection commands: relative times, sizes, one-line text (widths: render/terminal.ts). */

import { sanitize } from "../render/preview.js";

// Sizes as `ls` shows them, the same as the importer's messages (import/ cannot import this
// module: it sits below catalog/).
export { formatBytes } from "../import/format-bytes.js";

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
