/**
 * The REPL's command history, kept across runs in a file of one command per line (oldest
 * first), private to the user (mode 0600):
 *
 * - `$SESSION_TREE_HISTORY` if set (set to the empty string, no history is kept);
 * - else `$XDG_STATE_HOME/session-tree/history` when XDG_STATE_HOME is an absolute path;
 * - else `~/.local/state/session-tree/history`.
 *
 * Each command is appended when it is entered, so a crash loses nothing and two REPLs
 * running at once both keep theirs; the file is cut to the last {@link HISTORY_SIZE} lines
 * when a REPL starts and when it ends.
 */

import { appendFileSync, chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { describeSystemError } from "../../core/errors.js";
import { errorCode } from "../../core/validate.js";

/** How many commands the history keeps. */
export const HISTORY_SIZE = 1000;

/** The history file, or undefined when history is turned off. */
export function historyFile(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string | undefined {
	const override = env.SESSION_TREE_HISTORY;
	if (override !== undefined) return override === "" ? undefined : override;
	const state = env.XDG_STATE_HOME;
	const base = state !== undefined && isAbsolute(state) ? state : join(home, ".local", "state");
	return join(base, "session-tree", "history");
}

/** Whether a line goes into the history: not blank, and (as in shells) not starting with a space. */
export function worthKeeping(line: string): boolean {
	return line.trim() !== "" && !line.startsWith(" ");
}

/** The commands of a history text, oldest first, at most `size`. */
export function parseHistory(text: string, size: number = HISTORY_SIZE): string[] {
	const lines = text.split("\n").filter((line) => line.trim() !== "");
	return lines.slice(Math.max(0, lines.length - size));
}

/** A history file: read at the start, appended to as commands are entered. */
export class History {
	readonly file: string | undefined;
	private readonly size: number;
	private readonly warn: (message: string) => void;
	private warned = false;
	private last: string | undefined;

	constructor(file: string | undefined, options: { size?: number; warn?: (message: string) => void } = {}) {
		this.file = file;
		this.size = options.size ?? HISTORY_SIZE;
		this.warn = options.warn ?? (() => {});
	}

	/** The saved commands, oldest first (cut to the size, and the file with them). */
	load(): string[] {
		if (this.file === undefined) return [];
		let text: string;
		try {
			text = readFileSync(this.file, "utf8");
		} catch (error) {
			if (errorCode(error) !== "ENOENT") this.fail(error);
			return [];
		}
		const lines = parseHistory(text, this.size);
		if (text.split("\n").filter((line) => line.trim() !== "").length > this.size) this.rewrite(this.file, lines);
		this.last = lines[lines.length - 1];
		return lines;
	}

	/** Appends a command without trailing spaces (not a blank one, nor a repeat of the previous one). */
	add(entered: string): void {
		const line = entered.trimEnd();
		if (this.file === undefined || !worthKeeping(line) || line === this.last) return;
		this.last = line;
		try {
			mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
			appendFileSync(this.file, `${line}\n`, { mode: 0o600 });
		} catch (error) {
			this.fail(error);
		}
	}

	/** Cuts the file to the last `size` commands (when it grew beyond). */
	trim(): void {
		if (this.file === undefined) return;
		try {
			const text = readFileSync(this.file, "utf8");
			const all = text.split("\n").filter((line) => line.trim() !== "");
			if (all.length > this.size) this.rewrite(this.file, all.slice(all.length - this.size));
		} catch (error) {
			if (errorCode(error) !== "ENOENT") this.fail(error);
		}
	}

	/** Replaces the history file with `lines` (through a temporary file, renamed over it). */
	private rewrite(file: string, lines: readonly string[]): void {
		const temp = `${file}.${process.pid}.tmp`;
		try {
			writeFileSync(temp, lines.map((line) => `${line}\n`).join(""), { mode: 0o600 });
			chmodSync(temp, 0o600);
			renameSync(temp, file);
		} catch (error) {
			this.fail(error);
		}
	}

	private fail(error: unknown): void {
		if (this.warned) return;
		this.warned = true;
		this.warn(`history not saved (${describeSystemError(error)})`);
	}
}
