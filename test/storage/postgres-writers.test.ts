/**
 * Real processes writing one PostgreSQL session at once, each with its own connections: the
 * row lock serialises them, nothing is lost, and each writer's entries form its own chain. A
 * JSONL copy of the records opens to the same context and leaf. Skips without a server (see
 * test/support/postgres.ts).
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { FileSessionStore, Session } from "../../src/index.js";
import { storeAt } from "../../src/storage/locations.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { assertWriterChains, runWriter } from "../support/writers.js";

const WRITERS = 4;
const APPENDS = 1000;

const server = await postgresServer();
if ("skip" in server) {
	test("PostgreSQL writer processes", { skip: server.skip }, () => {});
} else {
	const db = testSchema(server.url, "writers");
	const dir = mkdtempSync(join(tmpdir(), "st-pg-writers-"));
	after(() => rmSync(dir, { recursive: true, force: true }));

	test(`${WRITERS} processes × ${APPENDS.toLocaleString("en")} appends to one session: every entry once, each writer's chain, same as a JSONL copy`, async () => {
		const first = await Session.create({ location: db.url, cwd: "/pg-writers" });
		await first.appendMessage({ role: "user", content: "start", timestamp: 0 });
		await first.close();
		const location = first.location;
		const started = Date.now();
		const acked = await Promise.all(
			Array.from({ length: WRITERS }, (_, w) => runWriter(location, APPENDS, "none", `w${w}`)),
		);
		const elapsed = Date.now() - started;
		process.stdout.write(`# ${WRITERS} × ${APPENDS} appends by processes: ${elapsed} ms\n`);

		const session = await Session.open(location);
		assertWriterChains(session, acked, { entriesBefore: 1, appendsEach: APPENDS });
		const ids = session.getEntries().map((entry) => entry.id);

		// The same records in a JSONL file open to the same session.
		const read = await storeAt(location).read();
		const records = read.lines.map((line) => line.record).filter((record) => record !== undefined);
		assert.equal(records.length, 2 + WRITERS * APPENDS, "every line parses");
		const file = join(dir, "copy.jsonl");
		const copy = new FileSessionStore(file);
		let position = await copy.create(session.getHeader());
		for (let at = 1; at < records.length; at += 500) {
			const outcome = await copy.append(records.slice(at, at + 500), position);
			assert.equal(outcome.status, "ok");
			if (outcome.status === "ok") position = outcome.position;
		}
		const fromFile = await Session.open(file);
		assert.equal(fromFile.getLeafId(), session.getLeafId());
		assert.deepEqual(fromFile.buildSessionContext(), session.buildSessionContext());
		assert.deepEqual(
			fromFile.getEntries().map((entry) => entry.id),
			ids,
		);
	});
}
