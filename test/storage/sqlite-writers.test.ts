/**
 * Real processes writing to one SQLite session at once: four writers × 1,000 appends lose
 * nothing, each writer's entries form its own chain, and a JSONL copy of the records opens to
 * the same context and leaf.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isHeaderRecord } from "../../src/core/validate.js";
import { Session } from "../../src/session.js";
import { FileSessionStore } from "../../src/storage/file-store.js";
import { storeAt } from "../../src/storage/locations.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-store.js";
import { asJson } from "../../src/testing/helpers.js";

const WRITER = join(dirname(fileURLToPath(import.meta.url)), "..", "support", "writer-process.js");
const WRITERS = 4;
const APPENDS = 1000;

const dir = mkdtempSync(join(tmpdir(), "st-sqlite-writers-"));
after(() => {
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

/** Runs the writer process; resolves with the ids it acknowledged, or rejects with its stderr. */
function runWriter(location: string, tag: string): Promise<string[]> {
	const child = spawn(process.execPath, [WRITER, location, String(APPENDS), "none", tag], {
		stdio: ["ignore", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (chunk: Buffer) => {
		stdout += chunk.toString("utf8");
	});
	child.stderr.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	return new Promise((resolve, reject) =>
		child.on("close", (code) => {
			if (code === 0) resolve(stdout.split("\n").filter((line) => line !== ""));
			else reject(new Error(`writer ${tag} exited with ${code}: ${stderr}`));
		}),
	);
}

test(`${WRITERS} processes × ${APPENDS} appends to one SQLite session: every entry once, each writer's own chain`, async (t) => {
	const location = `sqlite:${join(dir, "sessions.db")}#shared`;
	const start = await Session.create({ location });
	const root = await start.appendMessage({ role: "user", content: "start", timestamp: 0 });
	await start.close();

	const started = performance.now();
	const acked = await Promise.all(Array.from({ length: WRITERS }, (_, w) => runWriter(location, `w${w}`)));
	t.diagnostic(`${WRITERS} × ${APPENDS} appends by separate processes: ${Math.round(performance.now() - started)} ms`);

	const session = await Session.open(location);
	assert.deepEqual(session.problems, []);
	assert.equal(session.entryCount, 1 + WRITERS * APPENDS, "every new entry, once");
	const all = acked.flat();
	assert.equal(new Set(all).size, WRITERS * APPENDS, "distinct ids acknowledged");
	for (const id of all) assert.ok(session.getEntry(id), `acknowledged entry ${id} is present`);
	for (const entry of session.getEntries()) {
		if (entry.parentId !== null) assert.ok(session.getEntry(entry.parentId), `the parent of ${entry.id} is present`);
	}
	acked.forEach((ids, w) => {
		const own = new Set(ids);
		ids.forEach((id, i) => {
			const parent = session.getEntry(id)?.parentId ?? null;
			if (i > 0) assert.equal(parent, ids[i - 1], `writer ${w}'s entry ${i} follows its entry ${i - 1}`);
			else assert.ok(parent !== null && !own.has(parent), `writer ${w}'s first entry hangs under an earlier entry`);
		});
	});
	assert.ok(session.getEntry(root));

	// The same records in a JSONL file open to the same session.
	const records = (await storeAt(location).read()).lines.map((line) => line.record);
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
