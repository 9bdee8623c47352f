/**
 * A store as a user of the library would write one, against the published types only: it
 * imports nothing but "session-tree". It keeps each session as JSON objects in a Map (rows of
 * a toy database, not lines of text), with positions `generation:count`, and reads a tail.
 * The conformance suite checks it in test/testing/user-store.test.ts.
 */

import {
	type AppendOutcome,
	type ParsedLine,
	type ReplaceOutcome,
	type SessionHeader,
	type SessionStore,
	SessionTreeError,
	type StoreCapabilities,
	type StorePosition,
	type StoreRead,
	type TailRead,
} from "session-tree";

/** A JSON object, as stored: a copy that no caller can change. */
type Row = Record<string, unknown>;

/** One session's rows and what replaced them. */
interface StoredSession {
	rows: Row[];
	/** Bumped by every replace: positions of an older generation are stale. */
	generation: number;
	backups: Map<string, Row[]>;
}

/** The toy database: sessions by name. Stores on the same database and name share a session. */
export class MapDatabase {
	readonly sessions = new Map<string, StoredSession>();

	/** The rows a backup holds (what a replace named), or undefined. */
	backup(name: string): Row[] | undefined {
		const hash = name.lastIndexOf("#");
		const session = this.sessions.get(name.slice("map:".length, hash));
		return session?.backups.get(name)?.map(copy);
	}
}

const CAPABILITIES: StoreCapabilities = Object.freeze({
	lazyBodies: false,
	tailReads: true,
	pathReads: false,
	durability: Object.freeze(["none"] as const),
});

/** A JSON copy: what a database row holds (undefined members are dropped, as in a file). */
function copy(record: object): Row {
	return JSON.parse(JSON.stringify(record)) as Row;
}

/** A session of a {@link MapDatabase}, as a {@link SessionStore}. */
export class MapSessionStore implements SessionStore {
	readonly location: string;
	readonly capabilities = CAPABILITIES;

	constructor(
		readonly database: MapDatabase,
		readonly name: string,
	) {
		this.location = `map:${name}`;
	}

	async exists(): Promise<boolean> {
		return this.database.sessions.has(this.name);
	}

	async create(header: SessionHeader): Promise<StorePosition> {
		if (this.database.sessions.has(this.name)) {
			throw new SessionTreeError("FILE_EXISTS", "the session already exists", { file: this.location });
		}
		const session: StoredSession = { rows: [copy(header)], generation: 0, backups: new Map() };
		this.database.sessions.set(this.name, session);
		return positionOf(session);
	}

	async read(): Promise<StoreRead> {
		const session = this.required();
		return { lines: linesOf(session.rows, 0), position: positionOf(session) };
	}

	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		const at = decode(position);
		const session = this.database.sessions.get(this.name);
		if (!session || at.generation !== session.generation || at.count > session.rows.length) return undefined;
		return { lines: linesOf(session.rows, at.count), position: positionOf(session) };
	}

	async readTail(count: number): Promise<TailRead | undefined> {
		const session = this.database.sessions.get(this.name);
		const header = session?.rows[0];
		if (!session || !header || header.version !== 3) return undefined;
		const from = Math.max(1, session.rows.length - count);
		return { header: copy(header), records: session.rows.slice(from).map(copy), whole: from === 1 };
	}

	async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		const at = decode(expected);
		const session = this.required();
		// Check and write in one synchronous step: no other writer runs in between.
		const behind = check(session, at);
		if (behind) return behind;
		session.rows.push(...records.map(copy));
		return { status: "ok", position: positionOf(session) };
	}

	async replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		const at = decode(expected);
		const session = this.required();
		const behind = check(session, at);
		if (behind) return behind;
		const backup = `${this.location}#${session.generation}`;
		session.backups.set(backup, session.rows);
		session.rows = records.map(copy);
		session.generation++;
		return { status: "ok", position: positionOf(session), backup };
	}

	derive(header: SessionHeader): MapSessionStore {
		return new MapSessionStore(this.database, header.id);
	}

	async flush(): Promise<void> {}

	async close(): Promise<void> {}

	private required(): StoredSession {
		const session = this.database.sessions.get(this.name);
		if (!session) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: this.location });
		return session;
	}
}

function positionOf(session: StoredSession): StorePosition {
	return `${session.generation}:${session.rows.length}`;
}

function decode(position: StorePosition): { generation: number; count: number } {
	const match = /^(\d+):(\d+)$/.exec(position);
	if (!match)
		throw new SessionTreeError("INVALID_ARGUMENT", `not a position of this store: ${JSON.stringify(position)}`);
	return { generation: Number(match[1]), count: Number(match[2]) };
}

/** Undefined when the session still ends at `at`; else what the writer is behind by, or stale. */
function check(
	session: StoredSession,
	at: { generation: number; count: number },
): Exclude<AppendOutcome, { status: "ok" }> | undefined {
	if (at.generation !== session.generation || at.count > session.rows.length) return { status: "stale" };
	if (at.count === session.rows.length) return undefined;
	return { status: "behind", read: { lines: linesOf(session.rows, at.count), position: positionOf(session) } };
}

/** Rows from `from` on as parsed lines, numbered by row. */
function linesOf(rows: readonly Row[], from: number): ParsedLine[] {
	return rows.slice(from).map((row, i) => ({ line: from + i + 1, record: copy(row) }));
}
