/**
 * The `tree` section of `npm run bench` (issue 28): `session-tree tree` of s100k as a whole
 * process (wall time, CPU time, peak RSS; the output to a scratch file), `tree --depth 3`,
 * `tree --filter default` (pi's filter, decided from the bytes of each message), `tree --from ID`
 * of an entry deep on the active path (alone and with `--depth 3`), the open
 * alone as their floor (`info FILE`, which opens the file as `tree` does and prints 8 lines),
 * `getTree` ours against pi's SessionManager (fresh child processes, alternating), and the
 * floor of any view that needs every body: reading the file and `JSON.parse` of every line.
 *
 * With `--base PATH` (another build's CLI, e.g. the previous commit's `dist/bin/session-tree.js`)
 * every command runs for it too, interleaved with ours, and its output must be byte for byte
 * ours: a difference fails the section (and `npm run bench`).
 *
 * Also runs alone (after `npm run bench` compiled it, or `tsc -p bench/tsconfig.json`):
 * `node bench/data/.build/bench/tree-view.js [--runs N] [--base PATH] [--size 100k] [--json FILE]`.
 */

import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Session } from "../src/index.js";
import type { Measurement, Task } from "./child.js";
import { DATA_DIR, ensureFile, filesForSize, REPO_ROOT } from "./generate.js";
import { fmtMiB, fmtMs, markdownTable, median, scriptArgs } from "./shared.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const PROBE = join(HERE, "rss-probe.js");
const CHILD = join(HERE, "child.js");
/** Whole-process `tree` of s100k, at most (issue 28). */
const TREE_TARGET_MS = 1500;
/** getTree, pi / ours, at least (issue 28). */
const GET_TREE_TARGET = 3;

/** Options of {@link runTreeView}. */
export interface TreeViewOptions {
	runs: number;
	/** Which generated file (default 100k: s100k). */
	size?: string;
	/** Another build's CLI to run beside ours (its output must equal ours). */
	base?: string;
	/** pi's session-manager module (a file: URL); resolved from the repository when not given. */
	piModule?: string;
	log?: (line: string) => void;
	/** Where to write the raw figures. Default bench/data/last-tree-run.json. */
	json?: string;
}

/** One run of one command. */
interface Sample {
	wallMs?: number;
	cpuMs?: number;
	maxRss?: number;
	/** Bytes written to stdout. */
	bytes?: number;
	/** Lines written to stdout. */
	lines?: number;
	/** The output itself, kept for the first run (to compare builds). */
	output?: Buffer;
	error?: string;
}

/** One run of `main` (a CLI) with `args`, stdout to a scratch file. */
function runCli(main: string, args: readonly string[], keep: boolean): Sample {
	const scratch = mkdtempSync(join(tmpdir(), "bench-tree-"));
	const figures = join(scratch, "rss.json");
	const outFile = join(scratch, "out.txt");
	const fd = openSync(outFile, "w");
	try {
		const started = performance.now();
		const child = spawnSync(process.execPath, ["--import", pathToFileURL(PROBE).href, main, ...args], {
			stdio: ["ignore", fd, "pipe"],
			env: { ...process.env, BENCH_RSS_FILE: figures, NO_COLOR: "1" },
			encoding: "utf8",
			timeout: 10 * 60_000,
		});
		const wallMs = performance.now() - started;
		closeSync(fd);
		if (child.status !== 0) {
			const why = child.signal ? `killed by ${child.signal}` : `exit code ${child.status}`;
			return { error: `${why}: ${(child.stderr ?? "").trim().split("\n")[0]?.slice(0, 200) ?? ""}` };
		}
		const { maxRss, cpuMs } = JSON.parse(readFileSync(figures, "utf8")) as { maxRss: number; cpuMs: number };
		const output = readFileSync(outFile);
		let lines = 0;
		for (let at = output.indexOf(10); at !== -1; at = output.indexOf(10, at + 1)) lines++;
		return { wallMs, cpuMs, maxRss, bytes: output.length, lines, ...(keep ? { output } : {}) };
	} catch (error) {
		return { error: error instanceof Error ? error.message : String(error) };
	} finally {
		rmSync(scratch, { recursive: true, force: true });
	}
}

/** pi's session-manager module, resolved from the repository (as bench/run.ts does, without installing). */
function resolvePi(): string | undefined {
	const probe = spawnSync(
		process.execPath,
		[
			"--input-type=module",
			"-e",
			`process.stdout.write(import.meta.resolve(${JSON.stringify("@mariozechner/pi-coding-agent")}))`,
		],
		{ cwd: REPO_ROOT, encoding: "utf8" },
	);
	if (probe.status !== 0 || !probe.stdout) return undefined;
	return new URL("./core/session-manager.js", probe.stdout).href;
}

