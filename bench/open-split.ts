/**
 * What a second thread could take of the open's scan (issue 28, twenty-second round): an
 * experiment, not the store's code. The file store's open reads every line on this thread, and
 * for each line in pi's layout reads its envelope in place (storage/file-store.ts, core/envelope.ts);
 * the tree is then built from the envelopes (the reducer, the links), and the collector copies
 * what they keep. Only the scan can be shared: the envelopes are objects of this thread's heap.
 *
 * Two modes, each in fresh processes, alternating, medians and ranges:
 *
 * - `one`: this thread scans the whole file as the open does (the same line scanner, the same
 *   check for a second `"parentId":` key on a line, the same envelope reader) and makes an
 *   envelope for every line in pi's layout, the text of any other line decoded and parsed;
 * - `half`: the first half alone, as `two` scans it on this thread (what the worker's company
 *   costs this thread);
 * - `two`: a worker, started first, scans the second half of the file (from the first line
 *   starting after its middle) with the same reader and sends what each line's envelope says,
 *   packed (typed arrays and one string of ids and instants); this thread scans the first half
 *   as `one` does, then makes the worker's half's envelopes from what it sent (other lines read
 *   and parsed here).
 *
 * Both must give the same count of envelopes and parsed lines, and the same ids in the same
 * order (checked by a hash). Times: `scan` from the first read to the last envelope made, and
 * `total` from the process's start (its start and the modules included).
 *
 * The twenty-second round's result (docs/performance.md): `two` is slower than `one` (422 against
 * 315 ms): the worker begins to scan 111 ms after the start and scans its half about twice as
 * slowly as this thread (cold code and its own young generation), and this thread's half takes
 * 240 against 182 ms beside it.
 *
 * `tsc -p bench/tsconfig.json && node bench/data/.build/bench/open-split.js [--file s100k] [--runs 9]`
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { readEnvelope } from "../src/core/envelope.js";
import { Envelope } from "../src/core/tree-node.js";
import { scanByteLines } from "../src/storage/lines.js";
import { dataPath } from "./generate.js";
import { type Half, oneMarker } from "./open-split-worker.js";
import { fmtMs, median } from "./shared.js";

/** The first line start at or after `at` (after the newline that ends the line holding `at`). */
function lineStartAfter(fd: number, at: number): number {
	const buffer = Buffer.allocUnsafe(1 << 16);
	for (let position = at; ; position += buffer.length) {
		const read = readSync(fd, buffer, 0, buffer.length, position);
		if (read === 0) return position;
		const nl = buffer.subarray(0, read).indexOf(0x0a);
		if (nl !== -1) return position + nl + 1;
	}
}

/** What a mode made: envelopes and parsed lines, the ids hashed in order. */
interface Made {
	envelopes: number;
	parsed: number;
	hash: string;
}

/** Scans `[0, until)` of `file` on this thread, as the open does. */
function scanHere(fd: number, until: number, out: Array<Envelope | unknown>): number {
	let previous: Envelope | undefined;
	let lines = 0;
	for (const line of scanByteLines(fd, 0, 1)) {
		if (line.offset >= until) break;
		lines = line.line;
		const envelope =
			line.terminated && oneMarker(line.buffer, line.start, line.end)
				? readEnvelope(line.buffer, line.start, line.end, line.offset, line.line, previous)
				: undefined;
		previous = envelope;
		out.push(envelope ?? JSON.parse(line.buffer.toString("utf8", line.start, line.end)));
	}
	return lines;
}

function hashOf(out: ReadonlyArray<Envelope | unknown>): Made {
	const hash = createHash("sha256");
	let envelopes = 0;
	let parsed = 0;
	for (const item of out) {
		if (item instanceof Envelope) {
			envelopes++;
			hash.update(`${item.id}|${item.parentId}|${item.timestamp}|${item.role}|${item.line}|${item.offset}\n`);
		} else {
			parsed++;
			const record = item as { id?: string };
			hash.update(`${record.id}\n`);
		}
	}
	return { envelopes, parsed, hash: hash.digest("hex").slice(0, 12) };
}

