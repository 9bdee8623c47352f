/**
 * What `browse` showed a new user (issue 25): `+` and `-` give the tree pane more or fewer
 * rows; a deep tree keeps its text and the leaf marker on the line (indentation capped, with
 * the depth shown; a long label cut before the marker is); the context size is one figure that
 * says where it comes from, and usage no reply reported is not counted as 0; the header names
 * the session by its first prompt. The screen's lines are checked without a terminal
 * (renderScreen is pure) and, for the keys and the title, in tmux (skipped without it, except
 * under CI). Expectations come from the raw files or the core, not from src/render/usage.ts.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { contextAt, sourceOf } from "../../src/cli/browse/first-frame.js";
import { KEY_HELP, keyAction } from "../../src/cli/browse/keys.js";
import { BrowseModel } from "../../src/cli/browse/model.js";
import { paneHeights, renderScreen, type ScreenFacts } from "../../src/cli/browse/view.js";
import { estimateTokens } from "../../src/core/tokens.js";
import { openForeignFile } from "../../src/import/open-foreign.js";
import type { Session } from "../../src/index.js";
import { deepSession as deepSessionIn } from "../support/deep-session.js";
import { shellQuote, stopTmuxServer, tmuxOn, tmuxSkip, WAIT_MS } from "../support/tmux.js";
import { BIN, REPO, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

const REAL = join(REPO, "test", "fixtures", "real");
const SPOTTER = join(REAL, "claude-code", "spotter-2.1.38-tool-heavy.jsonl");
const ACIDICSOIL = join(REAL, "codex", "acidicsoil-0.58.0-rollout-019a93b9.jsonl");
const DEPTH = 30;
const LONG_LABEL = "a rather long label that would push the leaf marker off the row";

/** The deep session of test/support/deep-session.ts, in a temporary directory. */
function deepSession(): Promise<Session> {
	return deepSessionIn(join(tempDir(), "deep.jsonl"), { depth: DEPTH, label: LONG_LABEL });
}

function facts(extra: Partial<ScreenFacts> = {}): ScreenFacts {
	return { title: "deep", entryCount: 1, color: false, ...extra };
}

