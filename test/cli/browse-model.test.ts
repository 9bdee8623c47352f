/**
 * `session-tree browse` without a terminal: the rows (folds, filters), the selection and its
 * moves, search, the keys' actions, pi's navigate rule, the screen's lines at 80×24 and other
 * sizes, and the guard that restores the terminal. The terminal itself: browse.test.ts (tmux).
 */

import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { NoTerminalError, openTerminalDevice } from "../../src/cli/browse/device.js";
import { contextAt, sourceOf } from "../../src/cli/browse/first-frame.js";
import { guardTerminal } from "../../src/cli/browse/guard.js";
import { keyAction } from "../../src/cli/browse/keys.js";
import {
	BrowseModel,
	type BrowseSource,
	enterOutcome,
	entrySearchText,
	foldRows,
	nextFilter,
	prefixBelow,
	rowKey,
	rowSearchText,
	SearchTexts,
	searchMatcher,
} from "../../src/cli/browse/model.js";
import { paneHeights, renderScreen, type ScreenFacts, wrapText } from "../../src/cli/browse/view.js";
import type { SessionEntry, SessionTreeNode } from "../../src/core/types.js";
import { Session } from "../../src/index.js";
import { displayWidth } from "../../src/render/terminal.js";
import { layoutTree, TREE_FILTERS } from "../../src/render/tree-layout.js";
import { layoutWindow } from "../../src/render/tree-window.js";
import { writeBigSession } from "./big-session.js";
import { cli, fixture, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

/** branch-in-place: a chain of four, then a fork at b344e667 and a second one at c0cf4af1. */
const FORK = "b344e667";
const ALT = "c0cf4af1";
const LEAF = "1fd141e1";

async function model(name = "branch-in-place", filter: Parameters<typeof nextFilter>[0] = "default") {
	const session = await Session.open(fixture(name));
	return { session, model: new BrowseModel(sourceOf(session), filter) };
}

function selectedId(m: BrowseModel): string | undefined {
	const row = m.selectedRow();
	return row ? rowKey(row) : undefined;
}

describe("browse model: rows", () => {
	test("the rows are tree-layout's, the selection starts on the leaf", async () => {
		const { session, model: m } = await model();
		const expected = layoutTree(session.getTree(), { leafId: session.getLeafId(), filter: "default" });
		assert.deepEqual(m.rows.map(rowKey), expected.rows.map(rowKey));
		assert.equal(m.rows.length, 17);
		assert.equal(selectedId(m), LEAF);
		assert.equal(m.leafShownAt, LEAF);
	});

	test("← folds a branch into a `… N more` row, → unfolds it", async () => {
		const { model: m } = await model();
		assert.ok(m.selectId(ALT));
		assert.equal(m.foldLeft(), "folded");
		const at = m.selected;
		assert.equal(selectedId(m), ALT, "the selection stays on the folded entry");
		const more = m.rows[at + 1];
		assert.equal(more?.kind, "more");
		if (more?.kind === "more") {
			assert.equal(more.count, 6);
			assert.equal(more.branches, 2);
			assert.equal(more.leafBelow, true);
		}
		assert.equal(m.rows.length, 17 - 6 + 1);
		assert.ok(!m.rows.some((row) => rowKey(row) === LEAF));
		// On the `more` row, → unfolds and the first child takes its place.
		m.moveBy(1);
		assert.equal(m.unfoldRight(), "unfolded");
		assert.equal(m.rows.length, 17);
		assert.equal(m.selected, at + 1);
		// ← then → on the entry itself.
		m.selectId(ALT);
		m.foldLeft();
		assert.equal(m.unfoldRight(), "unfolded");
		assert.equal(selectedId(m), ALT);
		assert.equal(m.rows.length, 17);
	});

	test("← on an entry without children goes to the branch point it hangs from; → goes to the first child", async () => {
		const { model: m } = await model();
		m.selectId("cbc889c2");
		assert.equal(m.foldLeft(), "moved");
		assert.equal(selectedId(m), ALT);
		assert.equal(m.unfoldRight(), "moved");
		assert.equal(selectedId(m), "38de0276");
		m.first();
		assert.equal(m.foldLeft(), "folded", "the root folds the whole tree");
		assert.equal(m.rows.length, 2);
	});

	test("a fold survives a filter change; the selection moves to the nearest shown ancestor", async () => {
		const { model: m } = await model();
		m.selectId("fe7aeabc");
		m.foldLeft();
		assert.equal(m.collapsed.has("fe7aeabc"), true);
		m.selectId(LEAF);
		m.setFilter("labeled-only");
		assert.equal(m.rows.length, 0);
		m.setFilter("user-only");
		assert.ok(m.rows.every((row) => row.kind !== "entry" || row.node.entry.type === "message"));
		assert.ok(
			m.rows.every(
				(row) => row.kind !== "entry" || (row.node.entry.type === "message" && row.node.entry.message.role === "user"),
			),
		);
		// The leaf (an assistant message) is hidden: its parent, a user message, is selected.
		assert.equal(selectedId(m), "bdca4b4e");
		assert.ok(m.rows.some((row) => row.kind === "more" && row.parentId === "fe7aeabc" && row.branches === 2));
	});

	test("f cycles pi's filters in order", async () => {
		const { model: m } = await model();
		const seen = [m.filter];
		for (let i = 0; i < TREE_FILTERS.length; i++) seen.push(m.cycleFilter());
		assert.deepEqual(seen, [...TREE_FILTERS, "default"]);
		assert.equal(nextFilter("all"), "default");
	});

	test("filters change the rows (tool results, settings entries)", async () => {
		const { model: m } = await model("tool-calls");
		const counts = TREE_FILTERS.map((filter) => {
			m.setFilter(filter);
			return m.rows.length;
		});
		const [byDefault, noTools, userOnly, , all] = counts;
		assert.ok((noTools ?? 0) < (byDefault ?? 0), `no-tools hides tool results: ${counts}`);
		assert.ok((userOnly ?? 0) < (noTools ?? 0), `user-only: ${counts}`);
		assert.ok((all ?? 0) > (byDefault ?? 0), `all shows the thinking level change: ${counts}`);
	});

	test("[ and ] go to the previous and next branch point", async () => {
		const { model: m } = await model();
		m.first();
		assert.ok(m.branchPoint(1));
		assert.equal(selectedId(m), FORK);
		assert.ok(m.branchPoint(1));
		assert.equal(selectedId(m), "dce6dfc8");
		assert.ok(m.branchPoint(1));
		assert.equal(selectedId(m), ALT);
		assert.equal(m.branchPoint(1), false, "no branch point below the last one");
		assert.equal(selectedId(m), ALT);
		m.last();
		assert.ok(m.branchPoint(-1));
		assert.equal(selectedId(m), ALT);
		m.first();
		assert.equal(m.branchPoint(-1), false);
	});

	test("search: the next row whose text matches, wrapping; case-insensitive unless the query has capitals", async () => {
		const { model: m } = await model();
		m.first();
		assert.ok(m.search("[third]", 1));
		assert.equal(selectedId(m), "964de769");
		assert.ok(m.search("[alt]", 1));
		assert.equal(selectedId(m), ALT);
		assert.ok(m.search("[alt]", 1));
		assert.equal(selectedId(m), "ab4a8e6c");
		assert.ok(m.search("[alt]", 1), "wraps around");
		assert.equal(selectedId(m), ALT);
		assert.ok(m.search("[alt]", -1));
		assert.equal(selectedId(m), "ab4a8e6c");
		assert.equal(m.search("no such text anywhere", 1), false);
		assert.equal(selectedId(m), "ab4a8e6c", "a failed search leaves the selection");
		assert.ok(m.search(LEAF.slice(0, 6), 1), "ids are searched too");
		assert.equal(selectedId(m), LEAF);
		assert.equal(searchMatcher("abc")("xABCx"), true);
		assert.equal(searchMatcher("Abc")("xabcx"), false);
	});

	test("search with the texts made finds what it finds without them, whatever the query's case", async () => {
		for (const name of ["branch-in-place", "tool-calls", "labels", "unicode"]) {
			const { session, model: plain } = await model(name, "all");
			const fast = new BrowseModel(sourceOf(session), "all");
			const texts = new SearchTexts(session.getEntries());
			texts.fill(() => false);
			assert.ok(texts.done);
			fast.searchTexts = texts;
			const haystack = plain.rows.map(rowSearchText).join(" ");
			const queries = fc.tuple(
				fc.nat(),
				fc.integer({ min: 1, max: 12 }),
				fc.constantFrom("as is", "upper", "lower", "other"),
			);
			const ids = session.getEntries().map((entry) => entry.id);
			fc.assert(
				fc.property(
					queries,
					fc.nat(),
					fc.constantFrom(1 as const, -1 as const),
					fc.array(fc.nat(), { maxLength: 3 }),
					([at, length, how], start, dir, folds) => {
						// The same folds in both (the fast one finds each row's text through its folds).
						for (const m of [plain, fast]) {
							m.collapsed.clear();
							for (const k of folds) m.collapsed.add(ids[k % ids.length] as string);
							m.setFilter("all");
						}
						assert.deepEqual(fast.rows.map(rowKey), plain.rows.map(rowKey));
						const from = at % Math.max(1, haystack.length);
						let query = haystack.slice(from, from + length);
						if (how === "upper") query = query.toUpperCase();
						if (how === "lower") query = query.toLowerCase();
						if (how === "other") query = `${query}ΣÉ`;
						plain.selected = fast.selected = start % Math.max(1, plain.rows.length);
						assert.equal(fast.search(query, dir), plain.search(query, dir), query);
						assert.equal(fast.selected, plain.selected, query);
					},
				),
				{ numRuns: 200 },
			);
		}
	});

	test("search with the texts made: a query whose lower case is not in the lowered text (Greek final sigma)", () => {
		const { roots, ids, parents } = randomTree([{ parent: 0, kind: 0, label: false }]);
		const node = roots[0] as SessionTreeNode;
		const entry = { ...node.entry, message: { role: "user", content: "ΑΣΒ", timestamp: 1 } } as SessionEntry;
		const source: BrowseSource = {
			roots: [{ entry, children: [] }],
			leafId: ids[0] ?? null,
			parentOf: (id) => parents.get(id),
		};
		const m = new BrowseModel(source, "all");
		m.searchTexts = new SearchTexts([entry]);
		m.searchTexts.fill(() => false);
		// "ΑΣ" lowers to "ας" (a final sigma), the text to "ασβ": the text itself decides.
		assert.equal(m.search("ΑΣ", 1, true), true);
		assert.equal(m.search("ας", 1, true), false);
	});

	test("search texts are made a slice at a time", async () => {
		const { session } = await model("deep-chain");
		const entries = session.getEntries();
		const texts = new SearchTexts(entries);
		texts.fill(() => true);
		assert.equal(texts.done, false);
		const first = entries[0] as SessionEntry;
		assert.equal(texts.lowered(first.id), entrySearchText(first).toLowerCase());
		assert.equal(texts.lowered(entries[1]?.id ?? ""), undefined);
		texts.fill(() => false);
		assert.equal(texts.done, true);
	});

	test("the selection stays on the screen while it moves and pages", async () => {
		const { model: m } = await model();
		const height = 5;
		m.first();
		m.scrollIntoView(height);
		for (let i = 0; i < 17; i++) {
			m.moveBy(1);
			m.scrollIntoView(height);
			assert.ok(m.selected >= m.top && m.selected < m.top + height);
		}
		assert.equal(m.selected, 16, "stops at the last row");
		m.moveBy(-100);
		assert.equal(m.selected, 0);
		m.center(height);
		assert.equal(m.top, 0);
	});

	test("a 160,000-deep chain: laid out, moved through and folded without recursion", () => {
		const depth = 160_000;
		const nodes: SessionTreeNode[] = [];
		const parents = new Map<string, string | null>();
		for (let i = 0; i < depth; i++) {
			const id = i.toString(16).padStart(8, "0");
			const parentId = i === 0 ? null : (i - 1).toString(16).padStart(8, "0");
			parents.set(id, parentId);
			const entry = {
				type: "message",
				id,
				parentId,
				timestamp: "2026-01-01T00:00:00.000Z",
				message: { role: i % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text: `turn ${i}` }] },
			} as SessionEntry;
			const node: SessionTreeNode = { entry, children: [] };
			nodes[i - 1]?.children.push(node);
			nodes.push(node);
		}
		const leafId = nodes[depth - 1]?.entry.id ?? null;
		const source: BrowseSource = { roots: [nodes[0] as SessionTreeNode], leafId, parentOf: (id) => parents.get(id) };
		const m = new BrowseModel(source, "default");
		assert.equal(m.rows.length, depth);
		assert.equal(selectedId(m), leafId);
		m.first();
		m.foldLeft();
		assert.equal(m.rows.length, 2);
		m.moveBy(1);
		m.unfoldRight();
		assert.equal(m.rows.length, depth);
		assert.ok(m.search("turn 159999", 1));
		const lines = renderScreen(m, facts(), 80, 24);
		assert.equal(lines.length, 24);
	});
});

