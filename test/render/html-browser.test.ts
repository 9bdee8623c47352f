/**
 * `session-tree html` in a real browser (issue 11, "Done means"): the exported page is opened
 * from disk in Debian's Chromium (test/support/browser.ts) and checked against the library.
 *
 * The page is driven only through its DOM contract: `<html data-ready data-theme>`, the sidebar
 * (`[data-role="tree"]`, rows `[data-tree-id]` with `aria-selected` and `data-on-path`, the
 * filter `select[data-role="filter"]`), the conversation (`[data-role="conversation"]`, entries
 * `[data-entry-id]`, the selected one `aria-current="true"`), the context panel
 * (`[data-role="context"]`, items `[data-entry-id]`, `[data-role="context-tokens"]`), the search
 * (`input[data-role="search"]`, `[data-role="search-results"] button[data-entry-id]`), the
 * theme toggle, the download link, and the fragments `#leaf=ID` and `#entry=ID`.
 *
 * The HTML is made by the built CLI (`SESSION_TREE_BIN`, see test/cli/helpers.ts). Screenshots go
 * to $SESSION_TREE_SCREENSHOTS, or else to a new temporary directory that is kept (its paths are
 * printed as diagnostics). Without Chromium the file skips (outside CI) with the package to
 * install; under CI=true it fails.
 */

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { generateSession } from "../../bench/generate.js";
import { Session } from "../../src/index.js";
import { filterTree, TREE_FILTERS, type TreeFilter } from "../../src/render/tree-text.js";
import { cli, fixture, REPO, removeTempDirs, tempDir } from "../cli/helpers.js";
import {
	BROWSER_SKIP,
	foreignRequests,
	launchBrowser,
	type OpenedPage,
	problems,
	type TestBrowser,
} from "../support/browser.js";
import { embeddedPieces, embeddedRecordText } from "../support/page-data.js";
import { say, toolRound } from "./helpers.js";

const HOSTILE = join(REPO, "test", "fixtures", "html", "hostile.jsonl");
const S100K = join(REPO, "bench", "data", "s100k.jsonl");

/** The secrets planted in hostile.jsonl: a distinctive part of each, and its redaction kind. */
const SECRETS = [
	{ kind: "api-key", text: "sk-proj-Q7rT2mX9vL4kP8sN3wY6zB1cF5hJ0dG2aE7uR4iO" },
	{ kind: "aws-access-key-id", text: "AKIAHOSTILEFIXTURE42" },
	{
		kind: "jwt",
		text: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJob3N0aWxlLWZpeHR1cmUiLCJpYXQiOjE3NDg3Njg0MDB9",
	},
	{ kind: "private-key", text: "HostileFixtureNotARealKey0123456789abcdefABCDEFGHIJ" },
	{ kind: "url-password", text: "hunter2secret" },
] as const;

/** The payloads of hostile.jsonl that must show as text. */
const SCRIPT_PAYLOAD = "<script>window.__pwned=1</script>";
const IMG_PAYLOAD = '<img src=x onerror="window.__pwned=1">';

/** What the callbacks run in the page use of its globals (the tests compile without the DOM lib). */
interface PageGlobals {
	__pwned?: unknown;
	location: { hash: string };
	document: {
		documentElement: { dataset: Record<string, string | undefined> };
		activeElement: { matches(selector: string): boolean; blur?: () => void } | null;
		querySelectorAll(selector: string): ArrayLike<PageElement>;
		querySelector(selector: string): PageElement | null;
	};
	getComputedStyle(element: PageElement): { overflowY: string };
}
interface PageElement {
	getAttribute(name: string): string | null;
	click(): void;
	open?: boolean;
	parentElement: PageElement | null;
	scrollTop: number;
	scrollHeight: number;
	clientHeight: number;
	textContent: string | null;
	getBoundingClientRect(): { top: number; bottom: number; height: number };
	dispatchEvent(event: unknown): boolean;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Reads until `ok` holds or `timeout` passes; returns the last value read (assert on it). */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeout = 5_000): Promise<T> {
	const deadline = Date.now() + timeout;
	for (;;) {
		const value = await read();
		if (ok(value) || Date.now() >= deadline) return value;
		await sleep(25);
	}
}

const sameList = (a: readonly string[], b: readonly string[]) =>
	a.length === b.length && a.every((value, i) => value === b[i]);

// ---- reading the page ------------------------------------------------------------------------

const attributeOf = (page: Page, selector: string, name: string): Promise<string[]> =>
	page.locator(selector).evaluateAll((elements, attr) => elements.map((e) => e.getAttribute(attr) ?? ""), name);

const contextIds = (page: Page) => attributeOf(page, '[data-role="context"] [data-entry-id]', "data-entry-id");
const conversationIds = (page: Page) =>
	attributeOf(page, '[data-role="conversation"] [data-entry-id]', "data-entry-id");
const currentIds = (page: Page) =>
	attributeOf(page, '[data-role="conversation"] [data-entry-id][aria-current="true"]', "data-entry-id");
const treeIds = (page: Page) => attributeOf(page, '[data-role="tree"] [data-tree-id]', "data-tree-id");
const selectedRows = (page: Page) =>
	attributeOf(page, '[data-role="tree"] [data-tree-id][aria-selected="true"]', "data-tree-id");
const onPathRows = (page: Page) =>
	attributeOf(page, '[data-role="tree"] [data-tree-id][data-on-path="true"]', "data-tree-id");
const theme = (page: Page) => page.locator("html").getAttribute("data-theme");
const hashOf = (page: Page) => new URL(page.url()).hash;
const pwned = (page: Page) => page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned);

/** Sets the URL's fragment from inside the page (a same-document navigation, as a click on a link). */
async function setHash(page: Page, hash: string): Promise<void> {
	await page.evaluate((value) => {
		(globalThis as unknown as PageGlobals).location.hash = value;
	}, hash);
}

