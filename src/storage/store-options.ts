/**
 * The options every store is opened with, in a module of their own: `storeAt` (locations.ts)
 * passes them to the store of a location, and the SQL stores that locations.ts loads on first
 * use read them without importing locations.ts back.
 */

import type { LockOptions } from "./lock.js";
import type { Durability } from "./store.js";

/** Options every store is opened with. */
export interface StoreOptions {
	/** How durable an acknowledged append is; refused when the store cannot honour it. Default: the store's own (the file store's is "none"). */
	durability?: Durability;
	/** Lock timing, for stores that lock. */
	lock?: LockOptions;
}