/** A random tree of `size` entries: messages of every role (with and without text), settings entries, labels. */
function randomTree(shape: ReadonlyArray<{ parent: number; kind: number; label: boolean }>): {
	roots: SessionTreeNode[];
	ids: string[];
	parents: Map<string, string | null>;
} {
	const roots: SessionTreeNode[] = [];
	const nodes: SessionTreeNode[] = [];
	const ids: string[] = [];
	const parents = new Map<string, string | null>();
	shape.forEach(({ parent, kind, label }, i) => {
		const id = i.toString(16).padStart(8, "0");
		const holder = i === 0 || parent % (i + 1) === i ? undefined : nodes[parent % i];
		const parentId = holder ? holder.entry.id : null;
		const timestamp = "2026-01-01T00:00:00.000Z";
		const text = [{ type: "text", text: `entry ${i}` }];
		const entries: SessionEntry[] = [
			{ type: "message", id, parentId, timestamp, message: { role: "user", content: text, timestamp: 1 } },
			{
				type: "message",
				id,
				parentId,
				timestamp,
				message: { role: "assistant", content: kind % 2 ? text : [], stopReason: "stop", timestamp: 1 },
			},
			{ type: "message", id, parentId, timestamp, message: { role: "toolResult", content: text, timestamp: 1 } },
			{ type: "model_change", id, parentId, timestamp, provider: "p", modelId: "m" },
		] as unknown as SessionEntry[];
		const entry = entries[kind % entries.length] as SessionEntry;
		const node: SessionTreeNode = label ? { entry, children: [], label: `l${i}` } : { entry, children: [] };
		(holder ? holder.children : roots).push(node);
		nodes.push(node);
		ids.push(id);
		parents.set(id, parentId);
	});
	return { roots, ids, parents };
}

