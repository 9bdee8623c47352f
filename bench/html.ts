/**
 * The HTML export section of `npm run bench` (issues 11 and 28): for the generated s10k and
 * s100k files,
 *
 * - export: the wall time of `node dist/bin/session-tree.js html FILE -o OUT`, a fresh process
 *   each run (start-up, reading, redaction, gzip and writing included), and its peak RSS
 *   (`process.resourceUsage().maxRSS` at exit, written by bench/rss-probe.ts);
 * - size: the page in MiB and its ratio to the JSONL file;
 * - interactive: the time from `page.goto(file:…)` until the page is drawn and free: the
 *   client set `<html data-ready="true">` (the data decoded, the tree built, the first render
 *   done), the sidebar has its rows and the conversation its selected entry, and the check ran
 *   in an animation frame (`polling: "raf"`), so the main thread was free to paint and to take
 *   a click. Each run in a fresh browser context of one browser (the browser's own start-up is
 *   not counted, no cache is shared between runs);
 * - leaf change: in that page, once it has read every body (the usage totals are shown), the
 *   sidebar scrolled to its middle, a click on the middle row in
 *   view that is not on the active path (choosing it as the leaf), until the conversation shows
 *   it as its selected entry, the sidebar marks it as the leaf, and the next frame came (the
 *   redraw); timed in the page. With it, the share of the sidebar's `layoutTree`
 *   (render/tree-layout.ts) when the client reports it (`performance.measure`
 *   "session-tree:layout"; a build before issue 28 does not).
 *
 * With `base` (`--base PATH`: another build's CLI, e.g. a checkout of the previous commit's
 * `dist/bin/session-tree.js`), every figure is measured for it too, runs alternating base, ours,
 * base, ours…, so that the load of the machine hits both. Medians over the runs. The section is
 * skipped, with the reason, when there is no Chromium at /usr/bin/chromium (or
 * SESSION_TREE_CHROMIUM), or when the CLI has no `html` command. The CLI is
 * dist/bin/session-tree.js, or SESSION_TREE_BIN.
 *
 * Also runs alone (after `npm run bench` compiled it, or `tsc -p bench/tsconfig.json`):
 * `node bench/data/.build/bench/html.js [--runs N] [--sizes 10k,100k] [--base PATH] [--json FILE]`.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../test/support/browser.js";
import { DATA_DIR, ensureFile, filesForSize, REPO_ROOT } from "./generate.js";
import { fmtMs, markdownTable, median, scriptArgs } from "./shared.js";

const MiB = 2 ** 20;
const PROBE = join(dirname(fileURLToPath(import.meta.url)), "rss-probe.js");

/** The targets of issue 28 for s100k. */
export const PAGE_TARGETS = { exportMs: 3000, exportRss: 400 * 1e6, interactiveMs: 2000, leafChangeMs: 100 } as const;

/** Options of {@link runHtml}. */
export interface HtmlOptions {
	/** Runs per figure (the median is reported); at most 5 are made. */
	runs: number;
	/** Sizes of bench/generate.ts (10k, 100k, 1m); default 10k and 100k. */
	sizes?: string[];
	/** Another build's CLI (its dist/bin/session-tree.js), measured beside ours. */
	base?: string;
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-html-run.json. */
	json?: string;
}

/** The figures of one side (ours, or the base) for one file. */
export interface SideFigures {
	htmlBytes?: number;
	/** Median wall milliseconds of the export, and every sample. */
	exportMs?: number;
	exportSamples: number[];
	/** Median peak RSS of the export process, bytes, and every sample. */
	exportRss?: number;
	rssSamples: number[];
	/** Median milliseconds until the page is interactive (see the module's documentation). */
	interactiveMs?: number;
	interactiveSamples: number[];
	/** Median milliseconds of a leaf change, and every sample. */
	leafChangeMs?: number;
	leafChangeSamples: number[];
	/** Median milliseconds of `layoutTree` in that leaf change, when the client reports it. */
	layoutMs?: number;
	layoutSamples: number[];
	/** The parts of each leaf change (see {@link LEAF_PARTS}), by name. */
	leafPartSamples: Record<string, number[]>;
	/** Milliseconds from the navigation's start to each step of the page's start (see {@link PHASES}), every sample. */
	phaseSamples: Record<string, number[]>;
	error?: string;
}

