/**
 * The REPL's two ways of running: interactive on a terminal (prompt, line editing, tab
 * completion, history across runs, colours) and scripted when stdin is not a terminal (one
 * command per line, plain output, errors as `session-tree: line N: message`).
 */

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { clearScreenDown, createInterface, cursorTo } from "node:readline";
import { shouldColor, terminalWidth } from "../../render/terminal.js";
import { CliError, type CliIO } from "../args.js";
import { stdinIsTerminal } from "../terminal.js";
import { executeLine } from "./commands.js";
import { completeLine, type DirEntry } from "./completion.js";
import { loadedLine, openSessionFile } from "./file-commands.js";
import { HISTORY_SIZE, History, historyFile } from "./history.js";
import { errorMessage, ReplState } from "./state.js";
import { makeStyle, type Style } from "./style.js";

/** What the `repl` command was given. */
export interface ReplOptions {
	/** A session file to open first. */
	file?: string;
	/** Directory for `new`. */
	dir?: string;
	/** Scripted: stop at the first failing command. */
	strict?: boolean;
	/** Open `file` leniently. */
	lenient?: boolean;
}

/** Opens the initial file, if any; a failure stops the REPL before it starts. */
async function openInitial(state: ReplState, options: ReplOptions): Promise<boolean> {
	if (options.file === undefined) return false;
	try {
		await state.switchTo(await openSessionFile(state, options.file, options.lenient === true));
		return true;
	} catch (error) {
		throw new CliError(errorMessage(state, error).message);
	}
}

/**
 * Runs the commands read from `io.stdin`, one per line. Output is plain; each failing line is
 * reported on stderr as `session-tree: line N: message`.
 * @throws CliError when a command failed (after the last line, or at the first with `strict`)
 */
export async function runScript(io: CliIO, options: ReplOptions): Promise<void> {
	const state = new ReplState({ out: io.out, err: io.err, style: makeStyle(false), dir: options.dir });
	await openInitial(state, options);
	const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
	let lineNumber = 0;
	let commands = 0;
	let failed = 0;
	let stoppedAt: number | undefined;
	let stoppedEarly = false;
	try {
		for await (const line of lines) {
			lineNumber++;
			const outcome = await executeLine(state, line);
			if (outcome.kind === "empty") continue;
			commands++;
			if (outcome.kind === "exit") {
				stoppedEarly = true;
				break;
			}
			if (outcome.kind === "error") {
				failed++;
				io.err(`session-tree: line ${lineNumber}: ${outcome.message}\n`);
				if (options.strict) {
					stoppedAt = lineNumber;
					stoppedEarly = true;
					break;
				}
			}
		}
	} finally {
		lines.close();
		await state.close();
	}
	// Stopped before the end (exit, --strict): let go of stdin, or an open pipe keeps us waiting.
	if (stoppedEarly) io.stdin.destroy?.();
	if (stoppedAt !== undefined) throw new CliError(`stopped at line ${stoppedAt} (--strict)`);
	if (failed > 0) throw new CliError(`${failed} of ${commands} commands failed`);
}

/** The prompt: `session-tree [name-or-file leaf]> `, or `session-tree> ` without a session. */
export function promptText(state: ReplState, style: Style): string {
	const parts = state.promptParts();
	if (!parts) return `${style.bold("session-tree")}> `;
	return `${style.bold("session-tree")} [${style.cyan(parts.title)} ${style.yellow(parts.leaf)}]> `;
}

function listDir(dir: string): DirEntry[] {
	return readdirSync(dir, { withFileTypes: true }).map((entry) => {
		let isDirectory = entry.isDirectory();
		if (entry.isSymbolicLink()) {
			try {
				isDirectory = statSync(join(dir, entry.name)).isDirectory();
			} catch {
				// A dangling link: offered as a file.
			}
		}
		return { name: entry.name, isDirectory };
	});
}

/**
 * The interactive REPL on a terminal: line editing, Tab completion, Up/Down through the
 * history (kept across runs), Ctrl-C to drop the line, Ctrl-D or `exit` to leave.
 */
