/** Helpers of the CLI tests: spawning the built binary, fixtures and temp dirs. */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file runs from dist-test/test/cli/). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
/** The built executable that `npm test` builds before the tests (SESSION_TREE_BIN overrides it, for private builds). */
export const BIN = process.env.SESSION_TREE_BIN ?? join(REPO, "dist", "bin", "session-tree.js");
/** pi's golden fixtures. */
export const FIXTURES = process.env.SESSION_TREE_FIXTURES ?? resolve(REPO, "test/fixtures/pi-v3");

export interface CliResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

export interface CliOptions {
	/** Text written to stdin (stdin is closed either way). */
	input?: string;
	/** Extra environment variables. */
	env?: Record<string, string>;
	cwd?: string;
	/** Run in a session of its own, without a controlling terminal (no /dev/tty), as cron would. */
	noTerminal?: boolean;
}

/**
 * The environment for the binary, without the colour switches: `node --test` on a terminal sets
 * FORCE_COLOR for its children, which would colour the output the tests compare. A test that
 * wants colour passes them in `options.env`.
 */
function inheritedEnv(): NodeJS.ProcessEnv {
	const { FORCE_COLOR: _force, NO_COLOR: _no, ...rest } = process.env;
	return rest;
}

/** The binary's cache for this test process (made by the binary when it needs it, removed at exit). */
const CACHE = join(tmpdir(), `session-tree-cli-cache-${process.pid}`);
process.on("exit", () => rmSync(CACHE, { recursive: true, force: true }));

/**
 * Where the binary keeps its cache (the catalog index, docs/serve.md): {@link CACHE}, never the
 * developer's `~/.cache`, unless the test gives a HOME of its own (then that HOME's `.cache`,
 * as the binary would choose).
 */
function cacheEnv(env: Record<string, string> | undefined): Record<string, string> {
	return env?.HOME !== undefined ? {} : { XDG_CACHE_HOME: CACHE };
}

/** Runs `node dist/bin/session-tree.js ...args` (the bundled CLI, see scripts/bundle-cli.mjs). */
export function cli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
	return new Promise((done, fail) => {
		const child = spawn(process.execPath, [BIN, ...args], {
			cwd: options.cwd ?? REPO,
			env: { ...inheritedEnv(), ...cacheEnv(options.env), ...options.env },
			stdio: ["pipe", "pipe", "pipe"],
			// detached: the child calls setsid(), which leaves it without a controlling terminal.
			...(options.noTerminal ? { detached: true } : {}),
		});
		const out: Buffer[] = [];
		const err: Buffer[] = [];
		child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
		child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
		child.on("error", fail);
		child.on("close", (code) => {
			done({ code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") });
		});
		child.stdin.on("error", () => {
			// The command may exit before it reads all of stdin (a bad line stops it).
		});
		child.stdin.end(options.input ?? "");
	});
}

/** Runs a command that must succeed and parses its stdout as JSON. */
export async function cliJson<T = unknown>(args: readonly string[], options: CliOptions = {}): Promise<T> {
	const result = await cli(args, options);
	if (result.code !== 0) {
		throw new Error(`session-tree ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
	}
	return JSON.parse(result.stdout) as T;
}

/** A fixture's file name. */
export function fixture(name: string): string {
	return join(FIXTURES, `${name}.jsonl`);
}

/** A fixture's expected results, as pi computed them. */
export function expected(name: string): Record<string, unknown> {
	return JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), "utf8")) as Record<string, unknown>;
}

const temps: string[] = [];

/** A fresh temporary directory, removed by {@link removeTempDirs}. */
export function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "session-tree-cli-test-"));
	temps.push(dir);
	return dir;
}

/** Removes every directory {@link tempDir} made. */
export function removeTempDirs(): void {
	for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The lines of a text output, without the empty string after the final newline. */
export function lines(text: string): string[] {
	const all = text.split("\n");
	if (all[all.length - 1] === "") all.pop();
	return all;
}

/** A user message as one stdin line for `session-tree append`. */
export const userLine = (text: string, timestamp = 1748768400000) =>
	JSON.stringify({ role: "user", content: text, timestamp });

/** An assistant message, shaped as pi writes them, as one stdin line for `session-tree append`. */
export const assistantLine = (text: string, timestamp = 1748768401000) =>
	JSON.stringify({
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { total: 0 } },
		stopReason: "stop",
		timestamp,
	});
