/**
 * The page reads its records' envelopes and parses a body when it is shown (issue 28): a
 * session of more than 20,000 entries in pi's layout is drawn and takes input before its
 * bodies are read, which happens afterwards in the background; then the usage totals, which add
 * up every reply, appear. In Debian's Chromium, through the page's DOM contract and its
 * performance marks (`session-tree:ready` when `data-ready` is set, `session-tree:bodies` when
 * every body is read).
 *
 * The session is written here line by line, so its figures are known by construction: a chain
 * of 12,000 user/assistant pairs, every reply reporting 1 token in and 2 out, and a branch of
 * 5 pairs from the 100th reply, each reporting 10 in and 20 out, written last (so its end is
 * the leaf). The path holds 105 replies (150 in, 300 out), the session 12,005 (12,050 in,
 * 24,100 out); no reply reports a cost. The path is short because the context panel reads
 * every message of a path without a compaction: the bodies left for the background are the
 * other 23,790.
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cli, removeTempDirs, tempDir } from "../cli/helpers.js";
import { BROWSER_SKIP, launchBrowser, problems, type TestBrowser } from "../support/browser.js";

const T = "2026-03-01T10:00:00.000Z";
const PAIRS = 12_000;
const FORK_AT = 100;
const BRANCH_PAIRS = 5;

const usage = (input: number, output: number) => ({
	input,
	output,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: input + output,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

/** One message line in pi's key order (the envelope first, the content last but the timestamp). */
function line(
	id: string,
	parentId: string | null,
	role: "user" | "assistant",
	text: string,
	tokens?: [number, number],
): string {
	const message =
		role === "user"
			? { role, content: text, timestamp: 1 }
			: {
					role,
					content: [{ type: "text", text }],
					api: "anthropic-messages",
					provider: "anthropic",
					model: "claude-sonnet-4-5",
					usage: usage(...(tokens as [number, number])),
					stopReason: "stop",
					timestamp: 1,
				};
	return JSON.stringify({ type: "message", id, parentId, timestamp: T, message });
}

/** The session's JSONL (see the module's documentation). */
function sessionText(): string {
	const lines = [JSON.stringify({ type: "session", version: 3, id: "lazy-page", timestamp: T, cwd: "/p" })];
	let parent: string | null = null;
	for (let i = 1; i <= PAIRS; i++) {
		const u = `u${i}`;
		lines.push(line(u, parent, "user", `question number ${i}`));
		lines.push(line(`a${i}`, u, "assistant", `answer number ${i}`, [1, 2]));
		parent = `a${i}`;
	}
	parent = `a${FORK_AT}`;
	for (let i = 1; i <= BRANCH_PAIRS; i++) {
		lines.push(line(`bu${i}`, parent, "user", `branch question ${i}`));
		lines.push(line(`ba${i}`, `bu${i}`, "assistant", `zebra branch answer ${i}`, [10, 20]));
		parent = `ba${i}`;
	}
	return `${lines.join("\n")}\n`;
}

if (BROWSER_SKIP !== undefined) console.log(`# html-lazy: skipped: ${BROWSER_SKIP}`);

describe("a large session's page: bodies parsed when shown, the rest after the first render", {
	skip: BROWSER_SKIP,
}, () => {
	let browser: TestBrowser | undefined;
	let html = "";

	before(async () => {
		const dir = tempDir();
		const file = join(dir, "lazy.jsonl");
		writeFileSync(file, sessionText());
		html = join(dir, "lazy.html");
		const result = await cli(["html", file, "-o", html]);
		assert.equal(result.code, 0, result.stderr);
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		removeTempDirs();
	});

	test("ready before its bodies are read; then the path's and the session's totals, as built", async () => {
		assert.ok(browser);
		const opened = await browser.open(html, { readyTimeout: 60_000 });
		const { page } = opened;
		// The leaf's reply is drawn, selected, in the conversation.
		assert.equal(await page.locator('article[aria-current="true"]').getAttribute("data-entry-id"), "ba5");
		await page.waitForSelector('[data-role="path-usage"]:not([data-pending])', { timeout: 60_000 });
		const marks = (await page.evaluate(
			"Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))",
		)) as Record<string, number>;
		assert.ok(
			marks["session-tree:ready"] !== undefined && marks["session-tree:bodies"] !== undefined,
			JSON.stringify(marks),
		);
		assert.ok(
			(marks["session-tree:bodies"] as number) > (marks["session-tree:ready"] as number),
			"the bodies were read after the page was ready",
		);
		assert.equal(
			await page.locator('[data-role="path-usage"]').textContent(),
			"Path: 150 in · 300 out · cost not reported (reported by 105 replies)",
		);
		assert.equal(
			await page.locator('[data-role="session-usage"]').textContent(),
			"Session: 12,050 in · 24,100 out · cost not reported (reported by 12,005 replies)",
		);
		assert.deepEqual(problems(opened), []);
	});

	test("search reaches every entry, and a result off the path opens its branch", async () => {
		assert.ok(browser);
		const { page } = await browser.open(html, { readyTimeout: 60_000, hash: "#leaf=a100" });
		await page.locator('[data-role="search"]').fill("answer number 11999");
		const result = page.locator('[data-role="search-results"] .result[data-entry-id="a11999"]');
		await result.waitFor({ timeout: 60_000 });
		await result.click();
		await page.waitForSelector('article[aria-current="true"][data-entry-id="a11999"]', { timeout: 10_000 });
		assert.match((await page.locator('article[aria-current="true"]').textContent()) ?? "", /answer number 11999/);
	});
});
