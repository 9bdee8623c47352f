/** The specs of the commands that create, open and write a session (metadata only, see common.ts). */

import { DIR_FOR_COPY_DOC, defineCommands, JSON_OPTION, LENIENT_DOC, LENIENT_OPTION } from "./common.js";

/**
 * The commands that create, open and write a session, in the order of the listings: new, load,
 * send, append, branch, fork, clone, compact, summary, label, name, nav.
 */
export const EDIT_SPECS = defineCommands([
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
]);
