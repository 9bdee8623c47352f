/**
 * Where a session lives: the one module that decides which store a new session gets (a
 * create, a fork or clone, a copy), how a place of many sessions names the session of a key
 * (the adapters' chats), which collection holds a session, and how a session created a moment
 * ago is removed again. Stores are opened by location in locations.ts; this module chooses the
 * location.
 *
 * | target | the new session |
 * |---|---|
 * | `{location}` | the session at that location (a path, a `file:` URL, `memory:NAME`, a registered scheme's URL) |
 * | `{file}` | that JSONL file (a path or a `file:` URL) |
 * | `{dir}`, a directory | `DIR/<timestamp>_<id>.jsonl`, as pi names sessions |
 * | `{dir}`, a collection's location (`memory:`, `sqlite:PATH`, `postgres://…`) | the session the collection names for the header |
 * | `{collection}` | the session the collection names for the header |
 * | `{beside: store}` | a session of the same kind and place as `store` (a fork: a file beside it, `memory:THIS/ID`, a row of the same database) |
 *
 * Keyed places ({@link keyedPlace}) hold one session per key (a chat id) inside a place of many
 * sessions:
 *
 * | place | the session of key `K` |
 * |---|---|
 * | a directory (a path or a `file:` URL) | `DIR/K.jsonl` |
 * | `memory:` / `memory:NAME` | `memory:K` / `memory:NAME/K` |
 * | `sqlite:PATH`, `postgres://…`, another registered scheme | `LOCATION#K` |
 *
 * Keys are checked before they become part of a location ({@link checkSessionKey}), so that a
 * key from a URL or a request body never names a file outside the directory, nor another
 * database session.
 */

import { readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionTreeError } from "../core/errors.js";
import type { SessionHeader } from "../core/types.js";
import { DirectoryCollection } from "./directory-collection.js";
import { FileSessionStore } from "./file-store.js";
import { collectionAt, schemeOf, storeAt } from "./locations.js";
import { sessionFileName } from "./paths.js";
import { maskPassword } from "./sql/urls.js";
import type { SessionCollection, SessionStore } from "./store.js";
import type { StoreOptions } from "./store-options.js";

/** Where a new session goes (see the module comment for what each kind names). */
export type SessionTarget =
	/** One session's location, opened as `storeAt` opens it. */
	| { location: string }
	/** The exact JSONL file: a path (relative to the working directory) or a `file:` URL. */
	| { file: string }
	/** A place of many sessions: a directory, or the location of a collection. */
	| { dir: string }
	/** A collection, which names the session by its header. */
	| { collection: SessionCollection }
	/** The same kind of store and place as this one: its `derive`. */
	| { beside: SessionStore };

/** Where the caller was told to put a session: a location, a file or a place of many sessions, at most one of them used. */
export interface PlacementOptions {
	/** Takes precedence over `file` and `dir`. */
	location?: string | undefined;
	/** Takes precedence over `dir`. */
	file?: string | undefined;
	dir?: string | undefined;
}

/**
 * The target that options name: `location`, else `file`, else `dir`, else `otherwise()` (pi's
 * project directory for a new session, beside the source for a fork).
 */
export function targetOf(options: PlacementOptions, otherwise: () => SessionTarget): SessionTarget {
	if (options.location !== undefined) return { location: options.location };
	if (options.file !== undefined) return { file: options.file };
	if (options.dir !== undefined) return { dir: options.dir };
	return otherwise();
}

/**
 * The collection new sessions are written into at `location`: for a plain path a directory,
 * made when the first session is written into it (where `collectionAt` wants it to exist);
 * any other location's collection as `collectionAt` gives it.
 * @throws SessionTreeError as `collectionAt`
 */
export function collectionToWrite(location: string): SessionCollection {
	return schemeOf(location) === undefined ? new DirectoryCollection(location) : collectionAt(location);
}

/**
 * The store for a new session with `header` at `target`, not created yet. A collection or a
 * store that names the session opens it with its own options; with `options` given, the
 * session is opened again by its location with them, so that the durability asked for is
 * honoured or refused.
 * @throws SessionTreeError INVALID_ARGUMENT for an unknown scheme, a durability the store
 *   cannot honour, or a `dir` that is no place of many sessions (`memory:NAME`, `…#ID`);
 *   FILE_NOT_FOUND for a `file:` URL of a directory that does not exist
 */
