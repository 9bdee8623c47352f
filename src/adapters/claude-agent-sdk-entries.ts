/**
 * Claude Code transcript lines (the Claude Agent SDK's `SessionStoreEntry`) as session-tree
 * entries, one line at a time (used by `claude-agent-sdk.ts`). The content mapping is the one
 * `session-tree import` uses for Claude Code transcripts (src/import/claude-code-*.ts); what
 * differs is that a line is mapped alone, when it arrives, so a response split over several
 * assistant lines stays several assistant messages (the importer joins them, which an
 * append-only mirror cannot do once the first line is stored).
 *
 * | line | entries |
 * |---|---|
 * | `user` (not `isVisibleInTranscriptOnly`) | its tool results as `toolResult` messages, its other content as a `user` message, chained |
 * | `summary` carrying a user `message` (the compact summary of older transcripts) | a `user` message |
 * | `assistant` | an `assistant` message (text, thinking, tool calls; usage, stop reason, model) |
 * | `system` with `subtype: "compact_boundary"` | a compaction (`firstKeptEntryId` its own id: Claude Code keeps nothing before it) |
 * | `custom-title`, `summary` of a line of this transcript | a `session_info` naming the session |
 * | anything else | a `custom` entry, `customType` `claude-code:<type>` |
 *
 * Every entry keeps where it came from as `source` (`format: "claude-agent-sdk"`): the first
 * entry of a line holds the line itself (`entry`, exactly as appended), the others name the
 * first (`of`) and their place (`part`). A line that does not map (a user line without a
 * message, say) becomes a custom entry: nothing appended is ever refused or lost.
 */

