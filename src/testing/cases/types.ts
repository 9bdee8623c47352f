/**
 * The shape of a conformance case: plain data that any test runner can run. A case names its
 * group and itself, may need a capability the backend declares, and checks with `node:assert`
 * only (it fails by throwing). src/testing/node-binding.ts runs cases with `node:test`; another
 * runner needs only a loop over the cases and a context (src/testing/contexts.ts makes both
 * contexts from a target).
 */

import type { RawRecord } from "../../core/records.js";
import type { SessionHeader } from "../../core/types.js";
import type { Session } from "../../session.js";
import type {
	CollectionCapabilities,
	SessionCollection,
	SessionListing,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
} from "../../storage/store.js";

/**
 * One check of a conformance suite, as data.
 * @typeParam Context - what the case is given to make and reach the backend's stores
 * @typeParam Need - the capabilities a case may need
 */
export interface ConformanceCase<Context, Need extends string> {
	/** The group it belongs to: a `describe` block under `node:test`. */
	readonly group: string;
	/** What it checks: the test's title. */
	readonly name: string;
	/**
	 * A capability the backend must declare for the case to apply. A runner asks the context
	 * ({@link CaseContext.lacks}) and skips the case, with the reason, when it is lacking.
	 */
	readonly needs?: Need;
	/** Runs the case against the backend; it fails by throwing (an `AssertionError` or the backend's error). */
	run(context: Context): Promise<void>;
}

/** What every context answers: whether the backend lacks a capability a case needs. */
export interface CaseContext<Need extends string> {
	/** Why a case needing `need` does not apply to this backend, or undefined when it does. */
	lacks(need: Need): Promise<string | undefined>;
}

/** The capabilities of {@link StoreCapabilities} a store case may need: its boolean ones. */
export type StoreNeed = "lazyBodies" | "tailReads" | "pathReads";

/** A new session made by {@link StoreCaseContext.created}. */
export interface CreatedSession {
	/** Its store (from the target's `newStore`). */
	store: SessionStore;
	/** The header it was created with. */
	header: SessionHeader;
	/** The position `create` returned. */
	position: StorePosition;
}

/** What a store case is given: stores of the backend under test, and checked reads of them. */
export interface StoreCaseContext extends CaseContext<StoreNeed> {
	/** How many writers write at once in the concurrency cases. */
	readonly writers: number;
	/** A string the store never issues as a position and refuses to read. */
	readonly malformedPosition: string;
	/** The records of a backup a `replace` named, header first, when the target can read backups. */
	readonly readBackup:
		| ((backup: string, store: SessionStore) => readonly object[] | Promise<readonly object[]>)
		| undefined;
	/** A store for a new session that does not exist yet. */
	fresh(): Promise<SessionStore>;
	/** Another store object for the session of `store` (never `store` itself). */
	same(store: SessionStore): Promise<SessionStore>;
	/** A new session, created with a fresh header. */
	created(): Promise<CreatedSession>;
	/** Every record of the session, envelopes read back; fails on a damaged line. */
	read(store: SessionStore, what?: string): Promise<RawRecord[]>;
	/** What follows `position`; fails when the position is stale. */
	since(store: SessionStore, position: StorePosition, what?: string): Promise<StoreRead>;
	/** The session of `store` opened through another store object. */
	reopen(store: SessionStore): Promise<Session>;
}

/** A case of the store suite. */
export type StoreCase = ConformanceCase<StoreCaseContext, StoreNeed>;

/**
 * What a collection case may need: a capability of {@link CollectionCapabilities}, or
 * `"otherCollection"`, a session outside the collection the target can make (its
 * `otherSession`).
 */
export type CollectionNeed = keyof CollectionCapabilities | "otherCollection";

/** What a collection case is given: collections of the backend under test and checked listings. */
export interface CollectionCaseContext extends CaseContext<CollectionNeed> {
	/**
	 * A collection to work in. Sessions it held before are not the case's: {@link listed}
	 * leaves them out, so a collection shared by every case (the memory collection is one per
	 * process) works as well as a fresh one.
	 */
	collection(): Promise<SessionCollection>;
	/**
	 * The sessions `collection` lists that it did not list when {@link collection} gave it,
	 * each checked (a location, a `Date`, a size) and listed once.
	 */
	listed(collection: SessionCollection): Promise<SessionListing[]>;
	/**
	 * A store of a session outside `collection` (another directory, database or schema), not
	 * created yet; undefined when the target makes none.
	 */
	otherSession(): Promise<SessionStore | undefined>;
}

/** A case of the collection suite. */
export type CollectionCase = ConformanceCase<CollectionCaseContext, CollectionNeed>;
