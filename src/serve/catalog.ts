/**
 * The one place where the server meets the catalog index (src/catalog/catalog-index/): the
 * list, the search and the key → session lookup go through {@link ServeCatalog}, the part of
 * `CatalogIndex` the server uses.
 */

import { CatalogIndex, type IndexHit } from "../catalog/catalog-index/index.js";

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
