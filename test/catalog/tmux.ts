/**
 * Running `session-tree` in a real terminal for the `ls`/`search` terminal tests: tmux (Debian
 * package `tmux`) on a private server socket, a pane of a fixed size, `capture-pane -e` for the
 * screen with its attributes and `pipe-pane` for the raw bytes written to the terminal.
 */

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN } from "../cli/helpers.js";

export const haveTmux = spawnSync("tmux", ["-V"]).status === 0;
/** Skip without tmux, except in CI (CI set), where the tests must run. */
export const skipWithoutTmux = !haveTmux && !process.env.CI ? "tmux is not installed (apt-get install tmux)" : false;

const socket = `st-catalog-${process.pid}`;
const env = { ...process.env };
delete env.TMUX;
delete env.TMUX_PANE;

/** Runs a tmux command on this process's private server; throws with its stderr on failure. */
export function tmux(...args: string[]): string {
	const result = spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8", env });
	if (result.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr}`);
	return result.stdout;
}

/**
 * Starts the private server once, kept alive between sessions: otherwise a session started while
 * the previous one's server shuts down fails with "server exited unexpectedly".
 */
let serverStarted = false;
export function ensureServer(): void {
	if (serverStarted) return;
	tmux("start-server", ";", "set-option", "-g", "exit-empty", "off");
	serverStarted = true;
}

/** Quotes a word for the shell command a pane runs. */
export const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
let panes = 0;

/** Removes ANSI SGR sequences. */
export function stripAnsi(text: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is the point
	return text.replace(/\u001b\[[0-9;]*m/g, "");
}

/** What a command did on the terminal. */
export interface TerminalRun {
	/** The screen at the end, wrapped lines joined (`capture-pane -J`), with attributes. */
	screen: string;
	/** Every byte the command wrote to the terminal (stdout and stderr). */
	raw: string;
}

/**
 * Runs `session-tree ARGS` in a fresh WIDTH×HEIGHT pane with the environment `vars`
 * (`NAME=value` words) and returns the screen and the raw output once it has finished.
 */
export async function runInTerminal(
	args: readonly string[],
	vars: readonly string[],
	options: { width: number; height: number; logDir: string },
): Promise<TerminalRun> {
	const name = `c${panes++}`;
	const log = join(options.logDir, `${name}.log`);
	const done = join(options.logDir, `${name}.done`);
	// Wait a moment so that pipe-pane is set up before the command writes anything.
	const command =
		// The binary's cache (the catalog index) in the log directory unless `vars` say otherwise.
		`sleep 0.3; env -u FORCE_COLOR -u NO_COLOR TERM=xterm-256color ${quote(`XDG_CACHE_HOME=${join(options.logDir, "cache")}`)} ${vars.map(quote).join(" ")} ` +
		`${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(" ")}; touch ${quote(done)}; sleep 60`;
	ensureServer();
	tmux("new-session", "-d", "-s", name, "-x", String(options.width), "-y", String(options.height), command);
	tmux("pipe-pane", "-o", "-t", name, `cat >> ${quote(log)}`);
	const started = Date.now();
	try {
		while (!existsSync(done)) {
			if (Date.now() - started > 20_000)
				throw new Error(`timed out; the screen:\n${tmux("capture-pane", "-p", "-t", name)}`);
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
		await new Promise((resolve) => setTimeout(resolve, 100));
		const screen = tmux("capture-pane", "-p", "-e", "-J", "-t", name);
		return { screen, raw: existsSync(log) ? readFileSync(log, "utf8") : "" };
	} finally {
		tmux("kill-session", "-t", name);
	}
}

/** Stops the private tmux server. */
export function stopTmux(): void {
	if (haveTmux) spawnSync("tmux", ["-L", socket, "kill-server"], { env });
}
