/**
 * Bidi controls in the HTML page (issue 30, item 7), in a real browser (test/support/browser.ts):
 * a name, a label, an id, message text, thinking, tool arguments and results holding U+202E and
 * the other bidi controls cannot reorder what the page shows. No text node and no attribute the
 * reader sees holds one live; each is shown as a marker (`<U+202E>`), and the name is laid out
 * left to right, character after character, as it is stored (not "reportexe.pdf").
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cli, removeTempDirs, tempDir } from "../cli/helpers.js";
import { BROWSER_SKIP, launchBrowser, type OpenedPage, problems, type TestBrowser } from "../support/browser.js";

const RLO = "\u202e";
const NAME = `report${RLO}fdp.exe`;
const SHOWN_NAME = "report<U+202E>fdp.exe";
const USER_ID = `u1${RLO}x`;
const T = "2026-01-01T00:00:00.000Z";
/** Every bidi control. */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function records(): object[] {
	const message = (id: string, parentId: string | null, body: object) => ({
		type: "message",
		id,
		parentId,
		timestamp: T,
		message: { timestamp: 1, ...body },
	});
	return [
		{ type: "session", version: 3, id: "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0001", timestamp: T, cwd: `/home/${RLO}p` },
		message(USER_ID, null, {
			role: "user",
			content: `Open ${NAME} please, [a link](https://example.com "ti${RLO}tle") and \u2067isolate\u2069 1\u200f2 &#x202E;x`,
		}),
		message("a1", USER_ID, {
			role: "assistant",
			content: [
				{ type: "thinking", thinking: `thinking about ${NAME}` },
				{ type: "text", text: `Done with ${NAME}.` },
				{ type: "toolCall", id: "c1", name: `open${RLO}`, arguments: { path: NAME } },
			],
			provider: "anthropic",
			model: `claude${RLO}`,
			stopReason: "toolUse",
		}),
		message("t1", "a1", {
			role: "toolResult",
			toolCallId: "c1",
			toolName: `open${RLO}`,
			content: [
				{ type: "text", text: `opened ${NAME}\n\u202aembedded\u202c \u202bembedded\u202c \u202doverride\u202c` },
			],
			isError: false,
		}),
		{ type: "label", id: "l1", parentId: "t1", timestamp: T, targetId: USER_ID, label: `lab${RLO}el` },
		{ type: "session_info", id: "n1", parentId: "l1", timestamp: T, name: NAME },
	];
}

/** What the callbacks run in the page use (the tests compile without the DOM library). */
interface PageNode {
	nodeType: number;
	data: string;
	textContent: string | null;
	open?: boolean;
	attributes?: ArrayLike<{ name: string; value: string }>;
}
interface PageGlobals {
	document: {
		body: PageNode;
		createTreeWalker(root: PageNode, show: number): { nextNode(): PageNode | null };
		createRange(): {
			setStart(node: PageNode, offset: number): void;
			setEnd(node: PageNode, offset: number): void;
			getBoundingClientRect(): { left: number; width: number };
		};
		querySelector(selector: string): PageNode | null;
		querySelectorAll(selector: string): ArrayLike<PageNode>;
	};
}

if (BROWSER_SKIP !== undefined) console.log(`# html-bidi: skipped: ${BROWSER_SKIP}`);

