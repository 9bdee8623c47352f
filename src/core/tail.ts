/**
 * Resuming from the end of a file. When the active path reaches, close to the end of the file,
 * a compaction that carries both `retainedTail` and `retainedState`, nothing before that
 * compaction can change the context: the leaf's context is computed from the last lines alone,
 * and the cost of a resume follows the tail, not the file. Pure: the store reads the lines.
 */

import { isRetainedState } from "./context.js";
import type { RawRecord } from "./migrate.js";
import type { CompactionEntry, SessionEntry } from "./types.js";
import { entryContentError, entryShapeError } from "./validate.js";

/** What {@link resumeFromTail} found. */
export type TailResume =
	/** The path from such a compaction to the leaf (compaction first). */
	| { kind: "found"; leafId: string; path: SessionEntry[] }
	/** The walk left the lines given: try again with more of the file. */
	| { kind: "more" }
	/** The tail cannot decide (no such compaction on the path, or a line to look at closely). */
	| { kind: "no" };

/**
 * Walks from the leaf (named by the last record) towards the root through `records`, the last
 * complete lines of a current-version file in file order, and stops at the first compaction
 * with `retainedTail` and `retainedState`.
 */
export function resumeFromTail(records: readonly RawRecord[]): TailResume {
	const byId = new Map<string, RawRecord>();
	const leafTargets = new Map<string, string | null>();
	for (const record of records) {
		// Anything unusual is left to a full open, which reports it properly.
		if (entryShapeError(record) || entryContentError(record)) return { kind: "no" };
		const id = record.id as string;
		if (byId.has(id) || leafTargets.has(id)) return { kind: "no" };
		if (record.type === "leaf") leafTargets.set(id, (record.targetId ?? null) as string | null);
		else byId.set(id, record);
	}
	const last = records[records.length - 1];
	if (!last) return { kind: "more" };
	let leafId: string | null = last.type === "leaf" ? ((last.targetId ?? null) as string | null) : (last.id as string);
	leafId = throughLeafRecords(leafId, leafTargets);
	if (leafId === null) return { kind: "no" };
	const path: RawRecord[] = [];
	const walked = new Set<string>();
	// The compaction nearest the leaf decides the messages: if it keeps entries from the path
	// (pi's kind, no retainedTail), they must lie within what the walk covers.
	let firstKept: string | undefined;
	let nearestSeen = false;
	let at: string | null = leafId;
	while (at !== null) {
		const record = byId.get(at);
		if (!record) return { kind: "more" };
		path.push(record);
		walked.add(at);
		if (record.type === "compaction") {
			const compaction = record as unknown as CompactionEntry;
			if (!nearestSeen && !Array.isArray(compaction.retainedTail)) firstKept = compaction.firstKeptEntryId;
			nearestSeen = true;
			if (Array.isArray(compaction.retainedTail) && isRetainedState(compaction.retainedState)) {
				if (firstKept !== undefined && !walked.has(firstKept)) return { kind: "no" };
				return { kind: "found", leafId, path: path.reverse() as unknown as SessionEntry[] };
			}
		}
		at = throughLeafRecords(record.parentId as string | null, leafTargets);
		if (path.length > byId.size) return { kind: "no" }; // a cycle
	}
	return { kind: "no" };
}

function throughLeafRecords(id: string | null, targets: ReadonlyMap<string, string | null>): string | null {
	let current = id;
	for (let hops = 0; current !== null && targets.has(current) && hops <= targets.size; hops++) {
		current = targets.get(current) ?? null;
	}
	return current;
}
