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
import { childlessViewNode, nodeBehind } from "../src/core/tree.js";
import type { TreeNode } from "../src/core/tree-node.js";
import type { SessionTreeNode } from "../src/core/types.js";
import { Session } from "../src/index.js";
import { DATA_DIR, Rng } from "./generate.js";
import { maxRss, messagesToAppend } from "./shared.js";

/**
 * pi, session-tree, the floors (reading and parsing without building anything), or "ref": an
 * independent streaming implementation of pi's context rule, to check files pi cannot open.
 */
export type Side = "pi" | "ours" | "floor" | "ref";

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
	/**
	 * As "append", after a full garbage collection (the child runs with --expose-gc): the
	 * collections the open left due are not charged to the appends.
	 */
	| "append-settled"
	/** Open a copy (not timed), then `count` times: branch to an earlier entry and append. */
	| "branch-append"
	/**
	 * As "branch-append", after a full garbage collection: the collections the open and the
	 * `getEntries()` that picks the targets left due are not charged to the loop.
	 */
	| "branch-append-settled"
	/** floor: read the file in 1 MiB chunks, no decoding. */
	| "read"
	/** floor: read, split into lines, JSON.parse every line (what any full parse costs). */
	| "parse"
	/**
	 * floor of ours' getTree: open and getTree() once (not timed: the code is warm, which can
	 * only make this lower), then one view node per entry, as getTree makes them (an own lazy
	 * `entry`, an empty `children`), with no children linked, no label and no walk: what
	 * getTree cannot do without while its nodes have that shape.
	 */
	| "view-nodes";

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

/**
 * What both sides offer; pi's SessionManager and our Session share these method names. Our
 * writes return promises, pi's do not: every call is awaited on both sides, so each append
 * completes before the next starts.
 */
interface SessionLike {
	buildSessionContext(): Context;
	getTree(): unknown[];
	getBranch(): unknown[];
	getEntries(): Array<{ id: string }>;
	appendMessage(message: unknown): string | Promise<string>;
	branch(id: string): void | Promise<void>;
}

function sha256(text: string): string {
	return createHash("sha256").update(text).digest("hex");
}

function rss(): number {
	return process.memoryUsage().rss;
}

async function opener(task: Task): Promise<(file: string) => SessionLike | Promise<SessionLike>> {
	if (task.side === "pi") {
		if (!task.piModule) throw new Error("no pi module given");
		const pi = (await import(task.piModule)) as { SessionManager: { open(file: string): SessionLike } };
		return (file) => pi.SessionManager.open(file);
	}
	// pi's durability: appendFileSync, no fsync. A resume reads only what the context needs
	// (`load: "context"`, as an agent resuming a session would open it); the other operations
	// read the whole tree.
	const load = task.op === "resume" ? "context" : "all";
	return (file) => Session.open(file, { durability: "none", load });
}

/**
 * A full garbage collection, when the process runs with --expose-gc, then a pause: V8 sweeps
 * the collected heap on background threads, which on a two-core machine would otherwise take
 * turns with the timed loop (measured with perf: 4 ms away in every 8 after a collection of
 * 460 MB, doubling the figure).
 */