export function sessionStoreFor(
	target: SessionTarget,
	header: SessionHeader,
	options: StoreOptions = {},
): SessionStore {
	if ("location" in target) return storeAt(target.location, options);
	// The file store honours every durability: nothing to check.
	if ("file" in target) return new FileSessionStore(filePath(target.file), options);
	if ("dir" in target) {
		// A plain path is a directory that need not exist yet (created with the session's file).
		if (schemeOf(target.dir) === undefined) {
			return new FileSessionStore(resolve(target.dir, sessionFileName(header.timestamp, header.id)), options);
		}
		return withOptions(collectionAt(target.dir).sessionFor(header), options);
	}
	if ("collection" in target) return withOptions(target.collection.sessionFor(header), options);
	return withOptions(target.beside.derive(header), options);
}

/** `store` as it was named, or opened again by its location with the options asked for. */
function withOptions(store: SessionStore, options: StoreOptions): SessionStore {
	const given = Object.values(options).some((value) => value !== undefined);
	return given ? storeAt(store.location, options) : store;
}

/** The path of a path (resolved) or a `file:` URL. */
function filePath(location: string): string {
	return schemeOf(location) === "file" ? fileURLToPath(location) : resolve(location);
}

/** A session's location taken apart: the collection that holds it and its name there. */
export interface SessionInCollection {
	/** The collection's location: `memory:`, or the database URL (the part before `#`). */
	collection: string;
	/** The session's name there (after `memory:`, or after `#`); undefined when the location names none (`memory:`, no `#`). */
	name: string | undefined;
}

/**
 * The collection that holds the session at `location`, and the session's name in it; undefined
 * for a file (a path or a `file:` URL), which is removed or listed as a file.
 */
export function collectionOfSession(location: string): SessionInCollection | undefined {
	const scheme = schemeOf(location);
	if (scheme === undefined || scheme === "file") return undefined;
	if (scheme === "memory") {
		return { collection: "memory:", name: location === "memory:" ? undefined : location.slice("memory:".length) };
	}
	const hash = location.indexOf("#");
	return hash < 0
		? { collection: location, name: undefined }
		: { collection: location.slice(0, hash), name: location.slice(hash + 1) };
}

/**
 * Deletes a session this process created a moment ago and could not fill (a fork whose records
 * could not be written), so that no session holding only its header is left behind: a file is
 * unlinked, a session of a collection (`memory:`, a database) removed through its collection.
 * Best effort: whatever cannot be removed stays, and the caller reports its own error.
 */
export async function discardCreatedSession(location: string): Promise<void> {
	try {
		const held = collectionOfSession(location);
		if (held === undefined) {
			rmSync(schemeOf(location) === "file" ? fileURLToPath(location) : location, { force: true });
			return;
		}
		const collection = collectionAt(held.collection);
		try {
			await collection.remove?.(location);
		} finally {
			await collection.close?.();
		}
	} catch {
		// The fork's own error is the one to report.
	}
}

/** Keys: 1 to 128 letters, digits, `_` or `-`, starting with a letter or a digit. */
export const SESSION_KEY = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The key as it is, when it is one (see {@link SESSION_KEY}): no `/`, `\`, `.`, `:`, `#` or
 * anything else that could leave its place.
 * @param what the key's name in the message ("chat id", "session id")
 * @throws SessionTreeError INVALID_ARGUMENT otherwise
 */
export function checkSessionKey(key: unknown, what = "session key"): string {
	if (typeof key !== "string" || !SESSION_KEY.test(key)) {
		const shown = typeof key === "string" ? JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key) : typeof key;
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`not a valid ${what}: ${shown} (1 to 128 letters, digits, '_' or '-', starting with a letter or digit)`,
		);
	}
	return key;
}

/** A place of many sessions holding one session per key, taken apart once. */
export interface KeyedPlace {
	/** The location as given. */
	readonly location: string;
	/** The location of the session of `key` (checked). */
	sessionLocation(key: string): string;
	/** The keys of the sessions the place holds, sorted. */
	keys(): Promise<string[]>;
	/** Deletes the session of `key`; false when there was none. */
	remove(key: string): Promise<boolean>;
}