async function child(mode: string, file: string): Promise<void> {
	const fd = openSync(file, "r");
	const size = fstatSync(fd).size;
	const out: Array<Envelope | unknown> = [];
	const parts: Record<string, number> = {};
	const t0 = performance.now();
	if (mode === "one") {
		scanHere(fd, size, out);
	} else if (mode === "half") {
		// The first half alone, as `two` scans it here: what the worker's company costs this thread.
		scanHere(fd, lineStartAfter(fd, Math.floor(size / 2)), out);
	} else {
		const middle = lineStartAfter(fd, Math.floor(size / 2));
		const worker = new Worker(fileURLToPath(new URL("./open-split-worker.js", import.meta.url)), {
			workerData: { file, from: middle },
		});
		const sent = new Promise<Half>((resolve, reject) => {
			worker.once("message", resolve);
			worker.once("error", reject);
		});
		const before = scanHere(fd, middle, out);
		parts.here = performance.now() - t0;
		const half = await sent;
		parts.sent = performance.now() - t0;
		const zero = performance.timeOrigin + t0;
		parts.workerBegan = half.began - zero;
		parts.workerEnded = half.ended - zero;
		const shared = new Map<string, string>();
		const names = half.names.map((name) => {
			const known = shared.get(name) ?? name;
			shared.set(name, known);
			return known;
		});
		const { keys, keyEnds } = half;
		let previous: Envelope | undefined;
		const line = Buffer.allocUnsafe(1 << 20);
		for (let i = 0; i < half.count; i++) {
			const type = half.types[i] as number;
			const number = before + (half.lines[i] as number);
			const offset = half.offsets[i] as number;
			const length = half.lengths[i] as number;
			if (type === 0) {
				const bytes = length <= line.length ? line : Buffer.allocUnsafe(length);
				readSync(fd, bytes, 0, length, offset);
				out.push(JSON.parse(bytes.toString("utf8", 0, length)));
				previous = undefined;
				continue;
			}
			const k = i * 3;
			const start = k === 0 ? 0 : (keyEnds[k - 1] as number);
			const id = keys.slice(start, keyEnds[k]);
			const parent = half.parentIsPrevious[i]
				? (previous?.id as string)
				: keys.slice(keyEnds[k] as number, keyEnds[k + 1] as number);
			const at = keys.slice(keyEnds[k + 1] as number, keyEnds[k + 2] as number);
			const timestamp = previous !== undefined && previous.timestamp === at ? previous.timestamp : at;
			const role = half.roles[i] as number;
			const end = half.endTimestamps[i] as number;
			const envelope = new Envelope(
				names[type - 1] as string,
				id,
				parent === "" ? null : parent,
				timestamp,
				role === 0 ? undefined : names[role - 1],
				offset,
				length,
				number,
				Number.isNaN(end) ? undefined : end,
			);
			out.push(envelope);
			previous = envelope;
		}
		parts.made = performance.now() - t0;
		await worker.terminate();
	}
	const scan = performance.now() - t0;
	const total = performance.now();
	closeSync(fd);
	console.log(JSON.stringify({ mode, scan, total, parts, ...hashOf(out) }));
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const arg = (name: string) => {
		const at = argv.indexOf(name);
		return at >= 0 ? argv[at + 1] : undefined;
	};
	if (arg("--child") !== undefined) {
		await child(arg("--child") as string, arg("--file") as string);
		return;
	}
	const name = arg("--file") ?? "s100k";
	const file = name.includes("/") ? name : dataPath(name);
	const runs = Number(arg("--runs") ?? 9);
	const results: Record<
		string,
		Array<{ scan: number; total: number; hash: string; envelopes: number; parts: Record<string, number> }>
	> = {
		one: [],
		half: [],
		two: [],
	};
	for (let run = 0; run < runs; run++) {
		for (const mode of run % 2 === 0 ? ["one", "half", "two"] : ["two", "half", "one"]) {
			const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--child", mode, "--file", file], {
				encoding: "utf8",
			});
			if (child.status !== 0) throw new Error(`${mode}: ${child.stderr}`);
			results[mode]?.push(JSON.parse(child.stdout));
		}
	}
	console.log(`the open's scan on one thread and on two, ${file}, ${runs} runs each (median, min–max):`);
	for (const [mode, list] of Object.entries(results)) {
		const scans = list.map((r) => r.scan);
		const totals = list.map((r) => r.total);
		const hashes = new Set(list.map((r) => `${r.envelopes}/${r.hash}`));
		console.log(
			`  ${mode}: scan ${fmtMs(median(scans))} (${fmtMs(Math.min(...scans))}–${fmtMs(Math.max(...scans))}), ` +
				`whole process to the end of the scan ${fmtMs(median(totals))}; envelopes/hash ${[...hashes].join(", ")}`,
		);
	}
	const two = results.two ?? [];
	const part = (name: string) => fmtMs(median(two.map((r) => r.parts[name] ?? 0)));
	console.log(
		`  two, from its start: this thread's half done at ${part("here")}; the worker began to scan at ` +
			`${part("workerBegan")} and ended at ${part("workerEnded")}; its half taken here at ${part("sent")}, made at ${part("made")}`,
	);
	const [one] = [results.one?.[0]];
	if (one?.hash !== two[0]?.hash) {
		console.log("  THE MODES DIFFER");
		process.exitCode = 1;
	}
}

await main();
