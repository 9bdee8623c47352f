/**
 * Building the model context from a root-to-leaf path, with exactly pi 0.73.1's rules
 * (`buildSessionContext`), plus session-tree's `retainedTail` on compactions.
 */

import type {
	BranchSummaryEntry,
	BranchSummaryMessage,
	CompactionEntry,
	CompactionSummaryMessage,
	ContextMessage,
	ContextModel,
	CustomMessage,
	CustomMessageEntry,
	MessageEntry,
	ModelChangeEntry,
	SessionContext,
	SessionEntry,
	ThinkingLevelChangeEntry,
} from "./types.js";

/** A context message and the entry it comes from (the compaction, for summary and retained tail). */
export interface ContextEntry {
	entry: SessionEntry;
	message: ContextMessage;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object";
}

/** pi turns ISO timestamps into epoch milliseconds with `new Date(..).getTime()`. */
function epochMs(timestamp: string): number {
	return new Date(timestamp).getTime();
}

/** The context message for a compaction entry. */
export function compactionSummaryMessage(entry: CompactionEntry): CompactionSummaryMessage {
	return {
		role: "compactionSummary",
		summary: entry.summary,
		tokensBefore: entry.tokensBefore,
		timestamp: epochMs(entry.timestamp),
	};
}

/** The context message for a branch summary entry. */
export function branchSummaryMessage(entry: BranchSummaryEntry): BranchSummaryMessage {
	return { role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: epochMs(entry.timestamp) };
}

/** The context message for a custom message entry (`details` stays undefined when absent, as in pi). */
export function customMessage(entry: CustomMessageEntry): CustomMessage {
	return {
		role: "custom",
		customType: entry.customType,
		content: entry.content,
		display: entry.display,
		details: entry.details,
		timestamp: epochMs(entry.timestamp),
	};
}

/** The context message an entry contributes on its own, if any. */
export function entryMessage(entry: SessionEntry): ContextMessage | undefined {
	switch (entry.type) {
		case "message": {
			// A damaged message entry (leniently loaded) contributes nothing rather than `undefined`.
			const message = (entry as MessageEntry).message;
			return isObject(message) ? message : undefined;
		}
		case "custom_message":
			return customMessage(entry as CustomMessageEntry);
		case "branch_summary": {
			const summary = entry as BranchSummaryEntry;
			return summary.summary ? branchSummaryMessage(summary) : undefined;
		}
		default:
			return undefined;
	}
}

/** Settings a path sets: the thinking level, the model and the last compaction. */
export interface PathState {
	thinkingLevel: string;
	model: ContextModel | null;
	/** Index in the path of the last compaction, or -1. */
	compactionIndex: number;
}

/**
 * The settings that hold at the end of a path: the last thinking level change, the last model
 * (from a model change or an assistant message) and the last compaction. Scans backwards and
 * stops once all three are found, so a long path with recent settings costs little.
 */
export function pathState(path: readonly SessionEntry[]): PathState {
	let thinkingLevel: string | undefined;
	let model: ContextModel | null | undefined;
	let compactionIndex = -1;
	for (let i = path.length - 1; i >= 0; i--) {
		const entry = path[i] as SessionEntry;
		if (entry.type === "thinking_level_change") {
			if (thinkingLevel === undefined) thinkingLevel = (entry as ThinkingLevelChangeEntry).thinkingLevel;
		} else if (entry.type === "model_change") {
			const change = entry as ModelChangeEntry;
			if (model === undefined) model = { provider: change.provider, modelId: change.modelId };
		} else if (entry.type === "message") {
			const message = (entry as MessageEntry).message;
			if (model === undefined && isObject(message) && message.role === "assistant") {
				model = { provider: message.provider as string, modelId: message.model as string };
			}
		} else if (entry.type === "compaction") {
			if (compactionIndex < 0) compactionIndex = i;
		}
		if (thinkingLevel !== undefined && model !== undefined && compactionIndex >= 0) break;
	}
	return { thinkingLevel: thinkingLevel ?? "off", model: model ?? null, compactionIndex };
}

/**
 * Calls `visit` for each context message of a root-to-leaf path, in order, with the entry it
 * comes from. Without a compaction: every message, custom message and non-empty branch
 * summary. With compactions, the last one wins: its summary, then either its `retainedTail`
 * or the path entries from `firstKeptEntryId` up to the compaction, then everything after it.
 */
function visitContext(
	path: readonly SessionEntry[],
	compactionIndex: number,
	visit: (entry: SessionEntry, message: ContextMessage) => void,
): void {
	const each = (from: number, to: number) => {
		for (let i = from; i < to; i++) {
			const entry = path[i] as SessionEntry;
			const message = entryMessage(entry);
			if (message) visit(entry, message);
		}
	};
	if (compactionIndex < 0) {
		each(0, path.length);
		return;
	}
	const compaction = path[compactionIndex] as CompactionEntry;
	visit(compaction, compactionSummaryMessage(compaction));
	if (Array.isArray(compaction.retainedTail)) {
		for (const message of compaction.retainedTail) visit(compaction, message);
	} else {
		let first = -1;
		for (let i = 0; i < compactionIndex && first < 0; i++) {
			if ((path[i] as SessionEntry).id === compaction.firstKeptEntryId) first = i;
		}
		if (first >= 0) each(first, compactionIndex);
	}
	each(compactionIndex + 1, path.length);
}

/** The context messages of a root-to-leaf path, each with its source entry (see {@link buildSessionContext}). */
export function buildContextEntries(path: readonly SessionEntry[], state: PathState = pathState(path)): ContextEntry[] {
	const out: ContextEntry[] = [];
	visitContext(path, state.compactionIndex, (entry, message) => out.push({ entry, message }));
	return out;
}

/** What pi's `buildSessionContext` returns for a root-to-leaf path. */
export function buildSessionContext(path: readonly SessionEntry[]): SessionContext {
	const state = pathState(path);
	const messages: ContextMessage[] = [];
	visitContext(path, state.compactionIndex, (_entry, message) => messages.push(message));
	return { messages, thinkingLevel: state.thinkingLevel, model: state.model };
}

/**
 * The messages a compaction at the end of `path` would keep from `firstKeptEntryId` on: the
 * value to store as its `retainedTail` so that session-tree and pi build the same context.
 */
export function keptMessages(path: readonly SessionEntry[], firstKeptEntryId: string): ContextMessage[] {
	const start = path.findIndex((entry) => entry.id === firstKeptEntryId);
	if (start < 0) return [];
	const kept: ContextMessage[] = [];
	// Earlier compactions in this range are not messages; pi skips them too.
	for (let i = start; i < path.length; i++) {
		const message = entryMessage(path[i] as SessionEntry);
		if (message) kept.push(message);
	}
	return kept;
}
