/**
 * The storage contract. The session facade talks only to this, so a database can sit behind
 * it as well as a file. A store keeps one session's records in order and never interprets
 * them (that is the core reducer's job); it only parses and encodes.
 *
 * Every operation is asynchronous; `append` may also complete at once (see
 * {@link SessionStore.append}). Writes are compare-and-append: the caller says at which
 * position it believes the stream ends; if others appended since, the store appends nothing
 * and hands back what they appended, the caller applies it and tries again. Positions are
 * opaque strings that only the store which issued them interprets. What a store can do beyond
 * the required operations is declared in {@link StoreCapabilities}, never guessed.
 *
 * docs/architecture.md maps each operation onto files and onto SQL; `session-tree/testing`
 * holds the conformance suite every store must pass.
 */

import type { LineSource } from "../core/lazy.js";
import type { ParsedLine, RawRecord } from "../core/records.js";
import type { SessionHeader } from "../core/types.js";

/**
 * A position in a session's record stream: everything before it has been read by whoever holds
 * it. Opaque: only the store object that issued it reads it (a byte offset and inode for a
 * file, a sequence number for a database).
 */
export type StorePosition = string;

/** How durable an acknowledged append is. See docs/durability.md. */
export type Durability =
	/** Written to the operating system; survives a crash of the process, not of the machine (pi's behaviour). */
	| "none"
	/** fsync after every append: survives a power loss once `append` resolves. */
	| "fsync"
	/** fsync once per group of appends (by count or age) and on flush/close. */
	| "group";

/** What a store can do beyond the required operations. */
export interface StoreCapabilities {
	/**
	 * `read` may return entries as envelopes (type, id, parent, timestamp, role) with a
	 * {@link StoreRead.source} that reads their bodies synchronously on first use.
	 */
	readonly lazyBodies: boolean;
	/** {@link SessionStore.readTail} is implemented: a resume may read only the end of the stream. */
	readonly tailReads: boolean;
	/**
	 * {@link SessionStore.readPath} is implemented: a resume may read only the active path, by
	 * index (a database walks the parent column from the leaf).
	 */
	readonly pathReads: boolean;
	/** The durability modes the store honours; others are refused when it is opened. */
	readonly durability: readonly Durability[];
}

/** Records read from a store and the position after them. */
export interface StoreRead {
	/** In stream order: parsed records, envelopes, or what was wrong with a line. */
	lines: ParsedLine[];
	/** Where the next read or append continues. */
	position: StorePosition;
	/**
	 * Reads the bodies of lines returned as envelopes (stores with `lazyBodies` only).
	 * @internal
	 */
	source?: LineSource;
}

/**
 * The header and some records of a session, in stream order: its last records
 * ({@link SessionStore.readTail}) or those on its active path ({@link SessionStore.readPath}).
 */
export interface TailRead {
	header: RawRecord;
	/** The records read, in stream order. */
	records: RawRecord[];
	/** True when the records are every record after the header: the whole session. */
	whole: boolean;
}

/**
 * What a compare-and-write did: `ok`, or nothing because the caller is `behind` (others
 * appended since its position: here is what, apply it and retry), or nothing because its
 * position is `stale` (the session was replaced since: read it whole again).
 */
export type WriteOutcome<Ok> = ({ status: "ok" } & Ok) | { status: "behind"; read: StoreRead } | { status: "stale" };

/** What {@link SessionStore.append} did. */
export type AppendOutcome = WriteOutcome<{ position: StorePosition }>;

/** A value now, or a promise of it: what an operation that may complete at once returns. */
export type Awaitable<T> = T | PromiseLike<T>;

/** True for a promise (or any thenable): the operation that returned it has not completed yet. */
export function isPending<T>(value: Awaitable<T>): value is PromiseLike<T> {
	return typeof (value as { then?: unknown } | null)?.then === "function";
}

/** What {@link SessionStore.replace} did; `backup` names where the old content is kept. */
export type ReplaceOutcome = WriteOutcome<{ position: StorePosition; backup: string }>;