/** Waits until `id` is the selected entry of the conversation; asserts it. */
async function expectCurrent(page: Page, id: string, what: string): Promise<void> {
	const current = await until(
		() => currentIds(page),
		(ids) => sameList(ids, [id]),
	);
	assert.deepEqual(current, [id], `${what}: the conversation's aria-current entry`);
}

/** The ids of `ids` that are also in `order`, kept in order: `ids` must be a subsequence of `order`. */
function assertSubsequence(ids: readonly string[], order: readonly string[], what: string): void {
	let at = 0;
	for (const id of ids) {
		const found = order.indexOf(id, at);
		assert.ok(found !== -1, `${what}: ${id} is not on the path in order (${ids.join(" ")} vs ${order.join(" ")})`);
		at = found + 1;
	}
}

/** Nothing went wrong on the page: no console error, page error, dialog, popup or foreign request. */
function assertClean(opened: OpenedPage, what: string): void {
	assert.deepEqual(problems(opened), [], what);
}

// ---- making the pages ------------------------------------------------------------------------

let outDir = "";
let exported = 0;

/** Runs `session-tree html FILE -o OUT ...extra`; returns OUT. */
async function exportHtml(file: string, extra: readonly string[] = []): Promise<string> {
	const out = join(outDir, `page-${++exported}.html`);
	const result = await cli(["html", file, "-o", out, ...extra]);
	assert.equal(result.code, 0, `session-tree html ${file}: ${result.stderr}`);
	assert.ok(existsSync(out), `session-tree html wrote no ${out}`);
	return out;
}

const pages = new Map<string, Promise<string>>();

/** The HTML of a pi fixture (made once per test file). */
function fixturePage(name: string): Promise<string> {
	let page = pages.get(name);
	if (page === undefined) {
		page = exportHtml(fixture(name));
		pages.set(name, page);
	}
	return page;
}

const sessions = new Map<string, Promise<Session>>();

/** The fixture opened with the library (once per test file). */
function fixtureSession(name: string): Promise<Session> {
	let session = sessions.get(name);
	if (session === undefined) {
		session = Session.open(fixture(name));
		sessions.set(name, session);
	}
	return session;
}

let screenshotDir = "";

function screenshotPath(name: string): string {
	if (screenshotDir === "") {
		screenshotDir = process.env.SESSION_TREE_SCREENSHOTS ?? mkdtempSync(join(tmpdir(), "session-tree-screens-"));
		mkdirSync(screenshotDir, { recursive: true });
	}
	return join(screenshotDir, name);
}

/** The ids the sidebar shows under `filter` as the library computes it (tree-text's filter). */
function expectedRows(session: Session, filter: TreeFilter, leafId: string | null): string[] {
	const ids: string[] = [];
	const stack = [...filterTree(session.getTree(), filter, { leafId })];
	for (let node = stack.pop(); node; node = stack.pop()) {
		ids.push(node.entry.id);
		stack.push(...node.children);
	}
	return ids.sort();
}

/** Entry types the conversation renders as entries whatever the filter. */
const CONVERSATION_TYPES = new Set(["message", "compaction", "branch_summary", "custom_message"]);

/**
 * The leaves to check the context at: the file's leaf and the tips of side branches (or, when
 * such a tip is a label or another settings entry, its nearest ancestor the conversation shows),
 * each compaction and branch summary and the entries right before and after them, and the
 * labelled entries; only entries the conversation shows (messages, compactions, branch
 * summaries, custom messages).
 */
function interestingLeaves(session: Session): string[] {
	const ids: string[] = [];
	const add = (id: string | null | undefined, walkUp = false) => {
		let entry = id ? session.getEntry(id) : undefined;
		while (walkUp && entry && !CONVERSATION_TYPES.has(entry.type)) {
			entry = entry.parentId === null ? undefined : session.getEntry(entry.parentId);
		}
		if (entry && CONVERSATION_TYPES.has(entry.type) && !ids.includes(entry.id)) ids.push(entry.id);
	};
	add(session.getLeafId(), true);
	for (const tip of session.listBranches()) add(tip, true);
	for (const entry of session.getEntries()) {
		if (session.getLabel(entry.id) !== undefined) add(entry.id);
		if (entry.type !== "compaction" && entry.type !== "branch_summary") continue;
		add(entry.parentId);
		add(entry.id);
		for (const child of session.getChildren(entry.id)) add(child.id);
	}
	return ids;
}

// ---- the tests -------------------------------------------------------------------------------

if (BROWSER_SKIP !== undefined) console.log(`# html-browser: skipped: ${BROWSER_SKIP}`);

