/**
 * What a command's spec is, for both front ends, and the option docs several specs share. The
 * specs themselves sit in this folder, one file per group of commands; src/cli/registry.ts is
 * their index. Metadata only: this module imports nothing, so that `session-tree --help` and
 * `--version` load no command code, and so that the argument parser (src/cli/args.ts), the
 * registry and the REPL can all read these types without importing one another.
 */

/** How node:util `parseArgs` reads one option (the part of its option config the commands use). */
export interface OptionConfig {
	readonly type: "string" | "boolean";
	/** A one-letter alias, e.g. `h` for `--help`. */
	readonly short?: string;
}

/**
 * Option definitions for node:util `parseArgs`, by long name. Declared here rather than taken
 * from node:util's types, which do not export the type of one option (so the type of the
 * registry could not be written out in its declaration file).
 */
export type OptionsConfig = Readonly<Record<string, OptionConfig>>;

/** One documented option of a command. */
export interface OptionDoc {
	readonly flags: string;
	readonly description: string;
}

/**
 * How a command runs on the command line: `session-tree <synopsis>`. The code that runs it is
 * loaded by name when it runs (src/cli/loaders.ts), so that a spec imports no command code.
 */
export interface CliFacet {
	/** The synopsis after `session-tree `. */
	readonly synopsis: string;
	/** A few sentences for `--help`. */
	readonly description: string;
	/** Command lines for `--help`. */
	readonly examples: readonly string[];
	readonly options: OptionsConfig;
	readonly optionDocs: readonly OptionDoc[];
	/** Names of the positional arguments; those ending in `?` are optional. */
	readonly positionals: readonly string[];
}

/** What REPL completion offers at an argument position (or for an option's value). */
export type ArgKind = "id" | "id-or-root" | "file" | "dir" | "role" | "command" | "filter" | "text" | "none";

/** An option of a REPL command: a flag, or one that takes a value of some kind (for completion). */
export type ReplOption = { readonly type: "boolean" } | { readonly type: "string"; readonly value: ArgKind };

/** How a command runs in the REPL. */
export interface ReplFacet {
	/** The REPL's own one-line summary, when the shared one is too long for its `help` (42 columns). */
	readonly summary?: string;
	/** Other words that call it. */
	readonly aliases?: readonly string[];
	/** The synopsis, e.g. `send <role> <text…>`. */
	readonly usage: string;
	/** More lines for `help COMMAND`. */
	readonly details?: readonly string[];
	/** What each argument position holds (for completion); the last kind repeats. */
	readonly args: readonly ArgKind[];
	/** Its options (`--name`), for parsing and completion. */
	readonly options?: Readonly<Record<string, ReplOption>>;
	/** Whether it needs a session to be loaded. */
	readonly needsSession: boolean;
}

/** One command, with a facet for each front end that has it. */
export interface CommandSpec {
	readonly name: string;
	/** One line for the listings of both front ends (`session-tree --help`, the REPL's `help`). */
	readonly summary: string;
	readonly cli?: CliFacet;
	readonly repl?: ReplFacet;
}

/**
 * Keeps the literal names of `specs` (for the registry's `ReplCommandName` and
 * `CliCommandName`) while checking them as specs.
 */
export function defineCommands<const T extends readonly CommandSpec[]>(specs: T): T {
	return specs;
}

/** Common option: `--json`. */
export const JSON_OPTION: OptionsConfig = { json: { type: "boolean" } };
/** Common option: `--lenient`. */
export const LENIENT_OPTION: OptionsConfig = { lenient: { type: "boolean" } };
/** The help line of `--lenient`. */
export const LENIENT_DOC: OptionDoc = {
	flags: "--lenient",
	description: "load a damaged file as far as possible; the problems are printed to stderr",
};
/** The option every command has. */
export const HELP_OPTION: OptionsConfig = { help: { type: "boolean", short: "h" } };
/** The help line of `-h, --help`, which every command's help ends with. */
export const HELP_DOC: OptionDoc = { flags: "-h, --help", description: "show this help" };

/** The help line of `--leaf ID` where it names the entry to start from. */
export const LEAF_DOC: OptionDoc = {
	flags: "--leaf ID",
	description: "start from entry ID (or a unique prefix of it) instead of the leaf",
};

/** The help line of `--width N`. */
export const WIDTH_DOC: OptionDoc = {
	flags: "--width N",
	description: "fit lines into N columns (default: the terminal's width; no cut when piped)",
};

/** The options `ls` and `search` share: which sessions. */
export const SELECTION_OPTIONS: OptionsConfig = {
	cwd: { type: "string" },
	all: { type: "boolean", short: "a" },
	width: { type: "string" },
};

/** The help lines of {@link SELECTION_OPTIONS}. */
export const SELECTION_DOCS: readonly OptionDoc[] = [
	{ flags: "--cwd PATH", description: "the sessions of the project at PATH (default: the current directory)" },
	{ flags: "-a, --all", description: "the sessions of every project under <agent dir>/sessions/" },
	WIDTH_DOC,
];

/** The help line of `--dir DIR` for a command that writes a copy (fork, clone). */
export const DIR_FOR_COPY_DOC: OptionDoc = {
	flags: "--dir DIR",
	description: "create the new file in DIR (default: next to FILE)",
};

/**
 * pi's /tree filter modes, written out because the specs must not load the renderer
 * (render/tree-text.ts's TREE_FILTERS; a test checks that the two agree).
 */
export const TREE_FILTER_NAMES: readonly string[] = ["default", "no-tools", "user-only", "labeled-only", "all"];
