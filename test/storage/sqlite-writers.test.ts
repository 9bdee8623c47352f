/**
 * Real processes writing to one SQLite session at once: four writers × 1,000 appends lose
 * nothing, each writer's entries form its own chain, and a JSONL copy of the records opens to
 * the same context and leaf.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { isHeaderRecord } from "../../src/core/validate.js";
import { Session } from "../../src/session.js";
import { readAllRecords } from "../../src/storage/batches.js";
import { FileSessionStore } from "../../src/storage/file-store.js";
import { storeAt } from "../../src/storage/locations.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-store.js";
import { asJson } from "../../src/testing/helpers.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { assertWriterChains, runWriter } from "../support/writers.js";

const WRITERS = 4;
const APPENDS = 1000;

const dir = mkdtempSync(join(tmpdir(), "st-sqlite-writers-"));
after(() => {
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

test(`${WRITERS} processes × ${APPENDS} appends to one SQLite session: every entry once, each writer's own chain`, {
	skip: SQLITE_SKIP,
}, async (t) => {
	const location = `sqlite:${join(dir, "sessions.db")}#shared`;
	const start = await Session.create({ location });
	const root = await start.appendMessage({ role: "user", content: "start", timestamp: 0 });
	await start.close();

	const started = performance.now();
	const acked = await Promise.all(
		Array.from({ length: WRITERS }, (_, w) => runWriter(location, APPENDS, "none", `w${w}`)),
	);
	t.diagnostic(`${WRITERS} × ${APPENDS} appends by separate processes: ${Math.round(performance.now() - started)} ms`);

	const session = await Session.open(location);
	assertWriterChains(session, acked, { entriesBefore: 1, appendsEach: APPENDS });
	assert.ok(session.getEntry(root));

	// The same records in a JSONL file open to the same session.
	const records = await readAllRecords(storeAt(location));
	const [header, ...rest] = records;
	assert.ok(header && isHeaderRecord(header), "the first record is the header");
	const file = new FileSessionStore(join(dir, "copy.jsonl"));
	const position = await file.create(header);
	const body = rest.map((record, k) => {
		assert.ok(record, `record ${k + 1} parses`);
		return record;
	});
	assert.equal((await file.append(body, position)).status, "ok");
	const copy = await Session.open(file.location);
	assert.equal(copy.getLeafId(), session.getLeafId());
	assert.deepEqual(asJson(copy.buildSessionContext()), asJson(session.buildSessionContext()));
	assert.equal(copy.entryCount, session.entryCount);
});
