/**
 * Where `session-tree search` looks, and how: `--agents` (every agent's default places) and a
 * DIR that is a directory go through the catalog index, refreshed first (indexed.ts); `--scan`,
 * the default project, `--all` and a STORE read every session as before (`searchSessions`,
 * with a database's own full-text index). Both routes give the same hits (test/cli/search-index.test.ts).
 */

import { isAbsolute, resolve } from "node:path";
import { type Agent, AgentsCollection, agentPlaces } from "../../catalog/agents.js";
import { directorySource } from "../../catalog/catalog-index/index.js";
import type { Selection } from "../../catalog/discover.js";
import { listSessions } from "../../catalog/read.js";
import {
	InvalidPattern,
	type Matcher,
	type SearchHit,
	type SearchQuery,
	type SearchResult,
	searchSessions,
} from "../../catalog/search.js";
import { summarizeSessions } from "../../catalog/summary.js";
import { createProgress } from "../../render/progress.js";
import type { SessionCollection, SessionListing } from "../../storage/store.js";
import { type CommandInput, stringValue, UsageError } from "../args.js";
import { agentsRoot, agentsSource, type FreshIndex, freshIndex } from "./indexed.js";

/** What a search found, where it looked (for messages) and, with --agents, whose each hit is. */
export interface Found {
	root: string;
	result: SearchResult;
	agentOf?: (hit: SearchHit) => Agent | null;
}

/** Options of the search itself. */
export interface SearchRun {
	limit?: number;
	snippetWidth: number;
	/** Read every session, without the index. */
	scan: boolean;
}

/** Runs a search; a regular expression refused for its time (catalog/regex-guard.ts) is the query's fault. */
export async function refusingSlowRegex<T>(run: () => Promise<T>): Promise<T> {
	try {
		return await run();
	} catch (error) {
		if (error instanceof InvalidPattern) throw new UsageError(`refused --regex: ${error.message}`, "search");
		throw error;
	}
}

/** The hits of the index, as `searchSessions` reports them (the index is closed after). */
function fromIndex(fresh: FreshIndex, query: SearchQuery, run: SearchRun, cwd?: string): SearchResult {
	const filter = { source: fresh.source.name, ...(cwd === undefined ? {} : { cwd }) };
	try {
		const { hits } = fresh.index.search(query, {
			...filter,
			snippetWidth: run.snippetWidth,
			...(run.limit === undefined ? {} : { limit: run.limit }),
		});
		const warnings = fresh.index
			.sessions(filter)
			.sessions.flatMap((session) => session.warnings.map((message) => ({ file: session.location, message })));
		return {
			hits: hits.map(({ key: _key, agent: _agent, ...hit }) => hit),
			sessions: fresh.refresh.sessions,
			skipped: fresh.refresh.skipped,
			warnings,
		};
	} finally {
		fresh.index.close();
	}
}

/** Reads every session of a collection (progress on stderr on a terminal). */
async function scanned(collection: SessionCollection, matcher: Matcher, run: SearchRun): Promise<SearchResult> {
	const progress = createProgress(process.stderr, { label: "searching sessions" });
	try {
		return await searchSessions(collection, matcher, {
			...(run.limit === undefined ? {} : { limit: run.limit }),
			snippetWidth: run.snippetWidth,
			scan: run.scan,
			onProgress: (done, total) => progress.update(done, total),
		});
	} finally {
		progress.finish();
		await collection.close?.();
	}
}

/** `search TEXT [DIR|STORE]`: a directory through the index, anything else as before. */
export async function searchSelection(
	selection: Selection,
	query: SearchQuery,
	matcher: Matcher,
	run: SearchRun,
): Promise<Found> {
	if (!run.scan && selection.kind === "dir" && isAbsolute(selection.root)) {
		const fresh = await freshIndex(directorySource(selection.root, selection.collection));
		if (fresh) return { root: selection.root, result: fromIndex(fresh, query, run) };
	}
	return { root: selection.root, result: await scanned(selection.collection, matcher, run) };
}

/** `search TEXT --agents [--cwd P]`: every agent's sessions (of one project), through the index unless --scan. */
export async function searchAgents(
	values: CommandInput["values"],
	dir: string | undefined,
	query: SearchQuery,
	matcher: Matcher,
	run: SearchRun,
): Promise<Found> {
	if (dir !== undefined || values.all === true) {
		throw new UsageError("--agents searches the default places of every agent; it takes no DIR or --all", "search");
	}
	const cwd = stringValue(values, "cwd");
	const project = cwd === undefined ? undefined : resolve(cwd);
	const root = agentsRoot();
	const fresh = run.scan ? undefined : await freshIndex(agentsSource());
	if (fresh) {
		const agents = new Map<string, Agent | null>();
		for (const session of fresh.index.sessions({ source: fresh.source.name }).sessions) {
			agents.set(session.location, session.agent);
		}
		return { root, result: fromIndex(fresh, query, run, project), agentOf: (hit) => agents.get(hit.file) ?? null };
	}
	const collection = new AgentsCollection(agentPlaces());
	let searched: SessionCollection = collection;
	if (project !== undefined) {
		// Which sessions are the project's: their headers say (every session is read for it).
		const { sessions } = await summarizeSessions(collection);
		searched = await narrowed(collection, new Set(sessions.filter((s) => s.cwd === project).map((s) => s.file)));
	}
	return {
		root,
		result: await scanned(searched, matcher, run),
		agentOf: (hit) => collection.agentOf(hit.file) ?? null,
	};
}

/** The sessions of a collection at some locations, as a collection. */
async function narrowed(collection: SessionCollection, keep: ReadonlySet<string>): Promise<SessionCollection> {
	const listings: SessionListing[] = (await listSessions(collection)).filter((listing) => keep.has(listing.location));
	return {
		location: collection.location,
		capabilities: { ...collection.capabilities, search: false },
		async *list() {
			yield* listings;
		},
		open: (location) => collection.open(location),
		sessionFor: (header) => collection.sessionFor(header),
	};
}
