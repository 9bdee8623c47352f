/**
 * Records derived from a loaded tree: the copy of a path that a fork or clone writes into a
 * new session, and the whole-session rewrite that `migrate` and `repair` write in place.
 * Pure functions of the tree: the session facade writes what they return through its store.
 */

import * as make from "./entries.js";
import { isUnreadable } from "./lazy.js";
import type { SessionTree } from "./tree.js";
import type { SessionEntry, SessionHeader, SessionRecord } from "./types.js";

/** Makes an entry id that is neither in the tree being written nor in `taken`. */
export type IdMaker = (taken: (id: string) => boolean) => string;

/**
 * The records a fork at `fromId` writes after its header: the path from the root to `fromId`
 * without label entries and unreadable ones (the entries around a dropped one are re-chained,
 * and a compaction that kept from it keeps from the entry after it), then one label entry for each label
 * in effect on the path (as set, with its time), then, if the labels moved the leaf away from
 * the last copied entry, a persisted-leaf record back to it.
 */
export function forkRecords(tree: SessionTree, fromId: string, newId: IdMaker, now: string): SessionRecord[] {
	const copies = copyPathWithoutLabels(tree.getBranch(fromId));
	const records: SessionRecord[] = [...copies];
	const ids = new Set(copies.map((entry) => entry.id));
	const fresh = () => {
		const id = newId((candidate) => ids.has(candidate));
		ids.add(id);
		return id;
	};
	// Forking at a label entry forks at the nearest entry above it that was copied.
	const leafId = copies.at(-1)?.id ?? null;
	let parentId = leafId;
	for (const [targetId, state] of tree.getLabels()) {
		if (!ids.has(targetId)) continue;
		const label = make.labelEntry({ id: fresh(), parentId, timestamp: state.timestamp }, targetId, state.label);
		records.push(label);
		parentId = label.id;
	}
	if (parentId !== leafId) records.push(make.leafEntry({ id: fresh(), timestamp: now }, leafId));
	return records;
}

/**
 * What `migrate`, `repair` and `dropArchived` write: the header (current version) and every
 * readable entry in stream order, with parents as the tree resolved them (bridged gaps written
 * out; entries under an unreadable one moved up to its nearest readable ancestor), then a
 * persisted-leaf record when the leaf is not the last entry. Entries whose ids are in `omit`
 * are left out as unreadable ones are (`dropArchived` omits whole branches, which no kept entry
 * hangs under).
 */
export function rewriteRecords(
	tree: SessionTree,
	newId: IdMaker,
	now: string,
	omit?: ReadonlySet<string>,
): Array<SessionHeader | SessionRecord> {
	const left = (id: string): boolean => omit?.has(id) === true || isUnreadable(tree.getEntry(id));
	const kept = (id: string | null): string | null => {
		let at = id;
		while (at !== null && left(at)) at = tree.getParentId(at) ?? null;
		return at;
	};
	const leafId = kept(tree.getLeafId());
	const entries = tree
		.getEntries()
		.filter((entry) => omit?.has(entry.id) !== true && !isUnreadable(entry))
		.map((entry) => {
			const parentId = kept(tree.getParentId(entry.id) ?? null);
			return entry.parentId === parentId ? entry : { ...entry, parentId };
		});
	const records: Array<SessionHeader | SessionRecord> = [tree.header, ...entries];
	const lastId = entries.at(-1)?.id ?? null;
	if (leafId !== lastId) {
		const id = newId((candidate) => tree.has(candidate));
		records.push(make.leafEntry({ id, timestamp: now }, leafId));
	}
	return records;
}

/**
 * The path without its label entries and without entries a lenient read could not use (only
 * their envelope is known, see `isUnreadable`; a repair leaves them out too): the entries
 * around a dropped one are re-chained.
 */
function copyPathWithoutLabels(path: readonly SessionEntry[]): SessionEntry[] {
	const copies: SessionEntry[] = [];
	const dropped: string[] = [];
	const replacement = new Map<string, string>();
	let parentId: string | null = null;
	for (const entry of path) {
		if (entry.type === "label" || isUnreadable(entry)) {
			dropped.push(entry.id);
			continue;
		}
		for (const id of dropped.splice(0)) replacement.set(id, entry.id);
		let copy: SessionEntry = entry.parentId === parentId ? entry : { ...entry, parentId };
		if (copy.type === "compaction") {
			const firstKept = copy.firstKeptEntryId === undefined ? undefined : replacement.get(copy.firstKeptEntryId);
			if (firstKept !== undefined) copy = { ...copy, firstKeptEntryId: firstKept };
		}
		copies.push(copy);
		parentId = entry.id;
	}
	return copies;
}
