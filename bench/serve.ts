/**
 * The `serve` section of `npm run bench` (issue 25): `session-tree serve DIR` as a child process
 * over a copy of the generated s10k and s100k files, and the session page in headless Chromium:
 *
 * - interactive: the time from `page.goto(/s/KEY)` (the token's redirect included) until the
 *   page is drawn and free, as bench/html.ts defines it (`data-ready`, a sidebar row and the
 *   selected entry, checked in an animation frame), each run in a fresh browser context of one
 *   browser (no cache, no cookie shared between runs); then a leaf change in that page (as
 *   bench/html.ts: a click on a row off the active path until both panes show it as the leaf),
 *   and `layoutTree`'s share of it when the client reports it. The first page of a run is also
 *   given apart from the others: the server makes a session's records for the first page and
 *   keeps them for the next while the file is unchanged (src/serve/page-data.ts);
 * - append → shown: the time from a `Session.appendMessage` through the library (the session
 *   opened before the clock starts) until the page shows the new entry as an
 *   `article[data-entry-id]` of its conversation (the page follows the session's leaf), over
 *   the live tail (server-sent events, file watching). Each append waits for the last one to
 *   show.
 * - the sessions page over 10,000 small generated sessions (100 projects): the first look (the
 *   index's first build included), then the newest page and the oldest (`?offset=9900`), each
 *   until the page is ready with its 100 rows.
 *
 * With `base` (`--base PATH`, another build's CLI) the session page's figures are measured for
 * it too: its own `serve` over the same file, after ours, in the same run.
 *
 * The index of the server is a fresh one under a temporary XDG_CACHE_HOME, and HOME is a
 * temporary directory, so no agent's sessions of the machine are read. Medians over the runs.
 * Skipped, with the reason, without Chromium or without a CLI that has `serve`.
 *
 * Also runs alone (after `npm run bench` compiled it): `node bench/data/.build/bench/serve.js
 * [--runs N] [--sizes 10k,100k] [--base PATH] [--no-list]`.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { Session } from "../src/session.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../test/support/browser.js";
import { DATA_DIR, ensureFile, filesForSize, REPO_ROOT } from "./generate.js";
import { changeLeaf, leafPartsLine, phasesLine, readPhases, waitInteractive } from "./html.js";
import { fmtMs, markdownTable, median, scriptArgs } from "./shared.js";

/** Options of {@link runServe}. */
export interface ServeBenchOptions {
	/** Runs per figure (the median is reported); at most 5 page loads and 10 appends. */
	runs: number;
	/** Sizes of bench/generate.ts; default 10k and 100k (1m is left out). */
	sizes?: string[];
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-serve-run.json. */
	json?: string;
	/** Another build's CLI (its dist/bin/session-tree.js): its session page is measured too. */
	base?: string;
	/** Measure the sessions page over 10,000 sessions (default true; `--no-list` when run alone). */
	list?: boolean;
}

/** The figures of one file. */
export interface ServeFigures {
	file: string;
	/** Which CLI: ours, or the base. */
	side: "ours" | "base";
	entries: number;
	/** Milliseconds from `serve` started to its URL printed (the index built for one file). */
	startMs?: number;
	/** Median milliseconds until the session page is interactive (see the module's documentation). */
	readyMs?: number;
	/**
	 * The first page of the run (a server that keeps what it made for a page, as `serve` keeps
	 * a session's records since this round, makes it only for the first), and the median of the others.
	 */
	firstReadyMs?: number;
	againReadyMs?: number;
	readySamples: number[];
	/** Median milliseconds of a leaf change in the page, and of layoutTree in it. */
	leafChangeMs?: number;
	leafChangeSamples: number[];
	layoutMs?: number;
	layoutSamples: number[];
	/** The parts of each leaf change (bench/html.ts's LEAF_PARTS), by name. */
	leafPartSamples: Record<string, number[]>;
	/** The page's start, step by step (bench/html.ts PHASES), every sample. */
	phaseSamples: Record<string, number[]>;
	appendMs?: number;
	appendSamples: number[];
	error?: string;
}

function cliMain(): string {
	return process.env.SESSION_TREE_BIN ?? join(REPO_ROOT, "dist", "bin", "session-tree.js");
}

