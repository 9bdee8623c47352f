/**
 * The PostgreSQL collection passes the collection suite in a schema of this file's own (the
 * cases share it: the suite leaves out sessions it did not create), listing three sessions a
 * page so that the listing's paging is crossed; a session of another schema is the one
 * `remove` must refuse. Skips without a server (see test/support/postgres.ts).
 */

import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { PostgresCollection, PostgresSessionStore } from "../../src/storage/sql/postgres-store.js";
import { collectionConformance } from "../../src/testing/index.js";
import { postgresServer, testSchema } from "../support/postgres.js";

const server = await postgresServer();
if ("skip" in server) {
	test("PostgreSQL collection conformance", { skip: server.skip }, () => {});
} else {
	const db = testSchema(server.url, "collection");
	const other = testSchema(server.url, "collection_other");
	collectionConformance("PostgresCollection", {
		newCollection: () => new PostgresCollection(db.url, { pageSize: 3 }),
		otherSession: () => new PostgresSessionStore(other.session(randomUUID())),
	});
}
