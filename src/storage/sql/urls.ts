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
	/** The time limits of its connections and queries (see {@link PostgresLimits}). */
	limits: PostgresLimits;
}

/**
 * How long a PostgreSQL store waits, in milliseconds (0: without limit), each from the query
 * parameter of the same name (removed from the connection string, so that pg does not apply it a
 * second time) or its default. docs/durability.md says what happens past each.
 */
export interface PostgresLimits {
	/** For a connection, handshake included (`connect_timeout`, in seconds as libpq takes it). Default 10 s. */
	connectMs: number;
	/** For one statement on the server (PostgreSQL's `statement_timeout`; it cancels the statement). Default 30 s. */
	statementMs: number;
	/**
	 * For a transaction left idle by its client (PostgreSQL's `idle_in_transaction_session_timeout`;
	 * it ends the connection, so that a stalled client holds no row lock). Default 30 s.
	 */
	idleInTransactionMs: number;
	/**
	 * For the whole answer to one query, on the client (pg's `query_timeout`): what ends a wait
	 * on a server that stopped answering. Longer than `statementMs` by default, so that a slow
	 * statement is reported by the server first. Default 40 s.
	 */
	queryMs: number;
}

/** The limits of a location that names none. */
export const DEFAULT_LIMITS: Readonly<PostgresLimits> = {
	connectMs: 10_000,
	statementMs: 30_000,
	idleInTransactionMs: 30_000,
	queryMs: 40_000,
};

/** The query parameters of the limits: each one's field and unit (libpq's `connect_timeout` is in seconds). */
const LIMIT_PARAMS: Readonly<Record<string, { field: keyof PostgresLimits; unitMs: number }>> = {
	connect_timeout: { field: "connectMs", unitMs: 1000 },
	statement_timeout: { field: "statementMs", unitMs: 1 },
	idle_in_transaction_session_timeout: { field: "idleInTransactionMs", unitMs: 1 },
	query_timeout: { field: "queryMs", unitMs: 1 },
};

/**
 * Parses `postgres://…[?schema=NAME][#SESSION_ID]` (or `postgresql://`). The query parameter
 * `schema` chooses the PostgreSQL schema (default {@link DEFAULT_SCHEMA}), and `connect_timeout`
 * (seconds), `statement_timeout`, `idle_in_transaction_session_timeout` and `query_timeout`
 * (milliseconds; 0 for none) the {@link PostgresLimits}; they are removed from the connection
 * string. Every other part goes to pg as written.
 * @throws SessionTreeError INVALID_ARGUMENT for another scheme, a bad schema or session name, a bad limit
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
	const limits = { ...DEFAULT_LIMITS };
	if (query < 0) return { base, connectionString: base, schema: DEFAULT_SCHEMA, name, limits };
	const kept: string[] = [];
	const schemas: string[] = [];
	for (const part of base.slice(query + 1).split("&")) {
		const eq = part.indexOf("=");
		const key = decodeParam(eq < 0 ? part : part.slice(0, eq), where);
		const value = decodeParam(eq < 0 ? "" : part.slice(eq + 1), where);
		const limit = Object.hasOwn(LIMIT_PARAMS, key) ? LIMIT_PARAMS[key] : undefined;
		if (key === "schema") {
			schemas.push(value);
		} else if (limit) {
			if (!/^\d{1,9}$/.test(value)) {
				throw new SessionTreeError(
					"INVALID_ARGUMENT",
					`postgres: ${key}=${JSON.stringify(value)} is not a whole number of ${limit.unitMs === 1 ? "milliseconds" : "seconds"} (0 for no limit)`,
					{ file: where },
				);
			}
			limits[limit.field] = Number(value) * limit.unitMs;
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
	return { base, connectionString, schema, name, limits };
}

function decodeParam(text: string, where: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		throw new SessionTreeError("INVALID_ARGUMENT", `postgres: a malformed query parameter: ${text}`, { file: where });
	}
}
