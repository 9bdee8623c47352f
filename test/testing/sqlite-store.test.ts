/**
 * The SQLite store passes the conformance suite, in a database in a temporary directory. The
 * second store of a session (`sameSession`) has a connection of its own, so two writers really
 * meet in the database, as two processes would. Skips without the driver (see test/support/sqlite.ts).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-schema.js";
import { readSqliteBackup, SqliteSessionStore, sqliteStore } from "../../src/storage/sql/sqlite-store.js";
import type { SessionStore } from "../../src/storage/store.js";
import { storeConformance } from "../../src/testing/index.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

if (SQLITE_SKIP) {
	test("SqliteSessionStore", { skip: SQLITE_SKIP }, () => {});
} else {
	const dir = mkdtempSync(join(tmpdir(), "st-sqlite-conformance-"));
	const database = join(dir, "sessions.db");
	let n = 0;
	const opened: SessionStore[] = [];

	storeConformance("SqliteSessionStore", {
		newStore: () => sqliteStore(`sqlite:${database}#s${++n}`, {}),
		sameSession: (store) => {
			const other = new SqliteSessionStore(store.location, { privateConnection: true });
			opened.push(other);
			return other;
		},
		readBackup: (backup) => readSqliteBackup(backup),
		cleanup: async () => {
			await Promise.all(opened.map((store) => store.close()));
			closeSqliteDatabases();
			rmSync(dir, { recursive: true, force: true });
		},
	});
}
