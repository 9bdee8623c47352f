/**
 * The SQLite collection passes the collection suite, each case in a database file of its own;
 * a session of another database is the one `remove` must refuse. Skips without the driver (see
 * test/support/sqlite.ts).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-schema.js";
import { SqliteCollection, SqliteSessionStore } from "../../src/storage/sql/sqlite-store.js";
import { collectionConformance } from "../../src/testing/index.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

if (SQLITE_SKIP) {
	test("SqliteCollection", { skip: SQLITE_SKIP }, () => {});
} else {
	const dir = mkdtempSync(join(tmpdir(), "st-sqlite-collection-"));
	let n = 0;

	collectionConformance("SqliteCollection", {
		newCollection: () => new SqliteCollection(`sqlite:${join(dir, `sessions-${++n}.db`)}`),
		otherSession: () => new SqliteSessionStore(`sqlite:${join(dir, "other.db")}#elsewhere-${++n}`),
		cleanup: () => {
			closeSqliteDatabases();
			rmSync(dir, { recursive: true, force: true });
		},
	});
}
