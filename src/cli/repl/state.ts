/**
 * The state of one REPL, independent of the terminal: the current session, where output goes,
 * and how errors become messages for the user.
 */

import { basename } from "node:path";
import { isSessionTreeError } from "../../core/errors.js";
import { errorCode } from "../../core/validate.js";
import { describeEntry, formatDescription, sanitize } from "../../render/preview.js";
import { truncateToWidth } from "../../render/terminal.js";
import type { Session } from "../../session.js";
import { CliError, UsageError } from "../args.js";
import { makeStyle, type Style } from "./style.js";
import { TokenizeError } from "./tokenize.js";

/** A command that could not do its job; the message is shown to the user as is. */
export class ReplError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "ReplError";
	}
}

/** Where a REPL writes, and the settings that shape its output. */
export interface ReplEnv {
	/** Data (stdout). */
	out(text: string): void;
	/** Warnings (stderr). */
	err(text: string): void;
	/** Colours for the output; plain when off. */
	style: Style;
	/** Columns to cut listings to (a terminal's width), or undefined to leave lines whole. */
	width?: () => number | undefined;
	/** Directory for `new` (default: pi's layout for the working directory). */
	dir?: string;
	/**
	 * Runs a full-screen program (`browse`) while the line editor lets go of the terminal; set
	 * by the interactive REPL. Without it the program runs as it is (a script has no editor).
	 */
	fullScreen?<T>(run: () => Promise<T>): Promise<T>;
	/** Clears the terminal's screen; set by the interactive REPL (a script has none to clear). */
	clearScreen?(): void;
}

/** The state of one REPL: the current session and where output goes. */
export class ReplState {
	session: Session | undefined;
	readonly env: ReplEnv;
	/** Set by `exit`: no more lines are to be read. */
	exitRequested = false;

	constructor(env: ReplEnv) {
		this.env = env;
	}

	/** The current session, or an error saying how to get one. */
	requireSession(): Session {
		if (!this.session) throw new ReplError("no session: start one with `new` or open one with `load FILE`");
		return this.session;
	}

	/** Makes `session` the current one, closing the previous. */
	async switchTo(session: Session): Promise<void> {
		const previous = this.session;
		// Switch first: should closing the old one fail, the new one is still the current one.
		this.session = session;
		if (previous && previous !== session) await previous.close();
	}

	/** Closes the current session's file handle. */
	async close(): Promise<void> {
		await this.session?.close();
	}

	/** Ids of the current session's entries (for completion). */
	ids(): string[] {
		return this.session ? this.session.getEntries().map((entry) => entry.id) : [];
	}

	/** A one-line preview of entry `id` of the current session, `columns` wide at most (for completion). */
	preview(id: string, columns: number): string | undefined {
		const entry = this.session?.getEntry(id);
		return entry === undefined ? undefined : truncateToWidth(formatDescription(describeEntry(entry), columns), columns);
	}

	/** The session name (or file name) and the leaf, for the prompt. */
	promptParts(): { title: string; leaf: string } | undefined {
		const session = this.session;
		if (!session) return undefined;
		const leaf = session.getLeafId();
		return { title: sessionTitle(session), leaf: leaf === null ? "(root)" : sanitize(leaf) };
	}

	/** `name 1a2b3c4d`: {@link promptParts} as one string. */
	promptLabel(): string | undefined {
		const parts = this.promptParts();
		return parts && `${parts.title} ${parts.leaf}`;
	}

	/** Writes one line of output. */
	line(text: string): void {
		this.env.out(`${text}\n`);
	}

	/** Lines of a listing, each cut to the width when there is one. */
	listing(lines: readonly string[]): void {
		const width = this.env.width?.();
		const fitted = width === undefined ? lines : lines.map((line) => truncateToWidth(line, width));
		this.env.out(fitted.map((line) => `${line}\n`).join(""));
	}

	/** An entry id as shown (coloured, sanitized: a file may hold any string as an id), `(root)` for null. */
	id(id: string | null): string {
		return id === null ? "(root)" : this.env.style.yellow(sanitize(id));
	}
}

/** The session's name, else its file name without `.jsonl` (shortened when long). */
export function sessionTitle(session: Session): string {
	const name = session.getSessionName();
	if (name !== undefined && name.trim() !== "") return shorten(sanitize(name.trim()), 32);
	const file =
		session.file !== undefined
			? basename(session.file).replace(/\.jsonl$/, "")
			: session.location.startsWith("memory:")
				? "(memory)"
				: (session.location.split("#")[1] ?? session.location);
	// pi's file names are <timestamp>_<uuid v7>: the uuid's random end tells them apart best.
	const pi = /^\d{4}-\d\d-\d\dT[\d-]+Z_[0-9a-f-]*([0-9a-f]{8})$/i.exec(file);
	return pi ? `…${pi[1]}` : shorten(sanitize(file), 32);
}

function shorten(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * A message for an error: the file is left out when it is the current session's own. The
 * command line's errors (the REPL runs some of its commands' code) are the user's, as the REPL's.
 */
export function errorMessage(state: ReplState, error: unknown): { message: string; internal?: boolean } {
	if (
		error instanceof ReplError ||
		error instanceof TokenizeError ||
		error instanceof CliError ||
		error instanceof UsageError
	) {
		return { message: error.message };
	}
	if (isSessionTreeError(error)) {
		const file = state.session?.location;
		const prefix = file === undefined ? undefined : `${file}: `;
		const message =
			prefix !== undefined && error.file === file && error.message.startsWith(prefix)
				? error.message.slice(prefix.length)
				: error.message;
		return { message };
	}
	if (error instanceof Error && typeof errorCode(error) === "string") {
		return { message: error.message };
	}
	const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
	return { message: `internal error: ${detail}`, internal: true };
}

/** A state for tests and scripts: plain output collected in strings. */
export function collectingState(options: { dir?: string; width?: number } = {}): {
	state: ReplState;
	output: () => string;
	errors: () => string;
} {
	let out = "";
	let err = "";
	const state = new ReplState({
		out: (text) => {
			out += text;
		},
		err: (text) => {
			err += text;
		},
		style: makeStyle(false),
		...(options.width !== undefined ? { width: () => options.width } : {}),
		...(options.dir !== undefined ? { dir: options.dir } : {}),
	});
	return {
		state,
		output: () => {
			const text = out;
			out = "";
			return text;
		},
		errors: () => {
			const text = err;
			err = "";
			return text;
		},
	};
}
