/**
 * The HTML export on the Node side (no browser; see html-browser.test.ts for the page itself):
 * the page's markup, Content-Security-Policy and embedded data, redaction, the client bundle,
 * and the pure parts the page shares with the terminal (tree layout, token estimates).
 */

import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { estimateTokens as piEstimateTokens } from "@mariozechner/pi-coding-agent";
import { isSessionTreeError } from "../../src/core/errors.js";
import { estimateContextTokens, estimateTokens, sumTokenEstimates, sumUsage, usageOf } from "../../src/core/tokens.js";
import type { ContextMessage, SessionTreeNode } from "../../src/core/types.js";
import { exportSessionHtml } from "../../src/index.js";
import { loadClientScript } from "../../src/render/html/client-script.js";
import { writeSessionHtml } from "../../src/render/html/export.js";
import { DATA_ELEMENT_CHARS, escapeHtml, renderHtmlPage } from "../../src/render/html/page.js";
import { redactRecords } from "../../src/render/redact.js";
import { layoutTree, showsActiveMark, TREE_FILTERS } from "../../src/render/tree-layout.js";
import { renderTreeLines } from "../../src/render/tree-text.js";
import { Session } from "../../src/session.js";
import { FIXTURES } from "../cli/helpers.js";
import { embeddedPieces, embeddedRecordText } from "../support/page-data.js";
import { memorySession, say } from "./helpers.js";

/** The parts of an exported page the tests look at. */
interface ParsedPage {
	/** The markup with the contents of every <script>, <style> and <title> removed. */
	markup: string;
	/** Content-Security-Policy directives, by name. */
	csp: Map<string, string>;
	/** The inline script (the one without a type) and the stylesheet. */
	script: string;
	style: string;
	title: string;
	/** The embedded records, decoded. */
	dataText: string;
	records: unknown[];
	view: { leafId: string | null; fileVersion: number; shown?: string };
}

const decodeRefs = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

function parsePage(html: string): ParsedPage {
	const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
	assert.ok(meta?.[1], "a CSP meta element");
	const csp = new Map<string, string>();
	for (const directive of decodeRefs(meta[1]).split(";")) {
		const [name, ...values] = directive.trim().split(/\s+/);
		if (name) csp.set(name, values.join(" "));
	}
	const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
	const inline = scripts.filter((match) => match[1] === "");
	assert.equal(inline.length, 1, "one inline script without a type");
	const view = scripts.find((match) => / id="session-view"/.test(match[1] ?? ""));
	assert.ok(view, "the view block");
	assert.match(view[2] ?? "", /^[A-Za-z0-9+/]*=*$/, "the view options are base64");
	// Every other script holds records: no element of another kind is in the page.
	const others = scripts.filter((match) => match !== view && match[1] !== "");
	assert.ok(
		others.every((match) => match[1] === ' type="application/gzip+base64" class="session-data"'),
		"the other scripts are the records' elements",
	);
	const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)];
	assert.equal(styles.length, 1, "one <style>");
	const dataText = embeddedRecordText(html);
	assert.ok(dataText.endsWith("\n"), "the JSONL ends with a newline");
	const title = /<title>([^<]*)<\/title>/.exec(html)?.[1];
	assert.ok(title !== undefined, "a <title>");
	return {
		markup: html
			.replace(/(<script[^>]*>)[\s\S]*?(<\/script>)/g, "$1$2")
			.replace(/(<style>)[\s\S]*?(<\/style>)/g, "$1$2")
			.replace(/(<title>)[^<]*(<\/title>)/, "$1$2"),
		csp,
		script: inline[0]?.[2] ?? "",
		style: styles[0]?.[1] ?? "",
		title,
		dataText,
		records: dataText
			.split("\n")
			.filter((line) => line !== "")
			.map((line) => JSON.parse(line) as unknown),
		view: JSON.parse(Buffer.from(view[2] ?? "", "base64").toString("utf8")) as ParsedPage["view"],
	};
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

function open(name: string): Promise<Session> {
	return Session.open(join(FIXTURES, `${name}.jsonl`));
}

