/**
 * Types of the pi session format, version 3.
 *
 * A session file is one JSON object per line: a {@link SessionHeader} first, then
 * {@link SessionEntry} records that form a tree through `id`/`parentId`. The shapes follow
 * pi 0.73.1 (`@mariozechner/pi-coding-agent`) field by field, so files round-trip between the
 * two tools. Unknown fields are kept: every type is open (`[key: string]: unknown` where pi's
 * own types are open, and records are never rebuilt field by field when they are written back).
 *
 * @packageDocumentation
 */

/** The session format version this library writes. */
export const CURRENT_SESSION_VERSION = 3;

/** Line 1 of a session file. It is not part of the entry tree. */
export interface SessionHeader {
	type: "session";
	/** Absent in v1 files. */
	version?: number;
	/** Session id: a UUID (v7 for sessions this library creates). */
	id: string;
	/** ISO 8601 creation time. */
	timestamp: string;
	/** Working directory of the agent that owns the session. */
	cwd: string;
	/** Path of the session this one was forked from. */
	parentSession?: string;
	[key: string]: unknown;
}

/** A text block of message content. */
export interface TextContent {
	type: "text";
	text: string;
	[key: string]: unknown;
}

/** An image block of message content (base64 data). */
export interface ImageContent {
	type: "image";
	data: string;
	mimeType: string;
	[key: string]: unknown;
}

/** A thinking block of assistant content. */
export interface ThinkingContent {
	type: "thinking";
	thinking: string;
	[key: string]: unknown;
}

/** A tool call block of assistant content. */
export interface ToolCall {
	type: "toolCall";
	id: string;
	name: string;
	arguments: Record<string, unknown>;
	[key: string]: unknown;
}

/** A message the user typed. */
export interface UserMessage {
	role: "user";
	content: string | Array<TextContent | ImageContent>;
	timestamp: number;
	[key: string]: unknown;
}

/**
 * Token counts and cost of one model reply (pi's `Usage`): plain input, output, cache reads and
 * writes counted apart, their total, and the cost of each in dollars.
 */
