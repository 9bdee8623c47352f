/**
 * Resuming from part of a session. When the end of the active path, close to the end of a
 * file, decides the context on its own (a compaction with its kept entries, the thinking level
 * and the model on it; or a compaction that carries `retainedTail` and `retainedState`),
 * nothing before it can change the context: the leaf's context is computed from the last
 * lines alone, and the cost of a resume follows the tail, not the file. A database reads the active path by
 * index instead of the last lines; the same walk decides. Pure: the store reads the records.
 */

import { contextStart, stepsOf } from "./context.js";
import type { RawRecord } from "./records.js";
import { SessionReducer } from "./reducer.js";
import type { SessionEntry, SessionHeader } from "./types.js";

/** What {@link resumeFromTail} found. */
export type TailResume =
	/** The path from such a compaction, or from the root, to the leaf (first entry first). */
	| { kind: "found"; leafId: string; path: SessionEntry[] }
	/** The walk left the lines given: try again with more of the file. */
	| { kind: "more" }
	/** The tail cannot decide (no such compaction on the path, or a line to look at closely). */
	| { kind: "no" };

/** A header for a window: the reducer needs one, and nothing in a window reads it. */
const WINDOW_HEADER: SessionHeader = { type: "session", version: 3, id: "window", timestamp: "", cwd: "" };

/**
 * Applies `records`, the last complete lines of a current-version file in file order (or the
 * records of the active path a database read by index), to a strict reducer in window mode,
 * then walks from the leaf the stream names towards the root. The walk is enough when it
 * reaches the root, or when the part it walked decides the context alone (see `contextStart`:
 * the last compaction and its kept range, the thinking level and the model all lie on it, or
 * a compaction's `retainedTail` and `retainedState` stand for what lies before it).
 */
export function resumeFromTail(records: readonly RawRecord[]): TailResume {
	if (records.length === 0) return { kind: "more" };
	const reducer = SessionReducer.fresh(WINDOW_HEADER, { window: true });
	let leafId: string | null;
	try {
		for (const record of records) reducer.applyRecord(record, 0);
		reducer.settle();
		leafId = reducer.streamLeaf().leafId;
	} catch {
		// Anything unusual is left to a full open, which reports it properly.
		return { kind: "no" };
	}
	const tree = reducer.tree;
	for (const id of reducer.leafRecords.keys()) if (tree.has(id)) return { kind: "no" };
	if (leafId === null) return { kind: "no" };
	// The path from the leaf up to the root or to the first entry whose parent is not in the records.
	const path: SessionEntry[] = [];
	let node = tree.getNode(leafId);
	if (!node) return { kind: "more" };
	let top = node;
	for (; node; node = node.parent) {
		path.push(node.entry);
		top = node;
	}
	path.reverse();
	// A root: the walk holds the whole path, and the context depends on nothing else.
	if (!reducer.outside.has(top.id)) return { kind: "found", leafId, path };
	// Cut from a longer path: enough only if the part walked decides the context on its own.
	const start = contextStart(stepsOf(path));
	if (start === undefined) return { kind: "more" };
	return { kind: "found", leafId, path: path.slice(start) };
}
