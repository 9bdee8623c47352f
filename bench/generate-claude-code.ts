/**
 * The big Claude Code transcript of the "direct read" family of `npm run bench`
 * (test/support/claude-code-transcript.ts makes it of real transcripts), kept in bench/data.
 *
 * Also runs alone: `node bench/data/.build/bench/generate-claude-code.js [--mib 130] [--out FILE]`.
 */

import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { generateTranscript, type TranscriptStats } from "../test/support/claude-code-transcript.js";
import { DATA_DIR, REPO_ROOT } from "./generate.js";

/** Bumped when the output changes, so that a stale file is made again. */
const VERSION = 1;

/** The bench's transcript of about `mib` MiB in bench/data, made if missing or stale. */
export function ensureTranscript(
	mib: number,
	log: (line: string) => void = () => {},
): { file: string } & TranscriptStats {
	const file = join(DATA_DIR, `claude-code-${mib}m.jsonl`);
	const metaFile = `${file}.meta.json`;
	if (existsSync(file) && existsSync(metaFile)) {
		try {
			const meta = JSON.parse(readFileSync(metaFile, "utf8")) as { version: number; stats: TranscriptStats };
			if (meta.version === VERSION && statSync(file).size === meta.stats.bytes) return { file, ...meta.stats };
		} catch {
			// made again
		}
	}
	log(`generating a ${mib} MiB Claude Code transcript...`);
	const stats = generateTranscript(file, mib * 2 ** 20, REPO_ROOT);
	writeFileSync(metaFile, `${JSON.stringify({ version: VERSION, stats }, null, "\t")}\n`);
	return { file, ...stats };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
	const argv = process.argv.slice(2);
	const arg = (name: string) => {
		const i = argv.indexOf(name);
		return i >= 0 ? argv[i + 1] : undefined;
	};
	const out = arg("--out");
	const mib = Number(arg("--mib") ?? 130);
	if (out) console.log(JSON.stringify(generateTranscript(resolve(out), mib * 2 ** 20, REPO_ROOT)));
	else console.log(JSON.stringify(ensureTranscript(mib, console.log)));
}
