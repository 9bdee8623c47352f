/**
 * Reading a whole record stream at once: the {@link SessionReducer} applied to every line,
 * settled, with the leaf the stream names. What each record means is decided in
 * `reducer.ts`; this is the batch form the session and the tests use.
 */

import type { LineSource } from "./lazy.js";
import type { ParsedLine } from "./records.js";
import { type LoadProblem, SessionReducer } from "./reducer.js";
import type { SessionTree } from "./tree.js";

export type { ParsedLine } from "./records.js";
export type { LoadProblem } from "./reducer.js";

/** Options of {@link loadTree}. */
export interface LoadOptions {
	/** Keep going past problems and report them instead of throwing. Default false. */
	lenient?: boolean;
	/** Record problems after the header instead of throwing them (see `ReducerOptions.tolerant`). */
	tolerant?: boolean;
	/** The file name, for messages. */
	file?: string;
	/**
	 * Where the bodies of lines given as envelopes are read from.
	 * @internal
	 */
	source?: LineSource;
}

/** What {@link loadTree} returns. */
export interface LoadResult {
	tree: SessionTree;
	/** Problems worked around (lenient loads only; a strict load throws on the first). */
	problems: LoadProblem[];
	/** The version the file had; less than 3 when it was migrated in memory. */
	fromVersion: number;
	/** Id of the persisted-leaf record the leaf came from, if any. */
	leafRecordId: string | undefined;
	/** Every persisted-leaf record, id → target: new entries must not reuse these ids. */
	leafRecords: Map<string, string | null>;
	/** The reducer that read the stream: apply later lines to it to keep the state current. */
	reducer: SessionReducer;
}

/** Builds the tree of a session from its parsed lines (header first). */
export function loadTree(lines: readonly ParsedLine[], options: LoadOptions = {}): LoadResult {
	const reducer = new SessionReducer(options);
	reducer.applyLines(lines);
	return settleStream(reducer);
}

/** Settles a reducer that has read a whole stream and moves the tree's leaf where the stream says. */
export function settleStream(reducer: SessionReducer): LoadResult {
	const tree = reducer.tree;
	reducer.settle();
	const { leafId, leafRecordId } = reducer.streamLeaf();
	tree.setLeaf(leafId);
	return {
		tree,
		problems: reducer.problems,
		fromVersion: reducer.fromVersion,
		leafRecordId,
		leafRecords: reducer.leafRecords,
		reducer,
	};
}
