/**
 * The `browse` section of `npm run bench` (issue 28): `session-tree browse` on s100k in a real
 * pseudo-terminal, timed from the bytes it writes. Each run is a fresh process started by
 * util-linux `script` (which gives it a terminal of 120×40 and passes our keys through), and
 * every figure ends when pi-tui ends the frame it draws in answer (`ESC[?2026l`, the end of a
 * synchronized update), so a figure is what a person waits for, whole process included:
 *
 * - first frame: from the spawn to the end of the first frame that shows the tree (the header's
 *   `N entries · row/rows`, or `N entries · counting rows…` over the rows around the leaf drawn
 *   before the whole layout; the "reading N entries…" frame before it does not count);
 * - whole layout: from the spawn to the end of the first frame with the rows counted (the same
 *   frame when the tree was laid out whole at once); keys pressed before it wait for it;
 * - key: `k` (the selection one row up), from the write of the key to the end of the frame;
 * - filter change: `f` (the next filter), each of the five in turn, then the five again (a filter
 *   shown before may have kept its rows);
 * - fold change: `[` to the branch point above, then `←` (fold) and `→` (unfold), each timed;
 * - search: `/`, a query no entry holds (so every entry is looked at), then Enter, timed from
 *   the Enter to the frame that says so.
 *
 * Under the table: the first frame's parts measured in one process for each build (the open,
 * `getTree`, pi's filter decided from the bytes, the layout; bench/browse-parts.ts).
 *
 * Before each key the output must have been quiet for a moment (the context size computed after
 * the selection rests draws a frame of its own), so each key is timed alone. Figures are the
 * median over the runs (and over the presses of a run). With `--base PATH` (another build's CLI,
 * e.g. a checkout of the previous commit's `dist/bin/session-tree.js`) each run is made with it
 * too, alternating, so that before and after are measured in one run.
 *
 * Also runs alone (after `npm run bench` compiled it, or `tsc -p bench/tsconfig.json`):
 * `node bench/data/.build/bench/browse.js [--runs N] [--base PATH] [--file s100k] [--json FILE]
 * [--node-flags "FLAGS"]` (Node's options for our CLI's runs only).
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DATA_DIR, dataPath, ensureFile, filesForSize, REPO_ROOT } from "./generate.js";
import { fmtMs, markdownTable, median, scriptArgs } from "./shared.js";

/** Options of {@link runBrowse}. */
export interface BrowseBenchOptions {
	/** Runs per build (each a fresh process). */
	runs: number;
	/** Another build's CLI, measured beside ours. */
	base?: string;
	/** The bench file's name (default s100k). */
	file?: string;
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-browse.json. */
	json?: string;
	/**
	 * Options for Node given before our CLI (not the base's): what a V8 setting does to the
	 * figures, the same build as base beside it (e.g. `--min-semi-space-size=64
	 * --max-semi-space-size=64`, docs/performance.md, twenty-second round).
	 */
	nodeFlags?: readonly string[];
}

const COLUMNS = 120;
const ROWS = 40;
/** The end of a frame: pi-tui draws every frame as one synchronized update. */
const FRAME_END = "\u001b[?2026l";
/** Output must have been quiet this long before a key is sent. */
const QUIET_MS = 400;
/** The longest wait for anything (a hung browser fails the run instead of the bench). */
const TIMEOUT_MS = 60_000;
/** A query no entry of the bench files holds. */
const NO_MATCH = "zq-no-such-text-qz";
/** The header's count of the rows (`N entries · row/rows`): the whole layout is made. */
const COUNTED = /entries · [\d,]+\/[\d,]+/;

/** The figures of one run, milliseconds. */
interface RunFigures {
	firstFrame: number;
	wholeLayout: number;
	key: number[];
	filter: number[];
	filterAgain: number[];
	fold: number[];
	search: number[];
}

