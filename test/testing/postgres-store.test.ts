/**
 * The PostgreSQL store passes the conformance suite, with each durability mode, in a schema of
 * this file's own. A second writer (`sameSession`) has a pool of its own, so that writers really
 * race on separate connections. Skips without a server (see test/support/postgres.ts).
 */

import { randomUUID } from "node:crypto";
import { test } from "node:test";
import type { Durability } from "../../src/index.js";
import { PostgresSessionStore, readPostgresBackup } from "../../src/storage/sql/postgres-store.js";
import { type ConformanceTarget, storeConformance } from "../../src/testing/index.js";
import { postgresServer, type TestSchema, testSchema } from "../support/postgres.js";

function postgresTarget(db: TestSchema, durability: Durability, lazyFrom?: number): ConformanceTarget {
	const lazy = lazyFrom === undefined ? {} : { lazyFrom };
	return {
		newStore: () => new PostgresSessionStore(db.session(randomUUID()), { durability, ...lazy }),
		sameSession: (store) => new PostgresSessionStore(store.location, { durability, privatePool: true, ...lazy }),
		readBackup: (backup) => readPostgresBackup(backup),
	};
}

const server = await postgresServer();
if ("skip" in server) {
	test("PostgreSQL conformance", { skip: server.skip }, () => {});
} else {
	const db = testSchema(server.url, "conformance");
	for (const mode of ["fsync", "none"] as const) {
		storeConformance(`PostgresSessionStore (durability ${mode})`, postgresTarget(db, mode));
	}
	// Every full read paged, its entries as envelopes with their bodies kept aside (large sessions' way).
	storeConformance("PostgresSessionStore (full reads paged, bodies kept aside)", postgresTarget(db, "none", 0));
}
