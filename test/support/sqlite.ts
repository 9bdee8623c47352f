/**
 * Whether the SQLite tests can run: better-sqlite3 is an optional dependency with a native
 * part. `npm ci` installs it from a prebuilt binary (downloaded from GitHub) or builds it with
 * node-gyp (which needs Node's headers: downloaded from nodejs.org, or the `nodedir` npm
 * setting); where neither works, npm leaves the optional dependency out and carries on. The
 * SQLite stores, the catalog index, `serve` and `mcp` then refuse with INVALID_ARGUMENT naming
 * what to install, and the tests that need them skip with {@link SQLITE_SKIP}, except under CI
 * (CI=true), where they run and fail: a CI that silently skipped them would test nothing.
 *
 * To run them as a fresh machine without the driver would (better-sqlite3 found by no import):
 * `NODE_OPTIONS="--import $PWD/test/support/no-sqlite.mjs" npm test`.
 */

import type BetterSqlite3 from "better-sqlite3";
import { UNDER_CI } from "./ci.js";

/** The driver's class, or why it cannot be used here. */
async function probe(): Promise<{ Database: typeof BetterSqlite3 } | { why: string }> {
	try {
		const Database = (await import("better-sqlite3")).default;
		// The native part loads with the first database, not with the import.
		new Database(":memory:").close();
		return { Database };
	} catch (error) {
		return { why: error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error) };
	}
}

const found = await probe();

/**
 * Why the SQLite tests skip here (better-sqlite3 does not load), or undefined when they run.
 * Always undefined under CI, where they must run.
 */
export const SQLITE_SKIP: string | undefined =
	"Database" in found || UNDER_CI
		? undefined
		: `SQLite tests skipped: the optional dependency better-sqlite3@12 does not load (${found.why}). ` +
			"npm ci installs it from a prebuilt binary or builds it with Node's headers; where neither can be " +
			"downloaded, npm ci --nodedir=/usr uses the headers of Debian's nodejs (CI runs these tests)";

/**
 * The driver's class for the tests that use it directly.
 * @throws Error when it does not load (a test that calls this is skipped with {@link SQLITE_SKIP} first)
 */
export function sqliteDriver(): typeof BetterSqlite3 {
	if ("Database" in found) return found.Database;
	throw new Error(`better-sqlite3 does not load: ${found.why}`);
}
