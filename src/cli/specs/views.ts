/** The specs of the commands that show one session (metadata only, see common.ts). */

import {
	defineCommands,
	JSON_OPTION,
	LEAF_DOC,
	LENIENT_DOC,
	LENIENT_OPTION,
	TREE_FILTER_NAMES,
	WIDTH_DOC,
} from "./common.js";

/**
 * The commands that show one session, in the order of the listings: tree, browse, ctx, md, html, path,
 * leaves, info. Where both front ends have one (tree, browse, ctx, leaves, info), the CLI's takes a
 * FILE and more options, the REPL's works on the session it has open.
 */
export const VIEW_SPECS = defineCommands([
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
				"aborted, failed or the leaf). Children of a hidden entry move up to the nearest shown one.\n" +
				"Archived branches (session-tree archive) are hidden whole except under --filter all;\n" +
				'--json lists every entry and marks those of archived branches with "archived": true.',
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
		},
	},
	{
		name: "diff",
		summary: "compare two branches: where they part, paired messages word by word",
		cli: {
			synopsis: "diff SESSION A B | diff SESSION_A SESSION_B [--json] [--lenient]",
			description:
				"Compares two paths: two entries of one session (typically two leaves), or the leaves of two\n" +
				"sessions (a fork and its source, two copies of one session). Prints the last entry both\n" +
				"paths hold, then what each holds after it: corresponding messages (an edited prompt and its\n" +
				"original, a regenerated answer and the first one) paired and compared word by word\n" +
				"(`~`, [-removed-]{+added+}), pairs with the same text (`=`), and messages only one side\n" +
				"holds (`-` only in A, `+` only in B). Labels, leaf records and model changes are left out.",
			examples: [
				"session-tree diff session.jsonl 1c2d3e4f 7e8f9a0b",
				"session-tree diff fork.jsonl source.jsonl --json",
			],
			options: { ...JSON_OPTION, ...LENIENT_OPTION },
			optionDocs: [
				{
					flags: "--json",
					description:
						"print { a, b, ancestorId, afterA, afterB, rows } (rows: same, changed with words, only-a, only-b)",
				},
				LENIENT_DOC,
			],
			positionals: ["SESSION", "A", "B?"],
		},
		repl: {
			summary: "compare two paths, word by word",
			usage: "diff <id> [<id>]",
			details: [
				"Compares the path to the first entry with the path to the second (default: the leaf):",
				"the common ancestor, then paired messages word by word ([-removed-]{+added+}).",
			],
			args: ["id", "id"],
			needsSession: true,
		},
	},
	{
		name: "leaves",
		summary: "list the tips of all branches",
		cli: {
			synopsis: "leaves FILE [--all] [--json] [--lenient]",
			description:
				"Prints the ids of all entries that have no children, sorted: one per branch of the tree.\n" +
				"Archived branches (session-tree archive) are left out, and an entry whose children are all\n" +
				"archived is a tip; --all lists every entry without children.",
			examples: ["session-tree leaves session.jsonl --json", "session-tree leaves session.jsonl --all"],
			options: { all: { type: "boolean" }, ...JSON_OPTION, ...LENIENT_OPTION },
			optionDocs: [
				{ flags: "--all", description: "also the tips of archived branches (and archive records)" },
				{ flags: "--json", description: "print a JSON array of ids" },
				LENIENT_DOC,
			],
			positionals: ["FILE"],
		},
		repl: {
			usage: "leaves",
			details: [
				"One line per entry without children, sorted, with its last message; * marks the leaf.",
				"Archived branches are left out (as `session-tree leaves` without --all).",
			],
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
		},
		repl: { usage: "info", args: ["none"], needsSession: true },
	},
]);
