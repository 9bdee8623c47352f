/**
 * The statements the index runs on its tables (schema.ts): a session's row and entries written
 * whole (a large one in parts, see refresh.ts) or appended to, and the rows read back.
 */

import type { SqliteDatabase, SqliteStatement } from "../../storage/sql/sqlite-schema.js";

/** A session's row as stored. */
export interface SessionRow {
	sid: number;
	key: string;
	location: string;
	source: string;
	agent: string | null;
	writable: number;
	listed_bytes: number;
	listed_ms: number;
	skipped: string | null;
	id: string | null;
	cwd: string | null;
	name: string | null;
	first_message: string | null;
	entries: number | null;
	branches: number | null;
	modified_ms: number | null;
	activity_ms: number | null;
	last_activity_ms: number | null;
	created_ms: number | null;
	leaf_id: string | null;
	parent_session: string | null;
	warnings: string | null;
	position: string | null;
	next_seq: number;
}

/** A session's row to write: every column but `sid`. */
export type NewSessionRow = Omit<SessionRow, "sid">;

/** One entry to store. */
export interface EntryRow {
	entryId: string;
	parentId: string | null;
	role: string;
	timestamp: string | null;
	/** The searchable texts (`searchableTexts`), or null for an entry with none. */
	texts: string[] | null;
}

const COLUMNS = [
	"key",
	"location",
	"source",
	"agent",
	"writable",
	"listed_bytes",
	"listed_ms",
	"skipped",
	"id",
	"cwd",
	"name",
	"first_message",
	"entries",
	"branches",
	"modified_ms",
	"activity_ms",
	"last_activity_ms",
	"created_ms",
	"leaf_id",
	"parent_session",
	"warnings",
	"position",
	"next_seq",
] as const;

/**
 * `listed_bytes` of a session whose entries are still being written, in several transactions
 * (a large session, see refresh.ts): a refresh that finds it so (the writer stopped midway)
 * reads the session whole again. Its `position` is then the writer's own token (a refresh
 * never reads on from it), which each later part checks: another process may have written
 * the session meanwhile, and SQLite may give the new row the same `sid`.
 */
export const UNFINISHED = -1;

/** The index's tables. */
export class IndexTables {
	private readonly insertSession: SqliteStatement<[NewSessionRow], never>;
	private readonly updateSession: SqliteStatement<[NewSessionRow & { sid: number; was: string }], never>;
	private readonly deleteSession: SqliteStatement<[number], never>;
	private readonly deleteText: SqliteStatement<[number], never>;
	private readonly deleteEntries: SqliteStatement<[number], never>;
	private readonly insertEntry: SqliteStatement<
		[number, number, string, string | null, string, string | null, string | null],
		never
	>;
	private readonly insertText: SqliteStatement<[number | bigint, string], never>;
	private readonly allRows: SqliteStatement<[], SessionRow>;
	private readonly links: SqliteStatement<[number], { entry_id: string; parent_id: string | null }>;
	private readonly sidOf: SqliteStatement<[string], { sid: number }>;
	private readonly unfinished: SqliteStatement<[number, string], { sid: number }>;
	private readonly finishSession: SqliteStatement<[NewSessionRow & { sid: number; token: string }], never>;

	constructor(readonly db: SqliteDatabase) {
		this.insertSession = db.prepare(
			`INSERT INTO sessions (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})`,
		);
		this.updateSession = db.prepare(
			`UPDATE sessions SET ${COLUMNS.map((c) => `${c} = @${c}`).join(", ")} WHERE sid = @sid AND position = @was`,
		);
		this.deleteSession = db.prepare("DELETE FROM sessions WHERE sid = ?");
		this.deleteText = db.prepare("DELETE FROM entry_text WHERE rowid IN (SELECT eid FROM entries WHERE sid = ?)");
		this.deleteEntries = db.prepare("DELETE FROM entries WHERE sid = ?");
		this.insertEntry = db.prepare(
			"INSERT INTO entries (sid, seq, entry_id, parent_id, role, timestamp, texts) VALUES (?, ?, ?, ?, ?, ?, ?)",
		);
		this.insertText = db.prepare("INSERT INTO entry_text (rowid, text) VALUES (?, ?)");
		this.allRows = db.prepare("SELECT * FROM sessions");
		this.links = db.prepare("SELECT entry_id, parent_id FROM entries WHERE sid = ?");
		this.sidOf = db.prepare("SELECT sid FROM sessions WHERE location = ?");
		this.unfinished = db.prepare(
			`SELECT sid FROM sessions WHERE sid = ? AND listed_bytes = ${UNFINISHED} AND position = ?`,
		);
		this.finishSession = db.prepare(
			`UPDATE sessions SET ${COLUMNS.map((c) => `${c} = @${c}`).join(", ")} WHERE sid = @sid AND listed_bytes = ${UNFINISHED} AND position = @token`,
		);
	}