describe("browse model: folds on the kept layout", () => {
	test("prefixBelow: a connector becomes the line below it; an only child's prefix stays", () => {
		assert.equal(prefixBelow(""), "");
		assert.equal(prefixBelow("├── "), "│   ");
		assert.equal(prefixBelow("│   └── "), "│       ");
		assert.equal(prefixBelow("│       "), "│       ");
	});

	test("any tree, filter, leaf and folds: the rows are layoutTree's with those folds", () => {
		fc.assert(
			fc.property(
				fc.array(fc.record({ parent: fc.nat(), kind: fc.nat(), label: fc.boolean() }), { minLength: 1, maxLength: 40 }),
				fc.nat(),
				fc.array(fc.nat(), { maxLength: 8 }),
				fc.constantFrom(...TREE_FILTERS),
				(shape, leaf, folds, filter) => {
					const { roots, ids, parents } = randomTree(shape);
					const leafId = ids[leaf % ids.length] ?? null;
					const collapsed = new Set(folds.map((k) => ids[k % ids.length] as string));
					const plain = layoutTree(roots, { leafId, filter });
					const expected = layoutTree(roots, { leafId, filter, collapsed });
					const index = new Map(plain.rows.map((row, i) => [rowKey(row), i]));
					assert.deepEqual(foldRows(plain, collapsed, index), expected.rows);
					// The model, folding one entry after another and changing filters, gives the same rows.
					const m = new BrowseModel({ roots, leafId, parentOf: (id) => parents.get(id) }, "all");
					m.setFilter(filter);
					for (const id of collapsed) m.collapsed.add(id);
					m.setFilter(nextFilter(filter));
					m.setFilter(filter);
					assert.deepEqual(m.rows, expected.rows);
					// Every entry is found at its row, or at its nearest shown ancestor's (the first row without one).
					const rowAt = new Map(expected.rows.map((row, i) => [rowKey(row), i]));
					for (const id of ids) {
						let shown: string | null | undefined = id;
						while (shown != null && !rowAt.has(shown)) shown = parents.get(shown);
						assert.equal(m.selectId(id), shown === id, id);
						assert.equal(m.selected, shown == null ? 0 : rowAt.get(shown), id);
					}
					// On a `… N more` row, ← goes to the folded entry's row.
					expected.rows.forEach((row, i) => {
						if (row.kind !== "more") return;
						m.selected = i;
						m.setFilter(filter);
						assert.equal(m.selected, i, "a new layout keeps a `more` row selected");
						assert.equal(m.foldLeft(), "moved");
						assert.equal(m.selected, rowAt.get(row.parentId));
					});
				},
			),
			{ numRuns: 300 },
		);
	});
});

