/**
 * The JSON API of the sessions and search pages: `GET /api/sessions?agent=&cwd=&offset=&limit=`,
 * `GET /api/projects`, `GET /api/search?q=&regex=&i=&agent=&cwd=`. Sessions are named by their
 * key; their locations are sent for display only and are never read back from a request.
 */

import type { Context } from "hono";
import type { Agent } from "../catalog/agents.js";
import { InvalidPattern } from "../catalog/search.js";
import type { IndexedSession, ServeCatalog } from "./catalog.js";
import { refuse } from "./security.js";

const AGENTS: readonly string[] = ["pi", "claude-code", "codex", "gemini"];

/** At most this many sessions a page; at most this many hits a search. */
export const MAX_LIMIT = 500;
export const SEARCH_LIMIT = 200;

/** The agent filter of a query: an agent, `none` (a STORE's sessions), or undefined (every one). */
function agentFilter(value: string | undefined): Agent | null | undefined {
	if (value === undefined || value === "") return undefined;
	if (value === "none") return null;
	if (AGENTS.includes(value)) return value as Agent;
	return undefined;
}

function count(value: string | undefined, fallback: number, max: number): number {
	const n = value === undefined ? Number.NaN : Number.parseInt(value, 10);
	return Number.isFinite(n) && n >= 0 ? Math.min(n, max) : fallback;
}

/** A session as the list shows it. */
function row(s: IndexedSession) {
	return {
		key: s.key,
		agent: s.agent,
		writable: s.writable,
		title: s.title,
		name: s.name,
		cwd: s.cwd,
		id: s.id,
		location: s.location,
		entries: s.entries,
		branches: s.branches,
		bytes: s.bytes,
		modified: s.modified.toISOString(),
		leafId: s.leafId,
	};
}

/** `GET /api/sessions`. */
export function listSessions(c: Context, catalog: ServeCatalog): Response {
	const agent = agentFilter(c.req.query("agent"));
	const cwd = c.req.query("cwd") || undefined;
	const offset = count(c.req.query("offset"), 0, Number.MAX_SAFE_INTEGER);
	const limit = count(c.req.query("limit"), 50, MAX_LIMIT);
	const page = catalog.sessions({
		...(agent !== undefined ? { agent } : {}),
		...(cwd !== undefined ? { cwd } : {}),
		offset,
		limit,
	});
	return c.json({ total: page.total, offset, limit, sessions: page.sessions.map(row) });
}

/** `GET /api/projects`: each (agent, cwd) with its count, for the filters. */
export function listProjects(c: Context, catalog: ServeCatalog): Response {
	return c.json({ projects: catalog.projects() });
}

/** `GET /api/search`. */
export async function search(c: Context, catalog: ServeCatalog): Promise<Response> {
	const q = c.req.query("q") ?? "";
	if (q === "") return c.json({ hits: [], sessions: 0 });
	const agent = agentFilter(c.req.query("agent"));
	const cwd = c.req.query("cwd") || undefined;
	const flag = (name: string) => c.req.query(name) === "1" || c.req.query(name) === "true";
	const regex = flag("regex");
	// Case-sensitive unless asked (`i=1`), as `session-tree search` is without -i.
	const ignoreCase = flag("i");
	try {
		const result = await catalog.search(
			{ pattern: q, regex, ignoreCase },
			{ ...(agent !== undefined ? { agent } : {}), ...(cwd !== undefined ? { cwd } : {}), limit: SEARCH_LIMIT },
		);
		const hits = result.hits.map((hit) => {
			const session = catalog.session(hit.key);
			return {
				key: hit.key,
				agent: hit.agent,
				title: session?.title ?? hit.name ?? `Session ${hit.sessionId}`,
				cwd: session?.cwd ?? "",
				entryId: hit.entryId,
				leafId: hit.onActiveBranch ? (session?.leafId ?? null) : null,
				role: hit.role,
				onActiveBranch: hit.onActiveBranch,
				snippet: hit.snippet,
				matchStart: hit.matchStart,
				matchEnd: hit.matchEnd,
			};
		});
		return c.json({ hits, sessions: result.sessions, limited: hits.length >= SEARCH_LIMIT });
	} catch (error) {
		if (error instanceof InvalidPattern) return refuse(c, 400, "INVALID_PATTERN", error.message);
		throw error;
	}
}
