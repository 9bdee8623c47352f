/**
 * A big Claude Code transcript made of real ones, for the benchmark's "direct read" family
 * (bench/generate-claude-code.ts) and the tests that read a transcript larger than the memory
 * they are given: the real transcripts of test/fixtures/real/claude-code/
 * (test/fixtures/real/SOURCES.md says where each is from) repeated until the file reaches the
 * size asked for. Each copy gets fresh uuids, message ids and tool call ids (derived from the
 * copy's number, so the file is the same every time), its timestamps moved on, and its roots
 * hung below the last main line of the copy before, so the file is one long conversation with
 * the real files' shapes: split responses, parallel tool calls and their results, progress and
 * hook lines, sidechains, summaries, a compaction, an image, large tool results.
 */

import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";

/** The real transcripts repeated, main sessions of several Claude Code versions (1.0.24 to 2.1.114). */
const SOURCES = [
	"spotter-2.1.39-ae4a77f8-compaction.jsonl",
	"ccl-2.0.42-7acd37a8-parallel.jsonl",
	"ccl-1.0.128-4379d1bf-image.jsonl",
	"ccl-2.1.114-ef958aa1-forward-parent-parallel.jsonl",
	"ccl-1.0.24-fe869ecb-summaries.jsonl",
	"ccl-1.0.56-12a546d1-fork.jsonl",
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const CALL_ID = /\b(toolu_|msg_|req_|call_)([A-Za-z0-9]+)/g;

/** What a generated transcript holds. */
export interface TranscriptStats {
	bytes: number;
	lines: number;
	copies: number;
}

/** A uuid derived from a copy's number and the uuid it replaces. */
function freshUuid(copy: number, old: string): string {
	const hex = createHash("sha1").update(`${copy}:${old}`).digest("hex");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Writes a transcript of about `bytes` bytes to `file`, made of the real transcripts in
 * `root`/test/fixtures/real/claude-code/.
 */
export function generateTranscript(file: string, bytes: number, root: string): TranscriptStats {
	const dir = join(root, "test", "fixtures", "real", "claude-code");
	const sources = SOURCES.map((name) =>
		readFileSync(join(dir, name), "utf8")
			.split("\n")
			.filter((line) => line.trim() !== ""),
	);
	const sessionId = "b3c4d5e6-0000-4000-8000-00000000beef";
	const keep = new Set<string>();
	for (const lines of sources) {
		for (const line of lines) {
			const id = (JSON.parse(line) as { sessionId?: unknown }).sessionId;
			if (typeof id === "string") keep.add(id);
		}
	}
	const fd = openSync(file, "w");
	let written = 0;
	let count = 0;
	let copy = 0;
	let lastMain: string | null = null;
	const start = Date.parse("2025-06-01T00:00:00.000Z");
	try {
		while (written < bytes) {
			const lines = sources[copy % sources.length] as string[];
			const shift = start + copy * 3_600_000;
			let first: number | undefined;
			const out: string[] = [];
			for (const line of lines) {
				// Ids of this copy: uuids (not the session's), message, request and tool call ids.
				const text = line
					.replace(UUID, (old) => (keep.has(old) ? sessionId : freshUuid(copy, old)))
					.replace(CALL_ID, (_all, prefix: string, rest: string) => `${prefix}${rest}c${copy}`);
				const record = JSON.parse(text) as Record<string, unknown>;
				if (typeof record.timestamp === "string") {
					const at = Date.parse(record.timestamp);
					if (!Number.isNaN(at)) {
						first ??= at;
						record.timestamp = new Date(shift + (at - first)).toISOString();
					}
				}
				// The copy's roots hang below the end of the copy before: one long conversation.
				if (record.parentUuid === null && record.isSidechain !== true && record.type !== "system") {
					record.parentUuid = lastMain;
				}
				if (typeof record.uuid === "string" && record.isSidechain !== true) lastMain = record.uuid;
				out.push(`${JSON.stringify(record)}\n`);
			}
			const chunk = Buffer.from(out.join(""));
			writeSync(fd, chunk);
			written += chunk.length;
			count += out.length;
			copy++;
		}
	} finally {
		closeSync(fd);
	}
	return { bytes: written, lines: count, copies: copy };
}
