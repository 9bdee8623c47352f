/**
 * What the suites are given (a target: how to get stores or collections of the kind under
 * test) and what their cases are given (a context made from a target). Runner-independent:
 * nothing here imports a test runner, so a binding for another runner reuses these as they are.
 */

import assert from "node:assert/strict";
import { Session } from "../session.js";
import type { SessionCollection, SessionListing, SessionStore, StoreCapabilities } from "../storage/store.js";
import type { CollectionCaseContext, CollectionNeed, StoreCaseContext, StoreNeed } from "./cases/types.js";
import { newHeader, recordsOf } from "./helpers.js";

/**
 * How the suite gets stores of the kind under test. Only {@link newStore} and
 * {@link sameSession} are required.
 *
 * @example A file store
 * ```ts
 * const dir = mkdtempSync(join(tmpdir(), "sessions-"));
 * let n = 0;
 * storeConformance("FileSessionStore", {
 *   newStore: () => new FileSessionStore(join(dir, `s${++n}.jsonl`)),
 *   sameSession: (store) => new FileSessionStore(store.location),
 *   readBackup: (backup) => readFileSync(backup, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)),
 *   cleanup: () => rmSync(dir, { recursive: true, force: true }),
 * });
 * ```
 *
 * @example A database store (one session per id, one connection pool per writer)
 * ```ts
 * let pools: Pool[] = [];
 * storeConformance("PostgresSessionStore", {
 *   setup: async () => { pools = [new Pool(config), new Pool(config)]; await migrate(pools[0]); },
 *   newStore: () => new PostgresSessionStore(pools[0], `postgres://test/${randomUUID()}`),
 *   sameSession: (store) => new PostgresSessionStore(pools[1], store.location),
 *   cleanup: async () => { await dropTestSessions(pools[0]); await Promise.all(pools.map((p) => p.end())); },
 * });
 * ```
 */
export interface ConformanceTarget {
	/**
	 * A store for a new session that does not exist yet: a different session on every call (a
	 * fresh file name, memory name, or session id in the database). The suite creates it.
	 */
	newStore(): SessionStore | Promise<SessionStore>;
	/**
	 * Another store object for the session of `store`, as a second writer or another process
	 * would open it: a new store on the same path, another connection to the same database row.
	 * Never `store` itself. `store` may come from {@link newStore}, from `sameSession`, or from
	 * `derive` (the copy of a fork), and its session may not exist yet.
	 */
	sameSession(store: SessionStore): SessionStore | Promise<SessionStore>;
	/**
	 * The records a backup holds, given the `backup` name a `replace` of `store` returned
	 * (header first). When given, the suite checks that a replace keeps the replaced records.
	 */
	readBackup?(backup: string, store: SessionStore): readonly object[] | Promise<readonly object[]>;
	/** Runs once before the suite's tests (connect, create a schema or a directory). */
	setup?(): void | Promise<void>;
	/** Runs once after them, whether they passed or not (remove files, drop data, close pools). */
	cleanup?(): void | Promise<void>;
	/** How many writers write at once in the concurrency tests. Default 4. */
	writers?: number;
	/** A string this store never issues as a position and refuses to read. Default `"not a position"`. */
	malformedPosition?: string;
	/** Time limit of each test in milliseconds. Default 60,000. */
	timeout?: number;
}

/**
 * How the collection suite gets collections of the kind under test. Only
 * {@link newCollection} is required.
 *
 * @example A directory of session files
 * ```ts
 * const root = mkdtempSync(join(tmpdir(), "collections-"));
 * collectionConformance("DirectoryCollection", {
 *   newCollection: () => new DirectoryCollection(mkdtempSync(join(root, "c-"))),
 *   otherSession: () => new FileSessionStore(join(mkdtempSync(join(root, "other-")), "elsewhere.jsonl")),
 *   cleanup: () => rmSync(root, { recursive: true, force: true }),
 * });
 * ```
 */
