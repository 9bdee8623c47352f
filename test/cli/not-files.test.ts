/**
 * Files that are not files (docs/durability.md, "Files that are not files"): a FIFO given as
 * FILE once blocked every command forever (its open waits for a writer), and /dev/zero and
 * /dev/urandom were read without end. Each command that takes a FILE now refuses them at once:
 * exit 1, one line naming the file and what it is. A listing of a directory skips them.
 */

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { BIN, REPO } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "st-not-files-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, "pipe.jsonl");
const fifoLink = join(dir, "link-to-pipe.jsonl");
const sessions = join(dir, "sessions");
const out = join(dir, "out");
let realSession = "";

before(async () => {
	const made = spawnSync("mkfifo", [fifo, join(dir, "inner-pipe.jsonl")]);
	assert.equal(made.status, 0, `mkfifo: ${made.stderr}`);
	symlinkSync(fifo, fifoLink);
	// A directory of sessions with a FIFO among them, and a link to it.
	mkdirSync(sessions);
	const session = await Session.create({ dir: sessions, cwd: "/not-files" });
	await session.appendMessage({ role: "user", content: "a needle in the haystack", timestamp: 1 });
	await session.close();
	realSession = session.file as string;
	spawnSync("mkfifo", [join(sessions, "2026-01-01T00-00-00-000Z_pipe.jsonl")]);
	symlinkSync(fifo, join(sessions, "2026-01-01T00-00-00-000Z_link.jsonl"));
});

interface Outcome {
	code: number | null;
	stdout: string;
	stderr: string;
	/** True when the command had not ended by itself within the limit and was killed. */
	blocked: boolean;
}

/** Far longer than any command needs; a command that blocks on a FIFO never ends by itself. */
const LIMIT_MS = 20_000;

/** Runs the CLI; a command still running after {@link LIMIT_MS} is killed and reported as blocked. */
function run(args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
	return runNode([BIN, ...args], env);
}

/** Runs node with `args` (see {@link run}). */
function runNode(args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, args, {
			cwd: REPO,
			// The binary's cache (the catalog index) in this test's directory, not the developer's.
			env: { ...process.env, XDG_CACHE_HOME: join(dir, "cache"), ...env },
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		let blocked = false;
		const timer = setTimeout(() => {
			blocked = true;
			child.kill("SIGKILL");
		}, LIMIT_MS);
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr, blocked });
		});
		child.stdin.on("error", () => {});
		child.stdin.end(`${JSON.stringify({ role: "user", content: "hi" })}\n`);
	});
}

/** Runs `jobs` at most `width` at a time (the machine's cores are few). */
async function inBatches<T>(jobs: ReadonlyArray<() => Promise<T>>, width = 4): Promise<T[]> {
	const results: T[] = [];
	for (let i = 0; i < jobs.length; i += width) {
		results.push(...(await Promise.all(jobs.slice(i, i + width).map((job) => job()))));
	}
	return results;
}

/** Every command that takes a FILE, with `F` where the file goes. */
const COMMANDS: ReadonlyArray<readonly string[]> = [
	["tree", "F"],
	["ctx", "F"],
	["leaves", "F"],
	["info", "F"],
	["path", "F"],
	["validate", "F"],
	["repair", "F"],
	["migrate", "F"],
	["md", "F"],
	["html", "F", "-o", join(out, "page.html")],
	["html", "F", "-o", "-"],
	["append", "F"],
	["branch", "F", "abcd1234"],
	["label", "F", "abcd1234", "x"],
	["name", "F", "x"],
	["nav", "F", "abcd1234"],
	["fork", "F", "abcd1234"],
	["clone", "F"],
	["export", "F", "--to", "chatgpt"],
	["import", "F", "--dir", out],
	["copy", "F", out],
];

function assertRefused(outcome: Outcome, args: readonly string[], what: RegExp): void {
	const shown = `session-tree ${args.join(" ")}`;
	assert.equal(outcome.blocked, false, `${shown} blocked (killed after ${LIMIT_MS / 1000} s)`);
	assert.equal(outcome.code, 1, `${shown} exits 1: ${outcome.stderr}`);
	assert.match(outcome.stderr, what, `${shown} says what the file is`);
	assert.doesNotMatch(outcome.stderr, /\n\s+at /, `${shown}: no stack trace`);
}

