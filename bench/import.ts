/**
 * The ChatGPT import section of `npm run bench` (issue 30, item 6): the wall time of
 * `node dist/bin/session-tree.js import FILE --dir DIR` (a fresh process and a fresh directory
 * each run: start-up, reading, parsing, converting, writing) on a generated `conversations.json`
 * of one conversation whose root has 25,000, 50,000, 100,000 and 200,000 children, each a user
 * message as ChatGPT exports them (a prompt edited that often: every edit is a sibling; the
 * shape that made the import quadratic). Also the peak
 * resident memory, and the growth: the time over the time of half as many children (about 2×
 * for a linear import, 4× for a quadratic one). Target: 200,000 children in at most 5 s.
 *
 * With `BENCH_BASE_BIN` set to another build's CLI (e.g. of the previous commit), that build is
 * timed too (one run per size: it may be slow) and the ratio base / ours printed.
 *
 * Also runs alone (after `npm run bench` compiled it, or `tsc -p bench/tsconfig.json`):
 * `node bench/data/.build/bench/import.js [--runs N] [--children 25k,200k] [--json FILE]`.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DATA_DIR, REPO_ROOT } from "./generate.js";
import { fmtMs, markdownTable, median, scriptArgs } from "./shared.js";

const MiB = 2 ** 20;
/** The target of issue 30: 200,000 children imported in at most this many milliseconds. */
const TARGET_MS = 5000;

/** Options of {@link runImport}. */
export interface ImportBenchOptions {
	/** Runs per figure (the median is reported); at most 5 are made. */
	runs: number;
	/** Children of the root, default 25k, 50k, 100k, 200k. */
	children?: number[];
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-import-run.json. */
	json?: string;
}

/** One timed import. */
interface Sample {
	ms?: number;
	/** Peak resident memory, bytes. */
	maxRss?: number;
	/** CPU time of the main thread, milliseconds. */
	cpuMs?: number;
	error?: string;
}

/** The figures of one size. */
export interface ImportFigures {
	children: number;
	bytes: number;
	ms?: number;
	samples: number[];
	maxRss?: number;
	/** Median CPU time of the main thread. */
	cpuMs?: number;
	baseMs?: number;
	baseCpuMs?: number;
	error?: string;
}

/** The file of `children` children, generated once (deterministic: the same bytes every time). */
function ensureWideFile(children: number, log: (line: string) => void): string {
	const file = join(DATA_DIR, `chatgpt-wide-${children / 1000}k.json`);
	if (existsSync(file)) return file;
	log(`generating ${file}`);
	const keys = Array.from({ length: children }, (_, i) => `node-${i.toString(36).padStart(6, "0")}`);
	const mapping: Record<string, unknown> = {
		root: { id: "root", message: null, parent: null, children: keys },
	};
	for (const [i, key] of keys.entries()) {
		mapping[key] = {
			id: key,
			parent: "root",
			children: [],
			message: {
				id: key,
				author: { role: "user", name: null, metadata: {} },
				create_time: 1_700_000_000 + i,
				update_time: null,
				content: { content_type: "text", parts: [`version ${i} of the prompt: what does this code do?`] },
				status: "finished_successfully",
				end_turn: null,
				weight: 1,
				metadata: { request_id: `req-${i}`, timestamp_: "absolute" },
				recipient: "all",
			},
		};
	}
	const conversation = {
		title: `${children} regenerations`,
		create_time: 1_700_000_000,
		update_time: 1_700_000_000 + children,
		mapping,
		current_node: keys[children - 1],
		conversation_id: `wide-${children}`,
		id: `wide-${children}`,
		default_model_slug: "gpt-4o",
	};
	mkdirSync(DATA_DIR, { recursive: true });
	writeFileSync(file, JSON.stringify([conversation]));
	return file;
}

/** One import in a fresh process and a fresh directory: its wall time and peak memory, or why it failed. */
function importOnce(main: string, file: string, work: string): Sample {
	const out = join(work, "sessions");
	const peakFile = join(work, "peak");
	rmSync(out, { recursive: true, force: true });
	rmSync(peakFile, { force: true });
	const hook = join(work, "peak.mjs");
	if (!existsSync(hook)) writeFileSync(hook, exitHook(peakFile));
	const started = performance.now();
	const child = spawnSync(
		process.execPath,
		[`--import=${pathToFileURL(hook).href}`, main, "import", file, "--dir", out],
		{
			encoding: "utf8",
			maxBuffer: 16 * MiB,
			timeout: 20 * 60_000,
		},
	);
	const ms = performance.now() - started;
	if (child.status !== 0) {
		const why = child.signal ? `killed by ${child.signal}` : `exit code ${child.status}`;
		return { error: `${why}: ${(child.stderr ?? "").trim().split("\n")[0]?.slice(0, 200) ?? ""}` };
	}
	if (!existsSync(peakFile)) return { ms };
	const { maxRss, cpuMs } = JSON.parse(readFileSync(peakFile, "utf8")) as { maxRss: number; cpuMs: number };
	return { ms, maxRss, cpuMs };
}

/**
 * A module the child imports first (`--import`): when it exits, it writes its peak memory and
 * the CPU time of its main thread (Linux: /proc/self/task/PID/stat, in clock ticks of 10 ms;
 * elsewhere every thread's). The CPU time is the figure a loaded machine changes least: the
 * wall time of a process that gets a third of a core is three times its CPU time.
 */
function exitHook(file: string): string {
	return `import { readFileSync, writeFileSync } from "node:fs";
process.on("exit", () => {
	let cpuMs;
	try {
		const stat = readFileSync(\`/proc/self/task/\${process.pid}/stat\`, "utf8");
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
	} catch {
		const usage = process.cpuUsage();
		cpuMs = (usage.user + usage.system) / 1000;
	}
	writeFileSync(${JSON.stringify(file)}, JSON.stringify({ maxRss: process.resourceUsage().maxRSS * 1024, cpuMs }));
});
`;
}

