/**
 * Gives the terminal back whatever ends `session-tree browse`: a normal exit, an uncaught
 * exception or rejection, SIGTERM, SIGINT (Ctrl-C typed in raw mode is a key, handled as `q`;
 * this is the signal sent by `kill`) and SIGHUP. The screen is restored first, then the error
 * is reported (on the restored screen, where it can be read) and the process exits with the
 * usual code: 1 for a crash, 128 + the signal's number for a signal.
 */

/** The part of `process` the guard uses (a test passes a stand-in). */
export interface GuardedProcess {
	on(event: string, listener: (...args: unknown[]) => void): unknown;
	removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
	exit(code?: number): void;
}

/** Exit codes of the signals the guard handles (128 + the signal's number). */
export const SIGNAL_EXIT_CODES: Readonly<Record<string, number>> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

/**
 * Calls `restore` (once) when the process exits, crashes or is stopped by a signal; a crash is
 * then reported with `report` and exits 1, a signal exits with its code. Returns a function that
 * removes the handlers (call it once the terminal was restored the normal way).
 */
export function guardTerminal(
	restore: () => void,
	report: (text: string) => void,
	proc: GuardedProcess = process,
): () => void {
	let restored = false;
	const restoreOnce = () => {
		if (restored) return;
		restored = true;
		restore();
	};
	const crash = (error: unknown) => {
		try {
			restoreOnce();
		} finally {
			const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
			report(`session-tree: internal error: ${detail}\n`);
			proc.exit(1);
		}
	};
	const handlers: Array<[string, (...args: unknown[]) => void]> = [
		["exit", restoreOnce],
		["uncaughtException", crash],
		["unhandledRejection", crash],
	];
	for (const [signal, code] of Object.entries(SIGNAL_EXIT_CODES)) {
		handlers.push([
			signal,
			() => {
				try {
					restoreOnce();
				} finally {
					proc.exit(code);
				}
			},
		]);
	}
	for (const [event, handler] of handlers) proc.on(event, handler);
	return () => {
		for (const [event, handler] of handlers) proc.removeListener(event, handler);
	};
}
