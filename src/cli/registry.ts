/**
 * Every command of `session-tree`, defined once for both front ends: the command line
 * (`session-tree CMD …`) and the REPL (`session-tree repl`). Each entry holds the name and the
 * one-line summary both listings show, and a facet per front end that has the command: `cli`
 * (synopsis, help text, options, and how to load the code that runs it) and `repl` (usage, help
 * lines, what completion offers). A command of only one front end has only that facet.
 *
 * This module is metadata only: it imports no command code, so `session-tree --help` and
 * `--version` load nothing else, and a command's module is imported (`cli.load()`) only when it
 * runs. Keep it that way: a static import here slows the start of every command.
 */

import type { CommandHandler } from "./args.js";

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

/** How a command runs on the command line: `session-tree <synopsis>`. */
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
	/** Imports the module that runs the command (only when it runs). */
	load(): Promise<CommandHandler>;
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

/** A command line command: its spec with the CLI facet spread in. */
export type CliCommand = Pick<CommandSpec, "name" | "summary"> & CliFacet;

/** A REPL command's metadata: its spec with the REPL facet spread in. */
export type ReplCommandSpec = { readonly name: ReplCommandName } & Pick<CommandSpec, "summary"> & ReplFacet;

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

const LEAF_DOC: OptionDoc = {
	flags: "--leaf ID",
	description: "start from entry ID (or a unique prefix of it) instead of the leaf",
};

const WIDTH_DOC: OptionDoc = {
	flags: "--width N",
	description: "fit lines into N columns (default: the terminal's width; no cut when piped)",
};

/** The options `ls` and `search` share: which sessions. */
const SELECTION_OPTIONS: OptionsConfig = {
	cwd: { type: "string" },
	all: { type: "boolean", short: "a" },
	width: { type: "string" },
};

const SELECTION_DOCS: readonly OptionDoc[] = [
	{ flags: "--cwd PATH", description: "the sessions of the project at PATH (default: the current directory)" },
	{ flags: "-a, --all", description: "the sessions of every project under <agent dir>/sessions/" },
	WIDTH_DOC,
];

const DIR_FOR_COPY_DOC: OptionDoc = {
	flags: "--dir DIR",
	description: "create the new file in DIR (default: next to FILE)",
};

/**
 * pi's /tree filter modes, written out because this module must not load the renderer
 * (render/tree-text.ts's TREE_FILTERS; a test checks that the two agree).
 */
