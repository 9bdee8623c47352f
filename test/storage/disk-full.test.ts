/**
 * A write that fails leaves no trace (issue 14): on a real, small file system that fills up,
 * every failed append leaves the session file byte for byte as it was, creates no other file
 * (no lock, no `.torn`), names the file and the cause, and the next append after space is
 * freed succeeds without any repair.
 *
 * The file system is a 256 KiB tmpfs the test mounts, which needs root (CI runs as root);
 * elsewhere the test skips and says why. No failure is simulated: the kernel says ENOSPC.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Durability, isSessionTreeError, Session } from "../../src/index.js";
import { BIN, cli } from "../cli/helpers.js";

const root = mkdtempSync(join(tmpdir(), "st-full-"));
const mountPoint = join(root, "fs");
mkdirSync(mountPoint);

/** Why the tmpfs cannot be used here, or undefined when it is mounted. */
function mountTmpfs(): string | undefined {
	if (process.getuid?.() !== 0) return "mounting a tmpfs needs root (CI runs as root)";
	const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mountPoint], {
		encoding: "utf8",
	});
	if (mounted.status !== 0) return `mount -t tmpfs failed: ${(mounted.stderr || mounted.error?.message || "").trim()}`;
	return undefined;
}

let skip: string | undefined;
before(() => {
	skip = mountTmpfs();
	if (skip) console.log(`# disk-full tests skipped: ${skip}`);
});
after(() => {
	// Lazy: a descriptor a failed test left open must not keep the mount (and the directory) alive.
	if (!skip) spawnSync("umount", ["-l", mountPoint]);
	rmSync(root, { recursive: true, force: true });
});

/** A message of about 20 KB, numbered. */
function bigMessage(n: number): { role: "user"; content: string; timestamp: number } {
	return { role: "user", content: `message ${n} ${"x".repeat(20_000)}`, timestamp: n };
}

/** Fills the file system with ballast files of 16 KiB, then 1 KiB, until not even that fits. */
function fill(dir: string): string[] {
	const made: string[] = [];
	for (const size of [16 * 1024, 1024]) {
		for (let i = 0; ; i++) {
			const name = join(dir, `ballast-${size}-${i}`);
			try {
				writeFileSync(name, Buffer.alloc(size, 1));
				made.push(name);
			} catch {
				rmSync(name, { force: true });
				break;
			}
		}
	}
	return made;
}