function skipReason(main: string): string | undefined {
	if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium)`;
	if (!existsSync(main)) return `no CLI at ${main} (npm run build)`;
	const help = spawnSync(process.execPath, [main, "serve", "--help"], { encoding: "utf8" });
	if (help.status !== 0) return `the CLI has no serve command (${(help.stderr ?? "").trim().split("\n")[0]})`;
	return undefined;
}

/** A running `serve` child: its URL (with the token) and the time it took to print it. */
async function startServe(
	main: string,
	dir: string,
	home: string,
): Promise<{ child: ChildProcess; url: URL; ms: number }> {
	const started = performance.now();
	const child = spawn(process.execPath, [main, "serve", dir, "--port", "0"], {
		env: { ...process.env, HOME: home, XDG_CACHE_HOME: join(home, ".cache") },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let stderr = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const url = await new Promise<URL>((resolveUrl, reject) => {
		let out = "";
		const timer = setTimeout(
			() => reject(new Error(`serve printed no URL in 120 s: ${stderr.slice(0, 300)}`)),
			120_000,
		);
		child.stdout?.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
			const match = /https?:\/\/\S+/.exec(out);
			if (match) {
				clearTimeout(timer);
				resolveUrl(new URL(match[0]));
			}
		});
		child.once("exit", (code) => {
			clearTimeout(timer);
			reject(new Error(`serve exited (${code}) before printing its URL: ${stderr.slice(0, 300)}`));
		});
	});
	return { child, url, ms: performance.now() - started };
}

/** The key the server gives the only session it serves. */
async function onlyKey(url: URL): Promise<string> {
	const token = url.searchParams.get("token") ?? "";
	const response = await fetch(new URL("/api/sessions", url), { headers: { authorization: `Bearer ${token}` } });
	if (!response.ok) throw new Error(`GET /api/sessions: ${response.status} ${await response.text()}`);
	const body = (await response.json()) as { sessions?: Array<{ key: string }> };
	const key = body.sessions?.[0]?.key;
	if (key === undefined) throw new Error("GET /api/sessions listed no session");
	return key;
}

/** Measures one file: page loads, then appends shown live. */
async function measureFile(browser: Browser, main: string, runs: number, figure: ServeFigures, file: string) {
	const work = join(DATA_DIR, `.serve-tmp-${process.pid}`);
	rmSync(work, { recursive: true, force: true });
	const dir = join(work, "sessions");
	mkdirSync(dir, { recursive: true });
	mkdirSync(join(work, "home"), { recursive: true });
	const copy = join(dir, `${figure.file}.jsonl`);
	copyFileSync(file, copy);
	const { child, url, ms } = await startServe(main, dir, join(work, "home"));
	figure.startMs = ms;
	try {
		const key = await onlyKey(url);
		const token = url.searchParams.get("token") ?? "";
		const page = new URL(`/s/${key}?token=${encodeURIComponent(token)}`, url).href;
		const ready = () =>
			(globalThis as unknown as { document: { documentElement: { dataset: { ready?: string } } } }).document
				.documentElement.dataset.ready === "true";
		for (let run = 0; run < Math.min(runs, 5); run++) {
			const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
			try {
				const tab = await context.newPage();
				const begin = performance.now();
				await tab.goto(page, { waitUntil: "commit", timeout: 180_000 });
				await waitInteractive(tab);
				figure.readySamples.push(performance.now() - begin);
				await readPhases(tab, figure.phaseSamples);
				const change = await changeLeaf(tab);
				figure.leafChangeSamples.push(change.ms);
				if (change.layoutMs !== undefined) figure.layoutSamples.push(change.layoutMs);
				for (const [name, ms] of Object.entries(change.parts ?? {})) {
					const samples = figure.leafPartSamples[name] ?? [];
					samples.push(ms);
					figure.leafPartSamples[name] = samples;
				}
			} finally {
				await context.close();
			}
		}
		figure.readyMs = median(figure.readySamples);
		figure.firstReadyMs = figure.readySamples[0];
		figure.againReadyMs = figure.readySamples.length > 1 ? median(figure.readySamples.slice(1)) : undefined;
		figure.leafChangeMs = median(figure.leafChangeSamples);
		figure.layoutMs = median(figure.layoutSamples);

		const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
		const session = await Session.open(copy);
		try {
			const tab = await context.newPage();
			await tab.goto(page, { waitUntil: "commit", timeout: 120_000 });
			await tab.waitForFunction(ready, undefined, { timeout: 120_000, polling: 10 });
			// Let the live tail connect before the first append is timed.
			await tab.waitForTimeout(500);
			for (let run = 0; run < Math.min(runs * 2, 10); run++) {
				const begin = performance.now();
				const id = await session.appendMessage({
					role: "user",
					content: `bench append ${run} ${Date.now()}`,
					timestamp: Date.now(),
				});
				await tab.waitForSelector(`article[data-entry-id="${id}"]`, { timeout: 30_000 });
				figure.appendSamples.push(performance.now() - begin);
			}
			figure.appendMs = median(figure.appendSamples);
		} finally {
			await session.close();
			await context.close();
		}
	} finally {
		child.kill("SIGTERM");
		await new Promise((done) => child.once("exit", done));
		rmSync(work, { recursive: true, force: true });
	}
}

/** The figures of the sessions page over many sessions. */
export interface ListFigures {
	sessions: number;
	/** Milliseconds from `serve` started to its URL printed. */
	startMs?: number;
	/** Milliseconds until the first page of the list is ready (the index's first build included). */
	firstReadyMs?: number;
	/** Median milliseconds until the list page is ready, the index built: the newest page, then the oldest. */
	newestMs?: number;
	oldestMs?: number;
	error?: string;
}

/** Writes `count` small pi sessions (one question and its answer each) into `dir`, 100 projects. */
function writeSmallSessions(dir: string, count: number): void {
	const start = Date.parse("2026-01-01T00:00:00.000Z");
	for (let i = 0; i < count; i++) {
		const id = `0195a000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`;
		const at = (k: number) => new Date(start + i * 60_000 + k * 1000).toISOString();
		const lines = [
			{ type: "session", version: 3, id, timestamp: at(0), cwd: `/home/me/project-${i % 100}` },
			{
				type: "message",
				id: "a0000001",
				parentId: null,
				timestamp: at(1),
				message: { role: "user", content: `Question ${i} about part ${i % 37}`, timestamp: start + i * 60_000 },
			},
			{
				type: "message",
				id: "a0000002",
				parentId: "a0000001",
				timestamp: at(2),
				message: {
					role: "assistant",
					content: [{ type: "text", text: `Answer ${i}.` }],
					provider: "p",
					model: "m",
					usage: {
						input: 1,
						output: 1,
						cacheRead: 0,
						cacheWrite: 0,
						totalTokens: 2,
						cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
					},
					stopReason: "stop",
					timestamp: start + i * 60_000,
				},
			},
		];
		writeFileSync(join(dir, `${id}.jsonl`), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
	}
}

/** The sessions page over 10,000 sessions: the first look (index built), then the newest and the oldest page. */
async function measureList(browser: Browser, main: string, runs: number, figures: ListFigures): Promise<void> {
	const work = join(DATA_DIR, `.serve-list-tmp-${process.pid}`);
	rmSync(work, { recursive: true, force: true });
	const dir = join(work, "sessions");
	mkdirSync(dir, { recursive: true });
	mkdirSync(join(work, "home"), { recursive: true });
	writeSmallSessions(dir, figures.sessions);
	const { child, url, ms } = await startServe(main, dir, join(work, "home"));
	figures.startMs = ms;
	const ready = () =>
		(globalThis as unknown as { document: { documentElement: { dataset: { ready?: string } } } }).document
			.documentElement.dataset.ready === "true";
	const load = async (path: string): Promise<number> => {
		const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
		try {
			const tab = await context.newPage();
			const token = url.searchParams.get("token") ?? "";
			const begin = performance.now();
			await tab.goto(new URL(`${path}${path.includes("?") ? "&" : "?"}token=${token}`, url).href, {
				waitUntil: "commit",
			});
			await tab.waitForFunction(ready, undefined, { timeout: 300_000, polling: 10 });
			const rows = await tab.locator('tbody[data-role="sessions"] tr').count();
			const status = (await tab.locator('[data-role="status"]').textContent()) ?? "";
			if (rows !== 100 || !status.endsWith(` of ${figures.sessions}`))
				throw new Error(`${path}: ${rows} rows, "${status}": not 100 of ${figures.sessions}`);
			return performance.now() - begin;
		} finally {
			await context.close();
		}
	};
	try {
		figures.firstReadyMs = await load("/");
		const newest: number[] = [];
		const oldest: number[] = [];
		for (let run = 0; run < Math.min(runs, 5); run++) {
			newest.push(await load("/"));
			oldest.push(await load(`/?offset=${figures.sessions - 100}`));
		}
		figures.newestMs = median(newest);
		figures.oldestMs = median(oldest);
	} finally {
		child.kill("SIGTERM");
		await new Promise((done) => child.once("exit", done));
		rmSync(work, { recursive: true, force: true });
	}
}

/** Measures and prints the section; returns the figures (empty when skipped). */
export async function runServe(options: ServeBenchOptions): Promise<ServeFigures[]> {
	const log = options.log ?? ((line: string) => console.log(line));
	const runs = Math.max(1, options.runs);
	const sizes = (options.sizes ?? ["10k", "100k"]).filter((size) => size !== "1m");
	const main = cliMain();
	const base = options.base === undefined ? undefined : resolve(options.base);
	log("");
	log(
		`== serve: a session page of \`session-tree serve\` in Chromium, and an append shown live (median${base ? `; base: ${base}` : ""}) ==`,
	);
	const why = skipReason(main) ?? (base ? skipReason(base) : undefined);
	if (why !== undefined) {
		log(`serve: skipped (${why})`);
		return [];
	}
	const started = Date.now();
	const figures: ServeFigures[] = [];
	const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
	try {
		for (const size of sizes) {
			const bench = filesForSize(size)[0];
			if (!bench) continue;
			const { file, stats } = ensureFile(bench, log);
			for (const [side, cli] of [...(base ? [["base", base] as const] : []), ["ours", main] as const]) {
				const figure: ServeFigures = {
					file: bench.name,
					side,
					entries: stats.entries,
					readySamples: [],
					leafChangeSamples: [],
					leafPartSamples: {},
					layoutSamples: [],
					phaseSamples: {},
					appendSamples: [],
				};
				figures.push(figure);
				try {
					await measureFile(browser, cli, runs, figure, file);
				} catch (error) {
					figure.error = error instanceof Error ? error.message.split("\n")[0] : String(error);
				}
				log(
					`${bench.name} ${side}: serve up in ${fmtMs(figure.startMs)}, page interactive in ${fmtMs(figure.readyMs)} ` +
						`(the first ${fmtMs(figure.firstReadyMs)}, the others ${fmtMs(figure.againReadyMs)}), ` +
						`leaf change ${fmtMs(figure.leafChangeMs)}${figure.layoutMs !== undefined ? ` (layoutTree ${fmtMs(figure.layoutMs)})` : ""}, ` +
						`append shown in ${fmtMs(figure.appendMs)}${figure.error ? ` — fails: ${figure.error}` : ""}`,
				);
				log(`  the page's start, step by step (medians): ${phasesLine(figure.phaseSamples)}`);
				log(`  the leaf change's parts (medians): ${leafPartsLine(figure.leafPartSamples)}`);
			}
		}
		if (options.list !== false) {
			const list: ListFigures = { sessions: 10_000 };
			try {
				await measureList(browser, main, runs, list);
			} catch (error) {
				list.error = error instanceof Error ? error.message.split("\n")[0] : String(error);
			}
			log(
				`sessions page over ${list.sessions.toLocaleString("en-US")} sessions: serve up in ${fmtMs(list.startMs)}, ` +
					`first page ready in ${fmtMs(list.firstReadyMs)} (the index built), then the newest page in ` +
					`${fmtMs(list.newestMs)} and the oldest in ${fmtMs(list.oldestMs)}${list.error ? ` — fails: ${list.error}` : ""}`,
			);
			if (list.error !== undefined) process.exitCode = 1;
		}
	} finally {
		await browser.close();
	}
	log("");
	log(printTable(figures));
	log(`\n(serve: ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg()[0]?.toFixed(2)})`);
	writeFileSync(
		options.json ?? join(DATA_DIR, "last-serve-run.json"),
		`${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, base, figures }, null, "\t")}\n`,
	);
	if (figures.some((f) => f.side === "ours" && f.error !== undefined)) process.exitCode = 1;
	return figures;
}

function printTable(figures: readonly ServeFigures[]): string {
	const header = [
		"file",
		"side",
		"entries",
		"serve up",
		"page interactive",
		"first page",
		"the others",
		"leaf change",
		"of it layoutTree",
		"append → shown (median)",
		"append → shown (max)",
	];
	const rows = figures.map((f) => [
		f.file,
		f.side,
		f.entries.toLocaleString("en-US"),
		fmtMs(f.startMs),
		fmtMs(f.readyMs),
		fmtMs(f.firstReadyMs),
		fmtMs(f.againReadyMs),
		fmtMs(f.leafChangeMs),
		fmtMs(f.layoutMs),
		fmtMs(f.appendMs),
		f.appendSamples.length === 0 ? "—" : fmtMs(Math.max(...f.appendSamples)),
	]);
	return markdownTable(header, rows);
}

const arg = scriptArgs(import.meta.url);
if (arg) {
	await runServe({
		runs: Number.parseInt(arg("--runs") ?? "3", 10),
		sizes: arg("--sizes")?.split(",").filter(Boolean),
		json: arg("--json"),
		list: !process.argv.includes("--no-list"),
		...(arg("--base") !== undefined ? { base: arg("--base") as string } : {}),
	});
}
