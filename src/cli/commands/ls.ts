/** `session-tree ls`: the sessions of a project (or of all projects, or of a directory), newest first. */

import { type Selection, selectSessionFiles } from "../../catalog/discover.js";
import { flatten, formatBytes, whenText } from "../../catalog/format.js";
import { type SessionSummary, type SkippedSession, summarizeSessions } from "../../catalog/summary.js";
import { type Painter, painter, shouldColor, terminalWidth } from "../../render/color.js";
import { displayWidth, truncateToWidth } from "../../render/preview.js";
import { createProgress } from "../../render/progress.js";
import { type CliIO, type Command, type CommandInput, JSON_OPTION, stringValue, UsageError } from "../args.js";

/** A row of `ls --json`. */
export interface LsRow {
	file: string;
	id: string;
	cwd: string;
	name: string | null;
	firstMessage: string | null;
	modified: string;
	created: string | null;
	entries: number;
	branches: number;
	bytes: number;
	parentSession: string | null;
}

/** The options `ls` and `search` share: which sessions. */
export const SELECTION_OPTIONS = {
	cwd: { type: "string" },
	all: { type: "boolean", short: "a" },
	width: { type: "string" },
} as const;

export const SELECTION_DOCS = [
	{ flags: "--cwd PATH", description: "the sessions of the project at PATH (default: the current directory)" },
	{ flags: "-a, --all", description: "the sessions of every project under <agent dir>/sessions/" },
	{ flags: "--width N", description: "fit lines into N columns (default: the terminal's width; no cut when piped)" },
];

/** `--width N`, else the terminal's width, else undefined (piped: no cut). */
export function outputWidth(values: CommandInput["values"], command: string): number | undefined {
	const text = stringValue(values, "width");
	if (text === undefined) return terminalWidth(process.stdout);
	if (!/^\d+$/.test(text) || Number(text) < 20) {
		throw new UsageError(`option --width needs a whole number of at least 20, not ${JSON.stringify(text)}`, command);
	}
	return Number(text);
}

/** The files a collection command looks at, from DIR, --all and --cwd. */
export function selectFromArgs(values: CommandInput["values"], dir: string | undefined, command: string): Selection {
	const cwd = stringValue(values, "cwd");
	const all = values.all === true;
	if (dir !== undefined && all) throw new UsageError("give either DIR or --all, not both", command);
	if (cwd !== undefined && (dir !== undefined || all)) {
		throw new UsageError(`--cwd chooses a project; it does not go with ${all ? "--all" : "DIR"}`, command);
	}
	return selectSessionFiles({ dir, all, cwd });
}

/** Prints the files that were skipped and the problems of files that were still used. */
export function reportProblems(
	io: CliIO,
	skipped: readonly SkippedSession[],
	warnings: ReadonlyArray<{ file: string; message: string }>,
): void {
	for (const { file, message } of warnings) io.err(`session-tree: warning: ${file}: ${message}\n`);
	for (const { file, reason } of skipped) io.err(`session-tree: warning: ${file}: ${reason} (skipped)\n`);
}

function toRow(session: SessionSummary): LsRow {
	return {
		file: session.file,
		id: session.id,
		cwd: session.cwd,
		name: session.name,
		firstMessage: session.firstMessage,
		modified: session.modified.toISOString(),
		created: session.created ? session.created.toISOString() : null,
		entries: session.entries,
		branches: session.branches,
		bytes: session.bytes,
		parentSession: session.parentSession,
	};
}

/** Columns a name or first message may take when the output is not a terminal. */
const PIPED_TEXT_WIDTH = 200;