/** Secrets of three kinds, built at run time so that this file holds none. */
const SK = ["sk", "proj", "Zq81Lm0Xc7Vb3Nn5Kk2Jj4Hh6Gg"].join("-");
const AKIA = ["AKIA", "TESTKEY7HTMLPAGE"].join("");
const PEM_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7HtmlTestKeyBody";
const PEM = `-----BEGIN ${"PRIVATE"} KEY-----\n${PEM_BODY}\n-----END ${"PRIVATE"} KEY-----`;

async function sessionWithSecrets(): Promise<Session> {
	const s = await memorySession();
	await say(s, "user", `deploy with ${SK} and ${AKIA}`);
	await s.appendMessage({
		role: "toolResult",
		toolCallId: "c1",
		toolName: "read",
		content: [{ type: "text", text: `id_rsa:\n${PEM}\n` }],
		isError: false,
		timestamp: 1,
	});
	return s;
}

describe("the exported page", () => {
	test("the CSP allows exactly the inline script and stylesheet by hash, data: images, nothing else", async () => {
		const session = await open("tool-calls");
		const page = parsePage((await exportSessionHtml(session)).html);
		assert.deepEqual(
			[...page.csp.keys()],
			["default-src", "script-src", "style-src", "img-src", "base-uri", "form-action"],
		);
		assert.equal(page.csp.get("default-src"), "'none'");
		assert.equal(page.csp.get("script-src"), sha256(page.script));
		assert.equal(page.csp.get("style-src"), sha256(page.style));
		assert.equal(page.csp.get("img-src"), "data:");
		assert.equal(page.csp.get("base-uri"), "'none'");
		assert.equal(page.csp.get("form-action"), "'none'");
		// The script is the bundle, byte for byte.
		assert.equal(page.script, await loadClientScript());
		// No style attribute (the CSP would block it) and no inline event handler in the markup.
		assert.doesNotMatch(page.markup, /\sstyle\s*=/i);
		assert.doesNotMatch(page.markup, /\son[a-z]+\s*=/i);
	});

	test("no URL in any src or href attribute: the page loads nothing", async () => {
		const session = await open("tool-calls");
		const { markup } = parsePage((await exportSessionHtml(session)).html);
		assert.doesNotMatch(markup, /\s(?:src|href|action|srcset|poster|data)\s*=/i);
		assert.doesNotMatch(markup, /<(?:link|base|iframe|object|embed|img|form)\b/i);
	});

	test("the data decodes to exactly the redacted records: header first, then every entry in file order", async () => {
		for (const name of ["tool-calls", "labels", "branch-with-summary", "legacy-v1", "empty-session"]) {
			const session = await open(name);
			const result = await exportSessionHtml(session);
			const page = parsePage(result.html);
			const expected = redactRecords([session.getHeader(), ...session.getEntries()]).records;
			assert.deepEqual(page.records, JSON.parse(JSON.stringify(expected)), name);
			assert.equal(page.dataText, `${expected.map((record) => JSON.stringify(record)).join("\n")}\n`, name);
			const { shown, ...view } = page.view;
			assert.deepEqual(view, { leafId: session.getLeafId(), fileVersion: session.fileVersion }, name);
			// One hint of pi's filters per entry (their meaning: test/render/shown-hints.test.ts).
			assert.equal(shown?.length, expected.length - 1, name);
			assert.equal(result.leafId, session.getLeafId());
			assert.equal(result.entryCount, session.getEntries().length);
		}
		// Nothing of a message is in the markup (but the title: the first prompt, see below).
		const { markup } = parsePage((await exportSessionHtml(await open("tool-calls"))).html);
		assert.doesNotMatch(markup, /screenshot|failing test/);
	});

	test("records larger than one element: pieces of DATA_ELEMENT_CHARS, each decodable alone, both writers alike", async () => {
		// Random base64 text barely compresses: about 1.6 MB of it makes more than six elements of gzip.
		const s = await memorySession();
		const texts: string[] = [];
		for (let i = 0; i < 8; i++) {
			const text = randomBytes(150_000).toString("base64");
			texts.push(text);
			await say(s, i % 2 === 0 ? "user" : "assistant", text);
		}
		const { html } = await exportSessionHtml(s, { redact: false });
		const pieces = embeddedPieces(html);
		assert.ok(pieces.length >= 6, `${pieces.length} elements`);
		for (const [i, piece] of pieces.entries()) {
			if (i < pieces.length - 1) {
				assert.equal(piece.length, DATA_ELEMENT_CHARS, `element ${i} holds DATA_ELEMENT_CHARS characters`);
				assert.doesNotMatch(piece, /=/, `element ${i} has no padding`);
			}
			// Alone, each piece is base64 of whole bytes: decoded and encoded again, it is itself.
			assert.equal(Buffer.from(piece, "base64").toString("base64"), piece, `element ${i} decodes alone`);
		}
		// Joined, they are the JSONL: the records read back independently, in order.
		const lines = embeddedRecordText(html).split("\n");
		assert.equal(lines.pop(), "", "the JSONL ends with a newline");
		assert.deepEqual(
			lines.map((line) => JSON.parse(line) as { id?: string }),
			JSON.parse(JSON.stringify([s.getHeader(), ...s.getEntries()])),
		);
		for (const text of texts) assert.ok(embeddedRecordText(html).includes(text));
		// renderHtmlPage (the records at once) cuts the same base64 text the same way.
		const atOnce = renderHtmlPage({
			header: s.getHeader(),
			records: s.getEntries(),
			leafId: s.getLeafId(),
			clientScript: await loadClientScript(),
		});
		assert.deepEqual(embeddedPieces(atOnce), pieces);
	});

	test("written as it is made: the head waits for the first prompt, and the page is the page made whole", async () => {
		// No name, and the first prompt after 12 MB of records that barely compress (more than gzip
		// takes in before it gives its first bytes, page.ts's GZIP_AHEAD): the elements made before
		// the prompt is read are held until the head (whose title is the prompt) can be written first.
		const s = await memorySession();
		for (let i = 0; i < 80; i++) await say(s, "assistant", randomBytes(112_500).toString("base64"));
		await say(s, "user", "the first prompt, late");
		await say(s, "assistant", "an answer");
		const parts: string[] = [];
		await writeSessionHtml(s, (part) => parts.push(part), { redact: false });
		assert.ok(parts[0]?.startsWith("<!doctype html>"), "the head is the first part written");
		assert.ok(parts.length >= 3 * 40 + 2, `${parts.length} parts: the head, the records' elements, the rest`);
		const html = parts.join("");
		assert.match(html, /<title>the first prompt, late<\/title>/);
		// The same page as the writer of a page at once (page.ts), given what the export found.
		const whole = renderHtmlPage({
			header: s.getHeader(),
			records: s.getEntries(),
			leafId: s.getLeafId(),
			clientScript: await loadClientScript(),
			prompt: "the first prompt, late",
		});
		assert.equal(html, whole);
		// A named session's head needs no record: the same page either way too.
		await s.appendSessionInfo("named");
		const named: string[] = [];
		await writeSessionHtml(s, (part) => named.push(part), { redact: false });
		assert.match(named[0] ?? "", /<title>named<\/title>/);
		assert.equal(named.join(""), (await exportSessionHtml(s, { redact: false })).html);
	});

	test("the title: the session name, HTML-escaped; else the first prompt; else the session id", async () => {
		const s = await memorySession();
		await say(s, "user", "hello");
		const hostile = "</title><script>alert(1)</script>";
		await s.appendSessionInfo(hostile);
		const { html } = await exportSessionHtml(s);
		const page = parsePage(html);
		assert.equal(page.title, escapeHtml(hostile));
		assert.equal(decodeRefs(page.title), hostile);
		assert.ok(!html.includes("<script>alert(1)"));
		assert.equal(html.match(/<\/script>/g)?.length, 3, "three script elements, each ended once");
		// tool-calls.jsonl, line 3: the first user message (issue 25: not "Session <id>").
		const unnamed = parsePage((await exportSessionHtml(await open("tool-calls"))).html);
		assert.equal(unnamed.title, "Here is a screenshot of the failing test. Run the tests and fix it.");
		const promptless = await memorySession();
		await say(promptless, "assistant", "no prompt before me");
		const id = promptless.getHeader().id;
		assert.equal(parsePage((await exportSessionHtml(promptless)).html).title, `Session ${id}`);
	});

	test("a record holding </script> and <!-- cannot end the data block", async () => {
		const s = await memorySession();
		const payload = "</script><script>alert(1)</script><!--<script>";
		await say(s, "user", payload);
		await say(s, "assistant", `</SCRIPT >${payload}`);
		const { html } = await exportSessionHtml(s, { redact: false });
		assert.equal(html.match(/<\/script/gi)?.length, 3, "only the page's own </script> tags");
		// The payload is the first prompt: the title holds it, escaped, and nothing else does.
		const title = /<title>([^<]*)<\/title>/.exec(html)?.[1] ?? "";
		assert.equal(title, escapeHtml(payload));
		assert.ok(!html.replace(title, "").includes("alert(1)"));
		const page = parsePage(html);
		assert.ok(page.dataText.includes(JSON.stringify(payload)), "the payload is in the data, as data");
	});

	test("secrets (an sk- key, an AWS key, a PEM block) are redacted by default and kept with redact: false", async () => {
		const s = await sessionWithSecrets();
		const redacted = await exportSessionHtml(s);
		const page = parsePage(redacted.html);
		for (const secret of [SK, AKIA, PEM_BODY, "BEGIN PRIVATE KEY"]) {
			assert.ok(!redacted.html.includes(secret), `the file holds ${secret}`);
			assert.ok(!page.dataText.includes(secret), `the data holds ${secret}`);
		}
		for (const kind of ["api-key", "aws-access-key-id", "private-key"]) {
			assert.ok(page.dataText.includes(`[REDACTED:${kind}]`), kind);
		}
		assert.deepEqual(redacted.redactions, { "api-key": 1, "aws-access-key-id": 1, "private-key": 1 });
		const kept = await exportSessionHtml(s, { redact: false });
		const keptData = parsePage(kept.html).dataText;
		for (const secret of [SK, AKIA, PEM_BODY]) assert.ok(keptData.includes(secret), `redact: false keeps ${secret}`);
		assert.deepEqual(kept.redactions, {});
	});

	test("a record without a secret is its stored line; a secret behind a JSON escape is still found", async () => {
		const dir = mkdtempSync(join(tmpdir(), "html-lines-"));
		try {
			// two-compactions.jsonl, lines 2 and 3: a user's and an assistant's message before the
			// first compaction (outside the context, so the open leaves their bodies unread).
			const lines = readFileSync(join(FIXTURES, "two-compactions.jsonl"), "utf8").split("\n");
			const user = lines[1] as string;
			const assistant = lines[2] as string;
			assert.ok(user.includes('"content":"Object cost') && assistant.includes('"text":"N'));
			// As another writer may store them: é as an escape, and the key's first letter as one.
			lines[1] = user.replace('"content":"Object cost', '"content":"caf\\u00e9 Object cost');
			lines[2] = assistant.replace('"text":"N', `"text":"key \\u0073${SK.slice(1)} N`);
			const file = join(dir, "escaped.jsonl");
			writeFileSync(file, lines.join("\n"));
			const session = await Session.open(file);
			const result = await exportSessionHtml(session);
			const page = parsePage(result.html);
			const expected = redactRecords([session.getHeader(), ...session.getEntries()]).records;
			assert.deepEqual(page.records, JSON.parse(JSON.stringify(expected)));
			// The user's line went in as stored (its escape kept): it was not made JSON again.
			assert.ok(page.dataText.includes("caf\\u00e9 Object cost"));
			assert.ok(JSON.stringify(page.records).includes("café Object cost"));
			// The key, escaped in the file, was found in the parsed text and redacted.
			assert.ok(!page.dataText.includes(SK.slice(1)), "no part of the key is in the data");
			assert.ok(page.dataText.includes('"text":"key [REDACTED:api-key] N'));
			assert.deepEqual(result.redactions, { "api-key": 1 });
			await session.close();
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test("leafId: a unique prefix is resolved; an unknown id is ENTRY_NOT_FOUND", async () => {
		const session = await open("branch-with-summary");
		const page = parsePage((await exportSessionHtml(session, { leafId: "1cc2" })).html);
		assert.equal(page.view.leafId, "1cc2db55");
		await assert.rejects(exportSessionHtml(session, { leafId: "ffffffff" }), (error) =>
			isSessionTreeError(error, "ENTRY_NOT_FOUND"),
		);
		const before = parsePage((await exportSessionHtml(session, { leafId: null })).html);
		assert.equal(before.view.leafId, null);
	});

	test("renderHtmlPage refuses a script or stylesheet that would end its element early", () => {
		const header = { type: "session" as const, version: 3, id: "x", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" };
		const input = { header, records: [], leafId: null };
		assert.throws(() => renderHtmlPage({ ...input, clientScript: 'let a = "</script>";' }));
		assert.throws(() => renderHtmlPage({ ...input, clientScript: 'let a = "<!-- <script>";' }));
		assert.ok(
			renderHtmlPage({ ...input, clientScript: "let a = 1 <!--x;" }).includes("<script>let a = 1 <!--x;</script>"),
		);
	});
});

describe("the client bundle", () => {
	test("holds no node: import and no HTML parsing of content", async () => {
		const bundle = await loadClientScript();
		assert.ok(bundle.length > 10_000, "the bundle is there");
		assert.doesNotMatch(bundle, /["'`]node:/, "no node: module");
		assert.doesNotMatch(bundle, /\brequire\(|\bimport\(/, "one self-contained script");
		// The client builds every node with createElement and text; nothing in it (marked's lexer
		// included) parses HTML, so `innerHTML` and its kin do not occur in the bundle at all.
		assert.doesNotMatch(
			bundle,
			/innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment/,
		);
		assert.doesNotMatch(bundle, /<\/script/i);
		assert.doesNotMatch(bundle, /\beval\(|new Function\(/);
	});
});

describe("tree layout (shared by the terminal and the page's sidebar)", () => {
	test("one row per line of session-tree tree, for every fixture and filter", async () => {
		const names = readdirSync(FIXTURES)
			.filter((file) => file.endsWith(".jsonl"))
			.map((file) => file.replace(/\.jsonl$/, ""));
		assert.ok(names.length > 10);
		for (const name of names) {
			// Some fixtures are damaged on purpose (a missing parent): read what they have.
			const session = await Session.open(join(FIXTURES, `${name}.jsonl`), { lenient: true });
			const roots = session.getTree();
			const leafId = session.getLeafId();
			for (const filter of TREE_FILTERS) {
				const { rows, active } = layoutTree(roots, { leafId, filter });
				const lines = renderTreeLines(roots, { leafId, filter });
				if (rows.length === 0) continue;
				assert.equal(rows.length, lines.length, `${name} ${filter}`);
				rows.forEach((row, i) => {
					const line = lines[i] ?? "";
					assert.ok(line.startsWith(row.prefix), `${name} ${filter} row ${i}`);
					if (row.kind === "entry") {
						const marked = showsActiveMark(row, active) ? "• " : "";
						assert.ok(line.startsWith(`${row.prefix}${marked}${row.node.entry.id} `), `${name} ${filter}: ${line}`);
					}
				});
			}
		}
	});

	test("a 160,000-deep chain and a 50,000-wide fork lay out without recursion", () => {
		const node = (id: string, parentId: string | null): SessionTreeNode => ({
			entry: {
				type: "message",
				id,
				parentId,
				timestamp: "2026-01-01T00:00:00.000Z",
				message: { role: "user", content: "x", timestamp: 1 },
			},
			children: [],
		});
		const depth = 160_000;
		const root = node("n0", null);
		let last = root;
		for (let i = 1; i < depth; i++) {
			const next = node(`n${i}`, last.entry.id);
			last.children.push(next);
			last = next;
		}
		const chain = layoutTree([root], { leafId: last.entry.id, filter: "default" });
		assert.equal(chain.rows.length, depth);
		assert.ok(chain.rows.every((row) => row.prefix === ""));
		assert.equal(chain.active.size, depth);
		assert.equal(chain.leafShownAt, last.entry.id);

		const fork = node("f", null);
		for (let i = 0; i < 50_000; i++) fork.children.push(node(`c${i}`, "f"));
		const wide = layoutTree([fork], { leafId: "c7" });
		assert.equal(wide.rows.length, 50_001);
		assert.equal(wide.rows[1]?.prefix, "├── ");
		assert.equal(wide.rows.at(-1)?.prefix, "└── ");
	});

	test("collapsed: a fork's branches fold into one row that counts them and points at the leaf", async () => {
		const s = await memorySession();
		await say(s, "user", "q");
		const a = await say(s, "assistant", "a");
		await say(s, "user", "x");
		await s.branch(a);
		await say(s, "user", "y");
		const leaf = await say(s, "assistant", "y1");
		const { rows } = layoutTree(s.getTree(), { leafId: leaf, collapsed: new Set([a]) });
		assert.deepEqual(
			rows.map((row) => row.kind),
			["entry", "entry", "more"],
		);
		const more = rows[2];
		assert.ok(more?.kind === "more");
		assert.deepEqual(
			{ count: more.count, branches: more.branches, leafBelow: more.leafBelow, parentId: more.parentId },
			{ count: 3, branches: 2, leafBelow: true, parentId: a },
		);
		const fork = rows[1];
		assert.ok(fork?.kind === "entry" && fork.collapsed && fork.children === 2);
	});
});

describe("token estimates (pi's heuristic)", () => {
	test("per role: characters / 4, rounded up; tool-result images count 4,800 characters", () => {
		assert.equal(estimateTokens({ role: "user", content: "12345" }), 2);
		assert.equal(
			estimateTokens({
				role: "user",
				content: [
					{ type: "text", text: "1234" },
					{ type: "image", data: "", mimeType: "image/png" },
				],
			}),
			1,
		);
		assert.equal(
			estimateTokens({
				role: "assistant",
				content: [
					{ type: "text", text: "ab" },
					{ type: "thinking", thinking: "cd" },
					{ type: "toolCall", name: "read", arguments: { p: 1 } },
				],
			}),
			Math.ceil((2 + 2 + 4 + JSON.stringify({ p: 1 }).length) / 4),
		);
		assert.equal(
			estimateTokens({ role: "toolResult", content: [{ type: "image", data: "", mimeType: "image/png" }] }),
			1200,
		);
		assert.equal(estimateTokens({ role: "bashExecution", command: "ls", output: "a\nb" }), 2);
		assert.equal(estimateTokens({ role: "compactionSummary", summary: "x".repeat(9) }), 3);
		assert.equal(estimateTokens({ role: "somethingElse", content: "xxxx" }), 0);
		// Damaged messages count what they have.
		assert.equal(estimateTokens({ role: "assistant" }), 0);
		assert.equal(estimateTokens(null), 0);
		assert.equal(
			sumTokenEstimates([
				{ role: "user", content: "1234" },
				{ role: "user", content: "1" },
			]),
			2,
		);
	});

	test("the same numbers as pi's estimateTokens on every fixture's context", async () => {
		const names = readdirSync(FIXTURES).filter((file) => file.endsWith(".jsonl"));
		let messages = 0;
		for (const file of names) {
			const session = await Session.open(join(FIXTURES, file), { lenient: true });
			for (const message of session.buildSessionContext().messages) {
				assert.equal(estimateTokens(message), piEstimateTokens(message as never), `${file}: ${message.role}`);
				messages++;
			}
		}
		assert.ok(messages > 50);
	});

	test("usage: recorded tokens and cost; the context estimate from the last usage, as pi's", () => {
		const usage = { input: 10, output: 5, cacheRead: 100, cacheWrite: 7, totalTokens: 122, cost: { total: 0.5 } };
		const reply = { role: "assistant", content: [], usage, stopReason: "stop" };
		assert.deepEqual(usageOf(reply), {
			input: 10,
			output: 5,
			cacheRead: 100,
			cacheWrite: 7,
			totalTokens: 122,
			cost: 0.5,
		});
		assert.equal(usageOf({ role: "user", content: "x", usage }), undefined);
		const totals = sumUsage([reply, { role: "user", content: "x" }, reply]);
		assert.equal(totals.messages, 2);
		assert.equal(totals.totalTokens, 244);
		assert.equal(totals.cost, 1);
		const after = { role: "user", content: "12345678", timestamp: 1 };
		const estimate = estimateContextTokens([reply as unknown as ContextMessage, after]);
		assert.deepEqual(estimate, { tokens: 124, usageTokens: 122, trailingTokens: 2, lastUsageIndex: 0 });
		const aborted = { ...reply, stopReason: "aborted" } as unknown as ContextMessage;
		assert.equal(estimateContextTokens([aborted, after]).lastUsageIndex, null);
	});
});
