/**
 * The JSONL file store passes the conformance suite, in a temporary directory, with each
 * durability mode; every file the suite leaves behind (sessions, forks, backups) is owner-only.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type Durability, FileSessionStore } from "../../src/index.js";
import { type ConformanceTarget, storeConformance } from "../../src/testing/index.js";

const root = mkdtempSync(join(tmpdir(), "st-conformance-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** The records of a JSONL file. */
function fileRecords(file: string): object[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as object);
}

function fileTarget(dir: string, durability: Durability): ConformanceTarget {
	let n = 0;
	return {
		newStore: () => new FileSessionStore(join(dir, `session-${++n}.jsonl`), { durability }),
		sameSession: (store) => new FileSessionStore(store.location, { durability }),
		readBackup: (backup) => fileRecords(backup),
	};
}

const modes: Durability[] = ["none", "fsync", "group"];
const dirs = modes.map((mode) => mkdtempSync(join(root, `${mode}-`)));

modes.forEach((mode, i) => {
	storeConformance(`FileSessionStore (durability ${mode})`, fileTarget(dirs[i] as string, mode));
});

describe("FileSessionStore conformance leftovers", () => {
	test("every file the suite left is owner-only (0600), and no lock file remains", async () => {
		// Appends keep the lock until the event loop turns; the suite's operations never make it
		// turn. A loaded machine may take a while to get there: wait up to 2 s for the releases.
		const lockFiles = () => dirs.flatMap((dir) => readdirSync(dir).filter((name) => name.endsWith(".lock")));
		for (let waited = 0; waited < 2000 && lockFiles().length > 0; waited += 20) {
			await new Promise((done) => setTimeout(done, 20));
		}
		for (const dir of dirs) {
			const names = readdirSync(dir);
			assert.ok(
				names.some((name) => name.endsWith(".jsonl")),
				"sessions were written",
			);
			assert.ok(
				names.some((name) => name.includes(".bak")),
				"backups were written",
			);
			for (const name of names) {
				assert.ok(!name.endsWith(".lock"), `a lock file remains: ${name}`);
				const mode = statSync(join(dir, name)).mode & 0o777;
				assert.equal(mode.toString(8), "600", `${name} is owner-only`);
			}
		}
	});
});
