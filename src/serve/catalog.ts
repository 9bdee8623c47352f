/**
 * The one place where the server meets the catalog index (src/catalog/catalog-index/, the
 * contract of INDEX-API.md): the list, the search, and the key → session lookup go through
 * {@link ServeCatalog}, which the index implements.
 *
 * TEMPORARY (until the index is merged): the types below copy the index's interface, and
 * {@link TemporaryIndex} implements it over the catalog's `summarizeSessions` and
 * `searchSessions` (every refresh reads every session: fine for the tests, slow for 10,000).
 * After the merge this file imports `CatalogIndex`, `IndexSource`, `IndexedSession` and
 * `agentSources` from "../catalog/catalog-index/index.js" and {@link openCatalog} opens it.
 */

import { createHash } from "node:crypto";
import { type Agent, AgentsCollection, agentPlaces } from "../catalog/agents.js";
import { compileQuery, type SearchHit, type SearchQuery, searchSessions } from "../catalog/search.js";
import { type SkippedSession, summarizeSessions } from "../catalog/summary.js";
import type { SessionCollection } from "../storage/store.js";

/** What the index reads (INDEX-API.md). */
export interface IndexSource {
	name: string;
	collection: SessionCollection;
	agentOf(location: string): Agent | null;
	writable(location: string): boolean;
}

/** One session as the index knows it (INDEX-API.md). */
export interface IndexedSession {
	key: string;
	location: string;
	source: string;
	agent: Agent | null;
	writable: boolean;
	id: string;
	cwd: string;
	name: string | null;
	firstMessage: string | null;
	title: string;
	entries: number;
	branches: number;
	bytes: number;
	modified: Date;
	lastActivity: Date;
	created: Date | null;
	leafId: string | null;
	parentSession: string | null;
}

/** A search hit with the session's key and agent. */
export type IndexedHit = SearchHit & { key: string; agent: Agent | null };

/** What the server asks of the index. */
export interface ServeCatalog {
	refresh(sources: readonly IndexSource[]): Promise<{ skipped: SkippedSession[] }>;
	sessions(filter?: { agent?: Agent | null; cwd?: string; offset?: number; limit?: number }): {
		total: number;
		sessions: IndexedSession[];
	};
	session(key: string): IndexedSession | undefined;
	projects(): Array<{ agent: Agent | null; cwd: string; sessions: number }>;
	search(
		query: SearchQuery,
		options?: { agent?: Agent | null; cwd?: string; limit?: number; snippetWidth?: number },
	): { hits: IndexedHit[]; sessions: number } | Promise<{ hits: IndexedHit[]; sessions: number }>;
	close(): void;
}

/** The key of a location: the first 16 hex digits of its SHA-256 (as the index makes it). */
export function keyOf(location: string): string {
	return createHash("sha256").update(location, "utf8").digest("hex").slice(0, 16);
}

/** TEMPORARY: the agents' places as one source (the index's `agentSources`). */
export function agentSources(env: NodeJS.ProcessEnv = process.env): IndexSource[] {
	const collection = new AgentsCollection(agentPlaces(env));
	return [
		{
			name: "agents",
			collection,
			agentOf: (location) => collection.agentOf(location) ?? null,
			writable: (location) => collection.agentOf(location) === "pi",
		},
	];
}

/** The title of a session: its name, else its first real prompt (one line), else its id. */
function titleOf(name: string | null, first: string | null, id: string): string {
	const line = first?.replace(/\s+/g, " ").trim();
	return name ?? (line ? line.slice(0, 200) : `Session ${id}`);
}

/** TEMPORARY: the index's interface over the catalog's functions (see the module comment). */
export class TemporaryIndex implements ServeCatalog {
	private rows: IndexedSession[] = [];
	private byKey = new Map<string, IndexedSession>();
	private sources: readonly IndexSource[] = [];

	async refresh(sources: readonly IndexSource[]): Promise<{ skipped: SkippedSession[] }> {
		const rows: IndexedSession[] = [];
		const skipped: SkippedSession[] = [];
		for (const source of sources) {
			const result = await summarizeSessions(source.collection);
			skipped.push(...result.skipped);
			for (const s of result.sessions) {
				rows.push({
					key: keyOf(s.file),
					location: s.file,
					source: source.name,
					agent: source.agentOf(s.file),
					writable: source.writable(s.file),
					id: s.id,
					cwd: s.cwd,
					name: s.name,
					firstMessage: s.firstMessage,
					title: titleOf(s.name, s.firstMessage, s.id),
					entries: s.entries,
					branches: s.branches,
					bytes: s.bytes,
					modified: s.modified,
					lastActivity: s.lastActivity,
					created: s.created,
					leafId: null,
					parentSession: s.parentSession,
				});
			}
		}
		rows.sort((a, b) => b.modified.getTime() - a.modified.getTime() || a.location.localeCompare(b.location));
		this.rows = rows;
		this.byKey = new Map(rows.map((row) => [row.key, row]));
		this.sources = sources;
		return { skipped };
	}

	private filtered(filter: { agent?: Agent | null; cwd?: string }): IndexedSession[] {
		return this.rows.filter(
			(row) =>
				(filter.agent === undefined || row.agent === filter.agent) &&
				(filter.cwd === undefined || row.cwd === filter.cwd),
		);
	}

	sessions(filter: { agent?: Agent | null; cwd?: string; offset?: number; limit?: number } = {}) {
		const all = this.filtered(filter);
		const offset = filter.offset ?? 0;
		return { total: all.length, sessions: all.slice(offset, offset + (filter.limit ?? all.length)) };
	}

	session(key: string): IndexedSession | undefined {
		return this.byKey.get(key);
	}

	projects(): Array<{ agent: Agent | null; cwd: string; sessions: number }> {
		const counts = new Map<string, { agent: Agent | null; cwd: string; sessions: number }>();
		for (const row of this.rows) {
			const id = `${row.agent ?? ""}\0${row.cwd}`;
			const entry = counts.get(id) ?? { agent: row.agent, cwd: row.cwd, sessions: 0 };
			entry.sessions++;
			counts.set(id, entry);
		}
		return [...counts.values()];
	}

	async search(
		query: SearchQuery,
		options: { agent?: Agent | null; cwd?: string; limit?: number; snippetWidth?: number } = {},
	): Promise<{ hits: IndexedHit[]; sessions: number }> {
		const matcher = compileQuery(query);
		const wanted = new Set(this.filtered(options).map((row) => row.location));
		const hits: IndexedHit[] = [];
		for (const source of this.sources) {
			const result = await searchSessions(source.collection, matcher, { snippetWidth: options.snippetWidth ?? 100 });
			for (const hit of result.hits) {
				if (!wanted.has(hit.file)) continue;
				hits.push({ ...hit, key: keyOf(hit.file), agent: source.agentOf(hit.file) });
			}
		}
		const order = new Map(this.rows.map((row, i) => [row.location, i]));
		hits.sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0));
		return { hits: hits.slice(0, options.limit ?? hits.length), sessions: wanted.size };
	}

	close(): void {}
}

/** The catalog the server uses. TEMPORARY: the index's `CatalogIndex.open` after the merge. */
export async function openCatalog(_env: NodeJS.ProcessEnv): Promise<ServeCatalog> {
	return new TemporaryIndex();
}