/** Measures and prints the section; returns the figures. */
export async function runImport(options: ImportBenchOptions): Promise<ImportFigures[]> {
	const log = options.log ?? ((line: string) => console.log(line));
	const runs = Math.max(1, Math.min(options.runs, 5));
	const sizes = options.children ?? [25_000, 50_000, 100_000, 200_000];
	const main = process.env.SESSION_TREE_BIN ?? join(REPO_ROOT, "dist", "bin", "session-tree.js");
	const base = process.env.BENCH_BASE_BIN;
	log("");
	log(
		`== ChatGPT import: one node with many children, session-tree import FILE --dir DIR (${runs} run${runs > 1 ? "s" : ""}, median${base ? `; base ${base}, 1 run` : ""}) ==`,
	);
	if (!existsSync(main)) {
		log(`import: skipped (no CLI at ${main}: npm run build)`);
		return [];
	}
	const started = Date.now();
	const work = join(DATA_DIR, `.import-tmp-${process.pid}`);
	mkdirSync(work, { recursive: true });
	const figures: ImportFigures[] = [];
	try {
		for (const children of sizes) {
			const file = ensureWideFile(children, log);
			const figure: ImportFigures = { children, bytes: statSync(file).size, samples: [] };
			figures.push(figure);
			const rss: number[] = [];
			const cpu: number[] = [];
			for (let run = 0; run < runs; run++) {
				const sample = importOnce(main, file, work);
				if (sample.error !== undefined) {
					figure.error = sample.error;
					break;
				}
				if (sample.ms !== undefined) figure.samples.push(sample.ms);
				if (sample.maxRss !== undefined) rss.push(sample.maxRss);
				if (sample.cpuMs !== undefined) cpu.push(sample.cpuMs);
			}
			figure.ms = median(figure.samples);
			figure.maxRss = median(rss);
			figure.cpuMs = median(cpu);
			if (base !== undefined) {
				const sample = importOnce(base, file, work);
				figure.baseMs = sample.ms;
				figure.baseCpuMs = sample.cpuMs;
			}
			log(
				`${children.toLocaleString("en-US")} children: ${fmtMs(figure.ms)} (CPU ${fmtMs(figure.cpuMs)})${figure.baseMs !== undefined ? ` (base ${fmtMs(figure.baseMs)}, CPU ${fmtMs(figure.baseCpuMs)})` : ""}` +
					`${figure.error ? ` — fails: ${figure.error}` : ""} (${((Date.now() - started) / 1000).toFixed(0)} s so far, load ${loadavg()[0]?.toFixed(2)})`,
			);
		}
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
	log("");
	log(printTable(figures, base !== undefined));
	const last = figures[figures.length - 1];
	if (last?.ms !== undefined && last.cpuMs !== undefined && last.ms > 1.5 * last.cpuMs) {
		log(
			`(the wall time is ${(last.ms / last.cpuMs).toFixed(1)}× the CPU time: the machine is loaded; on a quiet one the wall time is about the CPU time)`,
		);
	}
	log(`\n(import: ${((Date.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg()[0]?.toFixed(2)})`);
	writeFileSync(
		options.json ?? join(DATA_DIR, "last-import-run.json"),
		`${JSON.stringify({ date: new Date().toISOString(), node: process.version, runs, base, figures }, null, "\t")}\n`,
	);
	if (figures.some((f) => f.error !== undefined)) process.exitCode = 1;
	return figures;
}

function printTable(figures: readonly ImportFigures[], withBase: boolean): string {
	const header = ["children", "file", "import (CLI)", "CPU (main thread)", "CPU × half as many", "peak RSS", "target"];
	if (withBase) header.push("base", "base CPU", "base / ours (CPU)");
	const ratio = (a: number | undefined, b: number | undefined) =>
		a !== undefined && b !== undefined && b > 0 ? `${(a / b).toFixed(a / b >= 10 ? 0 : 2)}×` : "—";
	const rows = figures.map((f) => {
		const half = figures.find((other) => other.children * 2 === f.children);
		const target = f.children === 200_000 && f.ms !== undefined ? `≤ 5 s ${f.ms <= TARGET_MS ? "met" : "MISSED"}` : "";
		const row = [
			f.children.toLocaleString("en-US"),
			`${(f.bytes / MiB).toFixed(1)} MiB`,
			f.error ? "fails" : fmtMs(f.ms),
			fmtMs(f.cpuMs),
			ratio(f.cpuMs, half?.cpuMs),
			f.maxRss === undefined ? "—" : `${(f.maxRss / MiB).toFixed(0)} MiB`,
			target,
		];
		if (withBase) row.push(fmtMs(f.baseMs), fmtMs(f.baseCpuMs), ratio(f.baseCpuMs, f.cpuMs));
		return row;
	});
	return markdownTable(header, rows);
}

/** `25k,200k` or `25000` as numbers of children. */
function parseChildren(text: string): number[] {
	return text
		.split(",")
		.filter(Boolean)
		.map((part) => {
			const match = /^(\d+)(k?)$/i.exec(part.trim());
			if (!match) throw new Error(`--children: ${part} is not a count (25k, 200000)`);
			return Number(match[1]) * (match[2] ? 1000 : 1);
		});
}

const arg = scriptArgs(import.meta.url);
if (arg) {
	const children = arg("--children");
	await runImport({
		runs: Number.parseInt(arg("--runs") ?? "3", 10),
		children: children === undefined ? undefined : parseChildren(children),
		json: arg("--json"),
	});
}
