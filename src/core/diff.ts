/**
 * Two paths of a conversation side by side (issue 27, "compare"): where they part, then what
 * each holds after that, with the messages that correspond (an edited prompt and its original,
 * a regenerated answer and the first one) paired and their text compared word by word. What
 * `session-tree diff` prints and returns as JSON.
 *
 * - The two paths part after the last entry they share by id: two entries of one tree (their
 *   common ancestor), or a fork and its source (a fork keeps the ids of the path it copies).
 * - Only entries with text take part (messages, custom messages, compaction and branch
 *   summaries: the text a search matches, core/search-text.ts, and an answer's tool calls);
 *   labels, leaf records, model and thinking-level changes and custom data do not.
 * - Pairing is a longest common subsequence of the two sides' roles (tool results also by the
 *   tool's name), so `user, assistant` against `user, assistant` pairs prompt with prompt and
 *   answer with answer, and an extra tool round on one side stays unpaired.
 * - Words are compared by a longest common subsequence of tokens (words, runs of white space,
 *   single other characters) after the common start and end are set aside; a middle too large
 *   for that ({@link MAX_CELLS}) is shown as removed then added.
 *
 * Pure and iterative: no depth or length overflows the stack.
 */

import { searchableTexts } from "./search-text.js";
import type { SessionEntry } from "./types.js";
import { isObject } from "./validate.js";

/** One entry of a side: its id, role (or entry type) and the text compared. */
export interface DiffEntry {
	id: string;
	role: string;
	text: string;
}

/** A piece of a word diff: kept, removed (only in A) or added (only in B). */
export interface WordChange {
	op: "same" | "removed" | "added";
	text: string;
}

/** One row of a diff, in the order of the two sides. */
export type DiffRow =
	| { kind: "same"; a: DiffEntry; b: DiffEntry }
	| { kind: "changed"; a: DiffEntry; b: DiffEntry; words: WordChange[] }
	| { kind: "only-a"; a: DiffEntry }
	| { kind: "only-b"; b: DiffEntry };

/** Two paths compared (see the module comment). */
export interface PathDiff {
	/** The last entry both paths hold; null when they share none. */
	ancestorId: string | null;
	/** Entries of the first path after the ancestor (every entry, with text or not). */
	afterA: number;
	/** Entries of the second path after the ancestor. */
	afterB: number;
	rows: DiffRow[];
}

/** Cells of a longest-common-subsequence table past which a middle is not aligned. */
export const MAX_CELLS = 4_000_000;

/** An assistant message's tool calls, one line each: `name {arguments}`. */
function toolCallLines(entry: SessionEntry): string[] {
	if (entry.type !== "message") return [];
	const content = (entry.message as { content?: unknown }).content;
	if (!Array.isArray(content)) return [];
	return content.flatMap((block) =>
		isObject(block) && block.type === "toolCall"
			? [`${String(block.name)} ${JSON.stringify(block.arguments ?? {})}`]
			: [],
	);
}

/** The entry as a diff compares it (its searched text and its tool calls); undefined for one without text. */
function diffEntry(entry: SessionEntry): DiffEntry | undefined {
	const found = searchableTexts(entry);
	if (found === undefined) return undefined;
	return { id: entry.id, role: found.role, text: [...found.texts, ...toolCallLines(entry)].join("\n") };
}

/** What must match for two entries to be paired: the role, and a tool result's tool. */
function pairKey(entry: SessionEntry, role: string): string {
	if (entry.type === "message" && role === "toolResult") {
		const message = entry.message as { toolName?: unknown };
		return `toolResult:${String(message.toolName)}`;
	}
	return role;
}

/**
 * Index pairs of a longest common subsequence of `a` and `b` under `same`, in order. Tables
 * larger than {@link MAX_CELLS} are not built: no pairs then.
 */
function commonSubsequence<T>(
	a: readonly T[],
	b: readonly T[],
	same: (x: T, y: T) => boolean,
): Array<[number, number]> {
	const n = a.length;
	const m = b.length;
	if (n === 0 || m === 0 || n * m > MAX_CELLS) return [];
	// lengths[i][j]: the LCS of a[i..] and b[j..], one flat row-major table.
	const width = m + 1;
	const lengths = new Uint32Array((n + 1) * width);
	for (let i = n - 1; i >= 0; i--)
		for (let j = m - 1; j >= 0; j--)
			lengths[i * width + j] = same(a[i] as T, b[j] as T)
				? (lengths[(i + 1) * width + j + 1] as number) + 1
				: Math.max(lengths[(i + 1) * width + j] as number, lengths[i * width + j + 1] as number);
	const pairs: Array<[number, number]> = [];
	let i = 0;
	let j = 0;
	while (i < n && j < m) {
		if (same(a[i] as T, b[j] as T)) {
			pairs.push([i, j]);
			i++;
			j++;
		} else if ((lengths[(i + 1) * width + j] as number) >= (lengths[i * width + j + 1] as number)) i++;
		else j++;
	}
	return pairs;
}