describe("browse keys", () => {
	test("raw terminal input maps to actions", () => {
		const cases: Array<[string, unknown]> = [
			["\u001b[A", { type: "move", by: -1 }],
			["k", { type: "move", by: -1 }],
			["\u001b[B", { type: "move", by: 1 }],
			["j", { type: "move", by: 1 }],
			["\u001bOA", { type: "move", by: -1 }],
			["\u001b[5~", { type: "page", by: -1 }],
			["\u001b[6~", { type: "page", by: 1 }],
			["g", { type: "first" }],
			["G", { type: "last" }],
			["\u001b[H", { type: "first" }],
			["\u001b[F", { type: "last" }],
			["\u001b[D", { type: "fold" }],
			["\u001b[C", { type: "unfold" }],
			["[", { type: "branch", by: -1 }],
			["]", { type: "branch", by: 1 }],
			["/", { type: "search" }],
			["n", { type: "match", by: 1 }],
			["N", { type: "match", by: -1 }],
			["f", { type: "filter" }],
			["l", { type: "label" }],
			["\r", { type: "choose" }],
			["?", { type: "help" }],
			["q", { type: "quit" }],
			["\u001b", { type: "quit" }],
			["\u0003", { type: "quit" }],
			["x", undefined],
			["\u001b[1;5A", undefined],
		];
		for (const [data, action] of cases) assert.deepEqual(keyAction(data), action, JSON.stringify(data));
	});
});

