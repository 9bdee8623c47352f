/**
 * Building the model context from a root-to-leaf path, with exactly pi 0.73.1's rules
 * (`buildSessionContext`), plus session-tree's `retainedTail` on compactions.
 */

import {
	type BranchSummaryEntry,
	type BranchSummaryMessage,
	type CompactionEntry,
	type CompactionSummaryMessage,
	type ContextMessage,
	type ContextModel,
	type CustomMessage,
	type CustomMessageEntry,
	isAssistantMessage,
	type PathStep,
	type RetainedState,
	type SessionContext,
	type SessionEntry,
} from "./types.js";
import { isObject } from "./validate.js";

/** A context message and the entry it comes from (the compaction, for summary and retained tail). */
export interface ContextEntry {
	entry: SessionEntry;
	message: ContextMessage;
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
			// A damaged message entry (leniently loaded: no message, or no string role) contributes
			// nothing, as docs/durability.md promises.
			const message = entry.message;
			return isObject(message) && typeof message.role === "string" ? message : undefined;
		}
		case "custom_message":
			return customMessage(entry);
		case "branch_summary":
			return entry.summary ? branchSummaryMessage(entry) : undefined;
		default:
			return undefined;
	}
}

/** Parses the entries of many steps at once (one pass over the store instead of one read each). */
export type LoadSteps = (steps: readonly PathStep[]) => void;

/** Steps for a path of parsed entries. */
export function stepsOf(path: readonly SessionEntry[]): PathStep[] {
	return path.map((entry) => {
		const message = entry.type === "message" ? entry.message : undefined;
		const role = isObject(message) && typeof message.role === "string" ? message.role : undefined;
		return { id: entry.id, type: entry.type, role, entry };
	});
}

/** Settings a path sets: the thinking level, the model and the last compaction. */
export interface PathState {
	thinkingLevel: string;
	model: ContextModel | null;
	/** Index in the path of the last compaction, or -1. */
	compactionIndex: number;
	/**
	 * The index from which on the path decides all three (a thinking level, a model, a
	 * compaction), so that nothing before it matters to them; -1 when the path does not decide
	 * them all (the defaults hold, or the first compaction is still to come).
	 */
	decidedFrom: number;
}

/**
 * The settings that hold at the end of a path: the last thinking level change, the last model
 * (from a model change or an assistant message) and the last compaction. Scans backwards and
 * stops once all three are found, so a long path with recent settings costs little; only the
 * one assistant message that gives the model is parsed. A compaction with `retainedState`
 * gives what is still missing at that point (the values pi finds further back).
 */
