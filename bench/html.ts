/**
 * The HTML export section of `npm run bench` (issue 11): for the generated s10k and s100k files,
 *
 * - export: the wall time of `node dist/bin/session-tree.js html FILE -o OUT`, a fresh process each run
 *   (start-up, reading, redaction, gzip and writing included);
 * - size: the page in MiB and its ratio to the JSONL file;
 * - ready: the time from `page.goto(file:…)` until `<html data-ready="true">` (the data decoded and
 *   the first render done, so the page answers clicks) in headless Chromium, each run in a fresh
 *   browser context of one browser (so the browser's own start-up is not counted, and no cache is
 *   shared between runs).
 *
 * Medians over the runs. The section is skipped, with the reason, when there is no Chromium at
 * /usr/bin/chromium (or SESSION_TREE_CHROMIUM), or when the CLI has no `html` command. The CLI is
 * dist/bin/session-tree.js, or SESSION_TREE_BIN.
 *
 * Also runs alone (after `npm run bench` compiled it, or `tsc -p bench/tsconfig.json`):
 * `node bench/data/.build/bench/html.js [--runs N] [--sizes 10k,100k] [--json FILE]`.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../test/support/browser.js";
import { DATA_DIR, ensureFile, filesForSize, REPO_ROOT } from "./generate.js";
import { fmtMs, markdownTable, median, scriptArgs } from "./shared.js";

const MiB = 2 ** 20;

/** Options of {@link runHtml}. */
export interface HtmlOptions {
	/** Runs per figure (the median is reported); at most 5 are made. */
	runs: number;
	/** Sizes of bench/generate.ts (10k, 100k, 1m); default 10k and 100k. */
	sizes?: string[];
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-html-run.json. */
	json?: string;
}

/** The figures of one file. */
export interface HtmlFigures {
	file: string;
	entries: number;
	jsonlBytes: number;
	htmlBytes?: number;
	/** Median wall milliseconds of the export, and every sample. */
	exportMs?: number;
	exportSamples: number[];
	/** Median milliseconds until `data-ready="true"`, and every sample. */
	readyMs?: number;
	readySamples: number[];
	error?: string;
}

/** The CLI's entry point. */
function cliMain(): string {
	return process.env.SESSION_TREE_BIN ?? join(REPO_ROOT, "dist", "bin", "session-tree.js");
}

/** One export in a fresh process: its wall time, or why it failed. */
function exportOnce(main: string, file: string, out: string): { ms?: number; error?: string } {
	rmSync(out, { force: true });
	const started = performance.now();
	const child = spawnSync(process.execPath, [main, "html", file, "-o", out], {
		encoding: "utf8",
		maxBuffer: 16 * MiB,
		timeout: 10 * 60_000,
	});
	const ms = performance.now() - started;
	if (child.status !== 0 || !existsSync(out)) {
		const why = child.signal ? `killed by ${child.signal}` : `exit code ${child.status}`;
		return { error: `${why}: ${(child.stderr ?? "").trim().split("\n")[0]?.slice(0, 200) ?? ""}` };
	}
	return { ms };
}

/** Why the section cannot run, or undefined. */
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

/** Measures and prints the section; returns the figures (empty when skipped). */
export async function runHtml(options: HtmlOptions): Promise<HtmlFigures[]> {
	const log = options.log ?? ((line: string) => console.log(line));
	const runs = Math.max(1, Math.min(options.runs, 5));
	const sizes = (options.sizes ?? ["10k", "100k"]).filter((size) => size !== "1m");
	const main = cliMain();
	log("");
	log(`== html export: session-tree html, and the page in Chromium (${runs} run${runs > 1 ? "s" : ""}, median) ==`);
	const why = skipReason(main);
	if (why !== undefined) {
		log(`html: skipped (${why})`);
		return [];
	}
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
			const out = join(tempDir, `${bench.name}.html`);
			const figure: HtmlFigures = {
				file: bench.name,
				entries: stats.entries,
				jsonlBytes: stats.bytes,
				exportSamples: [],
				readySamples: [],
			};
			figures.push(figure);
			for (let run = 0; run < runs; run++) {
				const result = exportOnce(main, file, out);
				if (result.error !== undefined) {
					figure.error = `export: ${result.error}`;
					break;
				}
				if (result.ms !== undefined) figure.exportSamples.push(result.ms);
			}
			figure.exportMs = median(figure.exportSamples);
			if (figure.error === undefined) {
				figure.htmlBytes = statSync(out).size;
				const url = pathToFileURL(out).href;
				for (let run = 0; run < runs; run++) {
					const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
					try {
						const page = await context.newPage();
						const errors: string[] = [];
						page.on("pageerror", (error) => errors.push(error.message));
						const begin = performance.now();
						await page.goto(url, { waitUntil: "commit", timeout: 120_000 });
						await page.waitForFunction(
							() =>
								(globalThis as unknown as { document: { documentElement: { dataset: { ready?: string } } } }).document
									.documentElement.dataset.ready === "true",
							undefined,
							{ timeout: 120_000, polling: 10 },
						);
						figure.readySamples.push(performance.now() - begin);
						if (errors.length > 0) figure.error = `page error: ${errors[0]}`;
					} catch (error) {
						figure.error = `page: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`;
						break;
					} finally {
						await context.close();
					}
				}
				figure.readyMs = median(figure.readySamples);
			}
			log(
				`${bench.name}: export ${fmtMs(figure.exportMs)}, ${fmtMiBExact(figure.htmlBytes)} ` +
					`(JSONL ${fmtMiBExact(stats.bytes)}), ready in ${fmtMs(figure.readyMs)}` +
					`${figure.error ? ` — fails: ${figure.error}` : ""} (${((Date.now() - started) / 1000).toFixed(0)} s so far)`,
			);
		}
	} finally {
		await browser.close();
		rmSync(tempDir, { recursive: true, force: true });
	}
	log("");
	log(printTable(figures));
	log(`\n(html: ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg()[0]?.toFixed(2)})`);
	writeFileSync(
		options.json ?? join(DATA_DIR, "last-html-run.json"),
		`${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, figures }, null, "\t")}\n`,
	);
	if (figures.some((f) => f.error !== undefined)) process.exitCode = 1;
	return figures;
}

function printTable(figures: readonly HtmlFigures[]): string {
	const header = ["file", "entries", "JSONL", "HTML", "HTML / JSONL", "export (CLI)", "ready in Chromium"];
	const rows = figures.map((f) => [
		f.file,
		f.entries.toLocaleString("en-US"),
		fmtMiBExact(f.jsonlBytes),
		fmtMiBExact(f.htmlBytes),
		f.htmlBytes === undefined ? "—" : `${(f.htmlBytes / f.jsonlBytes).toFixed(2)}×`,
		f.error?.startsWith("export") ? "fails" : fmtMs(f.exportMs),
		f.error && !f.error.startsWith("export") ? "fails" : fmtMs(f.readyMs),
	]);
	return markdownTable(header, rows);
}

const arg = scriptArgs(import.meta.url);
if (arg) {
	await runHtml({
		runs: Number.parseInt(arg("--runs") ?? "5", 10),
		sizes: arg("--sizes")?.split(",").filter(Boolean),
		json: arg("--json"),
	});
}
