/**
 * `session-tree serve postgres://…` as a team would run it: two server processes over one
 * PostgreSQL schema (real server, SESSION_TREE_PG_URL; skipped without it outside CI). A label
 * set through one server, and an entry another writer appends, show on a page of the other
 * server within 2 s: its live tail LISTENs for the NOTIFY each committed write sends (a
 * connection of its own while the page is open, seen in pg_stat_activity); with that
 * connection terminated by the server, the tail falls back to a poll (every 500 ms) and an
 * append still shows (docs/serve.md, "Live tail").
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Browser, chromium } from "playwright-core";
import { Session } from "../../src/session.js";
import { BROWSER_SKIP, CHROMIUM, CHROMIUM_ARGS } from "../support/browser.js";
import { postgresServer, query, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { http, openServed, type Served, startServe, waitCurrent } from "./support.js";

const server = await postgresServer();
// `serve` opens the catalog index (SQLite) whatever it serves.
const skip = "skip" in server ? server.skip : (BROWSER_SKIP ?? SQLITE_SKIP);
const db = "url" in server ? testSchema(server.url, "serve") : undefined;

let home: string;
let a: Served;
let b: Served;
let browser: Browser;
let location: string;
let ids: string[] = [];
before(async () => {
	if (skip || !db) return;
	home = mkdtempSync(join(tmpdir(), "st-serve-pg-"));
	const session = await Session.create({ location: db.session("team"), cwd: "/team/project" });
	ids = [
		await session.appendMessage({ role: "user", content: "Shared question", timestamp: Date.now() }),
		await session.appendMessage({ role: "user", content: "Shared follow-up", timestamp: Date.now() }),
	];
	location = session.location;
	await session.close();
	a = await startServe(home, [db.url]);
	b = await startServe(home, [db.url]);
	browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
});
after(async () => {
	await browser?.close();
	await a?.stop();
	await b?.stop();
	if (home) rmSync(home, { recursive: true, force: true });
});

/** The backends that LISTEN on the database (other processes' too: a test compares before and after). */
async function listeners(): Promise<number[]> {
	if (!("url" in server)) return [];
	const rows = await query<{ pid: number }>(
		server.url,
		"SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN session_tree' AND datname = current_database()",
	);
	return rows.map((row) => row.pid);
}

describe("serve postgres://… with two servers", { skip }, () => {
	test("a label set through one server and an append by another writer show live on the other's page", async (t) => {
		const list = async (s: Served) =>
			JSON.parse(
				(
					await http(s.port, "/api/sessions", {
						headers: { Host: `127.0.0.1:${s.port}`, Authorization: `Bearer ${s.token}` },
					})
				).body,
			) as { sessions: Array<{ key: string; location: string; writable: boolean }> };
		const [onA, onB] = [(await list(a)).sessions, (await list(b)).sessions];
		assert.equal(onA.length, 1);
		assert.deepEqual(onA, onB, "both servers list the same session under the same key");
		const row = onA[0] as { key: string; location: string; writable: boolean };
		assert.equal(row.location, location);
		assert.equal(row.writable, true);

		const listenersBefore = new Set(await listeners());
		const opened = await openServed(browser, b, `/s/${row.key}`);
		const { page } = opened;
		await page.locator('[data-role="live"][data-live="true"]').waitFor({ timeout: 5_000 });
		// Server B's tail listens: one LISTEN connection more than before the page was open.
		let ours: number[] = [];
		for (let tries = 0; tries < 50 && ours.length === 0; tries++) {
			ours = (await listeners()).filter((pid) => !listenersBefore.has(pid));
			if (ours.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
		}
		assert.equal(ours.length, 1, "server B LISTENs for the session's changes");
		const started = Date.now();
		const answer = await http(a.port, `/api/sessions/${row.key}/label`, {
			method: "POST",
			headers: {
				Host: `127.0.0.1:${a.port}`,
				Origin: a.origin,
				Authorization: `Bearer ${a.token}`,
				"Content-Type": "application/json",
			},
			body: JSON.stringify({ entryId: ids[0], label: "team label" }),
		});
		assert.equal(answer.status, 200, answer.body);
		await page.locator('[data-role="conversation"]', { hasText: "team label" }).waitFor({ timeout: 2_000 });
		t.diagnostic(`label through server A on server B's page after ${Date.now() - started} ms`);

		const writer = await Session.open(location);
		const started2 = Date.now();
		const id = await writer.appendMessage({ role: "user", content: "from another writer", timestamp: Date.now() });
		await writer.close();
		await waitCurrent(page, id, 2_000);
		t.diagnostic(`append by another writer on server B's page after ${Date.now() - started2} ms`);

		// The LISTEN connection lost (terminated by the server, as a restart would): the poll takes over.
		assert.ok("url" in server);
		await query(server.url, "SELECT pg_terminate_backend($1)", [ours[0]]);
		const writer2 = await Session.open(location);
		const started3 = Date.now();
		const id2 = await writer2.appendMessage({
			role: "user",
			content: "after the LISTEN was lost",
			timestamp: Date.now(),
		});
		await writer2.close();
		await waitCurrent(page, id2, 2_000);
		t.diagnostic(`append after the LISTEN connection was lost (the poll) after ${Date.now() - started3} ms`);
		assert.deepEqual(opened.foreign, []);
		await opened.context.close();
	});
});
