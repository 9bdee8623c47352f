/**
 * The SQLite collection passes the collection suite, each case in a database file of its own;
 * a session of another database is the one `remove` must refuse.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-schema.js";
import { SqliteCollection, SqliteSessionStore } from "../../src/storage/sql/sqlite-store.js";
import { collectionConformance } from "../../src/testing/index.js";

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
