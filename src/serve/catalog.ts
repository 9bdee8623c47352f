/**
 * The one place where the server meets the catalog index (src/catalog/catalog-index/): the
 * list, the search and the key → session lookup go through {@link ServeCatalog}, the part of
 * `CatalogIndex` the server uses.
 */

import { CatalogIndex, type IndexHit, type IndexSource } from "../catalog/catalog-index/index.js";

export {
	agentSources,
	CatalogIndex,
	type IndexedSession,
	type IndexSource,
} from "../catalog/catalog-index/index.js";

/** A search hit with the session's key and agent. */
export type IndexedHit = IndexHit;

/** What the server asks of the index. */
export type ServeCatalog = Pick<CatalogIndex, "refresh" | "sessions" | "session" | "projects" | "search" | "close">;

/** The key of a location, as the index makes it (the first 16 hex digits of its SHA-256). */
export { sessionKey as keyOf } from "../catalog/catalog-index/index.js";

/** The index the server uses: the user's (`$XDG_CACHE_HOME/session-tree/catalog.sqlite`). */
export function openCatalog(env: NodeJS.ProcessEnv): Promise<ServeCatalog> {
	return CatalogIndex.open({ env });
}

/**
 * The index as seen by a server of `sources`: only their sessions are listed, searched, counted
 * in the project menu and found by key. The index is the user's one cache, shared by every
 * command: it also holds the sessions of places another command (or another server) indexed,
 * which this server was not given and must not show.
 */
export function scopedCatalog(catalog: ServeCatalog, sources: readonly IndexSource[]): ServeCatalog {
	const names = sources.map((source) => source.name);
	const ours = new Set(names);
	return {
		refresh: (given, options) => catalog.refresh(given, options),
		sessions: (filter = {}) => catalog.sessions({ ...filter, sources: names }),
		session: (key) => {
			const found = catalog.session(key);
			return found !== undefined && ours.has(found.source) ? found : undefined;
		},
		projects: () => catalog.projects({ sources: names }),
		search: (query, options = {}) => catalog.search(query, { ...options, sources: names }),
		close: () => catalog.close(),
	};
}

/**
 * A refresh of the index that runs at most once every `everyMs` (a forced one runs anyway) and
 * that callers arriving while one runs share: every request may ask for it without each one
 * listing the places again.
 */
export function throttledRefresh(
	catalog: Pick<ServeCatalog, "refresh">,
	sources: readonly IndexSource[],
	everyMs: number,
): (force?: boolean) => Promise<void> {
	let last = 0;
	let pending: Promise<void> | undefined;
	return async (force = false): Promise<void> => {
		if (pending) return pending;
		if (!force && Date.now() - last < everyMs) return;
		pending = catalog
			.refresh(sources)
			.then(() => {
				last = Date.now();
			})
			.finally(() => {
				pending = undefined;
			});
		return pending;
	};
}