describe("browse: pi's navigate rule", () => {
	test("a user or custom message gives the leaf to its parent with its text; anything else becomes the leaf", async () => {
		const session = await Session.inMemory();
		const u1 = await session.appendMessage({ role: "user", content: "first", timestamp: 1 });
		const a1 = await session.appendMessage({
			role: "assistant",
			content: [{ type: "text", text: "answer" }],
			provider: "p",
			model: "m",
			timestamp: 2,
		} as never);
		const u2 = await session.appendMessage({ role: "user", content: [{ type: "text", text: "second" }], timestamp: 3 });
		const c1 = await session.appendCustomMessageEntry("note", "custom text", true);
		const t1 = await session.appendThinkingLevelChange("high");
		for (const id of [u2, u1, a1, c1, t1]) {
			const entry = session.getEntry(id) as SessionEntry;
			const parent = session.getTreeIndex().getParentId(id) ?? null;
			const planned = enterOutcome(entry, parent);
			const result = await session.navigate(id);
			assert.equal(planned.leafId, result.leafId, id);
			assert.equal(planned.editsText, result.editorText !== undefined, id);
		}
		assert.deepEqual(enterOutcome(session.getEntry(u1) as SessionEntry, null), { leafId: null, editsText: true });
	});

	test("the context size at an entry: pi's message count and token estimate", async () => {
		const session = await Session.open(fixture("branch-in-place"));
		const size = contextAt(session, ALT);
		assert.equal(size.messages, session.buildSessionContext(ALT).messages.length);
		assert.ok(size.tokens > 0);
	});
});