describe("files that are not files", () => {
	test("a FIFO given as FILE: every command refuses it at once, exit 1, naming it", async () => {
		const jobs = COMMANDS.map((command) => {
			const args = command.map((arg) => (arg === "F" ? fifo : arg));
			return async () => ({ args, outcome: await run(args) });
		});
		for (const { args, outcome } of await inBatches(jobs)) {
			assertRefused(outcome, args, /pipe\.jsonl: is a FIFO \(named pipe\), not a regular file/);
		}
	});

	test("a link to a FIFO is refused alike", async () => {
		const cases = [
			["tree", fifoLink],
			["validate", fifoLink],
		];
		const outcomes = await inBatches(cases.map((args) => () => run(args)));
		outcomes.forEach((outcome, i) => {
			assertRefused(outcome, cases[i] as string[], /is a FIFO \(named pipe\), not a regular file/);
		});
	});

	test("a FIFO in a SQLite location is refused alike", { skip: SQLITE_SKIP }, async () => {
		const cases = [
			["ls", `sqlite:${fifo}`],
			["tree", `sqlite:${fifo}#x`],
		];
		const outcomes = await inBatches(cases.map((args) => () => run(args)));
		outcomes.forEach((outcome, i) => {
			assertRefused(outcome, cases[i] as string[], /is a FIFO \(named pipe\), not a regular file/);
		});
	});

	test("/dev/zero and /dev/urandom are refused, not read without end", async () => {
		const cases = [
			["tree", "/dev/zero"],
			["ctx", "/dev/urandom"],
			["validate", "/dev/zero"],
			["md", "/dev/urandom"],
			["import", "/dev/urandom", "--dir", out],
			["append", "/dev/zero"],
		];
		const outcomes = await inBatches(cases.map((args) => () => run(args)));
		outcomes.forEach((outcome, i) => {
			assertRefused(outcome, cases[i] as string[], /\/dev\/(zero|urandom): is a character device, not a regular file/);
		});
	});

	test("a listing of a directory skips FIFOs (and links to them) silently", async () => {
		const [ls, search, copy] = await inBatches([
			() => run(["ls", sessions, "--json"]),
			() => run(["search", "needle", sessions, "--json"]),
			() => run(["copy", sessions, join(out, "copied")]),
		]);
		for (const outcome of [ls, search, copy] as Outcome[]) {
			assert.equal(outcome.blocked, false);
			assert.equal(outcome.code, 0, outcome.stderr);
			assert.doesNotMatch(outcome.stdout + outcome.stderr, /_pipe\.jsonl|_link\.jsonl/);
		}
		const listed = JSON.parse(ls?.stdout ?? "") as Array<{ file?: string; location?: string }>;
		assert.deepEqual(
			listed.map((item) => item.file ?? item.location),
			[realSession],
		);
		assert.match(search?.stdout ?? "", /needle/);
		// The agents' directories: a FIFO where a Claude Code transcript would be.
		const home = join(dir, "home");
		mkdirSync(join(home, ".claude", "projects", "p"), { recursive: true });
		spawnSync("mkfifo", [join(home, ".claude", "projects", "p", "pipe.jsonl")]);
		const agents = await run(["ls", "--agents"], { HOME: home, PI_CODING_AGENT_DIR: join(home, "pi") });
		assert.equal(agents.blocked, false);
		assert.doesNotMatch(agents.stdout + agents.stderr, /pipe\.jsonl/);
		const imported = await run(["import", dir, "--dir", join(out, "imported")]);
		assert.equal(imported.blocked, false);
		assert.doesNotMatch(imported.stderr, /pipe\.jsonl/);
	});

	test("the library: Session.open refuses a FIFO and a device with INVALID_ARGUMENT", async () => {
		// In a process of its own: before the fix the open blocked the whole process, test runner included.
		const library = join(REPO, "dist-test", "src", "index.js");
		const script = `import { Session } from ${JSON.stringify(library)};
for (const path of JSON.parse(process.argv[1])) {
	try { await Session.open(path); console.log("opened"); }
	catch (error) { console.log(JSON.stringify({ code: error.code, file: error.file, message: error.message })); }
}`;
		const paths = [fifo, fifoLink, "/dev/zero"];
		const outcome = await runNode(["--input-type=module", "-e", script, JSON.stringify(paths)]);
		assert.equal(outcome.blocked, false, "Session.open blocked");
		const errors = outcome.stdout
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line));
		assert.equal(errors.length, paths.length, outcome.stderr);
		errors.forEach((error, i) => {
			assert.equal(error.code, "INVALID_ARGUMENT");
			assert.equal(error.file, paths[i]);
			assert.match(error.message, /not a regular file/);
		});
	});
});
