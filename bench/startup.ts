/**
 * How fast the CLI starts: `session-tree --version` and `session-tree ctx FILE` against a bare
 * `node -e 0`, each spawned N times, the median wall time of each. Self-contained (it writes its
 * own small session file) so that `bench/run.ts` can call it and the file can also run alone:
 * `node bench/data/.build/bench/startup.js [--runs N] [--main dist/bin/session-tree.js]` prints the figures as JSON.
 *
 * The target of issue 9: both commands within 1.5× of `node -e 0`.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./shared.js";

/** Milliseconds per command. */
export interface StartupTimes {
	/** `node -e 0`: the floor. */
	node: number;
	/** `node dist/bin/session-tree.js --version`. */
	version: number;
	/** `node dist/bin/session-tree.js ctx FILE` on a session of a few messages. */
	ctx: number;
}

/** Median milliseconds from spawn to exit of each command, and what they cost in CPU. */
export interface StartupFigures extends StartupTimes {
	/**
	 * Mean CPU milliseconds (user + system) of each command, where the system says (Linux).
	 * Steadier than wall time on a busy machine, where waiting for a CPU swells the wall time.
	 */
	cpu?: StartupTimes;
}

/** What {@link measureStartup} may be told. */
export interface StartupOptions {
	/** Spawns per command (default 20). */
	runs?: number;
	/** The CLI's entry point (default: dist/bin/session-tree.js of this repository, the bundled CLI). */
	main?: string;
}

/** The repository root: the nearest directory above this file holding package.json and src/cli. */
function repoRoot(): string {
	let dir = dirname(fileURLToPath(import.meta.url));
	for (;;) {
		if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "src", "cli"))) return dir;
		const parent = dirname(dir);
		if (parent === dir) throw new Error("bench/startup: cannot find the repository root");
		dir = parent;
	}
}

/** A small pi v3 session: a header and a short exchange (what the model sees is what ctx prints). */
function writeSampleSession(dir: string): string {
	const file = join(dir, "startup.jsonl");
	const at = "2026-01-01T00:00:00.000Z";
	const message = (id: string, parentId: string | null, role: string, text: string, timestamp: number) => ({
		type: "message",
		id,
		parentId,
		timestamp: at,
		message: {
			role,
			content: [{ type: "text", text }],
			timestamp,
			...(role === "assistant" ? { api: "manual", provider: "bench", model: "bench", stopReason: "stop" } : {}),
		},
	});
	const lines = [
		{ type: "session", version: 3, id: "00000000-0000-7000-8000-000000000000", timestamp: at, cwd: "/tmp" },
		message("aaaaaaaa", null, "user", "hello", 1),
		message("bbbbbbbb", "aaaaaaaa", "assistant", "hi", 2),
		message("cccccccc", "bbbbbbbb", "user", "how fast do you start?", 3),
	];
	writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
	return file;
}

/** Milliseconds from spawning `node ...args` to its exit; rejects when it fails. */
function timeSpawn(args: readonly string[]): Promise<number> {
	return new Promise((resolve, reject) => {
		const started = performance.now();
		// Output is read and dropped: a pipe nobody drains could stall the child.
		const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env } });
		let stderr = "";
		child.stdout.resume();
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		child.on("error", reject);
		child.on("close", (code) => {
			const ms = performance.now() - started;
			if (code === 0) resolve(ms);
			else reject(new Error(`node ${args.join(" ")} exited with ${code}: ${stderr.trim()}`));
		});
	});
}

/**
 * CPU milliseconds used so far by this process's finished children (Linux: `cutime + cstime` of
 * /proc/self/stat, in clock ticks of 10 ms), or undefined where there is no such file.
 */
function childrenCpuMs(): number | undefined {
	let stat: string;
	try {
		stat = readFileSync("/proc/self/stat", "utf8");
	} catch {
		return undefined;
	}
	// The fields after the command name (which may hold spaces, in parentheses): state is field 3.
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	const ticks = Number(fields[16 - 3]) + Number(fields[17 - 3]);
	// USER_HZ is 100 on Linux whatever the kernel's own tick rate.
	return Number.isFinite(ticks) ? ticks * 10 : undefined;
}

/**
 * Spawns `node -e 0`, the CLI's `--version` and its `ctx FILE` `runs` times each and returns the
 * median milliseconds of each (and, on Linux, their mean CPU time). The three take turns (rather than one batch after the other) so
 * that a change in the machine's load during the run weighs on all of them alike; two warm-up
 * rounds first fill the file system cache.
 * @throws Error when dist/bin/session-tree.js is missing (run `npm run build`) or a command fails
 */
export async function measureStartup(options: StartupOptions = {}): Promise<StartupFigures> {
	const runs = Math.max(1, options.runs ?? 20);
	const main = options.main ?? join(repoRoot(), "dist", "bin", "session-tree.js");
	if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
	const dir = mkdtempSync(join(tmpdir(), "session-tree-startup-"));
	try {
		const file = writeSampleSession(dir);
		const commands: Record<keyof StartupTimes, string[]> = {
			node: ["-e", "0"],
			version: [main, "--version"],
			ctx: [main, "ctx", file],
		};
		const names = Object.keys(commands) as Array<keyof StartupTimes>;
		const times: Record<keyof StartupTimes, number[]> = { node: [], version: [], ctx: [] };
		// Each child's CPU time: the ticks are coarse, but their sum over the runs is not.
		const cpu: StartupTimes = { node: 0, version: 0, ctx: 0 };
		let cpuKnown = childrenCpuMs() !== undefined;
		for (let round = -2; round < runs; round++) {
			for (const name of names) {
				const before = childrenCpuMs();
				const ms = await timeSpawn(commands[name]);
				const after = childrenCpuMs();
				if (round < 0) continue;
				times[name].push(ms);
				if (before === undefined || after === undefined) cpuKnown = false;
				else cpu[name] += (after - before) / runs;
			}
		}
		const figures: StartupFigures = {
			node: median(times.node) ?? Number.NaN,
			version: median(times.version) ?? Number.NaN,
			ctx: median(times.ctx) ?? Number.NaN,
		};
		if (cpuKnown) figures.cpu = cpu;
		return figures;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

// Run alone: print the figures and the ratios as one line of JSON.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
	const flag = (name: string) => {
		const at = process.argv.indexOf(name);
		return at === -1 ? undefined : process.argv[at + 1];
	};
	const runs = Number.parseInt(flag("--runs") ?? "", 10);
	const main = flag("--main");
	const figures = await measureStartup({
		...(Number.isNaN(runs) ? {} : { runs }),
		...(main === undefined ? {} : { main }),
	});
	const round = (n: number) => Math.round(n * 100) / 100;
	const ratios = (of: StartupTimes) => ({ version: round(of.version / of.node), ctx: round(of.ctx / of.node) });
	console.log(
		JSON.stringify({
			...figures,
			ratios: ratios(figures),
			...(figures.cpu ? { cpuRatios: ratios(figures.cpu) } : {}),
		}),
	);
}
