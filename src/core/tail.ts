/**
 * Resuming from part of a session. When the active path reaches, close to the end of a file,
 * a compaction that carries both `retainedTail` and `retainedState`, nothing before that
 * compaction can change the context: the leaf's context is computed from the last lines alone,
 * and the cost of a resume follows the tail, not the file. A database reads the active path by
 * index instead of the last lines; the same walk decides. Pure: the store reads the records.
 */

import { isRetainedState } from "./context.js";
import type { RawRecord } from "./migrate.js";
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
 * then walks from the leaf the stream names towards the root and stops at the first
 * compaction with `retainedTail` and `retainedState`, or at the root: the path walked then
 * holds everything the context depends on.
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
	const path: SessionEntry[] = [];
	const walked = new Set<string>();
	// The compaction nearest the leaf decides the messages: if it keeps entries from the path
	// (pi's kind, no retainedTail), they must lie within what the walk covers.
	let firstKept: string | undefined;
	let nearestSeen = false;
	let node = tree.getNode(leafId);
	if (!node) return { kind: "more" };
	for (; node; node = node.parent) {
		const entry = node.entry;
		path.push(entry);
		walked.add(entry.id);
		if (entry.type === "compaction") {
			if (!nearestSeen && !Array.isArray(entry.retainedTail)) firstKept = entry.firstKeptEntryId;
			nearestSeen = true;
			if (Array.isArray(entry.retainedTail) && isRetainedState(entry.retainedState)) {
				if (firstKept !== undefined && !walked.has(firstKept)) return { kind: "no" };
				return { kind: "found", leafId, path: path.reverse() };
			}
		}
		if (!node.parent) {
			if (reducer.outside.has(node.id)) return { kind: "more" };
			// A root: the walk holds the whole path, and the context depends on nothing else.
			if (firstKept !== undefined && !walked.has(firstKept)) return { kind: "no" };
			return { kind: "found", leafId, path: path.reverse() };
		}
	}
	return { kind: "no" };
}
