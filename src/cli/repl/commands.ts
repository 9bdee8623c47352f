/**
 * The REPL's dispatcher: its table of commands (the registry's REPL specs, each with the
 * handler that runs it) and {@link executeLine}, which runs one line and says how it went.
 * Everything here is independent of the terminal: a {@link ReplState} holds the current
 * session and writes through the functions it is given.
 */

import { findReplSpec, REPL_COMMAND_SPECS, type ReplCommandName } from "../registry.js";
import { ARCHIVE_COMMANDS } from "./archive-commands.js";
import { CATALOG_COMMANDS } from "./catalog-commands.js";
import type { ReplCommand, ReplHandler } from "./command.js";
import { EDIT_COMMANDS } from "./edit-commands.js";
import { FILE_COMMANDS } from "./file-commands.js";
import { META_COMMANDS } from "./meta-commands.js";
import { errorMessage, ReplError, type ReplState } from "./state.js";
import { splitWords } from "./tokenize.js";
import { VIEW_COMMANDS } from "./view-commands.js";

// One handler per REPL command of the registry: the type checks that none is missing.
const HANDLERS: Record<ReplCommandName, ReplHandler> = {
	...FILE_COMMANDS,
	...EDIT_COMMANDS,
	...ARCHIVE_COMMANDS,
	...VIEW_COMMANDS,
	...CATALOG_COMMANDS,
	...META_COMMANDS,
};

/** Every REPL command, in the order `help` lists them. */
export const REPL_COMMANDS: readonly ReplCommand[] = REPL_COMMAND_SPECS.map((spec) => {
	const handler = HANDLERS[spec.name];
	return { ...spec, run: (state: ReplState, args: string[]) => handler(state, args, spec) };
});

const BY_NAME = new Map(REPL_COMMANDS.map((command) => [command.name, command]));

/** The command called `word` (by name or alias, as the registry resolves them), if any. */
export function findReplCommand(word: string): ReplCommand | undefined {
	const spec = findReplSpec(word);
	return spec && BY_NAME.get(spec.name);
}

/** How running a line went. */
export type LineOutcome =
	| { kind: "empty" }
	| { kind: "ok" }
	| { kind: "exit" }
	| { kind: "error"; message: string; internal?: boolean };

/**
 * Runs one line: blank lines and lines starting with `#` do nothing, anything else is a
 * command and its arguments. Errors (thrown or rejected) are caught and returned as messages.
 */
export async function executeLine(state: ReplState, line: string): Promise<LineOutcome> {
	const trimmed = line.trim();
	if (trimmed === "" || trimmed.startsWith("#")) return { kind: "empty" };
	try {
		const [word, ...args] = splitWords(trimmed);
		if (word === undefined) return { kind: "empty" };
		const command = findReplCommand(word);
		if (!command) throw new ReplError(`unknown command ${JSON.stringify(word)} (try \`help\`)`);
		if (command.needsSession) state.requireSession();
		await command.run(state, args);
		return state.exitRequested ? { kind: "exit" } : { kind: "ok" };
	} catch (error) {
		return { kind: "error", ...errorMessage(state, error) };
	}
}
