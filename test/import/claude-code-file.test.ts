/**
 * `session-tree import FILE` of a Claude Code transcript reads it in a stream
 * (src/import/claude-code-file.ts): the file line by line, never as one text, and the records
 * made from it a batch at a time as they are written. Checked here, for every Claude Code file
 * of the samples and of the real corpus, strict and lenient, against the import held in memory
 * (`importText`, then `writeSessions`, as the command did before): the same files byte for byte,
 * the same report (status, records, tool pairing, skips) or the same error; a re-run changes
 * nothing; a grown transcript appends what the import in memory appends; `--from claude-code`
 * on another format fails with the same message. (That it imports a transcript larger than its
 * heap: claude-code-stream.test.ts.)
 */

import assert from "node:assert/strict";
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionTreeError } from "../../src/core/errors.js";
import { toolPairingOfRecords } from "../../src/import/context-check.js";
import { FORMAT_NAMES } from "../../src/import/detect.js";
import {
	type ImportReport,
	type ImportTextOptions,
	importSources,
	importText,
	sessionRecords,
	type WriteResult,
	writeSessions,
} from "../../src/import/index.js";
import type { ImportedSession } from "../../src/import/types.js";
import { DirectoryCollection } from "../../src/storage/directory-collection.js";
import { REPO, removeTemps, SAMPLES, sample, tempDir } from "./helpers.js";

after(removeTemps);

const FILES = [join(SAMPLES, "claude-code"), join(REPO, "test", "fixtures", "real", "claude-code")].flatMap((dir) =>
	readdirSync(dir)
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(dir, name)),
);

/** Every file of a directory (one level: an import's `--dir`), name → text. */
function snapshot(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	for (const name of readdirSync(dir).sort()) out[name] = readFileSync(join(dir, name), "utf8");
	return out;
}

/**
 * What a report says of its sessions and failures, comparable across runs into different
 * directories (`dir`, named DIR in messages).
 */
function summary(report: ImportReport, dir: string): unknown {
	return {
		sessions: report.sessions.map(({ location: _location, ...rest }) => rest),
		skipped: report.skipped,
		failures: report.failures.map((failure) => ({
			source: failure.source,
			message: failure.error.message.replaceAll(dir, "DIR"),
		})),
	};
}

/**
 * The import held in memory, as `importSources` made it before it streamed: the whole text
 * imported, every record written from memory. Its report as `summary` gives it.
 */
async function inMemory(file: string, dir: string, options: ImportTextOptions): Promise<unknown> {
	let sessions: ImportedSession[];
	try {
		sessions = await importText(readFileSync(file, "utf8"), file, options);
	} catch (error) {
		return { sessions: [], skipped: [], failures: [{ source: file, message: (error as Error).message }] };
	}
	const conversation = sessions.some((s) =>
		s.records.some((r) => r.type === "message" || r.type === "custom_message" || r.type === "compaction"),
	);
	if (!conversation) {
		const words = sessions[0] ? FORMAT_NAMES[sessions[0].format] : "a file";
		const { message } = new SessionTreeError(
			"INVALID_ARGUMENT",
			`${file}: ${words} that holds no conversation (no message in it): nothing to import`,
			{ file },
		);
		return { sessions: [], skipped: [], failures: [{ source: file, message }] };
	}
	const collection = new DirectoryCollection(dir);
	let results: WriteResult[];
	try {
		results = await writeSessions(sessions, () => ({ collection }));
	} catch (error) {
		const message = (error as Error).message.replaceAll(dir, "DIR");
		return { sessions: [], skipped: [], failures: [{ source: file, message }] };
	}
	return {
		sessions: results.map(({ location, ...rest }, i) => {
			const imported = sessions[i] as ImportedSession;
			return {
				...rest,
				source: file,
				sessionId: imported.header.id,
				format: imported.format,
				toolPairing: toolPairingOfRecords(sessionRecords(imported), location),
			};
		}),
		skipped: sessions.flatMap((s) => s.skipped),
		failures: [],
	};
}

describe("a Claude Code transcript imported in a stream", () => {
	for (const lenient of [false, true]) {
		test(`writes what the import in memory writes, for every sample and real transcript (${lenient ? "lenient" : "strict"})`, async () => {
			assert.ok(FILES.length >= 30, `${FILES.length} files`);
			let written = 0;
			for (const file of FILES) {
				const streamed = join(tempDir(), "streamed");
				const held = join(tempDir(), "held");
				const report = await importSources([file], { dir: streamed, lenient });
				const expected = await inMemory(file, held, { lenient });
				assert.deepEqual(summary(report, streamed), expected, file);
				if (report.failures.length > 0) continue;
				assert.deepEqual(snapshot(streamed), snapshot(held), file);
				written++;
				// Again: nothing changes.
				const again = await importSources([file], { dir: streamed, lenient });
				assert.deepEqual(
					again.sessions.map((s) => s.status),
					["unchanged"],
					file,
				);
				assert.deepEqual(snapshot(streamed), snapshot(held), file);
			}
			assert.ok(written >= 25, `${written} written`);
		});
	}

	test("a grown transcript appends what the import in memory appends", async () => {
		let appended = 0;
		for (const file of FILES) {
			const text = readFileSync(file, "utf8");
			const lines = text.split("\n").filter((line) => line.trim() !== "");
			if (lines.length < 6) continue;
			const work = tempDir();
			const source = join(work, "transcript.jsonl");
			const streamed = join(work, "streamed");
			const held = join(work, "held");
			// The earlier file: its first two thirds.
			writeFileSync(source, `${lines.slice(0, Math.ceil((lines.length * 2) / 3)).join("\n")}\n`);
			const first = await importSources([source], { dir: streamed, lenient: true });
			const firstHeld = await inMemory(source, held, { lenient: true });
			assert.deepEqual(summary(first, streamed), firstHeld, file);
			if (first.failures.length > 0) continue;
			copyFileSync(file, source);
			const grown = await importSources([source], { dir: streamed, lenient: true });
			const grownHeld = await inMemory(source, held, { lenient: true });
			assert.deepEqual(summary(grown, streamed), grownHeld, file);
			assert.deepEqual(snapshot(streamed), snapshot(held), file);
			if (grown.sessions[0]?.status === "appended") appended++;
		}
		assert.ok(appended >= 10, `${appended} appended`);
	});

	test("--from claude-code on another format fails as the import in memory fails, saying what it looks like", async () => {
		const file = sample("chatgpt", "librechat-chatgpt-export.json");
		const dir = join(tempDir(), "d");
		const report = await importSources([file], { dir, from: "claude-code" });
		const expected = await inMemory(file, join(tempDir(), "e"), { from: "claude-code" });
		assert.deepEqual(summary(report, dir), expected);
		assert.match(report.failures[0]?.error.message ?? "", /it looks like a ChatGPT export/);
	});
});
