import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isSessionTreeError, Session } from "../../src/index.js";
import { acquireLock, tryLock } from "../../src/storage/lock.js";

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

/** Starts a process that holds the lock of `file` for `ms`; resolves once it holds it. */
async function holder(file: string, ms: number) {
	const child = spawn(process.execPath, [HOLDER, file, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
	const closed = new Promise((resolve) => child.on("close", resolve));
	await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
	return { child, closed };
}

describe("the write lock", () => {
	test("is taken and released; the lock file holds pid, host and a token, owner-only", async () => {
		const file = fresh();
		const release = await acquireLock(file);
		const owner = JSON.parse(readFileSync(`${file}.lock`, "utf8"));
		assert.equal(owner.pid, process.pid);
		assert.equal(owner.host, hostname());
		assert.match(owner.token, /^[0-9a-f]{13,}$/);
		assert.equal(statSync(`${file}.lock`).mode & 0o777, 0o600);
		release();
		assert.equal(existsSync(`${file}.lock`), false);
		release(); // idempotent
	});

	test("a lock left by a crashed process on this host is broken at once", async () => {
		const file = fresh();
		writeFileSync(`${file}.lock`, JSON.stringify({ pid: deadPid(), host: hostname(), token: "dead" }));
		const started = performance.now();
		const release = await acquireLock(file, { timeoutMs: 5000 });
		assert.ok(performance.now() - started < 1000, "no waiting for a dead holder");
		release();
	});

	test("a live holder makes others wait, then fail with LOCKED naming it", async () => {
		const file = fresh();
		const { child, closed } = await holder(file, 4000);
		try {
			await assert.rejects(
				acquireLock(file, { timeoutMs: 200 }),
				(e: unknown) => isSessionTreeError(e, "LOCKED") && e.message.includes(String(child.pid)),
			);
		} finally {
			child.kill("SIGKILL");
			await closed;
		}
		// Killed while holding it: the next writer recovers at once.
		(await acquireLock(file, { timeoutMs: 1000 }))();
	});

	test("waiting does not block the event loop", async () => {
		const file = fresh();
		const { child, closed } = await holder(file, 4000);
		try {
			let ticks = 0;
			const timer = setInterval(() => ticks++, 5);
			await assert.rejects(acquireLock(file, { timeoutMs: 300 }), (e: unknown) => isSessionTreeError(e, "LOCKED"));
			clearInterval(timer);
			assert.ok(ticks >= 10, `timers ran while waiting (${ticks} ticks)`);
		} finally {
			child.kill("SIGKILL");
			await closed;
		}
	});

	test("a waiting writer gets the lock as soon as the holder releases it", async () => {
		const file = fresh();
		const { closed } = await holder(file, 300);
		const started = performance.now();
		const release = await acquireLock(file, { timeoutMs: 5000 });
		const waited = performance.now() - started;
		release();
		await closed;
		assert.ok(waited > 100 && waited < 3000, `waited ${waited} ms`);
	});

	test("an unreadable lock is broken once it is a second old; another host's only when stale", async () => {
		const file = fresh();
		const lock = `${file}.lock`;
		writeFileSync(lock, "");
		const old = new Date(Date.now() - 5000);
		utimesSync(lock, old, old);
		(await acquireLock(file, { timeoutMs: 1000 }))();

		writeFileSync(lock, JSON.stringify({ pid: 1, host: "elsewhere.example", token: "remote" }));
		await assert.rejects(acquireLock(file, { timeoutMs: 100, staleMs: 60_000 }), (e: unknown) =>
			isSessionTreeError(e, "LOCKED"),
		);
		utimesSync(lock, old, old);
		(await acquireLock(file, { timeoutMs: 1000, staleMs: 1000 }))();
	});

	test("within one process the lock is shared: it is removed when the last holder releases it", async () => {
		const file = fresh();
		const first = await acquireLock(file, { timeoutMs: 100 });
		const second = await acquireLock(file, { timeoutMs: 100 });
		const third = tryLock(file);
		assert.ok(third, "tryLock shares it too");
		first();
		first();
		third();
		assert.ok(existsSync(`${file}.lock`), "still held by the second");
		second();
		assert.equal(existsSync(`${file}.lock`), false);
	});
});

describe("tryLock", () => {
	test("takes a free lock at once, synchronously", () => {
		const file = fresh();
		const release = tryLock(file);
		assert.ok(release);
		assert.equal(JSON.parse(readFileSync(`${file}.lock`, "utf8")).pid, process.pid);
		release();
		assert.equal(existsSync(`${file}.lock`), false);
	});

	test("one try: undefined while another live process holds it, without waiting", async () => {
		const file = fresh();
		const { child, closed } = await holder(file, 4000);
		try {
			const started = performance.now();
			assert.equal(tryLock(file), undefined);
			assert.ok(performance.now() - started < 100, "no waiting");
			assert.ok(existsSync(`${file}.lock`), "the holder's lock is left alone");
			assert.equal(JSON.parse(readFileSync(`${file}.lock`, "utf8")).pid, child.pid);
		} finally {
			child.kill("SIGKILL");
			await closed;
		}
		// The holder died with it: one try breaks the dead lock and takes it.
		const release = tryLock(file);
		assert.ok(release, "a dead holder's lock is broken by a single try");
		release();
	});

	test("a lock of another host that is not stale yet: undefined; once stale: taken", () => {
		const file = fresh();
		const lock = `${file}.lock`;
		writeFileSync(lock, JSON.stringify({ pid: 1, host: "elsewhere.example", token: "remote" }));
		assert.equal(tryLock(file, { staleMs: 60_000 }), undefined);
		const old = new Date(Date.now() - 5000);
		utimesSync(lock, old, old);
		const release = tryLock(file, { staleMs: 1000 });
		assert.ok(release);
		assert.equal(JSON.parse(readFileSync(lock, "utf8")).pid, process.pid);
		release();
	});
});

describe("two sessions of one process on one file", () => {
	test("awaited in turn, they see each other's entries and keep their own leaves", async () => {
		const a = await Session.create({ dir, cwd: "/two" });
		const file = a.file as string;
		const q = await a.appendMessage({ role: "user", content: "from a", timestamp: 1 });
		const b = await Session.open(file);
		const r = await b.appendMessage({ role: "user", content: "from b", timestamp: 2 });
		const s = await a.appendMessage({ role: "user", content: "a again", timestamp: 3 });
		assert.ok(a.getEntry(r), "a caught up on b's entry");
		assert.equal(b.getEntry(r)?.parentId, q);
		assert.equal(a.getEntry(s)?.parentId, q, "a's own leaf");
		const reopened = await Session.open(file);
		assert.deepEqual(reopened.problems, []);
		assert.equal(reopened.entryCount, 3);
		await a.close();
		await b.close();
	});
});

describe("durability modes", () => {
	for (const durability of ["none", "fsync", "group"] as const) {
		test(`${durability}: appends are in the file and a reopen sees them`, async () => {
			const s = await Session.create({ dir, cwd: "/d", durability });
			for (let i = 0; i < 100; i++) await s.appendMessage({ role: "user", content: `m${i}`, timestamp: i });
			assert.equal((await Session.open(s.file as string)).entryCount, 100);
			await s.close();
		});

		test(`${durability}: unawaited appends are all written, in call order`, async () => {
			const s = await Session.create({ dir, cwd: "/d", durability });
			const pending: Array<Promise<string>> = [];
			for (let i = 0; i < 100; i++) pending.push(s.appendMessage({ role: "user", content: `m${i}`, timestamp: i }));
			const ids = await Promise.all(pending);
			await s.close();
			const reopened = await Session.open(s.file as string);
			assert.deepEqual(
				reopened.getBranch().map((e) => e.id),
				ids,
			);
		});
	}

	test("group: a process that never closes its session still exits promptly with its appends written", async () => {
		const file = (await Session.create({ dir, cwd: "/d" })).file as string;
		const script = `import { Session } from ${JSON.stringify(join(dirname(HOLDER), "..", "..", "src", "index.js"))};
const s = await Session.open(${JSON.stringify(file)}, { durability: "group" });
for (let i = 0; i < 10; i++) await s.appendMessage({ role: "user", content: "m" + i, timestamp: i });`;
		const started = performance.now();
		const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
		assert.equal(child.status, 0, child.stderr);
		assert.ok(performance.now() - started < 5000, "the group-commit timer does not keep the process alive");
		assert.equal((await Session.open(file)).entryCount, 10);
	});
});
