/** The specs of the commands that look across sessions (metadata only, see common.ts). */

import { defineCommands, JSON_OPTION, SELECTION_DOCS, SELECTION_OPTIONS } from "./common.js";

/**
 * The commands that look across the sessions of a project, a directory or a store: ls, search.
 */
export const CATALOG_SPECS = defineCommands([
	{
		name: "ls",
		summary: "list the sessions of a project (or all projects, or a directory), newest first",
		cli: {
			synopsis: "ls [DIR|STORE] [--cwd PATH] [--all] [--agents] [--scan] [--width N] [--json]",
			description:
				"Lists sessions, newest first: when the session last changed (a file's mtime, a database\n" +
				"row's last append; not the messages' own timestamps, which --json gives as lastActivity),\n" +
				"the session name or else the first user message (in quotes), the number of entries and of\n" +
				"branches (leaves), the file size, and the file itself on the line below.\n" +
				"\n" +
				"Which sessions: by default those of the project in the current directory (or --cwd PATH) in\n" +
				"pi's layout, <agent dir>/sessions/--<cwd>--/, where the agent dir is $PI_CODING_AGENT_DIR or\n" +
				"~/.pi/agent; with --all those of every project; with DIR the *.jsonl files in DIR and in its\n" +
				"subdirectories at any depth (so DIR may be a project directory, a sessions root or\n" +
				"~/.codex/sessions with its year/month/day directories); with STORE the\n" +
				"sessions of a database (sqlite:PATH, postgres://…; each listed by its URL). A CWD column\n" +
				"appears when the sessions belong to more than one directory. With --agents, the sessions of\n" +
				"every project of pi, Claude Code ($CLAUDE_CONFIG_DIR or ~/.claude, its projects/), Codex\n" +
				"($CODEX_HOME or ~/.codex, its sessions/) and Gemini CLI ($GEMINI_CLI_HOME or ~, its\n" +
				".gemini/tmp/*/chats/) together, with an AGENT column; the others' files are\n" +
				"read as `import` reads them, in memory. A DIR of Claude Code or Codex files is read so too.\n" +
				"--agents --cwd PATH lists only the sessions of that project (their working directory).\n" +
				"\n" +
				"--agents uses the catalog index in $XDG_CACHE_HOME/session-tree/ (else ~/.cache/...): a\n" +
				"cache of what the sessions hold, brought up to date first (only files that are new or\n" +
				"changed in size or time are read; a pi file that grew is read from where it was left).\n" +
				"The first build shows a progress bar on a terminal. --scan reads every session instead.\n" +
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
				"session-tree ls --agents --cwd ~/src/project",
			],
			options: { ...SELECTION_OPTIONS, agents: { type: "boolean" }, scan: { type: "boolean" }, ...JSON_OPTION },
			optionDocs: [
				...SELECTION_DOCS,
				{
					flags: "--agents",
					description:
						"the sessions of pi, Claude Code, Codex and Gemini CLI together, with an AGENT column (with --cwd: of one project)",
				},
				{ flags: "--scan", description: "with --agents: read every session instead of the catalog index" },
				{
					flags: "--json",
					description:
						"print a JSON array of {file, id, cwd, name, firstMessage, modified (the file's mtime, a database row's last append), lastActivity (pi's modified: the last message's time), created, entries, branches, bytes, parentSession} (and agent, with --agents)",
				},
			],
			positionals: ["DIR?"],
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
			synopsis:
				"search TEXT [DIR|STORE] [--cwd PATH] [--all] [--agents] [--regex] [-i] [--scan] [--limit N] [--width N] [--json]",
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
				"With --agents, the sessions of pi, Claude Code, Codex and Gemini CLI in their default places\n" +
				"(as `ls --agents`; --cwd PATH: of one project). DIR is searched at any depth.\n" +
				"\n" +
				"--agents and a DIR use the catalog index in $XDG_CACHE_HOME/session-tree/ (else\n" +
				"~/.cache/...), brought up to date first: only sessions that are new or changed in size or\n" +
				"time are read (a pi file that grew, from where it was left), and a text of 3 or more\n" +
				"characters is looked up in its full-text index before the entries are matched exactly. The\n" +
				"hits are those a scan finds. The first build shows a progress bar on a terminal.\n" +
				"\n" +
				"STORE is a database holding many sessions (sqlite:PATH, postgres://…). Its full-text index\n" +
				"picks the sessions to read first: SQLite's matches any text of 3 or more characters exactly\n" +
				"as a scan would; PostgreSQL's matches word prefixes, so a text inside a word is found only\n" +
				"with --scan, which reads every session (and does not use the catalog index).\n" +
				"\n" +
				"Exit status, as grep's: 0 when something was found, 1 when nothing was (a note goes to\n" +
				"stderr), 2 for a usage error such as an invalid --regex.",
			examples: [
				'session-tree search "B-tree"',
				"session-tree search -i 'timeout' --all --limit 20",
				"session-tree search --regex 'fix(ed|es)? the (parser|lexer)' --cwd ~/src/project",
				"session-tree search TODO ~/.pi/agent/sessions --json",
				"session-tree search -i 'rate limit' sqlite:./agents.db",
				"session-tree search --agents 'B-tree' --cwd ~/src/project",
				"session-tree search TODO ~/.codex/sessions",
			],
			options: {
				...SELECTION_OPTIONS,
				regex: { type: "boolean", short: "E" },
				"ignore-case": { type: "boolean", short: "i" },
				agents: { type: "boolean" },
				scan: { type: "boolean" },
				limit: { type: "string" },
				...JSON_OPTION,
			},
			optionDocs: [
				...SELECTION_DOCS,
				{ flags: "-E, --regex", description: "TEXT is a regular expression (JavaScript syntax)" },
				{ flags: "-i, --ignore-case", description: "ignore case" },
				{
					flags: "--agents",
					description: "the sessions of pi, Claude Code, Codex and Gemini CLI (with --cwd: of one project)",
				},
				{
					flags: "--scan",
					description: "read every session, without the catalog index or a database's full-text index",
				},
				{ flags: "--limit N", description: "stop after N hits" },
				{
					flags: "--json",
					description:
						"print a JSON array of {file, sessionId, name, entryId, role, onActiveBranch, snippet, matchStart, matchEnd} (and agent, with --agents)",
				},
			],
			positionals: ["TEXT", "DIR?"],
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
]);