describe("session-tree html in Chromium", { skip: BROWSER_SKIP }, () => {
	let browser: TestBrowser | undefined;
	const open = (...args: Parameters<TestBrowser["open"]>) => {
		assert.ok(browser, "the browser did not start");
		return browser.open(...args);
	};

	// The large pages take seconds to make: they are made in other processes while the first tests run.
	let s20k: Promise<{ file: string; entries: number; jsonlBytes: number; exportMs: number }> | undefined;
	let s100k: Promise<{ file: string; exportMs: number }> | undefined;

	before(async () => {
		outDir = tempDir();
		browser = await launchBrowser();
		const timed = async (file: string) => {
			const started = performance.now();
			const html = await exportHtml(file);
			return { file: html, exportMs: performance.now() - started };
		};
		if (existsSync(S100K)) s100k = timed(S100K);
		s20k = (async () => {
			const source = join(tempDir(), "s20k.jsonl");
			const stats = generateSession({ file: source, entries: 20_000, seed: 20_000 });
			return { ...(await timed(source)), entries: stats.entries, jsonlBytes: stats.bytes };
		})();
		// Awaited by their tests; a failure must not surface as an unhandled rejection before that.
		s20k.catch(() => {});
		s100k?.catch(() => {});
	});

	after(async () => {
		await browser?.close();
		for (const session of sessions.values()) await (await session).close();
		removeTempDirs();
		if (screenshotDir !== "") console.log(`# html-browser: screenshots in ${screenshotDir}`);
	});

	test("the page loads offline: no console error, no page error, no request but the file", async () => {
		const file = await fixturePage("tool-calls");
		const opened = await open(file);
		const { page } = opened;
		assert.equal(await page.locator("html").getAttribute("data-ready"), "true");
		assert.match((await theme(page)) ?? "", /^(light|dark)$/);
		for (const role of ["tree", "conversation", "context", "context-tokens"]) {
			assert.equal(await page.locator(`[data-role="${role}"]`).count(), 1, `one [data-role="${role}"]`);
		}
		assert.equal(await page.locator('input[data-role="search"]').count(), 1);
		assert.equal(await page.locator('button[data-role="theme-toggle"]').count(), 1);
		const download = page.locator('a[data-role="download"]');
		assert.equal(await download.count(), 1, 'one a[data-role="download"]');
		const href = (await download.getAttribute("href")) ?? "";
		assert.doesNotMatch(href, /^(?:https?|ftp|wss?):/i, "the download link stays in the page");
		assert.match((await page.locator('[data-role="context-tokens"]').textContent()) ?? "", /\d/);
		const options = await attributeOf(page, 'select[data-role="filter"] option', "value");
		assert.deepEqual([...options].sort(), [...TREE_FILTERS].sort(), "the filter offers pi's five filters");
		// The raw file: one file, a CSP, nothing loaded from elsewhere.
		const html = readFileSync(file, "utf8");
		assert.match(html, /<meta[^>]+http-equiv=["']?Content-Security-Policy/i, "a CSP meta element");
		assert.doesNotMatch(html, /<script\b[^>]*\bsrc=/i, "no external script");
		assert.doesNotMatch(html, /<link\b[^>]*\bhref=/i, "no external stylesheet");
		await sleep(200);
		assertClean(opened, "tool-calls page");
		assert.deepEqual(foreignRequests(opened), []);
		assert.ok(opened.log.requests.length >= 1, "the file itself was requested");
	});

	test("the download link gives the embedded records byte for byte, its Blob made when first used", async () => {
		// 600 generated entries are about 0.8 MB of JSONL: the page decodes them in many chunks of
		// the browser's gunzip (64 KiB each in Chromium), joined again for the download.
		const source = join(tempDir(), "download.jsonl");
		generateSession({ file: source, entries: 600, seed: 600 });
		const file = await exportHtml(source);
		const expected = embeddedRecordText(readFileSync(file, "utf8"));
		assert.ok(expected.length > 4 * 65_536, `the records span several chunks (${expected.length} bytes)`);
		const opened = await open(file);
		const { page } = opened;
		const link = page.locator('a[data-role="download"]');
		assert.equal(await link.getAttribute("href"), "#download", "no Blob before the link is used");
		const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
		assert.match((await link.getAttribute("href")) ?? "", /^blob:/, "a Blob URL once clicked");
		const path = await download.path();
		assert.equal(readFileSync(path, "utf8"), expected, "the downloaded JSONL is the embedded one");
		assert.equal(page.url().includes("#download"), false, "the click did not follow the placeholder");
		assertClean(opened, "download page");
	});

	test("records in many elements, and cut anywhere with white space, decode to the same JSONL", async () => {
		// Random base64 text barely compresses: the records take several elements of the page.
		const session = await Session.create({ dir: tempDir(), cwd: "/p" });
		for (let i = 0; i < 6; i++)
			await say(session, i % 2 === 0 ? "user" : "assistant", randomBytes(120_000).toString("base64"));
		await session.close();
		const file = await exportHtml(session.file as string, ["--no-redact"]);
		const html = readFileSync(file, "utf8");
		const pieces = embeddedPieces(html);
		assert.ok(pieces.length >= 4, `the records span ${pieces.length} elements`);
		const expected = embeddedRecordText(html);
		// The same base64 text in elements of other lengths (none a multiple of 4), wrapped at 76
		// characters: the client gives each element's last characters to the next.
		const joined = pieces.join("");
		const recut: string[] = [];
		for (let at = 0, k = 0; at < joined.length; k++) {
			const size = [1_001, 7, 65_537, 262_147][k % 4] as number;
			recut.push(joined.slice(at, at + size).replace(/.{1,76}/g, "$&\n"));
			at += size;
		}
		const first = html.indexOf('<script type="application/gzip+base64" class="session-data">');
		const last = html.lastIndexOf('class="session-data">');
		const end = html.indexOf("</script>", last) + "</script>".length;
		const elements = recut.map(
			(text) => `<script type="application/gzip+base64" class="session-data">${text}</script>`,
		);
		const other = join(outDir, "recut.html");
		writeFileSync(other, `${html.slice(0, first)}${elements.join("\n")}${html.slice(end)}`);
		for (const page of [file, other]) {
			const opened = await open(page);
			const link = opened.page.locator('a[data-role="download"]');
			const [download] = await Promise.all([opened.page.waitForEvent("download"), link.click()]);
			assert.equal(readFileSync(await download.path(), "utf8"), expected, `${page}: the JSONL the page decoded`);
			assertClean(opened, page);
		}
	});

	const CONTEXT_FIXTURES = [
		"two-compactions",
		"compaction",
		"compaction-kept-offpath",
		"compaction-on-side-branch",
		"branch-with-summary",
		"branch-in-place",
		"labels",
	];

	test("#leaf=ID shows the library's context at ID (branches, compactions, branch summaries, labels)", async (t) => {
		let checked = 0;
		for (const name of CONTEXT_FIXTURES) {
			const session = await fixtureSession(name);
			const leaves = interestingLeaves(session);
			assert.ok(leaves.length >= 2, `${name}: leaves to check (${leaves.join(" ")})`);
			const filePath = new Set(session.getBranch().map((entry) => entry.id));
			t.diagnostic(
				`${name}: ${leaves
					.map((id) => `${id} ${session.getEntry(id)?.type}${filePath.has(id) ? "" : " (side branch)"}`)
					.join(", ")}`,
			);
			const file = await fixturePage(name);
			// The first leaf through the initial URL, the others as hash changes of the open page.
			const [first, ...rest] = leaves as [string, ...string[]];
			const opened = await open(file, { hash: `leaf=${first}` });
			const { page } = opened;
			for (const id of [first, ...rest]) {
				const what = `${name} #leaf=${id} (${session.getEntry(id)?.type})`;
				if (id !== first) await setHash(page, `#leaf=${id}`);
				await expectCurrent(page, id, what);
				const expected = session.buildContextEntries(id).map((item) => item.entry.id);
				const shown = await until(
					() => contextIds(page),
					(ids) => sameList(ids, expected),
				);
				assert.deepEqual(shown, expected, `${what}: context items`);
				const path = session.getBranch(id).map((entry) => entry.id);
				assertSubsequence(await conversationIds(page), path, `${what}: conversation`);
				const selected = await selectedRows(page);
				if ((await treeIds(page)).includes(id)) assert.deepEqual(selected, [id], `${what}: aria-selected row`);
				const onPath = await onPathRows(page);
				for (const row of onPath) assert.ok(path.includes(row), `${what}: row ${row} is marked on the path`);
				checked++;
			}
			assertClean(opened, name);
		}
		t.diagnostic(`${checked} leaves checked on ${CONTEXT_FIXTURES.length} fixtures`);
	});

	test("a leaf change draws the rows a fresh layout draws (the old leaf hidden, the new one shown)", async (t) => {
		const source = join(tempDir(), "leaves.jsonl");
		generateSession({ file: source, entries: 600, seed: 28 });
		const session = await Session.open(source);
		// Tool calls without text on branches of their own: a filter shows such a message only as the leaf.
		const bare: string[] = [];
		const messages = session.getEntries().filter((entry) => entry.type === "message");
		for (const at of [30, 200, 201, 450, messages.length - 1]) {
			await session.branch((messages[at] as { id: string }).id);
			const [call] = await toolRound(session, "read", { path: `${at}.ts` }, "text");
			bare.push(call);
			if (at !== 201) await say(session, "user", `after ${at}`);
			if (at === 450) bare.push((await toolRound(session, "grep", { q: "x" }, "y"))[0]);
		}
		await session.close();
		const others = [messages[40], messages.at(-5), messages[3]].map((entry) => (entry as { id: string }).id);
		const leaves = [bare[0], others[0], bare[1], bare[2], bare[3], others[1], bare[4], bare[5], others[2]] as string[];
		const opened = await open(await exportHtml(source));
		const { page } = opened;
		const drawn = () =>
			page.evaluate(() => {
				const rows = (globalThis as unknown as PageGlobals).document.querySelectorAll('[data-role="tree"] .row');
				return Array.from(rows, (row) =>
					[
						row.getAttribute("data-tree-id"),
						row.getAttribute("aria-selected"),
						row.getAttribute("data-on-path"),
						row.textContent,
					].join("|"),
				);
			});
		for (const filter of ["default", "no-tools", "all"] as const) {
			await page.selectOption('select[data-role="filter"]', filter);
			for (const id of leaves) {
				await setHash(page, `#leaf=${id}`);
				await expectCurrent(page, id, `${filter} #leaf=${id}`);
				const updated = await drawn();
				// The leaf's row, or its nearest shown ancestor's when the filter hides it.
				assert.equal(
					updated.filter((row) => row.split("|")[1] === "true").length,
					1,
					`${filter}: one row marked as the leaf (${id})`,
				);
				// Another filter and back: the sidebar lays the tree out afresh with the same leaf.
				await page.selectOption('select[data-role="filter"]', filter === "all" ? "default" : "all");
				await page.selectOption('select[data-role="filter"]', filter);
				assert.deepEqual(updated, await drawn(), `${filter}: the rows after the leaf change to ${id}`);
			}
		}
		t.diagnostic(`${leaves.length} leaves under 3 filters, ${bare.length} assistant messages without text`);
		assertClean(opened, "leaf changes");
	});

	test("#entry=ID selects the path through ID and shows it", async () => {
		const session = await fixtureSession("branch-in-place");
		// An entry on a side branch, in the middle of it (it has children).
		const leaf = session.getLeafId();
		const onPath = new Set(session.getBranch().map((entry) => entry.id));
		const side = session
			.getEntries()
			.find((entry) => !onPath.has(entry.id) && entry.type === "message" && session.getChildren(entry.id).length > 0);
		assert.ok(side && leaf, "branch-in-place has a side branch");
		const opened = await open(await fixturePage("branch-in-place"), { viewport: { width: 1280, height: 400 } });
		const { page } = opened;
		await setHash(page, `#entry=${side.id}`);
		const ids = await until(
			() => conversationIds(page),
			(list) => list.includes(side.id),
		);
		assert.ok(ids.includes(side.id), `#entry=${side.id}: the conversation shows the entry`);
		assertSubsequence(
			ids,
			session.getBranch(ids.at(-1)).map((entry) => entry.id),
			"#entry: conversation",
		);
		const visible = await until(
			() =>
				page.locator(`[data-role="conversation"] [data-entry-id="${side.id}"]`).evaluate((element) => {
					const rect = element.getBoundingClientRect();
					return rect.bottom > 0 && rect.top < 400;
				}),
			(inView) => inView,
		);
		assert.ok(visible, `#entry=${side.id}: the entry is scrolled into view`);
		assertClean(opened, "#entry");
	});

	test('filter "all": one sidebar row per entry tree --filter all shows', async (t) => {
		const names = ["labels", "branch-with-summary", "custom-and-custom-message", "tool-calls", "two-compactions"];
		for (const name of names) {
			const session = await fixtureSession(name);
			const opened = await open(await fixturePage(name));
			const { page } = opened;
			await page.selectOption('select[data-role="filter"]', "all");
			const expected = expectedRows(session, "all", session.getLeafId());
			const rows = await until(
				async () => (await treeIds(page)).sort(),
				(ids) => sameList(ids, expected),
			);
			assert.deepEqual(rows, expected, `${name}: rows under "all"`);
			assert.deepEqual(await selectedRows(page), [session.getLeafId()], `${name}: the leaf's row is selected`);
			const path = new Set(session.getBranch().map((entry) => entry.id));
			const onPath = (await onPathRows(page)).sort();
			assert.deepEqual(
				onPath,
				rows.filter((id) => path.has(id)),
				`${name}: data-on-path marks the path's rows`,
			);
			// Every other filter shows a part of "all".
			for (const filter of TREE_FILTERS.filter((f) => f !== "all")) {
				await page.selectOption('select[data-role="filter"]', filter);
				await sleep(30);
				for (const id of await treeIds(page)) assert.ok(expected.includes(id), `${name} ${filter}: row ${id}`);
			}
			assertClean(opened, name);
			t.diagnostic(`${name}: ${rows.length} rows of ${session.getEntries().length} entries`);
		}
	});

	test("search: a hit on a side branch moves the path there; Back returns", async () => {
		const session = await fixtureSession("branch-in-place");
		const term = "third";
		const path = new Set(session.getBranch().map((entry) => entry.id));
		const hits = session.getEntries().filter((entry) => JSON.stringify(entry).toLowerCase().includes(term));
		assert.ok(hits.length === 1 && hits[0] !== undefined && !path.has(hits[0].id), "the term is on a side branch only");
		const target = hits[0].id;
		const leaf = session.getLeafId() as string;
		const opened = await open(await fixturePage("branch-in-place"));
		const { page } = opened;
		await expectCurrent(page, leaf, "on load");
		assert.ok(!(await conversationIds(page)).includes(target), "the hit is not shown before");
		const before = page.url();
		await page.fill('input[data-role="search"]', term);
		const result = page.locator(`[data-role="search-results"] button[data-entry-id="${target}"]`);
		await result.waitFor({ state: "visible", timeout: 5_000 });
		await result.click();
		await expectCurrent(page, target, "after the click");
		assert.ok((await conversationIds(page)).includes(target), "the conversation shows the hit");
		assert.equal(hashOf(page), `#leaf=${target}`);
		const expected = session.buildContextEntries(target).map((item) => item.entry.id);
		assert.deepEqual(
			await until(
				() => contextIds(page),
				(ids) => sameList(ids, expected),
			),
			expected,
			"the context follows",
		);
		await page.goBack();
		await expectCurrent(page, leaf, "after Back");
		assert.ok(!(await conversationIds(page)).includes(target), "Back left the side branch");
		assert.equal(page.url(), before, "Back restored the URL");
		await page.goForward();
		await expectCurrent(page, target, "after Forward");
		assertClean(opened, "search");
	});

	test("keys: j/k move the selection along the path, / focuses the search, the toggle flips the theme", async () => {
		const session = await fixtureSession("linear-chat");
		const opened = await open(await fixturePage("linear-chat"));
		const { page } = opened;
		const leaf = session.getLeafId() as string;
		await expectCurrent(page, leaf, "on load");
		const order = await conversationIds(page);
		const at = order.indexOf(leaf);
		assert.ok(at >= 2, "the leaf is below two entries");
		const blur = () =>
			page.evaluate(() => {
				(globalThis as unknown as PageGlobals).document.activeElement?.blur?.();
			});
		await blur();
		await page.keyboard.press("k");
		await expectCurrent(page, order[at - 1] as string, "k");
		await page.keyboard.press("k");
		await expectCurrent(page, order[at - 2] as string, "k k");
		await page.keyboard.press("j");
		await expectCurrent(page, order[at - 1] as string, "k k j");
		assertSubsequence(
			await conversationIds(page),
			session.getBranch().map((entry) => entry.id),
			"after j/k",
		);
		await blur();
		await page.keyboard.press("/");
		const focused = await until(
			() =>
				page.evaluate(
					() =>
						(globalThis as unknown as PageGlobals).document.activeElement?.matches('input[data-role="search"]') ===
						true,
				),
			(yes) => yes,
		);
		assert.ok(focused, "/ focuses the search field");
		const first = await theme(page);
		await page.click('button[data-role="theme-toggle"]');
		const flipped = await until(
			() => theme(page),
			(value) => value !== first,
		);
		assert.equal(flipped, first === "dark" ? "light" : "dark", "the toggle flips data-theme");
		await page.click('button[data-role="theme-toggle"]');
		assert.equal(
			await until(
				() => theme(page),
				(value) => value === first,
			),
			first,
			"and back",
		);
		assertClean(opened, "keys");
	});

	test("the hostile session: payloads stay text, nothing runs, nothing is fetched", async (t) => {
		const variants = [
			{ name: "redacted", file: await exportHtml(HOSTILE) },
			{ name: "--no-redact", file: await exportHtml(HOSTILE, ["--no-redact"]) },
		];
		for (const { name, file } of variants) {
			const opened = await open(file);
			const { page } = opened;
			const conversation = page.locator('[data-role="conversation"]');
			const text = (await conversation.textContent()) ?? "";
			assert.ok(text.includes(SCRIPT_PAYLOAD), `${name}: the <script> payload shows as text`);
			assert.ok(text.includes(IMG_PAYLOAD), `${name}: the <img onerror> payload shows as text`);
			assert.equal(await pwned(page), undefined, `${name}: after loading`);
			// The download link is the page's own (it may be a data: URL of the session); the rest may not be.
			const dangerousOutsideDownload = async () =>
				(
					await page
						.locator('a:not([data-role="download"])')
						.evaluateAll((elements) => elements.map((e) => e.getAttribute("href") ?? ""))
				).filter((href) => /^\s*(?:javascript|data|vbscript):/i.test(href));
			assert.deepEqual(await dangerousOutsideDownload(), [], `${name}: no javascript:/data:/vbscript: link`);
			// Open every <details>, hover the conversation, then click every link (and everything else
			// clickable: buttons, summaries, role=link/button) in it and in the context. The fixture has
			// no http(s) link, whose (wanted) navigation would be a request.
			await page.evaluate(() => {
				const all = (globalThis as unknown as PageGlobals).document.querySelectorAll("details");
				for (let i = 0; i < all.length; i++) {
					const details = all[i];
					if (details) details.open = true;
				}
			});
			const box = await conversation.boundingBox();
			if (box) {
				for (let y = box.y + 5; y < box.y + box.height; y += 40) await page.mouse.move(box.x + box.width / 2, y);
			}
			const clickable = ":is(a, button, summary, [role=link], [role=button])";
			const anchors = page.locator(`[data-role="conversation"] ${clickable}, [data-role="context"] ${clickable}`);
			const count = await anchors.count();
			const links = await page.locator('[data-role="conversation"] a, [data-role="context"] a').count();
			for (let i = 0; i < count; i++) {
				await anchors
					.nth(i)
					.evaluate((element) => element.click())
					.catch(() => {});
				await sleep(20);
				assert.equal(
					new URL(page.url()).pathname,
					new URL(opened.url).pathname,
					`${name}: clickable ${i} left the page`,
				);
			}
			t.diagnostic(`${name}: clicked ${count} elements (${links} links)`);
			assert.equal(await pwned(page), undefined, `${name}: after clicking the links`);
			// Search for "script" and select each result in turn.
			await page.fill('input[data-role="search"]', "script");
			const results = page.locator('[data-role="search-results"] button[data-entry-id]');
			await results.first().waitFor({ state: "visible", timeout: 5_000 });
			const found = await results.count();
			assert.ok(found >= 3, `${name}: "script" finds several entries (${found})`);
			for (let i = 0; i < Math.min(found, 12); i++) {
				if ((await results.count()) <= i) {
					await page.fill('input[data-role="search"]', "");
					await page.fill('input[data-role="search"]', "script");
					await results.first().waitFor({ state: "visible", timeout: 5_000 });
				}
				const id = await results.nth(i).getAttribute("data-entry-id");
				await results.nth(i).click();
				if (id) await expectCurrent(page, id, `${name}: search result ${i}`);
			}
			await page.click('button[data-role="theme-toggle"]');
			await page.click('button[data-role="theme-toggle"]');
			await sleep(200);
			assert.equal(await pwned(page), undefined, `${name}: after search and theme`);
			assert.deepEqual(await dangerousOutsideDownload(), [], `${name}: no javascript:/data:/vbscript: link at the end`);
			assert.equal(
				await page.locator('a[href^="javascript:" i]').count(),
				0,
				`${name}: no a[href^="javascript:"] anywhere`,
			);
			assert.equal(await page.locator("iframe, object, embed, base").count(), 0, `${name}: no injected element`);
			assert.equal(
				await page.locator("[onload], [onerror], [onclick], [onmouseover]").count(),
				0,
				`${name}: no inline event handler attribute`,
			);
			const injected =
				'[data-role="conversation"] :is(script, form, style, link, meta), [data-role="context"] :is(script, form, style, link, meta)';
			assert.equal(
				await page.locator(injected).count(),
				0,
				`${name}: no script, form, style, link or meta in the content`,
			);
			assert.deepEqual(opened.log.dialogs, [], `${name}: no dialog`);
			assertClean(opened, `hostile (${name})`);
		}
	});

	test("redaction: no planted secret in the file or its embedded data unless --no-redact", async () => {
		const redacted = readFileSync(await exportHtml(HOSTILE), "utf8");
		const data = embeddedRecordText(redacted);
		for (const { kind, text } of SECRETS) {
			assert.ok(!redacted.includes(text), `the file holds the ${kind}`);
			assert.ok(!data.includes(text), `the embedded data holds the ${kind}`);
			assert.ok(data.includes(`[REDACTED:${kind}]`), `the embedded data marks the ${kind}`);
		}
		const kept = readFileSync(await exportHtml(HOSTILE, ["--no-redact"]), "utf8");
		const keptData = embeddedRecordText(kept);
		for (const { kind, text } of SECRETS) assert.ok(keptData.includes(text), `--no-redact keeps the ${kind}`);
	});

	test("screenshots: a branched fixture in light and dark", async (t) => {
		const file = await fixturePage("branch-in-place");
		for (const colorScheme of ["light", "dark"] as const) {
			const opened = await open(file, { colorScheme });
			const { page } = opened;
			await page.emulateMedia({ colorScheme });
			assert.equal(
				await until(
					() => theme(page),
					(value) => value === colorScheme,
				),
				colorScheme,
				`data-theme follows prefers-color-scheme: ${colorScheme}`,
			);
			const path = screenshotPath(`branch-in-place-${colorScheme}.png`);
			await page.screenshot({ path, fullPage: false });
			assert.ok(statSync(path).size > 1000);
			t.diagnostic(`screenshot: ${path}`);
			assertClean(opened, colorScheme);
		}
	});

	test("a generated 20,000-entry session: ready, the sidebar virtualised", async (t) => {
		assert.ok(s20k);
		const { file, entries, jsonlBytes, exportMs } = await s20k;
		const started = performance.now();
		// Speed is the bench's (bench/html.ts); the timeout only keeps a page that never gets
		// ready from hanging the suite, with room for a loaded CI machine.
		const opened = await open(file, { readyTimeout: 90_000 });
		const readyMs = performance.now() - started;
		const { page } = opened;
		t.diagnostic(
			`20k entries, ${(jsonlBytes / 2 ** 20).toFixed(1)} MiB JSONL, export ${exportMs.toFixed(0)} ms, ` +
				`${(statSync(file).size / 2 ** 20).toFixed(1)} MiB HTML, ready in ${readyMs.toFixed(0)} ms`,
		);
		await page.selectOption('select[data-role="filter"]', "all");
		await sleep(300);
		const rows = await treeIds(page);
		assert.ok(rows.length > 0, "the sidebar shows rows");
		assert.ok(rows.length <= 2_000 && rows.length * 10 < entries, `virtualised: ${rows.length} rows in the DOM`);
		// Scrolling the sidebar to its end shows other rows.
		const scrolled = await page.locator('[data-role="tree"]').evaluate((tree) => {
			const view = globalThis as unknown as PageGlobals;
			for (let element: PageElement | null = tree as unknown as PageElement; element; element = element.parentElement) {
				const overflow = view.getComputedStyle(element).overflowY;
				if ((overflow === "auto" || overflow === "scroll") && element.scrollHeight > element.clientHeight) {
					// The leaf's row (shown first) is the last of the tree here: go to the other end.
					element.scrollTop = element.scrollTop > 0 ? 0 : element.scrollHeight;
					return true;
				}
			}
			return false;
		});
		if (scrolled) {
			const after = await until(
				() => treeIds(page),
				(ids) => ids.length > 0 && !sameList(ids, rows),
			);
			assert.ok(!sameList(after, rows), "scrolling the sidebar to its other end renders other rows");
			assert.ok(after.length <= 2_000, "still virtualised after scrolling");
		} else {
			t.diagnostic("no scrollable ancestor of the sidebar found: scrolling not checked");
		}
		const path = screenshotPath("s20k.png");
		await page.screenshot({ path });
		t.diagnostic(`screenshot: ${path}`);
		assertClean(opened, "20k");
	});

	// Issue 28's fifteenth round tried entries laid out only near the view (content-visibility):
	// a scroll computed with the placeholders' sizes ended below the view on load, which this
	// test caught (docs/performance.md).
	test("a long path: the selected entry is scrolled into view on load, up the path with k, and by #entry", async () => {
		assert.ok(s20k);
		const { file } = await s20k;
		const opened = await open(file, { readyTimeout: 90_000 });
		const { page } = opened;
		/** Whether the selected entry overlaps the conversation's scrolling box by 20 px at least. */
		const selectedInView = () =>
			page.locator('[data-role="conversation"] [aria-current="true"]').evaluate((element) => {
				const view = globalThis as unknown as PageGlobals;
				let box: PageElement | null = element as unknown as PageElement;
				while (box && !["auto", "scroll"].includes(view.getComputedStyle(box).overflowY)) box = box.parentElement;
				const outer = (box ?? (element as unknown as PageElement)).getBoundingClientRect();
				const rect = (element as unknown as PageElement).getBoundingClientRect();
				return Math.min(rect.bottom, outer.bottom) - Math.max(rect.top, outer.top) >= 20;
			});
		// The entries j/k step through: not those the conversation hides (bookkeeping).
		const order = await attributeOf(
			page,
			'[data-role="conversation"] [data-entry-id]:not(.bookkeeping)',
			"data-entry-id",
		);
		assert.ok(order.length >= 20, `a window of entries is drawn (${order.length})`);
		assert.ok(await until(selectedInView, (yes) => yes), "on load: the leaf's entry is in view");
		const leafAt = order.indexOf((await currentIds(page))[0] as string);
		assert.ok(leafAt >= 15, "the leaf has 15 entries above it in the window");
		const blur = () =>
			page.evaluate(() => {
				(globalThis as unknown as PageGlobals).document.activeElement?.blur?.();
			});
		await blur();
		// One key at a time (each waits for its selection: a key reads the selection it moves from).
		for (let at = leafAt - 1; at >= leafAt - 15; at--) {
			await page.keyboard.press("k");
			await expectCurrent(page, order[at] as string, `k × ${leafAt - at}`);
			if ((leafAt - at) % 5 === 0)
				assert.ok(await until(selectedInView, (yes) => yes), `k × ${leafAt - at}: the selected entry is in view`);
		}
		// A jump by the fragment, down to an entry just above the leaf.
		const target = order[leafAt - 2] as string;
		await setHash(page, `#entry=${target}`);
		await expectCurrent(page, target, "#entry");
		assert.ok(await until(selectedInView, (yes) => yes), "#entry: the selected entry is in view");
		assertClean(opened, "long path");
	});

	// Since issue 28's sixteenth round a large sidebar draws its rows for where it will be
	// scrolled and scrolls after the other panes are written (sidebar.ts, applyScroll).
	test("a large sidebar: a leaf far away (#leaf=) is scrolled into its view; a row clicked in view stays where it is", async () => {
		assert.ok(s20k);
		const { file } = await s20k;
		const opened = await open(file, { readyTimeout: 90_000 });
		const { page } = opened;
		const tree = page.locator('[data-role="tree"]');
		/** Scrolls the sidebar to a fraction of its height (0 the top, 1 the end). */
		const scrollTree = (fraction: number) =>
			tree.evaluate((element, at) => {
				const list = element as unknown as PageElement;
				list.scrollTop = Math.round(list.scrollHeight * at);
				return list.scrollTop;
			}, fraction);
		/** Ids of the rows wholly inside the sidebar's box (not on the active path, when asked). */
		const rowsInView = (offPath: boolean) =>
			tree.evaluate((element, off) => {
				const list = element as unknown as PageElement & {
					querySelectorAll(selector: string): ArrayLike<PageElement>;
				};
				const box = list.getBoundingClientRect();
				const rows = Array.from(list.querySelectorAll(off ? "[data-tree-id]:not([data-on-path])" : "[data-tree-id]"));
				return rows
					.filter((row) => {
						const rect = row.getBoundingClientRect();
						return rect.top >= box.top && rect.bottom <= box.bottom;
					})
					.map((row) => row.getAttribute("data-tree-id") ?? "");
			}, offPath);
		assert.ok((await treeIds(page)).length <= 2_000, "the sidebar is virtual");
		// An entry off the active path a tenth down the tree: far from the leaf's row at its end.
		await scrollTree(0.1);
		const far = (
			await until(
				() => rowsInView(true),
				(ids) => ids.length > 0,
			)
		)[0];
		assert.ok(far, "a row off the path a tenth down the sidebar");
		await scrollTree(1);
		await until(
			() => rowsInView(false),
			(ids) => ids.length > 0 && !ids.includes(far),
		);
		await setHash(page, `#leaf=${far}`);
		await expectCurrent(page, far, "#leaf= far up");
		const selected = await until(
			() => rowsInView(false),
			(ids) => ids.includes(far),
		);
		assert.ok(selected.includes(far), "the new leaf's row is scrolled into the sidebar's view");
		assert.deepEqual(await selectedRows(page), [far], "and marked as the leaf");
		// A row in view, clicked: the sidebar does not move.
		const before = await tree.evaluate((element) => (element as unknown as PageElement).scrollTop);
		const inView = await rowsInView(true);
		const clicked = inView[Math.floor(inView.length / 2)];
		assert.ok(clicked, "a row off the new path in view");
		await page.locator(`[data-role="tree"] [data-tree-id="${clicked}"]`).click();
		await expectCurrent(page, clicked, "a row clicked");
		assert.deepEqual(await selectedRows(page), [clicked], "the clicked row is the leaf");
		assert.ok((await rowsInView(false)).includes(clicked), "the clicked row is still in view");
		const after = await tree.evaluate((element) => (element as unknown as PageElement).scrollTop);
		assert.equal(after, before, "the sidebar kept its scroll position");
		assertClean(opened, "large sidebar");
	});

	test("a deep tree: the selected row's text is inside the sidebar, not cut off by indentation", async (t) => {
		assert.ok(s20k);
		const { file } = await s20k;
		const opened = await open(file);
		const { page } = opened;
		// The first letter or digit of the selected row (after any indentation and tree drawing)
		// must lie within the sidebar's visible box.
		const where = await page.locator('[data-role="tree"]').evaluate((tree) => {
			type Rect = { left: number; right: number; top: number; bottom: number };
			interface Node {
				nodeType: number;
				textContent: string | null;
				childNodes: ArrayLike<Node>;
			}
			const view = globalThis as unknown as {
				document: {
					createRange(): {
						setStart(n: Node, o: number): void;
						setEnd(n: Node, o: number): void;
						getBoundingClientRect(): Rect;
					};
				};
			};
			const box = (tree as unknown as { getBoundingClientRect(): Rect }).getBoundingClientRect();
			const row = (tree as unknown as { querySelector(s: string): Node | null }).querySelector(
				'[aria-selected="true"]',
			);
			if (!row) return "no selected row";
			const stack: Node[] = [row];
			for (let node = stack.pop(); node; node = stack.pop()) {
				if (node.nodeType === 3) {
					const at = (node.textContent ?? "").search(/[A-Za-z0-9]/);
					if (at === -1) continue;
					const range = view.document.createRange();
					range.setStart(node, at);
					range.setEnd(node, at + 1);
					const rect = range.getBoundingClientRect();
					const inside =
						rect.left >= box.left && rect.right <= box.right && rect.top >= box.top && rect.bottom <= box.bottom;
					return inside
						? "inside"
						: `outside: the text starts at x=${rect.left.toFixed(0)}, the sidebar spans x=${box.left.toFixed(0)}..${box.right.toFixed(0)}`;
				}
				for (let i = node.childNodes.length - 1; i >= 0; i--) {
					const child = node.childNodes[i];
					if (child) stack.push(child);
				}
			}
			return "the selected row has no text";
		});
		const path = screenshotPath("s20k-leaf.png");
		await page.screenshot({ path });
		t.diagnostic(`screenshot: ${path}`);
		assert.equal(where, "inside", "the selected (leaf) row of the 20k session");
		assertClean(opened, "20k leaf row");
	});

	test("a 100,000-entry session (bench/data/s100k.jsonl): screenshot", async (t) => {
		if (s100k === undefined) {
			t.skip(`${S100K} is absent: run npm run bench:gen -- --sizes 100k`);
			return;
		}
		const { file, exportMs } = await s100k;
		const started = performance.now();
		const opened = await open(file, { readyTimeout: 60_000 });
		const readyMs = performance.now() - started;
		const { page } = opened;
		t.diagnostic(
			`s100k: export ${exportMs.toFixed(0)} ms, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB HTML, ready in ${readyMs.toFixed(0)} ms`,
		);
		const rows = await treeIds(page);
		assert.ok(rows.length > 0 && rows.length <= 2_000, `virtualised: ${rows.length} rows`);
		const path = screenshotPath("s100k.png");
		await page.screenshot({ path });
		t.diagnostic(`screenshot: ${path}`);
		assertClean(opened, "100k");
	});
});
