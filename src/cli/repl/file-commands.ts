/** The REPL commands that choose the session file: new, load, fork, clone. */

import { resolve } from "node:path";
import { openByPrefix } from "../../catalog/session-location.js";
import { sanitize } from "../../render/preview.js";
import { Session } from "../../session.js";
import { schemeOf } from "../../storage/locations.js";
import { noMoreArgs, parseOptions, type ReplHandlers, requireArg } from "./command.js";
import type { ReplState } from "./state.js";

/** Opens a session file, printing what a lenient open worked around as warnings. */
export async function openSessionFile(state: ReplState, file: string, lenient: boolean): Promise<Session> {
	const open = (at: string) => Session.open(at, { lenient, verify: lenient });
	// A store's session may be named by a prefix of its id, as on the command line.
	const session = schemeOf(file) === undefined ? await open(resolve(file)) : await openByPrefix(file, open);
	for (const problem of session.problems) {
		const where = problem.line === undefined ? session.location : `${session.location}:${problem.line}`;
		state.env.err(`session-tree: warning: ${where}: ${problem.message}\n`);
	}
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
		const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
		const place = dir === undefined ? {} : { dir: schemeOf(dir) === undefined ? resolve(dir) : dir };
		await switchToNew(state, await Session.create({ cwd, ...place }));
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
		const id = args[0] === undefined ? undefined : session.resolveId(args[0]);
		const at = id ?? session.getLeafId();
		await switchToCopy(state, session, await session.fork(id), `forked at ${at === null ? "(root)" : state.id(at)}`);
	},

	async clone(state, args, command) {
		noMoreArgs(command, args, 0);
		const session = state.requireSession();
		await switchToCopy(state, session, await session.clone(), "cloned");
	},
} satisfies ReplHandlers;
