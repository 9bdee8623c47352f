/**
 * pi files as pi 0.73.1 reads them (issue 22, item 7): a v1 compaction's `firstKeptEntryIndex`,
 * a header that names its parent with the older key `branchedFrom`, and a leading
 * `thinking_level_change` without id and timestamp in a v3 file without ids. The expected
 * values come from pi's own SessionManager run on the same file (a copy: pi rewrites what it
 * migrates), or from the file's own lines.
 */

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { Session } from "../../src/index.js";
import { cli } from "../cli/helpers.js";
import { asJson, repoRoot } from "../support/fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "st-pi-files-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let copies = 0;
/** A copy of `file` in the test's directory. */
function copyOf(file: string): string {
	const copy = join(dir, `copy-${++copies}.jsonl`);
	copyFileSync(file, copy);
	return copy;
}

/** pi's context of a file (opened from a copy). */
function piContext(file: string): unknown {
	return asJson(SessionManager.open(copyOf(file), dir).buildSessionContext());
}

async function ourContext(file: string, lenient = false): Promise<unknown> {
	const session = await Session.open(file, { lenient });
	try {
		return asJson(session.buildSessionContext());
	} finally {
		await session.close();
	}
}

/** A real pi v1 session from pi-mono (MIT): see test/fixtures/real/SOURCES.md. */
const BEFORE_COMPACTION = join(repoRoot, "test/fixtures/real/pi/pi-mono-v1-before-compaction.jsonl");

/** The codes of `validate --json`. */
async function validateCodes(file: string): Promise<string[]> {
	const result = await cli(["validate", file, "--json"]);
	return (JSON.parse(result.stdout) as Array<{ code: string }>).map((problem) => problem.code);
}

describe("pi files", () => {
	test("a real v1 session with firstKeptEntryIndex compactions and branchedFrom: pi's context, its parent, repairable", async () => {
		const pi = piContext(BEFORE_COMPACTION);
		assert.deepEqual(await ourContext(BEFORE_COMPACTION), pi);
		// The file's own problem is in its context (a call the user interrupted, line by line in
		// ctx: the assistant message of entry 17d331f8 calls bash, then the user types): nothing
		// of the file itself, its compactions included.
		assert.deepEqual(await validateCodes(BEFORE_COMPACTION), ["TOOL_CALL_WITHOUT_RESULT"]);
		// The parent, as the header's first line names it.
		const header = JSON.parse(readFileSync(BEFORE_COMPACTION, "utf8").split("\n")[0] as string) as Record<
			string,
			string
		>;
		assert.equal(typeof header.branchedFrom, "string");
		assert.equal(header.parentSession, undefined);
		const info = await cli(["info", BEFORE_COMPACTION, "--json"]);
		assert.equal((JSON.parse(info.stdout) as { parentSession: string }).parentSession, header.branchedFrom);
		// migrate (repair does the same for a v1 file) writes v3 that pi and we read as before.
		const copy = copyOf(BEFORE_COMPACTION);
		const migrated = await cli(["repair", copy]);
		assert.equal(migrated.code, 0, migrated.stderr);
		assert.deepEqual(await validateCodes(copy), ["TOOL_CALL_WITHOUT_RESULT"]);
		assert.deepEqual(await ourContext(copy), pi);
		assert.deepEqual(piContext(copy), pi);
		// Its two compactions name the kept entry by id now (pi's migration resolved both indexes).
		const compactions = readFileSync(copy, "utf8")
			.trimEnd()
			.split("\n")
			.map((text) => JSON.parse(text) as Record<string, unknown>)
			.filter((record) => record.type === "compaction");
		assert.deepEqual(
			compactions.map((c) => [typeof c.firstKeptEntryId, "firstKeptEntryIndex" in c]),
			[
				["string", false],
				["string", false],
			],
		);
	});

	test("a v1 compaction whose firstKeptEntryIndex names an entry after it keeps nothing before it, as in pi", async () => {
		const file = join(dir, "v1-dangling.jsonl");
		const line = (value: object) => `${JSON.stringify(value)}\n`;
		const T = (s: number) => `2025-11-20T10:00:0${s}.000Z`;
		const message = (s: number, text: string) =>
			line({ type: "message", timestamp: T(s), message: { role: "user", content: text, timestamp: s } });
		writeFileSync(
			file,
			line({ type: "session", id: "v1-dangling", timestamp: T(0), cwd: "/p" }) +
				message(1, "one") +
				message(2, "two") +
				line({ type: "compaction", timestamp: T(3), summary: "s", firstKeptEntryIndex: 5, tokensBefore: 1 }) +
				message(4, "three"),
		);
		// pi's migration finds no id at index 5 (entries after the compaction have none yet) and drops the index.
		const pi = piContext(file) as { messages: Array<{ role: string }> };
		assert.deepEqual(
			pi.messages.map((m) => m.role),
			["compactionSummary", "user"],
		);
		assert.deepEqual(await ourContext(file), pi, "strict: the compaction is no damage");
		assert.deepEqual(await validateCodes(file), []);
		const repaired = await cli(["repair", file]);
		assert.equal(repaired.code, 0, repaired.stderr);
		assert.doesNotMatch(repaired.stderr, /INVALID_RECORD|left out of the context/);
		assert.deepEqual(await validateCodes(file), []);
		assert.deepEqual(await ourContext(file), pi);
		assert.deepEqual(piContext(file), pi);
	});

	test("a v3 file without ids: a leading thinking_level_change without id and timestamp is chained", async () => {
		const file = join(dir, "idless-thinking.jsonl");
		writeFileSync(
			file,
			[
				{ type: "session", version: 3, id: "idless-thinking", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" },
				{ type: "thinking_level_change", thinkingLevel: "high" },
				{
					type: "message",
					timestamp: "2026-01-01T00:00:01.000Z",
					message: { role: "user", content: "hi", timestamp: 1 },
				},
			]
				.map((record) => `${JSON.stringify(record)}\n`)
				.join(""),
		);
		const lenient = (await ourContext(file, true)) as { thinkingLevel: string; messages: unknown[] };
		assert.equal(lenient.thinkingLevel, "high");
		assert.equal(lenient.messages.length, 1);
		const repaired = await cli(["repair", file]);
		assert.equal(repaired.code, 0, repaired.stderr);
		assert.match(
			repaired.stderr,
			/1 of them had no timestamp and got the time of the entry before it \(or the header's\)/,
		);
		const [, thinking] = readFileSync(file, "utf8").trimEnd().split("\n");
		// The header's time, after parentId as pi places it.
		assert.match(
			thinking ?? "",
			/^\{"type":"thinking_level_change","id":"[0-9a-f]{8}","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","thinkingLevel":"high"\}$/,
		);
		assert.deepEqual(await validateCodes(file), []);
		// pi reads the repaired file with the same context, thinking level included.
		assert.deepEqual(piContext(file), lenient);
		assert.deepEqual(await ourContext(file), lenient);
	});
});
