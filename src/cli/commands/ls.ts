/** `session-tree ls`: the sessions of a project (or of all projects, or of a directory), newest first. */

import { resolve } from "node:path";
import { type Agent, AgentsCollection, agentPlaces, TranscriptDirectory } from "../../catalog/agents.js";
import { type Selection, selectCollection } from "../../catalog/discover.js";
import { flatten, formatBytes, whenText } from "../../catalog/format.js";
import { type SessionSummary, type SkippedSession, summarizeSessions } from "../../catalog/summary.js";
import { type Painter, painter, shouldColor, terminalWidth } from "../../render/color.js";
import { displayWidth, sanitize, truncateToWidth } from "../../render/preview.js";
import { createProgress } from "../../render/progress.js";
import {
	type CliIO,
	type CommandHandler,
	type CommandInput,
	stringValue,
	UsageError,
	wholeNumberOption,
} from "../args.js";
import { jsonLine } from "../json.js";
import { agentsRoot, agentsSource, freshIndex, summaryOf } from "./indexed.js";

/** A row of `ls --json`. */
export interface LsRow {
	file: string;
	id: string;
	cwd: string;
	name: string | null;
	firstMessage: string | null;
	/** When the session last changed: the file's mtime, a database row's last append. */
	modified: string;
	/** pi's "modified": the last user or assistant message's own time. */
	lastActivity: string;
	created: string | null;
	entries: number;
	branches: number;
	bytes: number;
	parentSession: string | null;
	/** With --agents: whose session it is (pi, claude-code, codex, gemini). */
	agent?: Agent;
}

/** `--width N`, else the terminal's width, else undefined (piped: no cut). */
export function outputWidth(values: CommandInput["values"], command: string): number | undefined {
	return wholeNumberOption(values, "width", 20, command) ?? terminalWidth(process.stdout);
}

/** The sessions a collection command looks at, from DIR, --all and --cwd. */
export function selectFromArgs(values: CommandInput["values"], dir: string | undefined, command: string): Selection {
	const cwd = stringValue(values, "cwd");
	const all = values.all === true;
	if (dir !== undefined && all) throw new UsageError("give either DIR or --all, not both", command);
	if (cwd !== undefined && (dir !== undefined || all)) {
		throw new UsageError(`--cwd chooses a project; it does not go with ${all ? "--all" : "DIR"}`, command);
	}
	const selection = selectCollection({ dir, all, cwd });
	// A directory may hold other agents' transcripts (Claude Code, Codex): read them as imports do.
	if (selection.kind === "dir") return { ...selection, collection: new TranscriptDirectory(selection.collection) };
	return selection;
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
		lastActivity: session.lastActivity.toISOString(),
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
	options: { now: Date; width?: number; paint: Painter; agentOf?: (session: SessionSummary) => string },
): string {
	const { now, width, paint: p, agentOf } = options;
	const showCwd = new Set(sessions.map((session) => session.cwd)).size > 1;
	const cells = sessions.map((session) => ({
		session,
		when: whenText(session.modified, now),
		agent: agentOf ? agentOf(session) : "",
		entries: String(session.entries),
		branches: String(session.branches),
		size: formatBytes(session.bytes),
		cwd: flatten(session.cwd),
	}));
	const head = {
		when: "MODIFIED",
		agent: "AGENT",
		entries: "ENTRIES",
		branches: "BRANCHES",
		size: "SIZE",
		cwd: "CWD",
	};
	const w = {
		when: Math.max(head.when.length, ...cells.map((c) => c.when.length)),
		agent: Math.max(head.agent.length, ...cells.map((c) => c.agent.length)),
		entries: Math.max(head.entries.length, ...cells.map((c) => c.entries.length)),
		branches: Math.max(head.branches.length, ...cells.map((c) => c.branches.length)),
		size: Math.max(head.size.length, ...cells.map((c) => c.size.length)),
		cwd: Math.max(head.cwd.length, ...cells.map((c) => displayWidth(c.cwd))),
	};
	const prefix = (c: typeof head) =>
		`${c.when.padEnd(w.when)}  ${agentOf ? `${c.agent.padEnd(w.agent)}  ` : ""}${c.entries.padStart(w.entries)}  ${c.branches.padStart(w.branches)}  ${c.size.padStart(w.size)}  ` +
		(showCwd ? `${c.cwd}${" ".repeat(w.cwd - displayWidth(c.cwd))}  ` : "");
	const room = Math.max(10, (width ?? PIPED_TEXT_WIDTH + prefix(head).length) - prefix(head).length);
	const lines = [p(`${prefix(head)}NAME / FIRST MESSAGE`.trimEnd(), "bold")];
	for (const cell of cells) {
		const { session } = cell;
		let text: string;
		if (session.name !== null) text = p(truncateToWidth(flatten(session.name), room), "bold");
		else if (session.firstMessage !== null) text = `"${truncateToWidth(flatten(session.firstMessage), room - 2)}"`;
		else text = p("(no messages)", "dim");
		lines.push(`${prefix(cell)}${text}`);
		lines.push(p(`    ${sanitize(session.file)}`, "dim"));
	}
	return `${lines.join("\n")}\n`;
}