const FIGURES = ["firstFrame", "wholeLayout", "key", "filter", "filterAgain", "fold", "search"] as const;
type FigureName = (typeof FIGURES)[number];

const LABELS: Record<FigureName, string> = {
	firstFrame: "first frame (spawn → tree drawn)",
	wholeLayout: "whole layout (spawn → rows counted)",
	key: "key (k: one row up)",
	filter: "filter change (f, each filter once)",
	filterAgain: "filter change (f, each filter again)",
	fold: "fold change (← fold, → unfold)",
	search: "search, no match (every entry)",
};

/** The issue's targets; the whole layout has none of its own (the first frame's is the one). */
const TARGETS: Partial<Record<FigureName, number>> = {
	firstFrame: 300,
	key: 30,
	filter: 100,
	filterAgain: 100,
	fold: 100,
	search: 300,
};

/** The browser in a pseudo-terminal: its output with the time each frame ended. */
class Terminal {
	private readonly child: ChildProcess;
	private text = "";
	/** Where the frames not yet handed out start in {@link text}. */
	private seen = 0;
	private lastOutput = performance.now();
	private waiter: (() => void) | undefined;
	private exited: number | null | undefined;
	readonly started: number;

	constructor(cli: string, file: string, nodeFlags: readonly string[] = []) {
		const node = [process.execPath, ...nodeFlags, cli].map(shellQuote).join(" ");
		const command = `stty rows ${ROWS} cols ${COLUMNS}; exec ${node} browse ${shellQuote(file)}`;
		const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color" };
		delete env.NO_COLOR;
		delete env.FORCE_COLOR;
		this.started = performance.now();
		this.child = spawn("script", ["-qfec", command, "/dev/null"], { stdio: ["pipe", "pipe", "inherit"], env });
		this.child.stdout?.setEncoding("utf8");
		this.child.stdout?.on("data", (chunk: string) => {
			this.text += chunk;
			this.lastOutput = performance.now();
			this.waiter?.();
		});
		this.child.on("exit", (code) => {
			this.exited = code;
			this.waiter?.();
		});
	}

	/** Waits until `ready` holds (checked on each output), or fails after the timeout. */
	private async until(ready: () => boolean, what: string): Promise<void> {
		const deadline = performance.now() + TIMEOUT_MS;
		while (!ready()) {
			if (this.exited !== undefined) throw new Error(`browse exited (${this.exited}) while waiting for ${what}`);
			const left = deadline - performance.now();
			if (left <= 0) throw new Error(`no ${what} after ${TIMEOUT_MS} ms`);
			await new Promise<void>((done) => {
				const timer = setTimeout(done, Math.min(left, 50));
				this.waiter = () => {
					clearTimeout(timer);
					done();
				};
			});
			this.waiter = undefined;
		}
	}

	/**
	 * The time the next frame that `matches` (its text since the frame before) ended; frames
	 * before it are skipped.
	 */
	async frame(what: string, matches: (frame: string) => boolean = () => true): Promise<number> {
		let at = -1;
		await this.until(() => {
			for (
				let end = this.text.indexOf(FRAME_END, this.seen);
				end !== -1;
				end = this.text.indexOf(FRAME_END, this.seen)
			) {
				const frame = this.text.slice(this.seen, end);
				this.seen = end + FRAME_END.length;
				if (matches(frame)) {
					at = this.lastOutput;
					return true;
				}
			}
			return false;
		}, what);
		return at;
	}

	/** Waits until nothing was written for {@link QUIET_MS}, and forgets the frames so far. */
	async quiet(): Promise<void> {
		await this.until(() => performance.now() - this.lastOutput >= QUIET_MS, "quiet");
		this.seen = this.text.length;
	}

	/** Sends a key and returns how long until the frame that answers it ended. */
	async key(data: string, what: string, matches?: (frame: string) => boolean): Promise<number> {
		await this.quiet();
		const sent = performance.now();
		this.child.stdin?.write(data);
		return (await this.frame(what, matches)) - sent;
	}