	/** Every session row, by location. */
	rows(): Map<string, SessionRow> {
		return new Map(this.allRows.all().map((row) => [row.location, row]));
	}

	/** The entry ids of a session and the ids that are some entry's parent. */
	linksOf(sid: number): { ids: Set<string>; parents: Set<string> } {
		const ids = new Set<string>();
		const parents = new Set<string>();
		for (const row of this.links.iterate(sid)) {
			ids.add(row.entry_id);
			if (row.parent_id !== null) parents.add(row.parent_id);
		}
		return { ids, parents };
	}

	/**
	 * Runs writes in one transaction (taking the write lock at once). One transaction for many
	 * sessions makes a refresh several times faster: FTS5 writes an index segment per commit.
	 */
	batch(writes: () => void): void {
		this.db.transaction(writes).immediate();
	}

	/**
	 * Writes a session whole (call it in {@link batch}): its old row (by location: another
	 * process may have written it meanwhile) and entries go, the new ones come. Returns its sid.
	 */
	replace(row: NewSessionRow, entries: readonly EntryRow[]): number {
		const old = this.sidOf.get(row.location);
		if (old) this.drop(old.sid);
		const sid = Number(this.insertSession.run(row).lastInsertRowid);
		this.addEntries(sid, 0, entries);
		return sid;
	}

	/**
	 * Adds entries from `from` on to a session written in parts (call it in {@link batch}): one
	 * whose row {@link replace} wrote with `listed_bytes` {@link UNFINISHED} and `token` as its
	 * position. False, and nothing written, when the row is no longer that one (another process
	 * wrote the session since).
	 */
	extend(sid: number, token: string, from: number, entries: readonly EntryRow[]): boolean {
		if (!this.unfinished.get(sid, token)) return false;
		this.addEntries(sid, from, entries);
		return true;
	}

	/** {@link extend} with the session's last entries, and its row as it is to stay. */
	finish(sid: number, token: string, row: NewSessionRow, from: number, entries: readonly EntryRow[]): boolean {
		if (!this.extend(sid, token, from, entries)) return false;
		this.finishSession.run({ ...row, sid, token });
		return true;
	}

	/**
	 * Updates a session's row and adds entries after its last (call it in {@link batch}), if
	 * the row still ends at `was` (else another process appended them already: nothing is written).
	 */
	append(sid: number, was: string, row: NewSessionRow, entries: readonly EntryRow[]): void {
		if (this.updateSession.run({ ...row, sid, was }).changes === 0) return;
		this.addEntries(sid, row.next_seq - entries.length, entries);
	}

	/** Deletes sessions, their entries and their text. */
	remove(sids: readonly number[]): void {
		if (sids.length === 0) return;
		this.db
			.transaction(() => {
				for (const sid of sids) this.drop(sid);
			})
			.immediate();
	}

	private drop(sid: number): void {
		this.deleteText.run(sid);
		this.deleteEntries.run(sid);
		this.deleteSession.run(sid);
	}

	private addEntries(sid: number, from: number, entries: readonly EntryRow[]): void {
		entries.forEach((entry, i) => {
			const texts = entry.texts && entry.texts.length > 0 ? entry.texts : null;
			const eid = this.insertEntry.run(
				sid,
				from + i,
				entry.entryId,
				entry.parentId,
				entry.role,
				entry.timestamp,
				texts && JSON.stringify(texts),
			).lastInsertRowid;
			if (texts) this.insertText.run(eid, texts.join("\n"));
		});
	}
}
