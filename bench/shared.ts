/**
 * What the benchmark's parts share: medians, the formats of the tables, peak memory, and the
 * messages the append measurements write (the same for every side and store).
 */

import { spawnSync } from "node:child_process";
import { closeSync, openSync, readSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { AgentMessage } from "../src/index.js";
import { dataPath, Rng } from "./generate.js";

/** The median, or undefined for no values. */
export function median(values: readonly number[]): number | undefined {
	if (values.length === 0) return undefined;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1
		? (sorted[mid] as number)
		: ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The p-th percentile (nearest rank), or undefined for no values. */
export function percentile(values: readonly number[], p: number): number | undefined {
	if (values.length === 0) return undefined;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Runs `run` and says how long it took, milliseconds. */
export async function timed<T>(run: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
	const started = performance.now();
	const value = await run();
	return { ms: performance.now() - started, value };
}

/** Milliseconds for a table: 12.3 s, 456 ms, 7.8 ms, 0.123 ms. */
export function fmtMs(ms: number | undefined): string {
	if (ms === undefined) return "—";
	if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
	if (ms >= 100) return `${ms.toFixed(0)} ms`;
	if (ms >= 1) return `${ms.toFixed(1)} ms`;
	return `${ms.toFixed(3)} ms`;
}

/** Bytes as MiB for a table. */
export function fmtMiB(bytes: number | undefined): string {
	return bytes === undefined ? "—" : `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

/** Peak resident set size of this process, bytes. */
export function maxRss(): number {
	return process.resourceUsage().maxRSS * 1024;
}

/** Messages to append: alternating user and assistant, ~1 KB each, seeded (the same for every side). */
export function messagesToAppend(count: number): AgentMessage[] {
	const rng = new Rng(4242);
	const words = "append entry line file session tree branch leaf message json node fast bench".split(" ");
	const sentence = (n: number) => Array.from({ length: n }, () => rng.pick(words)).join(" ");
	const out: AgentMessage[] = [];
	for (let i = 0; i < count; i++) {
		const timestamp = 1_750_000_000_000 + i * 1000;
		if (i % 2 === 0) {
			out.push({ role: "user", content: [{ type: "text", text: sentence(120) }], timestamp });
		} else {
			out.push({
				role: "assistant",
				content: [{ type: "text", text: sentence(120) }],
				api: "anthropic-messages",
				provider: "anthropic",
				model: "claude-sonnet-4-5",
				usage: {
					input: 1000,
					output: 200,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 1200,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				},
				stopReason: "stop",
				timestamp,
			});
		}
	}
	return out;
}

/** A Markdown table whose columns are padded to their widest cell (widths counted in code points). */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
	const all = [header, ...rows];
	const widths = header.map((_, i) => Math.max(...all.map((row) => [...(row[i] ?? "")].length)));
	const line = (row: readonly string[]) =>
		`| ${widths.map((width, i) => (row[i] ?? "") + " ".repeat(width - [...(row[i] ?? "")].length)).join(" | ")} |`;
	return [line(header), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...rows.map(line)].join("\n");
}

/**
 * When the module at `moduleUrl` is the script node runs (a section run alone, e.g. `node
 * bench/data/.build/bench/html.js --runs 3`): its `--name value` arguments, read by name;
 * undefined when it is imported (by bench/run.ts).
 */
export function scriptArgs(moduleUrl: string): ((name: string) => string | undefined) | undefined {
	const script = process.argv[1];
	if (!script || moduleUrl !== pathToFileURL(resolve(script)).href) return undefined;
	const argv = process.argv.slice(2);
	return (name) => {
		const at = argv.indexOf(name);
		return at >= 0 ? argv[at + 1] : undefined;
	};
}

/**
 * The options of a floor script (html-floor.ts, tree-floor.ts): `--file` (a bench file's name,
 * or a path), `--runs`, `--dist` (the build whose CLI is measured) and `--child` (the mode a
 * child process runs).
 */
export function floorOptions(): { file: string; runs: number; dist: string; child: string | undefined } {
	const { values } = parseArgs({
		options: {
			file: { type: "string", default: "s100k" },
			runs: { type: "string", default: "5" },
			dist: { type: "string", default: "dist" },
			child: { type: "string" },
		},
	});
	return {
		file: values.file.includes("/") ? resolve(values.file) : dataPath(values.file),
		runs: Math.max(1, Number.parseInt(values.runs, 10) || 1),
		dist: resolve(values.dist),
		child: values.child,
	};
}

/** Reads a whole file in pieces of `piece` bytes into one buffer, keeping nothing: a floor script's `read` mode. */
export function readOnly(file: string, piece = 1 << 20): void {
	const fd = openSync(file, "r");
	try {
		const buffer = Buffer.allocUnsafe(piece);
		while (readSync(fd, buffer, 0, piece, null) > 0) {}
	} finally {
		closeSync(fd);
	}
}

/**
 * Runs each step as a whole Node process (its output discarded) `runs` times, the steps taking
 * turns run by run so that the machine's load hits all of them, then prints each one's median
 * and range under `title`.
 */
export function timeSteps(title: string, steps: ReadonlyArray<{ name: string; args: string[] }>, runs: number): void {
	const samples = new Map<string, number[]>(steps.map((step) => [step.name, []]));
	for (let run = 0; run < runs; run++) {
		for (const step of steps) {
			const begin = performance.now();
			const child = spawnSync(process.execPath, step.args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
			const ms = performance.now() - begin;
			if (child.status !== 0) throw new Error(`${step.name}: ${child.stderr}`);
			samples.get(step.name)?.push(ms);
		}
	}
	console.log(`${title}, whole processes, median of ${runs} (min–max):`);
	const width = Math.max(...steps.map((step) => step.name.length)) + 1;
	for (const [name, list] of samples) {
		const sorted = [...list].sort((a, b) => a - b);
		console.log(
			`  ${name.padEnd(width)} ${(median(list) ?? 0).toFixed(0).padStart(6)} ms  (${sorted[0]?.toFixed(0)}–${sorted.at(-1)?.toFixed(0)})`,
		);
	}
}
