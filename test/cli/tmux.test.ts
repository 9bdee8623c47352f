/**
 * The interactive REPL in a real terminal: tmux (Debian package `tmux`) runs it in a 100×30
 * pane on a private server socket, `send-keys` types, and `capture-pane` shows the screen.
 * Checked: the prompt, a command's output, Tab completion of commands and id prefixes,
 * colours (and none with NO_COLOR), the Up arrow, history across runs, Ctrl-C and Ctrl-D,
 * tree lines fitted to the pane width, and a bare `session-tree` starting the REPL.
 *
 * Without tmux the tests are skipped with a visible reason, except in CI (CI set), where a
 * missing tmux is a failure.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { haveTmux, shellQuote, stopTmuxServer, tmuxEnv, tmuxOn, tmuxSkip, WAIT_MS } from "../support/tmux.js";
import { BIN, removeTempDirs, tempDir } from "./helpers.js";

const WIDTH = 100;
const HEIGHT = 30;
const skip = tmuxSkip;
const socket = `st-test-${process.pid}`;
const tmux = tmuxOn(socket);

/** The start of a prompt line, with or without a session. */
const PROMPT_START = /^session-tree(?: \[[^\]]*\])?>(?: |$)/;

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** One REPL process in its own tmux session. */
class Pane {
	private static count = 0;
	readonly name: string;

	constructor(args: readonly string[], env: Record<string, string | undefined>) {
		this.name = `repl${Pane.count++}`;
		// `env -u` so that NO_COLOR/FORCE_COLOR from the test's own environment never leak in.
		const entries = Object.entries(env);
		const unset = entries.filter(([, value]) => value === undefined).flatMap(([key]) => ["-u", key]);
		const set = entries.filter(([, value]) => value !== undefined).map(([key, value]) => `${key}=${value}`);
		const command = ["env", ...unset, ...set, process.execPath, BIN, ...args].map(shellQuote).join(" ");
		tmux("new-session", "-d", "-s", this.name, "-x", String(WIDTH), "-y", String(HEIGHT), command);
	}

	/** The screen as text; `escapes` keeps the colour sequences, `join` joins wrapped lines. */
	screen({ escapes = false, join = false } = {}): string {
		const flags = ["-p", ...(escapes ? ["-e"] : []), ...(join ? ["-J"] : [])];
		return tmux("capture-pane", ...flags, "-t", this.name);
	}

	/** Types keys (tmux key names like Enter, Tab, Up, C-u are keys; anything else is text). */
	keys(...keys: string[]): void {
		tmux("send-keys", "-t", this.name, ...keys);
	}

	/** Types text literally (no key names). */
	type(text: string): void {
		tmux("send-keys", "-t", this.name, "-l", text);
	}

	/** Waits until the screen satisfies `check`; fails with the screen after {@link WAIT_MS}. */
	async waitFor(
		what: string,
		check: (screen: string) => boolean,
		options: { escapes?: boolean; join?: boolean } = {},
	): Promise<string> {
		const deadline = Date.now() + WAIT_MS;
		let screen = "";
		for (;;) {
			try {
				screen = this.screen(options);
			} catch (error) {
				screen = `(no screen: ${(error as Error).message})`;
			}
			if (check(screen)) return screen;
			if (Date.now() > deadline) assert.fail(`waited ${WAIT_MS} ms for ${what}; the screen:\n${screen}`);
			await sleep(50);
		}
	}

	/** The last non-empty line on the screen (where the prompt is). */
	lastLine(screen: string): string {
		const lines = screen.split("\n").filter((line) => line.trim() !== "");
		return lines[lines.length - 1] ?? "";
	}

	/** Waits until the prompt line (the last one) is exactly `prompt` + `text` (trailing spaces aside). */
	async waitForInput(text: string): Promise<string> {
		return this.waitFor(`the input line to read ${JSON.stringify(text)}`, (screen) => {
			// capture-pane drops trailing spaces: the prompt may end in `>` alone.
			const line = this.lastLine(screen).trimEnd();
			return PROMPT_START.test(line) && line.replace(PROMPT_START, "") === text.trimEnd();
		});
	}

	/** Whether the REPL has ended (its tmux session is gone). */
	ended(): boolean {
		return spawnSync("tmux", ["-L", socket, "has-session", "-t", this.name], { env: tmuxEnv }).status !== 0;
	}

