/**
 * Archive records: a branch put away without deleting it. An archive record is a `custom`
 * entry (pi ignores custom entries in the context) whose `customType` is
 * {@link ARCHIVE_CUSTOM_TYPE} and whose `data` is `{ targetId, archived }`; the last record
 * for a target decides, as the last label entry does for labels. The tree folds them into its
 * state (`SessionTree.getArchived`); views hide an archived branch (the target and its
 * descendants) and the records themselves unless asked for everything. Pure.
 *
 * The record hangs under its target (`parentId` is the target), so that it lies inside the
 * branch it archives: hidden with it, dropped with it by `dropArchived`, and never on the path
 * a fork copies. docs/format.md has the record and the leaf record that follows it.
 */

import type { EntryStamp } from "./entries.js";
import type { CustomEntry, SessionEntry } from "./types.js";

/** The `customType` of an archive record. */
export const ARCHIVE_CUSTOM_TYPE = "session-tree/archive";

/** The `data` of an archive record. */
export interface ArchiveChange {
	/** The first entry of the branch (the entry and its descendants). */
	readonly targetId: string;
	/** True: put the branch away; false: bring it back. */
	readonly archived: boolean;
}

/** A branch archived, and when. */
export interface ArchiveState {
	/** When the archive record in effect was written. */
	readonly timestamp: string;
}

/** What an archive record says, or undefined for any other entry (or an archive record without a string target). */
export function archiveChangeOf(entry: SessionEntry): ArchiveChange | undefined {
	if (entry.type !== "custom") return undefined;
	const custom = entry as CustomEntry;
	if (custom.customType !== ARCHIVE_CUSTOM_TYPE) return undefined;
	const data = custom.data as { targetId?: unknown; archived?: unknown } | null | undefined;
	if (typeof data !== "object" || data === null || typeof data.targetId !== "string") return undefined;
	return { targetId: data.targetId, archived: data.archived !== false };
}

/** True for an archive record (a `custom` entry of {@link ARCHIVE_CUSTOM_TYPE}), whatever its data. */
export function isArchiveRecord(entry: SessionEntry): boolean {
	return entry.type === "custom" && (entry as CustomEntry).customType === ARCHIVE_CUSTOM_TYPE;
}

/**
 * An archive record for `targetId`: a `custom` entry under the target (its `parentId` is
 * `targetId`, whatever `stamp.parentId` says), so that it lies inside the branch it names.
 */
export function archiveEntry(stamp: EntryStamp, targetId: string, archived: boolean): CustomEntry<ArchiveChange> {
	return {
		type: "custom",
		customType: ARCHIVE_CUSTOM_TYPE,
		data: { targetId, archived },
		id: stamp.id,
		parentId: targetId,
		timestamp: stamp.timestamp,
	};
}
