/**
 * The "direct read of a Claude Code transcript" section of `npm run bench` (issue 30, item 9):
 * a transcript of about 130 MiB made of real ones (bench/generate-claude-code.ts) read by the
 * CLI without importing it (`tree FILE`, `ctx FILE`, `md FILE`, output dropped; `html FILE`, the
 * page written to a scratch directory) and imported (`import FILE --dir TMP`), each run a fresh
 * process: its peak resident set size (the whole process, measured in it by bench/rss-probe.ts),
 * that peak against the file's size, its wall time and its CPU time (user + system: steadier
 * than wall time on a busy machine). The target:
 * a direct read (`tree`, `ctx`, `md`, `html`) peaks at no more than 3× the file; the import's
 * figure is reported beside them.
 *
 * With `--base PATH` (another build's CLI, e.g. the previous commit's `dist/bin/session-tree.js`),
 * each figure is measured for it too and printed beside ours with the ratio base / ours.
 *
 * Also runs alone (after `npm run bench` compiled it, or `tsc -p bench/tsconfig.json`):
 * `node bench/data/.build/bench/direct-read.js [--runs N] [--mib 130] [--base PATH] [--json FILE]`.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DATA_DIR, REPO_ROOT } from "./generate.js";
import { ensureTranscript } from "./generate-claude-code.js";
import { fmtMiB, fmtMs, markdownTable, median, scriptArgs } from "./shared.js";

const MiB = 2 ** 20;
const PROBE = join(dirname(fileURLToPath(import.meta.url)), "rss-probe.js");
/** The most a direct read may peak at, as a multiple of the file's size. */
const TARGET = 3;

/** Options of {@link runDirectRead}. */
export interface DirectReadOptions {
	/** Runs per figure (the median is reported); at most 3 are made. */
	runs: number;
	/** Size of the transcript in MiB (default 130, the size issue 30 names). */
	mib?: number;
	/** Another build's CLI to measure beside ours. */
	base?: string;
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-direct-read.json. */
	json?: string;
}

/** One run of one command. */
interface Sample {
	maxRss?: number;
	wallMs?: number;
	cpuMs?: number;
	error?: string;
}

/** The medians of a command's runs. */
interface Figure {
	maxRss?: number;
	wallMs?: number;
	cpuMs?: number;
	samples: Sample[];
	error?: string;
}

/** What each command is given: the file, and for the import a fresh directory. */
const COMMANDS: ReadonlyArray<{ name: string; args: (file: string, dir: string) => string[]; target: boolean }> = [
	{ name: "tree", args: (file) => ["tree", file], target: true },
	{ name: "ctx", args: (file) => ["ctx", file], target: true },
	{ name: "md", args: (file) => ["md", file], target: true },
	// The page is written to the scratch directory (beside the import's), removed after the run.
	{ name: "html", args: (file, dir) => ["html", file, "--out", `${dir}.html`], target: true },
	{ name: "import", args: (file, dir) => ["import", file, "--dir", dir], target: false },
];

