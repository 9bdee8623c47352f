/** Whether the CLI talks to a person: kept apart from the REPL so that checking loads nothing else. */

import type { CliIO } from "./args.js";

/** Whether stdin is a terminal (then the REPL is interactive). */
export function stdinIsTerminal(io: CliIO): boolean {
	return io.stdin.isTTY === true;
}

/** Whether a bare `session-tree` should start the REPL: stdin and stdout are both terminals. */
export function onTerminal(io: CliIO): boolean {
	return stdinIsTerminal(io) && process.stdout.isTTY === true;
}
