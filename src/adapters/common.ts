/**
 * What the framework adapters share: one session per conversation key (a chat id, a session
 * id) inside a place of many sessions, given by a location string.
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
import { collectionAt, schemeOf, storeAt } from "../storage/locations.js";
import { maskPassword } from "../storage/sql/urls.js";

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

/** A place of many sessions, taken apart once. */
export interface SessionPlace {
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
 * The place at `location`: a directory (created on the first write if missing), `memory:` or
 * `memory:NAME`, or a database location without `#SESSION_ID`.
 * @param what the keys' name in error messages
 * @throws SessionTreeError INVALID_ARGUMENT for a location that names one session (`…#ID`)
 */
export function sessionPlace(location: string, what = "session key"): SessionPlace {
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

function directoryPlace(path: string, location: string, what: string): SessionPlace {
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

function memoryPlace(location: string, what: string): SessionPlace {
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
