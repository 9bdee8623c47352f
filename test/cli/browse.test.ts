/**
 * `session-tree browse` in a real terminal: tmux (Debian package `tmux`) runs it in a pane of
 * a fixed size on a private server socket, `send-keys` types and `capture-pane` shows the
 * screen. Each test copies a fixture of test/fixtures/pi-v3 to a temp dir, starts a shell that
 * prints a line, runs browse, then prints its exit status and whether the terminal settings
 * came back (`stty -g` before and after), and reads the file afterwards.
 *
 * Checked: moving (the marker and the preview follow), folding, searching, filtering,
 * labelling (the label is in the file), Enter on a user message (leaf = its parent, its text on
 * stdout) and on an assistant message (leaf = it), q (the file unchanged byte for byte),
 * a resize, the 80×24 layout, NO_COLOR, a read-only source, and the terminal given back
 * (the shell's screen as it was, raw mode off) after q, Ctrl-C and SIGTERM.
 *
 * Without tmux the tests are skipped with a visible reason, except in CI (CI set), where a
 * missing tmux is a failure.
 */

import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { viewId } from "../../src/core/tree-view.js";
import { Session } from "../../src/index.js";
import { layoutTree } from "../../src/render/tree-layout.js";
import { haveTmux, shellQuote, stopTmuxServer, tmuxOn, tmuxSkip, WAIT_MS } from "../support/tmux.js";
import { writeBigSession } from "./big-session.js";
import { BIN, fixture, removeTempDirs, tempDir } from "./helpers.js";

const skip = tmuxSkip;
const socket = `st-browse-${process.pid}`;
const tmux = tmuxOn(socket);
const quote = shellQuote;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Printed by the shell before browse starts: it must be on the screen again afterwards. */
const BEFORE = "BEFORE-BROWSE";
const ESCAPE = "\u001b";

let serverStarted = false;
let panes = 0;

/** One `browse` run in its own tmux session. */
class Pane {
	readonly name = `browse${panes++}`;
	readonly file: string;
	private readonly pidFile: string;

	/** Runs `browse COPY ...args` on a copy of the fixture `name` (or on `file` as it is). */
	constructor(
		source: { fixture: string } | { file: string },
		options: {
			args?: readonly string[];
			env?: Record<string, string>;
			width?: number;
			height?: number;
			/** Run as `out=$(browse …)` and write what it printed (stdout only) to this file. */
			capture?: string;
		} = {},
	) {
		const dir = tempDir();
		if ("file" in source) this.file = source.file;
		else {
			this.file = join(dir, `${source.fixture}.jsonl`);
			copyFileSync(fixture(source.fixture), this.file);
		}
		this.pidFile = join(dir, "browse.pid");
		const vars = Object.entries({ TERM: "xterm-256color", ...options.env }).map(([key, value]) => `${key}=${value}`);
		// The inner shell writes its pid and becomes browse (exec), so that a test can signal it.
		const browse = [
			"env",
			"-u",
			"NO_COLOR",
			"-u",
			"FORCE_COLOR",
			...vars,
			"sh",
			"-c",
			'echo $$ > "$0"; exec "$@"',
			this.pidFile,
			process.execPath,
			BIN,
			"browse",
			this.file,
			...(options.args ?? []),
		]
			.map(quote)
			.join(" ");
		const run =
			options.capture === undefined
				? `${browse}; code=$?`
				: `out=$(${browse}); code=$?; printf '%s' "$out" > ${quote(options.capture)}`;
		const script = `printf '%s\\n' ${BEFORE}; tty=$(stty -g); ${run}; [ "$tty" = "$(stty -g)" ] && echo TTY-RESTORED; echo "EXIT:$code"; sleep 600`;
		if (!serverStarted) {
			tmux("start-server", ";", "set-option", "-g", "exit-empty", "off");
			serverStarted = true;
		}
		const width = String(options.width ?? 80);
		const height = String(options.height ?? 24);
		tmux("new-session", "-d", "-s", this.name, "-x", width, "-y", height, script);
	}

	/** The screen as text (`escapes`: with its attributes), one string per row. */
	lines({ escapes = false, join = false } = {}): string[] {
		const flags = [...(escapes ? ["-e"] : []), ...(join ? ["-J"] : [])];
		return tmux("capture-pane", "-p", ...flags, "-t", this.name)
			.replace(/\n$/, "")
			.split("\n");
	}

	/** Types keys (tmux key names like Up, Enter, Escape, C-c). */
	keys(...keys: string[]): void {
		tmux("send-keys", "-t", this.name, ...keys);
	}