async function settleHeap(): Promise<void> {
	const gc: unknown = Reflect.get(globalThis, "gc");
	if (typeof gc !== "function") return;
	gc();
	await new Promise((resolve) => setTimeout(resolve, 300));
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

/** Lines of a file as byte ranges, read in 4 MiB chunks (the file never sits in memory whole). */
function* byteLines(fd: number): Generator<{ offset: number; text: string }> {
	const chunk = Buffer.allocUnsafe(1 << 22);
	let carry: Buffer | undefined;
	let carryOffset = 0;
	let position = 0;
	for (;;) {
		const read = readSync(fd, chunk, 0, chunk.length, position);
		if (read === 0) break;
		let start = 0;
		for (let nl = chunk.indexOf(0x0a, 0); nl !== -1 && nl < read; nl = chunk.indexOf(0x0a, start)) {
			if (carry) {
				yield { offset: carryOffset, text: Buffer.concat([carry, chunk.subarray(0, nl)]).toString("utf8") };
				carry = undefined;
			} else {
				yield { offset: position + start, text: chunk.toString("utf8", start, nl) };
			}
			start = nl + 1;
		}
		if (start < read) {
			if (!carry) carryOffset = position + start;
			const rest = Buffer.from(chunk.subarray(start, read));
			carry = carry ? Buffer.concat([carry, rest]) : rest;
		}
		position += read;
	}
	if (carry && carry.length > 0) yield { offset: carryOffset, text: carry.toString("utf8") };
}

/**
 * pi 0.73.1's context for a file, computed independently of both tools and without holding the
 * file: one pass keeps each entry's envelope (id, parent, type, settings, line offset), the walk
 * from the last entry finds the path, then only the lines that give messages are read again.
 * Like pi, it ignores `retainedTail`, skips unparsable lines, and takes the last entry as leaf.
 */
function referenceContext(file: string): Context {
	const fd = openSync(file, "r");
	try {
		const index = new Map<string, number>();
		const ids: string[] = [];
		const parentIds: Array<string | null> = [];
		const types: string[] = [];
		const offsets: number[] = [];
		const settings: unknown[] = [];
		let headerSeen = false;
		for (const { offset, text } of byteLines(fd)) {
			if (!text.trim()) continue;
			let record: Record<string, unknown>;
			try {
				record = JSON.parse(text) as Record<string, unknown>;
			} catch {
				continue;
			}
			if (!headerSeen) {
				headerSeen = true;
				if (record.type !== "session") throw new Error("no session header");
				continue;
			}
			if (record.type === "session") continue;
			const message = record.message as Record<string, unknown> | undefined;
			let setting: unknown;
			if (record.type === "thinking_level_change") setting = record.thinkingLevel;
			else if (record.type === "model_change") setting = { provider: record.provider, modelId: record.modelId };
			else if (record.type === "message" && message?.role === "assistant") {
				setting = { provider: message.provider, modelId: message.model };
			} else if (record.type === "compaction") setting = record.firstKeptEntryId;
			index.set(record.id as string, types.length);
			ids.push(record.id as string);
			parentIds.push((record.parentId as string | null | undefined) ?? null);
			types.push(record.type as string);
			offsets.push(offset);
			settings.push(setting);
		}
		// The path from the last entry (pi's leaf) up through byId.
		const path: number[] = [];
		for (let at: number | undefined = types.length - 1; at !== undefined && at >= 0; ) {
			path.push(at);
			const parentId: string | null = parentIds[at] ?? null;
			at = parentId ? index.get(parentId) : undefined;
		}
		path.reverse();
		let thinkingLevel = "off";
		let model: unknown = null;
		let compaction = -1;
		for (let i = 0; i < path.length; i++) {
			const at = path[i] as number;
			const type = types[at];
			if (type === "thinking_level_change") thinkingLevel = settings[at] as string;
			else if (type === "model_change" || (type === "message" && settings[at] !== undefined)) model = settings[at];
			else if (type === "compaction") compaction = i;
		}
		const line = (at: number): Record<string, unknown> => {
			const start = offsets[at] as number;
			const end = at + 1 < offsets.length ? (offsets[at + 1] as number) : Number.POSITIVE_INFINITY;
			const parts: Buffer[] = [];
			// Read up to the line's newline (lines after it may be blank or unparsable).
			for (let position = start; position < end; ) {
				const buffer = Buffer.allocUnsafe(Math.min(1 << 20, end - position));
				const read = readSync(fd, buffer, 0, buffer.length, position);
				if (read === 0) break;
				const nl = buffer.subarray(0, read).indexOf(0x0a);
				parts.push(buffer.subarray(0, nl >= 0 ? nl : read));
				if (nl >= 0) break;
				position += read;
			}
			return JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
		};
		const epoch = (timestamp: unknown) => new Date(timestamp as string).getTime();
		const messages: unknown[] = [];
		const add = (at: number) => {
			const type = types[at];
			if (type !== "message" && type !== "custom_message" && type !== "branch_summary") return;
			const entry = line(at);
			if (type === "message") messages.push(entry.message);
			else if (type === "custom_message") {
				const { customType, content, display, details, timestamp } = entry;
				messages.push({ role: "custom", customType, content, display, details, timestamp: epoch(timestamp) });
			} else if (entry.summary) {
				messages.push({
					role: "branchSummary",
					summary: entry.summary,
					fromId: entry.fromId,
					timestamp: epoch(entry.timestamp),
				});
			}
		};
		if (compaction >= 0) {
			const entry = line(path[compaction] as number);
			messages.push({
				role: "compactionSummary",
				summary: entry.summary,
				tokensBefore: entry.tokensBefore,
				timestamp: epoch(entry.timestamp),
			});
			let kept = false;
			for (let i = 0; i < compaction; i++) {
				const at = path[i] as number;
				if (ids[at] === entry.firstKeptEntryId) kept = true;
				if (kept) add(at);
			}
			for (let i = compaction + 1; i < path.length; i++) add(path[i] as number);
		} else {
			for (const at of path) add(at);
		}
		return { messages, thinkingLevel, model };
	} finally {
		closeSync(fd);
	}
}

/** The "view-nodes" floor (see {@link Op}). */
async function viewNodesFloor(file: string): Promise<Measurement> {
	const baseRss = rss();
	const session = await Session.open(file, { durability: "none", load: "all" });
	const nodes: TreeNode[] = [];
	const stack: SessionTreeNode[] = [...session.getTree()];
	for (let view = stack.pop(); view !== undefined; view = stack.pop()) {
		const node = nodeBehind(view);
		if (node) nodes.push(node);
		for (const child of view.children) stack.push(child);
	}
	stack.length = 0;
	const out = new Array<SessionTreeNode>(nodes.length);
	const t0 = performance.now();
	for (let i = 0; i < nodes.length; i++) out[i] = childlessViewNode(nodes[i] as TreeNode);
	const ms = performance.now() - t0;
	return { ms, maxRss: maxRss(), baseRss, count: out.length };
}

async function measure(task: Task): Promise<Measurement> {
	if (task.side === "ref") {
		const baseRss = rss();
		const t0 = performance.now();
		const context = referenceContext(task.file);
		const result: Measurement = { ms: performance.now() - t0, maxRss: 0, baseRss };
		describe(result, context);
		result.maxRss = maxRss();
		return result;
	}
	if (task.side === "floor" && task.op === "view-nodes") return viewNodesFloor(task.file);
	if (task.side === "floor") {
		const baseRss = rss();
		const t0 = performance.now();
		const lines = readFloor(task.file, task.op === "parse");
		const ms = performance.now() - t0;
		return { ms, maxRss: maxRss(), baseRss, count: lines };
	}
	const open = await opener(task);
	const count = task.count ?? 1000;
	const toAppend =
		task.op === "append" ||
		task.op === "append-settled" ||
		task.op === "branch-append" ||
		task.op === "branch-append-settled"
			? messagesToAppend(count)
			: [];
	const file =
		task.op === "append" ||
		task.op === "append-settled" ||
		task.op === "branch-append" ||
		task.op === "branch-append-settled"
			? scratchCopy(task.file)
			: task.file;
	const baseRss = rss();
	const result: Measurement = { maxRss: 0, baseRss };
	try {
		if (task.op === "open") {
			const t0 = performance.now();
			await open(file);
			result.ms = performance.now() - t0;
		} else if (task.op === "resume") {
			const t0 = performance.now();
			const context = (await open(file)).buildSessionContext();
			result.ms = performance.now() - t0;
			describe(result, context);
		} else {
			const t = performance.now();
			const session = await open(file);
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
			} else if (task.op === "append" || task.op === "append-settled") {
				if (task.op === "append-settled") await settleHeap();
				const t0 = performance.now();
				for (const message of toAppend) await session.appendMessage(message);
				result.ms = performance.now() - t0;
			} else if (task.op === "branch-append" || task.op === "branch-append-settled") {
				// The same targets for both sides: entries picked by a seeded PRNG from the file order.
				const entries = session.getEntries();
				const rng = new Rng(777);
				const targets = toAppend.map(() => (entries[rng.int(0, entries.length - 1)] as { id: string }).id);
				if (task.op === "branch-append-settled") await settleHeap();
				const t0 = performance.now();
				for (let i = 0; i < toAppend.length; i++) {
					await session.branch(targets[i] as string);
					await session.appendMessage(toAppend[i]);
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
