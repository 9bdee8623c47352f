/**
 * A progress bar on stderr for work that may take a moment (listing or searching a thousand
 * session files). It appears only on a terminal, and only once the work has taken longer than
 * a short delay, so quick runs and piped or redirected stderr never see it. It draws on one
 * line (`\r`) and erases itself when done, leaving the terminal as it was.
 */

import { ERASE_TO_LINE_END, terminalWidth } from "./terminal.js";

/** Where the bar is drawn: a terminal stream (stderr). */
export interface ProgressStream {
	isTTY?: boolean;
	columns?: number;
	write(text: string): unknown;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
	/** Words before the bar, e.g. "listing". */
	label: string;
	/** No bar before this many milliseconds have passed. Default 300. */
	delayMs?: number;
	/** Redraw at most this often. Default 50 ms. */
	intervalMs?: number;
	/** The clock (tests). Default `performance.now`. */
	now?: () => number;
}

/** A running progress bar. */
export interface Progress {
	/** Reports that `done` of `total` items are finished. Cheap when nothing is drawn. */
	update(done: number, total: number): void;
	/** Erases the bar (if it was drawn). Call it before printing anything else to the stream. */
	finish(): void;
}

const NO_PROGRESS: Progress = { update() {}, finish() {} };

/** A progress bar on `stream`, or one that does nothing when `stream` is not a terminal. */
export function createProgress(stream: ProgressStream | undefined, options: ProgressOptions): Progress {
	if (!stream?.isTTY) return NO_PROGRESS;
	const now = options.now ?? (() => performance.now());
	const delay = options.delayMs ?? 300;
	const interval = options.intervalMs ?? 50;
	const started = now();
	let lastDraw = Number.NEGATIVE_INFINITY;
	let drawn = false;
	return {
		update(done, total) {
			const time = now();
			if (time - started < delay || time - lastDraw < interval) return;
			lastDraw = time;
			drawn = true;
			stream.write(`\r${progressLine(options.label, done, total, terminalWidth(stream) ?? 80)}${ERASE_TO_LINE_END}`);
		},
		finish() {
			if (drawn) stream.write(`\r${ERASE_TO_LINE_END}`);
			drawn = false;
		},
	};
}

/** The text of the bar: `label [#####.....] done/total`, fitted to `columns`. */
export function progressLine(label: string, done: number, total: number, columns: number): string {
	const count = `${done}/${total}`;
	const room = Math.max(0, Math.min(40, columns - label.length - count.length - 5));
	if (room < 5) return `${label} ${count}`.slice(0, Math.max(0, columns - 1));
	const fraction = total > 0 ? Math.min(1, done / total) : 1;
	const filled = Math.round(fraction * room);
	return `${label} [${"#".repeat(filled)}${".".repeat(room - filled)}] ${count}`;
}