/** Words, runs of white space and single other characters: the units a word diff keeps or changes. */
function tokens(text: string): string[] {
	return text.match(/\s+|[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/** Appends a change, joined to the last one when of the same kind. */
function push(changes: WordChange[], op: WordChange["op"], text: string): void {
	if (text === "") return;
	const last = changes.at(-1);
	if (last?.op === op) last.text += text;
	else changes.push({ op, text });
}

/** The word diff of two texts (see the module comment). */
export function diffWords(a: string, b: string): WordChange[] {
	const left = tokens(a);
	const right = tokens(b);
	let start = 0;
	while (start < left.length && start < right.length && left[start] === right[start]) start++;
	let endA = left.length;
	let endB = right.length;
	while (endA > start && endB > start && left[endA - 1] === right[endB - 1]) {
		endA--;
		endB--;
	}
	const changes: WordChange[] = [];
	push(changes, "same", left.slice(0, start).join(""));
	const middleA = left.slice(start, endA);
	const middleB = right.slice(start, endB);
	let i = 0;
	let j = 0;
	for (const [pi, pj] of commonSubsequence(middleA, middleB, (x, y) => x === y)) {
		push(changes, "removed", middleA.slice(i, pi).join(""));
		push(changes, "added", middleB.slice(j, pj).join(""));
		push(changes, "same", middleA[pi] as string);
		i = pi + 1;
		j = pj + 1;
	}
	push(changes, "removed", middleA.slice(i).join(""));
	push(changes, "added", middleB.slice(j).join(""));
	push(changes, "same", left.slice(endA).join(""));
	return joinRuns(changes);
}

/**
 * Changes separated only by white space made one: `[-Add a polyfill-]{+Require Node 20+}`
 * rather than a removal and an addition for each word with the spaces kept between them.
 */
function joinRuns(changes: readonly WordChange[]): WordChange[] {
	const out: WordChange[] = [];
	let removed = "";
	let added = "";
	let inRun = false;
	const flush = () => {
		push(out, "removed", removed);
		push(out, "added", added);
		removed = "";
		added = "";
		inRun = false;
	};
	for (let k = 0; k < changes.length; k++) {
		const change = changes[k] as WordChange;
		if (change.op === "removed") {
			removed += change.text;
			inRun = true;
		} else if (change.op === "added") {
			added += change.text;
			inRun = true;
		} else if (inRun && /^\s+$/.test(change.text) && k + 1 < changes.length) {
			// White space between two changes belongs to both sides of the run.
			removed += change.text;
			added += change.text;
		} else {
			if (inRun) flush();
			push(out, "same", change.text);
		}
	}
	if (inRun) flush();
	return out;
}

/** The rows of two sides: paired by role, unpaired ones where they fall. */
export function diffSides(sideA: readonly SessionEntry[], sideB: readonly SessionEntry[]): DiffRow[] {
	const a = sideA.flatMap((entry) => {
		const found = diffEntry(entry);
		return found ? [{ entry: found, key: pairKey(entry, found.role) }] : [];
	});
	const b = sideB.flatMap((entry) => {
		const found = diffEntry(entry);
		return found ? [{ entry: found, key: pairKey(entry, found.role) }] : [];
	});
	const rows: DiffRow[] = [];
	let i = 0;
	let j = 0;
	const pairs = commonSubsequence(a, b, (x, y) => x.key === y.key);
	// Too many to align: pair them in order while the keys agree.
	if (pairs.length === 0 && a.length * b.length > MAX_CELLS)
		for (let k = 0; k < Math.min(a.length, b.length) && a[k]?.key === b[k]?.key; k++) pairs.push([k, k]);
	for (const [pi, pj] of pairs) {
		while (i < pi) rows.push({ kind: "only-a", a: (a[i++] as { entry: DiffEntry }).entry });
		while (j < pj) rows.push({ kind: "only-b", b: (b[j++] as { entry: DiffEntry }).entry });
		const left = (a[i++] as { entry: DiffEntry }).entry;
		const right = (b[j++] as { entry: DiffEntry }).entry;
		rows.push(
			left.text === right.text
				? { kind: "same", a: left, b: right }
				: { kind: "changed", a: left, b: right, words: diffWords(left.text, right.text) },
		);
	}
	while (i < a.length) rows.push({ kind: "only-a", a: (a[i++] as { entry: DiffEntry }).entry });
	while (j < b.length) rows.push({ kind: "only-b", b: (b[j++] as { entry: DiffEntry }).entry });
	return rows;
}

/**
 * Two paths, each from its root down (as `getBranch` returns them), compared: they part after
 * the last entry they share by id.
 */
export function diffPaths(pathA: readonly SessionEntry[], pathB: readonly SessionEntry[]): PathDiff {
	let shared = 0;
	while (shared < pathA.length && shared < pathB.length && pathA[shared]?.id === pathB[shared]?.id) shared++;
	const sideA = pathA.slice(shared);
	const sideB = pathB.slice(shared);
	return {
		ancestorId: shared === 0 ? null : (pathA[shared - 1] as SessionEntry).id,
		afterA: sideA.length,
		afterB: sideB.length,
		rows: diffSides(sideA, sideB),
	};
}
