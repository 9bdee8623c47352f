/** The specs of the commands on whole files and stores (metadata only, see common.ts). */

import { defineCommands, JSON_OPTION, LENIENT_DOC, LENIENT_OPTION } from "./common.js";

/**
 * The commands that work on whole files and stores, in the order of the listings: migrate,
 * validate, repair, copy, prune, import, export.
 */
export const STORE_SPECS = defineCommands([
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
		},
	},
	{
		name: "copy",
		summary: "copy a session, or every session of a store, into another store",
		cli: {
			synopsis: "copy SRC DST [--update]",
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
				"its import, as `tree` and `ctx` read it; the file itself is only read.\n" +
				"\n" +
				"With --update, a session DST holds that is not the first of SRC's records (it was updated\n" +
				"or merged before, or its leaf moved) is brought up to date: the records of SRC it lacks are\n" +
				"appended, by id, in SRC's order, then a leaf record if its leaf still differs from SRC's\n" +
				"(updated: N records appended). When DST holds entries SRC lacks, or an id with other\n" +
				"content, both copies grew: nothing is written, the session fails, and the message says to\n" +
				"join them with `session-tree merge`.",
			examples: [
				"session-tree copy ~/.pi/agent/sessions sqlite:./agents.db",
				"session-tree copy session.jsonl postgres://db.internal/agents",
				"session-tree copy 'sqlite:./agents.db#0195f3c2-…' ./exported/",
				"session-tree copy --update ~/.pi/agent/sessions sqlite:./agents.db",
			],
			options: { update: { type: "boolean" } },
			optionDocs: [
				{
					flags: "--update",
					description: "bring sessions DST holds up to date: append what they lack, then SRC's leaf",
				},
			],
			positionals: ["SRC", "DST"],
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
		},
	},
]);