export async function runInteractive(io: CliIO, options: ReplOptions): Promise<void> {
	const stdout = process.stdout;
	// The prompt goes where the person sees it: stdout, or stderr when stdout is piped.
	const terminal = stdout.isTTY ? stdout : process.stderr;
	const style = makeStyle(shouldColor(stdout));
	const state = new ReplState({
		out: io.out,
		err: io.err,
		style,
		width: () => terminalWidth(stdout),
		dir: options.dir,
	});
	await openInitial(state, options);
	const history = new History(historyFile(), {
		warn: (message) => io.err(`session-tree: warning: ${message}\n`),
	});
	const saved = history.load();
	const rl = createInterface({
		input: io.stdin,
		output: terminal,
		terminal: true,
		history: [...saved].reverse(),
		historySize: HISTORY_SIZE,
		removeHistoryDuplicates: false,
		tabSize: 4,
		completer: (line: string): [string[], string] => {
			try {
				return completeLine(line, {
					ids: () => state.ids(),
					preview: (id, columns) => state.preview(id, columns),
					columns: terminal.columns ?? 80,
					listDir,
				});
			} catch {
				return [[], ""];
			}
		},
	});
	const input = io.stdin;
	state.env.fullScreen = async (run) => {
		// readline reads keys through `keypress` events on its input: while they have no listener
		// its reader lets go of the input too, and every key goes to the full-screen program.
		const keypress = input.listeners("keypress") as Array<(...args: unknown[]) => void>;
		input.removeAllListeners("keypress");
		rl.pause();
		try {
			return await run();
		} finally {
			for (const listener of keypress) input.on("keypress", listener);
			// The program set the terminal's raw mode back as it found it: readline's.
			rl.resume();
		}
	};
	state.env.clearScreen = () => {
		// What Ctrl-L does in readline.
		cursorTo(terminal, 0, 0);
		clearScreenDown(terminal);
	};
	if (state.session) state.line(loadedLine(state, state.session));
	else terminal.write(style.dim("session-tree REPL: `help` lists the commands, Tab completes, Ctrl-D leaves.\n"));
	const prompt = () => {
		rl.setPrompt(promptText(state, style));
		rl.prompt();
	};
	let exited = false;
	// Commands may be asynchronous: each line waits for the one before (a pasted block runs in
	// order), and the prompt comes back when its command is done.
	let running: Promise<void> = Promise.resolve();
	const runLine = async (line: string): Promise<void> => {
		if (exited) return;
		history.add(line);
		const outcome = await executeLine(state, line);
		if (outcome.kind === "exit") {
			exited = true;
			rl.close();
			return;
		}
		// Plain: stderr is made safe for the terminal as a whole (src/cli/run.ts), colours included.
		if (outcome.kind === "error") io.err(`error: ${outcome.message}\n`);
		prompt();
	};
	await new Promise<void>((done) => {
		rl.on("line", (line) => {
			running = running
				.then(() => runLine(line))
				.catch((error: unknown) => {
					// Not from the command (executeLine catches those): keep the REPL going all the same.
					io.err(`error: ${errorMessage(state, error).message}\n`);
					prompt();
				});
		});
		rl.on("SIGINT", () => {
			// As in a shell: drop the line being typed and start afresh.
			rl.write(null, { ctrl: true, name: "e" });
			terminal.write("^C\n");
			rl.write(null, { ctrl: true, name: "u" });
			prompt();
		});
		rl.on("close", () => {
			// Ctrl-D while a command runs: leave once it is done.
			void running.then(done);
		});
		prompt();
	});
	// Ctrl-D leaves the cursor after the prompt.
	if (!exited) terminal.write("\n");
	history.trim();
	await state.close();
}

/** Runs the REPL: interactive when stdin is a terminal, scripted otherwise. */
export async function runRepl(io: CliIO, options: ReplOptions): Promise<void> {
	if (stdinIsTerminal(io)) await runInteractive(io, options);
	else await runScript(io, options);
}