/**
 * The steps of a page's start, in order, as milliseconds from the navigation's start: the
 * file read (`responseEnd`), the HTML parsed (`domInteractive`), then the client's marks
 * (data.ts, app.ts): the records decompressed (before the sixth round of issue 28: and
 * decoded to text), their lines read (envelopes, the rest parsed; before: every line parsed),
 * the tree loaded and indexed, the first render done. What bounds the time to interactive.
 */
export const PHASES = [
	["response", "file read"],
	["dom", "HTML parsed"],
	["session-tree:decoded", "gunzip"],
	["session-tree:parsed", "lines read"],
	["session-tree:loaded", "loadTree"],
	["session-tree:indexed", "getTree + index"],
	["session-tree:rendered", "first render"],
] as const;

/** The page's {@link PHASES}, read after it is interactive. */
const READ_PHASES = `(() => {
	const nav = performance.getEntriesByType("navigation")[0];
	const out = { response: nav?.responseEnd, dom: nav?.domInteractive };
	for (const mark of performance.getEntriesByType("mark")) if (mark.name.startsWith("session-tree:")) out[mark.name] = mark.startTime;
	return out;
})()`;

/** Adds the page's {@link PHASES} to `samples`. */
export async function readPhases(page: Page, samples: Record<string, number[]>): Promise<void> {
	const phases = (await page.evaluate(READ_PHASES)) as Record<string, number | undefined>;
	for (const [key, at] of Object.entries(phases)) {
		if (typeof at === "number") samples[key] = [...(samples[key] ?? []), at];
	}
}

/** The medians of the {@link PHASES} of a side, as a line. */
export function phasesLine(samples: Record<string, number[]>): string {
	const parts: string[] = [];
	let before = 0;
	for (const [key, name] of PHASES) {
		const at = median(samples[key] ?? []);
		if (at === undefined) continue;
		parts.push(`${name} ${fmtMs(at - before)}`);
		before = at;
	}
	return parts.join(", ");
}

/** The figures of one file. */
export interface HtmlFigures {
	file: string;
	entries: number;
	jsonlBytes: number;
	ours: SideFigures;
	base?: SideFigures;
}

function emptySide(): SideFigures {
	return {
		exportSamples: [],
		rssSamples: [],
		interactiveSamples: [],
		leafChangeSamples: [],
		leafPartSamples: {},
		layoutSamples: [],
		phaseSamples: {},
	};
}

/** The CLI's entry point. */
function cliMain(): string {
	return process.env.SESSION_TREE_BIN ?? join(REPO_ROOT, "dist", "bin", "session-tree.js");
}

/** One export in a fresh process: its wall time and peak RSS, or why it failed. */
function exportOnce(main: string, file: string, out: string): { ms?: number; rss?: number; error?: string } {
	rmSync(out, { force: true });
	const figures = `${out}.rss.json`;
	rmSync(figures, { force: true });
	const started = performance.now();
	const child = spawnSync(process.execPath, ["--import", pathToFileURL(PROBE).href, main, "html", file, "-o", out], {
		encoding: "utf8",
		env: { ...process.env, BENCH_RSS_FILE: figures },
		maxBuffer: 16 * MiB,
		timeout: 10 * 60_000,
	});
	const ms = performance.now() - started;
	if (child.status !== 0 || !existsSync(out)) {
		const why = child.signal ? `killed by ${child.signal}` : `exit code ${child.status}`;
		return { error: `${why}: ${(child.stderr ?? "").trim().split("\n")[0]?.slice(0, 200) ?? ""}` };
	}
	const { maxRss } = JSON.parse(readFileSync(figures, "utf8")) as { maxRss: number };
	rmSync(figures, { force: true });
	return { ms, rss: maxRss };
}

/** Why the section cannot run for this CLI, or undefined. */
function skipReason(main: string): string | undefined {
	if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
	if (!existsSync(main)) return `no CLI at ${main} (npm run build)`;
	const help = spawnSync(process.execPath, [main, "html", "--help"], { encoding: "utf8" });
	if (help.status !== 0) return `the CLI has no html command (${(help.stderr ?? "").trim().split("\n")[0]})`;
	return undefined;
}