export const TREE_FILTER_NAMES: readonly string[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

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

/** Keeps the literal names of `specs` (for {@link ReplCommandName}) while checking them as specs. */
function defineCommands<const T extends readonly CommandSpec[]>(specs: T): T {
	return specs;
}

/**
 * Every command, in the order both listings show them (each lists those it has). Shared
 * commands (tree, ctx, leaves, info, new, branch, fork, clone, nav, label, name) have one entry
 * with both facets: the CLI's takes a FILE and more options, the REPL's works on the session
 * it has open.
 */
const SPECS = defineCommands([
	{
		name: "tree",
		summary: "show the entry tree, active path marked",
		cli: {
			synopsis:
				"tree FILE [--filter MODE] [--from ID] [--leaf ID] [--depth N] [--fold] [--fold-limit N] [--width N] [--json] [--lenient]",
			description:
				"Prints the entries of the session as a tree: id, role or type, a one-line preview, the\n" +
				"label in brackets, the session name on top and `← leaf` after the leaf. Indentation grows\n" +
				"only where the tree forks, so a long chain stays short lines; below a fork, `•` marks the\n" +
				"entries of the active path (root → leaf). On a terminal, lines are cut to its width and\n" +
				"coloured by role (not with NO_COLOR or when piped; FORCE_COLOR=1 forces colours).\n" +
				"\n" +
				"Without --filter every entry is shown. --filter applies the rules of pi's /tree view:\n" +
				"  default       everything but settings entries (label, custom, model_change,\n" +
				"                thinking_level_change, session_info)\n" +
				"  no-tools      default without tool results\n" +
				"  user-only     user messages only\n" +
				"  labeled-only  labeled entries only\n" +
				"  all           everything\n" +
				"In every mode, as in pi, assistant messages holding only tool calls are left out (unless\n" +
				"aborted, failed or the leaf). Children of a hidden entry move up to the nearest shown one.",
			examples: [
				"session-tree tree session.jsonl",
				"session-tree tree session.jsonl --filter user-only --fold",
				"session-tree tree session.jsonl --from 1a2b --depth 3",
				"session-tree tree session.jsonl --json",
			],
			options: {
				filter: { type: "string" },
				from: { type: "string" },
				leaf: { type: "string" },
				depth: { type: "string" },
				fold: { type: "boolean" },
				"fold-limit": { type: "string" },
				width: { type: "string" },
				...JSON_OPTION,
				...LENIENT_OPTION,
			},
			optionDocs: [
				{ flags: "--filter MODE", description: `show what pi's /tree filter shows: ${TREE_FILTER_NAMES.join(", ")}` },
				{ flags: "--from ID", description: "show only the subtree of entry ID (with --json too)" },
				{ flags: "--leaf ID", description: "mark entry ID as the leaf (and the path to it as active)" },
				{ flags: "--depth N", description: "show N levels below the start; deeper entries become `… N more`" },
				{ flags: "--fold", description: "fold straight runs of more than 6 entries to their first and last two" },
				{ flags: "--fold-limit N", description: "fold runs longer than N entries (implies --fold)" },
				WIDTH_DOC,
				{
					flags: "--json",
					description: "print a flat JSON array of {id, parentId, type, depth, label?} rows (all entries)",
				},
				LENIENT_DOC,
			],
			positionals: ["FILE"],
			load: async () => (await import("./commands/read.js")).treeCommand,
		},
		repl: {
			usage: "tree [--filter MODE] [--from ID] [--depth N] [--fold]",
			details: [
				`Filters as pi's /tree; MODE: ${TREE_FILTER_NAMES.join(", ")}.`,
				"--from ID shows a subtree, --depth N limits it, --fold folds long runs.",
			],
			args: ["none"],
			options: {
				filter: { type: "string", value: "filter" },
				from: { type: "string", value: "id" },
				depth: { type: "string", value: "none" },
				fold: { type: "boolean" },
			},
			needsSession: true,
		},
	},
	{
		name: "browse",
		summary: "walk the session tree full-screen: preview, fold, search, filter, label, choose the leaf",
		cli: {
			synopsis: "browse FILE [--filter MODE] [--id] [--lenient]",
			description:
				"Shows the session tree full-screen on the terminal, drawn as `tree` draws it, with a preview\n" +
				"of the selected entry: its whole text, its time and label, and the size of the context the\n" +
				"model would receive from there (messages and estimated tokens). Keys (? lists them):\n" +
				"  ↑ ↓ k j move, PgUp PgDn page, g G first and last, ← → fold and unfold a branch,\n" +
				"  [ ] previous and next branch point, / search, n N next and previous match,\n" +
				"  f cycle the filters (default, no-tools, user-only, labeled-only, all),\n" +
				"  l set or clear the label (written at once), Enter choose, q or Esc leave without a change.\n" +
				"\n" +
				"Enter follows pi's /tree: on a user message the leaf moves to its parent and, once the\n" +
				"screen is closed, the message's text is printed on stdout to edit and send again; any other\n" +
				"entry becomes the leaf and nothing is printed on stdout (with --id: the chosen entry's id,\n" +
				"whatever it is). The new leaf is written to the session (`leaf: ID` goes to stderr). q or\n" +
				"Esc print nothing; the exit status is 0 whether or not an entry was chosen.\n" +
				"A damaged file opened with --lenient, or another agent's file, is browsed read-only.\n" +
				"\n" +
				"The screen goes to the terminal: when stdout (or stdin) is not one, the browser draws on and\n" +
				"reads keys from /dev/tty, as fzf does, so that stdout carries only the result:\n" +
				"text=$(session-tree browse FILE). Without any terminal it fails. Colours unless NO_COLOR is set.",
			examples: [
				"session-tree browse session.jsonl",
				"session-tree browse session.jsonl --filter user-only",
				'text=$(session-tree browse session.jsonl --filter user-only) && printf "%s\\n" "$text"',
				"id=$(session-tree browse session.jsonl --id)",
				"session-tree browse 'sqlite:./agents.db#0195f3c2-…'",
			],
			options: { filter: { type: "string" }, id: { type: "boolean" }, ...LENIENT_OPTION },
			optionDocs: [
				{
					flags: "--filter MODE",
					description: `start with this filter: ${TREE_FILTER_NAMES.join(", ")} (default: default)`,
				},
				{ flags: "--id", description: "on Enter, print the chosen entry's id (instead of a user message's text)" },
				{
					flags: "--lenient",
					description: "open a damaged file as far as possible, read-only (the problems go to stderr)",
				},
			],
			positionals: ["FILE"],
			load: async () => (await import("./commands/browse.js")).browseCommand,
		},
		repl: {
			summary: "walk this session's tree full-screen",
			usage: "browse [--filter MODE]",
			details: [
				"The full-screen browser of `session-tree browse`, on this session; q comes back",
				"to the prompt. Enter moves the leaf as `nav` does and prints what nav prints.",
			],
			args: ["none"],
			options: { filter: { type: "string", value: "filter" } },
			needsSession: true,
		},
	},
	{
		name: "ctx",
		summary: "show what the model sees at the leaf",
		cli: {
			synopsis: "ctx FILE [--leaf ID] [--full] [--check] [--width N] [--json] [--lenient]",
			description:
				"Builds the model context of the path from the root to the leaf (or to --leaf ID) exactly as pi\n" +
				"does: compactions replace what they summarise, branch summaries are included, and the\n" +
				"model and thinking level are the last ones set on the path.\n" +
				"\n" +
				"Prints the messages numbered, each with the entry it comes from (`(kept)` for messages a\n" +
				"compaction carries itself), its role and a one-line preview; compaction and branch\n" +
				"summaries are marked as such, custom messages show their customType, tool calls show as\n" +
				"`→ name(arguments)`. The model and the thinking level come last. --full prints every\n" +
				"message whole, indented below its line. Colours on a terminal (not with NO_COLOR or when\n" +
				"piped; FORCE_COLOR=1 forces them).\n" +
				"\n" +
				"--check prints, instead, what a provider would refuse in the context: tool calls without a\n" +
				"result (TOOL_CALL_WITHOUT_RESULT), results without a call (TOOL_RESULT_WITHOUT_CALL), results\n" +
				"separated from their call (TOOL_RESULT_SEPARATED), second results (TOOL_RESULT_DUPLICATE),\n" +
				"each naming the entries and the call id; calls of the last turn still waiting for their\n" +
				"results are notes (TOOL_CALL_PENDING: a turn under way or interrupted). Exit 1 when there\n" +
				"are problems; --json prints {problems, pending}.",
			examples: [
				"session-tree ctx session.jsonl",
				"session-tree ctx session.jsonl --full | less -R",
				"session-tree ctx session.jsonl --leaf 1a2b3c4d --json",
				"session-tree ctx session.jsonl --check",
			],
			options: {
				leaf: { type: "string" },
				full: { type: "boolean" },
				check: { type: "boolean" },
				width: { type: "string" },
				...JSON_OPTION,
				...LENIENT_OPTION,
			},
			optionDocs: [
				LEAF_DOC,
				{ flags: "--full", description: "print whole messages (indented) instead of one-line previews" },
				{
					flags: "--check",
					description: "list the tool calls and results a provider would refuse (exit 1 if any)",
				},
				WIDTH_DOC,
				{
					flags: "--json",
					description: "print {messages, thinkingLevel, model} as one line of JSON (with --check: {problems, pending})",
				},
				LENIENT_DOC,
			],
			positionals: ["FILE"],
			load: async () => (await import("./commands/read.js")).ctxCommand,
		},
		repl: {
			usage: "ctx [--full]",
			details: ["One line per message; --full prints every message whole."],
			args: ["none"],
			options: { full: { type: "boolean" } },
			needsSession: true,
		},
	},
	{
		name: "md",
		summary: "print the path to the leaf as Markdown, for a bug report or a chat",
		cli: {
			synopsis: "md FILE [--leaf ID] [--no-redact] [--lenient]",
			description:
				"Prints the path from the root to the leaf (or to --leaf ID) as one Markdown document: a\n" +
				"title (the session name or the first user message), the session id, cwd and leaf, then\n" +
				"every entry in order: `### User`, `### Assistant (provider/model)` with text as it is,\n" +
				"thinking folded in <details>, tool calls with their arguments as JSON; tool results and\n" +
				"bash runs in fenced blocks cut to 40 lines; images as [image: mime/type], never their\n" +
				"data; compaction and branch summaries as quotes; model and thinking level changes as\n" +
				"one italic line; labels after the heading. Fences are always longer than any run of\n" +
				"backticks inside, so no content breaks out of them.\n" +
				"\n" +
				"Secrets are replaced by [REDACTED:kind] (API keys, tokens, JWTs, private keys, passwords\n" +
				"in URLs, long hex secrets); stderr says how many of each. --no-redact keeps them.",
			examples: [
				"session-tree md session.jsonl > conversation.md",
				"session-tree md session.jsonl --leaf 1a2b | pbcopy",
			],
			options: { leaf: { type: "string" }, "no-redact": { type: "boolean" }, ...LENIENT_OPTION },
			optionDocs: [
				LEAF_DOC,
				{ flags: "--no-redact", description: "keep secrets (API keys, tokens, passwords) as they are" },
				LENIENT_DOC,
			],
			positionals: ["FILE"],
			load: async () => (await import("./commands/md.js")).mdCommand,
		},
	},
	{
		name: "html",
		summary: "write the whole session tree as one offline HTML page",
		cli: {
			synopsis: "html FILE [-o OUT] [--leaf ID] [--no-redact] [--force] [--lenient]",
			description:
				"Writes one self-contained HTML file that shows the whole session in a browser, offline:\n" +
				"the tree of every branch (the filters of `tree`, folding, the active path and the leaf),\n" +
				"the conversation of the selected path (Markdown, thinking, tool calls and results, diffs,\n" +
				"images, summaries), what the model receives at the selected entry with token estimates,\n" +
				"search over every branch, permalinks (#leaf=ID, #entry=ID) and a download of the records.\n" +
				"The page loads nothing from anywhere (its Content-Security-Policy forbids it) and shows\n" +
				"session content only as text.\n" +
				"\n" +
				"OUT defaults to FILE's name with .html, in the current directory; `-o -` writes to stdout.\n" +
				"An existing OUT is refused unless --force. The file is written atomically, mode 0600.\n" +
				"\n" +
				"Secrets are replaced by [REDACTED:kind] in everything the page holds (API keys, tokens,\n" +
				"JWTs, private keys, passwords in URLs, long hex secrets); stderr says how many of each.\n" +
				"--no-redact keeps them. See docs/html.md.",
			examples: [
				"session-tree html session.jsonl",
				"session-tree html session.jsonl -o /tmp/bug-report.html --leaf 1a2b",
				"session-tree html session.jsonl -o - > page.html",
			],
			options: {
				out: { type: "string", short: "o" },
				leaf: { type: "string" },
				"no-redact": { type: "boolean" },
				force: { type: "boolean" },
				...LENIENT_OPTION,
			},
			optionDocs: [
				{ flags: "-o, --out OUT", description: "write to OUT (default: FILE's name with .html; - for stdout)" },
				{ flags: "--leaf ID", description: "show entry ID (or a unique prefix of it) first, instead of the leaf" },
				{ flags: "--no-redact", description: "keep secrets (API keys, tokens, passwords) as they are" },
				{ flags: "--force", description: "replace OUT if it exists" },
				LENIENT_DOC,
			],
			positionals: ["FILE"],
			load: async () => (await import("./commands/html.js")).htmlCommand,
		},
	},
	{
		name: "path",
		summary: "print the ids from the root to the leaf",
		cli: {
			synopsis: "path FILE [--leaf ID] [--json] [--lenient]",
			description:
				"Prints the active path: the entries from the root down to the leaf (or to --leaf ID).\n" +
				"Without --json, one entry per line: its id, its type and, for messages, the role.",
			examples: ["session-tree path session.jsonl --json"],
			options: { leaf: { type: "string" }, ...JSON_OPTION, ...LENIENT_OPTION },
			optionDocs: [LEAF_DOC, { flags: "--json", description: "print a JSON array of ids, root first" }, LENIENT_DOC],
			positionals: ["FILE"],
			load: async () => (await import("./commands/read.js")).pathCommand,
		},
	},
	{
		name: "leaves",
		summary: "list the tips of all branches",
		cli: {
			synopsis: "leaves FILE [--json] [--lenient]",
			description: "Prints the ids of all entries that have no children, sorted: one per branch of the tree.",
			examples: ["session-tree leaves session.jsonl --json"],
			options: { ...JSON_OPTION, ...LENIENT_OPTION },
			optionDocs: [{ flags: "--json", description: "print a JSON array of ids" }, LENIENT_DOC],
			positionals: ["FILE"],
			load: async () => (await import("./commands/read.js")).leavesCommand,
		},
		repl: {
			usage: "leaves",
			details: ["One line per entry without children, sorted, with its last message; * marks the leaf."],
			args: ["none"],
			needsSession: true,
		},
	},
	{
		name: "info",
		summary: "show header facts, name, entry count, leaf",
		cli: {
			synopsis: "info FILE [--json] [--lenient]",
			description:
				"Prints the session id, the format version of the file as it is on disk, the working\n" +
				"directory, the parent session (for forks), the name, the number of entries and the leaf.",
			examples: ["session-tree info session.jsonl --json"],
			options: { ...JSON_OPTION, ...LENIENT_OPTION },
			optionDocs: [
				{ flags: "--json", description: "print {id, version, cwd, parentSession, name, entryCount, leafId}" },
				LENIENT_DOC,
			],
			positionals: ["FILE"],
			load: async () => (await import("./commands/read.js")).infoCommand,
		},
		repl: { usage: "info", args: ["none"], needsSession: true },
	},
	{
		name: "ls",
		summary: "list the sessions of a project (or all projects, or a directory), newest first",
		cli: {
			synopsis: "ls [DIR|STORE] [--cwd PATH] [--all] [--agents] [--width N] [--json]",
			description:
				"Lists sessions, newest first: when the session last changed (a file's mtime, a database\n" +
				"row's last append; not the messages' own timestamps, which --json gives as lastActivity),\n" +
				"the session name or else the first user message (in quotes), the number of entries and of\n" +
				"branches (leaves), the file size, and the file itself on the line below.\n" +
				"\n" +
				"Which sessions: by default those of the project in the current directory (or --cwd PATH) in\n" +
				"pi's layout, <agent dir>/sessions/--<cwd>--/, where the agent dir is $PI_CODING_AGENT_DIR or\n" +
				"~/.pi/agent; with --all those of every project; with DIR the *.jsonl files in DIR and in its\n" +
				"subdirectories (so DIR may be a project directory or a sessions root); with STORE the\n" +
				"sessions of a database (sqlite:PATH, postgres://…; each listed by its URL). A CWD column\n" +
				"appears when the sessions belong to more than one directory. With --agents, the sessions of\n" +
				"every project of pi, Claude Code ($CLAUDE_CONFIG_DIR or ~/.claude, its projects/), Codex\n" +
				"($CODEX_HOME or ~/.codex, its sessions/) and Gemini CLI ($GEMINI_CLI_HOME or ~, its\n" +
				".gemini/tmp/*/chats/) together, with an AGENT column; the others' files are\n" +
				"read as `import` reads them, in memory. A DIR of Claude Code or Codex files is read so too.\n" +
				"\n" +
				"Each session is read through its store by the same reader as an open, without parsing most\n" +
				"message bodies. Files that are not sessions are skipped\n" +
				"with a warning on stderr; damaged sessions are listed as a lenient open reads them, with a\n" +
				"warning. On a terminal a progress bar shows on stderr when listing takes a while.",
			examples: [
				"session-tree ls",
				"session-tree ls --all",
				"session-tree ls --cwd ~/src/project --json",
				"session-tree ls ~/.pi/agent/sessions/--home-me-project--",
				"session-tree ls sqlite:./agents.db",
				"session-tree ls --agents",
			],
			options: { ...SELECTION_OPTIONS, agents: { type: "boolean" }, ...JSON_OPTION },
			optionDocs: [
				...SELECTION_DOCS,
				{
					flags: "--agents",
					description: "the sessions of pi, Claude Code, Codex and Gemini CLI together, with an AGENT column",
				},
				{
					flags: "--json",
					description:
						"print a JSON array of {file, id, cwd, name, firstMessage, modified (the file's mtime, a database row's last append), lastActivity (pi's modified: the last message's time), created, entries, branches, bytes, parentSession} (and agent, with --agents)",
				},
			],
			positionals: ["DIR?"],
			load: async () => (await import("./commands/ls.js")).lsCommand,
		},
		repl: {
			summary: "list the sessions of the REPL's directory",
			usage: "ls [DIR] [--all]",
			details: [
				"As `session-tree ls`: the sessions in DIR, by default the REPL's --dir, else",
				"those of the current directory's project in pi's layout; --all: every project's.",
				"`load FILE` opens one.",
			],
			args: ["dir"],
			options: { all: { type: "boolean" } },
			needsSession: false,
		},
	},
	{
		name: "search",
		summary: "search message text across sessions",
		cli: {
			synopsis: "search TEXT [DIR|STORE] [--cwd PATH] [--all] [--regex] [-i] [--scan] [--limit N] [--width N] [--json]",
			description:
				"Searches the text of messages in the same sessions `ls` lists: user and assistant text,\n" +
				"thinking, tool results, bash commands and output, custom messages, compaction and branch\n" +
				"summaries. Each entry that matches is one hit: the session file (and its name), the entry\n" +
				"id, the role (or the entry type for summaries and custom messages), whether the entry is on\n" +
				"the session's active branch (`active`) or on another branch (`side`), and the text around\n" +
				"the first match, highlighted on a terminal. Sessions are searched newest first (by file\n" +
				"modification time). With --json, matchStart and matchEnd are offsets into the snippet\n" +
				"(UTF-16 code units, as in JavaScript strings).\n" +
				"\n" +
				"TEXT is plain text; with --regex a JavaScript regular expression. Matching is case-sensitive\n" +
				"unless -i is given. A regular expression runs in linear time where V8's linear engine takes\n" +
				"it, else with 500 ms per text: one that takes longer (catastrophic backtracking) is refused.\n" +
				"\n" +
				"STORE is a database holding many sessions (sqlite:PATH, postgres://…). Its full-text index\n" +
				"picks the sessions to read first: SQLite's matches any text of 3 or more characters exactly\n" +
				"as a scan would; PostgreSQL's matches word prefixes, so a text inside a word is found only\n" +
				"with --scan, which reads every session.\n" +
				"\n" +
				"Exit status, as grep's: 0 when something was found, 1 when nothing was (a note goes to\n" +
				"stderr), 2 for a usage error such as an invalid --regex.",
			examples: [
				'session-tree search "B-tree"',
				"session-tree search -i 'timeout' --all --limit 20",
				"session-tree search --regex 'fix(ed|es)? the (parser|lexer)' --cwd ~/src/project",
				"session-tree search TODO ~/.pi/agent/sessions --json",
				"session-tree search -i 'rate limit' sqlite:./agents.db",
			],
			options: {
				...SELECTION_OPTIONS,
				regex: { type: "boolean", short: "E" },
				"ignore-case": { type: "boolean", short: "i" },
				scan: { type: "boolean" },
				limit: { type: "string" },
				...JSON_OPTION,
			},
			optionDocs: [
				...SELECTION_DOCS,
				{ flags: "-E, --regex", description: "TEXT is a regular expression (JavaScript syntax)" },
				{ flags: "-i, --ignore-case", description: "ignore case" },
				{ flags: "--scan", description: "read every session, even where a full-text index could narrow the search" },
				{ flags: "--limit N", description: "stop after N hits" },
				{
					flags: "--json",
					description:
						"print a JSON array of {file, sessionId, name, entryId, role, onActiveBranch, snippet, matchStart, matchEnd}",
				},
			],
			positionals: ["TEXT", "DIR?"],
			load: async () => (await import("./commands/search.js")).searchCommand,
		},
		repl: {
			usage: "search <text> [DIR] [--regex] [--ignore-case] [--all] [--limit N]",
			details: [
				"As `session-tree search`, in the sessions `ls` lists (the same default).",
				'Quote a text with spaces: search "rate limit". No match is an error.',
			],
			args: ["text", "dir"],
			options: {
				regex: { type: "boolean" },
				"ignore-case": { type: "boolean" },
				all: { type: "boolean" },
				limit: { type: "string", value: "none" },
			},
			needsSession: false,
		},
	},
	{
		name: "new",
		summary: "create a session file (prints its path)",
		cli: {
			synopsis: "new [--dir DIR] [--cwd CWD]",
			description:
				"Creates a session file holding just the header and prints its absolute path. By default\n" +
				"the file goes where pi keeps the sessions of CWD: <agent dir>/sessions/--<cwd>--/, where\n" +
				"the agent dir is $PI_CODING_AGENT_DIR or ~/.pi/agent.",
			examples: ["session-tree new --dir ./sessions", 'FILE=$(session-tree new --cwd "$PWD")'],
			options: { dir: { type: "string" }, cwd: { type: "string" } },
			optionDocs: [
				{ flags: "--dir DIR", description: "create the file in DIR instead of pi's directory layout" },
				{ flags: "--cwd CWD", description: "the working directory stored in the header (default: the current one)" },
			],
			positionals: [],
			load: async () => (await import("./commands/write.js")).newCommand,
		},
		repl: {
			usage: "new [--cwd CWD] [--dir DIR]",
			details: [
				"The file goes into --dir (default: the REPL's --dir, else pi's directory",
				"for CWD). CWD (default: the current directory) is stored in the header.",
				"The REPL switches to the new session.",
			],
			args: ["none"],
			options: { cwd: { type: "string", value: "dir" }, dir: { type: "string", value: "dir" } },
			needsSession: false,
		},
	},
	{
		name: "load",
		summary: "open a session file and switch to it",
		repl: {
			aliases: ["open"],
			usage: "load <file> [--lenient]",
			details: [
				"Prints FILE: N entries, leaf ID.",
				"--lenient opens a damaged file (the problems are printed as warnings).",
			],
			args: ["file"],
			options: { lenient: { type: "boolean" } },
			needsSession: false,
		},
	},
	{
		name: "send",
		summary: "append a message; prints its id",
		repl: {
			usage: "send <role> <text…>",
			details: [
				"role: user, assistant, toolResult (answers the open tool call, if any) or",
				"custom (a custom_message entry). The text's words are joined by single",
				'spaces; quote it to keep it exactly: send user "a  b\\nc".',
			],
			args: ["role", "text"],
			needsSession: true,
		},
	},
	{
		name: "append",
		summary: "append messages read from stdin (one JSON object per line)",
		cli: {
			synopsis: "append FILE",
			description:
				"Reads agent messages from stdin, one JSON object per line (blank lines are skipped), and\n" +
				"appends each as a child of the current leaf, printing each new entry id on its own line.\n" +
				"A line that is not a JSON object with a string role stops the command (exit 1): the\n" +
				"messages before it stay appended, nothing after it is appended.",
			examples: [
				`echo '{"role":"user","content":"hello","timestamp":1748768400000}' | session-tree append session.jsonl`,
			],
			options: {},
			optionDocs: [],
			positionals: ["FILE"],
			load: async () => (await import("./commands/write.js")).appendCommand,
		},
	},
	{
		name: "branch",
		summary: "move the leaf; the next message forks off",
		cli: {
			synopsis: "branch FILE ID",
			description:
				"Moves the session's leaf to entry ID (or the entry whose id starts with ID). Nothing is\n" +
				"rewritten: one small `leaf` record is appended so that the move survives a restart.\n" +
				"The next append becomes a child of ID.",
			examples: ["session-tree branch session.jsonl 1a2b3c4d", "session-tree branch session.jsonl 1a2b"],
			options: {},
			optionDocs: [],
			positionals: ["FILE", "ID"],
			load: async () => (await import("./commands/write.js")).branchCommand,
		},
		repl: {
			usage: "branch <id>",
			details: ["The move is persisted (a leaf record): it survives a restart.", "Prints leaf: ID."],
			args: ["id"],
			needsSession: true,
		},
	},
	{
		name: "fork",
		summary: "copy the path root → ID into a new file",
		cli: {
			synopsis: "fork FILE [ID] [--dir DIR] [--lenient]",
			description:
				"Copies the path from the root to entry ID (default: the leaf; a unique prefix is enough)\n" +
				"into a new session file whose header names FILE as parentSession, and prints the new\n" +
				"file's path. Labels on the path come along. FILE is not changed.",
			examples: ["session-tree fork session.jsonl 1a2b3c4d", "session-tree fork session.jsonl 1a2b"],
			options: { dir: { type: "string" }, ...LENIENT_OPTION },
			optionDocs: [DIR_FOR_COPY_DOC, LENIENT_DOC],
			positionals: ["FILE", "ID?"],
			load: async () => (await import("./commands/write.js")).forkCommand,
		},
		repl: {
			usage: "fork [id]",
			details: [
				"The new file sits next to this one and names it as parentSession.",
				"Prints its path, then that the REPL now edits it (the original is unchanged).",
			],
			args: ["id"],
			needsSession: true,
		},
	},
	{
		name: "clone",
		summary: "copy the active path into a new file",
		cli: {
			synopsis: "clone FILE [--dir DIR] [--lenient]",
			description:
				"Copies the path from the root to the leaf into a new session file whose header names FILE\n" +
				"as parentSession, and prints the new file's path. Same as `fork FILE` without an ID.",
			examples: ["session-tree clone session.jsonl"],
			options: { dir: { type: "string" }, ...LENIENT_OPTION },
			optionDocs: [DIR_FOR_COPY_DOC, LENIENT_DOC],
			positionals: ["FILE"],
			load: async () => (await import("./commands/write.js")).cloneCommand,
		},
		repl: {
			usage: "clone",
			details: ["fork at the leaf: prints the new file's path, then that the REPL now edits it."],
			args: ["none"],
			needsSession: true,
		},
	},
	{
		name: "compact",
		summary: "compact the context before firstKeptId",
		repl: {
			usage: "compact <firstKeptId> <summary…>",
			details: [
				"From now on the model sees the summary, then the path from firstKeptId on.",
				"The kept messages are stored in the entry (retainedTail); tokensBefore is",
				"the context's size at the leaf, estimated as pi does (a zero usage of a reply",
				"typed with `send assistant` counts as none).",
				"Prints the id.",
			],
			args: ["id", "text"],
			needsSession: true,
		},
	},
	{
		name: "summary",
		summary: "move the leaf, leaving a branch summary",
		repl: {
			usage: "summary <id|root> <text…>",
			details: ["root: before the first entry. The summary tells the model what was left.", "Prints its id."],
			args: ["id-or-root", "text"],
			needsSession: true,
		},
	},
	{
		name: "label",
		summary: "set or clear the label of an entry",
		cli: {
			synopsis: "label FILE ID [TEXT]",
			description:
				"Sets the label of entry ID (or the entry whose id starts with ID) to TEXT, or clears it\n" +
				"when TEXT is left out or empty, as pi's /tree does: one `label` entry is appended (it\n" +
				"becomes the leaf, as in pi). Labels show in brackets in `tree`, and `tree --filter\n" +
				"labeled-only` lists the labeled entries. Prints nothing.",
			examples: [
				'session-tree label session.jsonl 1a2b "before the refactor"',
				"session-tree label session.jsonl 1a2b",
			],
			options: {},
			optionDocs: [],
			positionals: ["FILE", "ID", "TEXT?"],
			load: async () => (await import("./commands/edit.js")).labelCommand,
		},
		repl: {
			usage: "label <id> [text…]",
			details: ["Without text the label is cleared."],
			args: ["id", "text"],
			needsSession: true,
		},
	},
	{
		name: "name",
		summary: "set the session's name",
		cli: {
			synopsis: "name FILE TEXT",
			description:
				"Names the session, as pi's /name does: one `session_info` entry is appended (it becomes\n" +
				'the leaf, as in pi). The name is trimmed; an empty one ("") clears it. The name shows on\n' +
				"top of `tree` and in `info`. Prints nothing.",
			examples: ['session-tree name session.jsonl "fix the CI"', 'session-tree name session.jsonl ""'],
			options: {},
			optionDocs: [],
			positionals: ["FILE", "TEXT"],
			load: async () => (await import("./commands/edit.js")).nameCommand,
		},
		repl: {
			usage: "name [text…]",
			details: ['Without text it shows the name; name "" clears it.'],
			args: ["text"],
			needsSession: true,
		},
	},
	{
		name: "nav",
		summary: "go to an entry as pi's /tree does",
		cli: {
			synopsis: "nav FILE ID [--summary TEXT] [--json]",
			description:
				"Navigates to entry ID (or the entry whose id starts with ID) with the semantics of pi's\n" +
				"/tree: for a user message or a custom message, the leaf moves to its parent (before the\n" +
				"first entry, for a root) and its text is printed to be edited and sent again; any other\n" +
				"entry becomes the leaf. Navigating to the leaf itself changes nothing. With --summary, a\n" +
				"branch summary holding TEXT is appended at the new position and becomes the leaf.\n" +
				"\n" +
				"Prints `leaf: ID` (or `leaf: (before the first entry)`), `branch summary: ID` when one was\n" +
				"written, then for a user or custom message `text to edit:` and the text on the lines after.",
			examples: [
				"session-tree nav session.jsonl 1a2b",
				'session-tree nav session.jsonl 1a2b --summary "Tried a polyfill; dropped it."',
				"session-tree nav session.jsonl 1a2b --json",
			],
			options: { summary: { type: "string" }, ...JSON_OPTION },
			optionDocs: [
				{
					flags: "--summary TEXT",
					description: "leave a branch summary at the new position explaining what was left",
				},
				{ flags: "--json", description: "print {leafId, editorText?, summaryEntryId?} (pi's navigate result)" },
			],
			positionals: ["FILE", "ID"],
			load: async () => (await import("./commands/edit.js")).navCommand,
		},
		repl: {
			usage: "nav <id>",
			details: [
				"A user or custom message: the leaf moves to its parent and its text is shown",
				"to edit (edit: TEXT). Any other entry becomes the leaf. Prints leaf: ID.",
			],
			args: ["id"],
			needsSession: true,
		},
	},
	{
		name: "migrate",
		summary: "rewrite a v1/v2 file in format v3, keeping a backup",
		cli: {
			synopsis: "migrate FILE",
			description:
				"Rewrites an older (v1 or v2) session file in the current format, atomically, and prints\n" +
				'the path of the backup of the original. Prints "already current" for a v3 file. Another\n' +
				"agent's file is refused and left as it is: `session-tree import` it.",
			examples: ["session-tree migrate old-session.jsonl"],
			options: {},
			optionDocs: [],
			positionals: ["FILE"],
			load: async () => (await import("./commands/write.js")).migrateCommand,
		},
	},
	{
		name: "validate",
		summary: "list every problem of a session file (exit 1 if any)",
		cli: {
			synopsis: "validate FILE [--json]",
			description:
				"Reads the whole file leniently and lists every problem with its line: unreadable or\n" +
				"glued lines, NUL padding, an incomplete last line, missing parents, parent cycles,\n" +
				"duplicate ids, a bad header; then what a provider would refuse in the context at the leaf\n" +
				"(TOOL_CALL_WITHOUT_RESULT, TOOL_RESULT_WITHOUT_CALL, TOOL_RESULT_SEPARATED,\n" +
				"TOOL_RESULT_DUPLICATE; see `ctx --check`; calls of a turn still under way are notes on\n" +
				"stderr). Never writes. Exit 0 when the file is clean, 1 when it has problems (then\n" +
				"`session-tree repair FILE` writes a clean copy of a damaged file, keeping a backup).\n" +
				"\n" +
				"Another agent's file (Claude Code, Codex, ChatGPT, Open WebUI, …; FILE#ID for one session\n" +
				"of several) is read as `tree` and `ctx` read it, imported in memory: what the import left\n" +
				"out or worked around is listed (IMPORT_SKIPPED), then the context check of each session.",
			examples: ["session-tree validate session.jsonl", "session-tree validate session.jsonl --json | jq length"],
			options: { ...JSON_OPTION },
			optionDocs: [
				{
					flags: "--json",
					description: "print the problems as a JSON array of {code, line, message, entryId, entryIds?, toolCallId?}",
				},
			],
			positionals: ["FILE"],
			load: async () => (await import("./commands/integrity.js")).validateCommand,
		},
	},
	{
		name: "repair",
		summary: "write a clean copy of a damaged session file (backup kept)",
		cli: {
			synopsis: "repair FILE",
			description:
				"Opens the file leniently and, if it has problems, rewrites it atomically (temporary file,\n" +
				"fsync, rename) with every readable entry: unreadable lines left out, records glued on one\n" +
				"line split, gaps bridged to the previous entry, cycles cut, duplicate ids renamed, an\n" +
				"incomplete last line dropped. The original is kept next to it as FILE.bak (or .bak.N),\n" +
				"whose path is printed. A clean file is left untouched. Another agent's file (Claude Code,\n" +
				"Codex, ChatGPT, Open WebUI, …) is refused and left as it is: `session-tree import` it.",
			examples: ["session-tree repair session.jsonl && session-tree validate session.jsonl"],
			options: {},
			optionDocs: [],
			positionals: ["FILE"],
			load: async () => (await import("./commands/integrity.js")).repairCommand,
		},
	},
	{
		name: "copy",
		summary: "copy a session, or every session of a store, into another store",
		cli: {
			synopsis: "copy SRC DST",
			description:
				"Copies one session (SRC is a file or a session URL such as sqlite:PATH#ID) or every session\n" +
				"of a store (SRC is a directory, sqlite:PATH or postgres://…) into DST: a directory (made if\n" +
				"missing; files are named as pi names them), a database (sqlite:PATH, postgres://…; sessions\n" +
				"are keyed by their header's id), or, for one session, the new session's own location (a\n" +
				"FILE.jsonl or URL#ID). Prints each new session's location on stdout.\n" +
				"\n" +
				"The copy holds the same records as the same JSON text, in the same order, and is read back\n" +
				"and compared before it counts: a file copied into a database and back gives the same lines.\n" +
				"A damaged source is refused (repair it first); a session DST already holds is left alone\n" +
				"with a warning. Run an interrupted copy again to complete it: a session in DST that holds\n" +
				"the first of SRC's records gets the rest (completed: N records appended); one that\n" +
				"holds anything else is left as it is and fails. A session file is written as a hidden\n" +
				".NAME.partial file and gets its name when whole. Exit 1 if any session failed.\n" +
				"SRC may be another agent's file (FILE#ID for one session of several): what is copied is\n" +
				"its import, as `tree` and `ctx` read it; the file itself is only read.",
			examples: [
				"session-tree copy ~/.pi/agent/sessions sqlite:./agents.db",
				"session-tree copy session.jsonl postgres://db.internal/agents",
				"session-tree copy 'sqlite:./agents.db#0195f3c2-…' ./exported/",
			],
			options: {},
			optionDocs: [],
			positionals: ["SRC", "DST"],
			load: async () => (await import("./commands/transfer.js")).copyCommand,
		},
	},
	{
		name: "prune",
		summary: "delete the old sessions of a store",
		cli: {
			synopsis: "prune STORE (--older-than DAYS | --keep N) [--dry-run] [--json]",
			description:
				"Deletes sessions of STORE (a directory, sqlite:PATH, postgres://…) that last changed more\n" +
				"than DAYS days ago (--older-than), or all but the N that changed last (--keep). Prints each\n" +
				"session deleted (with --dry-run: each it would delete, deleting nothing). Each deletion is\n" +
				"atomic: a session is there whole or gone. Sessions whose time of change the store does not\n" +
				"know are kept, and so is another agent's file in a directory (a warning names it). Copy a\n" +
				"store first (`copy`) to keep what prune deletes.",
			examples: [
				"session-tree prune sqlite:./agents.db --older-than 90 --dry-run",
				"session-tree prune postgres://db.internal/agents --keep 10000",
			],
			options: {
				"older-than": { type: "string" },
				keep: { type: "string" },
				"dry-run": { type: "boolean" },
				...JSON_OPTION,
			},
			optionDocs: [
				{ flags: "--older-than DAYS", description: "delete sessions last changed more than DAYS days ago" },
				{ flags: "--keep N", description: "keep the N sessions changed last, delete the rest" },
				{ flags: "--dry-run", description: "print what would be deleted, delete nothing" },
				{ flags: "--json", description: "print a JSON array of {location, modified, bytes}" },
			],
			positionals: ["STORE"],
			load: async () => (await import("./commands/transfer.js")).pruneCommand,
		},
	},
	{
		name: "import",
		summary: "import Claude Code, Codex, Gemini CLI, ChatGPT, Claude.ai and Open WebUI histories as sessions",
		cli: {
			synopsis: "import [--from FORMAT] INPUT… [--dir DIR | -o OUT] [--lenient]",
			description:
				"Imports other agents' histories as pi sessions, every branch kept: Claude Code transcripts\n" +
				"(~/.claude/projects/*/*.jsonl), Codex rollouts (~/.codex/sessions/…/*.jsonl), Gemini CLI\n" +
				"chats (~/.gemini/tmp/*/chats/session-*.jsonl or .json), ChatGPT and Claude.ai data exports\n" +
				"(conversations.json, one conversation per file, or the export's ZIP file) and Open WebUI\n" +
				"chats (exported JSON). The format is told from the content (--from names it). An INPUT\n" +
				"is a file, a directory (walked recursively: *.json, *.jsonl, *.zip) or a ZIP file (its\n" +
				"conversations.json, else its *.json files). The source's active point becomes the leaf.\n" +
				"\n" +
				"Each session goes into --dir (a directory, made if missing; sqlite:PATH; postgres://…), or\n" +
				"into -o OUT (one session's location; the input must hold exactly one), by default into\n" +
				"pi's directory of the session's working directory (the current one when the source has\n" +
				"none). Ids derive from the source's ids: importing again changes nothing, a source that grew\n" +
				"appends only its new entries, and a session that differs otherwise is left alone with an\n" +
				"error naming the entry. A source that fails writes nothing. Prints each session's location;\n" +
				"stderr gets what was skipped and a summary; exit 1 if any source failed.",
			examples: [
				"session-tree import ~/Downloads/chatgpt-export.zip --dir ./sessions",
				"session-tree import ~/.claude/projects --dir sqlite:./agents.db",
				"session-tree import --from openwebui chat-export.json -o chat.jsonl",
			],
			options: {
				from: { type: "string" },
				dir: { type: "string" },
				out: { type: "string", short: "o" },
				...LENIENT_OPTION,
			},
			optionDocs: [
				{
					flags: "--from FORMAT",
					description:
						"the inputs' format: claude-code, codex, gemini, chatgpt, claude-ai or openwebui (default: detected)",
				},
				{ flags: "--dir DIR", description: "write the sessions into DIR (a directory or a store such as sqlite:PATH)" },
				{
					flags: "-o, --out OUT",
					description:
						"write the one session of the input to OUT (a .jsonl file or a session URL; `-o -` prints its JSONL)",
				},
				{
					flags: "--lenient",
					description: "import broken sources as far as possible (links to missing nodes become roots; reported)",
				},
			],
			// Any number of inputs: the argument parser checks positionals against this list.
			positionals: ["INPUT", ...new Array<string>(9999).fill("INPUT?")],
			load: async () => (await import("./commands/import.js")).importCommand,
		},
	},
	{
		name: "export",
		summary: "write a session as a ChatGPT conversation, an Open WebUI chat or a Claude Code transcript",
		cli: {
			synopsis: "export FILE --to chatgpt|openwebui|claude-code [-o OUT] [--no-redact] [--force] [--lenient]",
			description:
				"Writes the session as JSON that ChatGPT's or Open WebUI's tools read: every message node with\n" +
				"its parent and children, roles, texts and times, the leaf as current_node (ChatGPT, a\n" +
				"conversations.json array) or history.currentId (Open WebUI, an export file's array of one\n" +
				"chat); or as a Claude Code transcript (JSONL): every branch kept through uuid/parentUuid, the\n" +
				"leaf's line last, so that `claude --resume` continues there once the file is in\n" +
				"~/.claude/projects/<dir>/<sessionId>.jsonl (export never writes there unless OUT says so).\n" +
				"A session imported from that format gives back its original node ids and every field the\n" +
				"import kept. FILE may also be a file of another format, read directly. Prints to stdout,\n" +
				"or writes OUT (not over an existing file without --force). Secrets are replaced by\n" +
				"[REDACTED:kind] as in md and html; stderr says how many of each. --no-redact keeps them.",
			examples: [
				"session-tree export session.jsonl --to chatgpt -o conversations.json",
				"session-tree export 'sqlite:./agents.db#0195f3c2-…' --to openwebui",
				"session-tree export session.jsonl --to claude-code -o transcript.jsonl",
			],
			options: {
				to: { type: "string" },
				out: { type: "string", short: "o" },
				"no-redact": { type: "boolean" },
				force: { type: "boolean" },
				...LENIENT_OPTION,
			},
			optionDocs: [
				{ flags: "--to FORMAT", description: "chatgpt, openwebui or claude-code" },
				{ flags: "-o, --out OUT", description: "write to OUT instead of stdout (`-o -`: stdout)" },
				{ flags: "--no-redact", description: "keep secrets (API keys, tokens, passwords) as they are" },
				{ flags: "--force", description: "replace OUT if it exists" },
				LENIENT_DOC,
			],
			positionals: ["FILE"],
			load: async () => (await import("./commands/import.js")).exportCommand,
		},
	},
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
			load: async () => (await import("./commands/repl.js")).replCommand,
		},
	},
	{
		name: "demo",
		summary: "narrate a branching session's lifecycle on a real file",
		cli: {
			synopsis: "demo [--dir DIR]",
			description:
				"Runs the tutorial's lifecycle, non-interactively, printing the tree and the model context\n" +
				"after every step: new session, three turns, branch back and ask differently, fork into a\n" +
				"new file, compaction, and a reopen from disk. The files stay in DIR (default: a fresh\n" +
				"temporary directory) for you to look at.",
			examples: ["session-tree demo", "session-tree demo --dir ./demo-sessions"],
			options: { dir: { type: "string" } },
			optionDocs: [{ flags: "--dir DIR", description: "write the session files to DIR (default: a new temp dir)" }],
			positionals: [],
			load: async () => (await import("./commands/demo.js")).demoCommand,
		},
	},
	{
		name: "clear",
		summary: "clear the screen",
		repl: {
			usage: "clear",
			details: ["As Ctrl-L. Without a terminal (a script) it does nothing."],
			args: ["none"],
			needsSession: false,
		},
	},
	{
		name: "help",
		summary: "this list, or one command's usage",
		repl: { aliases: ["?"], usage: "help [command]", args: ["command"], needsSession: false },
	},
	{
		name: "exit",
		summary: "leave (also quit, or Ctrl-D)",
		repl: { aliases: ["quit"], usage: "exit", args: ["none"], needsSession: false },
	},
]);

/** Every command, in the order of the listings. */
export const COMMAND_SPECS: readonly CommandSpec[] = SPECS;

/** The name of every command the REPL has (checked by the REPL's table of handlers). */
export type ReplCommandName = Extract<(typeof SPECS)[number], { readonly repl: object }>["name"];

/** The REPL's commands, in the order of its `help`. */
export const REPL_COMMAND_SPECS: readonly ReplCommandSpec[] = SPECS.flatMap((spec) =>
	"repl" in spec ? [{ name: spec.name, summary: spec.summary, ...spec.repl }] : [],
);

/**
 * The command line's commands, in the order of `session-tree --help`. Built after
 * {@link REPL_COMMAND_SPECS}: the spread reads the `repl` command's description, which lists them.
 */
export const CLI_COMMANDS: readonly CliCommand[] = COMMAND_SPECS.flatMap((spec) =>
	spec.cli ? [{ name: spec.name, summary: spec.summary, ...spec.cli }] : [],
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