	/** Types text without timing it (then waits for quiet). */
	async type(data: string): Promise<void> {
		await this.quiet();
		this.child.stdin?.write(data);
	}

	async quit(): Promise<void> {
		await this.quiet();
		this.child.stdin?.write("q");
		await this.until(() => this.exited !== undefined, "exit");
		if (this.exited !== 0) throw new Error(`browse exited with ${this.exited}`);
	}

	kill(): void {
		if (this.exited === undefined) this.child.kill("SIGKILL");
	}
}

function shellQuote(text: string): string {
	return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** One run of the browser: every figure once (keys, filters and folds several times). */
async function runOnce(cli: string, file: string, nodeFlags?: readonly string[]): Promise<RunFigures> {
	const term = new Terminal(cli, file, nodeFlags);
	try {
		// Any frame with the header's position (`entries · 1/N`): the tree is on the screen.
		let counted = false;
		const firstFrame =
			(await term.frame("the first frame", (frame) => {
				counted = COUNTED.test(frame);
				return frame.includes("entries · ");
			})) - term.started;
		const wholeLayout = counted
			? firstFrame
			: (await term.frame("the whole layout", (frame) => COUNTED.test(frame))) - term.started;
		const key: number[] = [];
		for (let i = 0; i < 5; i++) key.push(await term.key("k", "the frame after k"));
		const filter: number[] = [];
		for (let i = 0; i < 5; i++) filter.push(await term.key("f", "the frame after f", (f) => f.includes("filter: ")));
		const filterAgain: number[] = [];
		for (let i = 0; i < 5; i++) {
			filterAgain.push(await term.key("f", "the frame after f", (f) => f.includes("filter: ")));
		}
		// The branch point above the selection: ← folds it, → unfolds it.
		const fold: number[] = [];
		await term.key("[", "the frame after [");
		for (let i = 0; i < 2; i++) {
			fold.push(await term.key("\u001b[D", "the frame after ←", (f) => f.includes("more")));
			fold.push(await term.key("\u001b[C", "the frame after →"));
		}
		await term.type("/");
		await term.type(NO_MATCH);
		const search = [await term.key("\r", "the frame after the search", (f) => f.includes("no match"))];
		await term.quit();
		return { firstFrame, wholeLayout, key, filter, filterAgain, fold, search };
	} finally {
		term.kill();
	}
}

function medianOf(runs: readonly RunFigures[], name: FigureName): number | undefined {
	return median(runs.flatMap((run) => run[name]));
}

const PARTS = join(dirname(fileURLToPath(import.meta.url)), "browse-parts.js");

/** The first frame's parts (bench/browse-parts.ts) for the build in `dist`, or why they could not be measured. */
function firstFrameParts(dist: string, file: string): Record<string, number> | string {
	const child = spawnSync(process.execPath, [PARTS, dist, file], { encoding: "utf8", timeout: 5 * 60_000 });
	if (child.status !== 0) {
		// Node ends a crash with its version: the error's own line says why.
		const lines = child.stderr.trim().split("\n");
		const why = child.error?.message ?? lines.find((line) => /Error/.test(line)) ?? `status ${child.status}`;
		return `browse-parts.js ${dist}: ${why}`;
	}
	return (JSON.parse(child.stdout) as { parts: Record<string, number> }).parts;
}

/** Measures and prints the section; returns false when a run fails. */
export async function runBrowse(options: BrowseBenchOptions): Promise<boolean> {
	const log = options.log ?? ((line: string) => console.log(line));
	const runs = Math.max(1, options.runs);
	const name = options.file ?? "s100k";
	const bench = filesForSize(name.replace(/^s/, "").replace(/-tail$/, "")).find((b) => b.name === name);
	const file = bench ? ensureFile(bench, log).file : dataPath(name);
	if (!existsSync(file)) throw new Error(`no bench file ${file}`);
	const ours = join(REPO_ROOT, "dist", "bin", "session-tree.js");
	const base = options.base === undefined ? undefined : resolve(options.base);
	log("");
	log(
		`browse: ${name} in a ${COLUMNS}×${ROWS} pseudo-terminal (script), ${runs} runs (median), ` +
			`load ${loadavg()[0]?.toFixed(2)}${base ? `; base: ${base}` : ""}` +
			`${options.nodeFlags?.length ? `; ours run as node ${options.nodeFlags.join(" ")}` : ""}`,
	);
	const mine: RunFigures[] = [];
	const theirs: RunFigures[] = [];
	let ok = true;
	for (let run = 0; run < runs; run++) {
		// Interleaved, so that a change of load hits both.
		for (const [cli, into, who] of [
			...(base ? [[base, theirs, "base"] as const] : []),
			[ours, mine, "ours"] as const,
		]) {
			try {
				into.push(await runOnce(cli, file, cli === ours ? options.nodeFlags : undefined));
			} catch (error) {
				ok = false;
				log(`  ${who}, run ${run + 1}: ${error instanceof Error ? error.message : String(error)}`);
			}
		}
	}
	const header = ["figure", "ours", "target"];
	if (base) header.push("base", "base / ours");
	const rows = FIGURES.map((figure) => {
		const value = medianOf(mine, figure);
		const target = TARGETS[figure];
		const row = [
			LABELS[figure],
			fmtMs(value),
			target === undefined ? "—" : `≤ ${target} ms ${value === undefined ? "" : value <= target ? "met" : "MISSED"}`,
		];
		if (base) {
			const before = medianOf(theirs, figure);
			row.push(fmtMs(before), before && value ? `${(before / value).toFixed(1)}×` : "—");
		}
		return row;
	});
	log("");
	log(markdownTable(header, rows));
	// Where the first frame goes: its parts in one process, for each build (bench/browse-parts.ts).
	const parts: Record<string, Record<string, number>[]> = {};
	for (let run = 0; run < runs; run++) {
		for (const [cli, who] of [...(base ? [[base, "base"] as const] : []), [ours, "ours"] as const]) {
			const figures = firstFrameParts(dirname(dirname(cli)), file);
			if (typeof figures === "string") {
				log(`  first frame's parts, ${who}, run ${run + 1}: ${figures}`);
				continue;
			}
			const samples = parts[who] ?? [];
			samples.push(figures);
			parts[who] = samples;
		}
	}
	for (const [who, samples] of Object.entries(parts)) {
		const names = Object.keys(samples[0] ?? {});
		const line = names.map((name) => `${name} ${fmtMs(median(samples.map((sample) => sample[name] ?? 0)))}`);
		log(`first frame's parts in one process, ${who} (median of ${samples.length}): ${line.join(", ")}`);
	}
	log(`(load after: ${loadavg()[0]?.toFixed(2)})`);
	writeFileSync(
		options.json ?? join(DATA_DIR, "last-browse.json"),
		`${JSON.stringify({ date: new Date().toISOString(), node: process.version, file, base, ours: mine, base_runs: theirs, first_frame_parts: parts }, null, "\t")}\n`,
	);
	return ok;
}

const arg = scriptArgs(import.meta.url);
if (arg) {
	const ok = await runBrowse({
		runs: Number(arg("--runs") ?? 3),
		...(arg("--base") !== undefined ? { base: arg("--base") as string } : {}),
		...(arg("--file") !== undefined ? { file: arg("--file") as string } : {}),
		...(arg("--json") !== undefined ? { json: arg("--json") as string } : {}),
		...(arg("--node-flags") !== undefined
			? { nodeFlags: (arg("--node-flags") as string).split(" ").filter(Boolean) }
			: {}),
	});
	if (!ok) process.exitCode = 1;
}
