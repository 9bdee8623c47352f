/**
 * Session URLs of the database stores, taken apart and checked: `sqlite:PATH#SESSION_ID` and
 * `postgres://…[?schema=NAME]#SESSION_ID`. A light module (it loads no driver and no store)
 * because `storeAt` checks a location, and makes it canonical, before it loads the store.
 */

import { resolve } from "node:path";
import { SessionTreeError } from "../../core/errors.js";
import { maskPassword } from "../../core/mask.js";

export { maskPassword };

/** A session URL split at `#`: the database's location and the session's name in it. */
export interface SessionUrl {
	/** The database, without the fragment. */
	base: string;
	/** The session's name (its header id, for sessions this library created), if the URL names one. */
	name: string | undefined;
}

/** Session names: what header ids are made of (UUIDs, pi's ids), nothing that needs quoting. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/**
 * Splits `LOCATION#SESSION_ID` at its first `#`. A URL without `#` names the database only.
 * @throws SessionTreeError INVALID_ARGUMENT for an empty or malformed session name
 */
export function splitSessionUrl(location: string): SessionUrl {
	const hash = location.indexOf("#");
	if (hash < 0) return { base: location, name: undefined };
	return { base: location.slice(0, hash), name: checkSessionName(location.slice(hash + 1), location) };
}

/**
 * A session name as it may appear after `#`: 1 to 128 letters, digits, `.`, `_`, `:` or `-`,
 * starting with a letter or digit.
 * @throws SessionTreeError INVALID_ARGUMENT otherwise
 */
export function checkSessionName(name: string, location: string): string {
	if (!NAME.test(name)) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`not a session id: ${JSON.stringify(name)} (1 to 128 letters, digits, '.', '_', ':' or '-')`,
			{ file: location },
		);
	}
	return name;
}

/** The URL of session `name` in the database at `base`. */
export function sessionUrl(base: string, name: string): string {
	return `${base}#${name}`;
}

/** A `sqlite:` location taken apart. */
export interface SqliteUrl {
	/** The database file, absolute. */
	file: string;
	/** `sqlite:` and the absolute path: the collection's location. */
	base: string;
	/** The session's name after `#`, if any. */
	name: string | undefined;
}

/**
 * Parses `sqlite:PATH` or `sqlite:PATH#SESSION_ID`; a relative PATH is resolved against the
 * working directory.
 * @throws SessionTreeError INVALID_ARGUMENT for another scheme, an empty path or a bad session name
 */
export function parseSqliteUrl(location: string): SqliteUrl {
	if (!/^sqlite:/i.test(location)) {
		throw new SessionTreeError("INVALID_ARGUMENT", "not a sqlite: location (sqlite:PATH#SESSION_ID)", {
			file: location,
		});
	}
	const { base, name } = splitSessionUrl(location);
	const path = base.slice("sqlite:".length);
	if (path === "") {
		throw new SessionTreeError("INVALID_ARGUMENT", "a sqlite: location needs a database path: sqlite:PATH#SESSION_ID", {
			file: location,
		});
	}
	const file = resolve(path);
	return { file, base: `sqlite:${file}`, name };
}

/** The schema holding the tables when the location names none. */
export const DEFAULT_SCHEMA = "session_tree";

/** Schema names a location may choose: unquoted-identifier characters, at most 63 bytes. */
export const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** A `postgres://` location taken apart. */
export interface PostgresUrl {
	/** The URL as given, without the `#SESSION_ID`: the collection's location. */
	base: string;
	/** What pg connects with: `base` without the `schema` query parameter. */
	connectionString: string;
	/** The PostgreSQL schema holding the tables. */
	schema: string;
	/** The session's name after `#`, if any. */
	name: string | undefined;
}

/**
 * Parses `postgres://…[?schema=NAME][#SESSION_ID]` (or `postgresql://`). The query parameter
 * `schema` chooses the PostgreSQL schema (default {@link DEFAULT_SCHEMA}) and is removed from
 * the connection string; every other part goes to pg as written.
 * @throws SessionTreeError INVALID_ARGUMENT for another scheme, a bad schema or session name
 */
export function parsePostgresUrl(location: string): PostgresUrl {
	const where = maskPassword(location);
	if (!/^postgres(ql)?:\/\//i.test(location)) {
		throw new SessionTreeError("INVALID_ARGUMENT", "not a postgres:// location (postgres://HOST/DB#SESSION_ID)", {
			file: where,
		});
	}
	// Split the masked location, so that a bad session name's error shows no password.
	const { name } = splitSessionUrl(where);
	const hash = location.indexOf("#");
	const base = hash < 0 ? location : location.slice(0, hash);
	const query = base.indexOf("?");
	if (query < 0) return { base, connectionString: base, schema: DEFAULT_SCHEMA, name };
	const kept: string[] = [];
	const schemas: string[] = [];
	for (const part of base.slice(query + 1).split("&")) {
		const eq = part.indexOf("=");
		if (decodeParam(eq < 0 ? part : part.slice(0, eq), where) === "schema") {
			schemas.push(decodeParam(eq < 0 ? "" : part.slice(eq + 1), where));
		} else if (part !== "") {
			kept.push(part);
		}
	}
	const schema = schemas.length === 0 ? DEFAULT_SCHEMA : (schemas[0] ?? DEFAULT_SCHEMA);
	if (schemas.length > 1 || !SCHEMA_NAME.test(schema)) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`postgres: schema=${JSON.stringify(schemas.join(","))} is not one schema name (lower-case letters, digits and _, at most 63, not starting with a digit)`,
			{ file: where },
		);
	}
	const connectionString = base.slice(0, query) + (kept.length > 0 ? `?${kept.join("&")}` : "");
	return { base, connectionString, schema, name };
}

function decodeParam(text: string, where: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		throw new SessionTreeError("INVALID_ARGUMENT", `postgres: a malformed query parameter: ${text}`, { file: where });
	}
}
