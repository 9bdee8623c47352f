/**
 * What bounds `session-tree html` (issue 28's "html of s100k ≤ 3 s"): whole processes, each
 * run alone, medians, beside the export itself in the same run:
 *
 * - `read`: the file read in 1 MiB pieces, nothing else;
 * - `gzip`: read and given to a gzip stream at the export's level (libuv's thread pool), its
 *   output made base64: the page's encoding of the records and nothing of ours;
 * - `parse`: read, cut into lines, every line `JSON.parse`d on the main thread: what a check of
 *   every record for secrets needs before any rule runs;
 * - `parse+gzip`: both at once (the parse here, gzip beside it on the other core): the floor
 *   of an export whose records are checked on one thread;
 * - `export`: `session-tree html FILE -o …` of the build given (default dist/).
 *
 * `tsc -p bench/tsconfig.json && node bench/data/.build/bench/html-floor.js [--file s100k] [--runs 5] [--dist DIR]`
 */

import { closeSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGzip, type ZlibOptions } from "node:zlib";
import { GZIP_AHEAD, GZIP_CHUNK, HTML_GZIP_LEVEL } from "../src/render/html/page.js";
import { floorOptions, timeSteps } from "./shared.js";

type Mode = "read" | "gzip" | "parse" | "parse+gzip";

const NEWLINE = 0x0a;

/** Runs one mode in this process (the child's side). */
async function runMode(mode: Mode, file: string): Promise<void> {
	// The export's stream: 1 MiB of output a job, up to 8 MiB of input ahead (render/html/page.ts).
	const options: ZlibOptions & { writableHighWaterMark: number } = {
		level: HTML_GZIP_LEVEL,
		chunkSize: GZIP_CHUNK,
		writableHighWaterMark: GZIP_AHEAD,
	};
	const gzip = mode.includes("gzip") ? createGzip(options) : undefined;
	let base64 = 0;
	gzip?.on("data", (chunk: Buffer) => {
		base64 += chunk.toString("base64").length;
	});
	const parse = mode.includes("parse");
	const fd = openSync(file, "r");
	let carry = Buffer.alloc(0);
	let lines = 0;
	for (;;) {
		const piece = Buffer.allocUnsafe(1 << 20);
		const read = readSync(fd, piece, 0, piece.length, null);
		if (read === 0) break;
		const bytes = piece.subarray(0, read);
		if (gzip && !gzip.write(bytes)) await new Promise((done) => gzip.once("drain", done));
		if (parse) {
			// Each line decoded from the bytes where it lies; only a line cut by the piece's end is joined.
			let start = 0;
			let end = bytes.indexOf(NEWLINE);
			if (carry.length > 0 && end !== -1) {
				JSON.parse(Buffer.concat([carry, bytes.subarray(0, end)]).toString("utf8"));
				lines++;
				carry = Buffer.alloc(0);
				start = end + 1;
				end = bytes.indexOf(NEWLINE, start);
			}
			for (; end !== -1; end = bytes.indexOf(NEWLINE, start)) {
				JSON.parse(bytes.toString("utf8", start, end));
				lines++;
				start = end + 1;
			}
			carry = Buffer.concat([carry, bytes.subarray(start)]);
		}
		// A turn of the loop, as the export takes between batches: gzip's finished job hands on.
		if (gzip) await new Promise(setImmediate);
	}
	closeSync(fd);
	if (gzip) {
		const ended = new Promise((done) => gzip.once("end", done));
		gzip.end();
		await ended;
	}
	process.stdout.write(JSON.stringify({ lines, base64 }));
}

const options = floorOptions();
if (options.child !== undefined) await runMode(options.child as Mode, options.file);
else {
	const { file } = options;
	const out = join(tmpdir(), `html-floor-${process.pid}.html`);
	const steps: Array<{ name: string; args: string[] }> = [
		...(["read", "gzip", "parse", "parse+gzip"] as const).map((mode) => ({
			name: mode,
			args: [process.argv[1] as string, "--file", file, "--child", mode],
		})),
		{ name: "export", args: [join(options.dist, "bin", "session-tree.js"), "html", file, "-o", out, "--force"] },
	];
	try {
		timeSteps(`html floor of ${file}`, steps, options.runs);
	} finally {
		rmSync(out, { force: true });
	}
}
