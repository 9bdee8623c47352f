/**
 * The live tail reads only what was appended: two pages open on one pi session of about 3 MB
 * (one reader for both, follow.ts), an append by another writer shows on both, and the server
 * read far less than the file meanwhile: its `rchar` (/proc/PID/io, the bytes its read calls
 * returned, files and sockets alike) grows by less than a quarter of the file, where reading
 * the session again whole for each page read it twice. A leaf moved by another writer is
 * followed; a session rewritten under the pages (its records replaced) reloads them (`reset`).
 * A session of a SQLite store (`serve sqlite:PATH`, its tail a poll of `readSince`) shows
 * another writer's entry and leaf move too.
 */

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Browser, chromium } from "playwright-core";
import { keyOf } from "../../src/serve/catalog.js";
import { Session } from "../../src/session.js";
import { defaultSessionDir } from "../../src/storage/paths.js";
import { BROWSER_SKIP, CHROMIUM, CHROMIUM_ARGS } from "../support/browser.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { buildHome, type Home, openServed, PROJECT, type Served, startServe, waitCurrent } from "./support.js";

/** Entries of the large session, each with about 1 kB of text: a file of about 3 MB. */
const ENTRIES = 3000;
const user = (content: string) => ({ role: "user" as const, content, timestamp: Date.now() });

let home: Home;
let served: Served;
let browser: Browser;
let file: string;
const firstIds: string[] = [];
before(async () => {
	if (BROWSER_SKIP || SQLITE_SKIP) return;
	home = await buildHome();
	const dir = defaultSessionDir(PROJECT, join(home.home, ".pi", "agent"));
	mkdirSync(dir, { recursive: true });
	const session = await Session.create({ dir, cwd: PROJECT });
	const padding = "lorem ipsum ".repeat(85);
	for (let i = 0; i < ENTRIES; i++) {
		const id = await session.appendMessage(user(`question ${i}: ${padding}`));
		if (i < 2) firstIds.push(id);
	}
	file = session.file as string;
	await session.close();
	served = await startServe(home.home);
	browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
});
after(async () => {
	await browser?.close();
	await served?.stop();
	if (home) rmSync(home.home, { recursive: true, force: true });
});

/** The bytes the server's read calls have returned so far (Linux's per-process I/O counters). */
function serverReadBytes(): number {
	const io = readFileSync(`/proc/${served.child.pid}/io`, "utf8");
	const rchar = /^rchar: (\d+)$/m.exec(io)?.[1];
	assert.ok(rchar !== undefined, io);
	return Number(rchar);
}

describe("serve: the live tail reads what was appended", { skip: BROWSER_SKIP ?? SQLITE_SKIP }, () => {
	test("two pages of a 3 MB session: an append shows on both, and the server reads a fraction of the file", async (t) => {
		const size = statSync(file).size;
		assert.ok(size > 2_500_000, `the session is ${size} bytes`);
		const pages = [
			await openServed(browser, served, `/s/${keyOf(file)}`),
			await openServed(browser, served, `/s/${keyOf(file)}`),
		];
		for (const { page } of pages)
			await page.locator('[data-role="live"][data-live="true"]').waitFor({ timeout: 10_000 });
		// The streams' first looks (a full read of the session, once) are over when both show live and a moment passed.
		await new Promise((resolve) => setTimeout(resolve, 1000));

		const writer = await Session.open(file);
		const readBefore = serverReadBytes();
		const id = await writer.appendMessage(user("appended under two open pages"));
		for (const { page } of pages) await waitCurrent(page, id, 5_000);
		// Let any read the change set off finish before counting.
		await new Promise((resolve) => setTimeout(resolve, 700));
		const read = serverReadBytes() - readBefore;
		t.diagnostic(`the server read ${read} bytes for an append to a ${size}-byte session shown on two pages`);
		assert.ok(read < size / 4, `read ${read} bytes of a ${size}-byte file: the session was read again`);

		// Another writer moves the leaf back to the second entry (a leaf record): both pages follow it.
		await writer.branch(firstIds[1] as string);
		for (const { page } of pages) await waitCurrent(page, firstIds[1] as string, 5_000);
		await writer.close();
		for (const { errors, context } of pages) {
			assert.deepEqual(errors, []);
			await context.close();
		}
	});

	test("a session rewritten under the page (its records replaced): the page reloads", async () => {
		const opened = await openServed(browser, served, `/s/${keyOf(home.branched)}`);
		const { page } = opened;
		await page.locator('[data-role="live"][data-live="true"]').waitFor({ timeout: 5_000 });
		await page.evaluate(() => {
			(globalThis as { beforeReset?: boolean }).beforeReset = true;
		});
		// The same session with its last entry's id changed, put in place as a rewrite does (a new file renamed over it).
		const lines = readFileSync(home.branched, "utf8").trimEnd().split("\n");
		const last = JSON.parse(lines.at(-1) as string) as { id: string };
		lines[lines.length - 1] = JSON.stringify({ ...last, id: "feedf00d" });
		const next = `${home.branched}.new`;
		writeFileSync(next, `${lines.join("\n")}\n`, { mode: 0o600 });
		renameSync(next, home.branched);
		await page.waitForFunction(() => (globalThis as { beforeReset?: boolean }).beforeReset !== true, undefined, {
			timeout: 5_000,
		});
		await waitCurrent(page, "feedf00d", 5_000);
		await opened.context.close();
	});

	test("serve sqlite:PATH: another writer's entry and leaf move show on the page", async (t) => {
		const db = join(home.home, "team.db");
		const session = await Session.create({ location: `sqlite:${db}`, cwd: PROJECT });
		const first = await session.appendMessage(user("a question in SQLite"));
		await session.appendMessage(user("a follow-up in SQLite"));
		const location = session.location;
		await session.close();
		const sqlite = await startServe(home.home, [`sqlite:${db}`]);
		try {
			const opened = await openServed(browser, sqlite, `/s/${keyOf(location)}`);
			const { page } = opened;
			await page.locator('[data-role="live"][data-live="true"]').waitFor({ timeout: 5_000 });
			const writer = await Session.open(location);
			const started = Date.now();
			const id = await writer.appendMessage(user("appended to SQLite"));
			await waitCurrent(page, id, 2_000);
			t.diagnostic(`SQLite: the append on the page after ${Date.now() - started} ms (a poll every 500 ms)`);
			await writer.branch(first);
			await waitCurrent(page, first, 2_000);
			await writer.close();
			assert.deepEqual(opened.errors, []);
			await opened.context.close();
		} finally {
			await sqlite.stop();
		}
	});
});
