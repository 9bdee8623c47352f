/**
 * `session-tree/sqlite`: the SQLite store (`sqlite:PATH#SESSION_ID`) and collection
 * (`sqlite:PATH`), for a program that constructs them itself; `storeAt` and `collectionAt` of
 * "session-tree" make them from a location and load this code on first use. The driver,
 * better-sqlite3, is an optional dependency. docs/backends.md.
 * @packageDocumentation
 */

export {
	closeSqliteDatabases,
	readSqliteBackup,
	SqliteCollection,
	SqliteSessionStore,
	type SqliteStoreOptions,
} from "./storage/sql/sqlite-store.js";
