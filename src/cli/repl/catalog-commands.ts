/**
 * The REPL commands that run the command line's own: ls, search and browse (src/cli/commands/,
 * loaded when first used), and clear. Their output is the CLI's, written where the REPL writes.
 */

import { TREE_FILTERS } from "../../render/tree-layout.js";
import type { CommandHandler, CommandInput } from "../args.js";
import { integerOption, noMoreArgs, parseOptions, type ReplHandlers, requireArg, usageError } from "./command.js";
import { printNavigation } from "./edit-commands.js";
import type { ReplState } from "./state.js";

/** Runs a command line command with the REPL's output (its errors are the REPL's: see `errorMessage`). */
async function runCli(state: ReplState, handler: CommandHandler, input: Omit<CommandInput, "io">): Promise<void> {
	await handler.run({ ...input, io: { stdin: process.stdin, out: state.env.out, err: state.env.err } });
}

/** DIR as given, else the REPL's `--dir` (unless `--all`): where `new` puts its files. */
function directory(state: ReplState, given: string | undefined, all: boolean): string[] {
	const dir = given ?? (all ? undefined : state.env.dir);
	return dir === undefined ? [] : [dir];
}

/** The handlers of ls, search, browse and clear. */
export const CATALOG_COMMANDS = {
	async ls(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		noMoreArgs(command, positionals, 1);
		const all = values.all === true;
		const { lsCommand } = await import("../commands/ls.js");
		await runCli(state, lsCommand, { values: { all }, positionals: directory(state, positionals[0], all) });
	},

	async search(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		const text = requireArg(command, positionals, 0, "<text>");
		noMoreArgs(command, positionals, 2);
		const all = values.all === true;
		const limit = integerOption(command, values.limit, "limit", 1);
		const { searchCommand } = await import("../commands/search.js");
		await runCli(state, searchCommand, {
			values: {
				all,
				regex: values.regex === true,
				"ignore-case": values["ignore-case"] === true,
				...(limit === undefined ? {} : { limit: String(limit) }),
			},
			positionals: [text, ...directory(state, positionals[1], all)],
		});
	},

	async browse(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		noMoreArgs(command, positionals, 0);
		const session = state.requireSession();
		const filter = values.filter === undefined ? "default" : TREE_FILTERS.find((name) => name === values.filter);
		if (filter === undefined) {
			throw usageError(command, `unknown filter ${JSON.stringify(values.filter)} (use ${TREE_FILTERS.join(", ")})`);
		}
		const { browseAndChoose, terminalDevice } = await import("../commands/browse.js");
		const device = terminalDevice("`tree` prints the tree");
		try {
			// A session loaded with --lenient that had problems is browsed read-only, as on the command line.
			const run = () =>
				browseAndChoose(session, session.location, { filter, lenient: session.problems.length > 0, device });
			const choice = await (state.env.fullScreen ? state.env.fullScreen(run) : run());
			if (choice === undefined) state.line("(left without a change)");
			else printNavigation(state, choice.result);
		} finally {
			device.close();
		}
	},

	clear(state, args, command) {
		noMoreArgs(command, args, 0);
		state.env.clearScreen?.();
	},
} satisfies ReplHandlers;