function fmtMiBExact(bytes: number | undefined): string {
	return bytes === undefined ? "—" : `${(bytes / MiB).toFixed(1)} MiB`;
}

function fmtMB(bytes: number | undefined): string {
	return bytes === undefined ? "—" : `${(bytes / 1e6).toFixed(0)} MB`;
}

/**
 * Waits until a session page is interactive (see the module's documentation): `data-ready`,
 * a sidebar row and the selected entry in the conversation, checked in an animation frame.
 */
export async function waitInteractive(page: Page, timeout = 180_000): Promise<void> {
	await page.waitForFunction(
		() => {
			// A function, not text: the page's policy forbids evaluating text as script.
			const doc = (
				globalThis as unknown as {
					document: { documentElement: { dataset: { ready?: string } }; querySelector(selector: string): unknown };
				}
			).document;
			return (
				doc.documentElement.dataset.ready === "true" &&
				doc.querySelector("[data-tree-id]") !== null &&
				doc.querySelector('article[aria-current="true"]') !== null
			);
		},
		undefined,
		{ timeout, polling: "raf" },
	);
}

/** A leaf change timed in the page, and layoutTree's share of it when the client reports it. */
export interface LeafChange {
	ms: number;
	layoutMs?: number;
	/** The parts of the change the client measures (app.ts): conversation, sidebar, context, in milliseconds. */
	parts?: Record<string, number>;
}

/** The parts of a leaf change the client measures (app.ts), by the name printed. */
export const LEAF_PARTS = [
	["session-tree:conversation", "conversation"],
	["session-tree:sidebar", "sidebar"],
	["session-tree:context", "context"],
	// Since issue 28's sixteenth round the panes are written first and then scrolled, laid out once.
	["session-tree:scroll", "scroll"],
] as const;

/** One line of the medians of a leaf change's parts. */
export function leafPartsLine(samples: Record<string, number[]>): string {
	return LEAF_PARTS.map(([, name]) => `${name} ${fmtMs(median(samples[name] ?? []))}`).join(", ");
}

/** The page's side of {@link changeLeaf} (the bench is compiled without the DOM's types, so it is text). */
const CHANGE_LEAF = `(async () => {
	const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
	const list = document.querySelector('[data-role="tree"]');
	if (!list) throw new Error("the page has no sidebar");
	list.scrollTop = list.scrollHeight / 2;
	const { top, bottom } = list.getBoundingClientRect();
	const inView = () => [...document.querySelectorAll("[data-tree-id]:not([data-on-path])")].filter((row) => {
		const box = row.getBoundingClientRect();
		return box.top >= top && box.bottom <= bottom;
	});
	// The sidebar draws the rows of a new scroll position in an animation frame (sidebar.ts).
	let rows = [];
	for (let tries = 0; tries < 600 && rows.length === 0; tries++) {
		await frame();
		rows = inView();
	}
	if (rows.length === 0) rows = [...document.querySelectorAll("[data-tree-id]:not([data-on-path])")];
	await new Promise((done) => setTimeout(done, 100));
	const row = rows[Math.floor(rows.length / 2)];
	const id = row?.getAttribute("data-tree-id");
	if (!row || !id) throw new Error("no row off the active path in view");
	performance.clearMeasures("session-tree:layout");
	const started = performance.now();
	row.click();
	const deadline = started + 120000;
	for (;;) {
		const selected = document.querySelector('article[aria-current="true"]');
		const leaf = document.querySelector('[data-tree-id="' + CSS.escape(id) + '"][aria-selected="true"]');
		if (selected?.getAttribute("data-entry-id") === id && leaf !== null) break;
		if (performance.now() > deadline) throw new Error("the page did not show " + id + " as the leaf in 120 s");
		await frame();
	}
	await frame();
	const ms = performance.now() - started;
	const layout = performance.getEntriesByName("session-tree:layout", "measure").at(-1);
	const parts = {};
	for (const [mark, name] of ${JSON.stringify(LEAF_PARTS)}) {
		const entry = performance.getEntriesByName(mark, "measure").at(-1);
		if (entry !== undefined) parts[name] = entry.duration;
	}
	return layout === undefined ? { ms, parts } : { ms, layoutMs: layout.duration, parts };
})()`;

