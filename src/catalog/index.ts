/** Sessions as a collection: choosing, summarising and searching them through their stores and the reducer. */

export type { Agent } from "./agents.js";
export {
	agentSources,
	CatalogIndex,
	defaultIndexPath,
	type IndexedSession,
	type IndexFilter,
	type IndexHit,
	type IndexRefresh,
	type IndexSearchOptions,
	type IndexSource,
} from "./catalog-index/index.js";
export { type Selection, type SelectionOptions, selectCollection } from "./discover.js";
export { CatalogSession, type JsonRecord, listSessions, readListed, readSession, SkippedFile } from "./read.js";
export {
	compileQuery,
	InvalidPattern,
	type Matcher,
	makeSnippet,
	newestFirst,
	type SearchHit,
	type SearchOptions,
	type SearchQuery,
	type SearchResult,
	searchSession,
	searchSessions,
} from "./search.js";
export {
	type SessionSummary,
	type SkippedSession,
	summarizeSession,
	summarizeSessions,
} from "./summary.js";
