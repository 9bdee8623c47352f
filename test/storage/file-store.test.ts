import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
	appendFileSync,
	closeSync,
	existsSync,
	mkdtempSync,
	openSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Envelope } from "../../src/core/tree-node.js";
import {
	type AppendOutcome,
	FileSessionStore,
	isPending,
	isSessionTreeError,
	Session,
	type SessionHeader,
	type StoreRead,
} from "../../src/index.js";
import { readFileLines } from "../../src/storage/file-store.js";

const HOLDER = join(dirname(fileURLToPath(import.meta.url)), "..", "support", "lock-holder.js");
const dir = mkdtempSync(join(tmpdir(), "st-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `f${++n}.jsonl`);

const T0 = "2026-03-01T10:00:00.000Z";
const HEADER: SessionHeader = { type: "session", version: 3, id: "sess-store", timestamp: T0, cwd: "/p" };

/** A message record in pi's layout. */
function message(id: string, parentId: string | null, content = `text of ${id}`): Record<string, unknown> {
	return { type: "message", id, parentId, timestamp: T0, message: { role: "user", content, timestamp: 1 } };
}

const line = (record: object) => `${JSON.stringify(record)}\n`;

/** Every record of a read, envelopes read back through the read's source. */
function recordsOf(read: StoreRead): unknown[] {
	return read.lines.map((parsed) => {
		if (parsed instanceof Envelope) {
			assert.ok(read.source, "envelopes come with a source");
			return JSON.parse(read.source.readLines([parsed])[0] as string);
		}
		assert.ok(parsed.record, `line ${parsed.line}: ${parsed.error?.message}`);
		return parsed.record;
	});
}

function okPosition(outcome: AppendOutcome): string {
	assert.equal(outcome.status, "ok", JSON.stringify(outcome));
	return (outcome as { position: string }).position;
}

function behindRead(outcome: AppendOutcome): StoreRead {
	assert.equal(outcome.status, "behind", JSON.stringify(outcome));
	return (outcome as { read: StoreRead }).read;
}

/** A new file holding the header; the store that created it and its position. */
async function created(file = fresh()) {
	const store = new FileSessionStore(file);
	const position = await store.create(HEADER);
	return { file, store, position };
}

const turnEnds = () => new Promise((resolve) => setImmediate(resolve));

describe("readFileLines", () => {
	test("splits only on \\n, across chunk boundaries, keeping multi-byte characters whole", () => {
		const file = fresh();
		// Lines longer than the 1 MiB chunk, with 4-byte characters straddling chunk edges.
		const long = "😀".repeat(300_000); // 1.2 MB
		const lines = ["a\u2028b\rc", long, "", "é", `${long}x`];
		writeFileSync(file, `${lines.join("\n")}\n`);
		const read = [...readFileLines(file)];
		assert.deepEqual(
			read.map((l) => l.text),
			lines,
		);
		assert.deepEqual(
			read.map((l) => l.line),
			[1, 2, 3, 4, 5],
		);
	});

	test("drops a byte-order mark and returns a last line without newline", () => {
		const file = fresh();
		writeFileSync(file, '\ufeff{}\n{"a":1}');
		assert.deepEqual(
			[...readFileLines(file)].map((l) => l.text),
			["{}", '{"a":1}'],
		);
	});

	test("a missing file is FILE_NOT_FOUND naming the file", () => {
		const file = join(dir, "nope.jsonl");
		assert.throws(
			() => [...readFileLines(file)],
			(e: unknown) => isSessionTreeError(e, "FILE_NOT_FOUND") && e.message.includes(file),
		);
	});
});

describe("FileSessionStore", () => {
	test("creates owner-only files (and their directories) and refuses to overwrite", async () => {
		const file = join(dir, "sub", "dir", "s.jsonl");
		const store = new FileSessionStore(file);
		assert.equal(await store.exists(), false);
		await store.create({ type: "session", version: 3, id: "x", timestamp: "t", cwd: "/" });
		assert.equal(await store.exists(), true);
		assert.equal(statSync(file).mode & 0o777, 0o600);
		assert.equal(readFileSync(file, "utf8"), line({ type: "session", version: 3, id: "x", timestamp: "t", cwd: "/" }));
		await assert.rejects(store.create(HEADER), (e: unknown) => isSessionTreeError(e, "FILE_EXISTS"));
		assert.equal(statSync(file).mode & 0o777, 0o600);
	});

	test("declares lazy bodies, tail reads and all three durability modes", () => {
		const store = new FileSessionStore(fresh());
		assert.equal(store.capabilities.lazyBodies, true);
		assert.equal(store.capabilities.tailReads, true);
		assert.deepEqual([...store.capabilities.durability].sort(), ["fsync", "group", "none"]);
		assert.equal(store.location, store.file);
	});

	test("a missing file: exists is false, read is FILE_NOT_FOUND, readSince is undefined", async () => {
		const { file, store, position } = await created();
		rmSync(file);
		assert.equal(await store.exists(), false);
		await assert.rejects(store.read(), (e: unknown) => isSessionTreeError(e, "FILE_NOT_FOUND"));
		assert.equal(await store.readSince(position), undefined);
		await assert.rejects(
			async () => store.append([message("aaaa0001", null)], position),
			(e: unknown) => isSessionTreeError(e, "FILE_NOT_FOUND"),
		);
		assert.equal(existsSync(file), false, "an append does not create the file");
	});

	test("each append adds exactly its lines at the end and leaves the rest byte for byte", async () => {
		const s = await Session.create({ dir, cwd: "/p" });
		const file = s.file as string;
		let before = readFileSync(file);
		for (let i = 0; i < 20; i++) {
			const id = await s.appendMessage({ role: "user", content: `m${i}`, timestamp: i });
			const after = readFileSync(file);
			assert.deepEqual(after.subarray(0, before.length), before, "prefix unchanged");
			const added = after.subarray(before.length).toString("utf8");
			assert.equal(added.split("\n").length, 2, "one line");
			assert.equal(JSON.parse(added).id, id);
			before = after;
		}
		assert.equal(statSync(file).mode & 0o777, 0o600);
	});

	test("CRLF line ends, blank lines and a BOM still load", async () => {
		const s = await Session.create({ dir, cwd: "/p" });
		await s.appendMessage({ role: "user", content: "hi", timestamp: 1 });
		const file = s.file as string;
		const text = readFileSync(file, "utf8");
		writeFileSync(file, `\ufeff${text.split("\n").join("\r\n")}\n\n  \n`);
		const reopened = await Session.open(file);
		assert.equal(reopened.entryCount, 1);
		assert.equal(reopened.buildSessionContext().messages.length, 1);
	});

	test("a default file name follows pi's layout and naming", async () => {
		const agentDir = join(dir, "agent");
		const s = await Session.create({ agentDir, cwd: "/home/me/proj", now: () => new Date("2026-03-04T05:06:07.089Z") });
		const file = s.file as string;
		assert.equal(
			file,
			join(agentDir, "sessions", "--home-me-proj--", `2026-03-04T05-06-07-089Z_${s.getSessionId()}.jsonl`),
		);
		assert.match(s.getSessionId(), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		assert.equal(statSync(file).mode & 0o777, 0o600);
	});

	test("a session id that would leave the directory is refused", async () => {
		await assert.rejects(Session.create({ dir, id: "../../etc/x" }), (e: unknown) =>
			isSessionTreeError(e, "INVALID_ARGUMENT"),
		);
	});
});

describe("FileSessionStore: compare-and-append", () => {
	test("an append at the current position is ok and moves the position past its records", async () => {
		const { file, store, position } = await created();
		const r1 = message("aaaa0001", null);
		const r2 = message("aaaa0002", "aaaa0001");
		const r3 = message("aaaa0003", "aaaa0002");
		const p1 = okPosition(await store.append([r1], position));
		const p2 = okPosition(await store.append([r2, r3], p1));
		assert.equal(readFileSync(file, "utf8"), [HEADER, r1, r2, r3].map(line).join(""));
		const read = await store.read();
		assert.deepEqual(recordsOf(read), [HEADER, r1, r2, r3]);
		assert.deepEqual(await store.readSince(p2), { lines: [], position: p2 }, "nothing after the last append");
		assert.deepEqual(recordsOf((await store.readSince(p1)) as StoreRead), [r2, r3]);
		assert.deepEqual(recordsOf((await store.readSince(position)) as StoreRead), [r1, r2, r3]);
		await store.close();
	});

	test("the append that takes the lock answers with a promise; the next ones of the turn answer at once", async () => {
		const { file, store, position } = await created();
		await turnEnds();
		const r1 = message("aaaa0001", null);
		const r2 = message("aaaa0002", "aaaa0001");
		const first = store.append([r1], position);
		assert.equal(isPending(first), true, "taking the lock waits");
		const p1 = okPosition(await first);
		const second = store.append([r2], p1);
		assert.equal(isPending(second), false, "under the lease: the outcome itself");
		if (isPending(second)) return;
		// Answered at once means written: the bytes are in the file before anything else runs.
		assert.equal(readFileSync(file, "utf8"), [HEADER, r1, r2].map(line).join(""));
		okPosition(second);
		await turnEnds();
		const third = store.append([message("aaaa0003", "aaaa0002")], okPosition(second));
		assert.equal(isPending(third), true, "a new turn takes the lock again");
		okPosition(await third);
		await store.close();
	});

	test("an append at a position others appended after: behind with exactly their records, nothing appended", async () => {
		const { file, store: a, position } = await created();
		const b = new FileSessionStore(file);
		const bRead = await b.read();
		assert.deepEqual(recordsOf(bRead), [HEADER]);
		const r1 = message("aaaa0001", null);
		const r2 = message("aaaa0002", "aaaa0001");
		const pa = okPosition(await a.append([r1, r2], position));
		const bytes = readFileSync(file);

		const mine = message("bbbb0001", null);
		const behind = behindRead(await b.append([mine], bRead.position));
		assert.deepEqual(recordsOf(behind), [r1, r2], "exactly the other writer's records");
		assert.deepEqual(
			behind.lines.map((l) => l.line),
			[2, 3],
			"with their line numbers",
		);
		assert.deepEqual(readFileSync(file), bytes, "nothing appended");

		// Again at the same old position: still behind, still nothing appended.
		assert.deepEqual(recordsOf(behindRead(await b.append([mine], bRead.position))), [r1, r2]);
		assert.deepEqual(readFileSync(file), bytes);

		// At the position the outcome gave: appended.
		okPosition(await b.append([mine], behind.position));
		assert.equal(readFileSync(file, "utf8"), [HEADER, r1, r2, mine].map(line).join(""));
		const seen = (await a.readSince(pa)) as StoreRead;
		assert.deepEqual(recordsOf(seen), [mine], "the first writer reads the second's record");
		assert.deepEqual(
			seen.lines.map((l) => l.line),
			[4],
		);
		await a.close();
		await b.close();
	});

	test("a replace keeps the old bytes as an owner-only backup; every older position is then stale", async () => {
		const { file, store: a, position } = await created();
		const r1 = message("aaaa0001", null);
		const p1 = okPosition(await a.append([r1], position));
		const b = new FileSessionStore(file);
		const bPosition = (await b.read()).position;
		const old = readFileSync(file);
		const replacement = [HEADER, message("cccc0001", null)];
		const outcome = await a.replace(replacement, p1);
		assert.equal(outcome.status, "ok");
		const { backup, position: replaced } = outcome as { backup: string; position: string };
		assert.equal(backup, `${file}.bak`);
		assert.deepEqual(readFileSync(backup), old, "the backup holds the old bytes");
		assert.equal(statSync(backup).mode & 0o777, 0o600);
		assert.equal(statSync(file).mode & 0o777, 0o600);
		assert.equal(readFileSync(file, "utf8"), replacement.map(line).join(""));

		const after = readFileSync(file);
		const stalePositions: Array<[FileSessionStore, string]> = [
			[a, position],
			[a, p1],
			[b, bPosition],
		];
		for (const [store, stale] of stalePositions) {
			assert.deepEqual(await store.append([message("bbbb0001", null)], stale), { status: "stale" });
			assert.deepEqual(await store.replace([HEADER], stale), { status: "stale" });
			assert.equal(await store.readSince(stale), undefined);
		}
		assert.deepEqual(readFileSync(file), after, "a stale write changes nothing");
		assert.equal(existsSync(`${file}.bak.1`), false, "and backs nothing up");

		const r2 = message("cccc0002", "cccc0001");
		okPosition(await a.append([r2], replaced));
		const again = await b.read();
		assert.deepEqual(recordsOf(again), [...replacement, r2], "read whole again, the other store sees the new content");
		okPosition(await b.append([message("cccc0003", "cccc0002")], again.position));
		await a.close();
		await b.close();
	});

	test("a replace at a position others appended after: behind, nothing replaced or backed up", async () => {
		const { file, store: a, position } = await created();
		const b = new FileSessionStore(file);
		const r1 = message("aaaa0001", null);
		okPosition(await b.append([r1], position));
		const bytes = readFileSync(file);
		const behind = behindRead(await a.replace([HEADER], position));
		assert.deepEqual(recordsOf(behind), [r1]);
		assert.deepEqual(readFileSync(file), bytes);
		assert.equal(existsSync(`${file}.bak`), false);
		await a.close();
		await b.close();
	});

	test("an incomplete last line left by a crashed writer is backed up to <file>.torn and cut before the next append", async () => {
		const { file, store, position } = await created();
		const other = new FileSessionStore(file);
		const otherPosition = (await other.read()).position;
		const r1 = message("aaaa0001", null);
		const p1 = okPosition(await store.append([r1], position));
		const clean = readFileSync(file, "utf8");
		const torn = '{"type":"message","id":"0badf00d","parentId":nu';
		appendFileSync(file, torn);

		// Readers see it marked torn; a reader catching up leaves it to its writer.
		const read = await store.read();
		const last = read.lines[read.lines.length - 1];
		assert.equal(last?.torn, true);
		assert.ok(isSessionTreeError(last?.error, "TORN_TAIL"));
		assert.deepEqual(await store.readSince(p1), { lines: [], position: p1 });
		// A writer that is behind hears of the complete records only, and nothing is cut yet.
		assert.deepEqual(recordsOf(behindRead(await other.append([message("bbbb0001", null)], otherPosition))), [r1]);
		assert.equal(readFileSync(file, "utf8"), clean + torn);
		assert.equal(existsSync(`${file}.torn`), false);

		const r2 = message("aaaa0002", "aaaa0001");
		const p2 = okPosition(await store.append([r2], p1));
		assert.equal(readFileSync(`${file}.torn`, "utf8"), torn, "the torn bytes are kept");
		assert.equal(statSync(`${file}.torn`).mode & 0o777, 0o600);
		assert.equal(readFileSync(file, "utf8"), clean + line(r2), "cut, then appended on a line of its own");
		assert.deepEqual(recordsOf(await store.read()), [HEADER, r1, r2]);

		// A second crash: its bytes go to the next free backup name.
		appendFileSync(file, Buffer.alloc(300)); // NUL padding: the file grew, the data never came
		const r3 = message("aaaa0003", "aaaa0002");
		okPosition(await store.append([r3], p2));
		assert.deepEqual(readFileSync(`${file}.torn.1`), Buffer.alloc(300));
		assert.equal(readFileSync(`${file}.torn`, "utf8"), torn, "the first backup is left alone");
		assert.deepEqual(recordsOf(await store.read()), [HEADER, r1, r2, r3]);
		await store.close();
		await other.close();
	});

	test("a whole record without its newline gets the newline and comes back in behind", async () => {
		const { file, store, position } = await created();
		const r1 = message("aaaa0001", null);
		const p1 = okPosition(await store.append([r1], position));
		const r2 = message("aaaa0002", "aaaa0001");
		appendFileSync(file, JSON.stringify(r2));
		assert.deepEqual(recordsOf(await store.read()), [HEADER, r1, r2], "readers take it as a record");
		assert.deepEqual(await store.readSince(p1), { lines: [], position: p1 }, "a catch-up waits for its newline");

		const r3 = message("aaaa0003", "aaaa0002");
		const behind = behindRead(await store.append([r3], p1));
		assert.deepEqual(recordsOf(behind), [r2]);
		assert.equal(readFileSync(file, "utf8"), [HEADER, r1, r2].map(line).join(""), "only the newline was added");
		assert.equal(existsSync(`${file}.torn`), false, "nothing backed up");
		okPosition(await store.append([r3], behind.position));
		assert.equal(readFileSync(file, "utf8"), [HEADER, r1, r2, r3].map(line).join(""));
		await store.close();
	});

	test("a whole last record without newline, read with the rest: the next append starts a line of its own", async () => {
		const { file, store, position } = await created();
		const r1 = message("aaaa0001", null);
		okPosition(await store.append([r1], position));
		const r2 = message("aaaa0002", "aaaa0001");
		appendFileSync(file, JSON.stringify(r2));
		const reader = new FileSessionStore(file);
		const read = await reader.read();
		assert.deepEqual(recordsOf(read), [HEADER, r1, r2]);
		const r3 = message("aaaa0003", "aaaa0002");
		const outcome = await reader.append([r3], read.position);
		assert.notEqual(outcome.status, "stale");
		if (outcome.status === "behind") okPosition(await reader.append([r3], outcome.read.position));
		assert.equal(readFileSync(file, "utf8"), [HEADER, r1, r2, r3].map(line).join(""), "never glued");
		await store.close();
		await reader.close();
	});

	test("a replace backs up the file as it was, an incomplete last line included", async () => {
		const { file, store, position } = await created();
		const p1 = okPosition(await store.append([message("aaaa0001", null)], position));
		appendFileSync(file, '{"type":"message","id":"0badf00d","parentId":nu');
		const original = readFileSync(file);
		const outcome = await store.replace([HEADER], p1);
		assert.equal(outcome.status, "ok");
		assert.deepEqual(readFileSync((outcome as { backup: string }).backup), original);
		assert.equal(readFileSync(file, "utf8"), line(HEADER));
		await store.close();
	});

	test("a position that is not one of this store's is INVALID_ARGUMENT; one of another file is stale", async () => {
		const { store } = await created();
		const { store: other, position: otherPosition } = await created();
		await assert.rejects(
			async () => store.append([message("aaaa0001", null)], "not a position"),
			(e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT"),
		);
		await assert.rejects(store.readSince("x/y/z"), (e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT"));
		assert.deepEqual(await store.append([message("aaaa0001", null)], otherPosition), { status: "stale" });
		assert.equal(await store.readSince(otherPosition), undefined);
		await store.close();
		await other.close();
	});

	test("the lock is held for the rest of the turn only; close releases it at once", async () => {
		const { file, store, position } = await created();
		const p1 = okPosition(await store.append([message("aaaa0001", null)], position));
		await turnEnds();
		assert.equal(existsSync(`${file}.lock`), false, "released when the turn ended");
		okPosition(await store.append([message("aaaa0002", "aaaa0001")], p1));
		await store.close();
		assert.equal(existsSync(`${file}.lock`), false, "released by close");
	});

	test("an append waits while another process holds the lock, then appends", async () => {
		const { file, store, position } = await created();
		const child = spawn(process.execPath, [HOLDER, file, "300"], { stdio: ["ignore", "pipe", "inherit"] });
		const closed = new Promise((resolve) => child.on("close", resolve));
		await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
		const started = performance.now();
		okPosition(await store.append([message("aaaa0001", null)], position));
		const waited = performance.now() - started;
		await closed;
		assert.ok(waited > 100, `waited ${waited} ms for the holder`);
		assert.equal((await store.read()).lines.length, 2);
		await store.close();
	});

	test("an append under a lock held past the timeout is LOCKED, and nothing is written", async () => {
		const file = fresh();
		const store = new FileSessionStore(file, { lock: { timeoutMs: 150 } });
		const position = await store.create(HEADER);
		const child = spawn(process.execPath, [HOLDER, file, "4000"], { stdio: ["ignore", "pipe", "inherit"] });
		const closed = new Promise((resolve) => child.on("close", resolve));
		await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
		try {
			await assert.rejects(
				async () => store.append([message("aaaa0001", null)], position),
				(e: unknown) => isSessionTreeError(e, "LOCKED"),
			);
			assert.equal(readFileSync(file, "utf8"), line(HEADER));
		} finally {
			child.kill("SIGKILL");
			await closed;
		}
		okPosition(await store.append([message("aaaa0001", null)], position));
		await store.close();
	});

	for (const durability of ["fsync", "group"] as const) {
		test(`${durability}: appends and flush work the same`, async () => {
			const file = fresh();
			const store = new FileSessionStore(file, { durability, groupSize: 4 });
			let position = await store.create(HEADER);
			const records = Array.from({ length: 10 }, (_, i) => message(`dddd000${i}`, i === 0 ? null : `dddd000${i - 1}`));
			for (const record of records) position = okPosition(await store.append([record], position));
			await store.flush();
			assert.deepEqual(recordsOf(await store.read()), [HEADER, ...records]);
			await store.close();
		});
	}
});

describe("FileSessionStore.readTail", () => {
	const MiB = 1024 * 1024;
	const body = "y".repeat(1000);
	/** A current-version file of `count` ~1 KiB messages in one chain. */
	function bigFile(count: number, headerRecord: object = HEADER): { file: string; records: Record<string, unknown>[] } {
		const file = fresh();
		const records: Record<string, unknown>[] = [];
		const fd = openSync(file, "w", 0o600);
		try {
			writeSync(fd, line(headerRecord));
			const chunk: string[] = [];
			for (let i = 0; i < count; i++) {
				const record = message(i.toString(16).padStart(8, "0"), i === 0 ? null : (records[i - 1]?.id as string), body);
				records.push(record);
				chunk.push(line(record));
				if (chunk.length === 1000) writeSync(fd, chunk.splice(0).join(""));
			}
			writeSync(fd, chunk.join(""));
		} finally {
			closeSync(fd);
		}
		return { file, records };
	}

	test("a file over 8 MiB: the header and exactly the last records", async () => {
		const { file, records } = bigFile(9000);
		assert.ok(statSync(file).size > 8 * MiB);
		const store = new FileSessionStore(file);
		const tail = await store.readTail(1000);
		assert.ok(tail, "read from the end");
		assert.deepEqual(tail.header, HEADER);
		assert.equal(tail.whole, false);
		assert.deepEqual(tail.records, records.slice(-1000));
		assert.deepEqual((await store.readTail(1))?.records, records.slice(-1));
	});

	test("more records than the last eighth of the file holds: the records of that eighth", async () => {
		const { file, records } = bigFile(9000);
		const size = statSync(file).size;
		const recordBytes = Buffer.byteLength(line(records.at(-1) as object));
		// Whole records that fit in the last eighth (every record but the first has the same length).
		const fit = Math.floor(Math.floor(size / 8) / recordBytes);
		assert.ok(fit > 100 && fit < 2000, `${fit} records in the last eighth`);
		const store = new FileSessionStore(file);
		for (const count of [2000, 100_000]) {
			const tail = await store.readTail(count);
			assert.ok(tail, `readTail(${count})`);
			assert.equal(tail.whole, false);
			assert.deepEqual(tail.header, HEADER);
			assert.equal(tail.records.length, fit, `readTail(${count}) reads no more than the last eighth`);
			assert.deepEqual(tail.records, records.slice(-fit));
		}
	});

	test("declines a small file, a torn end and an older version", async () => {
		const small = bigFile(100);
		assert.equal(await new FileSessionStore(small.file).readTail(10), undefined, "under 8 MiB");

		const { file } = bigFile(9000);
		const store = new FileSessionStore(file);
		appendFileSync(file, '{"type":"message","id":"torn');
		assert.equal(await store.readTail(10), undefined, "an incomplete last line");

		const v2 = bigFile(9000, { ...HEADER, version: 2 });
		assert.equal(await new FileSessionStore(v2.file).readTail(10), undefined, "an older version");

		assert.equal(await new FileSessionStore(join(dir, "missing.jsonl")).readTail(10), undefined, "no file");
	});

	test("declines a tail holding a line that does not parse", async () => {
		const { file } = bigFile(9000);
		appendFileSync(file, "{not json\n");
		appendFileSync(file, line(message("eeee0001", null)));
		assert.equal(await new FileSessionStore(file).readTail(10), undefined);
	});
});
