/**
 * Reading a chat's UIMessages off a session tree, for `session-tree/ai-sdk`
 * (src/adapters/ai-sdk.ts). Private to that adapter.
 *
 * A UIMessage is a run of entries (see ai-sdk-messages.ts): entries marked with its id, one
 * after the other, the last of them holding the UIMessage. A run is complete once an entry
 * holds the message; a continued answer (an assistant message that grew, same id) adds entries
 * to its run, the last holding the new version. The alternatives of a message are the runs
 * that start under the same entry: an edited question, a regenerated answer.
 */

import type { UIMessage } from "ai";
import type { ReadonlySessionTree } from "../core/tree.js";
import type { AgentMessage, SessionEntry } from "../core/types.js";
import { markOf } from "./ai-sdk-messages.js";

/** One UIMessage as stored: its run of entries. */
export interface Run {
	/** The UIMessage's id. */
	messageId: string;
	/** The run's first entry: its alternatives start under the same parent. */
	start: SessionEntry;
	/** The entry holding the message's latest version on this path. */
	end: SessionEntry;
	/** That version. */
	message: UIMessage;
	/** The pi messages of the run from its start to `end`. */
	pi: AgentMessage[];
}

/** The active path of a chat session: its entries and the UIMessages on it. */
export class ActivePath {
	/** The entries from the root to the leaf. */
	readonly entries: SessionEntry[];
	/** The complete runs on the path, in order: the chat as the framework sees it. */
	readonly runs: Run[];
	private readonly tree: ReadonlySessionTree;
	private readonly endIndex: number[] = [];

	constructor(tree: ReadonlySessionTree) {
		this.tree = tree;
		this.entries = tree.getBranch();
		this.runs = [];
		let open: { messageId: string; start: SessionEntry; pi: AgentMessage[]; done?: Run; doneAt?: number } | undefined;
		const close = () => {
			if (open?.done !== undefined && open.doneAt !== undefined) {
				this.runs.push(open.done);
				this.endIndex.push(open.doneAt);
			}
		};
		this.entries.forEach((entry, index) => {
			const mark = markOf(entry);
			if (!mark) return;
			if (open?.messageId !== mark.messageId) {
				close();
				open = { messageId: mark.messageId, start: entry, pi: [] };
			}
			if (entry.type === "message") open.pi.push(entry.message);
			if (mark.uiMessage) {
				open.done = {
					messageId: mark.messageId,
					start: open.start,
					end: entry,
					message: mark.uiMessage,
					pi: [...open.pi],
				};
				open.doneAt = index;
			}
		});
		close();
	}

	/**
	 * Where the message at position `i` of the chat hangs: the parent of run `i`'s first entry,
	 * or, past the last run, the last entry after it that belongs to no message (the leaf,
	 * unless the path ends in a run that was never completed). `null` is before the first entry.
	 */
	before(i: number): string | null {
		const run = this.runs[i];
		if (run) return this.tree.getParentId(run.start.id) ?? null;
		const last = this.endIndex[this.endIndex.length - 1];
		if (last === undefined) {
			const first = this.entries.find((entry) => markOf(entry) !== undefined);
			return first ? (this.tree.getParentId(first.id) ?? null) : this.tree.getLeafId();
		}
		let at = last;
		while (at + 1 < this.entries.length && markOf(this.entries[at + 1] as SessionEntry) === undefined) at++;
		return (this.entries[at] as SessionEntry).id;
	}

	/** True when the entry is on the path. */
	has(entryId: string): boolean {
		return this.entries.some((entry) => entry.id === entryId);
	}
}

/**
 * The run that starts at `start`, following its entries down (the newest child of the same
 * message at each step); undefined when no entry of it holds the message (an unfinished write).
 */
export function runFrom(tree: ReadonlySessionTree, start: SessionEntry): Run | undefined {
	const messageId = markOf(start)?.messageId;
	if (messageId === undefined) return undefined;
	const pi: AgentMessage[] = [];
	let found: Run | undefined;
	let entry: SessionEntry | undefined = start;
	while (entry) {
		const mark = markOf(entry);
		if (entry.type === "message") pi.push(entry.message);
		if (mark?.uiMessage) found = { messageId, start, end: entry, message: mark.uiMessage, pi: [...pi] };
		const next: SessionEntry[] = tree.getChildren(entry.id).filter((child) => markOf(child)?.messageId === messageId);
		entry = next[next.length - 1];
	}
	return found;
}

/** The complete runs that start under `parentId` (`null`: the roots), oldest first. */
export function runsUnder(tree: ReadonlySessionTree, parentId: string | null): Run[] {
	const parent = parentId === null ? undefined : tree.getEntry(parentId);
	// A child marked with the parent's own message id continues the parent's run: no alternative.
	const continuing = parent ? markOf(parent)?.messageId : undefined;
	const runs: Run[] = [];
	for (const child of tree.getChildren(parentId)) {
		const mark = markOf(child);
		if (!mark || mark.messageId === continuing) continue;
		const run = runFrom(tree, child);
		if (run) runs.push(run);
	}
	return runs;
}

/** The first entry of the run that `entry` belongs to. */
export function runStartOf(tree: ReadonlySessionTree, entry: SessionEntry): SessionEntry {
	const messageId = markOf(entry)?.messageId;
	let start = entry;
	for (;;) {
		const parentId = tree.getParentId(start.id);
		const parent = parentId ? tree.getEntry(parentId) : undefined;
		if (!parent || messageId === undefined || markOf(parent)?.messageId !== messageId) return start;
		start = parent;
	}
}

/**
 * The newest entry under `start` (itself included) that completes a message: the end of the
 * most recent path through it.
 */
export function newestEndUnder(tree: ReadonlySessionTree, start: SessionEntry): SessionEntry | undefined {
	const order = new Map<string, number>();
	for (const [index, entry] of tree.getEntries().entries()) order.set(entry.id, index);
	let best: SessionEntry | undefined;
	const stack: SessionEntry[] = [start];
	while (stack.length > 0) {
		const entry = stack.pop() as SessionEntry;
		if (markOf(entry)?.uiMessage && (!best || (order.get(entry.id) ?? -1) > (order.get(best.id) ?? -1))) best = entry;
		stack.push(...tree.getChildren(entry.id));
	}
	return best;
}

/**
 * The run `id` names: an entry of a run (a `ChatBranch.entryId`), else the message with
 * that id on the active path, else its newest version anywhere in the tree.
 */
export function findRun(tree: ReadonlySessionTree, path: ActivePath, id: string): Run | undefined {
	const entry = tree.getEntry(id);
	if (entry) {
		const start = runStartOf(tree, entry);
		const onPath = path.runs.find((run) => run.start.id === start.id);
		if (onPath) return onPath;
		const run = runFrom(tree, start);
		if (run) return run;
	}
	const onPath = path.runs.find((run) => run.messageId === id);
	if (onPath) return onPath;
	const entries = tree.getEntries();
	for (let at = entries.length - 1; at >= 0; at--) {
		const candidate = entries[at];
		if (!candidate) continue;
		const mark = markOf(candidate);
		if (mark?.messageId !== id || !mark.uiMessage) continue;
		const run = runFrom(tree, runStartOf(tree, candidate));
		if (run) return run;
	}
	return undefined;
}
