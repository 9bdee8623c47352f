/**
 * Carrying turns across (issue 27): what `pick` copies from one branch (or session) onto
 * another, in which order, and with what provenance. Pure and iterative: the facade
 * (`Session.pick`) resolves the ids, calls {@link planPick}, {@link pickRecords} and
 * {@link pickProblems}, and writes the records through its own appends, so that every store
 * takes a pick as it takes a fork's copies.
 *
 * The rules, and why:
 * - Only entries that give the model a message are picked: `message`, `custom_message` and
 *   `branch_summary`. Named alone, any other entry is refused (INVALID_ARGUMENT): a label, a
 *   model or thinking level change, a session name or extension state is bookkeeping of its own
 *   branch. A compaction is refused too: its summary stands for the whole context before it,
 *   and a copy would make the destination forget its own past (pi keeps nothing before a
 *   compaction whose `firstKeptEntryId` is not on the path). Inside a range those entries are
 *   skipped and reported, not refused: the range's messages are what was asked for.
 * - A tool call keeps its results: an assistant message with `toolCall` blocks brings the
 *   `toolResult` entries answering them, found below it in the source (the branch towards the
 *   source's leaf, or the range's end, or the result that was named, first), right after it.
 *   A result picked alone brings its call's assistant message and that message's other results
 *   (the turn a provider needs whole), unless the destination's context ends with that very call
 *   still waiting for its result: then the result alone answers it. Every source entry is copied
 *   once per pick, at its first place.
 * - The copies are new entries (fresh ids, parents chained from the attach point, the time of
 *   the pick); their bodies are the sources' own. One `custom` entry of type
 *   {@link PICK_CUSTOM_TYPE} goes first, under the attach point, naming the source session and
 *   each copy's source entry: pi's format keeps extension data in `custom` entries, which the
 *   model never sees, so the copies stay byte for byte what their sources say and pi reads the
 *   file unchanged. The leaf ends at the last copy.
 * - A pick whose copies would give a context a provider refuses (see `checkToolPairing`) is
 *   refused before anything is written: {@link pickProblems} lists what the pick would break.
 */

import { pathIds } from "./compare.js";
import { type ContextEntry, contextEntriesOf, type LoadSteps, stepsOf } from "./context.js";
import type { IdMaker } from "./copy.js";
import * as make from "./entries.js";
import { SessionTreeError } from "./errors.js";
import { isUnreadable } from "./lazy.js";
import { checkToolPairing, type ToolPairingProblem } from "./tool-pairing.js";
import type { ReadonlySessionTree } from "./tree.js";
import type { CustomEntry, PathStep, SessionEntry } from "./types.js";
import { isObject } from "./validate.js";

/** The `customType` of the entry that records where a pick's copies came from. */
export const PICK_CUSTOM_TYPE = "session-tree.pick";

/** One thing to pick, by full ids of the source: an entry, or the path from `from` down to `to`. */
export interface PickSelection {
	from: string;
	/** When given: the range from `from` (an ancestor of `to`, or `to` itself) down to `to`. */
	to?: string;
}

/**
 * Why an entry is copied: named (alone or in a range), brought as the call of a picked tool
 * result, or brought as a result of a picked tool call.
 */
export type PickReason = "picked" | "tool-call" | "tool-result";

/** One entry a pick copies, in the order of the copies. */
export interface PickSource {
	/** The entry of the source to copy. */
	sourceId: string;
	/** Why it is copied. */
	reason: PickReason;
}

/** An entry of a range that is not copied (not message-like). */
export interface PickSkipped {
	/** The entry's id in the source. */
	id: string;
	/** Its type (a label, a compaction, a model change, …). */
	type: string;
}

/** What {@link planPick} decides: the entries to copy in order, and what ranges skipped. */
export interface PickPlan {
	sources: PickSource[];
	skipped: PickSkipped[];
}

/** One copy a pick wrote: its new id, its source entry and why it was copied. */
export interface PickedCopy {
	/** The copy's new id. */
	id: string;
	/** The entry it copies. */
	sourceId: string;
	/** Why it was copied. */
	reason: PickReason;
}

/** The `data` of the {@link PICK_CUSTOM_TYPE} entry. */
export interface PickProvenance {
	/** The id (header) of the session the copies came from. */
	sourceSession: string;
	/** Each copy's new id and its source entry's id, in the order of the copies. */
	copies: Array<{ id: string; sourceId: string }>;
}

/** Entry types that give the model a message: the ones a pick copies. */
const PICKABLE = new Set(["message", "custom_message", "branch_summary"]);

