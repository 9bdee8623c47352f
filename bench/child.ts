/**
 * One measurement in a fresh process, so that time and peak memory belong to it alone.
 *
 *   node dist-test/bench/child.js '<json Task>'
 *
 * Prints one line of JSON (a {@link Measurement}) on stdout. Nothing else is printed there.
 */

import { createHash } from "node:crypto";
import { closeSync, copyFileSync, mkdirSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Session } from "../src/index.js";
import { DATA_DIR, Rng } from "./generate.js";

export type Side = "pi" | "ours" | "floor";

export type Op =
	/** Open the file (pi: SessionManager.open). */
	| "open"
	/** Open, then build the context at the leaf. */
	| "resume"
	/** Open (not timed), then getTree(). */
	| "tree"
	/** Open (not timed), then getBranch() at the leaf. */
	| "branch"
	/** Open (not timed), then buildSessionContext() at the leaf. */
	| "context"
	/** Open a copy (not timed), then append `count` messages. */
	| "append"
	/** Open a copy (not timed), then `count` times: branch to an earlier entry and append. */
	| "branch-append"
	/** floor: read the file in 1 MiB chunks, no decoding. */
	| "read"
	/** floor: read, split into lines, JSON.parse every line (what any full parse costs). */
	| "parse";

export interface Task {
	side: Side;
	op: Op;
	file: string;
	/** file: URL of pi's session-manager module (side "pi"). */
	piModule?: string;
	/** Appends per measurement. Default 1000. */
	count?: number;
}

export interface Measurement {
	/** Milliseconds of the timed part. */
	ms?: number;
	/** Milliseconds of the open that came before the timed part (ops other than open/resume). */
	openMs?: number;
	/** Peak resident set size of the process, bytes (process.resourceUsage().maxRSS). */
	maxRss: number;
	/** Resident set size after the modules loaded and before the work, bytes. */
	baseRss: number;
	/** sha256 (hex) of JSON.stringify(context.messages), for ops that build a context. */
	hash?: string;
	/** sha256 of JSON.stringify({thinkingLevel, model}). */
	metaHash?: string;
	messages?: number;
	/** Path length (branch), roots (tree), lines (parse). */
	count?: number;
	/** Set when the side failed (for example pi on a file over 512 MiB). */
	error?: string;
}

interface Context {
	messages: unknown[];
	thinkingLevel: string;
	model: unknown;
}

/** What both sides offer; pi's SessionManager and our Session share these method names. */
interface SessionLike {
	buildSessionContext(): Context;
	getTree(): unknown[];
	getBranch(): unknown[];
	getEntries(): Array<{ id: string }>;
	appendMessage(message: unknown): string;
	branch(id: string): void;
}

function sha256(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

function rss(): number {
	return process.memoryUsage().rss;
}

function maxRss(): number {
	return process.resourceUsage().maxRSS * 1024;
}

/** Messages to append: the same for both sides, alternating user and assistant, ~1 KB each. */
function messagesToAppend(count: number): unknown[] {
	const rng = new Rng(4242);
	const words = "append entry line file session tree branch leaf message json node fast bench".split(" ");
	const sentence = (n: number) => Array.from({ length: n }, () => rng.pick(words)).join(" ");
	const out: unknown[] = [];
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
				usage: { input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1200 },
				stopReason: "stop",
				timestamp,
			});
		}
	}
	return out;
}

async function opener(task: Task): Promise<(file: string) => SessionLike> {
	if (task.side === "pi") {
		if (!task.piModule) throw new Error("no pi module given");
		const pi = (await import(task.piModule)) as { SessionManager: { open(file: string): SessionLike } };
		return (file) => pi.SessionManager.open(file);
	}
	return (file) => Session.open(file) as unknown as SessionLike;
}

function scratchCopy(file: string): string {
	const dir = join(DATA_DIR, ".scratch");
	mkdirSync(dir, { recursive: true });
	const copy = join(dir, `copy-${process.pid}.jsonl`);
	copyFileSync(file, copy);
	return copy;
}