export interface CollectionConformanceTarget {
	/**
	 * A collection to work in: a fresh one (a new directory, database file or schema) where the
	 * kind allows, else the same one again (the memory collection holds every memory session of
	 * the process). Sessions already in it are left out of what the suite checks.
	 */
	newCollection(): SessionCollection | Promise<SessionCollection>;
	/**
	 * A store of a new session outside every collection {@link newCollection} gives: in another
	 * directory, database or schema of the same kind. When given, the suite checks that `remove`
	 * refuses it and leaves it alone.
	 */
	otherSession?(): SessionStore | Promise<SessionStore>;
	/** Runs once before the suite's tests. */
	setup?(): void | Promise<void>;
	/** Runs once after them, whether they passed or not. */
	cleanup?(): void | Promise<void>;
	/** Time limit of each test in milliseconds. Default 60,000. */
	timeout?: number;
}

/** A case's context for the store suite, from a target: what every store case is given. */
export function storeCaseContext(target: ConformanceTarget): StoreCaseContext {
	const fresh = async (): Promise<SessionStore> => target.newStore();
	const same = async (store: SessionStore): Promise<SessionStore> => {
		const other = await target.sameSession(store);
		assert.notEqual(other, store, "sameSession returns another store object");
		return other;
	};
	// Every store of a target declares the same capabilities (the first case checks it), so
	// one store, never created, tells what the cases may need.
	let declared: Promise<StoreCapabilities> | undefined;
	const capabilities = (): Promise<StoreCapabilities> => {
		declared ??= (async () => {
			const probe = await fresh();
			try {
				return probe.capabilities;
			} finally {
				await probe.close();
			}
		})();
		return declared;
	};
	return {
		writers: target.writers ?? 4,
		malformedPosition: target.malformedPosition ?? "not a position",
		readBackup: target.readBackup?.bind(target),
		fresh,
		same,
		async lacks(need: StoreNeed) {
			return (await capabilities())[need] ? undefined : `the store declares no ${need}`;
		},
		async created() {
			const store = await fresh();
			const header = newHeader();
			const position = await store.create(header);
			return { store, header, position };
		},
		async read(store, what = "read") {
			return recordsOf(await store.read(), store.capabilities, what);
		},
		async since(store, position, what = "readSince") {
			const got = await store.readSince(position);
			assert.ok(got, `${what}: a current position is not stale`);
			return got;
		},
		async reopen(store) {
			return Session.openStore(await same(store));
		},
	};
}

/** A case's context for the collection suite, from a target. */
export function collectionCaseContext(target: CollectionConformanceTarget): CollectionCaseContext {
	/** What each collection listed when it was handed to a case: not that case's sessions. */
	const before = new WeakMap<SessionCollection, ReadonlySet<string>>();
	const listing = async (collection: SessionCollection): Promise<SessionListing[]> => {
		assert.ok(collection.capabilities.listing, "the collection declares no listing");
		const all: SessionListing[] = [];
		for await (const item of collection.list()) all.push(item);
		return all;
	};
	let declared: Promise<SessionCollection> | undefined;
	return {
		async lacks(need: CollectionNeed) {
			if (need === "otherCollection") {
				return target.otherSession ? undefined : "the target makes no session outside the collection (otherSession)";
			}
			declared ??= Promise.resolve(target.newCollection());
			return (await declared).capabilities[need] ? undefined : `the collection declares no ${need}`;
		},
		async collection() {
			const collection = await target.newCollection();
			const seen = collection.capabilities.listing ? await listing(collection) : [];
			before.set(collection, new Set(seen.map((item) => item.location)));
			return collection;
		},
		async listed(collection) {
			const all = await listing(collection);
			const locations = all.map((item) => item.location);
			assert.equal(new Set(locations).size, locations.length, `a session listed twice: ${locations.join(", ")}`);
			const old = before.get(collection) ?? new Set<string>();
			const mine = all.filter((item) => !old.has(item.location));
			for (const item of mine) {
				assert.equal(typeof item.location, "string", "a listing's location");
				assert.notEqual(item.location, "", "a listing's location is not empty");
				if (item.modified !== undefined) {
					assert.ok(item.modified instanceof Date && !Number.isNaN(item.modified.getTime()), "modified is a Date");
				}
				if (item.bytes !== undefined) {
					assert.ok(Number.isSafeInteger(item.bytes) && item.bytes > 0, `bytes is a size: ${item.bytes}`);
				}
			}
			return mine;
		},
		async otherSession() {
			return target.otherSession?.();
		},
	};
}