function facts(extra: Partial<ScreenFacts> = {}): ScreenFacts {
	return {
		title: "branch-in-place.jsonl",
		entryCount: 17,
		color: false,
		context: { messages: 5, tokens: 1234, source: "estimate", reported: 0, estimated: 1234, estimatedMessages: 5 },
		...extra,
	};
}

describe("browse screen: the rows around the leaf first (large sessions)", () => {
	// browse draws the rows around the leaf (render/tree-window.ts) before the whole layout: that
	// screen must be the whole model's screen, but for the header's count. The expectation is the
	// whole model's own screen, on a session written in pi's layout (its messages decided from
	// their bytes), under every filter and several terminal heights.
	test("the first screen is the whole model's but for the header, under every filter", async () => {
		const file = join(tempDir(), "big.jsonl");
		const { entries } = writeBigSession(file, 2_000, 3);
		let compared = 0;
		for (const filter of TREE_FILTERS) {
			for (const height of [12, 24, 40]) {
				const session = await Session.open(file);
				const tree = paneHeights(height).tree;
				const window = layoutWindow(
					session.getTreeIndex(),
					{ leafId: session.getLeafId() as string, filter },
					tree,
					tree,
				);
				const whole = new BrowseModel(sourceOf(await Session.open(file)), filter);
				whole.center(tree);
				const screen = (m: BrowseModel) => renderScreen(m, facts({ entryCount: entries }), 100, height);
				if (window === undefined) {
					// Only where the leaf's row has fewer shown ancestors above it than the pane has rows.
					const at = whole.rows.findIndex((row) => row.kind === "entry" && rowKey(row) === whole.leafShownAt);
					const above = whole.rows.slice(0, Math.max(0, at)).filter((row) => whole.active.has(rowKey(row))).length;
					assert.ok(above < tree, `${filter}, ${height} rows: no window with ${above} shown ancestors`);
					await session.close();
					continue;
				}
				const first = BrowseModel.around(sourceOf(session), filter, window);
				first.center(tree);
				assert.ok(first.partial);
				const [head, ...rest] = screen(first);
				const [wholeHead, ...wholeRest] = screen(whole);
				assert.deepEqual(rest, wholeRest, `${filter}, ${height} rows`);
				assert.match(head ?? "", / [\d,]+ entries · counting rows…$/);
				assert.match(wholeHead ?? "", / [\d,]+ entries · [\d,]+\/[\d,]+$/);
				compared++;
				await session.close();
			}
		}
		assert.ok(compared >= 9, `screens compared: ${compared}`);
	});
});