import type { SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { customEntry, type EntryStamp, messageEntry, sessionHeader, sessionInfoEntry } from "../core/entries.js";
import type { AssistantMessage, CompactionEntry, SessionEntry, SessionHeader, TextContent } from "../core/types.js";
import { anthropicUsage, assistantBlock, stopReason } from "../import/claude-code-content.js";
import { userLineMessages } from "../import/claude-code-user.js";
import { isJson, type Json, mapBlocks, uuidFromName } from "../import/common.js";

/** The `source.format` of entries the adapter writes. */
export const SDK_FORMAT = "claude-agent-sdk";

/** The header field naming the SDK key a session holds. */
export const KEY_FIELD = "claudeAgentSdk";

/** An SDK session key with its subpath normalised (absent for the main transcript). */
export interface TranscriptKey {
	projectKey: string;
	sessionId: string;
	subpath?: string;
}

/** The `source` of the first entry of a line: the line as appended. */
export interface LineSource {
	format: typeof SDK_FORMAT;
	entry: SessionStoreEntry;
}

/** The `source` of a later entry of a line (a user line's second message, …). */
export interface PartSource {
	format: typeof SDK_FORMAT;
	/** The id of the line's first entry. */
	of: string;
	/** 1, 2, … */
	part: number;
}

/** Builds one entry of a line once its id, parent and time are known. */
export type EntryBuild = (stamp: EntryStamp) => SessionEntry;

/** What the mapping of a line needs to know about the transcript so far. */
export interface LineContext {
	/** The name of the tool a call id belongs to ("" when unknown). */
	toolName(callId: string): string;
	/** True when a line with this uuid is stored (or earlier in the batch). */
	knows(uuid: string): boolean;
}

/** Entry types the model sees: a child of one of these is conversation, any other entry is not. */
const CONVERSATION_TYPES: ReadonlySet<string> = new Set(["message", "compaction", "branch_summary", "custom_message"]);

/**
 * True for an entry that is not conversation (a custom entry, a label, a session name, …):
 * a later line naming the same parent hangs below it instead of beside it, so progress and
 * hook lines never look like branches.
 */
export function isTransparentType(type: string): boolean {
	return !CONVERSATION_TYPES.has(type);
}

/** The entries of one line, in order; at least one. */
export function lineEntries(entry: SessionStoreEntry, context: LineContext): EntryBuild[] {
	const record = entry as Json;
	const type = typeof record.type === "string" ? record.type : "unknown";
	try {
		if (type === "user" && record.isVisibleInTranscriptOnly !== true && isJson(record.message)) {
			return userEntries(record, context);
		}
		// The compact summary of older transcripts: a `summary` line carrying the user message sent after a compaction.
		if (type === "summary" && isJson(record.message) && record.message.role === "user") {
			return userEntries(record, context);
		}
		if (type === "assistant" && isJson(record.message) && Array.isArray(record.message.content)) {
			return [assistantEntry(record)];
		}
	} catch {
		// A line the mapping cannot read is kept as a custom entry below.
	}
	if (type === "system" && record.subtype === "compact_boundary") return [compactionEntry(record)];
	const name = sessionName(record, context);
	if (name !== undefined) return [(stamp) => sessionInfoEntry(stamp, name)];
	return [(stamp) => customEntry(stamp, `claude-code:${type}`)];
}

/** The user line's messages (tool results, then the rest), as the importer maps them. */
function userEntries(record: Json, context: LineContext): EntryBuild[] {
	const uuid = typeof record.uuid === "string" ? record.uuid : "";
	const ms = timeOf(record.timestamp) ?? 0;
	const parts = userLineMessages({ name: SDK_FORMAT }, { n: 0, record }, uuid, ms, (callId) =>
		context.toolName(callId),
	);
	return parts.map(
		({ message }) =>
			(stamp) =>
				messageEntry(stamp, { ...message, timestamp: ms || Date.parse(stamp.timestamp) }),
	);
}

/** One assistant line as one assistant message (its blocks that pi has shapes for). */
function assistantEntry(record: Json): EntryBuild {
	const message = record.message as Json;
	const { content } = mapBlocks(message.content as unknown[], assistantBlock);
	const built: AssistantMessage = {
		role: "assistant",
		content,
		api: "anthropic-messages",
		provider: "anthropic",
		model: typeof message.model === "string" ? message.model : "",
		usage: anthropicUsage(message.usage),
		stopReason: stopReason(
			message.stop_reason,
			content.some((block) => block.type === "toolCall"),
		),
		timestamp: 0,
	};
	if (record.isApiErrorMessage === true) {
		built.stopReason = "error";
		built.errorMessage = content
			.filter((block): block is TextContent => block.type === "text")
			.map((block) => block.text)
			.join("\n");
	}
	return (stamp) =>
		messageEntry(stamp, { ...built, timestamp: timeOf(record.timestamp) ?? Date.parse(stamp.timestamp) });
}

/** A compact boundary: the model sees its summary instead of what came before. */
function compactionEntry(record: Json): EntryBuild {
	const metadata = record.compactMetadata;
	const preTokens = isJson(metadata) ? metadata.preTokens : undefined;
	const summary =
		typeof record.content === "string" && record.content !== "" ? record.content : "Conversation compacted";
	return (stamp) => {
		const entry: CompactionEntry = {
			type: "compaction",
			...stamp,
			summary,
			firstKeptEntryId: stamp.id,
			tokensBefore: typeof preTokens === "number" && Number.isFinite(preTokens) ? preTokens : 0,
		};
		return entry;
	};
}

/** The session name a title line gives: a `custom-title`, or a `summary` of a line of this transcript. */
function sessionName(record: Json, context: LineContext): string | undefined {
	if (record.type === "custom-title" && typeof record.customTitle === "string") return record.customTitle.trim();
	if (
		record.type === "summary" &&
		typeof record.summary === "string" &&
		typeof record.leafUuid === "string" &&
		context.knows(record.leafUuid)
	) {
		return record.summary.trim();
	}
	return undefined;
}

/** Epoch milliseconds of an ISO time, or undefined for anything that is not one. */
export function timeOf(value: unknown): number | undefined {
	if (typeof value !== "string") return undefined;
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? undefined : ms;
}

/** An entry's time: the line's own (ISO, millisecond precision), else now. */
export function entryTime(entry: SessionStoreEntry, now: () => Date): string {
	const ms = timeOf(entry.timestamp);
	const date = ms === undefined ? now() : new Date(ms);
	return Number.isNaN(date.getTime()) ? now().toISOString() : date.toISOString();
}

/** The session id of a key's transcript: derived from the key, so one key always names one session. */
export function transcriptSessionId(key: TranscriptKey): string {
	return uuidFromName(`claude-agent-sdk:${JSON.stringify([key.projectKey, key.sessionId, key.subpath ?? null])}`);
}

/**
 * The header of a new transcript: the id derived from the key, the time and working directory
 * of its first line, the key itself (`claudeAgentSdk`), and for a subpath transcript the main
 * transcript's location as `parentSession`.
 */
export function transcriptHeader(
	key: TranscriptKey,
	entries: readonly SessionStoreEntry[],
	now: () => Date,
	parentSession?: string,
): SessionHeader {
	const first = entries[0];
	const timestamp = first === undefined ? now().toISOString() : entryTime(first, now);
	const cwd = entries.map((entry) => entry.cwd).find((value): value is string => typeof value === "string") ?? "";
	const header = sessionHeader(transcriptSessionId(key), timestamp, cwd, parentSession);
	const stored: TranscriptKey = { projectKey: key.projectKey, sessionId: key.sessionId };
	if (key.subpath !== undefined) stored.subpath = key.subpath;
	header[KEY_FIELD] = stored;
	return header;
}

/** The SDK key a header names, if it is a header the adapter wrote. */
export function headerKey(header: SessionHeader): TranscriptKey | undefined {
	const key = header[KEY_FIELD];
	if (!isJson(key) || typeof key.projectKey !== "string" || typeof key.sessionId !== "string") return undefined;
	const out: TranscriptKey = { projectKey: key.projectKey, sessionId: key.sessionId };
	if (typeof key.subpath === "string") out.subpath = key.subpath;
	return out;
}

/** True when two keys name the same transcript. */
export function sameKey(a: TranscriptKey, b: TranscriptKey): boolean {
	return a.projectKey === b.projectKey && a.sessionId === b.sessionId && a.subpath === b.subpath;
}
