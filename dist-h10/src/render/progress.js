/**
 * A progress bar on stderr for work that may take a moment (listing or searching a thousand
 * session files). It appears only on a terminal, and only once the work has taken longer than
 * a short delay, so quick runs and piped or redirected stderr never see it. It draws on one
 * line (`\r`) and erases itself when done, leaving the terminal as it was.
 */
import { ERASE_TO_LINE_END, terminalWidth } from "./terminal.js";
const NO_PROGRESS = { update() { }, finish() { } };
/** A progress bar on `stream`, or one that does nothing when `stream` is not a terminal. */
export function createProgress(stream, options) {
    if (!stream?.isTTY)
        return NO_PROGRESS;
    const now = options.now ?? (() => performance.now());
    const delay = options.delayMs ?? 300;
    const interval = options.intervalMs ?? 50;
    const started = now();
    let lastDraw = Number.NEGATIVE_INFINITY;
    let drawn = false;
    return {
        update(done, total) {
            const time = now();
            if (time - started < delay || time - lastDraw < interval)
                return;
            lastDraw = time;
            drawn = true;
            stream.write(`\r${progressLine(options.label, done, total, terminalWidth(stream) ?? 80)}${ERASE_TO_LINE_END}`);
        },
        finish() {
            if (drawn)
                stream.write(`\r${ERASE_TO_LINE_END}`);
            drawn = false;
        },
    };
}
/** The text of the bar: `label [#####.....] done/total`, fitted to `columns`. */
export function progressLine(label, done, total, columns) {
    const count = `${done}/${total}`;
    const room = Math.max(0, Math.min(40, columns - label.length - count.length - 5));
    if (room < 5)
        return `${label} ${count}`.slice(0, Math.max(0, columns - 1));
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(fraction * room);
    return `${label} [${"#".repeat(filled)}${".".repeat(room - filled)}] ${count}`;
}
//# sourceMappingURL=progress.js.map