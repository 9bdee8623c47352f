/**
 * What the HTML export showed a new user (issue 25), in Debian's Chromium: the splitter that
 * widens the tree pane (mouse and keys, remembered for the tab), deep trees that keep their
 * text and the leaf marker in view, one token figure in the context panel with its
 * explanation, usage a reply did not report shown as absent, Codex's shell output as its text,
 * the agents' bookkeeping records hidden from the conversation unless the filter `all` is
 * chosen, and the title from the first prompt. Pages are made by the built CLI from the real
 * sessions of test/fixtures/real and from a deep session made here; expectations come from the
 * raw files or the library's core (not from src/render/usage.ts, which the page uses).
 * Screenshots go where html-browser.test.ts puts its own (SESSION_TREE_SCREENSHOTS or a kept
 * temporary directory).
 */

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { estimateTokens } from "../../src/core/tokens.js";
import { openForeignFile } from "../../src/import/open-foreign.js";
import { Session } from "../../src/index.js";
import { cli, REPO, removeTempDirs, tempDir } from "../cli/helpers.js";
import { BROWSER_SKIP, launchBrowser, problems, type TestBrowser } from "../support/browser.js";
import { deepSession as deepSessionIn } from "../support/deep-session.js";

const REAL = join(REPO, "test", "fixtures", "real");
const SPOTTER = join(REAL, "claude-code", "spotter-2.1.38-tool-heavy.jsonl");
const ACIDICSOIL = join(REAL, "codex", "acidicsoil-0.58.0-rollout-019a93b9.jsonl");
const LOCALPUSH = join(REAL, "codex", "localpush-0.104-12-41-04-019c8a4d.jsonl");

/** Levels of forks of the deep session. */
const DEPTH = 30;
const LONG_LABEL = "a rather long label that would push the leaf marker off the row";

/** The deep session of test/support/deep-session.ts, its texts long enough to fill a row of the tree pane. */
function deepSession(file: string): Promise<Session> {
	return deepSessionIn(file, {
		depth: DEPTH,
		label: LONG_LABEL,
		filler: " with a text long enough to fill the row of the tree pane",
	});
}

let outDir = "";
let exported = 0;
/** Another agent's file, read as the CLI reads it (read-only). */
async function openForeign(file: string): Promise<Session> {
	const opened = await openForeignFile(file);
	assert.ok(opened, file);
	return opened.session;
}

async function exportHtml(file: string): Promise<string> {
	const out = join(outDir, `views-${++exported}.html`);
	const result = await cli(["html", file, "-o", out]);
	assert.equal(result.code, 0, result.stderr);
	return out;
}

let screenshotDir = "";
function screenshotPath(name: string): string {
	if (screenshotDir === "") {
		screenshotDir = process.env.SESSION_TREE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "session-tree-screens-"));
		mkdirSync(screenshotDir, { recursive: true });
	}
	return join(screenshotDir, name);
}

/** What the callbacks run in the page use of its globals (the tests compile without the DOM lib). */
interface PageNode {
	getBoundingClientRect(): { left: number; right: number; width: number };
	querySelector(selector: string): PageNode | null;
	getAttribute(name: string): string | null;
	scrollWidth: number;
	clientWidth: number;
	offsetParent: unknown;
}
/** Width of an element in the page. */
function widthOf(page: Page, selector: string): Promise<number> {
	return page.locator(selector).evaluate((node) => (node as unknown as PageNode).getBoundingClientRect().width);
}

if (BROWSER_SKIP !== undefined) console.log(`# html-views: skipped: ${BROWSER_SKIP}`);

