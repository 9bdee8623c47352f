/**
 * What bounds the first frame of `session-tree browse` (issue 28's "first frame ≤ 300 ms after
 * start") when nothing is known of the session before its file is read: whole processes, the
 * modes alternating run by run, medians and ranges.
 *
 * The first frame shows the tree's rows around the leaf. Which rows those are depends on every
 * child of every entry on the leaf's path, and a child may be written anywhere after its parent,
 * so no first frame can be drawn before every line's `id` and `parentId` are known:
 *
 * - `start`: a Node process that loads nothing and exits;
 * - `import`: the modules `browse` loads before it reads the file: the bundled CLI's chunk of
 *   the command (dist/bin/browse-*.js, scripts/bundle-cli.mjs) and what it imports (the CLI's
 *   and the runtime's chunks, the layout's; pi-tui's screen modules, 80 ms of a start before the
 *   twentieth round, only after the first frame: src/cli/browse/first-frame.ts), from the build given;
 * - `read`: the file read in 1 MiB pieces, nothing else;
 * - `ids`: read, cut into lines, and every line's `id` and `parentId` taken and kept (a map from
 *   id to line, and each line's parent), with nothing else of the line looked at: pi's lines hold
 *   both keys in their first bytes, found with `indexOf`; any other line is parsed. This is the
 *   least any cold first frame does, before it opens, decides or draws anything;
 * - `info`: `session-tree info FILE` of the build given: the CLI's whole open of the file.
 *
 * `tsc -p bench/tsconfig.json && node bench/data/.build/bench/browse-floor.js [--file s100k] [--runs 5] [--dist DIR]`
 */

import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { floorOptions, readOnly, timeSteps } from "./shared.js";

type Mode = "start" | "import" | "read" | "ids";
const MODES: readonly Mode[] = ["start", "import", "read", "ids"];

const NEWLINE = 0x0a;
const QUOTE = 0x22;
/** As the open reads (src/storage/lines.ts): 64 KiB, which the processor's cache holds while the piece is cut and read. */
const PIECE = 1 << 16;
const ID_KEY = Buffer.from('"id":"');
const PARENT_KEY = Buffer.from('"parentId":');
/** How far into a line pi's `id` and `parentId` keys are looked for. */
const HEAD = 200;

/** Each line's id and parent id, as a tree needs them before anything can be drawn. */
export interface LineIds {
	readonly lineOf: Map<string, number>;
	readonly parents: Array<string | null>;
}

/** The `"…"` string or `null` at `at` in `bytes` (ids need no unescaping: they are hex or UUIDs). */
function valueAt(bytes: Buffer, at: number, end: number): string | null {
	if (bytes[at] !== QUOTE) return null;
	const close = bytes.indexOf(QUOTE, at + 1);
	if (close === -1 || close > end) throw new Error(`unterminated id at byte ${at}`);
	return bytes.toString("latin1", at + 1, close);
}

/** Takes one line's ids: from its head when both keys are there, else from its parse. */
function takeLine(bytes: Buffer, start: number, end: number, ids: LineIds): void {
	const head = Math.min(end, start + HEAD);
	const id = bytes.indexOf(ID_KEY, start);
	const parent = id !== -1 && id < head ? bytes.indexOf(PARENT_KEY, id) : -1;
	let own: unknown;
	let parentId: unknown;
	if (parent !== -1 && parent < head) {
		own = valueAt(bytes, id + ID_KEY.length - 1, end);
		parentId = valueAt(bytes, parent + PARENT_KEY.length, end);
	} else {
		const record = JSON.parse(bytes.toString("utf8", start, end)) as { id?: unknown; parentId?: unknown };
		own = record.id;
		parentId = record.parentId;
	}
	if (typeof own !== "string") return;
	ids.lineOf.set(own, ids.parents.length);
	ids.parents.push(typeof parentId === "string" ? parentId : null);
}

/** Every line's id and parent id in `file`, read in pieces. */
export function readIds(file: string): LineIds {
	const ids: LineIds = { lineOf: new Map(), parents: [] };
	const fd = openSync(file, "r");
	try {
		// One buffer for the whole read (fresh pages each piece cost more than the read): the
		// unfinished line moved to its start, the next piece read after it.
		let buffer = Buffer.allocUnsafe(2 * PIECE);
		let kept = 0;
		for (;;) {
			if (buffer.length - kept < PIECE) {
				const larger = Buffer.allocUnsafe(kept + 2 * PIECE);
				buffer.copy(larger, 0, 0, kept);
				buffer = larger;
			}
			const read = readSync(fd, buffer, kept, PIECE, null);
			if (read === 0) break;
			const filled = kept + read;
			let start = 0;
			for (;;) {
				const end = buffer.indexOf(NEWLINE, start);
				if (end === -1 || end >= filled) break;
				if (end > start) takeLine(buffer, start, end, ids);
				start = end + 1;
			}
			buffer.copyWithin(0, start, filled);
			kept = filled - start;
		}
		if (kept > 0) takeLine(buffer, 0, kept, ids);
		return ids;
	} finally {
		closeSync(fd);
	}
}

/** Runs one mode in this process (the child's side). */
async function runMode(mode: Mode, file: string, dist: string): Promise<void> {
	if (mode === "start") return;
	if (mode === "import") {
		const bin = join(dist, "bin");
		const chunk = readdirSync(bin).find((name) => /^browse-[\w-]+\.js$/.test(name));
		if (chunk === undefined) throw new Error(`no browse chunk in ${bin} (npm run build bundles the CLI)`);
		await import(pathToFileURL(join(bin, chunk)).href);
		return;
	}
	if (mode === "read") {
		readOnly(file, PIECE);
		return;
	}
	if (readIds(file).parents.length === 0) throw new Error("no entry found");
}

function main(): void {
	const options = floorOptions();
	const { file, dist } = options;
	if (options.child !== undefined) {
		runMode(options.child as Mode, file, dist).catch((error) => {
			console.error(error);
			process.exit(1);
		});
		return;
	}
	const self = fileURLToPath(import.meta.url);
	const steps = [
		...MODES.map((mode) => ({ name: mode, args: [self, "--file", file, "--dist", dist, "--child", mode] })),
		{ name: "info", args: [join(dist, "bin", "session-tree.js"), "info", file] },
	];
	timeSteps(`browse's first-frame floor for ${file}`, steps, options.runs);
}

// Imported (a check of readIds), nothing runs.
if (process.argv[1] === fileURLToPath(import.meta.url)) main();
