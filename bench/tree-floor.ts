/**
 * What bounds `session-tree tree` (issue 28's "tree of s100k ≤ 1.5 s"): whole processes, the
 * modes alternating run by run, medians and ranges, beside the CLI itself in the same series:
 *
 * - `start`: a Node process that loads nothing and exits (what every command pays first);
 * - `read`: the file read in 1 MiB pieces, nothing else;
 * - `parse`: read, cut into lines, every line decoded and `JSON.parse`d on the main thread;
 * - `parse×2`: the same work on two threads, each line parsed once: a worker takes the lines
 *   that start in the second half of the file, this thread the first half. A tree shows a
 *   preview of every body, which needs every body parsed: no `tree` can take less on two cores,
 *   before it opens anything, lays anything out or writes a line;
 * - `tree`: `session-tree tree FILE` of the build given (default dist/), its output discarded.
 *
 * `tsc -p bench/tsconfig.json && node bench/data/.build/bench/tree-floor.js [--file s100k] [--runs 5] [--dist DIR]`
 */

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { floorOptions, readOnly, timeSteps } from "./shared.js";

type Mode = "start" | "read" | "parse" | "parse×2";
const MODES: readonly Mode[] = ["start", "read", "parse", "parse×2"];

const NEWLINE = 0x0a;
const PIECE = 1 << 20;

/**
 * Parses every line that starts in `[from, to)` of the file (a line belongs to the half its
 * first byte is in), reading on past `to` to the end of the last one; the lines parsed.
 */
export function parseLines(file: string, from: number, to: number): number {
	const fd = openSync(file, "r");
	let lines = 0;
	try {
		let position = from;
		let carry = Buffer.alloc(0);
		// A line starts at `from` only when the byte before it ends a line.
		let skipFirst = false;
		if (from > 0) {
			const before = Buffer.alloc(1);
			readSync(fd, before, 0, 1, from - 1);
			skipFirst = before[0] !== NEWLINE;
		}
		for (;;) {
			const piece = Buffer.allocUnsafe(PIECE);
			const read = readSync(fd, piece, 0, PIECE, position);
			if (read === 0) break;
			let bytes = piece.subarray(0, read);
			if (carry.length > 0) bytes = Buffer.concat([carry, bytes]);
			const base = position - carry.length;
			position += read;
			let start = 0;
			if (skipFirst) {
				const end = bytes.indexOf(NEWLINE);
				if (end === -1) {
					carry = Buffer.alloc(0);
					continue;
				}
				start = end + 1;
				skipFirst = false;
			}
			let done = false;
			for (;;) {
				// Past the half: the lines from here are the other thread's.
				if (base + start >= to) {
					done = true;
					break;
				}
				const end = bytes.indexOf(NEWLINE, start);
				if (end === -1) break;
				JSON.parse(bytes.toString("utf8", start, end));
				lines++;
				start = end + 1;
			}
			if (done) return lines;
			carry = Buffer.from(bytes.subarray(start));
		}
		if (carry.length > 0 && position - carry.length < to) {
			JSON.parse(carry.toString("utf8"));
			lines++;
		}
		return lines;
	} finally {
		closeSync(fd);
	}
}

/** Runs one mode in this process (the child's side). */
async function runMode(mode: Mode, file: string): Promise<void> {
	if (mode === "start") return;
	if (mode === "read") {
		readOnly(file, PIECE);
		return;
	}
	const fd = openSync(file, "r");
	const size = fstatSync(fd).size;
	closeSync(fd);
	if (mode === "parse") {
		parseLines(file, 0, size);
		return;
	}
	const half = Math.floor(size / 2);
	const worker = new Worker(new URL(import.meta.url), { workerData: { file, from: half, to: size } });
	const theirs = new Promise<number>((done, fail) => {
		worker.once("message", done);
		worker.once("error", fail);
	});
	const ours = parseLines(file, 0, half);
	const total = ours + (await theirs);
	if (total === 0) throw new Error("no line parsed");
}

function main(): void {
	const options = floorOptions();
	const { file } = options;
	if (options.child !== undefined) {
		runMode(options.child as Mode, file).catch((error) => {
			console.error(error);
			process.exit(1);
		});
		return;
	}
	const self = fileURLToPath(import.meta.url);
	const steps = [
		...MODES.map((mode) => ({ name: mode, args: [self, "--file", file, "--child", mode] })),
		{ name: "tree", args: [join(options.dist, "bin", "session-tree.js"), "tree", file] },
	];
	timeSteps(`tree floor of ${file}`, steps, options.runs);
}

// Run as a script or as `parse×2`'s worker; imported (a check of parseLines), nothing runs.
if (!isMainThread) {
	const { file, from, to } = workerData as { file: string; from: number; to: number };
	parentPort?.postMessage(parseLines(file, from, to));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) main();
