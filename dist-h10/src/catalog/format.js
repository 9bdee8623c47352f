/** Text formatting for the collection commands: relative times, sizes, one-line text (widths: render/terminal.ts). */
import { sanitize } from "../render/preview.js";
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/**
 * How long ago `date` was, shortly: `12s ago`, `3m ago`, `5h ago`, `2d ago`, `3w ago`,
 * `4mo ago`, `2y ago` (`just now` under a second; `in 5m` for a time in the future).
 */
export function relativeTime(date, now) {
    const diff = now.getTime() - date.getTime();
    const span = Math.abs(diff);
    if (span < SECOND)
        return "just now";
    let amount;
    if (span < MINUTE)
        amount = `${Math.floor(span / SECOND)}s`;
    else if (span < HOUR)
        amount = `${Math.floor(span / MINUTE)}m`;
    else if (span < DAY)
        amount = `${Math.floor(span / HOUR)}h`;
    else if (span < 14 * DAY)
        amount = `${Math.floor(span / DAY)}d`;
    else if (span < 60 * DAY)
        amount = `${Math.floor(span / (7 * DAY))}w`;
    else if (span < 730 * DAY)
        amount = `${Math.floor(span / (30 * DAY))}mo`;
    else
        amount = `${Math.floor(span / (365 * DAY))}y`;
    return diff >= 0 ? `${amount} ago` : `in ${amount}`;
}
/** The local calendar date, `YYYY-MM-DD`. */
export function localDate(date) {
    const pad = (n) => String(n).padStart(2, "0");
    return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
/** The time column of `ls`: relative, plus the local date once it is a day or more ago. */
export function whenText(date, now) {
    const relative = relativeTime(date, now);
    return Math.abs(now.getTime() - date.getTime()) >= DAY ? `${relative} (${localDate(date)})` : relative;
}
/** A size in bytes for people: `812 B`, `4.1 KiB`, `287 KiB`, `1.2 MiB`. */
export function formatBytes(bytes) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let value = bytes;
    let unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
        value /= 1024;
        unit++;
    }
    if (unit === 0)
        return `${bytes} B`;
    const shown = value < 10 ? value.toFixed(1) : String(Math.round(value));
    // 1023.6 KiB rounds to 1024: say 1.0 MiB instead.
    if (shown === "1024" && unit < units.length - 1)
        return `1.0 ${units[unit + 1]}`;
    return `${shown} ${units[unit]}`;
}
/**
 * Text as one terminal-safe line: controls and line breaks become spaces, runs of white space
 * collapse, the ends are trimmed. At most `maxChars` characters of the input are looked at
 * (a first message may be a pasted megabyte).
 */
export function flatten(text, maxChars = 4096) {
    const head = text.length > maxChars ? text.slice(0, maxChars) : text;
    return sanitize(head).replace(/\s+/g, " ").trim();
}
/** Removes white space runs and controls like {@link flatten}, but keeps the ends (for snippets). */
export function flattenKeepEnds(text) {
    return sanitize(text).replace(/\s+/g, " ");
}
//# sourceMappingURL=format.js.map