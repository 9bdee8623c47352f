/**
 * The REPL commands that choose the session file: new, load, fork, clone. new, fork and clone
 * do their work through the command line's own (src/cli/commands/write.ts); here they are
 * parsed from the REPL's words, and the REPL switches to the session they make.
 */

import { resolve } from "node:path";
import { openByPrefix } from "../../catalog/session-location.js";
import { sanitize } from "../../render/preview.js";
import { Session } from "../../session.js";
import { schemeOf } from "../../storage/locations.js";
import { cloneSession, createSession, forkSession } from "../commands/write.js";
import { printProblems } from "../open.js";
import { noMoreArgs, parseOptions, type ReplHandlers, requireArg } from "./command.js";
import type { ReplState } from "./state.js";

/** Opens a session file, printing what a lenient open worked around as warnings. */
export async function openSessionFile(state: ReplState, file: string, lenient: boolean): Promise<Session> {
	const open = (at: string) => Session.open(at, { lenient, verify: lenient });
	// A store's session may be named by a prefix of its id, as on the command line.
	const session = schemeOf(file) === undefined ? await open(resolve(file)) : await openByPrefix(file, open);
	printProblems(session, state.env);
	return session;
}

/** `FILE: N entries, leaf ID`: what `load` prints. */
export function loadedLine(state: ReplState, session: Session): string {
	const count = session.entryCount;
	return `${sanitize(session.location)}: ${count} ${count === 1 ? "entry" : "entries"}, leaf ${state.id(session.getLeafId())}`;
}

/** Makes a new, forked or cloned session the current one and prints its file. */
async function switchToNew(state: ReplState, session: Session): Promise<void> {
	await state.switchTo(session);
	state.line(sanitize(session.location));
}

/**
 * Makes a fork or clone of `from` the current session, and says so: its file (the first line,
 * alone, for scripts), then that the REPL now edits it and how to go back to the original,
 * which is unchanged. The prompt changes too, but a new file name is easy to miss there.
 */
async function switchToCopy(state: ReplState, from: Session, copy: Session, how: string): Promise<void> {
	const original = sanitize(from.location);
	await switchToNew(state, copy);
	state.line(state.env.style.dim(`${how}: the REPL now edits this new file (\`load ${original}\` goes back)`));
}

/** The handlers of new, load, fork and clone. */
export const FILE_COMMANDS = {
	async new(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		noMoreArgs(command, positionals, 0);
		const dir = typeof values.dir === "string" ? values.dir : state.env.dir;
		const cwd = typeof values.cwd === "string" ? values.cwd : undefined;
		await switchToNew(state, await createSession(dir, cwd));
	},

	async load(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		const file = requireArg(command, positionals, 0, "<file>");
		noMoreArgs(command, positionals, 1);
		const session = await openSessionFile(state, file, values.lenient === true);
		await state.switchTo(session);
		state.line(loadedLine(state, session));
	},

	async fork(state, args, command) {
		noMoreArgs(command, args, 1);
		const session = state.requireSession();
		const { fork, at } = await forkSession(session, args[0]);
		await switchToCopy(state, session, fork, `forked at ${state.id(at)}`);
	},

	async clone(state, args, command) {
		noMoreArgs(command, args, 0);
		const session = state.requireSession();
		await switchToCopy(state, session, await cloneSession(session), "cloned");
	},
} satisfies ReplHandlers;