describe("browse: the panes, deep trees, token figures (issue 25)", () => {
	test("+ and - are keys that move the rule between the tree and the preview, listed in the help", () => {
		assert.deepEqual(keyAction("+"), { type: "resize", by: 1 });
		assert.deepEqual(keyAction("="), { type: "resize", by: 1 });
		assert.deepEqual(keyAction("-"), { type: "resize", by: -1 });
		assert.ok(KEY_HELP.some(([keys]) => keys === "+ -"));
		// 24 rows: header, 13 tree rows, rule, 8 preview rows, footer (by hand: 22 rows, 40% of 21 is 8).
		assert.deepEqual(paneHeights(24), { tree: 13, preview: 8 });
		assert.deepEqual(paneHeights(24, 3), { tree: 16, preview: 5 });
		assert.deepEqual(paneHeights(24, -3), { tree: 10, preview: 11 });
		// Each pane keeps 2 rows.
		assert.deepEqual(paneHeights(24, 100), { tree: 19, preview: 2 });
		assert.deepEqual(paneHeights(24, -100), { tree: 2, preview: 19 });
	});

	test("a shifted screen draws the rule lower, every line still 80 columns", async () => {
		const s = await deepSession();
		const model = new BrowseModel(sourceOf(s));
		const rule = (lines: string[]) => lines.findIndex((line) => /^─+$/.test(line));
		assert.equal(rule(renderScreen(model, facts(), 80, 24)), 14);
		const shifted = renderScreen(model, facts({ treeShift: 3 }), 80, 24);
		assert.equal(rule(shifted), 17);
		assert.equal(shifted.length, 24);
		await s.close();
	});

	test("a deep tree on 60 columns: the depth shown, the label cut, '← leaf' on the line", async () => {
		const s = await deepSession();
		const model = new BrowseModel(sourceOf(s));
		const lines = renderScreen(model, facts(), 60, 24);
		const selected = lines.find((line) => line.startsWith("› ")) ?? "";
		assert.ok(selected.includes(s.getLeafId() as string), selected);
		assert.match(selected, new RegExp(`^› «${DEPTH}» `), "the indentation is capped and says the depth");
		assert.match(selected, / \[a rat[^\]]*…\] {2}← leaf$/, "the label gave way to the marker");
		for (const line of lines) assert.ok(line.length <= 60, line);
		await s.close();
	});

	test("the context line: one figure, the last reported usage plus estimates after it", async () => {
		const opened = await openForeignFile(SPOTTER);
		assert.ok(opened);
		const session = opened.session;
		const leaf = session.getLeafId() as string;
		// By another route: the context's last reply with usage, and the estimates of the messages after it.
		const messages = session.buildSessionContext(leaf).messages;
		const last = messages.findLastIndex(
			(m) => m.role === "assistant" && ((m.usage as { totalTokens?: number } | undefined)?.totalTokens ?? 0) > 0,
		);
		const reported = (messages[last] as { usage: { totalTokens: number } }).usage.totalTokens;
		const after = messages.slice(last + 1).reduce((sum, m) => sum + estimateTokens(m), 0);
		const model = new BrowseModel(sourceOf(session));
		const lines = renderScreen(model, facts({ context: contextAt(session, leaf) }), 100, 24);
		const n = (x: number) => x.toLocaleString("en-US");
		const expected = `context: ${messages.length} messages, ${n(reported + after)} tokens (last reported ${n(reported)} + ≈ ${n(after)} estimated)`;
		assert.ok(
			lines.some((line) => line.startsWith(expected)),
			`${expected}\n${lines.join("\n")}`,
		);
		await session.close();
	});

	test("replies that reported no usage: the estimate, said to be one", async () => {
		const s = await deepSession();
		const leaf = s.getLeafId() as string;
		const messages = s.buildSessionContext(leaf).messages;
		const estimate = messages.reduce((sum, m) => sum + estimateTokens(m), 0);
		const lines = renderScreen(new BrowseModel(sourceOf(s)), facts({ context: contextAt(s, leaf) }), 80, 24);
		const text = `context: ${messages.length} messages, ≈ ${estimate.toLocaleString("en-US")} tokens (estimated)`;
		assert.ok(
			lines.some((line) => line.startsWith(text)),
			`${text}\n${lines.join("\n")}`,
		);
		await s.close();
	});
});

describe("browse in tmux: the title and + -", { skip: tmuxSkip }, () => {
	const socket = `st-browse-views-${process.pid}`;
	const tmux = tmuxOn(socket);
	after(() => stopTmuxServer(socket));
	const screen = () => tmux("capture-pane", "-p", "-t", "v").replace(/\n$/, "").split("\n");
	const waitFor = async (what: string, check: (lines: string[]) => boolean): Promise<string[]> => {
		const deadline = Date.now() + WAIT_MS;
		for (;;) {
			const lines = screen();
			if (check(lines)) return lines;
			if (Date.now() > deadline) assert.fail(`waited for ${what}:\n${lines.join("\n")}`);
			await new Promise((done) => setTimeout(done, 40));
		}
	};
	const ruleAt = (lines: string[]) => lines.findIndex((line) => /^─+$/.test(line));

	test("the header names a Codex rollout by its first prompt; + and - move the rule", async () => {
		const command = ["env", "TERM=xterm-256color", process.execPath, BIN, "browse", ACIDICSOIL]
			.map(shellQuote)
			.join(" ");
		tmux("new-session", "-d", "-s", "v", "-x", "100", "-y", "24", `${command}; sleep 600`);
		// The first user messages of the rollout are Codex's injected context: the header skips them.
		const first = await waitFor("the browser", (lines) => /context: \d/.test(lines.join("\n")));
		assert.match(first[0] ?? "", /^session-tree browse · finish up the users work by rigging up the chatbot-ui/);
		assert.equal(ruleAt(first), 14);
		tmux("send-keys", "-t", "v", "-l", "+");
		await waitFor("the rule one row lower", (lines) => ruleAt(lines) === 15);
		// One key at a time: a terminal hands over what tmux sends at once as one input.
		tmux("send-keys", "-t", "v", "-l", "-");
		await waitFor("the rule back", (lines) => ruleAt(lines) === 14);
		tmux("send-keys", "-t", "v", "-l", "-");
		await waitFor("the rule one row higher than at first", (lines) => ruleAt(lines) === 13);
		tmux("send-keys", "-t", "v", "q");
	});
});