/**
 * The keyed place at `location`: a directory (created on the first write if missing),
 * `memory:` or `memory:NAME`, or a database location without `#SESSION_ID`.
 * @param what the keys' name in error messages
 * @throws SessionTreeError INVALID_ARGUMENT for a location that names one session (`…#ID`)
 */
export function keyedPlace(location: string, what = "session key"): KeyedPlace {
	const scheme = schemeOf(location);
	if (scheme === undefined || scheme === "file") {
		return directoryPlace(scheme === "file" ? fileURLToPath(location) : location, location, what);
	}
	if (scheme === "memory") return memoryPlace(location, what);
	if (location.includes("#")) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			"a place of many sessions is a database location, without #SESSION_ID",
			{ file: maskPassword(location) },
		);
	}
	const sessionLocation = (key: string) => `${location}#${checkSessionKey(key, what)}`;
	return {
		location,
		sessionLocation,
		async keys() {
			const keys: string[] = [];
			const collection = collectionAt(location);
			for await (const listing of collection.list()) {
				const hash = listing.location.lastIndexOf("#");
				const key = hash < 0 ? "" : listing.location.slice(hash + 1);
				if (SESSION_KEY.test(key)) keys.push(key);
			}
			return keys.sort();
		},
		async remove(key) {
			const session = sessionLocation(key);
			const store = storeAt(session);
			try {
				if (!(await store.exists())) return false;
			} finally {
				await store.close();
			}
			const collection = collectionAt(location);
			if (!collection.remove) {
				throw new SessionTreeError("INVALID_ARGUMENT", "this store cannot delete sessions", {
					file: maskPassword(location),
				});
			}
			await collection.remove(session);
			return true;
		},
	};
}

/**
 * The location of the session of `key` in the keyed place at `location` (see {@link keyedPlace}).
 * @throws SessionTreeError INVALID_ARGUMENT for a key that is none, or a location that names one session
 */
export function keyedLocation(location: string, key: string, what = "session key"): string {
	return keyedPlace(location, what).sessionLocation(key);
}

function directoryPlace(path: string, location: string, what: string): KeyedPlace {
	const dir = resolve(path);
	const fileOf = (key: string): string => {
		const file = resolve(dir, `${checkSessionKey(key, what)}.jsonl`);
		// Defence in depth: the key was checked, and the file is still directly in the directory.
		if (!file.startsWith(`${dir}${sep}`) || file.slice(dir.length + 1).includes(sep)) {
			throw new SessionTreeError("INVALID_ARGUMENT", `not a valid ${what}: ${JSON.stringify(key)}`);
		}
		return file;
	};
	return {
		location,
		sessionLocation: fileOf,
		async keys() {
			let names: string[];
			try {
				names = readdirSync(dir);
			} catch {
				return [];
			}
			return names
				.filter((name) => name.endsWith(".jsonl") && SESSION_KEY.test(name.slice(0, -".jsonl".length)))
				.filter((name) => isFile(join(dir, name)))
				.map((name) => name.slice(0, -".jsonl".length))
				.sort();
		},
		async remove(key) {
			const file = fileOf(key);
			if (!isFile(file)) return false;
			rmSync(file);
			return true;
		},
	};
}

function memoryPlace(location: string, what: string): KeyedPlace {
	const name = location.slice("memory:".length);
	const prefix = name === "" ? "memory:" : `memory:${name}/`;
	const sessionLocation = (key: string) => `${prefix}${checkSessionKey(key, what)}`;
	return {
		location,
		sessionLocation,
		async keys() {
			const keys: string[] = [];
			for await (const listing of collectionAt("memory:").list()) {
				if (!listing.location.startsWith(prefix)) continue;
				const key = listing.location.slice(prefix.length);
				if (SESSION_KEY.test(key)) keys.push(key);
			}
			return keys.sort();
		},
		async remove(key) {
			const session = sessionLocation(key);
			const collection = collectionAt("memory:");
			for await (const listing of collection.list()) {
				if (listing.location === session) {
					await collection.remove?.(session);
					return true;
				}
			}
			return false;
		},
	};
}

function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}