/** The human table: one line per session, then its file, indented. */
export function renderLs(
	sessions: readonly SessionSummary[],
	options: { now: Date; width?: number; paint: Painter },
): string {
	const { now, width, paint: p } = options;
	const showCwd = new Set(sessions.map((session) => session.cwd)).size > 1;
	const cells = sessions.map((session) => ({
		when: whenText(session.modified, now),
		entries: String(session.entries),
		branches: String(session.branches),
		size: formatBytes(session.bytes),
		cwd: flatten(session.cwd),
	}));
	const head = { when: "MODIFIED", entries: "ENTRIES", branches: "BRANCHES", size: "SIZE", cwd: "CWD" };
	const w = {
		when: Math.max(head.when.length, ...cells.map((c) => c.when.length)),
		entries: Math.max(head.entries.length, ...cells.map((c) => c.entries.length)),
		branches: Math.max(head.branches.length, ...cells.map((c) => c.branches.length)),
		size: Math.max(head.size.length, ...cells.map((c) => c.size.length)),
		cwd: Math.max(head.cwd.length, ...cells.map((c) => displayWidth(c.cwd))),
	};
	const prefix = (c: typeof head) =>
		`${c.when.padEnd(w.when)}  ${c.entries.padStart(w.entries)}  ${c.branches.padStart(w.branches)}  ${c.size.padStart(w.size)}  ` +
		(showCwd ? `${c.cwd}${" ".repeat(w.cwd - displayWidth(c.cwd))}  ` : "");
	const room = Math.max(10, (width ?? PIPED_TEXT_WIDTH + prefix(head).length) - prefix(head).length);
	const lines = [p(`${prefix(head)}NAME / FIRST MESSAGE`.trimEnd(), "bold")];
	sessions.forEach((session, i) => {
		const cell = cells[i] as (typeof cells)[number];
		let text: string;
		if (session.name !== null) text = p(truncateToWidth(flatten(session.name), room), "bold");
		else if (session.firstMessage !== null) text = `"${truncateToWidth(flatten(session.firstMessage), room - 2)}"`;
		else text = p("(no messages)", "dim");
		lines.push(`${prefix(cell)}${text}`);
		lines.push(p(`    ${session.file}`, "dim"));
	});
	return `${lines.join("\n")}\n`;
}

export const lsCommand: Command = {
	name: "ls",
	summary: "list the sessions of a project (or all projects, or a directory), newest first",
	synopsis: "ls [DIR] [--cwd PATH] [--all] [--width N] [--json]",
	description:
		"Lists session files, newest first, the way pi's session picker sees them: the time of the\n" +
		"last user or assistant message (else the header's time, else the file's), the session name\n" +
		"or else the first user message (in quotes), the number of entries and of branches (leaves),\n" +
		"the file size, and the file itself on the line below.\n" +
		"\n" +
		"Which sessions: by default those of the project in the current directory (or --cwd PATH) in\n" +
		"pi's layout, <agent dir>/sessions/--<cwd>--/, where the agent dir is $PI_CODING_AGENT_DIR or\n" +
		"~/.pi/agent; with --all those of every project; with DIR the *.jsonl files in DIR and in its\n" +
		"subdirectories (so DIR may be a project directory or a sessions root). A CWD column appears\n" +
		"when the sessions belong to more than one directory.\n" +
		"\n" +
		"Each file is read once, without building its tree. Files that are not sessions are skipped\n" +
		"with a warning on stderr; damaged sessions are listed as a lenient open reads them, with a\n" +
		"warning. On a terminal a progress bar shows on stderr when listing takes a while.",
	examples: [
		"session-tree ls",
		"session-tree ls --all",
		"session-tree ls --cwd ~/src/project --json",
		"session-tree ls ~/.pi/agent/sessions/--home-me-project--",
	],
	options: { ...SELECTION_OPTIONS, ...JSON_OPTION },
	optionDocs: [
		...SELECTION_DOCS,
		{
			flags: "--json",
			description:
				"print a JSON array of {file, id, cwd, name, firstMessage, modified, created, entries, branches, bytes, parentSession}",
		},
	],
	positionals: ["DIR?"],
	run({ values, positionals, io }) {
		const width = outputWidth(values, "ls");
		const selection = selectFromArgs(values, positionals[0], "ls");
		const progress = createProgress(process.stderr, { label: "reading sessions" });
		const { sessions, skipped } = summarizeSessions(selection.files, {
			onProgress: (done, total) => progress.update(done, total),
		});
		progress.finish();
		reportProblems(
			io,
			skipped,
			sessions.flatMap((session) => session.warnings.map((message) => ({ file: session.file, message }))),
		);
		if (values.json) {
			io.out(`${JSON.stringify(sessions.map(toRow))}\n`);
			return;
		}
		if (sessions.length === 0) {
			io.err(`session-tree: no sessions in ${selection.root}\n`);
			return;
		}
		io.out(
			renderLs(sessions, {
				now: new Date(),
				paint: painter(shouldColor(process.stdout)),
				...(width === undefined ? {} : { width }),
			}),
		);
	},
};
