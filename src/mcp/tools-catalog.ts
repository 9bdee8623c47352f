/**
 * The tools over every session: `list_sessions` and `search`, both answered by the catalog
 * index (refreshed first, at most once a second), both newest session first.
 */

import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import type { Agent } from "../catalog/agents.js";
import { InvalidPattern } from "../catalog/search.js";
import type { IndexedSession } from "../serve/catalog.js";
import { badArgument, cursorOffset, listingOf, makeCursor, reply, takePage } from "./reply.js";
import type { McpSessions } from "./sessions.js";

/** A `limit` argument: 1 to `max`, `fallback` when absent. */
export function limitArgument(fallback: number, max: number) {
	return z
		.number()
		.int()
		.min(1)
		.max(max)
		.optional()
		.describe(`most items to return (1-${max}, default ${fallback}); nextCursor continues`);
}

/** A `cursor` argument. */
export const cursorArgument = z
	.string()
	.optional()
	.describe("the nextCursor of a previous answer with the same other arguments, to continue it");

/** A `maxChars` argument: the page's budget of characters. */
export const maxCharsArgument = z
	.number()
	.int()
	.min(1000)
	.max(1_000_000)
	.optional()
	.describe("stop a page once its items hold this many characters of JSON (default 40000; one item always comes)");

/** The default budget of a page, in characters of JSON (about 10,000 tokens). */
export const DEFAULT_MAX_CHARS = 40_000;

/** The agents a session may be of ("store": a STORE given to the server, no agent's place). */
const AGENT_NAMES = ["pi", "claude-code", "codex", "gemini", "store"] as const satisfies ReadonlyArray<Agent | "store">;

const agentArgument = z
	.enum(AGENT_NAMES)
	.optional()
	.describe('only sessions of this agent ("store": sessions of a STORE given to the server)');

/** What a listing says of a session. */
export function sessionItem(session: IndexedSession): Record<string, unknown> {
	return {
		session: session.key,
		id: session.id,
		agent: session.agent ?? "store",
		project: session.cwd,
		title: session.title,
		entries: session.entries,
		branches: session.branches,
		created: session.created?.toISOString() ?? null,
		modified: session.modified.toISOString(),
		writable: session.writable,
	};
}

/** The index filter of an `agent` argument. */
function agentFilter(agent: string | undefined): { agent?: Agent | null } {
	if (agent === undefined) return {};
	return { agent: agent === "store" ? null : (agent as Agent) };
}

/** True when `cwd` is `project` or lies under it. */
function inProject(cwd: string, project: string): boolean {
	const base = project.endsWith("/") ? project.slice(0, -1) : project;
	return cwd === base || cwd.startsWith(`${base}/`);
}

/** Registers `list_sessions` and `search`. */
export function registerCatalogTools(server: McpServer, sessions: McpSessions): void {
	server.registerTool(
		"list_sessions",
		{
			title: "List sessions",
			description:
				"Sessions of every agent session-tree reads (pi, Claude Code, Codex, Gemini CLI) and of the stores given, " +
				"newest first. Each has a `session` key the other tools take.",
			inputSchema: {
				agent: agentArgument,
				project: z.string().min(1).optional().describe("only sessions whose working directory is this one or below it"),
				since: z.iso
					.datetime({ offset: true })
					.or(z.iso.date())
					.optional()
					.describe("only sessions modified at or after this time (ISO 8601)"),
				query: z
					.string()
					.min(1)
					.optional()
					.describe("only sessions whose title, name, first prompt or project holds this text (any case)"),
				limit: limitArgument(20, 200),
				cursor: cursorArgument,
			},
			annotations: { readOnlyHint: true, openWorldHint: false },
		},
		async (args) => {
			await sessions.refresh();
			const since = args.since === undefined ? undefined : Date.parse(args.since);
			const needle = args.query?.toLowerCase();
			const listing = listingOf("list_sessions", args);
			const offset = cursorOffset(args.cursor, listing);
			const all = sessions.catalog.sessions(agentFilter(args.agent)).sessions.filter((session) => {
				if (args.project !== undefined && !inProject(session.cwd, args.project)) return false;
				if (since !== undefined && session.modified.getTime() < since) return false;
				if (needle === undefined) return true;
				return [session.title, session.name ?? "", session.firstMessage ?? "", session.cwd].some((text) =>
					text.toLowerCase().includes(needle),
				);
			});
			const page = takePage(all.map(sessionItem), offset, args.limit ?? 20, DEFAULT_MAX_CHARS);
			return reply(
				{ total: all.length, offset, sessions: page.items },
				page.next === undefined ? undefined : makeCursor(listing, page.next),
				sessions.redact,
			);
		},
	);

	server.registerTool(
		"search",
		{
			title: "Search every branch",
			description:
				"Full-text search over every branch of every session (side branches, regenerated and abandoned answers " +
				"included), newest session first. Each hit names its session, entry id, role, whether the entry is on the " +
				"session's active branch, and a snippet.",
			inputSchema: {
				query: z.string().min(1).describe("the text to find (a JavaScript regular expression with regex: true)"),
				regex: z.boolean().optional().describe("read query as a regular expression"),
				ignoreCase: z.boolean().optional().describe("match in any case"),
				agent: agentArgument,
				project: z.string().min(1).optional().describe("only sessions whose working directory is this one"),
				session: z.string().min(1).optional().describe("only this session (a key from list_sessions, or a session id)"),
				branch: z
					.enum(["any", "active", "side"])
					.optional()
					.describe('"active": only hits on the path to the leaf; "side": only hits off it; default any'),
				limit: limitArgument(20, 200),
				cursor: cursorArgument,
			},
			annotations: { readOnlyHint: true, openWorldHint: false },
		},
		async (args) => {
			await sessions.refresh();
			const listing = listingOf("search", args);
			const offset = cursorOffset(args.cursor, listing);
			const limit = args.limit ?? 20;
			const anyBranch = args.branch === undefined || args.branch === "any";
			const only = args.session === undefined ? undefined : await sessions.find(args.session);
			const filter = {
				...agentFilter(args.agent),
				...(args.project !== undefined ? { cwd: args.project } : {}),
				...(only !== undefined ? { key: only.key } : {}),
			};
			let found: ReturnType<McpSessions["catalog"]["search"]>;
			try {
				found = sessions.catalog.search(
					{ pattern: args.query, regex: args.regex === true, ignoreCase: args.ignoreCase === true },
					// One more than the page, to know whether there is more (a branch filter reads on until it has them).
					{ ...filter, redact: sessions.redact, ...(anyBranch ? { limit: offset + limit + 1 } : {}) },
				);
			} catch (error) {
				if (error instanceof InvalidPattern) throw badArgument("query", error.message);
				throw error;
			}
			const hits = found.hits.filter((hit) => anyBranch || hit.onActiveBranch === (args.branch === "active"));
			const items = hits.map((hit) => ({
				session: hit.key,
				sessionName: hit.name,
				agent: hit.agent ?? "store",
				entry: hit.entryId,
				role: hit.role,
				branch: hit.onActiveBranch ? "active" : "side",
				snippet: hit.snippet,
			}));
			const page = takePage(items, offset, limit, DEFAULT_MAX_CHARS);
			return reply(
				{ sessionsSearched: found.sessions, offset, hits: page.items },
				page.next === undefined ? undefined : makeCursor(listing, page.next),
				sessions.redact,
			);
		},
	);
}
