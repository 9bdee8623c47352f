/**
 * session-tree: branching LLM-agent conversations in one append-only JSONL file, in pi's
 * session format (version 3).
 *
 * This entry point holds what an application needs: the facade (`Session` and its options), the
 * errors, the entry and message types and what the facade's reads return (core/), the store
 * contract, the stores and where a session lives (storage/), the views: text, Markdown and HTML
 * (render/), copy and prune between stores (catalog/), and import and export (import/, as
 * docs/import.md shows them). The pure core (reducer, tree, context rules, migration, entry
 * constructors, ids) is `session-tree/core`; the conformance suite of the store contract is
 * `session-tree/testing`. Every other module is internal. docs/architecture.md ("Public API")
 * lists the entry points; etc/*.api.md is what each exports, checked by `npm run check`.
 *
 * @example
 * ```ts
 * import { Session } from "session-tree";
 * const session = await Session.create({ dir: "./sessions", cwd: process.cwd() });
 * const q = await session.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
 * await session.branch(q);
 * console.log(session.buildSessionContext().messages);
 * ```
 * @packageDocumentation
 */

export { type MergedSession, mergeSessions, readMerge } from "./catalog/merge.js";
export {
	type CopyEvent,
	type CopyOptions,
	type CopyTarget,
	copyLocation,
	copySession,
	type PruneRule,
	pruneCandidates,
} from "./catalog/transfer.js";
export { ARCHIVE_CUSTOM_TYPE, type ArchiveChange, type ArchiveState } from "./core/archive.js";
export type { ContextEntry } from "./core/context.js";
export {
	isSessionTreeError,
	SessionTreeError,
	type SessionTreeErrorCode,
	type SourceLocation,
} from "./core/errors.js";
export type { RandomBytes } from "./core/ids.js";
export type { LoadProblem, ParsedLine } from "./core/load.js";
export type {
	MergeConflict,
	MergeLabelDifference,
	MergeLeaf,
	MergeOptions,
	MergeReport,
	MergeResult,
} from "./core/merge.js";
export type { RawRecord } from "./core/migrate.js";
export type { PickedCopy, PickProvenance, PickReason, PickSkipped } from "./core/pick.js";
export type { ToolPairingCode, ToolPairingProblem, ToolPairingReport } from "./core/tool-pairing.js";
export type { FlatTreeRow, LabelState, ListBranchesOptions, ReadonlySessionTree } from "./core/tree.js";
export {
	type AgentMessage,
	type AssistantMessage,
	type BranchSummaryEntry,
	type BranchSummaryMessage,
	type CompactionEntry,
	type CompactionSummaryMessage,
	type ContextMessage,
	type ContextModel,
	type CustomEntry,
	type CustomMessage,
	type CustomMessageEntry,
	type EntryBase,
	type ImageContent,
	isAssistantMessage,
	isMessageEntry,
	type KnownEntry,
	type LabelEntry,
	type LeafEntry,
	type MessageEntry,
	type ModelChangeEntry,
	type OtherMessage,
	type RetainedState,
	type SessionContext,
	type SessionEntry,
	type SessionHeader,
	type SessionInfoEntry,
	type SessionRecord,
	type SessionTreeNode,
	type TextContent,
	type ThinkingContent,
	type ThinkingLevelChangeEntry,
	type ToolCall,
	type ToolResultMessage,
	type UnknownEntry,
	type UsageRecord,
	type UserMessage,
} from "./core/types.js";
export { importChatGPT } from "./import/chatgpt.js";
export {
	EXPORT_FORMATS,
	type ExportFormat,
	type ExportInput,
	exportInputOf,
	exportSession,
	exportText,
	exportValue,
	toChatGPT,
	toOpenWebUI,
} from "./import/export.js";
export {
	type ClaudeCodeTranscript,
	claudeCodeJsonl,
	claudeCodeResumePoint,
	claudeCodeSessionId,
	claudeCodeTranscript,
	toClaudeCode,
} from "./import/export-claude-code.js";
export {
	detectFormat,
	IMPORT_FORMATS,
	type ImportedResult,
	type ImportedSession,
	type Importer,
	type ImportFailure,
	type ImportFormat,
	type ImportOptions,
	type ImportReport,
	type ImportSkip,
	type ImportSource,
	type ImportTarget,
	type ImportTextOptions,
	importSources,
	importText,
	isImportFormat,
	loadImporter,
	openImported,
	sessionRecords,
	type WriteResult,
	type WriteStatus,
	writeImported,
} from "./import/index.js";
export { importOpenWebUI } from "./import/openwebui.js";
export { DEFAULT_ZIP_LIMITS, type ZipLimits } from "./import/zip.js";
export { type ContextTextOptions, renderContext } from "./render/context-text.js";
export { exportSessionHtml, type HtmlExport, type HtmlExportOptions } from "./render/html/export.js";
export { type MarkdownInput, renderMarkdown } from "./render/markdown.js";
export type { RedactionCounts } from "./render/redact.js";
export { renderTree, type TreeFilter, type TreePreviews, type TreeTextOptions } from "./render/tree-text.js";
export { type PickOptions, type PickResult, Session } from "./session.js";
export type {
	CreateSessionOptions,
	ForkOptions,
	NavigateOptions,
	NavigateResult,
	OpenSessionOptions,
	RefreshOptions,
	SessionEnvironment,
} from "./session-options.js";
export { parseLine } from "./storage/codec.js";
export { DirectoryCollection } from "./storage/directory-collection.js";
export { FileSessionStore, type FileStoreOptions } from "./storage/file-store.js";
export {
	type CollectionFactory,
	collectionAt,
	registerStoreScheme,
	type StoreFactory,
	type StoreOptions,
	schemeOf,
	storeAt,
} from "./storage/locations.js";
export type { LockOptions } from "./storage/lock.js";
export { MemoryCollection, MemorySessionStore } from "./storage/memory-store.js";
export { defaultAgentDir, defaultSessionDir, sessionFileName, sessionsRoot } from "./storage/paths.js";
export {
	type AppendOutcome,
	type Awaitable,
	type CollectionCapabilities,
	type Durability,
	isPending,
	type ReplaceOutcome,
	type SessionCollection,
	type SessionListing,
	type SessionStore,
	type StoreCapabilities,
	type StorePosition,
	type StoreRead,
	type TailRead,
	type TextQuery,
	type WriteOutcome,
} from "./storage/store.js";