function readFloor(file: string, parse: boolean): number {
	const fd = openSync(file, "r");
	const chunk = Buffer.allocUnsafe(1 << 20);
	let lines = 0;
	let carry = "";
	try {
		for (;;) {
			const read = readSync(fd, chunk, 0, chunk.length, null);
			if (read === 0) break;
			if (!parse) continue;
			// Split on the last newline so that a multi-byte character is never cut.
			const lastNl = chunk.lastIndexOf(0x0a, read - 1);
			if (lastNl < 0) {
				carry += chunk.toString("utf8", 0, read);
				continue;
			}
			const text = carry + chunk.toString("utf8", 0, lastNl);
			carry = chunk.toString("utf8", lastNl + 1, read);
			let start = 0;
			for (let nl = text.indexOf("\n"); ; nl = text.indexOf("\n", start)) {
				const end = nl < 0 ? text.length : nl;
				if (end > start) {
					JSON.parse(text.slice(start, end));
					lines++;
				}
				if (nl < 0) break;
				start = nl + 1;
			}
		}
		if (parse && carry.trim()) {
			JSON.parse(carry);
			lines++;
		}
	} finally {
		closeSync(fd);
	}
	return lines;
}

async function measure(task: Task): Promise<Measurement> {
	if (task.side === "floor") {
		const baseRss = rss();
		const t0 = performance.now();
		const lines = readFloor(task.file, task.op === "parse");
		const ms = performance.now() - t0;
		return { ms, maxRss: maxRss(), baseRss, count: lines };
	}
	const open = await opener(task);
	const count = task.count ?? 1000;
	const toAppend = task.op === "append" || task.op === "branch-append" ? messagesToAppend(count) : [];
	const file = task.op === "append" || task.op === "branch-append" ? scratchCopy(task.file) : task.file;
	const baseRss = rss();
	const result: Measurement = { maxRss: 0, baseRss };
	try {
		if (task.op === "open") {
			const t0 = performance.now();
			open(file);
			result.ms = performance.now() - t0;
		} else if (task.op === "resume") {
			const t0 = performance.now();
			const context = open(file).buildSessionContext();
			result.ms = performance.now() - t0;
			describe(result, context);
		} else {
			const t = performance.now();
			const session = open(file);
			result.openMs = performance.now() - t;
			if (task.op === "tree") {
				const t0 = performance.now();
				const roots = session.getTree();
				result.ms = performance.now() - t0;
				result.count = roots.length;
			} else if (task.op === "branch") {
				const t0 = performance.now();
				const path = session.getBranch();
				result.ms = performance.now() - t0;
				result.count = path.length;
			} else if (task.op === "context") {
				const t0 = performance.now();
				const context = session.buildSessionContext();
				result.ms = performance.now() - t0;
				describe(result, context);
			} else if (task.op === "append") {
				const t0 = performance.now();
				for (const message of toAppend) session.appendMessage(message);
				result.ms = performance.now() - t0;
			} else if (task.op === "branch-append") {
				// The same targets for both sides: entries picked by a seeded PRNG from the file order.
				const entries = session.getEntries();
				const rng = new Rng(777);
				const targets = toAppend.map(() => (entries[rng.int(0, entries.length - 1)] as { id: string }).id);
				const t0 = performance.now();
				for (let i = 0; i < toAppend.length; i++) {
					session.branch(targets[i] as string);
					session.appendMessage(toAppend[i]);
				}
				result.ms = performance.now() - t0;
			} else {
				throw new Error(`unknown op ${task.op}`);
			}
		}
	} catch (error) {
		result.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
	} finally {
		if (file !== task.file) rmSync(file, { force: true });
	}
	result.maxRss = maxRss();
	return result;
}

function describe(result: Measurement, context: Context): void {
	result.hash = sha256(JSON.stringify(context.messages));
	result.metaHash = sha256(JSON.stringify({ thinkingLevel: context.thinkingLevel, model: context.model }));
	result.messages = context.messages.length;
}

const task = JSON.parse(process.argv[2] ?? "{}") as Task;
measure(task).then(
	(result) => {
		process.stdout.write(`${JSON.stringify(result)}\n`);
	},
	(error: unknown) => {
		process.stdout.write(`${JSON.stringify({ error: String(error), maxRss: maxRss(), baseRss: 0 })}\n`);
	},
);
