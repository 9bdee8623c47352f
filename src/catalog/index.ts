/** Sessions as a collection: finding, summarising and searching session files cheaply. */

export { type Selection, type SelectionOptions, selectSessionFiles, sessionFilesIn } from "./discover.js";
export { type EntryView, type EntryVisitor, type ScanResult, SkippedFile, scanSession } from "./scan.js";
export {
	compileQuery,
	InvalidPattern,
	type Matcher,
	makeSnippet,
	newestFilesFirst,
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
