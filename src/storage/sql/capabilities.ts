/**
 * What the database stores can do, declared once for both (SQLite and PostgreSQL) and for
 * `storeAt`, which must know it before it loads a store's module (see `lazy-store.ts`). This
 * module imports nothing, so declaring costs nothing at start-up.
 */

import type { CollectionCapabilities, StoreCapabilities } from "../store.js";

/** A database session: the active path by index; durability by the engine's commit. */
export const SQL_STORE_CAPABILITIES: StoreCapabilities = Object.freeze({
	lazyBodies: false,
	tailReads: false,
	pathReads: true,
	durability: Object.freeze(["none", "fsync"] as const),
});

/**
 * A SQLite session: as {@link SQL_STORE_CAPABILITIES}, and its entries read as envelopes whose
 * bodies are read by key on first use (the driver is synchronous).
 */
export const SQLITE_STORE_CAPABILITIES: StoreCapabilities = Object.freeze({
	...SQL_STORE_CAPABILITIES,
	lazyBodies: true,
});

/**
 * A PostgreSQL session: as {@link SQL_STORE_CAPABILITIES}, and a large session's entries read
 * as envelopes whose bodies are kept aside in a temporary file while it is open.
 */
export const POSTGRES_STORE_CAPABILITIES: StoreCapabilities = Object.freeze({
	...SQL_STORE_CAPABILITIES,
	lazyBodies: true,
});

/** A database of sessions: listed, searched by a full-text index, pruned. */
export const SQL_COLLECTION_CAPABILITIES: CollectionCapabilities = Object.freeze({
	listing: true,
	search: true,
	remove: true,
});
