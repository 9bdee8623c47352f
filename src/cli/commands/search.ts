/** `session-tree search`: message text across sessions, with the match in context. */

import type { Agent } from "../../catalog/agents.js";
import { flatten } from "../../catalog/format.js";
import { compileQuery, InvalidPattern, type Matcher, type SearchHit } from "../../catalog/search.js";
import { type Painter, painter, shouldColor } from "../../render/color.js";
import { displayWidth, sanitize } from "../../render/preview.js";
import { CliError, type CommandHandler, requiredPositional, UsageError, wholeNumberOption } from "../args.js";
import { jsonLine } from "../json.js";
import { outputWidth, reportProblems, selectFromArgs } from "./ls.js";
import { refusingSlowRegex, searchAgents, searchSelection } from "./search-indexed.js";

/** A row of `search --json`: a hit as the catalog reports it (with --agents, whose session it is). */
export type SearchRow = SearchHit & { agent?: Agent | null };

/** Snippet columns when the output is not a terminal (and for --json). */
const PIPED_SNIPPET_WIDTH = 100;
/** Columns reserved for the role in a hit line when fitting the snippet to the terminal. */
const ROLE_BUDGET = 14;
const ACTIVE = "active";
const SIDE = "side";
const MARK_WIDTH = Math.max(ACTIVE.length, SIDE.length);

/** The human output: hits grouped by file, a heading per file, one line per hit. */
export function renderHits(hits: readonly SearchHit[], p: Painter): string {
	// The snippets are one clean line already (makeSnippet); the rest is data too: names, roles,
	// ids and file names may hold anything.
	const idWidth = Math.max(...hits.map((hit) => displayWidth(sanitize(hit.entryId))));
	const roleWidth = Math.max(...hits.map((hit) => displayWidth(sanitize(hit.role))));
	const lines: string[] = [];
	let file: string | undefined;
	for (const hit of hits) {
		if (hit.file !== file) {
			if (file !== undefined) lines.push("");
			file = hit.file;
			const name = hit.name === null ? "" : `  ${p(flatten(hit.name), "bold")}`;
			lines.push(`${p(sanitize(hit.file), "magenta")}${name}`);
		}
		const mark = hit.onActiveBranch ? p(ACTIVE.padEnd(MARK_WIDTH), "green") : p(SIDE.padEnd(MARK_WIDTH), "dim");
		const snippet =
			hit.snippet.slice(0, hit.matchStart) +
			p(hit.snippet.slice(hit.matchStart, hit.matchEnd), "bold", "red") +
			hit.snippet.slice(hit.matchEnd);
		const id = sanitize(hit.entryId);
		const role = sanitize(hit.role);
		const columns = `${id}${" ".repeat(idWidth - displayWidth(id))}  ${role}${" ".repeat(roleWidth - displayWidth(role))}`;
		lines.push(`  ${columns}  ${mark}  ${snippet}`);
	}
	return `${lines.join("\n")}\n`;
}

/** Runs `session-tree search`; its name, options and help are in its spec (src/cli/specs/catalog.ts). */
export const searchCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const pattern = requiredPositional(positionals, 0);
		if (pattern === "") throw new UsageError("TEXT is empty", "search");
		const limit = wholeNumberOption(values, "limit", 1, "search");
		let matcher: Matcher;
		const query = { pattern, regex: values.regex === true, ignoreCase: values["ignore-case"] === true };
		try {
			matcher = compileQuery(query);
		} catch (error) {
			if (error instanceof InvalidPattern) throw new UsageError(`invalid --regex: ${error.message}`, "search");
			throw error;
		}
		const json = values.json === true;
		const width = json ? undefined : outputWidth(values, "search");
		const idBudget = 8;
		const snippetWidth =
			width === undefined
				? PIPED_SNIPPET_WIDTH
				: Math.max(20, width - (2 + idBudget + 2 + ROLE_BUDGET + 2 + MARK_WIDTH + 2));
		const options = { ...(limit === undefined ? {} : { limit }), snippetWidth, scan: values.scan === true };
		const { root, result, agentOf } = await refusingSlowRegex(() =>
			values.agents === true
				? searchAgents(values, positionals[1], query, matcher, options)
				: searchSelection(selectFromArgs(values, positionals[1], "search"), query, matcher, options),
		);
		reportProblems(io, result.skipped, result.warnings);
		if (json) {
			const rows: SearchRow[] = result.hits.map((hit) => ({
				file: hit.file,
				sessionId: hit.sessionId,
				name: hit.name,
				entryId: hit.entryId,
				role: hit.role,
				onActiveBranch: hit.onActiveBranch,
				snippet: hit.snippet,
				matchStart: hit.matchStart,
				matchEnd: hit.matchEnd,
				...(agentOf ? { agent: agentOf(hit) } : {}),
			}));
			io.out(jsonLine(rows));
		} else if (result.hits.length > 0) {
			io.out(renderHits(result.hits, painter(shouldColor(process.stdout))));
		}
		if (result.hits.length === 0) {
			const where = result.sessions === 0 ? ` (no sessions in ${root})` : "";
			throw new CliError(`no matches${where}`);
		}
	},
};
