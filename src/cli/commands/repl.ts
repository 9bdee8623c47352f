/** `session-tree repl`: an interactive (or scripted) session editor. */

import { type Command, stringValue } from "../args.js";
import { runRepl } from "../repl/repl.js";

export const replCommand: Command = {
	name: "repl",
	summary: "edit sessions at a prompt, or run a script of REPL commands from stdin",
	synopsis: "repl [FILE] [--dir DIR] [--strict] [--lenient]",
	description:
		"Opens FILE (if given) and reads commands: new, load, send, branch, fork, clone, compact,\n" +
		"summary, nav, label, name, tree, ctx, leaves, info, help, exit (`help` inside lists them).\n" +
		'Entry ids may be abbreviated to any unique prefix; quote text to keep spaces ("a  b").\n' +
		"\n" +
		"On a terminal: a prompt with the session and its leaf, Tab completion of commands, ids\n" +
		"and file names, and a history kept across runs in $SESSION_TREE_HISTORY, else\n" +
		"$XDG_STATE_HOME/session-tree/history, else ~/.local/state/session-tree/history (the last\n" +
		"1000 commands; SESSION_TREE_HISTORY= keeps none). Colours unless NO_COLOR is set.\n" +
		"\n" +
		"With stdin not a terminal it runs one command per line (blank lines and # comments are\n" +
		"skipped) and prints plain output. A failing line is reported on stderr as\n" +
		"`session-tree: line N: message` and the script goes on; the exit code is 1 if any line\n" +
		"failed. With --strict it stops at the first failing line.",
	examples: [
		"session-tree repl",
		"session-tree repl session.jsonl",
		"printf 'new\\nsend user hello\\nsend assistant hi\\ntree\\n' | session-tree repl --dir ./sessions",
		"session-tree repl session.jsonl --strict < edits.txt",
	],
	options: { dir: { type: "string" }, strict: { type: "boolean" }, lenient: { type: "boolean" } },
	optionDocs: [
		{ flags: "--dir DIR", description: "where `new` creates session files (default: pi's directory for the cwd)" },
		{ flags: "--strict", description: "scripted: stop at the first failing command (exit 1)" },
		{ flags: "--lenient", description: "open FILE even if damaged (the problems are printed as warnings)" },
	],
	positionals: ["FILE?"],
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