/** Entry types that give no message and stand between a call and its results harmlessly. */
const PASSABLE = new Set(["label", "custom", "model_change", "thinking_level_change", "session_info"]);

/** The role of a message entry, if any. */
function roleOf(entry: SessionEntry): string | undefined {
	if (entry.type !== "message" || !isObject(entry.message)) return undefined;
	const role = entry.message.role;
	return typeof role === "string" ? role : undefined;
}

/** The ids of the tool calls of an assistant message pi sends (none for one that failed or was aborted). */
function callIdsOf(entry: SessionEntry): string[] {
	if (entry.type !== "message" || roleOf(entry) !== "assistant") return [];
	const message = entry.message as Record<string, unknown>;
	if (message.stopReason === "error" || message.stopReason === "aborted") return [];
	return madeCallIdsOf(entry);
}

/** The ids of the tool calls an assistant message holds, sent or not. */
function madeCallIdsOf(entry: SessionEntry): string[] {
	if (entry.type !== "message" || roleOf(entry) !== "assistant") return [];
	const content = (entry.message as Record<string, unknown>).content;
	if (!Array.isArray(content)) return [];
	const ids: string[] = [];
	for (const block of content) {
		if (isObject(block) && block.type === "toolCall" && typeof block.id === "string") ids.push(block.id);
	}
	return ids;
}

/** The call id a tool result answers, or undefined for any other entry. */
function answeredCallOf(entry: SessionEntry): string | undefined {
	if (roleOf(entry) !== "toolResult") return undefined;
	const id = (entry.type === "message" ? entry.message : undefined)?.toolCallId;
	return typeof id === "string" ? id : "";
}

function invalid(message: string): SessionTreeError {
	return new SessionTreeError("INVALID_ARGUMENT", `cannot pick: ${message} (nothing was written)`);
}

/** Why an entry is no message to pick, for a refusal naming it. */
function notPickable(entry: SessionEntry): string {
	if (entry.type === "compaction") {
		return (
			`entry ${entry.id} is a compaction: its summary stands for the whole context before it, which a copy ` +
			"would make the destination forget; pick the messages it kept instead"
		);
	}
	return `entry ${entry.id} is a ${entry.type} entry, not a message (only message, custom_message and branch_summary entries are picked)`;
}

/**
 * The ids from `from` down to `to` along the resolved parents, `from` first.
 * @throws SessionTreeError INVALID_ARGUMENT when `from` is not `to` or an ancestor of it
 */
function rangeIds(tree: ReadonlySessionTree, from: string, to: string): string[] {
	const path = pathIds(tree, to);
	const start = path.lastIndexOf(from);
	if (start < 0) throw invalid(`entry ${from} is not an ancestor of entry ${to}, so ${from}..${to} is no range`);
	return path.slice(start);
}

/** The ids from the root down to `id` (empty for null), as a set. */
function pathSet(tree: ReadonlySessionTree, id: string | null): Set<string> {
	return new Set(id === null ? [] : pathIds(tree, id));
}

/**
 * The results of `calls` found below entry `callId` in the source: from child to child, the
 * child towards `towards` first, else the first in file order that is a result of a call still
 * open or an entry that gives no message (a label, a model change, …); it stops at anything
 * else, or once every call is answered.
 */
function resultsBelow(
	tree: ReadonlySessionTree,
	callId: string,
	calls: readonly string[],
	towards: ReadonlySet<string>,
): string[] {
	const open = new Set(calls);
	const found: string[] = [];
	let at = callId;
	while (open.size > 0) {
		const children = tree.getChildren(at);
		const ordered = [
			...children.filter((child) => towards.has(child.id)),
			...children.filter((child) => !towards.has(child.id)),
		];
		const next = ordered.find((child) => {
			if (isUnreadable(child)) return false;
			const answered = answeredCallOf(child);
			return answered !== undefined ? open.has(answered) : PASSABLE.has(child.type);
		});
		if (!next) break;
		const answered = answeredCallOf(next);
		if (answered !== undefined) {
			open.delete(answered);
			found.push(next.id);
		}
		at = next.id;
	}
	return found;
}

/** The nearest ancestor of `resultId` that is an assistant message making the call `toolCallId`. */
function callAbove(tree: ReadonlySessionTree, resultId: string, toolCallId: string): string | undefined {
	const seen = new Set<string>([resultId]);
	for (let at = tree.getParentId(resultId); at !== null && at !== undefined && !seen.has(at); ) {
		seen.add(at);
		const entry = tree.getEntry(at);
		// A call pi does not send (its message failed) is found too: the check then says why its result cannot go.
		if (entry && !isUnreadable(entry) && madeCallIdsOf(entry).includes(toolCallId)) return at;
		at = tree.getParentId(at);
	}
	return undefined;
}