/**
 * Chooses another leaf in a session page that is interactive, once its usage totals are shown
 * (every body read): scrolls the sidebar to its
 * middle, clicks the middle row in view that is not on the active path, and waits until the
 * conversation selects that entry, the sidebar marks it as the leaf (`aria-selected`), and the
 * frame after that came. Timed in the page, from the click.
 */
export async function changeLeaf(page: Page): Promise<LeafChange> {
	// A page that has read every body (since issue 28's sixth round a large session's are read
	// after the first render; until then its usage totals are not added up, which is cheaper).
	await page.waitForSelector('[data-role="path-usage"]:not([data-pending])', { timeout: 180_000 });
	return (await page.evaluate(CHANGE_LEAF)) as LeafChange;
}

/** Opens a page in a fresh context and measures it: interactive, then one leaf change. */
export async function measurePage(browser: Browser, url: string, side: SideFigures, timeout = 180_000): Promise<void> {
	const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	try {
		const page = await context.newPage();
		const errors: string[] = [];
		page.on("pageerror", (error) => errors.push(error.message));
		const begin = performance.now();
		await page.goto(url, { waitUntil: "commit", timeout });
		await waitInteractive(page, timeout);
		side.interactiveSamples.push(performance.now() - begin);
		await readPhases(page, side.phaseSamples);
		const change = await changeLeaf(page);
		side.leafChangeSamples.push(change.ms);
		if (change.layoutMs !== undefined) side.layoutSamples.push(change.layoutMs);
		for (const [name, ms] of Object.entries(change.parts ?? {})) {
			const samples = side.leafPartSamples[name] ?? [];
			samples.push(ms);
			side.leafPartSamples[name] = samples;
		}
		if (errors.length > 0) side.error = `page error: ${errors[0]}`;
	} finally {
		await context.close();
	}
}

/** Sets the medians of a side from its samples. */
export function settle(side: SideFigures): void {
	side.exportMs = median(side.exportSamples);
	side.exportRss = median(side.rssSamples);
	side.interactiveMs = median(side.interactiveSamples);
	side.leafChangeMs = median(side.leafChangeSamples);
	side.layoutMs = median(side.layoutSamples);
}

