/**
 * A served session page, live, in Chromium: an entry appended through the CLI
 * (`session-tree append`, another process) appears on the open page within 2 s; a label set on
 * the page is in the file afterwards, and pi's own SessionManager (0.73.1) reads the file with
 * that label and the same context as the library; "Continue from here" on a user message moves
 * the leaf to its parent and offers the text to copy (pi's navigate rule, as `session-tree nav`).
 */

import assert from "node:assert/strict";
import { copyFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import type { Browser } from "playwright-core";
import { keyOf } from "../../src/serve/catalog.js";
import { Session } from "../../src/session.js";
import { asJson } from "../../src/testing/helpers.js";
import { cli } from "../cli/helpers.js";
import { BROWSER_SKIP } from "../support/browser.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { type Home, homeEnv, openServed, type Served, servedHome, waitCurrent, waitReady } from "./support.js";

let home: Home;
let served: Served;
let browser: Browser;
servedHome((started) => {
	({ home, served, browser } = started);
});

/** The session as pi reads it, from a copy (pi may rewrite what it opens). */
function piReads(file: string): SessionManager {
	const copy = join(home.home, `pi-copy-${Date.now()}.jsonl`);
	copyFileSync(file, copy);
	return SessionManager.open(copy, home.home);
}

describe("serve: a live session page", { skip: BROWSER_SKIP ?? SQLITE_SKIP }, () => {
	test("an entry appended through the CLI appears on the open page within 2 s", async (t) => {
		const opened = await openServed(browser, served, `/s/${keyOf(home.branched)}`);
		const { page } = opened;
		await page.locator('[data-role="live"][data-live="true"]').waitFor({ timeout: 5_000 });
		const line = JSON.stringify({ role: "user", content: "appended while the page was open", timestamp: Date.now() });
		const started = Date.now();
		const appended = await cli(["append", home.branched], {
			input: `${line}\n`,
			env: homeEnv(home.home) as Record<string, string>,
		});
		assert.equal(appended.code, 0, appended.stderr);
		const id = appended.stdout.trim();
		// No hash: the page follows the session's leaf, which is now the appended entry.
		await waitCurrent(page, id, 2_000);
		t.diagnostic(`appended entry on the page after ${Date.now() - started} ms (the CLI's own start included)`);
		assert.match(
			(await page.locator('[data-role="conversation"]').textContent()) ?? "",
			/appended while the page was open/,
		);
		assert.deepEqual(opened.errors, []);
		assert.deepEqual(opened.foreign, []);
		await opened.context.close();
	});

	test("a label set on the page is in the file; pi reads the file with it and with the library's context", async () => {
		const { q3 } = home.ids;
		const opened = await openServed(browser, served, `/s/${keyOf(home.branched)}#entry=${q3}`);
		const { page } = opened;
		await waitCurrent(page, q3);
		await page.locator('details[data-role="served-tools"] summary').click();
		await page.fill('input[data-role="label-input"]', "split question");
		await page.click('button[data-role="label"]');
		await page.locator('[data-role="action-result"]', { hasText: "Label set." }).waitFor({ timeout: 5_000 });
		const session = await Session.open(home.branched);
		assert.equal(session.getLabel(q3), "split question");
		const pi = piReads(home.branched);
		assert.equal(pi.getLabel(q3), "split question", "pi reads the label");
		assert.deepEqual(
			asJson(pi.buildSessionContext()),
			asJson(session.buildSessionContext()),
			"pi's context is the library's",
		);
		await session.close();
		// The label comes back through the live tail and is shown on the page.
		await page.locator('[data-role="conversation"]', { hasText: "split question" }).waitFor({ timeout: 3_000 });
		await opened.context.close();
	});

	test("Continue from here on a user message: the leaf moves to its parent and the text is offered to copy", async () => {
		const { q2, a1 } = home.ids;
		const opened = await openServed(browser, served, `/s/${keyOf(home.branched)}#entry=${q2}`);
		const { page } = opened;
		await waitCurrent(page, q2);
		await page.locator('details[data-role="served-tools"] summary').click();
		await page.click('button[data-role="set-leaf"]');
		const text = page.locator('textarea[data-role="editor-text"]');
		await text.waitFor({ state: "visible", timeout: 5_000 });
		assert.equal(await text.inputValue(), "And a trie?");
		const session = await Session.open(home.branched);
		assert.equal(session.getLeafId(), a1, "the leaf is the user message's parent (pi's navigate)");
		// pi takes the `leaf` record navigate wrote as its leaf (docs/format.md): the same context.
		assert.deepEqual(asJson(piReads(home.branched).buildSessionContext()), asJson(session.buildSessionContext()));
		await session.close();
		await opened.context.close();
	});

	test("Fork here: a new session beside this one holding the path to the entry, opened from the page's link", async () => {
		const { q3 } = home.ids;
		const opened = await openServed(browser, served, `/s/${keyOf(home.branched)}#entry=${q3}`);
		const { page } = opened;
		await waitCurrent(page, q3);
		await page.locator('details[data-role="served-tools"] summary').click();
		await page.click('button[data-role="fork"]');
		const link = page.locator('a[data-role="fork-link"]');
		await link.waitFor({ timeout: 5_000 });
		const href = (await link.getAttribute("href")) ?? "";
		assert.match(href, /^\/s\/[0-9a-f]{16}$/);
		assert.notEqual(href, `/s/${keyOf(home.branched)}`);
		await link.click();
		await page.waitForURL(`${served.origin}${href}`);
		await waitReady(page);
		// The fork's file: in the same directory, its path the original's root → q3 (by hand: q1 a1 q3).
		const forked = readdirSync(dirname(home.branched))
			.map((name) => join(dirname(home.branched), name))
			.find((file) => keyOf(file) === href.slice(3));
		assert.ok(forked, "the fork is a file beside the session");
		const fork = await Session.open(forked);
		assert.deepEqual(
			fork
				.getBranch()
				.map((entry) => (entry.type === "message" ? (entry.message as { content: unknown }).content : entry.type)),
			["What is a B-tree?", [{ type: "text", text: "A balanced search tree." }], "How do B-trees split?"],
		);
		await fork.close();
		await opened.context.close();
	});

	test("another agent's session has no action buttons", async () => {
		const opened = await openServed(browser, served, `/s/${keyOf(home.claude)}`);
		const { page } = opened;
		assert.equal(await page.locator('[data-role="label"], [data-role="set-leaf"], [data-role="fork"]').count(), 0);
		assert.equal(await page.locator('[data-role="read-only"]').count(), 1);
		assert.match((await page.locator('[data-role="resume"]').textContent()) ?? "", /claude --resume 256ba646-/);
		await opened.context.close();
	});
});
