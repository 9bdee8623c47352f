/**
 * The export's hints of pi's filters (render/shown-hints.ts) against the rule applied to parsed
 * entries: for the pi sessions of test/fixtures (pi-v3, real/pi) and the real Claude Code
 * transcripts of test/fixtures/real/claude-code (many replies hold only tool calls, which the
 * filters hide), the page's records are read as the page reads them (envelopes, bodies left
 * unparsed), given the page's hints, and every node under every filter must be shown or hidden
 * as on a tree of the same records parsed line by line with `JSON.parse` (the expectation,
 * read independently of the envelopes, the byte scanner and the hints). No body is parsed for
 * an answer a hint gave, and a hint whose role is not the envelope's is not taken.
 */

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadTree } from "../../src/core/load.js";
import { readRecordBytes } from "../../src/core/record-bytes.js";
import type { ParsedLine, RawRecord } from "../../src/core/records.js";
import type { SessionTreeNode } from "../../src/core/types.js";
import { openForeignFile } from "../../src/import/open-foreign.js";
import { Session } from "../../src/index.js";
import { exportSessionHtml } from "../../src/render/html/export.js";
import { takeShownHints } from "../../src/render/shown-hints.js";
import { TREE_FILTERS, treeFilterShows } from "../../src/render/tree-layout.js";
import { REPO } from "../cli/helpers.js";
import { embeddedRecordBytes } from "../support/page-data.js";

const FIXTURES = join(REPO, "test", "fixtures");
const jsonl = (dir: string) =>
	readdirSync(dir)
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(dir, name));
const PI = [...jsonl(join(FIXTURES, "pi-v3")), ...jsonl(join(FIXTURES, "real", "pi"))];
const CLAUDE = jsonl(join(FIXTURES, "real", "claude-code"));

/** The page's embedded records and view options, read back from its HTML. */
function pageOf(html: string): { bytes: Uint8Array; shown: string | undefined } {
	const view = /id="session-view">([^<]*)</.exec(html)?.[1];
	assert.ok(view !== undefined, "the page embeds its view");
	const options = JSON.parse(Buffer.from(view.replace(/\s+/g, ""), "base64").toString("utf8")) as { shown?: string };
	return { bytes: new Uint8Array(embeddedRecordBytes(html)), shown: options.shown };
}

/** Each node's answer under each filter, depth first. */
function answers(roots: readonly SessionTreeNode[], leafId: string | null): string[] {
	const out: string[] = [];
	const stack = [...roots].reverse();
	for (let node = stack.pop(); node; node = stack.pop()) {
		out.push(TREE_FILTERS.map((filter) => (treeFilterShows(node, filter, leafId) ? "1" : "0")).join(""));
		for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as SessionTreeNode);
	}
	return out;
}

async function check(session: Session): Promise<void> {
	const { html } = await exportSessionHtml(session);
	await session.close();
	const { bytes, shown } = pageOf(html);
	assert.ok(shown !== undefined, "the export writes its hints");
	const read = readRecordBytes(bytes);
	const lazy = loadTree(read.lines, { lenient: true, ...(read.source ? { source: read.source } : {}) });
	const nodes = lazy.tree.nodesInOrder();
	assert.equal(shown.length, nodes.length, "one hint per entry");
	takeShownHints(nodes, shown);
	const hinted = nodes.filter((node) => node.assistantShown !== undefined || node.roleChecked).length;
	const messages = nodes.filter((node) => node.type === "message" && !node.loaded).length;
	assert.equal(hinted, messages, "every unparsed message took its hint");
	const leafId = lazy.tree.getLeafId();
	const got = answers(lazy.tree.getTree(), leafId);
	assert.equal(
		nodes.filter((node) => node.type === "message" && node.envelope !== undefined && node.loaded).length,
		0,
		"no message body was parsed for the filters",
	);
	// The expectation: every line parsed.
	const parsed: ParsedLine[] = new TextDecoder()
		.decode(bytes)
		.split("\n")
		.flatMap((text, index) => (text === "" ? [] : [{ line: index + 1, record: JSON.parse(text) as RawRecord }]));
	const full = loadTree(parsed, { lenient: true });
	assert.equal(full.tree.getLeafId(), leafId);
	assert.deepEqual(got, answers(full.tree.getTree(), leafId));
}

describe("the export's hints of pi's filters", () => {
	for (const file of PI) {
		test(`as the parsed rule: ${file.slice(REPO.length + 1)}`, async () => {
			await check(await Session.open(file, { lenient: true }));
		});
	}
	for (const file of CLAUDE) {
		test(`as the parsed rule: ${file.slice(REPO.length + 1)}`, async () => {
			const opened = await openForeignFile(file);
			assert.ok(opened, file);
			await check(opened.session);
		});
	}

	test("a hint is taken only for the role the envelope says", () => {
		const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-03-01T10:00:00.000Z","cwd":"/p"}';
		const line = (id: string, parent: string | null, role: string, content: string) =>
			JSON.stringify({
				type: "message",
				id,
				parentId: parent,
				timestamp: "2026-03-01T10:00:00.000Z",
				message: { role, content, timestamp: 1 },
			});
		const text = [header, line("a1", null, "user", "hello"), line("a2", "a1", "assistant", "hi"), ""].join("\n");
		const read = readRecordBytes(new TextEncoder().encode(text));
		const nodes = loadTree(read.lines, {
			lenient: true,
			...(read.source ? { source: read.source } : {}),
		}).tree.nodesInOrder();
		// Swapped: a user's hint for the assistant, the assistant's for the user.
		takeShownHints(nodes, "Hu");
		assert.deepEqual(
			nodes.map((node) => [node.assistantShown, node.roleChecked]),
			[
				[undefined, false],
				[undefined, false],
			],
		);
		takeShownHints(nodes, "uH");
		assert.deepEqual(
			nodes.map((node) => [node.assistantShown, node.roleChecked]),
			[
				[undefined, true],
				[false, false],
			],
			"taken as given: the hint vouches for the parse (an assistant with text said hidden stays so)",
		);
	});
});