/** One run of the CLI `main` in a fresh process, its output dropped; `argsFor` gets a fresh directory. */
function runOnce(main: string, argsFor: (dir: string) => string[]): Sample {
	const scratch = mkdtempSync(join(tmpdir(), "bench-direct-"));
	const figures = join(scratch, "rss.json");
	const dir = join(scratch, "import");
	try {
		const started = performance.now();
		const child = spawnSync(process.execPath, ["--import", pathToFileURL(PROBE).href, main, ...argsFor(dir)], {
			stdio: ["ignore", "ignore", "pipe"],
			env: { ...process.env, BENCH_RSS_FILE: figures },
			encoding: "utf8",
			timeout: 20 * 60_000,
		});
		const wallMs = performance.now() - started;
		if (child.status !== 0) {
			const why = child.signal ? `killed by ${child.signal}` : `exit code ${child.status}`;
			return { error: `${why}: ${(child.stderr ?? "").trim().split("\n")[0]?.slice(0, 200) ?? ""}` };
		}
		const { maxRss, cpuMs } = JSON.parse(readFileSync(figures, "utf8")) as { maxRss: number; cpuMs: number };
		return { maxRss, wallMs, cpuMs };
	} catch (error) {
		return { error: error instanceof Error ? error.message : String(error) };
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

function figureOf(samples: Sample[]): Figure {
	const ok = samples.filter((s) => s.error === undefined);
	const pick = (key: "maxRss" | "wallMs" | "cpuMs") =>
		median(ok.map((s) => s[key]).filter((v): v is number => v !== undefined));
	return {
		maxRss: pick("maxRss"),
		wallMs: pick("wallMs"),
		cpuMs: pick("cpuMs"),
		samples,
		error: samples.find((s) => s.error !== undefined)?.error,
	};
}

function ratio(base: number | undefined, ours: number | undefined): string {
	if (base === undefined || ours === undefined || ours <= 0) return "—";
	const r = base / ours;
	return `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`;
}

function table(rows: string[][]): string {
	return markdownTable(rows[0] ?? [], rows.slice(1));
}

/** Measures and prints the section; returns false when a target is missed or a command fails. */
export async function runDirectRead(options: DirectReadOptions): Promise<boolean> {
	const log = options.log ?? ((line: string) => console.log(line));
	const runs = Math.min(3, Math.max(1, options.runs));
	const mib = options.mib ?? 130;
	const ours = join(REPO_ROOT, "dist", "bin", "session-tree.js");
	const base = options.base === undefined ? undefined : resolve(options.base);
	const transcript = ensureTranscript(mib, log);
	const bytes = transcript.bytes;
	log("");
	log(
		`direct read of a Claude Code transcript: ${transcript.file}, ${(bytes / MiB).toFixed(1)} MiB, ` +
			`${transcript.lines.toLocaleString("en-US")} lines (${transcript.copies} copies of real transcripts); ` +
			`runs: ${runs} (median), load ${loadavg()[0]?.toFixed(2)}${base ? `; base: ${base}` : ""}`,
	);
	const raw: Record<string, { ours: Figure; base?: Figure }> = {};
	const header = ["command", "peak RSS", "RSS / file", "wall", "CPU", "target"];
	if (base) header.push("base peak RSS", "base RSS / file", "base CPU", "RSS base / ours", "CPU base / ours");
	const rows: string[][] = [header];
	let ok = true;
	for (const command of COMMANDS) {
		const args = (dir: string) => command.args(transcript.file, dir);
		const oursSamples: Sample[] = [];
		const baseSamples: Sample[] = [];
		for (let run = 0; run < runs; run++) {
			// Interleaved, so that a change of load hits both.
			if (base) baseSamples.push(runOnce(base, args));
			oursSamples.push(runOnce(ours, args));
		}
		const mine = figureOf(oursSamples);
		const theirs = base ? figureOf(baseSamples) : undefined;
		raw[command.name] = theirs ? { ours: mine, base: theirs } : { ours: mine };
		const share = mine.maxRss === undefined ? undefined : mine.maxRss / bytes;
		let target = "";
		if (command.target) {
			const met = share !== undefined && share <= TARGET;
			target = `≤ ${TARGET}× ${met ? "met" : "MISSED"}`;
			ok &&= met;
		}
		if (mine.error) ok = false;
		const row = [
			`${command.name} FILE`,
			mine.error ? "fails" : fmtMiB(mine.maxRss),
			share === undefined ? "—" : `${share.toFixed(2)}×`,
			fmtMs(mine.wallMs),
			fmtMs(mine.cpuMs),
			target,
		];
		if (theirs) {
			const theirShare = theirs.maxRss === undefined ? undefined : theirs.maxRss / bytes;
			row.push(
				theirs.error ? "fails" : fmtMiB(theirs.maxRss),
				theirShare === undefined ? "—" : `${theirShare.toFixed(2)}×`,
				fmtMs(theirs.cpuMs),
				ratio(theirs.maxRss, mine.maxRss),
				ratio(theirs.cpuMs, mine.cpuMs),
			);
		}
		rows.push(row);
		if (mine.error) log(`  ${command.name}: ours fails: ${mine.error}`);
		if (theirs?.error) log(`  ${command.name}: base fails: ${theirs.error}`);
	}
	log("");
	log(table(rows));
	const jsonFile = options.json ?? join(DATA_DIR, "last-direct-read.json");
	writeFileSync(
		jsonFile,
		`${JSON.stringify({ date: new Date().toISOString(), node: process.version, file: transcript, base, raw }, null, "\t")}\n`,
	);
	return ok;
}

const arg = scriptArgs(import.meta.url);
if (arg) {
	const ok = await runDirectRead({
		runs: Number(arg("--runs") ?? 3),
		...(arg("--mib") !== undefined ? { mib: Number(arg("--mib")) } : {}),
		...(arg("--base") !== undefined ? { base: arg("--base") as string } : {}),
		...(arg("--json") !== undefined ? { json: arg("--json") as string } : {}),
	});
	if (!ok) process.exitCode = 1;
}