describe("a failed append leaves the session as it was", () => {
	for (const durability of ["none", "fsync", "group"] as const satisfies readonly Durability[]) {
		test(`durability ${durability}: ENOSPC on a full tmpfs`, async (t) => {
			if (skip) return t.skip(skip);
			const dir = join(mountPoint, durability);
			mkdirSync(dir);
			const session = await Session.create({ dir, durability, cwd: "/p" });
			const file = session.location;
			const acknowledged: number[] = [];
			let failures = 0;
			// Appends until the disk is full, then a few more, each checked.
			for (let n = 0; failures < 4 && n < 40; n++) {
				const before = readFileSync(file);
				// The lock of the previous append may still be held (until the event loop turns);
				// after a failure it must be gone as well.
				const names = readdirSync(dir)
					.filter((name) => !name.endsWith(".lock"))
					.sort();
				try {
					await session.appendMessage(bigMessage(n));
					acknowledged.push(n);
				} catch (error) {
					failures++;
					assert.ok(isSessionTreeError(error), `not a SessionTreeError: ${String(error)}`);
					assert.equal(error.code, "IO_ERROR");
					assert.equal(error.file, file);
					assert.match(error.message, /ENOSPC/);
					assert.deepEqual(readFileSync(file), before, "the file's bytes changed");
					assert.deepEqual(readdirSync(dir).sort(), names, "a failed append left a file behind");
				}
			}
			assert.ok(acknowledged.length > 0 && failures === 4, `acknowledged ${acknowledged.length}, failed ${failures}`);
			// After failures, fill the rest of the disk completely: even the lock cannot be written.
			const ballast = fill(dir);
			const names = readdirSync(dir).sort();
			const before = readFileSync(file);
			await assert.rejects(session.appendMessage(bigMessage(99)), (error: unknown) => {
				assert.ok(isSessionTreeError(error));
				assert.match(error.message, /ENOSPC/);
				return true;
			});
			assert.deepEqual(readFileSync(file), before);
			assert.deepEqual(readdirSync(dir).sort(), names, "no lock or other file may remain");
			// Space freed: the same session appends at once, and the file is whole.
			for (const name of ballast) rmSync(name);
			for (const name of readdirSync(dir)) if (name !== file.split("/").at(-1)) rmSync(join(dir, name));
			const small = { role: "user" as const, content: "after the disk was freed", timestamp: 100 };
			await session.appendMessage(small);
			await session.close();
			const reopened = await Session.open(file);
			assert.deepEqual(reopened.problems, [], "the file needed no repair");
			const texts = reopened
				.buildSessionContext()
				.messages.map((m) => ("content" in m && typeof m.content === "string" ? m.content.slice(0, 12) : ""));
			assert.deepEqual(texts, [...acknowledged.map((n) => bigMessage(n).content.slice(0, 12)), "after the di"]);
			assert.deepEqual(readdirSync(dir), [file.split("/").at(-1)], "no stray files");
			await reopened.close(); // an open descriptor would keep the space of the removed file
			rmSync(dir, { recursive: true });
		});
	}

	test("a session whose header cannot be written is not left behind", async (t) => {
		if (skip) return t.skip(skip);
		const dir = join(mountPoint, "create");
		mkdirSync(dir);
		const ballast = fill(dir);
		const long = "c".repeat(8_000); // the header (cwd included) needs more than the space left
		await assert.rejects(Session.create({ dir, cwd: `/${long}` }), (error: unknown) => {
			assert.ok(isSessionTreeError(error));
			assert.match(error.message, /ENOSPC/);
			return true;
		});
		assert.deepEqual(
			readdirSync(dir).filter((name) => !name.startsWith("ballast-")),
			[],
		);
		for (const name of ballast) rmSync(name);
		rmSync(dir, { recursive: true });
	});

	test("session-tree append: exit 1, names the file and the cause, the file is unchanged", async (t) => {
		if (skip) return t.skip(skip);
		const dir = join(mountPoint, "cli");
		mkdirSync(dir);
		const session = await Session.create({ dir, cwd: "/p" });
		const file = session.location;
		await session.close();
		const input = Array.from({ length: 30 }, (_, n) => JSON.stringify(bigMessage(n))).join("\n");
		const run = await cli(["append", file], { input });
		assert.equal(run.code, 1);
		assert.match(run.stderr, /ENOSPC/);
		assert.ok(run.stderr.includes(file), run.stderr);
		const appended = run.stdout.trim().split("\n").filter(Boolean).length;
		assert.ok(appended > 0 && appended < 30, `appended ${appended}`);
		const reopened = await Session.open(file);
		assert.deepEqual(reopened.problems, []);
		assert.equal(reopened.entryCount, appended);
		assert.deepEqual(readdirSync(dir), [file.split("/").at(-1)]);
		await reopened.close();
		rmSync(dir, { recursive: true });
	});
});

describe("a file-size limit (EFBIG) fails an append the same way", () => {
	// `ulimit -f` makes the kernel refuse writes past a size (Node ignores SIGXFSZ, so the write
	// fails with EFBIG); it needs no root, so this runs everywhere.
	test("session-tree append under ulimit -f: exit 1, EFBIG named, no torn line, no stray file", async () => {
		const dir = mkdtempSync(join(tmpdir(), "st-efbig-"));
		try {
			const session = await Session.create({ dir, cwd: "/p" });
			const file = session.location;
			await session.close();
			const input = Array.from({ length: 10 }, (_, n) => JSON.stringify(bigMessage(n))).join("\n");
			// 64 KiB: three of the 20 KB messages fit, the fourth crosses the limit mid-line.
			const run = spawnSync("bash", ["-c", 'ulimit -f 64 && exec "$0" "$@"', process.execPath, BIN, "append", file], {
				input,
				encoding: "utf8",
			});
			assert.equal(run.status, 1, run.stderr);
			assert.match(run.stderr, /EFBIG/);
			assert.ok(run.stderr.includes(file), run.stderr);
			const appended = run.stdout.trim().split("\n").filter(Boolean).length;
			assert.equal(appended, 3);
			const reopened = await Session.open(file);
			assert.deepEqual(reopened.problems, [], "no torn line was left");
			assert.equal(reopened.entryCount, 3);
			await reopened.close();
			assert.deepEqual(readdirSync(dir), [file.split("/").at(-1)]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
