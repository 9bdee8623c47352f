/**
 * Stores and collections whose code loads on first use. `storeAt` is synchronous and every
 * command goes through it, but the database stores bring a driver and a few thousand lines
 * that a command on a JSONL file never needs: for their schemes `storeAt` hands out a
 * {@link LazyStore}, which declares the backend's capabilities at once and imports its module
 * when the first operation (always asynchronous) runs. After that it only forwards.
 */

import { SessionTreeError } from "../core/errors.js";
import type { SessionHeader } from "../core/types.js";
import type {
	AppendOutcome,
	CollectionCapabilities,
	ReplaceOutcome,
	SessionCollection,
	SessionListing,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
	TailRead,
	TextQuery,
} from "./store.js";

/** The factories a backend module provides (the shapes of `StoreFactory` and `CollectionFactory`). */
export interface BackendFactories {
	store(location: string, options: object): SessionStore;
	collection(location: string): SessionCollection;
}

/** A backend whose module is imported on first use, with what it declares up front. */
export interface LazyBackend {
	/**
	 * Checks a location and gives it in the form the backend's stores report (a relative path
	 * made absolute, say), without loading the backend.
	 * @throws SessionTreeError INVALID_ARGUMENT for a location the backend would refuse
	 */
	locate(location: string): string;
	/**
	 * The same for the location of a collection (a database, no session named).
	 * @throws SessionTreeError INVALID_ARGUMENT also for a location that names a session
	 */
	locateCollection(location: string): string;
	readonly capabilities: StoreCapabilities;
	readonly collectionCapabilities: CollectionCapabilities;
	load(): Promise<BackendFactories>;
}

/** The location of the session `id` in the database a session URL names (the part before `#`). */
function sibling(location: string, id: string): string {
	const hash = location.indexOf("#");
	return `${hash < 0 ? location : location.slice(0, hash)}#${id}`;
}

/** A {@link SessionStore} of a backend not loaded yet. */
export class LazyStore implements SessionStore {
	private inner: SessionStore | undefined;
	private loading: Promise<SessionStore> | undefined;
	private readonly given: string;

	constructor(
		location: string,
		private readonly options: object,
		private readonly backend: LazyBackend,
	) {
		this.given = backend.locate(location);
	}

	/** The canonical location; once loaded, the store's own (a store created without a name takes its header's id). */
	get location(): string {
		return this.inner?.location ?? this.given;
	}

	get capabilities(): StoreCapabilities {
		return this.backend.capabilities;
	}

	private store(): Promise<SessionStore> {
		if (this.inner) return Promise.resolve(this.inner);
		this.loading ??= this.backend.load().then((factories) => {
			this.inner = factories.store(this.given, this.options);
			return this.inner;
		});
		return this.loading;
	}

	async exists(): Promise<boolean> {
		return (await this.store()).exists();
	}
	async create(header: SessionHeader): Promise<StorePosition> {
		return (await this.store()).create(header);
	}
	async read(): Promise<StoreRead> {
		return (await this.store()).read();
	}
	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		return (await this.store()).readSince(position);
	}
	async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		return (await this.store()).append(records, expected);
	}
	async replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		return (await this.store()).replace(records, expected);
	}
	async prepareAppend(records: readonly object[]): Promise<void> {
		await (await this.store()).prepareAppend?.(records);
	}
	async readTail(count: number): Promise<TailRead | undefined> {
		return (await this.store()).readTail?.(count);
	}
	async readPath(count: number): Promise<TailRead | undefined> {
		return (await this.store()).readPath?.(count);
	}
	derive(header: SessionHeader): SessionStore {
		return this.inner
			? this.inner.derive(header)
			: new LazyStore(sibling(this.given, header.id), this.options, this.backend);
	}
	async flush(): Promise<void> {
		if (this.inner) await this.inner.flush();
	}
	async close(): Promise<void> {
		if (this.inner) await this.inner.close();
	}
}

/** A {@link SessionCollection} of a backend not loaded yet. */
export class LazyCollection implements SessionCollection {
	private inner: SessionCollection | undefined;
	private loading: Promise<SessionCollection> | undefined;
	private readonly given: string;

	constructor(
		location: string,
		private readonly backend: LazyBackend,
	) {
		this.given = backend.locateCollection(location);
	}

	get location(): string {
		return this.inner?.location ?? this.given;
	}

	get capabilities(): CollectionCapabilities {
		return this.backend.collectionCapabilities;
	}

	private collection(): Promise<SessionCollection> {
		if (this.inner) return Promise.resolve(this.inner);
		this.loading ??= this.backend.load().then((factories) => {
			this.inner = factories.collection(this.given);
			return this.inner;
		});
		return this.loading;
	}

	async *list(): AsyncIterable<SessionListing> {
		yield* (await this.collection()).list();
	}
	open(location: string): SessionStore {
		return this.inner ? this.inner.open(location) : new LazyStore(location, {}, this.backend);
	}
	sessionFor(header: SessionHeader): SessionStore {
		return this.inner ? this.inner.sessionFor(header) : new LazyStore(sibling(this.given, header.id), {}, this.backend);
	}
	async searchText(query: TextQuery): Promise<string[] | undefined> {
		return (await this.collection()).searchText?.(query);
	}
	async remove(location: string): Promise<void> {
		const collection = await this.collection();
		if (!collection.remove) {
			throw new SessionTreeError("INVALID_ARGUMENT", "this collection cannot remove sessions", { file: this.location });
		}
		await collection.remove(location);
	}
	async close(): Promise<void> {
		if (this.inner) await this.inner.close?.();
	}
}
