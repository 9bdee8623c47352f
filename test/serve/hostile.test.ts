/**
 * A hostile session (test/fixtures/html/hostile.jsonl: script tags, `onerror` attributes,
 * `javascript:` links in its messages, name, cwd and tool names) served: the sessions page, the
 * search page (whose snippets are its text) and its own page run nothing of it: no script sets
 * `window.__pwned`, no dialog opens, no request leaves the server, no element of it is markup.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { keyOf } from "../../src/serve/catalog.js";
import { BROWSER_SKIP } from "../support/browser.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { type Home, openServed, type PageGlobals, type Served, type ServedPage, servedHome } from "./support.js";

let home: Home;
let served: Served;
let browser: Browser;
servedHome((started) => {
	({ home, served, browser } = started);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Hovers and clicks what the hostile text could have become, then checks that nothing ran. */
async function assertInert(opened: ServedPage, what: string): Promise<void> {
	const page: Page = opened.page;
	await page.mouse.move(400, 300);
	await page.mouse.move(600, 500);
	await sleep(300);
	assert.equal(
		await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned),
		undefined,
		`${what}: a script ran`,
	);
	assert.equal(
		await page.locator("[onload], [onerror], [onclick], [onmouseover]").count(),
		0,
		`${what}: handler attribute`,
	);
	assert.equal(await page.locator('a[href^="javascript:" i]').count(), 0, `${what}: javascript: link`);
	assert.equal(
		await page.locator("body :is(img, svg, iframe, object, embed, base)").count(),
		0,
		`${what}: injected element`,
	);
	assert.deepEqual(opened.dialogs, [], `${what}: dialogs`);
	assert.deepEqual(opened.foreign, [], `${what}: requests leaving the server`);
	assert.deepEqual(
		opened.errors.filter((e) => !/Content Security Policy/.test(e)),
		[],
		`${what}: errors`,
	);
}

describe("serve: a hostile session runs nothing", { skip: BROWSER_SKIP ?? SQLITE_SKIP }, () => {
	test("the sessions page shows its name and cwd as text", async () => {
		const opened = await openServed(browser, served, "/");
		const row = opened.page.locator(`tr[data-key="${keyOf(home.hostile)}"]`);
		assert.match((await row.textContent()) ?? "", /<img src=x onerror="window.__pwned=1"> Hostile <script>/);
		await assertInert(opened, "list");
		await opened.context.close();
	});

	test("the search page shows its snippets as text", async () => {
		const opened = await openServed(browser, served, "/search?q=__pwned");
		await opened.page.locator(".hit").first().waitFor({ timeout: 10_000 });
		const hits = await opened.page.locator(`.hit[data-key="${keyOf(home.hostile)}"]`).count();
		assert.ok(hits >= 3, `hits in the hostile session: ${hits}`);
		assert.match((await opened.page.locator(".hits").textContent()) ?? "", /<script>window\.__pwned=1<\/script>/);
		await assertInert(opened, "search");
		await opened.context.close();
	});

	test("its own page, every details opened and every entry selected", async () => {
		const opened = await openServed(browser, served, `/s/${keyOf(home.hostile)}`);
		const { page } = opened;
		await page.evaluate(() => {
			const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ open: boolean }> } })
				.document;
			const all = doc.querySelectorAll("details");
			for (let i = 0; i < all.length; i++) (all[i] as { open: boolean }).open = true;
		});
		const rows = page.locator('[data-role="tree"] [data-tree-id]');
		const count = await rows.count();
		for (let i = 0; i < count; i++) await rows.nth(i).click();
		await assertInert(opened, "session page");
		await opened.context.close();
	});
});
