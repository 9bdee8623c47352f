/**
 * A 100,000-entry session served by `session-tree serve DIR`, in Debian's Chromium: the list
 * gives its entry and branch counts, its page becomes ready, shows the leaf's path and the
 * library's context there, and a screenshot of it is saved (test-output/screenshots/).
 *
 * The session is written line by line here, not through the library, so that it is made in
 * well under a second: entry i's parent is i − 1, except that every 100th entry starts a new
 * branch from 50 entries back. Its counts follow from that rule, worked out by hand below; the
 * context at the leaf is asked of the library (`buildContextEntries`) as the independent route.
 */

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Browser, chromium } from "playwright-core";
import { keyOf } from "../../src/serve/catalog.js";
import { Session } from "../../src/session.js";
import { BROWSER_SKIP, CHROMIUM, CHROMIUM_ARGS } from "../support/browser.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { http, openServed, type PageGlobals, SCREENSHOTS, type Served, startServe } from "./support.js";

const ENTRIES = 100_000;
const id = (i: number) => `e${i.toString(16).padStart(7, "0")}`;
/** The parent of entry i (see the module comment). */
const parentOf = (i: number) => (i === 0 ? null : i % 100 === 0 ? i - 50 : i - 1);

let root: string;
let file: string;
let served: Served;
let browser: Browser;

before(async () => {
	if (BROWSER_SKIP || SQLITE_SKIP) return;
	root = mkdtempSync(join(tmpdir(), "st-serve-100k-"));
	const dir = join(root, "store");
	mkdirSync(dir);
	file = join(dir, "2026-01-01T00-00-00-000Z_0195a000-0000-7000-8000-00000000100k.jsonl");
	const start = Date.parse("2026-01-01T00:00:00.000Z");
	const lines = [
		JSON.stringify({
			type: "session",
			version: 3,
			id: "0195a000-0000-7000-8000-00000000100k",
			timestamp: new Date(start).toISOString(),
			cwd: "/home/me/large",
		}),
	];
	for (let i = 0; i < ENTRIES; i++) {
		const user = i % 2 === 0;
		const timestamp = new Date(start + i * 1000).toISOString();
		const message = user
			? { role: "user", content: `Question ${i}: how does part ${i} work?`, timestamp: start + i * 1000 }
			: {
					role: "assistant",
					content: [{ type: "text", text: `Answer ${i}: part ${i} works by splitting the work in two.` }],
					api: "anthropic-messages",
					provider: "anthropic",
					model: "claude-sonnet-4-5",
					usage: {
						input: 100,
						output: 20,
						cacheRead: 0,
						cacheWrite: 0,
						totalTokens: 120,
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
					},
					stopReason: "stop",
					timestamp: start + i * 1000,
				};
		const parent = parentOf(i);
		lines.push(
			JSON.stringify({ type: "message", id: id(i), parentId: parent === null ? null : id(parent), timestamp, message }),
		);
	}
	writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
	served = await startServe(join(root, "home"), [dir]);
	browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
	mkdirSync(SCREENSHOTS, { recursive: true });
});

after(async () => {
	await browser?.close();
	await served?.stop();
	if (root) rmSync(root, { recursive: true, force: true });
});

describe("a 100,000-entry session in serve", { skip: BROWSER_SKIP ?? SQLITE_SKIP }, () => {
	test("listed with its counts; its page is ready, shows the leaf's path and the library's context; screenshot", async (t) => {
		const answer = await http(served.port, "/api/sessions", {
			headers: { Host: `127.0.0.1:${served.port}`, Authorization: `Bearer ${served.token}` },
		});
		const { sessions } = JSON.parse(answer.body) as {
			sessions: Array<{ key: string; entries: number; branches: number }>;
		};
		// Leaves: entry i (i ≥ 1) has a child unless i + 1 is a multiple of 100 (that child hangs
		// from i + 1 − 50 instead); the last entry has none. So the leaves are the 99, 199, …,
		// 99,999: 1,000 of them. The ids are of one rule, so the hand count is the whole check.
		assert.deepEqual(
			sessions.map((s) => [s.key, s.entries, s.branches]),
			[[keyOf(file), ENTRIES, 1_000]],
		);

		const opened = await openServed(browser, served, `/s/${keyOf(file)}`, { ready: false });
		const { page } = opened;
		const began = Date.now();
		await page.waitForFunction(
			() => (globalThis as unknown as PageGlobals).document.documentElement.dataset.ready === "true",
			undefined,
			{ timeout: 120_000 },
		);
		t.diagnostic(`ready ${Date.now() - began} ms after the page was asked for`);
		const leaf = id(ENTRIES - 1);
		await page.locator(`[data-role="conversation"] [data-entry-id="${leaf}"]`).waitFor({ timeout: 10_000 });
		const session = await Session.open(file);
		try {
			assert.equal(session.getLeafId(), leaf);
			const want = session.buildContextEntries(leaf).map((item) => item.entry.id);
			// The panel shows the last 80 messages (CONTEXT_WINDOW) and says how many there are.
			const shown = await page
				.locator('[data-role="context"] [data-entry-id]')
				.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-entry-id")));
			assert.deepEqual(shown, want.slice(-80), "the context panel ends as the library's context at the leaf");
			const panel = (await page.locator('[data-role="context"]').textContent()) ?? "";
			assert.ok(panel.includes(`${want.length.toLocaleString("en-US")} messages`), panel.slice(0, 200));
		} finally {
			await session.close();
		}
		const shot = join(SCREENSHOTS, "serve-session-100k.png");
		await page.screenshot({ path: shot });
		t.diagnostic(`screenshot: ${shot}`);
		assert.deepEqual(opened.errors, []);
		assert.deepEqual(opened.foreign, []);
		await opened.context.close();
	});
});
