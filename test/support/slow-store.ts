/**
 * A store that wraps another and waits a random while before and after each operation, so
 * that operations started in one order complete in another. The wrapped operation itself runs
 * as it is, atomically: only the moments it starts and its answer arrives move. Derived stores
 * are slow too. Delays come from a seeded generator, so a failing run can be repeated.
 * {@link SlowCollection} does the same for a collection, and its sessions' stores are slow.
 */

import type {
	AppendOutcome,
	Awaitable,
	CollectionCapabilities,
	ReplaceOutcome,
	SessionCollection,
	SessionHeader,
	SessionListing,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
	TailRead,
	TextQuery,
} from "../../src/index.js";
import { mulberry32 } from "./random.js";

/** Options of {@link SlowStore}. */
export interface SlowStoreOptions {
	/** The longest wait, before and after, in milliseconds. Default 3. */
	maxDelayMs?: number;
	/** Seeds the delays. Default: a fresh one; read it back from {@link SlowStore.seed}. */
	seed?: number;
}

/** Seeded random waits around operations: what makes a slow store or collection slow. */
class Delays {
	readonly seed: number;
	private readonly random: () => number;
	private readonly maxDelayMs: number;

	constructor(options: SlowStoreOptions) {
		this.seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
		this.random = mulberry32(this.seed);
		this.maxDelayMs = options.maxDelayMs ?? 3;
	}

	/** Options for another slow object: the same longest wait, a seed drawn from this one's. */
	next(): SlowStoreOptions {
		return { maxDelayMs: this.maxDelayMs, seed: Math.floor(this.random() * 2 ** 32) };
	}

	/** Waits, runs `operation` (unchanged), waits again, answers. */
	async slowly<T>(operation: () => Awaitable<T>): Promise<T> {
		await this.pause();
		let result: T;
		try {
			result = await operation();
		} catch (error) {
			await this.pause();
			throw error;
		}
		await this.pause();
		return result;
	}

	/** A random wait: often none at all (a microtask), else up to the longest delay. */
	private pause(): Promise<void> {
		const roll = this.random();
		if (roll < 0.25) return Promise.resolve();
		if (roll < 0.4) return new Promise((done) => setImmediate(done));
		return new Promise((done) => setTimeout(done, Math.floor(this.random() * (this.maxDelayMs + 1))));
	}
}

/** A {@link SessionStore} that answers late, in random order; see the module comment. */
export class SlowStore implements SessionStore {
	readonly readTail?: (count: number) => Promise<TailRead | undefined>;
	private readonly delays: Delays;

	constructor(
		readonly inner: SessionStore,
		options: SlowStoreOptions = {},
	) {
		this.delays = new Delays(options);
		const readTail = inner.readTail?.bind(inner);
		if (readTail) this.readTail = (count) => this.slowly(() => readTail(count));
	}

	/** The seed of its waits. */
	get seed(): number {
		return this.delays.seed;
	}

	get location(): string {
		return this.inner.location;
	}

	get capabilities(): StoreCapabilities {
		return this.inner.capabilities;
	}

	exists(): Promise<boolean> {
		return this.slowly(() => this.inner.exists());
	}

	create(header: SessionHeader): Promise<StorePosition> {
		return this.slowly(() => this.inner.create(header));
	}

	read(): Promise<StoreRead> {
		return this.slowly(() => this.inner.read());
	}

	readSince(position: StorePosition): Promise<StoreRead | undefined> {
		return this.slowly(() => this.inner.readSince(position));
	}

	append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		return this.slowly(() => this.inner.append(records, expected));
	}

	replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		return this.slowly(() => this.inner.replace(records, expected));
	}

	derive(header: SessionHeader): SlowStore {
		return new SlowStore(this.inner.derive(header), this.delays.next());
	}

	/** Another slow store object around `inner` (for a second writer of the same session). */
	sibling(inner: SessionStore): SlowStore {
		return new SlowStore(inner, this.delays.next());
	}

	flush(): Promise<void> {
		return this.slowly(() => this.inner.flush());
	}

	close(): Promise<void> {
		return this.slowly(() => this.inner.close());
	}

	private slowly<T>(operation: () => Awaitable<T>): Promise<T> {
		return this.delays.slowly(operation);
	}
}

/**
 * A {@link SessionCollection} that wraps another as {@link SlowStore} wraps a store: each
 * operation (and each listed session) answers late, the stores it gives are slow stores.
 */
export class SlowCollection implements SessionCollection {
	readonly searchText?: (query: TextQuery) => Promise<string[] | undefined>;
	readonly remove?: (location: string) => Promise<void>;
	private readonly delays: Delays;

	constructor(
		readonly inner: SessionCollection,
		options: SlowStoreOptions = {},
	) {
		this.delays = new Delays(options);
		const searchText = inner.searchText?.bind(inner);
		if (searchText) this.searchText = (query) => this.delays.slowly(() => searchText(query));
		const remove = inner.remove?.bind(inner);
		if (remove) this.remove = (location) => this.delays.slowly(() => remove(location));
	}

	get location(): string {
		return this.inner.location;
	}

	get capabilities(): CollectionCapabilities {
		return this.inner.capabilities;
	}

	async *list(): AsyncIterable<SessionListing> {
		for await (const listing of this.inner.list()) {
			yield await this.delays.slowly(() => listing);
		}
	}

	open(location: string): SlowStore {
		return new SlowStore(this.inner.open(location), this.delays.next());
	}

	sessionFor(header: SessionHeader): SlowStore {
		return new SlowStore(this.inner.sessionFor(header), this.delays.next());
	}

	close(): Promise<void> {
		return this.delays.slowly(async () => this.inner.close?.());
	}
}
