/**
 * Writer processes for the multi-process tests: start test/support/writer-process.js on a
 * session, collect the ids it acknowledges, and check that what several of them appended at
 * once lost nothing and forms one chain per writer.
 */

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Durability, Session } from "../../src/index.js";

/** The compiled writer process (see writer-process.ts). */
export const WRITER = join(dirname(fileURLToPath(import.meta.url)), "writer-process.js");

/** How a writer appends: `timer` waits for a timer between appends, a number that many ms; by default an awaited loop. */
export interface WriterOptions {
	pace?: "none" | "timer" | number;
	/** Each append waits for a credit the test gives with {@link StartedWriter.grant}. */
	credits?: boolean;
}

/** A running writer: the ids it acknowledged so far (in order), its exit code once it exited, and its stderr so far. */
export interface StartedWriter {
	child: ChildProcess;
	acked: string[];
	done: Promise<number | null>;
	stderr: () => string;
	/** Lets a writer started with `credits` make `count` more appends. */
	grant: (count: number) => void;
}

/** Starts the writer process on `location`, appending `count` messages tagged `tag`. */
export function startWriter(
	location: string,
	count: number,
	durability: Durability,
	tag: string,
	options: WriterOptions = {},
): StartedWriter {
	const args = [WRITER, location, String(count), durability, tag, String(options.pace ?? "none")];
	if (options.credits) args.push("credits");
	const child = spawn(process.execPath, args, { stdio: [options.credits ? "pipe" : "ignore", "pipe", "pipe"] });
	// A writer that exited early closes its stdin: a credit written then is nobody's.
	child.stdin?.on("error", () => {});
	const acked: string[] = [];
	let partial = "";
	let stderr = "";
	child.stdout?.on("data", (chunk: Buffer) => {
		const lines = (partial + chunk.toString("utf8")).split("\n");
		partial = lines.pop() ?? "";
		acked.push(...lines);
	});
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const done = new Promise<number | null>((resolve) =>
		child.on("close", (code) => {
			if (code !== 0 && code !== null) process.stderr.write(stderr);
			resolve(code);
		}),
	);
	const grant = (more: number) => {
		child.stdin?.write(Buffer.alloc(more));
	};
	return { child, acked, done, stderr: () => stderr, grant };
}

/**
 * Runs the writer process to its end: resolves with the ids it acknowledged, in order, or
 * rejects with its exit code and stderr when it did not exit with 0.
 */
export async function runWriter(
	location: string,
	count: number,
	durability: Durability,
	tag: string,
	options: WriterOptions = {},
): Promise<string[]> {
	const writer = startWriter(location, count, durability, tag, options);
	const code = await writer.done;
	if (code !== 0) throw new Error(`writer ${tag} exited with ${code}: ${writer.stderr()}`);
	return writer.acked;
}

/** What the session held before the writers started, and how many entries each writer appended. */
export interface WriterChainsExpected {
	entriesBefore: number;
	appendsEach: number;
}

/**
 * Checks a session that writer processes appended to at once (`idsByWriter`: each writer's
 * acknowledged ids, in order): no problems, every entry once and every parent present, every
 * acknowledged id distinct and present, and each writer's entries its own chain — the first
 * under an entry that was there before it, each next under the one before.
 */
export function assertWriterChains(
	session: Session,
	idsByWriter: readonly (readonly string[])[],
	expected: WriterChainsExpected,
): void {
	const appended = idsByWriter.length * expected.appendsEach;
	assert.deepEqual(session.problems, []);
	assert.equal(session.entryCount, expected.entriesBefore + appended, "every new entry, once");
	const entries = session.getEntries();
	assert.equal(new Set(entries.map((entry) => entry.id)).size, entries.length, "no id twice");
	for (const entry of entries) {
		if (entry.parentId !== null) assert.ok(session.getEntry(entry.parentId), `the parent of ${entry.id} is present`);
	}
	const all = idsByWriter.flat();
	assert.equal(new Set(all).size, appended, "distinct ids acknowledged");
	for (const id of all) assert.ok(session.getEntry(id), `acknowledged entry ${id} is present`);
	idsByWriter.forEach((ids, w) => {
		assert.equal(ids.length, expected.appendsEach, `writer ${w} acknowledged every append`);
		const own = new Set(ids);
		ids.forEach((id, i) => {
			const parent = session.getEntry(id)?.parentId ?? null;
			if (i > 0) assert.equal(parent, ids[i - 1], `writer ${w}'s entry ${i} follows its entry ${i - 1}`);
			else assert.ok(parent !== null && !own.has(parent), `writer ${w}'s first entry hangs under an earlier entry`);
		});
	});
}
