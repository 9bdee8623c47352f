/**
 * Choosing a store by a location string: a path or a `file:` URL for the JSONL file store,
 * `memory:NAME` for the in-process memory store, and any scheme a backend registers (the
 * SQLite and PostgreSQL stores register `sqlite:` and `postgres:`).
 */

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionTreeError } from "../core/errors.js";
import { FileSessionStore } from "./file-store.js";
import type { LockOptions } from "./lock.js";
import { MemorySessionStore } from "./memory-store.js";
import type { Durability, SessionStore } from "./store.js";

/** Options every store is opened with. */
export interface StoreOptions {
	/** How durable an acknowledged append is; refused when the store cannot honour it. Default: the store's own (the file store's is "none"). */
	durability?: Durability;
	/** Lock timing, for stores that lock. */
	lock?: LockOptions;
}

/** Makes the store of a location with the scheme it was registered for. */
export type StoreFactory = (location: string, options: StoreOptions) => SessionStore;

const factories = new Map<string, StoreFactory>();

/**
 * Lets `scheme:` locations open stores made by `factory` (in this process). A scheme is two or
 * more letters, digits, `+`, `-` or `.`, starting with a letter; `file` and `memory` are built in.
 */
export function registerStoreScheme(scheme: string, factory: StoreFactory): void {
	if (!/^[a-z][a-z0-9+.-]+$/i.test(scheme) || scheme === "file" || scheme === "memory") {
		throw new SessionTreeError("INVALID_ARGUMENT", `cannot register the store scheme ${JSON.stringify(scheme)}`);
	}
	factories.set(scheme.toLowerCase(), factory);
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
