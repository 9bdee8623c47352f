/**
 * Real processes writing one PostgreSQL session at once, each with its own connections: the
 * row lock serialises them, nothing is lost, and each writer's entries form its own chain. A
 * JSONL copy of the records opens to the same context and leaf. Skips without a server (see
 * test/support/postgres.ts).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { FileSessionStore, Session } from "../../src/index.js";
import { storeAt } from "../../src/storage/locations.js";
import { postgresServer, testSchema } from "../support/postgres.js";

const WRITER = join(dirname(fileURLToPath(import.meta.url)), "..", "support", "writer-process.js");
const WRITERS = 4;
const APPENDS = 1000;

/** Runs the writer process on `location`: the ids it acknowledged, in order, once it exited. */
function runWriter(location: string, tag: string): Promise<{ code: number | null; acked: string[]; stderr: string }> {
	const child = spawn(process.execPath, [WRITER, location, String(APPENDS), "none", tag], {
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	let stderr = "";
	child.stdout.on("data", (chunk: Buffer) => {
		out += chunk.toString("utf8");
	});
	child.stderr.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	return new Promise((resolve) =>
		child.on("close", (code) => resolve({ code, acked: out.split("\n").filter(Boolean), stderr })),
	);
}

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
		const runs = await Promise.all(Array.from({ length: WRITERS }, (_, w) => runWriter(location, `w${w}`)));
		const elapsed = Date.now() - started;
		assert.deepEqual(
			runs.map((run) => run.code),
			runs.map(() => 0),
			runs.map((run) => run.stderr).join("\n"),
		);
		process.stdout.write(`# ${WRITERS} × ${APPENDS} appends by processes: ${elapsed} ms\n`);

		const session = await Session.open(location);
		assert.deepEqual(session.problems, []);
		assert.equal(session.entryCount, 1 + WRITERS * APPENDS, "every entry, once");
		const ids = session.getEntries().map((entry) => entry.id);
		assert.equal(new Set(ids).size, ids.length, "no id twice");
		for (const entry of session.getEntries()) {
			assert.ok(entry.parentId === null || session.getEntry(entry.parentId), `the parent of ${entry.id} is present`);
		}
		const acked = runs.flatMap((run) => run.acked);
		assert.equal(new Set(acked).size, WRITERS * APPENDS, "every acknowledged id is distinct");
		for (const run of runs) {
			assert.equal(run.acked.length, APPENDS);
			run.acked.forEach((id, i) => {
				const entry = session.getEntry(id);
				assert.ok(entry, `acknowledged ${id} is present`);
				// The first hangs under the leaf the writer opened at (root, or what others had appended by then).
				if (i > 0) assert.equal(entry.parentId, run.acked[i - 1], "each writer's entries form its own chain");
			});
		}

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
