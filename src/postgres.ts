/**
 * `session-tree/postgres`: the PostgreSQL store (`postgres://…#SESSION_ID`) and collection
 * (`postgres://…`), for a program that constructs them itself; `storeAt` and `collectionAt` of
 * "session-tree" make them from a location and load this code on first use. The driver, pg, is
 * an optional dependency. docs/backends.md.
 * @packageDocumentation
 */

export {
	closePostgresPools,
	PostgresCollection,
	type PostgresCollectionOptions,
	PostgresSessionStore,
	type PostgresStoreOptions,
	readPostgresBackup,
} from "./storage/sql/postgres-store.js";
