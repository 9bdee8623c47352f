/**
 * archive, unarchive and drop-archived: putting branches away (issue 27). {@link changeArchive}
 * does the work of the first two for both front ends: the REPL's commands of those names
 * (src/cli/repl/archive-commands.ts) call it and print in their own way.
 */

import { isArchiveRecord } from "../../core/archive.js";
import { sanitize } from "../../render/preview.js";
import type { Session } from "../../session.js";
import { type CommandHandler, requiredPositional } from "../args.js";
import { jsonLine } from "../json.js";
import { openSessionToWrite, resolveEntryId } from "../open.js";

/** What archive and unarchive did (the object their `--json` prints). */
export interface ArchiveResult {
	/** The entry that starts the branch (a full id). */
	id: string;
	/** Whether the branch is archived now. */
	archived: boolean;
	/** The archive record written, or null when the branch was in that state already (nothing written). */
	recordId: string | null;
	/** Entries of the branch (archive records not counted). */
	entries: number;
}

/**
 * Archives (or, with `archived` false, unarchives) the branch at entry `given` (an id or a
 * unique prefix of one).
 * @throws SessionTreeError INVALID_ARGUMENT when the branch holds the leaf, or (unarchive) the
 *   entry lies in a branch archived at an ancestor
 */
export async function changeArchive(session: Session, given: string, archived: boolean): Promise<ArchiveResult> {
	const id = resolveEntryId(session, given);
	const recordId = archived ? await session.archive(id) : await session.unarchive(id);
	const entries = session.flattenTree(id).filter((row) => !isArchiveRecord(row.entry)).length;
	return { id, archived, recordId: recordId ?? null, entries };
}

/** The line archive and unarchive print. */
export function archiveLine(result: ArchiveResult): string {
	const count = `${result.entries} ${result.entries === 1 ? "entry" : "entries"}`;
	if (result.recordId === null) {
		return `${result.id} is ${result.archived ? "archived already" : "not archived"}: nothing written`;
	}
	return `${result.archived ? "archived" : "unarchived"} ${result.id} (${count})`;
}

function archiveCommand(archived: boolean): CommandHandler {
	const name = archived ? "archive" : "unarchive";
	return {
		async run({ values, positionals, io }) {
			const session = await openSessionToWrite(requiredPositional(positionals, 0), io, name);
			try {
				const result = await changeArchive(session, requiredPositional(positionals, 1), archived);
				io.out(values.json ? jsonLine(result) : `${sanitize(archiveLine(result))}\n`);
			} finally {
				await session.close();
			}
		},
	};
}

/** Runs `session-tree archive`; its name, options and help are in its spec (src/cli/specs/archive.ts). */
export const archiveCommandHandler: CommandHandler = archiveCommand(true);

/** Runs `session-tree unarchive`; its name, options and help are in its spec (src/cli/specs/archive.ts). */
export const unarchiveCommandHandler: CommandHandler = archiveCommand(false);

/** What drop-archived did (the object its `--json` prints). */
export interface DropArchivedResult {
	/** Entries removed (archive records included). */
	dropped: number;
	/** Archived branches removed. */
	branches: number;
	/** Where the session as it was is kept, or null when nothing was archived (nothing written). */
	backup: string | null;
}

/** Runs `session-tree drop-archived`; its name, options and help are in its spec (src/cli/specs/archive.ts). */
export const dropArchivedCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "drop-archived");
		try {
			const before = session.entryCount;
			const branches = session.getArchived().size;
			const backup = await session.dropArchived();
			const result: DropArchivedResult = {
				dropped: before - session.entryCount,
				branches: backup === undefined ? 0 : branches,
				backup: backup ?? null,
			};
			if (values.json) io.out(jsonLine(result));
			else if (result.backup === null) io.out("nothing archived: nothing written\n");
			else {
				const what = `${result.branches} archived ${result.branches === 1 ? "branch" : "branches"}`;
				io.out(`dropped ${result.dropped} entries (${what})\nbackup: ${sanitize(result.backup)}\n`);
			}
		} finally {
			await session.close();
		}
	},
};
