/**
 * Real processes: appends acknowledged in fsync mode survive SIGKILL at random moments, and
 * several processes appending to one session lose nothing and interleave no lines.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { assertWriterChains, runWriter, startWriter, WRITER } from "../support/writers.js";

const dir = mkdtempSync(join(tmpdir(), "st-proc-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Every line parses and every parent is present: a strict open succeeds (a torn tail is allowed). */
async function assertConsistent(file: string): Promise<Session> {
	const session = await Session.open(file);
	for (const problem of session.problems) assert.equal(problem.code, "TORN_TAIL", problem.message);
	for (const entry of session.getEntries()) {
		if (entry.parentId !== null) assert.ok(session.getEntry(entry.parentId), `parent of ${entry.id}`);
	}
	return session;
}

describe("crash safety", () => {
	test("200 SIGKILLs at random moments: every acknowledged fsync append survives", async () => {
		const file = (await Session.create({ dir, cwd: "/crash" })).file as string;
		const kills = Number(process.env.SESSION_TREE_CRASH_KILLS ?? 200);
		const allAcked: string[] = [];
		let killedMidway = 0;
		for (let round = 0; round < kills; round++) {
			const writer = startWriter(file, 1_000_000, "fsync", `r${round}`);
			// Let it start and append for a random while: 0–25 ms after its first acknowledgement.
			let exited = false;
			void writer.done.then(() => {
				exited = true;
			});
			await new Promise<void>((resolve) => {
				const wait = () => {
					if (writer.acked.length > 0) setTimeout(resolve, Math.random() * 25);
					else if (exited) resolve();
					else setTimeout(wait, 1);
				};
				wait();
			});
			assert.ok(
				writer.acked.length > 0,
				`the writer of round ${round} exited before its first append: ${writer.stderr()}`,
			);
			writer.child.kill("SIGKILL");
			const code = await writer.done;
			if (code === null) killedMidway++;
			allAcked.push(...writer.acked);
			const session = await assertConsistent(file);
			for (const id of writer.acked)
				assert.ok(session.getEntry(id), `acknowledged entry ${id} of round ${round} is lost`);
		}
		const session = await assertConsistent(file);
		for (const id of allAcked) assert.ok(session.getEntry(id), `acknowledged entry ${id} is lost`);
		assert.equal(killedMidway, kills, "every writer was killed while running");
		assert.ok(allAcked.length >= kills);
	});
});

/** How often the writer changes from one line of the file to the next (tags are the first word of a message). */
function writerSwitches(file: string): number {
	const tags = readFileSync(file, "utf8")
		.trimEnd()
		.split("\n")
		.slice(2)
		.map((line) => String(JSON.parse(line).message.content).split(" ")[0]);
	return tags.filter((tag, i) => i > 0 && tag !== tags[i - 1]).length;
}

describe("concurrent writers", () => {
	for (const pace of ["none", "timer"] as const) {
		const how = pace === "none" ? "each in an awaited loop" : "each waiting for a timer between appends";
		test(`4 processes × 2,000 appends to one session (${how}): 8,000 new entries, no line lost or interleaved`, async () => {
			const session = await Session.create({ dir, cwd: "/concurrent" });
			await session.appendMessage({ role: "user", content: "start", timestamp: 0 });
			await session.close();
			const file = session.file as string;
			const acked = await Promise.all([0, 1, 2, 3].map((n) => runWriter(file, 2000, "none", `w${n}`, { pace })));
			const lines = readFileSync(file, "utf8").split("\n");
			assert.equal(lines.pop(), "", "the file ends with a newline");
			for (const [i, line] of lines.entries()) {
				assert.doesNotThrow(() => JSON.parse(line), `line ${i + 1} is one whole record`);
			}
			// Each writer appends under its own leaf: its entries form one chain, in order.
			assertWriterChains(await assertConsistent(file), acked, { entriesBefore: 1, appendsEach: 2000 });
			if (pace === "timer") {
				// The writers really ran side by side: their appends alternate in the file.
				const switches = writerSwitches(file);
				assert.ok(switches >= 100, `the writers took turns only ${switches} times`);
			}
		});
	}

	test("a process appending in an awaited loop does not shut other processes out", async () => {
		const session = await Session.create({ dir, cwd: "/burst" });
		await session.close();
		const file = session.file as string;
		const burst = startWriter(file, 1_000_000, "none", "burst");
		await new Promise<void>((resolve) => {
			const wait = () => (burst.acked.length > 0 ? resolve() : setTimeout(wait, 1));
			wait();
		});
		// Another process with a lock timeout of 2 s appends one entry while the loop runs.
		const script = `import { FileSessionStore, Session } from ${JSON.stringify(join(dirname(WRITER), "..", "..", "src", "index.js"))};
const s = await Session.openStore(new FileSessionStore(${JSON.stringify(file)}, { lock: { timeoutMs: 2000 } }));
process.stdout.write(await s.appendMessage({ role: "user", content: "other", timestamp: 1 }));
await s.close();`;
		const other = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let err = "";
		other.stdout.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
		});
		other.stderr.on("data", (chunk: Buffer) => {
			err += chunk.toString("utf8");
		});
		const code = await new Promise<number | null>((resolve) => other.on("close", resolve));
		const stillRunning = burst.child.exitCode === null;
		burst.child.kill("SIGKILL");
		await burst.done;
		assert.ok(stillRunning, "the loop was still appending");
		const reason = err.split("\n").find((line) => /^\S*Error\b/.test(line)) ?? err;
		assert.equal(code, 0, `the other process could not append: ${reason}`);
		const reopened = await assertConsistent(file);
		assert.ok(reopened.getEntry(out), "the other process's entry is in the file");
	});
});
