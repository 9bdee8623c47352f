/**
 * Choosing a store by a location string: a path or a `file:` URL for the JSONL file store,
 * `memory:NAME` for the in-process memory store, and any scheme a backend registers (the
 * SQLite and PostgreSQL stores register `sqlite:` and `postgres:`).
 */

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionTreeError } from "../core/errors.js";
import { DirectoryCollection } from "./directory-collection.js";
import { FileSessionStore } from "./file-store.js";
import { type LazyBackend, LazyCollection, LazyStore } from "./lazy-store.js";
import { MemoryCollection, MemorySessionStore } from "./memory-store.js";
import {
	POSTGRES_STORE_CAPABILITIES,
	SQL_COLLECTION_CAPABILITIES,
	SQLITE_STORE_CAPABILITIES,
} from "./sql/capabilities.js";
import { maskPassword, parsePostgresUrl, parseSqliteUrl, type SessionUrl, sessionUrl } from "./sql/urls.js";
import type { SessionCollection, SessionStore } from "./store.js";
import type { StoreOptions } from "./store-options.js";

// Public from this module (the package's index) as before it moved to store-options.ts, where
// the SQL stores, which this module loads, read it without importing this module back.
export type { StoreOptions } from "./store-options.js";

/** Makes the store of a location with the scheme it was registered for. */
export type StoreFactory = (location: string, options: StoreOptions) => SessionStore;

/** Makes the collection (many sessions: `ls`, `search`) of a location with the scheme it was registered for. */
export type CollectionFactory = (location: string) => SessionCollection;

const factories = new Map<string, StoreFactory>();
const collectionFactories = new Map<string, CollectionFactory>();

/**
 * The built-in database schemes. Their modules (and drivers) are imported when a location of
 * theirs is first used, so that a command on a JSONL file never loads them.
 */
/** The canonical form of a database location (the store's own `location`): checked now, not at first use. */
const canonical = ({ base, name }: SessionUrl): string => (name === undefined ? base : sessionUrl(base, name));

/** The canonical form of a database's location, refused when it names a session. */
function database({ base, name }: SessionUrl, where: string): string {
	if (name !== undefined) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			"a place of many sessions is a database location, without #SESSION_ID",
			{
				file: where,
			},
		);
	}
	return base;
}

const SQLITE: LazyBackend = {
	locate: (location) => canonical(parseSqliteUrl(location)),
	locateCollection: (location) => database(parseSqliteUrl(location), location),
	capabilities: SQLITE_STORE_CAPABILITIES,
	collectionCapabilities: SQL_COLLECTION_CAPABILITIES,
	load: async () => {
		const { sqliteStore, sqliteCollection } = await import("./sql/sqlite-store.js");
		return { store: sqliteStore, collection: sqliteCollection };
	},
};
const POSTGRES: LazyBackend = {
	locate: (location) => canonical(parsePostgresUrl(location)),
	locateCollection: (location) => database(parsePostgresUrl(location), maskPassword(location)),
	capabilities: POSTGRES_STORE_CAPABILITIES,
	collectionCapabilities: SQL_COLLECTION_CAPABILITIES,
	load: async () => {
		const { postgresStore, postgresCollection } = await import("./sql/postgres-store.js");
		return { store: postgresStore, collection: postgresCollection };
	},
};
for (const [scheme, backend] of [
	["sqlite", SQLITE],
	["postgres", POSTGRES],
	["postgresql", POSTGRES],
] as const) {
	factories.set(scheme, (location, options) => new LazyStore(location, options, backend));
	collectionFactories.set(scheme, (location) => new LazyCollection(location, backend));
}

/**
 * Lets `scheme:` locations open stores made by `factory` (in this process), and, with
 * `collection`, lets the catalog list and search the sessions of such a location. A scheme is
 * two or more letters, digits, `+`, `-` or `.`, starting with a letter; `file` and `memory` are
 * built in.
 */
export function registerStoreScheme(scheme: string, factory: StoreFactory, collection?: CollectionFactory): void {
	if (!/^[a-z][a-z0-9+.-]+$/i.test(scheme) || scheme === "file" || scheme === "memory") {
		throw new SessionTreeError("INVALID_ARGUMENT", `cannot register the store scheme ${JSON.stringify(scheme)}`);
	}
	factories.set(scheme.toLowerCase(), factory);
	if (collection) collectionFactories.set(scheme.toLowerCase(), collection);
	else collectionFactories.delete(scheme.toLowerCase());
}

/**
 * The collection a location names: a directory of session files (a path or a `file:` URL; it
 * must exist), `memory:` for the memory sessions of this process, or a registered scheme's.
 * @throws SessionTreeError FILE_NOT_FOUND or INVALID_ARGUMENT for a directory that is missing or
 *   a file, INVALID_ARGUMENT for a scheme with no collection
 */
export function collectionAt(location: string): SessionCollection {
	const scheme = schemeOf(location);
	if (scheme === undefined) return DirectoryCollection.directory(location);
	if (scheme === "file") return DirectoryCollection.directory(fileURLToPath(location));
	if (scheme === "memory") {
		if (location.length > "memory:".length) {
			throw new SessionTreeError("INVALID_ARGUMENT", "the memory collection is memory: (all memory sessions)", {
				file: location,
			});
		}
		return new MemoryCollection();
	}
	const factory = collectionFactories.get(scheme);
	if (factory) return factory(location);
	throw new SessionTreeError(
		"INVALID_ARGUMENT",
		`no session collection for ${scheme}: locations (built in: a directory, memory:)`,
		{ file: location },
	);
}

/** The scheme of a location, or undefined for a plain path (one-letter schemes are drive letters). */
export function schemeOf(location: string): string | undefined {
	const match = /^([a-z][a-z0-9+.-]+):/i.exec(location);
	return match?.[1]?.toLowerCase();
}

/**
 * The store of a location. A path (relative to the working directory) or a `file:` URL is a
 * JSONL file; `memory:NAME` a memory session of this process; another scheme needs a
 * registered backend.
 * @throws SessionTreeError INVALID_ARGUMENT for an unknown scheme or a durability the store cannot honour
 */
export function storeAt(location: string, options: StoreOptions = {}): SessionStore {
	const scheme = schemeOf(location);
	let store: SessionStore;
	if (scheme === undefined) {
		store = new FileSessionStore(resolve(location), options);
	} else if (scheme === "file") {
		store = new FileSessionStore(fileURLToPath(location), options);
	} else if (scheme === "memory") {
		store = new MemorySessionStore(location);
	} else {
		const factory = factories.get(scheme);
		if (!factory) {
			throw new SessionTreeError(
				"INVALID_ARGUMENT",
				`no store is registered for ${scheme}: locations (built in: a path, file:, memory:)`,
				{ file: location },
			);
		}
		store = factory(location, options);
	}
	const durability = options.durability;
	if (durability !== undefined && !store.capabilities.durability.includes(durability)) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`this store cannot give durability ${JSON.stringify(durability)} (it offers ${store.capabilities.durability.join(", ")})`,
			{ file: location },
		);
	}
	return store;
}
