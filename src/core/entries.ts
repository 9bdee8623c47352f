/**
 * Constructors for new entries. Keys are written in pi 0.73.1's order, so a file written by
 * session-tree reads line by line like one pi wrote.
 */

import type {
	AgentMessage,
	BranchSummaryEntry,
	CompactionEntry,
	ContextMessage,
	CustomEntry,
	CustomMessageEntry,
	LabelEntry,
	LeafEntry,
	MessageEntry,
	ModelChangeEntry,
	RetainedState,
	SessionHeader,
	SessionInfoEntry,
	ThinkingLevelChangeEntry,
	UsageRecord,
} from "./types.js";
import { CURRENT_SESSION_VERSION } from "./types.js";

/** The id, parent and time of an entry about to be written. */
export interface EntryStamp {
	id: string;
	parentId: string | null;
	timestamp: string;
}

/** A version-3 session header (line 1 of a file). */
export function sessionHeader(id: string, timestamp: string, cwd: string, parentSession?: string): SessionHeader {
	const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd };
	if (parentSession !== undefined) header.parentSession = parentSession;
	return header;
}

/**
 * pi's usage record with nothing counted: every token count and cost 0. It is what an assistant
 * message carries when the source did not count (an import without usage, a reply written by
 * hand); a fresh object each call, so the caller may fill it in.
 */
export function emptyUsage(): UsageRecord {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

/** A `message` entry holding an agent message. */
export function messageEntry(stamp: EntryStamp, message: AgentMessage): MessageEntry {
	return { type: "message", ...stamp, message };
}

/** A `model_change` entry. */
export function modelChangeEntry(stamp: EntryStamp, provider: string, modelId: string): ModelChangeEntry {
	return { type: "model_change", ...stamp, provider, modelId };
}

/** A `thinking_level_change` entry. */
export function thinkingLevelChangeEntry(stamp: EntryStamp, thinkingLevel: string): ThinkingLevelChangeEntry {
	return { type: "thinking_level_change", ...stamp, thinkingLevel };
}

/** A `compaction` entry; `retainedTail` and `retainedState` are written only when given. */
export function compactionEntry(
	stamp: EntryStamp,
	summary: string,
	firstKeptEntryId: string,
	tokensBefore: number,
	details?: unknown,
	fromHook?: boolean,
	retainedTail?: ContextMessage[],
	retainedState?: RetainedState,
): CompactionEntry {
	const entry: CompactionEntry = {
		type: "compaction",
		...stamp,
		summary,
		firstKeptEntryId,
		tokensBefore,
		details,
		fromHook,
	};
	if (retainedTail !== undefined) entry.retainedTail = retainedTail;
	if (retainedState !== undefined) entry.retainedState = retainedState;
	return entry;
}

/** A `branch_summary` entry; `fromId` is the branch point or `"root"`. */
export function branchSummaryEntry(
	stamp: EntryStamp,
	fromId: string,
	summary: string,
	details?: unknown,
	fromHook?: boolean,
): BranchSummaryEntry {
	return { type: "branch_summary", ...stamp, fromId, summary, details, fromHook };
}

/** A `custom` entry (extension state, never in the context). */
export function customEntry(stamp: EntryStamp, customType: string, data?: unknown): CustomEntry {
	return { type: "custom", customType, data, ...stamp };
}

/** A `custom_message` entry (sent to the model as a `custom` message). */
export function customMessageEntry(
	stamp: EntryStamp,
	customType: string,
	content: CustomMessageEntry["content"],
	display: boolean,
	details?: unknown,
): CustomMessageEntry {
	return { type: "custom_message", customType, content, display, details, ...stamp };
}

/** A `label` entry; an absent or empty label clears the target's label. */
export function labelEntry(stamp: EntryStamp, targetId: string, label: string | undefined): LabelEntry {
	return { type: "label", ...stamp, targetId, label };
}

/** A `session_info` entry naming the session. */
export function sessionInfoEntry(stamp: EntryStamp, name: string): SessionInfoEntry {
	return { type: "session_info", ...stamp, name };
}

/** The persisted leaf pointer; its parent is its target, so pi's walk from it finds the same path. */
export function leafEntry(stamp: Omit<EntryStamp, "parentId">, targetId: string | null): LeafEntry {
	return { type: "leaf", id: stamp.id, parentId: targetId, timestamp: stamp.timestamp, targetId };
}
