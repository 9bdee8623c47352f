/**
 * The pages of `session-tree serve` in Debian's Chromium (playwright-core) against a served
 * temporary HOME holding pi, Claude Code, Codex and Gemini CLI sessions: the list shows each
 * agent's session and filters by agent; search finds a text that only a side branch holds and
 * opens the session at it; `#leaf=ID` shows the library's context at that entry. Screenshots
 * of the list, the search and a branched session (light and dark) go to test-output/screenshots/.
 */

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { keyOf } from "../../src/serve/catalog.js";
import { Session } from "../../src/session.js";
import { cliJson } from "../cli/helpers.js";
import { BROWSER_SKIP } from "../support/browser.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import {
	type Home,
	homeEnv,
	openServed,
	type PageGlobals,
	SCREENSHOTS,
	type Served,
	SIDE_TEXT,
	servedHome,
	waitCurrent,
	waitReady,
} from "./support.js";

let home: Home;
let served: Served;
let browser: Browser;
servedHome((started) => {
	({ home, served, browser } = started);
	mkdirSync(SCREENSHOTS, { recursive: true });
});

/** The ids of the context panel's items, once they equal `want` (or after 5 s, whatever they are). */
async function contextIds(page: import("playwright-core").Page, want: readonly string[]): Promise<string[]> {
	const read = () =>
		page
			.locator('[data-role="context"] [data-entry-id]')
			.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-entry-id") ?? ""));
	const deadline = Date.now() + 5_000;
	let ids = await read();
	while (JSON.stringify(ids) !== JSON.stringify(want) && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 50));
		ids = await read();
	}
	return ids;
}

/** The search page's hits: [session key, entry id, "active" or "side"] each, in order. */
function hitsOn(page: import("playwright-core").Page): Promise<Array<Array<string | null | undefined>>> {
	return page
		.locator(".hit")
		.evaluateAll((nodes) =>
			nodes.map((n) => [
				n.getAttribute("data-key"),
				n.getAttribute("data-entry"),
				n.querySelector("[data-branch]")?.getAttribute("data-branch"),
			]),
		);
}

