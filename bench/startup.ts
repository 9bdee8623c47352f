/**
 * How fast the CLI starts: `session-tree --version` and `session-tree ctx FILE` against a bare
 * `node -e 0`, each spawned N times, the median wall time of each. Self-contained (it writes its
 * own small session file) so that `bench/run.ts` can call it and the file can also run alone:
 * `node bench/data/.build/bench/startup.js [--runs N]` prints the figures as JSON.
 *
 * The target of issue 9: both commands within 1.5× of `node -e 0`.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Median milliseconds from spawn to exit of each command. */
export interface StartupFigures {
	/** `node -e 0`: the floor. */
	node: number;
	/** `node dist/cli/main.js --version`. */
	version: number;
	/** `node dist/cli/main.js ctx FILE` on a session of a few messages. */
	ctx: number;
}

/** What {@link measureStartup} may be told. */
export interface StartupOptions {
	/** Spawns per command (default 20). */
	runs?: number;
	/** The CLI's entry point (default: dist/cli/main.js of this repository). */
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

function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1
		? (sorted[middle] as number)
		: ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Spawns `node -e 0`, the CLI's `--version` and its `ctx FILE` `runs` times each and returns the
 * median milliseconds of each. The three take turns (rather than one batch after the other) so
 * that a change in the machine's load during the run weighs on all of them alike; two warm-up
 * rounds first fill the file system cache.
 * @throws Error when dist/cli/main.js is missing (run `npm run build`) or a command fails
 */
export async function measureStartup(options: StartupOptions = {}): Promise<StartupFigures> {
	const runs = Math.max(1, options.runs ?? 20);
	const main = options.main ?? join(repoRoot(), "dist", "cli", "main.js");
	if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
	const dir = mkdtempSync(join(tmpdir(), "session-tree-startup-"));
	try {
		const file = writeSampleSession(dir);
		const commands: Record<keyof StartupFigures, string[]> = {
			node: ["-e", "0"],
			version: [main, "--version"],
			ctx: [main, "ctx", file],
		};
		const names = Object.keys(commands) as Array<keyof StartupFigures>;
		const times: Record<keyof StartupFigures, number[]> = { node: [], version: [], ctx: [] };
		for (let round = -2; round < runs; round++) {
			for (const name of names) {
				const ms = await timeSpawn(commands[name]);
				if (round >= 0) times[name].push(ms);
			}
		}
		return { node: median(times.node), version: median(times.version), ctx: median(times.ctx) };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

// Run alone: print the figures and the ratios as one line of JSON.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
	const at = process.argv.indexOf("--runs");
	const runs = at === -1 ? undefined : Number.parseInt(process.argv[at + 1] ?? "", 10);
	const figures = await measureStartup(runs === undefined || Number.isNaN(runs) ? {} : { runs });
	const round = (n: number) => Math.round(n * 100) / 100;
	console.log(
		JSON.stringify({
			...figures,
			versionRatio: round(figures.version / figures.node),
			ctxRatio: round(figures.ctx / figures.node),
		}),
	);
}
