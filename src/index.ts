/**
 * session-tree: branching LLM-agent conversations in one append-only JSONL file, in pi's
 * session format (version 3).
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

export {
	type CopyEvent,
	type CopyTarget,
	copyLocation,
	copySession,
	isCollectionLocation,
	type PruneRule,
	pruneCandidates,
	readAllRecords,
} from "./catalog/transfer.js";
export * from "./core/index.js";
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
	chooseSession,
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
	type SourceKind,
	sessionRecords,
	sniffFormat,
	type WriteResult,
	type WriteStatus,
	writeImported,
	writeSessions,
} from "./import/index.js";
export { importOpenWebUI } from "./import/openwebui.js";
export { DEFAULT_ZIP_LIMITS, type ZipLimits } from "./import/zip.js";
export { exportSessionHtml, type HtmlExport, type HtmlExportOptions } from "./render/html/export.js";
export { Session } from "./session.js";
export type {
	CreateSessionOptions,
	ForkOptions,
	NavigateOptions,
	NavigateResult,
	OpenSessionOptions,
	SessionEnvironment,
} from "./session-options.js";
export { parseLine } from "./storage/codec.js";
export { DirectoryCollection } from "./storage/directory-collection.js";
export { FileSessionStore, type FileStoreOptions, type RawLine, readFileLines } from "./storage/file-store.js";
export {
	type CollectionFactory,
	collectionAt,
	registerStoreScheme,
	type StoreFactory,
	type StoreOptions,
	schemeOf,
	storeAt,
} from "./storage/locations.js";
export { acquireLock, type LockOptions, type ReleaseLock } from "./storage/lock.js";
export { MemoryCollection, MemorySessionStore } from "./storage/memory-store.js";
export { defaultAgentDir, defaultSessionDir, sessionFileName, sessionsRoot } from "./storage/paths.js";
export type {
	AppendOutcome,
	Awaitable,
	CollectionCapabilities,
	Durability,
	ReplaceOutcome,
	SessionCollection,
	SessionListing,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
	TailRead,
	TextQuery,
	WriteOutcome,
} from "./storage/store.js";
export { isPending } from "./storage/store.js";