	async waitForEnd(): Promise<void> {
		const deadline = Date.now() + WAIT_MS;
		while (!this.ended()) {
			if (Date.now() > deadline) assert.fail(`the REPL did not end; the screen:\n${this.screen()}`);
			await sleep(50);
		}
	}
}

/** A prompt with a session (capture-pane drops the space after it on an empty line). */
const PROMPT = /^session-tree \[[^\]]*\]>( |$)/m;
const ESCAPE = "\u001b[";

describe("repl in a terminal (tmux)", { skip }, () => {
	after(() => {
		stopTmuxServer(socket);
		removeTempDirs();
	});

	test("tmux is available", () => {
		assert.ok(haveTmux, "tmux is not on PATH: install it (Debian: apt-get install tmux) — CI requires it");
	});

	const dir = tempDir();
	const history = join(dir, "state", "history");
	const env = {
		HOME: dir,
		SESSION_TREE_HISTORY: history,
		XDG_STATE_HOME: undefined,
		NO_COLOR: undefined,
		FORCE_COLOR: undefined,
	};
	const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
	let file = "";
	let q1 = "";
	let a1 = "";
	before(async () => {
		const session = await Session.create({ dir, cwd: "/home/dev/project" });
		q1 = await session.appendMessage({ role: "user", content: "What is a B-tree?", timestamp: Date.now() });
		a1 = await session.appendMessage({
			role: "assistant",
			content: [{ type: "text", text: long }],
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			timestamp: Date.now(),
		});
		await session.close();
		file = session.file as string;
	});

	let pane: Pane;

	test("the prompt shows the session and the leaf, in colour", async () => {
		// The server outlives each REPL: a new session started while the last one's server is
		// shutting down would fail with "server exited unexpectedly".
		tmux("start-server", ";", "set-option", "-g", "exit-empty", "off");
		pane = new Pane(["repl", file], env);
		const screen = await pane.waitFor("the prompt", (text) => PROMPT.test(text));
		assert.match(pane.lastLine(screen), new RegExp(`^session-tree \\[…[0-9a-f]{8} ${a1}\\]>\\s*$`));
		const coloured = pane.screen({ escapes: true });
		assert.ok(coloured.includes(`${ESCAPE}33m${a1}`), `the leaf id is yellow:\n${coloured}`);
	});

	test("a command prints its output and the prompt follows the new leaf", async () => {
		pane.type("send user hi");
		pane.keys("Enter");
		const screen = await pane.waitFor(
			"the new id",
			(text) => /^[0-9a-f]{8}\s*$/m.test(text) && PROMPT.test(pane.lastLine(text)),
		);
		const id = (/^([0-9a-f]{8})\s*$/m.exec(screen) as RegExpExecArray)[1] as string;
		assert.ok(pane.lastLine(screen).includes(` ${id}]>`), pane.lastLine(screen));
	});

	test("Up recalls the previous command; Ctrl-U clears it", async () => {
		pane.keys("Up");
		await pane.waitForInput("send user hi");
		pane.keys("C-u");
		await pane.waitForInput("");
	});

	test("Tab completes a command name, then an id prefix", async () => {
		// The shortest prefix of q1 that no other id starts with, among the ids the file holds
		// now (an earlier test appended one, which may share q1's first characters).
		const ids = (await Session.open(file)).getEntries().map((entry) => entry.id);
		let prefixLength = 1;
		while (ids.some((id) => id !== q1 && id.startsWith(q1.slice(0, prefixLength)))) prefixLength++;
		const q1Prefix = q1.slice(0, Math.max(prefixLength, 2));
		pane.type("bra");
		await pane.waitForInput("bra");
		pane.keys("Tab");
		await pane.waitForInput("branch ");
		pane.type(q1Prefix);
		await pane.waitForInput(`branch ${q1Prefix}`);
		pane.keys("Tab");
		await pane.waitForInput(`branch ${q1} `);
		pane.keys("Enter");
		await pane.waitFor("the branch output", (text) => text.includes(`leaf: ${q1}`));
	});

	test("Ctrl-C drops the line being typed", async () => {
		pane.type("send user never sent");
		await pane.waitForInput("send user never sent");
		pane.keys("C-c");
		await pane.waitFor("a fresh prompt", (text) => text.includes("never sent^C") && pane.lastLine(text).endsWith("]>"));
		const reopened = await Session.open(file);
		assert.ok(
			reopened.getEntries().every((entry) => !JSON.stringify(entry).includes("never sent")),
			"the dropped line was not run",
		);
	});

	test("tree: lines are cut to the pane width, colours by role", async () => {
		pane.keys("C-l");
		pane.type("tree");
		pane.keys("Enter");
		const screen = await pane.waitFor(
			"the tree",
			(text) => text.includes(a1) && text.includes("leaf") && PROMPT.test(pane.lastLine(text)),
		);
		const joined = pane.screen({ join: true }).split("\n");
		for (const line of joined) assert.ok(line.length <= WIDTH, `a line wider than the pane: ${line}`);
		const longLine = joined.find((line) => line.includes(a1)) as string;
		assert.ok(longLine.includes("word0 word1"), longLine);
		assert.ok(longLine.trimEnd().endsWith("…"), `the preview is cut: ${longLine}`);
		assert.ok(longLine.trimEnd().length >= WIDTH - 8, `the preview fills the width: ${longLine}`);
		assert.ok(!screen.includes("word59"));
		const coloured = pane.screen({ escapes: true });
		const treeLines = coloured.split("\n").filter((line) => line.includes(a1) || line.includes(q1));
		assert.ok(
			treeLines.some((line) => line.includes(ESCAPE) && !line.includes("]>")),
			`tree lines are coloured:\n${coloured}`,
		);
	});

	test("exit ends the REPL and the history is saved (mode 0600)", async () => {
		pane.type("exit");
		pane.keys("Enter");
		await pane.waitForEnd();
		const saved = readFileSync(history, "utf8").split("\n");
		assert.deepEqual(saved.slice(-5), ["send user hi", `branch ${q1}`, "tree", "exit", ""]);
		assert.ok(!saved.includes("send user never sent"));
		assert.equal(statSync(history).mode & 0o777, 0o600);
	});

	test("a new run recalls the previous run's commands with Up", async () => {
		pane = new Pane(["repl", file], env);
		await pane.waitFor("the prompt", (text) => PROMPT.test(text));
		pane.keys("Up");
		await pane.waitForInput("exit");
		pane.keys("Up");
		await pane.waitForInput("tree");
		pane.keys("Down");
		await pane.waitForInput("exit");
		pane.keys("C-u");
		await pane.waitForInput("");
		// Ctrl-D on an empty line leaves.
		pane.keys("C-d");
		await pane.waitForEnd();
	});

	test("NO_COLOR=1: no colour at all, the same text", async () => {
		pane = new Pane(["repl", file], { ...env, NO_COLOR: "1" });
		await pane.waitFor("the prompt", (text) => PROMPT.test(text));
		pane.type("tree");
		pane.keys("Enter");
		await pane.waitFor("the tree", (text) => text.includes(a1) && PROMPT.test(pane.lastLine(text)));
		const screen = pane.screen({ escapes: true });
		assert.ok(!screen.includes(ESCAPE), `no escape sequences with NO_COLOR:\n${JSON.stringify(screen)}`);
		assert.ok(screen.includes(`${q1} user: What is a B-tree?`), screen);
		pane.keys("C-d");
		await pane.waitForEnd();
	});

	test("a bare session-tree on a terminal starts the REPL", async () => {
		pane = new Pane([], { ...env, SESSION_TREE_HISTORY: "" });
		const screen = await pane.waitFor("the empty prompt", (text) => /^session-tree>$/m.test(text));
		assert.match(screen, /`help` lists the commands/);
		pane.type("help");
		pane.keys("Enter");
		await pane.waitFor("the help", (text) => /^ {2}branch <id>/m.test(text));
		pane.type("exit");
		pane.keys("Enter");
		await pane.waitForEnd();
	});

	describe("browse, clear, ls, fork and Tab's previews inside the REPL", () => {
		const own = tempDir();
		let other = "";
		let u1 = "";
		let r1 = "";
		before(async () => {
			const session = await Session.create({ dir: own, cwd: "/home/dev/project" });
			u1 = await session.appendMessage({ role: "user", content: "Which index for ranges?", timestamp: Date.now() });
			r1 = await session.appendMessage({
				role: "assistant",
				content: [{ type: "text", text: `A B-tree: ${long}` }],
				provider: "anthropic",
				model: "claude-sonnet-4-5",
				timestamp: Date.now(),
			});
			await session.close();
			other = session.file as string;
		});

		test("Tab after `branch ` lists the ids with their entries' text, cut to the pane; the id alone goes in", async () => {
			pane = new Pane(["repl", other, "--dir", own], { ...env, SESSION_TREE_HISTORY: "" });
			await pane.waitFor("the prompt", (text) => PROMPT.test(text));
			pane.type("branch ");
			await pane.waitForInput("branch ");
			// Two keys apart: readline takes two Tabs in one read for pasted text, and inserts them.
			pane.keys("Tab");
			await sleep(150);
			pane.keys("Tab");
			const screen = await pane.waitFor("the ids listed", (text) => text.includes(`${u1}  user: Which index`));
			const listed = screen.split("\n");
			assert.ok(
				listed.some((line) => line.trimEnd() === `${u1}  user: Which index for ranges?`),
				screen,
			);
			const reply = listed.find((line) => line.startsWith(`${r1}  assistant: A B-tree: word0 word1`)) as string;
			assert.ok(reply !== undefined, screen);
			// Cut to the pane (100 columns, less readline's padding): no line wrapped.
			assert.ok(reply.trimEnd().length <= WIDTH - 2 && reply.trimEnd().endsWith("…"), reply);
			// The line being typed is intact but for what the two ids share at their start, which
			// the first Tab put in (random ids: 1 in 16 share their first character), and the
			// next Tab inserts the id only.
			let common = 0;
			while (common < u1.length && u1[common] === r1[common]) common++;
			await pane.waitForInput(`branch ${u1.slice(0, common)}`);
			pane.type(u1.slice(common, common + 1));
			pane.keys("Tab");
			await pane.waitForInput(`branch ${u1} `);
			pane.keys("C-u");
			await pane.waitForInput("");
		});

		test("browse opens the session full-screen; q comes back to the prompt, which reads keys again", async () => {
			pane.type("leaves");
			pane.keys("Enter");
			await pane.waitFor("the leaves", (text) => text.includes(`* ${r1} assistant: A B-tree`));
			pane.type("browse");
			pane.keys("Enter");
			await pane.waitFor("the browser", (text) => text.split("\n")[0]?.startsWith("session-tree browse · ") === true);
			pane.keys("q");
			const back = await pane.waitFor(
				"the prompt after browse",
				(text) => text.includes("(left without a change)") && PROMPT.test(pane.lastLine(text)),
			);
			// The REPL's screen is as it was (the alternate screen is gone), and q did not leak into the line.
			assert.ok(back.includes(`* ${r1} assistant: A B-tree`), back);
			assert.doesNotMatch(back, /session-tree browse · /);
			await pane.waitForInput("");
			pane.type("info");
			pane.keys("Enter");
			await pane.waitFor("info's output", (text) => /^entries: 2\s*$/m.test(text) && PROMPT.test(pane.lastLine(text)));
		});

		test("browse, ↑ to the user message, Enter: the leaf moves (in the file) and nav's lines are printed", async () => {
			pane.type("browse");
			pane.keys("Enter");
			await pane.waitFor("the browser", (text) => /^› /m.test(text));
			pane.keys("Up");
			await pane.waitFor("the user message selected", (text) => /^› .*Which index for ranges\?/m.test(text));
			pane.keys("Enter");
			const screen = await pane.waitFor(
				"nav's lines",
				(text) => /^leaf: \(root\)\s*$/m.test(text) && PROMPT.test(pane.lastLine(text)),
			);
			assert.match(screen, /^edit: Which index for ranges\?\s*$/m);
			assert.match(pane.lastLine(screen), /\(root\)\]>/);
			assert.equal((await Session.open(other)).getLeafId(), null);
		});

		test("fork says that the REPL now edits the new file; ls lists both; clear empties the screen", async () => {
			pane.type(`fork ${r1}`);
			pane.keys("Enter");
			const forked = await pane.waitFor(
				"the fork's note",
				(text) => text.includes(`forked at ${r1}: the REPL now edits this new file (\`load ${other}\` goes back)`),
				{ join: true },
			);
			const forkFile = forked
				.split("\n")
				.map((line) => line.trim())
				.find((line) => line.startsWith(own) && line.endsWith(".jsonl") && line !== other) as string;
			assert.ok(forkFile, forked);
			pane.type("ls");
			pane.keys("Enter");
			await pane.waitFor(
				"ls's table",
				(text) => /MODIFIED +ENTRIES/.test(text) && text.includes(`    ${forkFile}`) && text.includes(`    ${other}`),
				{ join: true },
			);
			pane.type("clear");
			pane.keys("Enter");
			const cleared = await pane.waitFor(
				"a cleared screen",
				(text) => text.split("\n").filter((line) => line.trim() !== "").length === 1,
			);
			assert.match(cleared.trim(), PROMPT);
			pane.keys("C-d");
			await pane.waitForEnd();
		});
	});
});
