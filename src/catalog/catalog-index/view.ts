/** A stored session row as the index's API gives it ({@link IndexedSession}). */

import type { Agent } from "../agents.js";
import { flatten } from "../format.js";
import type { SessionRow } from "./tables.js";
import type { IndexedSession } from "./types.js";

export type { Agent } from "../agents.js";

/** What a session is called in a list: its name, else its first real prompt on one line, else its id. */
export function titleOf(name: string | null, firstMessage: string | null, id: string): string {
	return name ?? (firstMessage === null ? null : flatten(firstMessage)) ?? `Session ${id}`;
}

/** The {@link IndexedSession} of a row of a session that was read (not skipped). */
export function sessionOfRow(row: SessionRow): IndexedSession {
	const id = row.id ?? "";
	return {
		key: row.key,
		location: row.location,
		source: row.source,
		agent: row.agent as Agent | null,
		writable: row.writable === 1,
		id,
		cwd: row.cwd ?? "",
		name: row.name,
		firstMessage: row.first_message,
		title: titleOf(row.name, row.first_message, id),
		entries: row.entries ?? 0,
		branches: row.branches ?? 0,
		bytes: row.listed_bytes,
		modified: new Date(row.modified_ms ?? row.listed_ms),
		lastActivity: new Date(row.last_activity_ms ?? row.listed_ms),
		created: row.created_ms === null ? null : new Date(row.created_ms),
		leafId: row.leaf_id,
		parentSession: row.parent_session,
		warnings: row.warnings === null ? [] : (JSON.parse(row.warnings) as string[]),
	};
}
