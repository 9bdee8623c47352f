/**
 * Output that cannot be written (docs/durability.md, "Output that cannot be written"): standard
 * output on a full device (`> /dev/full`) once ended every command in an uncaught ENOSPC with a
 * stack trace. It is now one line on stderr and exit 1. A pipe closed early (`| head -1`) stays
 * quiet: exit 0, nothing on stderr.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Session } from "../../src/index.js";
import { BIN, REPO } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "st-full-device-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const sessions = join(dir, "sessions");
let file = "";

before(async () => {
	// Output well beyond a pipe's 64 KiB buffer, so that a reader who stops early breaks the pipe.
	const session = await Session.create({ dir: sessions, cwd: "/full-device" });
	for (let i = 0; i < 300; i++) {
		await session.appendMessage({ role: "user", content: `question ${i} ${"text ".repeat(100)}`, timestamp: i });
	}
	await session.close();
	file = session.file as string;
});

interface Outcome {
	code: number | null;
	stderr: string;
}

/** Runs the CLI with standard output on /dev/full. */
function toFullDevice(args: readonly string[], input = ""): Promise<Outcome> {
	const full = openSync("/dev/full", "w");
	try {
		const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ["pipe", full, "pipe"] });
		return collect(child, input);
	} finally {
		closeSync(full); // the child has its own copy
	}
}

function collect(child: ReturnType<typeof spawn>, input: string): Promise<Outcome> {
	return new Promise((resolve, reject) => {
		let stderr = "";
		child.stderr?.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, stderr }));
		child.stdin?.on("error", () => {});
		child.stdin?.end(input);
	});
}

const FULL = "session-tree: cannot write output: no space left on the device (ENOSPC)\n";

describe("output that cannot be written", { skip: !existsSync("/dev/full") && "no /dev/full here" }, () => {
	test("> /dev/full: one line naming ENOSPC, exit 1, no stack trace, for every command that prints", async () => {
		const commands: ReadonlyArray<readonly string[]> = [
			["tree", file],
			["ctx", file],
			["leaves", file],
			["info", file],
			["md", file],
			["html", file, "-o", "-"],
			["export", file, "--to", "chatgpt"],
			["ls", sessions],
			["search", "question", sessions],
			["demo", "--dir", join(dir, "demo")],
			["--help"],
		];
		for (const args of commands) {
			const outcome = await toFullDevice(args);
			const shown = `session-tree ${args.join(" ")} > /dev/full`;
			assert.equal(outcome.stderr, FULL, `${shown}: one line`);
			assert.equal(outcome.code, 1, `${shown}: exit 1`);
		}
	});

	test("append > /dev/full: the entry is stored, the id could not be printed: exit 1, one line", async () => {
		const opened = await Session.open(file);
		const before = opened.entryCount;
		await opened.close();
		const outcome = await toFullDevice(["append", file], `${JSON.stringify({ role: "user", content: "stored" })}\n`);
		assert.equal(outcome.stderr, FULL);
		assert.equal(outcome.code, 1);
		const reopened = await Session.open(file);
		assert.equal(reopened.entryCount, before + 1, "what was appended before the failed print stays");
		assert.deepEqual(reopened.problems, []);
		await reopened.close();
	});

	test("| head -1: a pipe closed early ends the command quietly, exit 0", async () => {
		for (const args of [
			["tree", file],
			["md", file],
			["html", file, "-o", "-"],
		]) {
			const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
			// The reader takes the first chunk and goes away, as `head -1` does.
			child.stdout?.once("data", () => child.stdout?.destroy());
			const outcome = await collect(child, "");
			assert.equal(outcome.stderr, "", `session-tree ${args.join(" ")} | head -1: nothing on stderr`);
			assert.equal(outcome.code, 0);
		}
	});
});
