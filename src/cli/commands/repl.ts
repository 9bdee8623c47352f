/** `session-tree repl`: an interactive (or scripted) session editor. */

import { type CommandHandler, stringValue } from "../args.js";
import { runRepl } from "../repl/repl.js";

/**
 * Runs `session-tree repl`; its name, options and help are in the registry (src/cli/registry.ts),
 * whose `repl` spec lists the REPL's commands.
 */
export const replCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const file = positionals[0];
		const dir = stringValue(values, "dir");
		await runRepl(io, {
			...(file !== undefined ? { file } : {}),
			...(dir !== undefined ? { dir } : {}),
			strict: values.strict === true,
			lenient: values.lenient === true,
		});
	},
};
