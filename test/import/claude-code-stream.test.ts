/**
 * A Claude Code transcript read directly is read in a stream (src/import/claude-code-lazy.ts):
 * its lines from the file, in chunks, and of each entry only the envelope and the recipe that
 * makes its body again from the file. Checked here:
 * - for every Claude Code file of the samples and of the real corpus, strict and lenient, the
 *   streamed read is the session the import makes: the same records in the same order (each
 *   body made again from the file), the same leaf record, the same reports; the same error
 *   where the import fails;
 * - the command line reads a transcript (made of real ones) larger than the memory its process
 *   is given, where reading it whole needed several times its size (`ctx`, `tree`, and `md`,
 *   `html` and `import`, which write as they read);
 * - a transcript changed in place after it was opened is an IO_ERROR naming the file and the
 *   line, never a wrong body.
 */

import assert from "node:assert/strict";
import { closeSync, copyFileSync, openSync, readdirSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { Envelope } from "../../src/core/tree-node.js";
import { streamTranscript } from "../../src/import/claude-code-lazy.js";
import { importText, sessionRecords } from "../../src/import/index.js";
import { openForeignFile } from "../../src/import/open-foreign.js";
import { fileLines } from "../../src/import/source-lines.js";
import { cli } from "../cli/helpers.js";
import { generateTranscript } from "../support/claude-code-transcript.js";
import { asJson, REPO, removeTemps, SAMPLES, tempDir } from "./helpers.js";

after(removeTemps);

const FILES = [join(SAMPLES, "claude-code"), join(REPO, "test", "fixtures", "real", "claude-code")].flatMap((dir) =>
	readdirSync(dir)
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(dir, name)),
);

/** What reading `file` gives: its records (bodies made again) and reports, or the error. */
function streamed(
	file: string,
	lenient: boolean,
): { records?: unknown[]; skipped?: readonly unknown[]; error?: unknown } {
	const lines = fileLines(file);
	try {
		const read = streamTranscript({ name: file, lenient }, lines);
		if (!read) return { records: [] };
		const envelopes = read.read.lines.filter((line): line is Envelope => line.envelope !== undefined);
		// All bodies in one pass (lines shared by several entries read once), and one of them alone.
		const texts = read.read.source?.readLines(envelopes) ?? [];
		const bodies = new Map(envelopes.map((envelope, i) => [envelope, JSON.parse(texts[i] as string) as unknown]));
		const last = envelopes.at(-1);
		if (last) assert.deepEqual(JSON.parse(read.read.source?.readLines([last])[0] as string), bodies.get(last));
		const records = read.read.lines.map((line) => (line.envelope ? bodies.get(line.envelope) : line.record));
		return { records, skipped: read.skipped };
	} catch (error) {
		return { error };
	} finally {
		lines.close();
	}
}

/** What the import of `file` gives (the records it writes), or the error. */
async function imported(file: string, lenient: boolean): Promise<ReturnType<typeof streamed>> {
	try {
		const [session] = await importText(readFileSync(file, "utf8"), file, { from: "claude-code", lenient });
		return session
			? { records: asJson(sessionRecords(session)) as unknown[], skipped: session.skipped }
			: { records: [] };
	} catch (error) {
		return { error };
	}
}

describe("a Claude Code transcript read in a stream", () => {
	for (const lenient of [false, true]) {
		test(`is the session its import makes, for every sample and real transcript (${lenient ? "lenient" : "strict"})`, async () => {
			assert.ok(FILES.length >= 30, `${FILES.length} files`);
			for (const file of FILES) {
				const expected = await imported(file, lenient);
				const actual = streamed(file, lenient);
				if (expected.error !== undefined) {
					assert.ok(isSessionTreeError(expected.error), file);
					assert.ok(isSessionTreeError(actual.error), `${file}: ${String(actual.error)}`);
					assert.equal(actual.error.code, expected.error.code, file);
					assert.equal(actual.error.message, expected.error.message, file);
					continue;
				}
				assert.equal(actual.error, undefined, `${file}: ${String(actual.error)}`);
				assert.deepEqual(actual.records, expected.records, file);
				assert.deepEqual(actual.skipped, expected.skipped, file);
			}
		});
	}

	test("the command line reads a transcript larger than the memory its process is given", async () => {
		const file = join(tempDir(), "big.jsonl");
		const { bytes } = generateTranscript(file, 40 * 2 ** 20, REPO);
		assert.ok(bytes > 40 * 2 ** 20);
		// A heap of 80 MiB, twice the file: reading it whole (one string, every line parsed, the
		// session its import makes held twice) needed more than three times the file; the stream
		// holds the envelopes and a few lines at a time.
		const env = { NODE_OPTIONS: "--max-old-space-size=80" };
		const ctx = await cli(["ctx", file, "--json"], { env });
		assert.equal(ctx.code, 0, ctx.stderr.slice(0, 500));
		const context = JSON.parse(ctx.stdout) as { messages: unknown[] };
		assert.ok(context.messages.length > 0);
		const tree = await cli(["tree", file], { env });
		assert.equal(tree.code, 0, tree.stderr.slice(0, 500));
		assert.match(tree.stdout, /← leaf/);
		// The path as Markdown and the whole session as a page are written as they are read, one
		// body at a time: made whole (every body held, one string), they needed more than this heap.
		const md = await cli(["md", file], { env });
		assert.equal(md.code, 0, md.stderr.slice(0, 500));
		assert.match(md.stdout, /^# .*\n\nSession `b3c4d5e6-0000-4000-8000-00000000beef`/);
		assert.ok(md.stdout.split("\n### ").length > 1000);
		const page = join(tempDir(), "big.html");
		const html = await cli(["html", file, "-o", page], { env });
		assert.equal(html.code, 0, html.stderr.slice(0, 500));
		assert.ok(statSync(page).size > 10 * 2 ** 20);
		// The page ends with the session's view and the client's script (170 KB) after the records:
		// the page was written to its end. (The last 200,000 characters held it until the
		// client grew by 840 bytes; a megabyte leaves room.)
		assert.match(
			readFileSync(page, "utf8").slice(-1_000_000),
			/<\/script>\n<script type="application\/base64\+json" id="session-view">/,
		);
		// The import makes its records from the file a batch at a time as it writes them: read as
		// one text and held as records, it needed twice this heap.
		const dir = join(tempDir(), "imported");
		const imported = await cli(["import", file, "--dir", dir], { env });
		assert.equal(imported.code, 0, imported.stderr.slice(0, 500));
		assert.match(imported.stderr, /1 session: 1 written/);
		const [written] = readdirSync(dir);
		assert.ok(written !== undefined && statSync(join(dir, written)).size > 40 * 2 ** 20);
	});

	test("a transcript changed in place after it was opened is an IO_ERROR naming the file and line", async () => {
		const file = join(tempDir(), "transcript.jsonl");
		copyFileSync(join(REPO, "test", "fixtures", "real", "claude-code", "ccl-2.0.42-7acd37a8-parallel.jsonl"), file);
		const found = await openForeignFile(file);
		assert.ok(found);
		// Rewritten in place (the same file, not a new one renamed over it): the lines are no JSON any more.
		const fd = openSync(file, "r+");
		writeSync(fd, Buffer.alloc(statSync(file).size, "x"), 0);
		closeSync(fd);
		assert.throws(
			() => found.session.getEntries(),
			(error: unknown) =>
				isSessionTreeError(error, "IO_ERROR") &&
				error.file === file &&
				typeof error.line === "number" &&
				/changed in place/.test(error.message),
		);
		await found.session.close();
	});
});