/** Measures and prints the section; returns the figures (empty when skipped). */
export async function runHtml(options: HtmlOptions): Promise<HtmlFigures[]> {
	const log = options.log ?? ((line: string) => console.log(line));
	const runs = Math.max(1, Math.min(options.runs, 5));
	const sizes = (options.sizes ?? ["10k", "100k"]).filter((size) => size !== "1m");
	const main = cliMain();
	const base = options.base === undefined ? undefined : resolve(options.base);
	log("");
	log(
		`== html export: session-tree html, and the page in Chromium (${runs} run${runs > 1 ? "s" : ""}, median${base ? `; base: ${base}` : ""}) ==`,
	);
	const why = skipReason(main) ?? (base ? skipReason(base) : undefined);
	if (why !== undefined) {
		log(`html: skipped (${why})`);
		return [];
	}
	const sides: Array<{ name: "ours" | "base"; main: string }> = [
		...(base ? [{ name: "base" as const, main: base }] : []),
		{ name: "ours", main },
	];
	const started = Date.now();
	const tempDir = join(DATA_DIR, `.html-tmp-${process.pid}`);
	mkdirSync(tempDir, { recursive: true });
	const figures: HtmlFigures[] = [];
	const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
	try {
		for (const size of sizes) {
			const bench = filesForSize(size)[0];
			if (!bench) continue;
			const { file, stats } = ensureFile(bench, log);
			const figure: HtmlFigures = {
				file: bench.name,
				entries: stats.entries,
				jsonlBytes: stats.bytes,
				ours: emptySide(),
				...(base ? { base: emptySide() } : {}),
			};
			figures.push(figure);
			const sideOf = (name: "ours" | "base") => (name === "ours" ? figure.ours : (figure.base as SideFigures));
			const outOf = (name: string) => join(tempDir, `${bench.name}-${name}.html`);
			for (let run = 0; run < runs; run++) {
				for (const { name, main: cli } of sides) {
					const side = sideOf(name);
					if (side.error !== undefined) continue;
					const result = exportOnce(cli, file, outOf(name));
					if (result.error !== undefined) side.error = `export: ${result.error}`;
					if (result.ms !== undefined) side.exportSamples.push(result.ms);
					if (result.rss !== undefined) side.rssSamples.push(result.rss);
				}
			}
			for (const { name } of sides) {
				const side = sideOf(name);
				if (side.error === undefined) side.htmlBytes = statSync(outOf(name)).size;
			}
			for (let run = 0; run < runs; run++) {
				for (const { name } of sides) {
					const side = sideOf(name);
					if (side.error !== undefined) continue;
					try {
						await measurePage(browser, pathToFileURL(outOf(name)).href, side);
					} catch (error) {
						side.error = `page: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
					}
				}
			}
			for (const { name } of sides) {
				const side = sideOf(name);
				settle(side);
				log(
					`${bench.name} ${name}: export ${fmtMs(side.exportMs)} (peak RSS ${fmtMB(side.exportRss)}), ` +
						`${fmtMiBExact(side.htmlBytes)} (JSONL ${fmtMiBExact(stats.bytes)}), interactive in ${fmtMs(side.interactiveMs)}, ` +
						`leaf change ${fmtMs(side.leafChangeMs)}${side.layoutMs !== undefined ? ` (layoutTree ${fmtMs(side.layoutMs)})` : ""}` +
						`${side.error ? ` — fails: ${side.error}` : ""} (${((Date.now() - started) / 1000).toFixed(0)} s so far)`,
				);
				log(`  the page's start, step by step (medians): ${phasesLine(side.phaseSamples)}`);
				log(`  the leaf change's parts (medians): ${leafPartsLine(side.leafPartSamples)}`);
			}
		}
	} finally {
		await browser.close();
		rmSync(tempDir, { recursive: true, force: true });
	}
	log("");
	log(printTable(figures));
	log(
		`targets (s100k): export ≤ ${fmtMs(PAGE_TARGETS.exportMs)} and ≤ ${fmtMB(PAGE_TARGETS.exportRss)}, ` +
			`interactive ≤ ${fmtMs(PAGE_TARGETS.interactiveMs)}, leaf change ≤ ${fmtMs(PAGE_TARGETS.leafChangeMs)}`,
	);
	log(`\n(html: ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg()[0]?.toFixed(2)})`);
	writeFileSync(
		options.json ?? join(DATA_DIR, "last-html-run.json"),
		`${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, base, figures }, null, "\t")}\n`,
	);
	if (figures.some((f) => f.ours.error !== undefined)) process.exitCode = 1;
	return figures;
}

function printTable(figures: readonly HtmlFigures[]): string {
	const header = [
		"file",
		"side",
		"entries",
		"JSONL",
		"HTML",
		"export (CLI)",
		"export peak RSS",
		"interactive",
		"leaf change",
		"of it layoutTree",
	];
	const rows: string[][] = [];
	for (const f of figures) {
		for (const [name, side] of [...(f.base ? [["base", f.base] as const] : []), ["ours", f.ours] as const]) {
			const failed = (stage: string) => side.error?.startsWith(stage) === true;
			rows.push([
				f.file,
				name,
				f.entries.toLocaleString("en-US"),
				fmtMiBExact(f.jsonlBytes),
				fmtMiBExact(side.htmlBytes),
				failed("export") ? "fails" : fmtMs(side.exportMs),
				failed("export") ? "fails" : fmtMB(side.exportRss),
				failed("page") ? "fails" : fmtMs(side.interactiveMs),
				failed("page") ? "fails" : fmtMs(side.leafChangeMs),
				fmtMs(side.layoutMs),
			]);
		}
	}
	return markdownTable(header, rows);
}

const arg = scriptArgs(import.meta.url);
if (arg) {
	await runHtml({
		runs: Number.parseInt(arg("--runs") ?? "5", 10),
		sizes: arg("--sizes")?.split(",").filter(Boolean),
		json: arg("--json"),
		...(arg("--base") !== undefined ? { base: arg("--base") as string } : {}),
	});
}