describe("the export as a new user sees it (issue 25), in Chromium", { skip: BROWSER_SKIP }, () => {
	let browser: TestBrowser | undefined;
	const open = (...args: Parameters<TestBrowser["open"]>) => {
		assert.ok(browser, "the browser did not start");
		return browser.open(...args);
	};
	let deep: { file: string; html: string; leaf: string } | undefined;

	before(async () => {
		outDir = tempDir();
		browser = await launchBrowser();
		const file = join(outDir, "deep.jsonl");
		const s = await deepSession(file);
		const leaf = s.getLeafId() as string;
		await s.close();
		deep = { file, html: await exportHtml(file), leaf };
	});
	after(async () => {
		await browser?.close();
		removeTempDirs();
		if (screenshotDir !== "") console.log(`# screenshots: ${screenshotDir}`);
	});

	test("the splitter widens and narrows the tree pane, by mouse and by keys; the tab remembers the width", async () => {
		const opened = await open(await exportHtml(SPOTTER), { viewport: { width: 1400, height: 900 } });
		const { page } = opened;
		const splitter = page.locator('[data-role="splitter"]');
		assert.equal(await splitter.getAttribute("role"), "separator");
		assert.equal(await splitter.getAttribute("aria-orientation"), "vertical");
		const start = await widthOf(page, ".sidebar");
		const box = await splitter.boundingBox();
		assert.ok(box);
		await page.mouse.move(box.x + box.width / 2, box.y + 200);
		await page.mouse.down();
		await page.mouse.move(box.x + box.width / 2 + 150, box.y + 200, { steps: 5 });
		await page.mouse.up();
		const dragged = await widthOf(page, ".sidebar");
		assert.ok(Math.abs(dragged - (start + 150)) <= 2, `dragged 150 px: ${start} → ${dragged}`);
		await splitter.focus();
		for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft");
		assert.ok(Math.abs((await widthOf(page, ".sidebar")) - (dragged - 48)) <= 2, "three ← narrow it by 3 × 16 px");
		assert.equal(Number(await splitter.getAttribute("aria-valuenow")), Math.round(await widthOf(page, ".sidebar")));
		// The page's own keys do not act on the splitter's: ↑ did not move the selection away from the leaf.
		await page.keyboard.press("Home");
		assert.equal(Math.round(await widthOf(page, ".sidebar")), 180, "Home: the narrowest");
		await page.keyboard.press("Shift+ArrowRight");
		const kept = await widthOf(page, ".sidebar");
		assert.equal(Math.round(kept), 244);
		await page.screenshot({ path: screenshotPath("views-splitter.png") });
		await page.reload();
		await page.waitForSelector('html[data-ready="true"]');
		await page.waitForFunction(() =>
			(globalThis as unknown as { document: { querySelector(s: string): PageNode | null } }).document
				.querySelector('[data-role="splitter"]')
				?.getAttribute("aria-valuenow"),
		);
		assert.equal(Math.round(await widthOf(page, ".sidebar")), 244, "the width is remembered for the tab");
		assert.deepEqual(problems(opened), [], "nothing the CSP refused, no error");
	});

	test("a deep tree: indentation capped with the depth shown, no row wider than the pane, the leaf marker in view", async () => {
		assert.ok(deep);
		// 1200 px: the tree pane's default (30%) is 360 px, less than the leaf row needs whole.
		const { page } = await open(deep.html, { viewport: { width: 1200, height: 800 } });
		const tree = page.locator('[data-role="tree"]');
		const sizes = await tree.evaluate((node) => {
			const n = node as unknown as PageNode;
			return { scroll: n.scrollWidth, client: n.clientWidth };
		});
		assert.ok(sizes.scroll <= sizes.client, `no horizontal overflow: ${sizes.scroll} > ${sizes.client}`);
		const leafRow = page.locator(`[data-tree-id="${deep.leaf}"]`);
		assert.equal(await leafRow.getAttribute("aria-selected"), "true");
		// The leaf row is DEPTH levels deep (each fork adds one): its indentation says so.
		assert.match((await leafRow.locator(".prefix").textContent()) ?? "", new RegExp(`^«${DEPTH}» `));
		const inView = await page.evaluate((id) => {
			const doc = (globalThis as unknown as { document: { querySelector(s: string): PageNode | null } }).document;
			const treeBox = (doc.querySelector('[data-role="tree"]') as PageNode).getBoundingClientRect();
			const row = doc.querySelector(`[data-tree-id="${id}"]`) as PageNode;
			const leaf = (row.querySelector(".rleaf") as PageNode).getBoundingClientRect();
			const label = row.querySelector(".rlabel") as PageNode;
			return {
				leaf: leaf.left >= treeBox.left && leaf.right <= treeBox.right && leaf.width > 0,
				labelCut: label.scrollWidth > label.clientWidth,
			};
		}, deep.leaf);
		assert.ok(inView.leaf, "← leaf is inside the tree pane");
		assert.ok(inView.labelCut, "the long label gave way (it ends in an ellipsis)");
		await page.screenshot({ path: screenshotPath("views-deep-tree.png") });
	});

	test("one token figure: the last reported usage plus estimates after it, explained", async () => {
		const { page } = await open(await exportHtml(SPOTTER));
		// By another route: the context at the leaf from the library, its last reply with usage, estimates after it.
		const session = await openForeign(SPOTTER);
		const messages = session.buildSessionContext().messages;
		const last = messages.findLastIndex(
			(m) => m.role === "assistant" && ((m.usage as { totalTokens?: number } | undefined)?.totalTokens ?? 0) > 0,
		);
		const replied = messages[last] as {
			usage: { input: number; output: number; cacheRead: number; cacheWrite: number; totalTokens: number };
		};
		const u = replied.usage;
		assert.equal(u.totalTokens, u.input + u.output + u.cacheRead + u.cacheWrite);
		const after = messages.slice(last + 1).reduce((sum, m) => sum + estimateTokens(m), 0);
		await session.close();
		const figure = page.locator('[data-role="context-tokens"]');
		assert.equal(await figure.getAttribute("data-source"), "usage");
		assert.equal(Number(await figure.getAttribute("data-tokens")), u.totalTokens + after);
		assert.equal(await figure.textContent(), `${(u.totalTokens + after).toLocaleString("en-US")} tokens`);
		const explanation = (await page.locator('[data-role="context-explanation"]').textContent()) ?? "";
		assert.match(explanation, new RegExp(`reported \\(${u.totalTokens.toLocaleString("en-US")} tokens`));
		assert.match(explanation, new RegExp(`≈ ${after.toLocaleString("en-US")} tokens estimated`));
		assert.equal(await figure.getAttribute("title"), explanation);
		const facts = (await page.locator(".ctx-facts").textContent()) ?? "";
		assert.doesNotMatch(facts, /pi's estimate/, "no second, rival figure");
		assert.equal(facts.match(/\d tokens/g)?.length, 3, "the figure, and its two parts in its explanation");
	});

	test("usage no reply reported is absent: — and 'cost not reported', never 0 or $0", async () => {
		assert.ok(deep);
		const { page } = await open(deep.html);
		const figure = page.locator('[data-role="context-tokens"]');
		assert.equal(await figure.getAttribute("data-source"), "estimate");
		const session = await Session.open(deep.file);
		const estimate = session.buildSessionContext().messages.reduce((sum, m) => sum + estimateTokens(m), 0);
		await session.close();
		assert.equal(Number(await figure.getAttribute("data-tokens")), estimate);
		assert.match((await figure.textContent()) ?? "", /^≈ [\d,]+ tokens \(estimated\)$/);
		const path = (await page.locator('[data-role="path-usage"]').textContent()) ?? "";
		assert.equal(path, `Path: — (not reported by its ${DEPTH + 1} replies)`);
		assert.equal(await page.locator('[data-role="conversation"] .usage').count(), 0, "no 'in 0 · out 0' under a reply");
		// Claude Code reports tokens but no cost: the tokens, and the cost said to be missing.
		const spotter = await open(await exportHtml(SPOTTER));
		const line = (await spotter.page.locator('[data-role="session-usage"]').textContent()) ?? "";
		assert.match(line, /cost not reported/);
		assert.doesNotMatch(line, /\$0|\b0 cache write/);
	});

	test("Codex's shell output shows as its text, not its JSON envelope", async () => {
		const { page } = await open(await exportHtml(ACIDICSOIL), { hash: "" });
		// The first output of the rollout, read from the raw line: the page shows its output text.
		const raw = readFileSync(ACIDICSOIL, "utf8")
			.split("\n")
			.filter((line) => line.includes('"function_call_output"'))
			.map((line) => (JSON.parse(line) as { payload: { call_id: string; output: string } }).payload);
		const enveloped = raw.filter((p) => p.output.startsWith('{"output":'));
		assert.ok(enveloped.length > 30);
		const shown = (await page.locator('[data-role="conversation"]').textContent()) ?? "";
		assert.doesNotMatch(shown, /\{"output":/);
		const last = enveloped.at(-1) as { output: string };
		const text = (JSON.parse(last.output) as { output: string }).output;
		assert.ok(shown.includes(text.split("\n")[0] as string), "the last output's first line is on the page");
	});

	test("bookkeeping records are hidden from the conversation by default and shown with the filter 'all'", async () => {
		const { page } = await open(await exportHtml(LOCALPUSH), { viewport: { width: 1400, height: 900 } });
		const session = await openForeign(LOCALPUSH);
		const path = session.getBranch();
		const custom = path.filter((e) => e.type === "custom");
		const leaf = session.getLeafId();
		await session.close();
		assert.ok(custom.length > 50, `${custom.length} custom entries on the path`);
		const visible = () =>
			page.evaluate(() =>
				Array.from(
					(
						globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<PageNode> } }
					).document.querySelectorAll('[data-role="conversation"] article.bookkeeping'),
				)
					.filter((node) => node.offsetParent !== null)
					.map((node) => node.getAttribute("data-entry-id")),
			);
		// The leaf is codex:task_complete: selected, so shown; every other one is hidden.
		assert.equal(custom.at(-1)?.id, leaf);
		assert.deepEqual(await visible(), [leaf]);
		const note = page.locator('[data-role="bookkeeping-note"]');
		assert.match((await note.textContent()) ?? "", new RegExp(`^${custom.length} bookkeeping records`));
		await page.screenshot({ path: screenshotPath("views-bookkeeping-hidden.png") });
		// ↑ from the leaf skips them: the selection lands on an entry that is not a custom entry.
		await page.keyboard.press("k");
		const selected = await page.locator('[data-entry-id][aria-current="true"]').getAttribute("data-entry-id");
		assert.ok(selected && !custom.some((e) => e.id === selected), `${selected} is no custom entry`);
		await page.selectOption('select[data-role="filter"]', "all");
		// The conversation renders about a screenful at first (conversation.ts FIRST_WINDOW): more of the path, earlier.
		const earlier = page.locator('[data-role="conversation"] button.more-entries.earlier');
		if (await earlier.isVisible()) await earlier.dispatchEvent("click");
		const rendered = await page.locator('[data-role="conversation"] article.bookkeeping').count();
		assert.equal((await visible()).length, rendered, "with 'all' every rendered one shows");
		assert.ok(rendered > 20);
		assert.equal(await note.isVisible(), false);
	});

	test("the title and heading: the first prompt a person typed, not what the agent injected", async () => {
		// The rollout's first user messages are Codex's instructions and environment context.
		const firstUser = readFileSync(ACIDICSOIL, "utf8")
			.split("\n")
			.map((line) =>
				line.trim() === "" ? undefined : (JSON.parse(line) as { payload?: Record<string, unknown> }).payload,
			)
			.find((p) => p?.type === "message" && p.role === "user") as { content: Array<{ text: string }> };
		assert.match(firstUser.content[0]?.text ?? "", /^(<environment_context>|# AGENTS\.md|<user_instructions>)/);
		const { page } = await open(await exportHtml(ACIDICSOIL));
		const expected = /^finish up the users work by rigging up the chatbot-ui to use lmstudio/;
		assert.match(await page.title(), expected);
		assert.match((await page.locator("h1").textContent()) ?? "", expected);
		assert.equal(await page.title(), await page.locator("h1").textContent(), "the page and its heading agree");
	});
});