export function pathState(path: readonly PathStep[]): PathState {
	let thinkingLevel: string | undefined;
	let model: ContextModel | null | undefined;
	let compactionIndex = -1;
	// `step.type` is the entry's type, known without parsing it; an entry is read (parsed) only
	// where the rules need it, and its own `type` then narrows it.
	for (let i = path.length - 1; i >= 0; i--) {
		const step = path[i];
		if (step === undefined) continue;
		const type = step.type;
		if (type === "message") {
			if (model === undefined && (step.role === undefined || step.role === "assistant")) {
				const entry = step.entry;
				const message = entry.type === "message" ? entry.message : undefined;
				if (isAssistantMessage(message)) model = { provider: message.provider, modelId: message.model };
			}
		} else if (type === "thinking_level_change") {
			const entry = thinkingLevel === undefined ? step.entry : undefined;
			if (entry?.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
		} else if (type === "model_change") {
			const change = step.entry;
			if (model === undefined && change.type === "model_change") {
				model = { provider: change.provider, modelId: change.modelId };
			}
		} else if (type === "compaction") {
			if (compactionIndex < 0) compactionIndex = i;
			const compaction = step.entry;
			const retained = compaction.type === "compaction" ? compaction.retainedState : undefined;
			if (isRetainedState(retained)) {
				if (thinkingLevel === undefined) thinkingLevel = retained.thinkingLevel;
				if (model === undefined) model = retained.model;
			}
		}
		if (thinkingLevel !== undefined && model !== undefined && compactionIndex >= 0) {
			return { thinkingLevel, model, compactionIndex, decidedFrom: i };
		}
	}
	return { thinkingLevel: thinkingLevel ?? "off", model: model ?? null, compactionIndex, decidedFrom: -1 };
}

/** A usable `retainedState`: a string thinking level and a model object or null. */
export function isRetainedState(value: unknown): value is RetainedState {
	if (!isObject(value) || typeof value.thinkingLevel !== "string") return false;
	const model = value.model;
	return model === null || (isObject(model) && typeof model.provider === "string" && typeof model.modelId === "string");
}

/** Entry types that can give a context message on their own. */
function givesMessage(type: string): boolean {
	return type === "message" || type === "custom_message" || type === "branch_summary";
}

/**
 * The index of the first path entry the context reads, given the path's {@link pathState}:
 * the decided settings, and the kept range of the last compaction (from its `firstKeptEntryId`,
 * unless it carries `retainedTail`). Undefined when the path does not decide its context alone:
 * the settings reach further back, or the kept range starts before the path (a path cut from
 * a longer one, as a resume reads it).
 */
export function contextStart(path: readonly PathStep[], state: PathState = pathState(path)): number | undefined {
	if (state.decidedFrom < 0) return undefined;
	const compaction = compactionAt(path, state.compactionIndex);
	if (!compaction || Array.isArray(compaction.retainedTail)) return state.decidedFrom;
	const first = contextRanges(path, state.compactionIndex)[0];
	if (!first || first[0] > state.compactionIndex) return undefined;
	return Math.min(first[0], state.decidedFrom);
}

/** The compaction at `index` of the path (the index {@link pathState} found), if any. */
function compactionAt(path: readonly PathStep[], index: number): CompactionEntry | undefined {
	const entry = index < 0 ? undefined : path[index]?.entry;
	return entry?.type === "compaction" ? entry : undefined;
}

/**
 * The index ranges of the path whose entries give the context messages: everything without a
 * compaction; with one, the kept range before it (unless it carries `retainedTail`) and what
 * follows it.
 */
function contextRanges(path: readonly PathStep[], compactionIndex: number): Array<[number, number]> {
	const compaction = compactionAt(path, compactionIndex);
	if (!compaction) return [[0, path.length]];
	const ranges: Array<[number, number]> = [];
	if (!Array.isArray(compaction.retainedTail)) {
		let first = -1;
		for (let i = 0; i < compactionIndex && first < 0; i++) {
			if (path[i]?.id === compaction.firstKeptEntryId) first = i;
		}
		if (first >= 0) ranges.push([first, compactionIndex]);
	}
	ranges.push([compactionIndex + 1, path.length]);
	return ranges;
}

/**
 * Calls `visit` for each context message of a root-to-leaf path, in order, with the entry it
 * comes from. Without a compaction: every message, custom message and non-empty branch
 * summary. With compactions, the last one wins: its summary, then either its `retainedTail`
 * or the path entries from `firstKeptEntryId` up to the compaction, then everything after it.
 */
function visitContext(
	path: readonly PathStep[],
	compactionIndex: number,
	visit: (entry: SessionEntry, message: ContextMessage) => void,
	load?: LoadSteps,
): void {
	const ranges = contextRanges(path, compactionIndex);
	const compaction = compactionAt(path, compactionIndex);
	if (compaction) {
		visit(compaction, compactionSummaryMessage(compaction));
		if (Array.isArray(compaction.retainedTail)) {
			for (const message of compaction.retainedTail) visit(compaction, message);
		}
	}
	// One pass; at the first step not parsed yet, every unparsed step still to come is parsed at once.
	let pending = load;
	for (const [r, [from, to]] of ranges.entries()) {
		for (let i = from; i < to; i++) {
			const step = path[i];
			if (step === undefined || !givesMessage(step.type)) continue;
			if (pending && step.loaded === false) {
				pending(unparsedFrom(path, ranges, r, i));
				pending = undefined;
			}
			const message = entryMessage(step.entry);
			if (message) visit(step.entry, message);
		}
	}
}

/** The steps giving messages, not parsed yet, from range `r` at index `at` (default: its start) on. */
function unparsedFrom(
	path: readonly PathStep[],
	ranges: ReadonlyArray<[number, number]>,
	r: number,
	at?: number,
): PathStep[] {
	const out: PathStep[] = [];
	for (const [k, [from, to]] of ranges.entries()) {
		if (k < r) continue;
		for (let i = k === r ? (at ?? from) : from; i < to; i++) {
			const step = path[i];
			if (step?.loaded === false && givesMessage(step.type)) out.push(step);
		}
	}
	return out;
}

/** Parses, in one `load`, every entry the context of `path` will read (and nothing else). */
export function loadContext(path: readonly PathStep[], load: LoadSteps): void {
	const ranges = contextRanges(path, pathState(path).compactionIndex);
	load(unparsedFrom(path, ranges, 0));
}

/**
 * The context messages of a root-to-leaf path, each with its source entry (see
 * {@link buildSessionContext}).
 */
export function buildContextEntries(path: readonly SessionEntry[]): ContextEntry[] {
	return contextEntriesOf(stepsOf(path));
}

/** {@link buildContextEntries} for path steps; `load` batches the parsing of their entries. */
export function contextEntriesOf(path: readonly PathStep[], load?: LoadSteps): ContextEntry[] {
	const out: ContextEntry[] = [];
	visitContext(path, pathState(path).compactionIndex, (entry, message) => out.push({ entry, message }), load);
	return out;
}

/** What pi's `buildSessionContext` returns for a root-to-leaf path. */
export function buildSessionContext(path: readonly SessionEntry[]): SessionContext {
	return sessionContextOf(stepsOf(path));
}

/** {@link buildSessionContext} for path steps; `load` batches the parsing of their entries. */
export function sessionContextOf(path: readonly PathStep[], load?: LoadSteps): SessionContext {
	const state = pathState(path);
	const messages: ContextMessage[] = [];
	visitContext(path, state.compactionIndex, (_entry, message) => messages.push(message), load);
	return { messages, thinkingLevel: state.thinkingLevel, model: state.model };
}

/**
 * The messages a compaction at the end of `path` would keep from `firstKeptEntryId` on: the
 * value to store as its `retainedTail` so that session-tree and pi build the same context.
 */
export function keptMessages(path: readonly PathStep[], firstKeptEntryId: string, load?: LoadSteps): ContextMessage[] {
	const start = path.findIndex((step) => step.id === firstKeptEntryId);
	if (start < 0) return [];
	const steps = path.slice(start).filter((step) => givesMessage(step.type));
	load?.(steps);
	const kept: ContextMessage[] = [];
	// Earlier compactions in this range are not messages; pi skips them too.
	for (const step of steps) {
		const message = entryMessage(step.entry);
		if (message) kept.push(message);
	}
	return kept;
}
