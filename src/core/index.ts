/**
 * The pure core of session-tree: entry types, entry constructors, ids, the reducer that reads a
 * record stream, the in-memory tree, context building, tool pairing, token estimates, copying
 * and migration. No I/O; usable in any JavaScript runtime.
 *
 * What the core uses only inside (how a store hands lines whose bodies are read later, the
 * path-step forms of the context rules the facade uses to parse only what a context needs, the
 * steps of id-less and positional ids, message helpers) is not exported: etc/session-tree-core.api.md
 * is the list, checked by `npm run check`.
 * @packageDocumentation
 */

export {
	ARCHIVE_CUSTOM_TYPE,
	type ArchiveChange,
	type ArchiveState,
	archiveChangeOf,
	archiveEntry,
	isArchiveRecord,
} from "./archive.js";
export { type BranchComparison, compareBranches } from "./compare.js";
export {
	branchSummaryMessage,
	buildContextEntries,
	buildSessionContext,
	type ContextEntry,
	compactionSummaryMessage,
	customMessage,
	entryMessage,
} from "./context.js";
export { forkRecords, type IdMaker, rewriteRecords } from "./copy.js";
export {
	type DiffEntry,
	type DiffRow,
	diffPaths,
	diffSides,
	diffWords,
	type PathDiff,
	type WordChange,
} from "./diff.js";
export {
	branchSummaryEntry,
	compactionEntry,
	customEntry,
	customMessageEntry,
	type EntryStamp,
	emptyUsage,
	labelEntry,
	leafEntry,
	messageEntry,
	modelChangeEntry,
	sessionHeader,
	sessionInfoEntry,
	thinkingLevelChangeEntry,
} from "./entries.js";
export { isSessionTreeError, SessionTreeError, type SessionTreeErrorCode, type SourceLocation } from "./errors.js";
export { resolveIdPrefix } from "./id-prefix.js";
export { derivedEntryId, isEntryId, newEntryId, newSessionId, type RandomBytes } from "./ids.js";
export { isUnreadable } from "./lazy.js";
export {
	type LoadOptions,
	type LoadProblem,
	type LoadResult,
	loadTree,
	type ParsedLine,
	settleStream,
} from "./load.js";
export {
	type MergeConflict,
	type MergeLabelDifference,
	type MergeLeaf,
	type MergeOptions,
	type MergeReport,
	type MergeResult,
	mergeRecords,
} from "./merge.js";
export { headerVersion, Migration, migrateRecords, parentSessionOf, type RawRecord } from "./migrate.js";
export { MAX_NESTING, nestingPath } from "./nesting.js";
export type { Policy } from "./normalize.js";
export { headerProblem, type ReducerOptions, SessionReducer } from "./reducer.js";
export { resumeFromTail, type TailResume } from "./tail.js";
export {
	type ContextTokenEstimate,
	estimateContextTokens,
	estimateTokens,
	IMAGE_ESTIMATE_CHARS,
	sumTokenEstimates,
	sumUsage,
	type Usage,
	type UsageTotals,
	usageOf,
} from "./tokens.js";
export {
	checkToolPairing,
	type ToolPairingCode,
	type ToolPairingProblem,
	type ToolPairingReport,
} from "./tool-pairing.js";
export {
	type FlatTreeRow,
	type LabelState,
	type ListBranchesOptions,
	type ReadonlySessionTree,
	SessionTree,
	type TreeRow,
	treeRowsOf,
} from "./tree.js";
export * from "./types.js";
