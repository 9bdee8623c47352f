/**
 * `browse`'s first frame, drawn before pi-tui is loaded (src/cli/browse/first-frame.ts), in a
 * real pseudo-terminal: util-linux `script` runs the CLI and its output is read as the bytes it
 * wrote. Frames are cut at the end of each synchronized update (`ESC[?2026l`), as pi-tui ends
 * its own; a frame's lines are what it wrote after its last `ESC[?2026h` (and a cursor move
 * home), split at `\r\n`, with escape sequences taken out: the text a person sees.
 *
 * Checked: the first frame already shows the tree (the rows around the leaf for a session of
 * 5,000 entries or more, the whole layout for a small one, and for a large one whose leaf is too
 * near the top for the rows around it, after a frame that says the session is being read), and
 * pi-tui's first frame after it shows the same lines (no flash of another screen); the whole
 * layout comes after, and q ends the browse with status 0. The expectations are the screen's own: the header's count and the
 * leaf's marker, and the two frames compared with each other.
 *
 * Without `script` the tests are skipped with a visible reason, except in CI (CI set), where its
 * absence is a failure.
 */

import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { stripAnsi } from "../../src/render/text-width.js";
import { shellQuote } from "../support/tmux.js";
import { writeBigSession } from "./big-session.js";
import { BIN, cli, fixture, removeTempDirs, tempDir } from "./helpers.js";

const haveScript = spawnSync("script", ["--version"]).status === 0;
const skip: string | false =
	!haveScript && !process.env.CI
		? "util-linux `script` is not installed (apt-get install bsdutils); these tests run, and fail without it, when CI is set"
		: false;

const FRAME_BEGIN = "\u001b[?2026h";
const FRAME_END = "\u001b[?2026l";
const TIMEOUT_MS = 20_000;

/** The browser in a pseudo-terminal of `columns`×`rows`, its output kept whole. */
class Browse {
	private readonly child: ChildProcess;
	text = "";
	exit: number | null | undefined;
	private wake: (() => void) | undefined;

	constructor(file: string, columns: number, rows: number) {
		const command = `stty rows ${rows} cols ${columns}; exec ${shellQuote(process.execPath)} ${shellQuote(BIN)} browse ${shellQuote(file)}`;
		const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color" };
		delete env.NO_COLOR;
		delete env.FORCE_COLOR;
		this.child = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "inherit"], env });
		this.child.stdout?.setEncoding("utf8");
		this.child.stdout?.on("data", (chunk: string) => {
			this.text += chunk;
			this.wake?.();
		});
		this.child.on("exit", (code) => {
			this.exit = code;
			this.wake?.();
		});
	}

	/** The frames written so far: each one's visible lines. */
	frames(): string[][] {
		const frames: string[][] = [];
		let from = 0;
		for (let end = this.text.indexOf(FRAME_END); end !== -1; end = this.text.indexOf(FRAME_END, from)) {
			const chunk = this.text.slice(from, end);
			const body = chunk.slice(chunk.lastIndexOf(FRAME_BEGIN) + FRAME_BEGIN.length);
			// Escape sequences (colours, cursor moves, pi-tui's empty link at each line's end) and returns out.
			frames.push(body.split("\r\n").map((line) => stripAnsi(line).replaceAll("\r", "").trimEnd()));
			from = end + FRAME_END.length;
		}
		return frames;
	}

	/** Waits until `ready` holds (checked at each output), failing after {@link TIMEOUT_MS}. */
	async until(what: string, ready: () => boolean): Promise<void> {
		const deadline = Date.now() + TIMEOUT_MS;
		while (!ready()) {
			if (this.exit !== undefined) assert.fail(`browse exited (${this.exit}) before ${what}:\n${this.text}`);
			const left = deadline - Date.now();
			if (left <= 0) assert.fail(`no ${what} after ${TIMEOUT_MS} ms:\n${this.frames().at(-1)?.join("\n")}`);
			await new Promise<void>((done) => {
				const timer = setTimeout(done, Math.min(left, 50));
				this.wake = () => {
					clearTimeout(timer);
					done();
				};
			});
			this.wake = undefined;
		}
	}

	async quit(): Promise<number | null | undefined> {
		this.child.stdin?.write("q");
		await this.until("the exit", () => this.exit !== undefined);
		return this.exit;
	}

	kill(): void {
		if (this.exit === undefined) this.child.kill("SIGKILL");
	}
}

describe("browse's first frame, before pi-tui (a pseudo-terminal)", { skip }, () => {
	const runs: Browse[] = [];
	after(() => {
		for (const run of runs) run.kill();
		removeTempDirs();
	});

	test("a session of 7,000 entries: the rows around the leaf first, pi-tui's first frame the same, then the whole layout", async () => {
		const file = join(tempDir(), "big.jsonl");
		const { entries } = writeBigSession(file, 2_000, 5);
		assert.ok(entries >= 5_000);
		const run = new Browse(file, 100, 30);
		runs.push(run);
		const counted = /^session-tree browse · .* [\d,]+ entries · [\d,]+\/[\d,]+$/;
		await run.until("the whole layout", () => run.frames().some((frame) => frame.some((line) => counted.test(line))));
		const [first, second] = run.frames();
		assert.ok(first && second);
		assert.match(first[0] ?? "", /^session-tree browse · .* 7,\d{3} entries · counting rows…$/, first.join("\n"));
		assert.ok(
			first.some((line) => line.endsWith("← leaf")),
			first.join("\n"),
		);
		assert.equal(first.length, 30);
		assert.deepEqual(second, first);
		assert.equal(await run.quit(), 0);
	});

	test("a large session whose leaf is near the top (no rows around it alone): a frame that reads, then the whole layout, and pi-tui's first frame the same", async () => {
		const file = join(tempDir(), "top.jsonl");
		writeBigSession(file, 2_000, 5);
		// The leaf moved to the second entry (a leaf record written by the CLI): too near the top
		// for the rows around it to be made alone (render/tree-window.ts), so the tree is laid out whole.
		const moved = await cli(["branch", file, "e0000002"]);
		assert.equal(moved.code, 0, moved.stderr);
		const run = new Browse(file, 100, 30);
		runs.push(run);
		await run.until("three frames", () => run.frames().length >= 3);
		const [reading, first, second] = run.frames();
		assert.ok(reading && first && second);
		assert.match(reading.join("\n"), /^ {2}reading 7,\d{3} entries…$/m);
		assert.match(first[0] ?? "", /^session-tree browse · .* 7,\d{3} entries · \d+\/[\d,]+$/, first.join("\n"));
		assert.ok(
			first.some((line) => line.endsWith("← leaf")),
			first.join("\n"),
		);
		assert.deepEqual(second, first);
		assert.equal(await run.quit(), 0);
	});

	test("a small session: the whole layout first, and pi-tui's first frame the same", async () => {
		const file = join(tempDir(), "small.jsonl");
		copyFileSync(fixture("branch-in-place"), file);
		const run = new Browse(file, 80, 24);
		runs.push(run);
		await run.until("two frames", () => run.frames().length >= 2);
		const [first, second] = run.frames();
		assert.ok(first && second);
		assert.match(first[0] ?? "", /^session-tree browse · .* \d+ entries · \d+\/\d+$/, first.join("\n"));
		assert.equal(first.length, 24);
		assert.deepEqual(second, first);
		assert.equal(await run.quit(), 0);
	});
});