describe("serve pages", { skip: BROWSER_SKIP ?? SQLITE_SKIP }, () => {
	test("the list shows each agent's session, newest first, and filters by agent", async (t) => {
		const opened = await openServed(browser, served, "/");
		const { page } = opened;
		const rows = await page
			.locator('tbody[data-role="sessions"] tr')
			.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-agent"), tr.getAttribute("data-key")]));
		const agents = new Set(rows.map(([agent]) => agent));
		for (const agent of ["pi", "claude-code", "codex", "gemini"])
			assert.ok(agents.has(agent), `the list shows ${agent}`);
		const keys = rows.map(([, key]) => key);
		for (const file of [home.branched, home.claude, home.codex, home.gemini, home.hostile])
			assert.ok(keys.includes(keyOf(file)), `the list shows ${file}`);
		// Titles: the first real prompt of each (read off the fixtures by hand).
		const text = (await page.locator('tbody[data-role="sessions"]').textContent()) ?? "";
		for (const title of [
			"What is a B-tree?",
			"Search if claude -p can make use of WebSearch",
			"List the files in the current directory",
			"install 1password cli tool for CachyOS cosmic",
		])
			assert.ok(text.includes(title), `title ${title}`);
		const shot = join(SCREENSHOTS, "serve-list.png");
		await page.screenshot({ path: shot, fullPage: true });
		t.diagnostic(`screenshot: ${shot}`);
		await page.selectOption('select[data-role="agent-filter"]', "codex");
		await page.waitForFunction(() =>
			Array.from(
				(globalThis as unknown as PageGlobals).document.querySelectorAll('tbody[data-role="sessions"] tr'),
			).every((tr) => tr.getAttribute("data-agent") === "codex"),
		);
		assert.equal(await page.locator('tbody[data-role="sessions"] tr').count(), 1);
		assert.deepEqual(opened.foreign, []);
		assert.deepEqual(opened.errors, []);
		await opened.context.close();
	});

	test("search finds a text only a side branch holds and opens the session selected at it", async (t) => {
		const opened = await openServed(browser, served, `/search?q=${SIDE_TEXT}`);
		const { page } = opened;
		await page.locator(".hit").first().waitFor({ timeout: 10_000 });
		const hits = await hitsOn(page);
		assert.deepEqual(hits, [[keyOf(home.branched), home.ids.a2, "side"]]);
		assert.equal(await page.locator(".hit mark").textContent(), SIDE_TEXT);
		const shot = join(SCREENSHOTS, "serve-search.png");
		await page.screenshot({ path: shot, fullPage: true });
		t.diagnostic(`screenshot: ${shot}`);
		await page.locator(".hit a").first().click();
		await page.waitForURL(/\/s\/[0-9a-f]{16}#/);
		await waitReady(page);
		await waitCurrent(page, home.ids.a2);
		// The path through the hit: q1 a1 q2 a2 (the side branch), not the file's leaf a3.
		const session = await Session.open(home.branched);
		assert.deepEqual(
			await contextIds(
				page,
				session.buildContextEntries(home.ids.a2).map((e) => e.entry.id),
			),
			[home.ids.q1, home.ids.a1, home.ids.q2, home.ids.a2],
		);
		await session.close();
		assert.deepEqual(opened.foreign, []);
		await opened.context.close();
	});

	test("search --agents and the search page find the same hits, in the same order", async () => {
		// The CLI is the independent route here: its own process, over the same HOME (and index).
		const queries: Array<[string, string]> = [
			[SIDE_TEXT, "&i=0"],
			["tree", "&i=1"],
			["the", "&i=0"],
			["B-tree|trie", "&regex=1&i=0"],
		];
		for (const [text, flags] of queries) {
			const args = ["search", text, "--agents", "--json"];
			if (flags.includes("i=1")) args.push("-i");
			if (flags.includes("regex=1")) args.push("--regex");
			const printed = await cliJson<Array<{ file: string; entryId: string; onActiveBranch: boolean }>>(args, {
				env: homeEnv(home.home) as Record<string, string>,
			});
			const want = printed.map((hit) => [keyOf(hit.file), hit.entryId, hit.onActiveBranch ? "active" : "side"]);
			assert.ok(want.length > 0, `search ${text} finds something`);
			const opened = await openServed(browser, served, `/search?q=${encodeURIComponent(text)}${flags}`);
			await opened.page.locator('[data-role="status"]').filter({ hasText: /hit/ }).waitFor({ timeout: 10_000 });
			const got = await hitsOn(opened.page);
			assert.deepEqual(got, want.slice(0, got.length), `search ${text}${flags}`);
			assert.equal(got.length, Math.min(want.length, 200), `search ${text}${flags}: as many hits`);
			await opened.context.close();
		}
	});

	test("#leaf=ID shows the library's context at that entry, on both branches; screenshots light and dark", async (t) => {
		const session = await Session.open(home.branched);
		const key = keyOf(home.branched);
		for (const id of [home.ids.a2, home.ids.q3, home.ids.a1]) {
			const opened = await openServed(browser, served, `/s/${key}#leaf=${id}`);
			const want = session.buildContextEntries(id).map((e) => e.entry.id);
			assert.deepEqual(await contextIds(opened.page, want), want, `#leaf=${id}`);
			await opened.context.close();
		}
		for (const colorScheme of ["light", "dark"] as const) {
			const opened = await openServed(browser, served, `/s/${key}`, { colorScheme });
			assert.equal(await opened.page.locator("html").getAttribute("data-theme"), colorScheme);
			const shot = join(SCREENSHOTS, `serve-session-${colorScheme}.png`);
			await opened.page.screenshot({ path: shot });
			t.diagnostic(`screenshot: ${shot}`);
			assert.deepEqual(opened.errors, []);
			await opened.context.close();
		}
		await session.close();
	});
});