	/** Types text literally. */
	type(text: string): void {
		tmux("send-keys", "-t", this.name, "-l", text);
	}

	/** Waits until the screen satisfies `check`; fails with the screen after {@link WAIT_MS}. */
	async waitFor(
		what: string,
		check: (lines: string[]) => boolean,
		options: { escapes?: boolean; join?: boolean } = {},
	): Promise<string[]> {
		const deadline = Date.now() + WAIT_MS;
		for (;;) {
			let lines: string[];
			try {
				lines = this.lines(options);
			} catch (error) {
				lines = [`(no screen: ${(error as Error).message})`];
			}
			if (check(lines)) return lines;
			if (Date.now() > deadline) assert.fail(`waited ${WAIT_MS} ms for ${what}; the screen:\n${lines.join("\n")}`);
			await sleep(40);
		}
	}

	/** Waits for the browser's first full screen: the header, the selection and the footer. */
	async ready(): Promise<string[]> {
		return this.waitFor(
			"the browser",
			(lines) =>
				lines[0]?.startsWith("session-tree browse · ") === true &&
				selected(lines) !== undefined &&
				/context: \d/.test(lines.join("\n")),
		);
	}

	/**
	 * Waits until the selected row shows entry `id`, and the preview (when the screen has one) too:
	 * tmux may show a frame half drawn, the marker moved and the preview not yet.
	 */
	async selectedIs(id: string): Promise<string[]> {
		return this.waitFor(
			`the selection on ${id}`,
			(lines) =>
				selected(lines)?.includes(` ${id} `) === true &&
				(!lines.some((line) => /^─+$/.test(line)) || previewHead(lines).startsWith(`${id}  `)),
		);
	}

	/** Waits for the shell's line after browse ended, and returns its exit status and the screen. */
	async exited(): Promise<{ code: number; lines: string[] }> {
		// Wrapped lines joined: the text printed after the screen closes is one line per line.
		const lines = await this.waitFor("browse to end", (screen) => screen.some((line) => /^EXIT:\d+$/.test(line)), {
			join: true,
		});
		const code = Number(/^EXIT:(\d+)$/m.exec(lines.join("\n"))?.[1]);
		return { code, lines };
	}

	/** The pid of the browse process. */
	pid(): number {
		return Number(readFileSync(this.pidFile, "utf8").trim());
	}

	close(): void {
		try {
			tmux("kill-session", "-t", this.name);
		} catch {
			// Already gone.
		}
	}
}

/** The selected row (the one with the `›` marker), if any. */
function selected(lines: readonly string[]): string | undefined {
	return lines.find((line) => line.startsWith("› "));
}

/** The footer: the last row. */
function footer(lines: readonly string[]): string {
	return lines[lines.length - 1] ?? "";
}

/** The rows of the tree pane: between the header and the rule. */
function treeRows(lines: readonly string[]): string[] {
	const rule = lines.findIndex((line) => /^─+$/.test(line));
	return lines.slice(1, rule === -1 ? lines.length - 1 : rule).filter((line) => line.trim() !== "");
}

/** The first line of the preview pane (id, kind, time). */
function previewHead(lines: readonly string[]): string {
	const rule = lines.findIndex((line) => /^─+$/.test(line));
	return lines[rule + 1] ?? "";
}

/** The shell's screen once browse has ended: its line before, the terminal restored, nothing of the browser. */
function assertRestored(lines: readonly string[], code = 0): void {
	const text = lines.join("\n");
	assert.equal(lines[0], BEFORE, text);
	assert.match(text, /^TTY-RESTORED$/m, text);
	assert.match(text, new RegExp(`^EXIT:${code}$`, "m"), text);
	assert.doesNotMatch(text, /session-tree browse|filter: |─{10}/, text);
}

/** Branch-in-place's ids (see test/fixtures/pi-v3): the fork, its second branch, the leaf and its parents. */
const ALT = "c0cf4af1";
const LEAF = "1fd141e1";
const LEAF_PARENT = "bdca4b4e";
const REGEN = "c3cbd964";

