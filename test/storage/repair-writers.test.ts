/**
 * `repair` while other processes append (docs/durability.md, "Repair while others write"):
 * the repair takes the appends' lock for its compare-and-replace, so it writes every line
 * acknowledged before it; a writer whose position went stale reads the replaced file again
 * and goes on; no acknowledged entry is lost, and every repair leaves its own backup.
 */

import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { realFile } from "../../src/storage/file-store.js";
import { acquireLock } from "../../src/storage/lock.js";
import { cli, fixture } from "../cli/helpers.js";
import { type StartedWriter, startWriter } from "../support/writers.js";

const dir = mkdtempSync(join(tmpdir(), "st-repair-writers-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Damage of three kinds, each a whole line appended under the lock as a cooperating writer
 * appends (so no writer's line is torn by it): a line that is no JSON, a line of NUL bytes,
 * and an entry whose parent does not exist (kept, bridged to the entry before it).
 */
function damage(n: number): { line: string; keptEntry?: string } {
	switch (n % 3) {
		case 0:
			return { line: `not a record ${n} {\n` };
		case 1:
			return { line: `${"\0".repeat(16)}\n` };
		default: {
			const id = `dmg${String(n).padStart(5, "0")}`;
			const entry = {
				type: "message",
				id,
				parentId: `gone${String(n).padStart(4, "0")}`,
				timestamp: new Date(n).toISOString(),
				message: { role: "user", content: `orphan ${n}`, timestamp: n },
			};
			return { line: `${JSON.stringify(entry)}\n`, keptEntry: id };
		}
	}
}

/** Appends a damaged line under the session's lock, as a writer of ours would append a record. */
async function injectDamage(file: string, n: number): Promise<string | undefined> {
	const { line, keptEntry } = damage(n);
	const release = await acquireLock(realFile(file));
	try {
		appendFileSync(file, line);
	} finally {
		release();
	}
	return keptEntry;
}

/** Repairs in this process (`Session.repair`), as a program would: the backup's path. */
async function repairInProcess(file: string): Promise<string | undefined> {
	const session = await Session.open(file, { lenient: true, verify: true });
	try {
		return await session.repair();
	} finally {
		await session.close();
	}
}

/** Repairs with the CLI, in a process of its own: the backup's path. */
async function repairWithCli(file: string): Promise<string> {
	const result = await cli(["repair", file]);
	assert.equal(result.code, 0, `session-tree repair exited ${result.code}: ${result.stderr}`);
	return result.stdout.trim();
}

function backupsOf(file: string): string[] {
	const name = basename(file);
	return readdirSync(dirname(file)).filter((entry) => entry === `${name}.bak` || entry.startsWith(`${name}.bak.`));
}

describe("repair while other processes append", () => {
	test("3 writers × 1,000 appends, 15 repairs meanwhile: every acknowledged id in the final file", async () => {
		const start = await Session.create({ dir, cwd: "/repair-writers" });
		await start.appendMessage({ role: "user", content: "start", timestamp: 0 });
		await start.close();
		const file = start.file as string;
		// The writers append every 2 ms, and may make their last 100 appends only once the last
		// repair has begun: every repair starts while all three are still appending.
		const writers: StartedWriter[] = [0, 1, 2].map((n) =>
			startWriter(file, 1000, "none", `w${n}`, { pace: 2, credits: true }),
		);
		for (const writer of writers) writer.grant(900);
		const running = () => writers.every((writer) => writer.child.exitCode === null);
		const total = () => writers.reduce((sum, writer) => sum + writer.acked.length, 0);
		// The writers open the file strictly: the damage comes once each of them has appended.
		await new Promise<void>((resolve) => {
			const wait = () => (writers.every((w) => w.acked.length > 0) || !running() ? resolve() : setTimeout(wait, 2));
			wait();
		});
		const kept: string[] = [];
		const backups: string[] = [];
		let raced = 0;
		for (let n = 0; n < 15; n++) {
			// Something to repair: without damage a repair writes nothing.
			const entry = await injectDamage(file, n);
			if (entry !== undefined) kept.push(entry);
			const status = writers.map(
				(w, i) => `writer ${i}: exit ${w.child.exitCode}, ${w.acked.length} acked ${w.stderr()}`,
			);
			assert.ok(running(), `the writers were still appending when repair ${n} began: ${status.join("; ")}`);
			const before = total();
			const repair = n % 2 === 0 ? repairInProcess(file) : repairWithCli(file);
			if (n === 14) for (const writer of writers) writer.grant(100);
			const backup = await repair;
			assert.ok(backup !== undefined, `repair ${n} rewrote the file`);
			backups.push(backup);
			if (total() > before) raced++;
		}
		// Appends were acknowledged while repairs ran (not only between them).
		assert.ok(raced >= 1, "no repair ran while the writers appended");
		const acked = await Promise.all(
			writers.map(async (writer, w) => {
				const code = await writer.done;
				assert.equal(code, 0, `writer ${w} went on after the file was replaced: ${writer.stderr()}`);
				return writer.acked;
			}),
		);

		// Each repair made a backup of its own; none was overwritten.
		assert.equal(new Set(backups).size, 15);
		assert.equal(backupsOf(file).length, 15);
		// The last repair left a clean file, and the writers appended only whole records after it.
		const session = await Session.open(file);
		try {
			assert.deepEqual(session.problems, []);
			for (const [w, ids] of acked.entries()) {
				assert.equal(ids.length, 1000, `writer ${w} acknowledged every append`);
				for (const id of ids) assert.ok(session.getEntry(id), `acknowledged entry ${id} of writer ${w} is in the file`);
				// Each writer's entries are still one chain: a repair moves no acknowledged entry.
				for (let i = 1; i < ids.length; i++) {
					assert.equal(session.getEntry(ids[i] as string)?.parentId, ids[i - 1], `writer ${w}'s entry ${i}`);
				}
			}
			for (const id of kept) assert.ok(session.getEntry(id), `the bridged entry ${id} is kept`);
			assert.equal(session.entryCount, 1 + 3000 + kept.length, "every entry once, nothing else");
		} finally {
			await session.close();
		}
	});

	test("a strict writer whose file was replaced, with new damage since, catches up and appends", async () => {
		const writer = await Session.create({ dir, cwd: "/replaced" });
		const first = await writer.appendMessage({ role: "user", content: "first", timestamp: 0 });
		const file = writer.file as string;
		await injectDamage(file, 0);
		assert.ok(await repairInProcess(file), "the first repair rewrote the file");
		// Another writer's damage after the replace: the writer's position is stale, and its
		// full read of the new file meets the damage, as a catch-up would.
		await injectDamage(file, 1);
		await injectDamage(file, 2);
		const second = await writer.appendMessage({ role: "user", content: "second", timestamp: 1 });
		assert.equal(writer.getEntry(second)?.parentId, first, "the writer's chain goes on");
		assert.deepEqual(
			writer.problems.map((problem) => problem.code),
			["NUL_PADDING", "MISSING_PARENT"],
			"the damage is reported, not thrown",
		);
		await writer.close();
		assert.ok(await repairInProcess(file), "the second repair rewrote the file");
		const reopened = await Session.open(file);
		assert.deepEqual(reopened.problems, []);
		assert.ok(reopened.getEntry(first) && reopened.getEntry(second));
		await reopened.close();
	});

	test("a strict migrate that finds the file replaced and damaged since writes nothing and says so", async () => {
		const file = join(dir, "legacy-v2.jsonl");
		copyFileSync(fixture("legacy-v2"), file);
		const migrating = await Session.open(file);
		// Meanwhile another process repairs (and so migrates) the file, and someone appends damage.
		assert.ok(await repairInProcess(file));
		await injectDamage(file, 0);
		const before = readFileSync(file);
		await assert.rejects(migrating.migrate(), (error: Error & { code?: string }) => error.code === "NOT_WRITABLE");
		assert.deepEqual(readFileSync(file), before, "the damage is not dropped by a migrate");
		await migrating.close();
	});
});