describe("session-tree html: bidi controls cannot reorder the page", { skip: BROWSER_SKIP }, () => {
	let browser: TestBrowser | undefined;
	let opened: OpenedPage | undefined;

	before(async () => {
		const dir = tempDir();
		const file = join(dir, "bidi.jsonl");
		writeFileSync(
			file,
			`${records()
				.map((record) => JSON.stringify(record))
				.join("\n")}\n`,
		);
		const out = join(dir, "bidi.html");
		const result = await cli(["html", file, "-o", out]);
		assert.equal(result.code, 0, result.stderr);
		browser = await launchBrowser();
		opened = await browser.open(out);
		// Every thinking block open, every long output shown: all of the text is laid out.
		await opened.page.evaluate(() => {
			const { document } = globalThis as unknown as PageGlobals;
			for (const details of Array.from(document.querySelectorAll("details"))) details.open = true;
		});
	});
	after(async () => {
		await browser?.close();
		removeTempDirs();
	});

	const page = () => {
		assert.ok(opened, "the page did not open");
		return opened.page;
	};

	test("no text node, and no title or aria-label, holds a live bidi control", async () => {
		const found = await page().evaluate((source) => {
			const { document } = globalThis as unknown as PageGlobals;
			const bidi = new RegExp(source);
			const live: string[] = [];
			const walker = document.createTreeWalker(document.body, 4 /* NodeFilter.SHOW_TEXT */);
			for (let node = walker.nextNode(); node; node = walker.nextNode()) if (bidi.test(node.data)) live.push(node.data);
			for (const element of Array.from(document.querySelectorAll("[title], [aria-label], [alt]"))) {
				for (const attribute of Array.from(element.attributes ?? [])) {
					if (["title", "aria-label", "alt"].includes(attribute.name) && bidi.test(attribute.value)) {
						live.push(`${attribute.name}=${attribute.value}`);
					}
				}
			}
			return live;
		}, BIDI.source);
		assert.deepEqual(found, []);
		assert.deepEqual(problems(opened as OpenedPage), []);
	});

	test("each control is shown as a marker: the name, the label, the id, message text, thinking, tools", async () => {
		const text = await page().evaluate(() => (globalThis as unknown as PageGlobals).document.body.textContent ?? "");
		for (const shown of [
			`${SHOWN_NAME}`,
			"lab<U+202E>el",
			"u1<U+202E>x",
			`Open ${SHOWN_NAME} please`,
			`thinking about ${SHOWN_NAME}`,
			`Done with ${SHOWN_NAME}.`,
			"open<U+202E>",
			`opened ${SHOWN_NAME}`,
			"<U+202A>embedded<U+202C>",
			"<U+202D>override<U+202C>",
			"<U+2067>isolate<U+2069>",
			"1<U+200F>2",
			// A character reference decodes to the character, which is shown as a marker too.
			"<U+202E>x",
		]) {
			assert.ok(text.includes(shown), `the page does not show ${JSON.stringify(shown)}`);
		}
		const title = await page().locator('[data-role="conversation"] a[title]').first().getAttribute("title");
		assert.equal(title, "ti<U+202E>tle");
		// Ids stay exact where the page looks entries up by them.
		assert.equal(await page().locator(`[data-role="conversation"] [data-entry-id="${USER_ID}"]`).count(), 1);
	});

	test("the name in the bar is laid out in stored order, left to right", async () => {
		const lefts = await page().evaluate(
			(name) => {
				const { document } = globalThis as unknown as PageGlobals;
				const walker = document.createTreeWalker(document.body, 4 /* NodeFilter.SHOW_TEXT */);
				for (let node = walker.nextNode(); node; node = walker.nextNode()) {
					const at = node.data.indexOf("report");
					if (
						at === -1 ||
						!node.data
							.slice(at)
							.replace(/<U\+202E>|\u202e/, "")
							.startsWith(name)
					)
						continue;
					// Where each character of "report…fdp.exe" is drawn.
					const positions: Array<{ char: string; left: number }> = [];
					const end = node.data.indexOf(".exe", at) + 4;
					for (let i = at; i < end; i++) {
						const range = document.createRange();
						range.setStart(node, i);
						range.setEnd(node, i + 1);
						const box = range.getBoundingClientRect();
						if (box.width > 0) positions.push({ char: node.data[i] ?? "", left: box.left });
					}
					return positions;
				}
				return [];
			},
			NAME.replace(RLO, ""),
		);
		const chars = lefts.map((p) => p.char).join("");
		assert.ok(chars.startsWith("report") && chars.endsWith("fdp.exe"), `the name was not found: ${chars}`);
		for (let i = 1; i < lefts.length; i++) {
			const [a, b] = [lefts[i - 1], lefts[i]] as [{ char: string; left: number }, { char: string; left: number }];
			assert.ok(b.left > a.left, `${JSON.stringify(b.char)} is drawn left of ${JSON.stringify(a.char)}: ${chars}`);
		}
	});
});