describe("browse in a terminal (tmux)", { skip }, () => {
	const open: Pane[] = [];
	const pane = (...args: ConstructorParameters<typeof Pane>) => {
		const made = new Pane(...args);
		open.push(made);
		return made;
	};

	after(() => {
		for (const p of open) p.close();
		stopTmuxServer(socket);
		removeTempDirs();
	});

	test("tmux is available", () => {
		assert.ok(haveTmux, "tmux is not on PATH: install it (Debian: apt-get install tmux) — CI requires it");
	});

	test("80×24: header, tree, rule, preview, footer; moving moves the marker and the preview; q changes nothing", async () => {
		const p = pane({ fixture: "branch-in-place" });
		const before = readFileSync(p.file);
		let lines = await p.ready();
		assert.equal(lines.length, 24);
		for (const line of lines) assert.ok(line.length <= 80, line);
		// The title: the session's first prompt (it has no name; issue 25), cut to the width.
		assert.match(lines[0] ?? "", /^session-tree browse · That error file map index was on null… +17 entries · 17\/17$/);
		assert.match(selected(lines) ?? "", new RegExp(`• ${LEAF} assistant: .*← leaf$`));
		assert.equal(lines[14], "─".repeat(80));
		assert.match(previewHead(lines), new RegExp(`^${LEAF} {2}assistant {2}\\d{4}-`));
		// The leaf is a reply with usage: its report is the figure (issue 25).
		assert.match(lines.join("\n"), /^context: 8 messages, [\d,]+ tokens \(last reported usage\) {2}· the leaf$/m);
		assert.match(footer(lines), /^filter: default {2}\? keys {2}q quit {2}⏎ choose/);
		assert.equal(treeRows(lines).length, 13);

		p.keys("Up");
		lines = await p.selectedIs(LEAF_PARENT);
		assert.match(previewHead(lines), new RegExp(`^${LEAF_PARENT} {2}user`));
		assert.match(lines.join("\n"), /^Enter: the leaf moves to c3cbd964 \(its parent\); the text is printed to edit$/m);
		p.type("k");
		lines = await p.selectedIs(REGEN);
		assert.match(previewHead(lines), new RegExp(`^${REGEN} {2}assistant`));
		p.type("j");
		await p.selectedIs(LEAF_PARENT);
		p.type("g");
		lines = await p.selectedIs("24aca31e");
		assert.match(lines[1] ?? "", /^› 24aca31e user: /, "scrolled to the top");
		p.keys("PageDown");
		lines = await p.waitFor("a page down", (screen) => !selected(screen)?.includes(" 24aca31e "));
		p.type("G");
		await p.selectedIs(LEAF);
		p.type("q");
		const { code, lines: shell } = await p.exited();
		assert.equal(code, 0);
		assertRestored(shell);
		assert.ok(readFileSync(p.file).equals(before), "q leaves the file byte for byte as it was");
	});

	test("← folds a branch into a `… N more` row, → unfolds it; [ and ] go to branch points", async () => {
		const p = pane({ fixture: "branch-in-place" });
		const before = readFileSync(p.file);
		await p.ready();
		p.type("[");
		await p.selectedIs(ALT);
		p.keys("Left");
		let lines = await p.waitFor("the fold", (screen) =>
			screen.some((line) => /… 6 more in 2 branches {2}← leaf below \(1fd141e1\)/.test(line)),
		);
		assert.ok(!lines.some((line) => line.includes(REGEN)), "the folded rows are gone");
		assert.match(selected(lines) ?? "", new RegExp(ALT));
		p.keys("Right");
		lines = await p.waitFor("the unfold", (screen) => !screen.some((line) => line.includes("more in 2 branches")));
		assert.match(lines[0] ?? "", / 11\/17$/, "17 rows again, the selection on the same one");
		assert.match(selected(lines) ?? "", new RegExp(ALT));
		p.type("[");
		await p.selectedIs("dce6dfc8");
		p.type("]");
		await p.selectedIs(ALT);
		p.keys("Escape");
		const { code, lines: shell } = await p.exited();
		assert.equal(code, 0);
		assertRestored(shell);
		assert.ok(readFileSync(p.file).equals(before));
	});

	test("/ searches (Enter finds), n and N go to the next and previous match", async () => {
		const p = pane({ fixture: "branch-in-place" });
		await p.ready();
		p.type("/");
		await p.waitFor("the search input", (lines) => footer(lines).startsWith("search>"));
		p.type("third");
		await p.waitFor("the typed text", (lines) => footer(lines).startsWith("search> third"));
		p.keys("Enter");
		let lines = await p.selectedIs("964de769");
		assert.match(previewHead(lines), /^964de769 {2}user/);
		p.type("/");
		p.type("[alt]");
		p.keys("Enter");
		await p.selectedIs(ALT);
		p.type("n");
		await p.selectedIs("ab4a8e6c");
		p.type("n");
		await p.selectedIs(ALT);
		p.type("N");
		await p.selectedIs("ab4a8e6c");
		p.type("/");
		p.type("nothing like this");
		p.keys("Enter");
		lines = await p.waitFor("the message", (screen) => footer(screen).startsWith('no match for "nothing like this"'));
		assert.match(selected(lines) ?? "", /ab4a8e6c/);
		p.type("q");
		assert.equal((await p.exited()).code, 0);
	});

	test("f cycles the filters: the footer names it and the rows change", async () => {
		const p = pane({ fixture: "tool-calls" });
		let lines = await p.ready();
		assert.ok(
			lines.some((line) => line.includes(" toolResult: ")),
			"default shows tool results",
		);
		assert.ok(!lines.some((line) => line.includes("thinking_level_change")));
		p.type("f");
		lines = await p.waitFor("no-tools", (screen) => footer(screen).startsWith("filter: no-tools"));
		assert.ok(!lines.some((line) => line.includes(" toolResult: ")), "no-tools hides them");
		assert.ok(lines.some((line) => line.includes(" bashExecution: ")));
		p.type("f");
		lines = await p.waitFor("user-only", (screen) => footer(screen).startsWith("filter: user-only"));
		const rows = treeRows(lines);
		assert.equal(rows.length, 3);
		assert.ok(
			rows.every((line) => / user: /.test(line)),
			rows.join("\n"),
		);
		p.type("f");
		lines = await p.waitFor("labeled-only", (screen) => footer(screen).startsWith("filter: labeled-only"));
		assert.match(lines.join("\n"), /no entries shown by the labeled-only filter/);
		p.type("f");
		await p.waitFor("all", (screen) => footer(screen).startsWith("filter: all"));
		p.type("g");
		lines = await p.waitFor(
			"the first row",
			(screen) => selected(screen)?.includes("thinking_level_change: high") === true,
		);
		p.type("f");
		await p.waitFor("default again", (screen) => footer(screen).startsWith("filter: default"));
		p.type("q");
		assert.equal((await p.exited()).code, 0);
	});

	test("a session of 7,000 entries: the rows around the leaf, then the whole layout; keys pressed meanwhile are taken", async () => {
		// browse draws the rows around the leaf first (render/tree-window.ts) from 5,000 entries, then
		// lays out the whole tree. Keys pressed before that are kept, not lost: three rows up from the
		// leaf's row, as the whole layout counts rows (the expectation: layoutTree of the same file).
		const file = join(tempDir(), "big.jsonl");
		const { entries } = writeBigSession(file, 2_000, 5);
		const session = await Session.open(file);
		const whole = layoutTree(session.getTree(), { leafId: session.getLeafId(), filter: "default" });
		await session.close();
		const at = whole.rows.findIndex((row) => row.kind === "entry" && viewId(row.node) === whole.leafShownAt);
		assert.ok(at >= 3 && entries >= 5_000);
		const target = whole.rows[at - 3];
		assert.ok(target?.kind === "entry");
		const p = pane({ file }, { width: 100, height: 30 });
		// At once, before any frame: pressed while the session opens and the rows are laid out.
		p.type("kkk");
		const lines = await p.waitFor("the whole layout's count", (screen) =>
			new RegExp(` · ${(at - 2).toLocaleString("en-US")}/${whole.rows.length.toLocaleString("en-US")}$`).test(
				screen[0] ?? "",
			),
		);
		assert.match(selected(lines) ?? "", new RegExp(` ${viewId(target.node)} `), lines.join("\n"));
		p.type("q");
		assert.equal((await p.exited()).code, 0);
	});

	test("l sets a label (written to the file at once), and with an empty text clears it", async () => {
		const p = pane({ fixture: "branch-in-place" });
		await p.ready();
		p.type("[");
		await p.selectedIs(ALT);
		p.type("l");
		await p.waitFor("the label input", (lines) => footer(lines).startsWith(`label ${ALT} (empty clears)>`));
		p.type("try this");
		p.keys("Enter");
		// The row and the footer are two lines of the frame: a capture can fall between them.
		let lines = await p.waitFor(
			"the label",
			(screen) => selected(screen)?.includes("[try this]") === true && footer(screen).startsWith(`label of ${ALT} set`),
		);
		assert.match(footer(lines), new RegExp(`^label of ${ALT} set`));
		assert.equal((await Session.open(p.file)).getLabel(ALT), "try this");
		p.type("l");
		await p.waitFor("the input with the label", (screen) => footer(screen).includes("> try this"));
		p.keys("C-u");
		await p.waitFor("the input emptied", (screen) => !footer(screen).includes("try this"));
		p.keys("Enter");
		lines = await p.waitFor(
			"the label cleared",
			(screen) => footer(screen).startsWith(`label of ${ALT} cleared`) && !selected(screen)?.includes("[try this]"),
		);
		assert.ok(!selected(lines)?.includes("[try this]"));
		p.type("q");
		assert.equal((await p.exited()).code, 0);
		assert.equal((await Session.open(p.file)).getLabel(ALT), undefined);
	});

	test("Enter on a user message: the leaf moves to its parent (in the file) and its text is printed", async () => {
		const p = pane({ fixture: "branch-in-place" });
		await p.ready();
		p.keys("Up");
		await p.selectedIs(LEAF_PARENT);
		p.keys("Enter");
		const { code, lines } = await p.exited();
		assert.equal(code, 0);
		assert.equal(lines[0], BEFORE);
		assert.match(lines.join("\n"), /^TTY-RESTORED$/m);
		assert.ok(lines.includes(`leaf: ${REGEN}`), lines.join("\n"));
		const entry = (await Session.open(fixture("branch-in-place"))).getEntry(LEAF_PARENT);
		const text = entry?.type === "message" ? entry.message.content : undefined;
		assert.ok(typeof text === "string" && text.startsWith("[after regen]"));
		assert.ok(lines.includes(text), `the message's text on stdout:\n${lines.join("\n")}`);
		const session = await Session.open(p.file);
		assert.equal(session.getLeafId(), REGEN);
		const last = JSON.parse(readFileSync(p.file, "utf8").trimEnd().split("\n").pop() ?? "{}");
		assert.equal(last.type, "leaf");
		assert.equal(last.targetId, REGEN);
	});

	test("out=$(browse FILE): drawn on /dev/tty, Enter on a user message leaves exactly its text in $out", async () => {
		const result = join(tempDir(), "RESULT");
		const p = pane({ fixture: "branch-in-place" }, { capture: result });
		// The screen is the browser's although stdout is a pipe into the shell.
		await p.ready();
		p.keys("Up");
		await p.selectedIs(LEAF_PARENT);
		p.keys("Enter");
		const { code, lines } = await p.exited();
		assertRestored(lines.filter((line) => !line.startsWith("leaf: ")));
		assert.equal(code, 0);
		// stderr still goes to the terminal; stdout went into $out only.
		assert.ok(lines.includes(`leaf: ${REGEN}`), lines.join("\n"));
		// The expected text is read from the fixture itself, not from session-tree.
		const record = readFileSync(fixture("branch-in-place"), "utf8")
			.split("\n")
			.filter((line) => line.trim() !== "")
			.map((line) => JSON.parse(line))
			.find((entry) => entry.id === LEAF_PARENT);
		assert.equal(record?.message?.role, "user");
		const text = record.message.content;
		assert.ok(typeof text === "string" && text.startsWith("[after regen]"));
		assert.equal(readFileSync(result, "utf8"), text);
		assert.ok(!lines.includes(text), `the text is not on the screen:\n${lines.join("\n")}`);
		assert.equal((await Session.open(p.file)).getLeafId(), REGEN);
	});

	test("out=$(browse FILE --id): Enter prints the chosen entry's id; q prints nothing", async () => {
		const result = join(tempDir(), "RESULT");
		const p = pane({ fixture: "branch-in-place" }, { capture: result, args: ["--id"] });
		await p.ready();
		p.keys("Up", "Up");
		await p.selectedIs(REGEN);
		p.keys("Enter");
		assert.equal((await p.exited()).code, 0);
		assert.equal(readFileSync(result, "utf8"), REGEN);
		const quit = join(tempDir(), "RESULT");
		const q = pane({ fixture: "branch-in-place" }, { capture: quit });
		await q.ready();
		q.keys("q");
		const { code, lines } = await q.exited();
		assertRestored(lines);
		assert.equal(code, 0);
		assert.equal(readFileSync(quit, "utf8"), "");
	});

	test("Enter on an assistant message: it becomes the leaf, nothing is printed", async () => {
		const p = pane({ fixture: "branch-in-place" });
		await p.ready();
		p.keys("Up", "Up");
		await p.selectedIs(REGEN);
		p.keys("Enter");
		const { code, lines } = await p.exited();
		assert.equal(code, 0);
		assert.deepEqual(
			lines.filter((line) => line.trim() !== ""),
			[BEFORE, `leaf: ${REGEN}`, "TTY-RESTORED", "EXIT:0"],
		);
		assert.equal((await Session.open(p.file)).getLeafId(), REGEN);
	});

	test("a resize redraws the screen to the new size; the shell's screen is intact afterwards", async () => {
		const p = pane({ fixture: "branch-in-place" });
		await p.ready();
		tmux("resize-window", "-t", p.name, "-x", "120", "-y", "30");
		let lines = await p.waitFor(
			"the screen at 120×30",
			(screen) =>
				screen.length === 30 && screen.includes("─".repeat(120)) && footer(screen).startsWith("filter: default"),
		);
		assert.match(
			lines[0] ?? "",
			/^session-tree browse · That error file map index was on null\. Serialize the jsonl interface {5,}17 entries · 17\/17$/,
		);
		assert.equal(lines[0]?.length, 120);
		assert.ok(treeRows(lines).length > 13, "more rows of the tree");
		tmux("resize-window", "-t", p.name, "-x", "100", "-y", "24");
		lines = await p.waitFor(
			"the screen at 100×24",
			(screen) => screen.length === 24 && screen.includes("─".repeat(100)),
		);
		assert.equal(lines[0]?.length, 100);
		assert.ok(lines.every((line) => line.length <= 100));
		p.type("q");
		const { code, lines: shell } = await p.exited();
		assert.equal(code, 0);
		assertRestored(shell);
	});

	test("colours on a terminal, none with NO_COLOR", async () => {
		const coloured = pane({ fixture: "branch-in-place" });
		await coloured.ready();
		const withColour = coloured.lines({ escapes: true }).join("\n");
		// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is the point
		assert.match(withColour, /\u001b\[[0-9;]*3[0-9][0-9;]*m/, "foreground colours");
		coloured.type("q");
		await coloured.exited();

		const plain = pane({ fixture: "branch-in-place" }, { env: { NO_COLOR: "1" } });
		await plain.ready();
		const lines = plain.lines({ escapes: true });
		assert.ok(!lines.join("\n").includes(ESCAPE), `no escape sequence at all:\n${lines.join("\n")}`);
		assert.match(selected(lines) ?? "", new RegExp(LEAF), "the selection shows by its marker");
		plain.type("q");
		assert.equal((await plain.exited()).code, 0);
	});

	test("a damaged file opened with --lenient is read-only: the footer says why, Enter and l do nothing", async () => {
		const dir = tempDir();
		const file = join(dir, "damaged.jsonl");
		copyFileSync(fixture("branch-in-place"), file);
		appendFileSync(file, "this line is not JSON\n");
		const before = readFileSync(file);
		const p = pane({ file }, { args: ["--lenient"] });
		let lines = await p.ready();
		assert.match(
			footer(lines),
			/^filter: default {2}read-only: 1 problem in the file \(repair it\) {2}\? keys {2}q quit/,
		);
		assert.match(lines.join("\n"), /^Enter: off \(read-only\)$/m);
		p.keys("Up");
		await p.selectedIs(LEAF_PARENT);
		p.keys("Enter");
		lines = await p.waitFor("the refusal", (screen) => footer(screen).startsWith("read-only: 1 problem"));
		p.type("l");
		await p.waitFor("the refusal", (screen) => footer(screen).startsWith("read-only: 1 problem"));
		assert.ok(!footer(p.lines()).includes("label "));
		p.type("q");
		const { code, lines: shell } = await p.exited();
		assert.equal(code, 0);
		assert.ok(
			shell.some((line) => /^session-tree: warning: .*damaged\.jsonl:\d+: /.test(line)),
			shell.join("\n"),
		);
		assert.ok(readFileSync(file).equals(before));
	});

	test("Ctrl-C leaves without a change; SIGTERM restores the terminal and exits 143", async () => {
		const p = pane({ fixture: "branch-in-place" });
		const before = readFileSync(p.file);
		await p.ready();
		p.keys("Up");
		await p.selectedIs(LEAF_PARENT);
		p.keys("C-c");
		const interrupted = await p.exited();
		assert.equal(interrupted.code, 0);
		assertRestored(interrupted.lines);
		assert.ok(readFileSync(p.file).equals(before));

		const q = pane({ fixture: "branch-in-place" });
		await q.ready();
		process.kill(q.pid(), "SIGTERM");
		const killed = await q.exited();
		assertRestored(killed.lines, 143);
	});
});