/** Options of {@link planPick}. */
export interface PlanPickOptions {
	/** The source's leaf: the branch whose results a picked call brings first (default: none). */
	sourceLeaf?: string | null;
	/**
	 * Tool call ids the destination's context waits for at the attach point (its pending calls):
	 * a picked result of one of them is copied alone, to answer it.
	 */
	pendingCalls?: ReadonlySet<string>;
}

/**
 * What a pick copies from `source`, in order (see the module comment for the rules).
 * @throws SessionTreeError INVALID_ARGUMENT for a named entry that is no message, a range whose
 *   start is not above its end, an unreadable entry, a tool result whose call is nowhere above it,
 *   or nothing to copy; ENTRY_NOT_FOUND for an id the source does not hold
 */
export function planPick(
	source: ReadonlySessionTree,
	selections: readonly PickSelection[],
	options: PlanPickOptions = {},
): PickPlan {
	if (selections.length === 0) throw invalid("no entry given");
	const sources: PickSource[] = [];
	const skipped: PickSkipped[] = [];
	const included = new Set<string>();
	const answeredPending = new Set<string>();
	const pending = options.pendingCalls ?? new Set<string>();
	const paths = new Map<string | null, Set<string>>();
	const towards = (id: string | null): Set<string> => {
		let path = paths.get(id);
		if (!path) {
			path = pathSet(source, id);
			paths.set(id, path);
		}
		return path;
	};
	const add = (sourceId: string, reason: PickReason) => {
		if (included.has(sourceId)) return;
		included.add(sourceId);
		sources.push({ sourceId, reason });
	};
	/** An assistant message and its results below it (towards `hint` first). */
	const addTurn = (callEntry: SessionEntry, reason: PickReason, hint: string | null, named?: string) => {
		add(callEntry.id, reason);
		const calls = callIdsOf(callEntry);
		if (calls.length === 0) return;
		for (const id of resultsBelow(source, callEntry.id, calls, towards(hint))) {
			add(id, id === named ? "picked" : "tool-result");
		}
	};
	for (const selection of selections) {
		for (const id of [selection.from, selection.to]) {
			if (id !== undefined && !source.has(id)) {
				throw new SessionTreeError("ENTRY_NOT_FOUND", `no entry with id ${id}`);
			}
		}
		const inRange = selection.to !== undefined;
		const ids = selection.to === undefined ? [selection.from] : rangeIds(source, selection.from, selection.to);
		const hint = selection.to ?? options.sourceLeaf ?? null;
		for (const id of ids) {
			if (included.has(id)) continue;
			const entry = source.getEntry(id);
			if (!entry || isUnreadable(entry)) throw invalid(`entry ${id} could not be read (the session is damaged)`);
			if (!PICKABLE.has(entry.type)) {
				if (!inRange) throw invalid(notPickable(entry));
				skipped.push({ id, type: entry.type });
				continue;
			}
			const answered = answeredCallOf(entry);
			if (answered === undefined) {
				addTurn(entry, "picked", hint);
				continue;
			}
			if (pending.has(answered) && !answeredPending.has(answered)) {
				// The destination waits for this very call: the result alone answers it.
				answeredPending.add(answered);
				add(id, "picked");
				continue;
			}
			const callId = callAbove(source, id, answered);
			if (callId === undefined) {
				throw invalid(
					`the tool result in entry ${id} answers tool call ${answered || "(none)"}, which no assistant message above it makes`,
				);
			}
			if (included.has(callId)) {
				// Its call is copied already, with the results of another branch: the check says what that gives.
				add(id, "picked");
				continue;
			}
			addTurn(source.getEntry(callId) as SessionEntry, "tool-call", id, id);
			// Not found below its call on the way to itself (a damaged chain): copied anyway, after it.
			add(id, "picked");
		}
	}
	if (sources.length === 0) {
		throw invalid(`no message to copy: the range holds only ${skipped.map((s) => s.type).join(", ")} entries`);
	}
	return { sources, skipped };
}

/** What {@link pickRecords} builds. */
export interface PickRecords {
	/** The provenance entry, then the copies, each the child of the one before. */
	records: [CustomEntry<PickProvenance>, ...SessionEntry[]];
	copies: PickedCopy[];
}

/**
 * The records a pick writes: the provenance entry under `attachId` (null: a new root), then
 * each source entry of the plan copied with a fresh id, chained under the one before, stamped
 * `now`. The copies' bodies are their sources' (a `branch_summary` keeps its `fromId`).
 */
