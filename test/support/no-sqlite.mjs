// Makes better-sqlite3 impossible to import, as on a machine where npm ci could not install the
// optional dependency: `NODE_OPTIONS="--import $PWD/test/support/no-sqlite.mjs" npm test` runs
// the tests (and every process they start) so, to check that the SQLite tests skip (sqlite.ts).
import { register } from "node:module";

const hook = `export async function resolve(specifier, context, next) {
	if (specifier === "better-sqlite3") throw Object.assign(new Error("Cannot find package 'better-sqlite3' (hidden by test/support/no-sqlite.mjs)"), { code: "ERR_MODULE_NOT_FOUND" });
	return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
