import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { acquireLock, isSessionTreeError, Session } from "../../src/index.js";

const HOLDER = join(dirname(fileURLToPath(import.meta.url)), "..", "support", "lock-holder.js");
const dir = mkdtempSync(join(tmpdir(), "st-lock-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `s${++n}.jsonl`);

/** The pid of a process that has exited. */
function deadPid(): number {
	const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
	return Number(child.stdout.toString());
}

describe("the write lock", () => {
	test("is taken and released; the lock file holds pid, host and a token", () => {
		const file = fresh();
		const release = acquireLock(file);
		const owner = JSON.parse(readFileSync(`${file}.lock`, "utf8"));
		assert.equal(owner.pid, process.pid);
		assert.equal(owner.host, hostname());
		assert.match(owner.token, /^[0-9a-f]{13,}$/);
		release();
		assert.equal(existsSync(`${file}.lock`), false);
		release(); // idempotent
	});

	test("a lock left by a crashed process on this host is broken at once", () => {
		const file = fresh();
		writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), host: hostname(), token: "dead" }));
		const started = performance.now();
		const release = acquireLock(file, { timeoutMs: 5000 });
		assert.ok(performance.now() - started < 1000, "no waiting for a dead holder");
		release();
	});

	test("a live holder makes others wait, then fail with LOCKED naming it", async () => {
		const file = fresh();
		const child = spawn(process.execPath, [HOLDER, file, "4000"], { stdio: ["ignore", "pipe", "inherit"] });
		await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
		try {
			assert.throws(
				() => acquireLock(file, { timeoutMs: 200 }),
				(e: unknown) => isSessionTreeError(e, "LOCKED") && e.message.includes(String(child.pid)),
			);
		} finally {
			child.kill("SIGKILL");
			await new Promise((resolve) => child.on("close", resolve));
		}
		// Killed while holding it: the next writer recovers at once.
		acquireLock(file, { timeoutMs: 1000 })();
	});

	test("a waiting writer gets the lock as soon as the holder releases it", async () => {
		const file = fresh();
		const child = spawn(process.execPath, [HOLDER, file, "300"], { stdio: ["ignore", "pipe", "inherit"] });
		await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
		const started = performance.now();
		const release = acquireLock(file, { timeoutMs: 5000 });
		const waited = performance.now() - started;
		release();
		await new Promise((resolve) => child.on("close", resolve));
		assert.ok(waited > 100 && waited < 3000, `waited ${waited} ms`);
	});

	test("an unreadable lock is broken once it is a second old; another host's only when stale", () => {
		const file = fresh();
		const lock = `${file}.lock`;
		writeFileSync(lock, "");
		const old = new Date(Date.now() - 5000);
		utimesSync(lock, old, old);
		acquireLock(file, { timeoutMs: 1000 })();

		writeFileSync(lock, JSON.stringify({ pid: 1, host: "elsewhere.example", token: "remote" }));
		assert.throws(
			() => acquireLock(file, { timeoutMs: 100, staleMs: 60_000 }),
			(e: unknown) => isSessionTreeError(e, "LOCKED"),
		);
		utimesSync(lock, old, old);
		acquireLock(file, { timeoutMs: 1000, staleMs: 1000 })();
	});

	test("within one process the lock is shared: it is removed when the last holder releases it", () => {
		const file = fresh();
		const first = acquireLock(file, { timeoutMs: 100 });
		const second = acquireLock(file, { timeoutMs: 100 });
		first();
		first();
		assert.ok(existsSync(`${file}.lock`), "still held by the second");
		second();
		assert.equal(existsSync(`${file}.lock`), false);
	});

	test("two sessions of one process on one file, in one task, take turns and see each other's entries", () => {
		const a = Session.create({ dir, cwd: "/two" });
		const file = a.file as string;
		const q = a.appendMessage({ role: "user", content: "from a", timestamp: 1 });
		const b = Session.open(file);
		const r = b.appendMessage({ role: "user", content: "from b", timestamp: 2 });
		const s = a.appendMessage({ role: "user", content: "a again", timestamp: 3 });
		assert.ok(a.getEntry(r), "a caught up on b's entry");
		assert.equal(b.getEntry(r)?.parentId, q);
		assert.equal(a.getEntry(s)?.parentId, q, "a's own leaf");
		const reopened = Session.open(file);
		assert.deepEqual(reopened.problems, []);
		assert.equal(reopened.entryCount, 3);
		a.close();
		b.close();
	});
});

describe("durability modes", () => {
	for (const durability of ["none", "fsync", "group"] as const) {
		test(`${durability}: appends are in the file and a reopen sees them`, () => {
			const s = Session.create({ dir, cwd: "/d", durability });
			for (let i = 0; i < 100; i++) s.appendMessage({ role: "user", content: `m${i}`, timestamp: i });
			assert.equal(Session.open(s.file as string).entryCount, 100);
			s.close();
		});
	}

	test("group: a process that never closes its session still exits promptly with its appends written", () => {
		const file = Session.create({ dir, cwd: "/d" }).file as string;
		const script = `import { Session } from ${JSON.stringify(join(dirname(HOLDER), "..", "..", "src", "index.js"))};
const s = Session.open(${JSON.stringify(file)}, { durability: "group" });
for (let i = 0; i < 10; i++) s.appendMessage({ role: "user", content: "m" + i, timestamp: i });`;
		const started = performance.now();
		const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
		assert.equal(child.status, 0, child.stderr);
		assert.ok(performance.now() - started < 5000, "the group-commit timer does not keep the process alive");
		assert.equal(Session.open(file).entryCount, 10);
	});
});
