/**
 * The catalog index: one SQLite database (better-sqlite3, FTS5) in the user's cache directory
 * that `search --agents`, `ls --agents` and `serve` share. It is never a source of truth: each
 * refresh brings it up to date with the sessions its sources list (only what is new, grew or
 * changed is read), a search finds exactly what `searchSessions` finds over the same sessions,
 * and deleting it only means the next refresh builds it again. docs/serve.md, "The index".
 */

import type { SearchQuery } from "../search.js";
import { refreshIndex } from "./refresh.js";
import { defaultIndexPath, isDamage, openIndexDatabase, removeDatabase } from "./schema.js";
import { filterSql, type IndexHit, type IndexSearchOptions, searchIndex } from "./search-index.js";
import { IndexTables } from "./tables.js";
import type { IndexedSession, IndexRefresh, IndexSource } from "./types.js";
import { type Agent, sessionOfRow } from "./view.js";

export { sessionKey } from "./read-session.js";
export { defaultIndexPath } from "./schema.js";
export type { IndexHit, IndexSearchOptions } from "./search-index.js";
export { agentSources, directorySource, storeSource } from "./sources.js";
export type { IndexedSession, IndexRefresh, IndexSource } from "./types.js";

/** Which sessions a listing or search of the index covers. */
export interface IndexFilter {
	agent?: Agent | null;
	cwd?: string;
	source?: string;
	/** Only sessions of these sources. */
	sources?: readonly string[];
	/** Only the session of this key. */
	key?: string;
}

/** The catalog index (see the module comment). Synchronous underneath: better-sqlite3 is. */
export class CatalogIndex {
	private tables: IndexTables;

	private constructor(
		/** The database file. */
		readonly path: string,
		tables: IndexTables,
	) {
		this.tables = tables;
	}

	/**
	 * Opens the index at `path` (default {@link defaultIndexPath} of `env`), making it when
	 * missing and making it again when it is of another schema version or damaged.
	 * @throws SessionTreeError INVALID_ARGUMENT when better-sqlite3 is not installed
	 */
	static async open(options: { path?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CatalogIndex> {
		const path = options.path ?? defaultIndexPath(options.env);
		return new CatalogIndex(path, await openTables(path));
	}

	/**
	 * Brings the index up to date with the sources: only what is new, grew or changed (size,
	 * mtime) is read; a pi file that only grew is read from the last position. Sessions no longer
	 * listed by a source are dropped (those of other sources stay).
	 */
	async refresh(
		sources: readonly IndexSource[],
		options: { onProgress?: (done: number, total: number) => void } = {},
	): Promise<IndexRefresh> {
		try {
			return await refreshIndex(this.tables, sources, options.onProgress);
		} catch (error) {
			// Damage found past the file's header (a page SQLite cannot read): built again, once.
			if (!isDamage(error)) throw error;
			this.close();
			removeDatabase(this.path);
			this.tables = await openTables(this.path);
			return refreshIndex(this.tables, sources, options.onProgress);
		}
	}

	/** Newest first (modified, ties by location), filtered; `total` is the count before offset/limit. */
	sessions(filter: IndexFilter & { offset?: number; limit?: number } = {}): {
		total: number;
		sessions: IndexedSession[];
	} {
		const { where, params } = filterSql(filter);
		const db = this.tables.db;
		const total = db
			.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM sessions WHERE ${where}`)
			.get(...params)?.n as number;
		const rows = db
			.prepare(`SELECT * FROM sessions WHERE ${where} ORDER BY modified_ms DESC, location LIMIT ? OFFSET ?`)
			.all(...params, filter.limit ?? -1, filter.offset ?? 0);
		return { total, sessions: rows.map((row) => sessionOfRow(row as never)) };
	}

	/** The session with this key, if indexed. */
	session(key: string): IndexedSession | undefined {
		const row = this.tables.db.prepare("SELECT * FROM sessions WHERE key = ? AND skipped IS NULL").get(key);
		return row === undefined ? undefined : sessionOfRow(row as never);
	}

	/** For filter menus: each (agent, cwd) with its session count, by agent then cwd; `sources` limits them. */
	projects(
		filter: { sources?: readonly string[] } = {},
	): Array<{ agent: Agent | null; cwd: string; sessions: number }> {
		const { where, params } = filterSql(filter);
		return this.tables.db
			.prepare<unknown[], { agent: Agent | null; cwd: string; sessions: number }>(
				`SELECT agent, cwd, count(*) AS sessions FROM sessions WHERE ${where} GROUP BY agent, cwd ORDER BY agent, cwd`,
			)
			.all(...params);
	}

	/**
	 * The same hits (entries, roles, onActiveBranch, snippets) as `searchSessions` over the same
	 * sessions, newest session first; each hit also carries the session's key and agent.
	 * `sessions` is how many sessions were searched.
	 * @throws InvalidPattern for a regular expression that does not compile or takes too long
	 */
	search(query: SearchQuery, options: IndexSearchOptions = {}): { hits: IndexHit[]; sessions: number } {
		return searchIndex(this.tables.db, query, options);
	}

	close(): void {
		if (this.tables.db.open) this.tables.db.close();
	}
}

/** The index's tables at `path`; a file whose pages past the header are damaged is made again. */
async function openTables(path: string): Promise<IndexTables> {
	const db = await openIndexDatabase(path);
	try {
		return new IndexTables(db);
	} catch (error) {
		db.close();
		if (!isDamage(error)) throw error;
		removeDatabase(path);
		return new IndexTables(await openIndexDatabase(path));
	}
}