export interface UsageRecord {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	totalTokens: number;
	cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/** A model reply. */
export interface AssistantMessage {
	role: "assistant";
	content: Array<TextContent | ThinkingContent | ToolCall>;
	api?: string;
	provider: string;
	model: string;
	usage?: unknown;
	stopReason?: string;
	timestamp: number;
	[key: string]: unknown;
}

/** The result of a tool call. */
export interface ToolResultMessage {
	role: "toolResult";
	toolCallId: string;
	toolName: string;
	content: Array<TextContent | ImageContent>;
	isError: boolean;
	timestamp: number;
	[key: string]: unknown;
}

/** A message injected by an extension; in the context it appears as is. */
export interface CustomMessage {
	role: "custom";
	customType: string;
	content: string | Array<TextContent | ImageContent>;
	display: boolean;
	details?: unknown;
	timestamp: number;
	[key: string]: unknown;
}

/** The context message that stands for a compaction. */
export interface CompactionSummaryMessage {
	role: "compactionSummary";
	summary: string;
	tokensBefore: number;
	timestamp: number;
}

/** The context message that stands for a branch summary. */
export interface BranchSummaryMessage {
	role: "branchSummary";
	summary: string;
	fromId: string;
	timestamp: number;
}

/** Any other message kind (for example pi's `bashExecution`): kept and sent as is. */
export interface OtherMessage {
	role: string;
	timestamp?: number;
	[key: string]: unknown;
}

/** A message as an agent stores it in a `message` entry. */
export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage | CustomMessage | OtherMessage;

/** A message of the model context built from a path. */
export type ContextMessage = AgentMessage | CompactionSummaryMessage | BranchSummaryMessage;

/** Fields every entry has. */
export interface EntryBase {
	type: string;
	/** 8 hex characters, unique in the file. */
	id: string;
	/** The parent entry's id, or `null` for a root. */
	parentId: string | null;
	/** ISO 8601 time the entry was written (millisecond precision). */
	timestamp: string;
}

/** A conversation message. In the context as is. */
export interface MessageEntry extends EntryBase {
	type: "message";
	message: AgentMessage;
}

/** The model was switched. Sets the context's `model`. */
export interface ModelChangeEntry extends EntryBase {
	type: "model_change";
	provider: string;
	modelId: string;
}

/** The thinking level was switched. Sets the context's `thinkingLevel`. */
export interface ThinkingLevelChangeEntry extends EntryBase {
	type: "thinking_level_change";
	thinkingLevel: string;
}

/** Older context was summarised: the model sees the summary instead of what it replaces. */
export interface CompactionEntry<T = unknown> extends EntryBase {
	type: "compaction";
	summary: string;
	/**
	 * First entry on the path that is still sent after the summary. Absent where pi 0.73.1's
	 * v1 migration found no entry for a `firstKeptEntryIndex` (one after the compaction): then,
	 * as pi reads it, nothing from before the compaction is kept.
	 */
	firstKeptEntryId?: string;
	tokensBefore: number;
	details?: T;
	fromHook?: boolean;
	usage?: unknown;
	/**
	 * The kept messages themselves (a session-tree extension that pi ignores). When present
	 * they follow the summary and nothing before the compaction has to be read.
	 */
	retainedTail?: ContextMessage[];
	/**
	 * The thinking level and model in effect on the path at the compaction (session-tree,
	 * written with `retainedTail`). With both fields, a resume needs nothing before the
	 * compaction at all: pi computes the same values from the whole path.
	 */
	retainedState?: RetainedState;
}

/** The settings a compaction with `retainedTail` records (see {@link CompactionEntry.retainedState}). */
export interface RetainedState {
	thinkingLevel: string;
	model: ContextModel | null;
}

/** The leaf moved to another branch; the summary tells the model what was left behind. */
export interface BranchSummaryEntry<T = unknown> extends EntryBase {
	type: "branch_summary";
	/** The entry the new branch starts from, or `"root"`. */
	fromId: string;
	summary: string;
	details?: T;
	fromHook?: boolean;
	usage?: unknown;
}

/** Extension state; never in the context. */
export interface CustomEntry<T = unknown> extends EntryBase {
	type: "custom";
	customType: string;
	data?: T;
}

/** An extension message that is sent to the model as a `custom` role message. */
export interface CustomMessageEntry<T = unknown> extends EntryBase {
	type: "custom_message";
	customType: string;
	content: string | Array<TextContent | ImageContent>;
	display: boolean;
	details?: T;
}

/** Sets (or, with an absent or empty label, clears) the bookmark on another entry. */
export interface LabelEntry extends EntryBase {
	type: "label";
	targetId: string;
	label?: string;
}

/** Names the session; the latest one in the file wins. */
export interface SessionInfoEntry extends EntryBase {
	type: "session_info";
	name?: string;
}

/**
 * The persisted leaf pointer (a session-tree record; pi treats it as an ordinary entry).
 * Its `parentId` equals `targetId`, so pi, which takes the last entry of the file as its leaf,
 * walks from it to the same path and builds the same context. See docs/format.md.
 */
export interface LeafEntry extends EntryBase {
	type: "leaf";
	/** The entry the leaf points at; `null` after `resetLeaf()`. */
	targetId: string | null;
}

/**
 * An entry of a type this version does not know. It is kept verbatim and is a tree node like
 * any other, but it is not part of {@link SessionEntry}'s union, so that `entry.type` narrows:
 * code that switches on `type` keeps a `default` branch for these.
 */
export interface UnknownEntry extends EntryBase {
	[key: string]: unknown;
}

/** The entry types of the format. */
export type KnownEntry =
	| MessageEntry
	| ModelChangeEntry
	| ThinkingLevelChangeEntry
	| CompactionEntry
	| BranchSummaryEntry
	| CustomEntry
	| CustomMessageEntry
	| LabelEntry
	| SessionInfoEntry;

/**
 * An entry of the tree: a discriminated union on `type`, so `if (entry.type === "message")`
 * gives a {@link MessageEntry} without a cast. Entries of other types are kept too (see
 * {@link UnknownEntry}); a `switch` on `type` needs a `default` branch for them.
 */
export type SessionEntry = KnownEntry;

/**
 * A record a stream holds after its header: an entry, or a persisted-leaf record (a
 * {@link LeafEntry}), which moves the leaf and never becomes an entry of the tree.
 */
export type SessionRecord = SessionEntry | LeafEntry;

/** The entry type names of the format. */
export const ENTRY_TYPES = [
	"message",
	"model_change",
	"thinking_level_change",
	"compaction",
	"branch_summary",
	"custom",
	"custom_message",
	"label",
	"session_info",
	"leaf",
] as const;

/** The model a context was built for. */
export interface ContextModel {
	provider: string;
	modelId: string;
}

/** What the model sees: the result of `buildSessionContext`, shaped as pi's. */
export interface SessionContext {
	messages: ContextMessage[];
	thinkingLevel: string;
	model: ContextModel | null;
}

/** One node of {@link SessionTree.getTree}'s result. */
export interface SessionTreeNode {
	entry: SessionEntry;
	/** Children, oldest first (stable by timestamp). */
	children: SessionTreeNode[];
	/** The label in effect for this entry. */
	label?: string;
	/** When that label was set. */
	labelTimestamp?: string;
	/**
	 * True when an archive record in effect archives the branch that starts here (its
	 * descendants are archived with it); absent otherwise. See `SessionTree.getArchived`.
	 */
	archived?: boolean;
}

/**
 * One step of a root-to-leaf path, as the context rules read it (context.ts). A tree node is
 * one (its `entry` is parsed only when these rules need it); `stepsOf` makes steps of entries.
 * Here, at the bottom of the core, so that the tree and the context rules share it without a
 * cycle; not published (the context functions that take steps are internal too).
 * @internal
 */
export interface PathStep {
	readonly id: string;
	readonly type: string;
	/** The message role, when known without reading `entry` (it is read when this is undefined). */
	readonly role: string | undefined;
	readonly entry: SessionEntry;
	/** False while `entry` is not parsed yet (tree nodes); absent means parsed. */
	readonly loaded?: boolean;
}

/** Type guard for {@link MessageEntry}. */
export function isMessageEntry(entry: SessionEntry): entry is MessageEntry {
	return entry.type === "message";
}

/**
 * Type guard for {@link AssistantMessage}: an object whose `role` is `"assistant"` (the role
 * names the message kind). Takes any value, so a damaged message is simply not one.
 */
export function isAssistantMessage(message: unknown): message is AssistantMessage {
	return typeof message === "object" && message !== null && "role" in message && message.role === "assistant";
}