/** Where the records of one session live. */
export interface SessionStore {
	/** Where the session is: a file path, `memory:NAME`, or a URL of the store's scheme. */
	readonly location: string;
	/**
	 * The one file on this machine that holds the session and nothing else (a JSONL session, an
	 * agent's transcript read in place), for what works on files (`Session.file`, an editor, a
	 * backup next to it); undefined for a store of another kind (memory, a database row).
	 */
	readonly file?: string;
	/** What this store can do beyond the required operations. */
	readonly capabilities: StoreCapabilities;
	/** True when the session exists (it has at least been created). */
	exists(): Promise<boolean>;
	/**
	 * Writes the first record (the header).
	 * @throws SessionTreeError FILE_EXISTS when the session exists
	 */
	create(header: SessionHeader): Promise<StorePosition>;
	/**
	 * Every record, in order, parsed (or with what is wrong with its line). An incomplete last
	 * line comes back marked `torn`. With `lazyBodies`, entries may come back as envelopes.
	 * @throws SessionTreeError FILE_NOT_FOUND when the session does not exist
	 */
	read(): Promise<StoreRead>;
	/** The complete records after `position`, or undefined when the position is stale (the session was replaced). */
	readSince(position: StorePosition): Promise<StoreRead | undefined>;
	/**
	 * Appends records at the end if the stream still ends at `expected`; never rewrites what is
	 * there. A file store first repairs an incomplete last line left by a crashed writer
	 * (keeping its bytes in a backup).
	 *
	 * A store that can append without waiting (the memory store, a file store while it holds
	 * its lock) may return the outcome itself instead of a promise, and may then throw instead
	 * of rejecting; the append is done when the call returns. That saves the session a promise
	 * and a turn of the microtask queue per write (docs/performance.md). A store that waits for
	 * anything returns a promise; one that always does is as correct. Callers `await` the
	 * result, or tell the two apart with {@link isPending}.
	 */
	append(records: readonly object[], expected: StorePosition): Awaitable<AppendOutcome>;
	/**
	 * A hint that `records` (this array, unchanged) are appended next: a store whose append does
	 * work of its own on the records before it waits for its server (PostgreSQL: their JSON
	 * lines and search words) may do it now, while an earlier append waits, and the append of
	 * the same array takes it. Writes and checks nothing: the append alone decides, and a
	 * record that cannot be stored is refused by it as without the hint. The promise never
	 * rejects. Optional; a batch writer (`copy`, `import`) gives the next batch while the last
	 * one is written.
	 */
	prepareAppend?(records: readonly object[]): Promise<void>;
	/**
	 * Replaces the whole session atomically with `records` if the stream still ends at
	 * `expected`, keeping the old content as a backup. Used only by explicit migrate and repair.
	 */
	replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome>;
	/**
	 * The header and the last `count` or so records of a current-version session, for a resume
	 * from the end (stores with `tailReads`). Undefined when that is not possible or not worth
	 * it: an older version, a line that does not parse, an incomplete last line, a small session.
	 */
	readTail?(count: number): Promise<TailRead | undefined>;
	/**
	 * The header and the records on the active path, for a resume that reads only what the
	 * context needs (stores with `pathReads`): start at the last record of the stream that has
	 * an `id` (an entry or a persisted-leaf record), follow `parentId` (a leaf record's
	 * `parentId` is its target) through at most `count` records, and return them in stream
	 * order. Undefined when that is not possible: a session of an older version, or one the
	 * store cannot walk (a record it could not index).
	 */
	readPath?(count: number): Promise<TailRead | undefined>;
	/**
	 * A store of the same kind and place for a new session (a fork or clone of this one), not
	 * created yet: a file beside this one, another name in the same memory space, another
	 * session in the same database.
	 */
	derive(header: SessionHeader): SessionStore;
	/** Makes every acknowledged append durable now (group commit). */
	flush(): Promise<void>;
	/** Flushes and releases what the store holds open. The store may be used again afterwards. */
	close(): Promise<void>;
}

/** One session of a {@link SessionCollection}. */
export interface SessionListing {
	/** Where to open it. */
	location: string;
	/** When it last changed, where the collection knows. */
	modified?: Date;
	/** Its size in bytes, where the collection knows. */
	bytes?: number;
}

/** What a collection can do beyond opening its sessions. */
export interface CollectionCapabilities {
	/** {@link SessionCollection.list} enumerates its sessions. */
	readonly listing: boolean;
	/**
	 * {@link SessionCollection.searchText} narrows a search with an index (full-text); else the
	 * catalog reads every session.
	 */
	readonly search: boolean;
	/** {@link SessionCollection.remove} deletes sessions (`prune`). */
	readonly remove: boolean;
}

/** Text to find in message text (see {@link SessionCollection.searchText}). */
export interface TextQuery {
	/** The text, matched as a substring by the catalog. */
	text: string;
	/** Letter case does not matter. */
	ignoreCase: boolean;
}

/** A place holding many sessions: a directory of files, a memory space, a database. */
export interface SessionCollection {
	readonly location: string;
	readonly capabilities: CollectionCapabilities;
	/** Every session it holds, in no particular order. */
	list(): AsyncIterable<SessionListing>;
	/** The store of one of its sessions (a location from {@link list}). */
	open(location: string): SessionStore;
	/**
	 * The store for a new session of this collection with this header, not created yet: a file
	 * named as pi names it in a directory, `memory:ID`, a database row keyed by the header's id.
	 * An id that would name a session outside the collection (`../x`, a path, a name too long
	 * for a file) is refused with INVALID_ARGUMENT, here or at `create`.
	 */
	sessionFor(header: SessionHeader): SessionStore;
	/**
	 * The locations of the sessions whose message text (the texts `searchableTexts` of the core
	 * gives) may hold `query`, found by the collection's index (collections with `search`): a
	 * superset of the sessions with a match where the index can tell, which the catalog then
	 * reads and matches exactly. Undefined when the index cannot narrow this query (too short,
	 * say): the catalog then reads every session.
	 */
	searchText?(query: TextQuery): Promise<string[] | undefined>;
	/**
	 * Deletes one of its sessions (collections with `remove`), atomically: the session is there
	 * whole or gone, for every store object of it. Used only by the explicit `prune`.
	 * @throws SessionTreeError FILE_NOT_FOUND for a session that does not exist (of removes of
	 *   one session at once, one succeeds), INVALID_ARGUMENT for a location of another collection
	 */
	remove?(location: string): Promise<void>;
	/** Releases what the collection holds open (connections). It may be used again afterwards. */
	close?(): Promise<void>;
}
