/**
 * Every command of `session-tree`, defined once for both front ends: the command line
 * (`session-tree CMD …`) and the REPL (`session-tree repl`). This module is the index: the specs
 * sit in src/cli/specs/, one file per group of commands, and each holds the name and the
 * one-line summary both listings show, and a facet per front end that has the command: `cli`
 * (synopsis, help text, options) and `repl` (usage, help lines, what completion offers). A
 * command of only one front end has only that facet. The code that runs a command line command
 * is found by name in src/cli/loaders.ts; a REPL command's, in src/cli/repl/commands.ts.
 *
 * This module is metadata only: it imports no command code, so `session-tree --help` and
 * `--version` load nothing else, and the REPL (which lists these specs in its `help` and
 * completes from them) can import it without importing back the commands that run it. Keep it
 * that way: a static import of command code here slows the start of every command.
 */

import { ARCHIVE_SPECS } from "./specs/archive.js";
import { CATALOG_SPECS } from "./specs/catalog.js";
import { type CliFacet, type CommandSpec, defineCommands, type ReplFacet } from "./specs/common.js";
import { EDIT_SPECS } from "./specs/edits.js";
import { MERGE_SPECS } from "./specs/merge.js";
import { META_SPECS } from "./specs/meta.js";
import { PICK_SPECS } from "./specs/pick.js";
import { SERVE_SPECS } from "./specs/serve.js";
import { STORE_SPECS } from "./specs/stores.js";
import { VIEW_SPECS } from "./specs/views.js";

export { TREE_FILTER_NAMES } from "./specs/common.js";

/** Words joined by spaces and cut into lines of at most `width` characters. */
function wrapWords(words: readonly string[], width: number): string {
	const lines: string[] = [];
	let line = "";
	for (const word of words) {
		if (line !== "" && line.length + 1 + word.length > width) {
			lines.push(line);
			line = word;
		} else line = line === "" ? word : `${line} ${word}`;
	}
	if (line !== "") lines.push(line);
	return lines.join("\n");
}

/**
 * Every command, in the order both listings show them (each lists those it has). The `repl`
 * command's spec is here rather than in a group's file: its help lists the REPL's commands,
 * which only this index knows.
 */
const SPECS = defineCommands([
	...VIEW_SPECS,
	...CATALOG_SPECS,
	...SERVE_SPECS,
	...EDIT_SPECS,
	...PICK_SPECS,
	...ARCHIVE_SPECS,
	...STORE_SPECS,
	...MERGE_SPECS,
	{
		name: "repl",
		summary: "edit sessions at a prompt, or run a script of REPL commands from stdin",
		cli: {
			synopsis: "repl [FILE] [--dir DIR] [--strict] [--lenient]",
			// A getter: the list of REPL commands comes from this table, which is not built yet here.
			get description(): string {
				return replDescription();
			},
			examples: [
				"session-tree repl",
				"session-tree repl session.jsonl",
				"printf 'new\\nsend user hello\\nsend assistant hi\\ntree\\n' | session-tree repl --dir ./sessions",
				"session-tree repl session.jsonl --strict < edits.txt",
			],
			options: { dir: { type: "string" }, strict: { type: "boolean" }, lenient: { type: "boolean" } },
			optionDocs: [
				{
					flags: "--dir DIR",
					description: "where `new` creates session files (default: pi's directory for the cwd)",
				},
				{ flags: "--strict", description: "scripted: stop at the first failing command (exit 1)" },
				{ flags: "--lenient", description: "open FILE even if damaged (the problems are printed as warnings)" },
			],
			positionals: ["FILE?"],
		},
	},
	...META_SPECS,
]);

/** Every command, in the order of the listings. */
export const COMMAND_SPECS: readonly CommandSpec[] = SPECS;

/** The name of every command the REPL has (checked by the REPL's table of handlers). */
export type ReplCommandName = Extract<(typeof SPECS)[number], { readonly repl: object }>["name"];

/** The name of every command line command (checked by the table of loaders, src/cli/loaders.ts). */
export type CliCommandName = Extract<(typeof SPECS)[number], { readonly cli: object }>["name"];

/** A command line command: its spec with the CLI facet spread in. */
export type CliCommand = { readonly name: CliCommandName } & Pick<CommandSpec, "summary"> & CliFacet;

/** A REPL command's metadata: its spec with the REPL facet spread in. */
export type ReplCommandSpec = { readonly name: ReplCommandName } & Pick<CommandSpec, "summary"> & ReplFacet;

/** The REPL's commands, in the order of its `help`. */
export const REPL_COMMAND_SPECS: readonly ReplCommandSpec[] = SPECS.flatMap((spec) =>
	"repl" in spec ? [{ name: spec.name, summary: spec.summary, ...spec.repl }] : [],
);

/**
 * The command line's commands, in the order of `session-tree --help`. Built after
 * {@link REPL_COMMAND_SPECS}: the spread reads the `repl` command's description, which lists them.
 */
export const CLI_COMMANDS: readonly CliCommand[] = SPECS.flatMap((spec) =>
	"cli" in spec ? [{ name: spec.name, summary: spec.summary, ...spec.cli }] : [],
);

/** The command line command called `name`, if any. */
export function findCliCommand(name: string): CliCommand | undefined {
	return CLI_COMMANDS.find((command) => command.name === name);
}

/** The REPL command called `word` (by name or alias), if any. */
export function findReplSpec(word: string): ReplCommandSpec | undefined {
	return REPL_COMMAND_SPECS.find((command) => command.name === word || command.aliases?.includes(word));
}

/** Every word that calls a REPL command (names and aliases), sorted. */
export function replCommandWords(): string[] {
	return REPL_COMMAND_SPECS.flatMap((command) => [command.name, ...(command.aliases ?? [])]).sort();
}

/** The `repl` command's description, listing the REPL's commands from this table. */
function replDescription(): string {
	const names = REPL_COMMAND_SPECS.map((command, i, all) => `${command.name}${i < all.length - 1 ? "," : ""}`);
	return (
		`${wrapWords(["Opens FILE (if given) and reads commands:", ...names, "(`help` inside lists them)."], 92)}\n` +
		'Entry ids may be abbreviated to any unique prefix; quote text to keep spaces ("a  b").\n' +
		"\n" +
		"On a terminal: a prompt with the session and its leaf, Tab completion of commands, ids\n" +
		"(listed with their entries' text) and file names, and a history kept across runs in\n" +
		"$SESSION_TREE_HISTORY, else $XDG_STATE_HOME/session-tree/history, else\n" +
		"~/.local/state/session-tree/history (the last 1000 commands; SESSION_TREE_HISTORY= keeps\n" +
		"none). Colours unless NO_COLOR is set.\n" +
		"\n" +
		"With stdin not a terminal it runs one command per line (blank lines and # comments are\n" +
		"skipped) and prints plain output. A failing line is reported on stderr as\n" +
		"`session-tree: line N: message` and the script goes on; the exit code is 1 if any line\n" +
		"failed. With --strict it stops at the first failing line."
	);
}
