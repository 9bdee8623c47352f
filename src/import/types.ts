/**
 * The contract between the importers of other agents' histories and the rest of session-tree.
 *
 * An importer is a pure function of the source's bytes: it never reads files itself and never
 * writes. It turns one source (a Claude Code, Codex or Gemini CLI file, a ChatGPT or Claude.ai
 * conversation, an Open WebUI chat) into a pi v3 session: a header and the records in an order where every
 * parent comes before its children, with ids derived from the source's own ids (so importing
 * the same source again gives the same records, and a source that grew gives the old records
 * unchanged followed by new ones). The shared layer (src/import/index.ts) finds the sources,
 * detects the format, writes through the store interface, and reports what was skipped.
 */

import type { RawRecord } from "../core/records.js";
import type { ToolPairingReport } from "../core/tool-pairing.js";
import type { SessionEntry, SessionHeader } from "../core/types.js";

/** The formats session-tree imports. */
export type ImportFormat = "claude-code" | "codex" | "chatgpt" | "openwebui" | "gemini" | "claude-ai";

/** One source handed to an importer: its bytes as text and a name for messages. */
export interface ImportSource {
	/** Where it came from, for errors and for `--dir` names: a path, or `archive.zip!member`. */
	readonly name: string;
	/** The whole source as UTF-8 text. */
	readonly text: string;
	/**
	 * Work around broken links instead of failing (a parent, a child or the active node that is
	 * not in the source): each workaround is reported as an {@link ImportSkip}. Default false.
	 */
	readonly lenient?: boolean;
	/** `text` already parsed as JSON, when the caller has it (saves a second parse of a large export). */
	readonly json?: unknown;
}

/** What errors and reports name a source by, and how strictly it is read: all a reader of its lines needs besides the lines. */
export type SourceName = Pick<ImportSource, "name" | "lenient">;

/** Something of the source that was not turned into an entry, and why (printed on stderr). */
export interface ImportSkip {
	/** The source's name. */
	readonly source: string;
	/** 1-based line (JSONL sources) or a JSON pointer-like path (`mapping/abc/message`). */
	readonly where: string;
	readonly reason: string;
}

/** One session made from a source (a ChatGPT export yields one per conversation). */
export interface ImportedSession {
	readonly format: ImportFormat;
	/** A v3 header; `id` derived from the source's own id (a UUID where the source has one). */
	readonly header: SessionHeader;
	/** Entries and the records that go with them (labels, session_info), parents first. */
	readonly records: readonly SessionEntry[];
	/** The entry that becomes the leaf: the source's active point. Null for an empty session. */
	readonly leafId: string | null;
	/** What was left out, and why. Nothing is dropped silently. */
	readonly skipped: readonly ImportSkip[];
	/**
	 * Fields of the source as a whole that have no pi equivalent and change as the source grows
	 * (ChatGPT's `update_time`, an Open WebUI chat's row): the shared layer writes them on the
	 * persisted-leaf record that points at `leafId` (as its `source`), so that a re-import of a
	 * grown source appends a new leaf record instead of rewriting an entry. Exporting back reads
	 * the latest one.
	 */
	readonly state?: Readonly<Record<string, unknown>>;
}

/**
 * An importer: the sessions in one source, or a `SessionTreeError` (code `INVALID_RECORD`,
 * naming the source, the line or record, and the field) when the source is not of its format
 * or is broken where nothing sensible can be made of it.
 */
export type Importer = (source: ImportSource) => ImportedSession[];

/** What an export reads of a session. */
export interface ExportInput {
	header: SessionHeader;
	/** Every entry, in file order (persisted-leaf records left out). */
	entries: readonly SessionEntry[];
	leafId: string | null;
	/** The session's name, if any. */
	name?: string | undefined;
	/** The records of the session as stored, to find the import's `state` (persisted-leaf records with `source`). */
	records?: readonly RawRecord[];
}

/**
 * An imported session whose records are made a batch at a time as they are written, and let
 * go, rather than held (a Claude Code transcript file read in a stream, claude-code-file.ts; a
 * ChatGPT conversation, linked-import.ts). `records` still gives them whole, for what compares
 * them with a stored session.
 */
export interface BatchedImport extends ImportedSession {
	/**
	 * The records the session is written as after its header, what `sessionRecords` gives after
	 * the header (the entries, then the persisted-leaf record if any), in batches of at most `size`.
	 */
	recordsAfterHeader(size: number): Iterable<RawRecord[]>;
	/** True when an entry is of a kind a model is sent (see `holdsConversation` in index.ts). */
	holdsConversation(): boolean;
	/**
	 * The tool pairing of the context at the leaf (what `toolPairingOfRecords` tells of the
	 * records), known once the records were written (`location` names the session in problems).
	 */
	toolPairing(location: string): ToolPairingReport;
	/** Lets go of what the import holds open (a file); a later read opens it again. */
	close(): void;
}

/** True when `imported` is made a batch at a time (see {@link BatchedImport}). */
export function isBatchedImport(imported: ImportedSession): imported is BatchedImport {
	return typeof (imported as Partial<BatchedImport>).recordsAfterHeader === "function";
}