function runChild(task: Task): Measurement {
	const child = spawnSync(process.execPath, [CHILD, JSON.stringify(task)], { encoding: "utf8", timeout: 10 * 60_000 });
	const line = child.stdout?.trim().split("\n").pop();
	try {
		if (line) return JSON.parse(line) as Measurement;
	} catch {
		// below
	}
	return { error: `exit code ${child.status}`, maxRss: 0, baseRss: 0 };
}

function ratio(a: number | undefined, b: number | undefined): string {
	if (a === undefined || b === undefined || b <= 0) return "—";
	const r = a / b;
	return `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`;
}

/** Measures and prints the section; returns false when an output differs from the base's or a command fails. */
export async function runTreeView(options: TreeViewOptions): Promise<boolean> {
	const log = options.log ?? ((line: string) => console.log(line));
	const runs = Math.max(1, options.runs);
	const size = options.size ?? "100k";
	const bench = filesForSize(size).find((candidate) => candidate.options.retainedTail !== true);
	if (!bench) throw new Error(`no generated file of size ${size}`);
	const { file } = ensureFile(bench, log);
	const ours = join(REPO_ROOT, "dist", "bin", "session-tree.js");
	const base = options.base === undefined ? undefined : resolve(options.base);

	// An entry deep in the tree: on the active path, 40 entries above the leaf.
	const session = await Session.open(file, { load: "all" });
	const index = session.getTreeIndex();
	let deep = session.getLeafId() as string;
	for (let up = 0; up < 40; up++) deep = index.getParentId(deep) ?? deep;
	await session.close();

	log("");
	log(
		`tree of ${bench.name} (${file}): runs ${runs} (median), load ${loadavg()[0]?.toFixed(2)}` +
			`${base ? `; base: ${base}` : ""}; --from ${deep} (40 entries above the leaf)`,
	);
	const commands: ReadonlyArray<{ name: string; args: string[] }> = [
		{ name: "tree FILE", args: ["tree", file] },
		// pi's default filter: the bytes of every message decide whether it is shown (shown-bytes.ts).
		{ name: "tree FILE --filter default", args: ["tree", file, "--filter", "default"] },
		{ name: "tree FILE --depth 3", args: ["tree", file, "--depth", "3"] },
		{ name: `tree FILE --from ${deep}`, args: ["tree", file, "--from", deep] },
		{ name: `tree FILE --from ${deep} --depth 3`, args: ["tree", file, "--from", deep, "--depth", "3"] },
		{ name: "info FILE (the open: the floor)", args: ["info", file] },
	];
	const header = ["command", "lines", "wall", "CPU", "peak RSS", "target"];
	if (base) header.push("base wall", "base CPU", "base peak RSS", "CPU base / ours", "output");
	const rows: string[][] = [header];
	const raw: Record<string, { ours: Sample[]; base?: Sample[] }> = {};
	let ok = true;
	for (const command of commands) {
		const mine: Sample[] = [];
		const theirs: Sample[] = [];
		for (let run = 0; run < runs; run++) {
			// Interleaved, so that a change of load hits both; the first run of each keeps its output.
			if (base) theirs.push(runCli(base, command.args, run === 0));
			mine.push(runCli(ours, command.args, run === 0));
		}
		const pick = (samples: Sample[], key: "wallMs" | "cpuMs" | "maxRss") =>
			median(samples.map((s) => s[key]).filter((v): v is number => v !== undefined));
		const failed = mine.find((s) => s.error)?.error;
		if (failed) {
			ok = false;
			log(`  ${command.name}: ours fails: ${failed}`);
		}
		const wall = pick(mine, "wallMs");
		let target = "";
		if (command.args.length === 2 && command.args[0] === "tree") {
			const met = wall !== undefined && wall <= TREE_TARGET_MS;
			target = `≤ ${fmtMs(TREE_TARGET_MS)} ${met ? "met" : "MISSED"}`;
		}
		const row = [
			command.name,
			String(mine[0]?.lines ?? "—"),
			fmtMs(wall),
			fmtMs(pick(mine, "cpuMs")),
			fmtMiB(pick(mine, "maxRss")),
			target,
		];
		if (base) {
			const theirFailed = theirs.find((s) => s.error)?.error;
			if (theirFailed) log(`  ${command.name}: base fails: ${theirFailed}`);
			const a = mine[0]?.output;
			const b = theirs[0]?.output;
			const same = a !== undefined && b !== undefined && a.equals(b);
			if (!same) {
				ok = false;
				log(`  ${command.name}: **OUTPUT DIFFERS** from the base's (${a?.length ?? "-"} vs ${b?.length ?? "-"} bytes)`);
			}
			row.push(
				fmtMs(pick(theirs, "wallMs")),
				fmtMs(pick(theirs, "cpuMs")),
				fmtMiB(pick(theirs, "maxRss")),
				ratio(pick(theirs, "cpuMs"), pick(mine, "cpuMs")),
				same ? "identical" : "**DIFFERS**",
			);
		}
		rows.push(row);
		const strip = (samples: Sample[]) => samples.map(({ output: _, ...rest }) => rest);
		raw[command.name] = base ? { ours: strip(mine), base: strip(theirs) } : { ours: strip(mine) };
	}
	log("");
	log(markdownTable(rows[0] ?? [], rows.slice(1)));

	// getTree, ours against pi, each in a fresh process after an open (not timed), alternating.
	const piModule = options.piModule ?? resolvePi();
	const sides = piModule ? (["pi", "ours"] as const) : (["ours"] as const);
	const times: Record<string, number[]> = { pi: [], ours: [] };
	for (let run = 0; run < runs; run++) {
		for (const side of sides) {
			const m = runChild({ side, op: "tree", file, ...(piModule ? { piModule } : {}) });
			if (m.ms !== undefined && !m.error) times[side]?.push(m.ms);
			else if (side === "ours") ok = false;
		}
	}
	const pi = median(times.pi ?? []);
	const mineTree = median(times.ours ?? []);
	const r = pi !== undefined && mineTree !== undefined ? pi / mineTree : undefined;
	log("");
	log(
		`getTree on ${bench.name} (median of ${runs}): pi ${fmtMs(pi)}, ours ${fmtMs(mineTree)}, pi / ours ${ratio(pi, mineTree)}` +
			(r === undefined ? "" : ` (≥ ${GET_TREE_TARGET}× ${r >= GET_TREE_TARGET ? "met" : "MISSED"})`) +
			`; samples pi ${(times.pi ?? []).map((v) => v.toFixed(0)).join(" ")}, ours ${(times.ours ?? []).map((v) => v.toFixed(0)).join(" ")}`,
	);
	// What ours' getTree cannot go below while its nodes have their shape (an own lazy `entry`
	// each, which spread and deep comparisons see as pi's data property): the nodes alone,
	// made warm in a fresh process. pi / this is the most getTree can reach on this machine.
	const nodeFloor: number[] = [];
	for (let run = 0; run < runs; run++) {
		const m = runChild({ side: "floor", op: "view-nodes", file });
		if (m.ms !== undefined && !m.error) nodeFloor.push(m.ms);
	}
	const nodesMs = median(nodeFloor);
	log(
		`floor of getTree: one view node per entry alone (own lazy entry, empty children, no links, warm), median of ${runs}: ${fmtMs(nodesMs)}; pi / that ${ratio(pi, nodesMs)}`,
	);
	// What any view that needs every body pays: read the file and JSON.parse every line (wall
	// and CPU time of the whole process, as for the commands above).
	const floor: Sample[] = [];
	const task: Task = { side: "floor", op: "parse", file };
	for (let run = 0; run < Math.min(3, runs); run++) floor.push(runCli(CHILD, [JSON.stringify(task)], false));
	const floorPick = (key: "wallMs" | "cpuMs") =>
		median(floor.map((f) => f[key]).filter((v): v is number => v !== undefined));
	log(
		`floor: read + JSON.parse of every line (no tree, no output), whole process: wall ${fmtMs(floorPick("wallMs"))}, CPU ${fmtMs(floorPick("cpuMs"))}`,
	);
	log(`(load average now ${loadavg()[0]?.toFixed(2)})`);
	const jsonFile = options.json ?? join(DATA_DIR, "last-tree-run.json");
	writeFileSync(
		jsonFile,
		`${JSON.stringify({ date: new Date().toISOString(), node: process.version, file, base, deep, raw, getTree: times, nodeFloor, floor }, null, "\t")}\n`,
	);
	return ok;
}

const arg = scriptArgs(import.meta.url);
if (arg) {
	const ok = await runTreeView({
		runs: Number(arg("--runs") ?? 3),
		...(arg("--size") !== undefined ? { size: arg("--size") as string } : {}),
		...(arg("--base") !== undefined ? { base: arg("--base") as string } : {}),
		...(arg("--json") !== undefined ? { json: arg("--json") as string } : {}),
	});
	if (!ok) process.exitCode = 1;
}