/** Every session of the selection read and summarised (progress on stderr on a terminal). */
async function summarize(selection: Selection): Promise<{ sessions: SessionSummary[]; skipped: SkippedSession[] }> {
	const progress = createProgress(process.stderr, { label: "reading sessions" });
	try {
		return await summarizeSessions(selection.collection, {
			onProgress: (done, total) => progress.update(done, total),
		});
	} finally {
		progress.finish();
	}
}

/** Runs `session-tree ls`; its name, options and help are in its spec (src/cli/specs/catalog.ts). */
export const lsCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const width = outputWidth(values, "ls");
		let selection: Selection;
		let listed: { sessions: SessionSummary[]; skipped: SkippedSession[] };
		let agentOfFile: ((file: string) => Agent | undefined) | undefined;
		if (values.agents === true) {
			if (positionals[0] !== undefined || values.all === true) {
				throw new UsageError("--agents lists the default places of every agent; it takes no DIR or --all", "ls");
			}
			const cwd = stringValue(values, "cwd");
			const project = cwd === undefined ? undefined : resolve(cwd);
			const fresh = values.scan === true ? undefined : await freshIndex(agentsSource());
			if (fresh) {
				selection = { root: agentsRoot(), kind: "all", collection: fresh.source.collection };
				const found = fresh.index.sessions({
					source: fresh.source.name,
					...(project === undefined ? {} : { cwd: project }),
				});
				const agentOf = new Map(found.sessions.map((session) => [session.location, session.agent ?? undefined]));
				agentOfFile = (file) => agentOf.get(file);
				listed = { sessions: found.sessions.map(summaryOf), skipped: fresh.refresh.skipped };
				fresh.index.close();
			} else {
				const collection = new AgentsCollection(agentPlaces());
				agentOfFile = (file) => collection.agentOf(file);
				selection = { root: collection.location, kind: "all", collection };
				listed = await summarize(selection);
				if (project !== undefined) listed.sessions = listed.sessions.filter((session) => session.cwd === project);
			}
		} else {
			selection = selectFromArgs(values, positionals[0], "ls");
			listed = await summarize(selection);
		}
		const { sessions, skipped } = listed;
		const agentOf = agentOfFile ? (session: SessionSummary) => agentOfFile(session.file) ?? "" : undefined;
		reportProblems(
			io,
			skipped,
			sessions.flatMap((session) => session.warnings.map((message) => ({ file: session.file, message }))),
		);
		if (values.json) {
			const rows = sessions.map((session) => {
				const row = toRow(session);
				const agent = agentOfFile?.(session.file);
				if (agent !== undefined) row.agent = agent;
				return row;
			});
			io.out(jsonLine(rows));
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
				...(agentOf ? { agentOf } : {}),
			}),
		);
	},
};
