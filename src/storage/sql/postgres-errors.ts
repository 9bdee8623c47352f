/**
 * The errors of the PostgreSQL store: what pg and the server report, in words that name the
 * server, the limit that was passed and how to change it (docs/durability.md, "Lost answers and
 * time limits"), and which of them mean the connection is gone.
 */

import type { DatabaseError } from "pg";
import { SessionTreeError } from "../../core/errors.js";
import { isObject } from "../../core/validate.js";
import { maskPassword, type PostgresUrl } from "./urls.js";

/** `host:port` of a connection string, for messages (a `host` query parameter wins, as in pg). */
export function serverOf(connectionString: string): string {
	try {
		const url = new URL(connectionString);
		const host = url.searchParams.get("host") ?? (url.hostname || "localhost");
		return `${host}:${url.searchParams.get("port") ?? (url.port || "5432")}`;
	} catch {
		return maskPassword(connectionString);
	}
}

/** The error of a connect that failed: the server, and for a time-out the limit. */
export function connectError(error: unknown, where: string, url: PostgresUrl): SessionTreeError {
	const why = /timeout/i.test(describe(error))
		? `no answer within ${url.limits.connectMs / 1000} s (connect_timeout; a longer one: ?connect_timeout=SECONDS in the location)`
		: describe(error);
	return new SessionTreeError(
		"IO_ERROR",
		`postgres: cannot connect to ${serverOf(url.connectionString)}: ${why}`,
		{ file: where },
		{ cause: error },
	);
}

/** A SessionTreeError for what pg threw: LOCKED when the session row stayed locked, else IO_ERROR naming the limit passed. */
export function storeError(error: unknown, where: string, url: PostgresUrl): SessionTreeError {
	if (error instanceof SessionTreeError) return error;
	if (codeOf(error) === "55P03") {
		return new SessionTreeError("LOCKED", "another writer held the session's row lock too long", { file: where });
	}
	return new SessionTreeError("IO_ERROR", `postgres: ${explain(error, url)}`, { file: where }, { cause: error });
}

/** The error of a write whose connection was lost, and every try to send it again too: it may or may not have taken effect. */
export function unknownOutcome(error: unknown, where: string, url: PostgresUrl): SessionTreeError {
	const why = explain(error instanceof SessionTreeError && error.cause !== undefined ? error.cause : error, url);
	return new SessionTreeError(
		"IO_ERROR",
		`postgres: the connection was lost after a write was sent, and the server could not be asked whether it took effect: ${why}; read the session again to see whether it is there`,
		{ file: where },
		{ cause: error },
	);
}

/** What went wrong, in words naming the limit that was passed and how to change it. */
function explain(error: unknown, url: PostgresUrl): string {
	const code = codeOf(error);
	const { statementMs, idleInTransactionMs, queryMs } = url.limits;
	if (timedOut(error)) {
		return `${serverOf(url.connectionString)} did not answer within ${queryMs} ms (query_timeout; a longer one: ?query_timeout=MS in the location)`;
	}
	if (code === "57014" && /statement timeout/i.test(describe(error))) {
		const limit = statementMs > 0 ? `=${statementMs} ms` : "";
		return `a statement ran longer than statement_timeout${limit} and was cancelled (SQLSTATE 57014; a longer limit: ?statement_timeout=MS in the location)`;
	}
	if (code === "25P03") {
		return `the server ended a transaction left idle longer than idle_in_transaction_session_timeout=${idleInTransactionMs} ms (SQLSTATE 25P03)`;
	}
	const sqlState = code && /^[0-9A-Z]{5}$/.test(code) ? ` (SQLSTATE ${code})` : "";
	return `${describe(error)}${sqlState}`;
}

function codeOf(error: unknown): string | undefined {
	return isObject(error) && typeof error.code === "string" ? error.code : undefined;
}

/**
 * True when `error` means the connection is gone, so that what was sent on it may or may not
 * have been done: anything the driver or the socket threw (a reset, an end, a time-out), and
 * the server's own errors that end the session (severity FATAL or PANIC: an administrator's
 * `pg_terminate_backend`, a shutdown, an idle transaction ended; SQLSTATE class 08). An
 * ordinary SQL error leaves the connection usable and the statement undone.
 */
export function connectionLost(databaseError: typeof DatabaseError, error: unknown): boolean {
	if (error instanceof SessionTreeError) return false;
	if (!(error instanceof databaseError)) return true;
	return error.severity === "FATAL" || error.severity === "PANIC" || (error.code?.startsWith("08") ?? false);
}

/** pg's `query_timeout` passed: the server did not answer in time (pg says so only in its message). */
export function timedOut(error: unknown): boolean {
	return error instanceof Error && error.message === "Query read timeout";
}

/** What went wrong, from an Error or an AggregateError (Node reports each address tried). */
export function describe(error: unknown): string {
	if (error instanceof AggregateError && error.message === "") {
		return error.errors.map((e) => describe(e)).join("; ");
	}
	if (error instanceof Error) return error.message || String(isObject(error) ? error.code : error.name);
	return String(error);
}

/** The error for a schema that is not session-tree's. */
export function notAStore(schema: string, where: string, why: string): SessionTreeError {
	return new SessionTreeError(
		"NOT_A_STORE",
		`not a session-tree store: schema ${schema} (${why}); session-tree reads and writes only schemas it made`,
		{ file: where },
	);
}