export function pickRecords(
	source: ReadonlySessionTree,
	plan: PickPlan,
	attachId: string | null,
	newId: IdMaker,
	now: string,
): PickRecords {
	const ids = new Set<string>();
	const fresh = () => {
		const id = newId((candidate) => ids.has(candidate));
		ids.add(id);
		return id;
	};
	const provenanceId = fresh();
	const copies: PickedCopy[] = plan.sources.map(({ sourceId, reason }) => ({ id: fresh(), sourceId, reason }));
	const data: PickProvenance = {
		sourceSession: source.header.id,
		copies: copies.map(({ id, sourceId }) => ({ id, sourceId })),
	};
	const provenance = make.customEntry(
		{ id: provenanceId, parentId: attachId, timestamp: now },
		PICK_CUSTOM_TYPE,
		data,
	) as CustomEntry<PickProvenance>;
	const records: [CustomEntry<PickProvenance>, ...SessionEntry[]] = [provenance];
	let parentId = provenanceId;
	for (const copy of copies) {
		const entry = source.getEntry(copy.sourceId) as SessionEntry;
		records.push({ ...entry, id: copy.id, parentId, timestamp: now });
		parentId = copy.id;
	}
	return { records, copies };
}

/** A key telling one pairing problem from another. */
function problemKey(problem: ToolPairingProblem): string {
	return `${problem.code} ${problem.toolCallId} ${problem.entryIds.join(",")}`;
}

/** The tool calls the context of `path` waits for at its end (see `checkToolPairing`'s `pending`). */
export function pendingCallsOf(path: readonly PathStep[], load?: LoadSteps): Set<string> {
	return new Set(checkToolPairing(contextEntriesOf(path, load)).pending.map((p) => p.toolCallId));
}

/**
 * What a provider would refuse in the destination's context after the pick and not before:
 * the pairing problems of `path` (root to the attach point) followed by `records` that it did
 * not have already, and the calls of the copies left waiting for a result at the end. Each
 * problem's message names the copies by their source entries ("the copy of entry X").
 */
export function pickProblems(
	path: readonly PathStep[],
	records: readonly SessionEntry[],
	copies: readonly PickedCopy[],
	load?: LoadSteps,
): ToolPairingProblem[] {
	const before: ContextEntry[] = contextEntriesOf(path, load);
	const known = new Set(checkToolPairing(before).problems.map(problemKey));
	const after = checkToolPairing(contextEntriesOf([...path, ...stepsOf(records)], load));
	const copied = new Map(copies.map((copy) => [copy.id, copy.sourceId]));
	const found = [
		...after.problems.filter((problem) => !known.has(problemKey(problem))),
		...after.pending.filter((problem) => problem.entryIds.some((id) => copied.has(id))),
	];
	return found.map((problem) => ({ ...problem, message: nameSources(problemText(problem), copied) }));
}

/** A problem's message; a pending call left by the pick is one more way of a call without result. */
function problemText(problem: ToolPairingProblem): string {
	if (problem.code !== "TOOL_CALL_PENDING") return problem.message;
	const name = problem.toolName === undefined ? "" : ` (${problem.toolName})`;
	return `tool call ${problem.toolCallId}${name} in entry ${problem.callEntryId} would have no result (none was found below it in the source)`;
}

/** Replaces "entry ID" of a copy in `text` (checkToolPairing names entries so) by "the copy of entry SOURCE". */
function nameSources(text: string, copied: ReadonlyMap<string, string>): string {
	let out = text;
	for (const [id, sourceId] of copied) {
		out = out.replaceAll(`entry ${id}`, `the copy of entry ${sourceId}`);
	}
	return out;
}

/**
 * What a user's word names: an entry (an id, or a unique prefix of one), or `FROM..TO`, the
 * path from FROM down to TO. A word that is an id of the source is an id, even with `..` in it.
 * @param resolve the full id for an id or a unique prefix (throws ENTRY_NOT_FOUND, AMBIGUOUS_ID)
 */
export function parsePickSelection(
	word: string,
	has: (id: string) => boolean,
	resolve: (given: string) => string,
): PickSelection {
	if (has(word)) return { from: word };
	const dots = word.indexOf("..");
	if (dots < 0) return { from: resolve(word) };
	const from = word.slice(0, dots);
	const to = word.slice(dots + 2);
	if (from === "" || to === "") throw invalid(`${JSON.stringify(word)} is no range: write FROM..TO`);
	return { from: resolve(from), to: resolve(to) };
}
