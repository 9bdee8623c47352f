/** The REPL commands that choose the session file: new, load, fork, clone. */

import { resolve } from "node:path";
import { openByPrefix } from "../../catalog/session-location.js";
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
	return `${session.location}: ${count} ${count === 1 ? "entry" : "entries"}, leaf ${state.id(session.getLeafId())}`;
}

/** Makes a new, forked or cloned session the current one and prints its file. */
async function switchToNew(state: ReplState, session: Session): Promise<void> {
	await state.switchTo(session);
	state.line(session.location);
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
		await switchToNew(state, await session.fork(id));
	},

	async clone(state, args, command) {
		noMoreArgs(command, args, 0);
		await switchToNew(state, await state.requireSession().clone());
	},
} satisfies ReplHandlers;