describe("browse screen", () => {
	test("80×24: a header, 13 tree rows, a rule, an 8-line preview and the footer, all 80 columns, no escapes", async () => {
		const { model: m } = await model();
		const lines = renderScreen(m, facts(), 80, 24);
		assert.equal(lines.length, 24);
		for (const line of lines) assert.equal(displayWidth(line), 80, JSON.stringify(line));
		assert.ok(lines.every((line) => !line.includes("\u001b")));
		assert.deepEqual(paneHeights(24), { tree: 13, preview: 8 });
		assert.match(lines[0] ?? "", /^session-tree browse · branch-in-place\.jsonl +17 entries · 17\/17$/);
		const selected = lines.filter((line) => line.startsWith("› "));
		assert.equal(selected.length, 1);
		assert.match(selected[0] ?? "", /1fd141e1 assistant: .*← leaf/);
		assert.match(lines[14] ?? "", /^─{80}$/);
		assert.match(lines[15] ?? "", /^1fd141e1 {2}assistant {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
		assert.match(lines[16] ?? "", /^context: 5 messages, ≈ 1,234 tokens \(estimated\) {2}· the leaf/);
		assert.match(lines[17] ?? "", /^Enter: already the leaf/);
		assert.match(lines[18] ?? "", /^To message tree object edit/);
		assert.match(lines[23] ?? "", /^filter: default {2}\? keys {2}q quit/);
	});

	test("colour only when asked; the selection in reverse video", async () => {
		const { model: m } = await model();
		const lines = renderScreen(m, facts({ color: true }), 80, 24);
		assert.ok(lines.some((line) => line.includes("\u001b[7m")));
		// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is the point
		assert.ok(lines.some((line) => /\u001b\[3\dm/.test(line)));
	});

	test("the preview tells what Enter does; read-only turns it off and says why", async () => {
		const { model: m } = await model();
		m.selectId(ALT);
		let text = renderScreen(m, facts(), 80, 24).join("\n");
		assert.match(text, /Enter: the leaf moves to b344e667 \(its parent\); the text is printed to edit/);
		text = renderScreen(m, facts({ readOnly: "2 problems in the file (repair it)" }), 80, 24).join("\n");
		assert.match(text, /Enter: off \(read-only\)/);
		assert.match(text, /filter: default {2}read-only: 2 problems in the file \(repair it\) {2}\? keys/);
		assert.doesNotMatch(text, /⏎ choose/);
	});

	test("? lists every key; the footer shows an open input or a message", async () => {
		const { model: m } = await model();
		const help = renderScreen(m, facts({ help: true }), 80, 24).join("\n");
		for (const key of ["PgUp PgDn", "[ ]", "n N", "Enter", "q  Esc"]) assert.ok(help.includes(key), key);
		const input = renderScreen(m, facts({ input: { prompt: "search", line: (w) => `> abc`.padEnd(w) } }), 80, 24);
		assert.equal(input[23], `search> abc${" ".repeat(80 - 11)}`);
		const status = renderScreen(m, facts({ status: "no match" }), 80, 24);
		assert.match(status[23] ?? "", /^no match +$/);
	});

	test("any size from 1×1 to 200×60 gives exactly the lines asked for, none too wide", async () => {
		const { model: m } = await model("unicode");
		for (const [width, height] of [
			[1, 1],
			[10, 3],
			[20, 8],
			[80, 24],
			[120, 40],
			[200, 60],
		] as const) {
			for (let i = 0; i < m.rows.length; i++) {
				m.selected = i;
				const lines = renderScreen(m, facts(), width, height);
				assert.equal(lines.length, height, `${width}×${height}`);
				for (const line of lines) assert.ok(displayWidth(line) <= width, `${width}×${height}: ${JSON.stringify(line)}`);
			}
		}
		assert.deepEqual(renderScreen(m, facts(), 0, 10), []);
	});

	test("while the tree is read: the header and a note", () => {
		const lines = renderScreen(undefined, facts({ loading: true, entryCount: 100_000 }), 80, 24);
		assert.equal(lines.length, 24);
		assert.match(lines[1] ?? "", /reading 100,000 entries…/);
	});

	test("wrapText: at spaces, to a number of lines, saying when some is left out", () => {
		assert.deepEqual(wrapText("aaa bbb ccc", 7, 5), { lines: ["aaa bbb", "ccc"], more: false });
		assert.deepEqual(wrapText("one\n\ntwo\n\n", 10, 5), { lines: ["one", "", "two"], more: false });
		assert.deepEqual(wrapText("x".repeat(25), 10, 2), { lines: ["x".repeat(10), "x".repeat(10)], more: true });
		assert.deepEqual(wrapText("漢字漢字漢字", 5, 5).lines, ["漢字", "漢字", "漢字"]);
		const huge = wrapText("word ".repeat(1_000_000), 80, 4);
		assert.equal(huge.lines.length, 4);
		assert.equal(huge.more, true);
		assert.deepEqual(wrapText("a\u001b[31mb", 10, 1).lines, ["a [31mb"], "control characters are made harmless");
	});
});

describe("browse terminal guard", () => {
	class FakeProcess extends EventEmitter {
		exits: Array<number | undefined> = [];
		exit(code?: number): void {
			this.exits.push(code);
		}
	}

	test("a signal restores the terminal once and exits with 128 + its number", () => {
		const proc = new FakeProcess();
		let restored = 0;
		const unguard = guardTerminal(
			() => restored++,
			() => {},
			proc,
		);
		proc.emit("SIGTERM");
		proc.emit("exit");
		assert.equal(restored, 1);
		assert.deepEqual(proc.exits, [143]);
		unguard();
		assert.equal(proc.listenerCount("SIGTERM"), 0);
		assert.equal(proc.listenerCount("exit"), 0);
	});

	test("a crash restores the terminal, then reports the error and exits 1", () => {
		const proc = new FakeProcess();
		const events: string[] = [];
		guardTerminal(
			() => events.push("restore"),
			(text) => events.push(text),
			proc,
		);
		proc.emit("uncaughtException", new Error("boom"));
		assert.equal(events[0], "restore");
		assert.match(events[1] ?? "", /^session-tree: internal error: Error: boom/);
		assert.deepEqual(proc.exits, [1]);
		const other = new FakeProcess();
		guardTerminal(
			() => {},
			() => {},
			other,
		);
		other.emit("SIGINT");
		other.emit("SIGHUP");
		assert.deepEqual(other.exits, [130, 129]);
	});
});

describe("browse on the command line, without a terminal", () => {
	test("the terminal device: /dev/tty when stdin or stdout is not a terminal; none to open is NoTerminalError", () => {
		const piped = Readable.from([]) as unknown as NodeJS.ReadStream;
		const out = new PassThrough() as unknown as NodeJS.WriteStream;
		const missing = join(tempDir(), "no-such-tty");
		assert.throws(
			() => openTerminalDevice(piped, out, missing),
			(error: unknown) =>
				error instanceof NoTerminalError &&
				/^no terminal to draw on: stdin and stdout are not both terminals and \/dev\/tty cannot be opened \(ENOENT/.test(
					error.message,
				),
		);
		// A file that is not a terminal cannot carry the screen either.
		const plain = join(tempDir(), "plain");
		writeFileSync(plain, "");
		assert.throws(() => openTerminalDevice(piped, out, plain), NoTerminalError);
	});

	test("without any terminal (no /dev/tty) it fails clearly; a bad filter is a usage error; --help documents it", async () => {
		const piped = await cli(["browse", fixture("branch-in-place")], { noTerminal: true });
		assert.equal(piped.code, 1);
		assert.equal(piped.stdout, "");
		assert.match(
			piped.stderr,
			/^session-tree: browse needs a terminal: no terminal to draw on: stdin and stdout are not both terminals and \/dev\/tty cannot be opened \(/,
		);
		assert.match(piped.stderr, /`session-tree tree FILE` prints the tree/);
		const bad = await cli(["browse", fixture("branch-in-place"), "--filter", "tools"], { noTerminal: true });
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /unknown filter "tools": use one of default, no-tools, user-only, labeled-only, all/);
		const help = await cli(["browse", "--help"]);
		assert.equal(help.code, 0);
		assert.match(help.stdout, /^Usage: session-tree browse FILE \[--filter MODE\] \[--id\] \[--lenient\]/);
		assert.match(help.stdout, /Enter follows pi's \/tree/);
		assert.match(help.stdout, /text=\$\(session-tree browse FILE\)/);
		assert.match(help.stdout, /--id {2,}on Enter, print the chosen entry's id/);
		const listing = await cli(["--help"]);
		assert.match(listing.stdout, /^ {2}browse /m);
	});
});
