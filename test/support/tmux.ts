/**
 * Driving terminal programs under tmux, for the tests of the REPL and of `browse`: whether
 * tmux is here (else the tests skip, or fail under CI), a tmux client on a server of the test's
 * own, and shell quoting for the command lines sent to it.
 */

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";

/** How long to wait for the screen to show something. */
export const WAIT_MS = 8000;

/** Whether tmux is on PATH. */
export const haveTmux = spawnSync("tmux", ["-V"]).status === 0;

/** Why tmux tests cannot run here, or false: they skip without tmux, except under CI, where they fail. */
export const tmuxSkip: string | false =
	!haveTmux && !process.env.CI
		? "tmux is not installed (apt-get install tmux); these tests run, and fail without it, when CI is set"
		: false;

/** The environment tmux itself runs with (not inside another tmux). */
export const tmuxEnv = { ...process.env };
delete tmuxEnv.TMUX;
delete tmuxEnv.TMUX_PANE;

/** A tmux command runner on the server named `socket` (`tmux -L socket …`); throws when tmux fails. */
export function tmuxOn(socket: string): (...args: string[]) => string {
	return (...args) => {
		const result = spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8", env: tmuxEnv });
		if (result.error) throw result.error;
		if (result.status !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${result.stderr.trim()}`);
		return result.stdout;
	};
}

/** `word` quoted for a POSIX shell. */
export function shellQuote(word: string): string {
	return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Stops the tmux server named `socket` and removes the socket file tmux leaves behind. */
export function stopTmuxServer(socket: string): void {
	spawnSync("tmux", ["-L", socket, "kill-server"], { env: tmuxEnv });
	const uid = process.getuid?.() ?? 0;
	rmSync(join(process.env.TMUX_TMPDIR ?? "/tmp", `tmux-${uid}`, socket), { force: true });
}
