/**
 * `session-tree browse` on the terminal: the first frame is drawn before the screen library is
 * loaded (first-frame.ts), then pi's TUI library (`@mariozechner/pi-tui`) runs the screen
 * (screen.ts): keys, redraws, the search and label inputs, the entry chosen with Enter handed
 * back to the command, which moves the leaf once the screen is closed.
 *
 * The screen is drawn on the terminal's alternate screen, which is left again, with raw mode
 * and the cursor restored, however the browser ends (guard.ts), before or after pi-tui started.
 */

import type { Session } from "../../session.js";
import { DeviceTerminal } from "./device.js";
import { type BrowseOptions, type BrowseOutcome, drawFirstFrame } from "./first-frame.js";
import { guardTerminal } from "./guard.js";

/** Switches to the alternate screen (the shell's screen is kept) and clears it. */
const ENTER_SCREEN = "\u001b[?1049h\u001b[H\u001b[2J";
/** The cursor to the top left corner, and the screen cleared. */
const CLEAR_SCREEN = "\u001b[H\u001b[2J";
/** Back to the normal screen, as it was; the cursor shown. */
const LEAVE_SCREEN = "\u001b[?1049l\u001b[?25h";

/**
 * Runs the browser on `options.device` until the user leaves or chooses an entry. The
 * terminal is restored before the promise settles.
 */
export function browse(session: Session, options: BrowseOptions): Promise<BrowseOutcome> {
	return new Promise((resolve, reject) => {
		const output = options.device.output;
		const terminal = new DeviceTerminal(options.device);
		/** pi-tui's screen, once it started (after the first frame). */
		let tui: { stop(): void } | undefined;
		let stopped = false;
		const restore = () => {
			if (stopped) return;
			stopped = true;
			try {
				// Emptied first: tmux 3.3, after the terminal grew wider, carries lines of the alternate
				// screen wider than the old width over to the shell's screen when it is left. From the
				// top, pi-tui's stop (the cursor below the last line drawn, a new line) cannot scroll.
				output.write(CLEAR_SCREEN);
				if (tui) tui.stop();
				else terminal.stop();
			} finally {
				output.write(LEAVE_SCREEN);
			}
		};
		const unguard = guardTerminal(restore, (text) => process.stderr.write(text));
		let ending = false;
		const end = (settle: () => void) => {
			if (ending) return;
			ending = true;
			restore();
			unguard();
			settle();
		};
		const finish = (outcome: BrowseOutcome) => end(() => resolve(outcome));
		const fail = (error: unknown) => end(() => reject(error));
		try {
			output.write(ENTER_SCREEN);
			// Keys typed before the screen takes them wait unread, and are not echoed over the frame.
			terminal.holdKeys();
			const first = drawFirstFrame(session, options, terminal, (text) => output.write(text));
			// pi-tui, and the screen made of it, only now (see first-frame.ts).
			import("./screen.js").then(({ runScreen }) => {
				if (ending) return;
				tui = runScreen(session, options, terminal, first, finish, fail);
			}, fail);
		} catch (error) {
			fail(error);
		}
	});
}
