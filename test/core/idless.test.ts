/**
 * "Version 3" files whose entries have no ids (issue 14): pi-like files other tools write, a
 * current header followed by entries without `id`/`parentId`. Strict opens reject them as
 * before; lenient opens chain them as v1 migration chains a v1 file; repair writes the result.
 * The fixtures and what they must give are described in test/fixtures/idless/README.md. Every
 * expected id below was computed by hand (FNV-1a of "SESSION_ID:POSITION", outside this code).
 */

import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { isSessionTreeError, loadTree, type ParsedLine, type RawRecord } from "../../src/core/index.js";
import { type LoadProblem, Session, type SessionEntry } from "../../src/index.js";
import { parseLine } from "../../src/storage/codec.js";
import { repoRoot } from "../support/fixtures.js";

const FIXTURES = join(repoRoot, "test", "fixtures", "idless");
const dir = mkdtempSync(join(tmpdir(), "session-tree-idless-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let copies = 0;
/** A private copy of a fixture (tests that write must not touch the fixture). */
function copyOf(name: string): string {
	const file = join(dir, `${copies++}-${name}.jsonl`);
	copyFileSync(join(FIXTURES, `${name}.jsonl`), file);
	return file;
}

/** [id, parentId] of every entry in file order. */
function chain(session: Session): Array<[string, string | null]> {
	return session.getEntries().map((entry) => [entry.id, entry.parentId]);
}

/** [role, text] of every context message: the text of its string content or of its text blocks. */
function contextOf(session: Session): Array<[string, string]> {
	return session.buildSessionContext().messages.map((message) => {
		const record = message as unknown as Record<string, unknown>;
		const content = record.content ?? record.summary;
		const text =
			typeof content === "string"
				? content
				: Array.isArray(content)
					? content
							.filter((block) => block?.type === "text")
							.map((block) => block.text)
							.join("")
					: "";
		return [String(record.role), text];
	});
}

function problemSummary(problems: readonly LoadProblem[]): Array<[string, number | undefined, number | undefined]> {
	return problems.map((problem) => [problem.code, problem.line, problem.endLine]);
}

// ---- what the fixtures must give, written by hand ---------------------------------------------

/** linear-chat.jsonl: entries 1..8 on lines 2..9, ids FNV-1a("0195f3a2-6c1e-7b40-9d2a-4e8f1c7b3a01:k"). */
const LINEAR_CHAIN: Array<[string, string | null]> = [
	["9a1ea2dc", null], // line 2: model_change anthropic/claude-sonnet-4-5
	["9d1ea795", "9a1ea2dc"], // line 3: user
	["9c1ea602", "9d1ea795"], // line 4: assistant with a tool call
	["971e9e23", "9c1ea602"], // line 5: toolResult
	["961e9c90", "971e9e23"], // line 6: assistant
	["991ea149", "961e9c90"], // line 7: model_change openai/gpt-5
	["981e9fb6", "991ea149"], // line 8: user
	["a31eb107", "981e9fb6"], // line 9: assistant (openai)
];
const LINEAR_CONTEXT: Array<[string, string]> = [
	["user", "How many lines are in notes.txt?"],
	["assistant", "Let me count them."],
	["toolResult", "12 notes.txt"],
	["assistant", "notes.txt has 12 lines."],
	["user", "Summarise it in one sentence."],
	["assistant", "Twelve errands for the week."],
];

/** mixed.jsonl: id-less entries at positions 3, 4, 7, 8, 9 (lines 4, 5, 8, 9, 10). */
const MIXED_CHAIN: Array<[string, string | null]> = [
	["aa000001", null],
	["aa000002", "aa000001"],
	["fdc15b59", "aa000002"], // line 4, id-less: under the real entry before it
	["fec15cec", "fdc15b59"], // line 5, id-less
	["bb000001", "aa000002"], // line 6, real: its own parent (a branch at aa000002)
	["bb000002", "bb000001"],
	["01c161a5", "bb000002"], // line 8, id-less label of aa000002
	["02c16338", "01c161a5"], // line 9, id-less
	["03c164cb", "02c16338"], // line 10, id-less: the leaf
];
const MIXED_CONTEXT: Array<[string, string]> = [
	["user", "Which port does the dev server use?"],
	["assistant", "Port 5173."],
	["user", "Can I change the dev port?"],
	["assistant", "Yes: set server.port in vite.config.ts."],
	["user", "Show me the line."],
	["assistant", "server: { port: 3000 }"],
];

describe("version 3 files whose entries have no ids", () => {
	test("strict open: the error is the one it always was (INVALID_RECORD at the first id-less line)", async () => {
		for (const [name, line, type] of [
			["linear-chat", 2, "model_change"],
			["mixed", 4, "message"],
		] as const) {
			const file = join(FIXTURES, `${name}.jsonl`);
			await assert.rejects(
				() => Session.open(file),
				(error: unknown) =>
					isSessionTreeError(error, "INVALID_RECORD") &&
					error.line === line &&
					error.file === file &&
					error.message === `${file}:${line}: the ${type} entry has no string id`,
			);
			// load: "context" reads from the end first; it must not hide the error either.
			await assert.rejects(
				() => Session.open(file, { load: "context" }),
				(error: unknown) => isSessionTreeError(error, "INVALID_RECORD") && error.line === line,
			);
		}
	});

	test("lenient open of a linear chat: chained in file order with v1-style ids, one problem", async () => {
		const file = join(FIXTURES, "linear-chat.jsonl");
		const before = readFileSync(file);
		const session = await Session.open(file, { lenient: true });
		assert.deepEqual(chain(session), LINEAR_CHAIN);
		assert.equal(session.getLeafId(), "a31eb107");
		assert.deepEqual(session.listBranches(), ["a31eb107"]);
		assert.deepEqual(contextOf(session), LINEAR_CONTEXT);
		const context = session.buildSessionContext();
		assert.deepEqual(context.model, { provider: "openai", modelId: "gpt-5" });
		assert.equal(context.thinkingLevel, "off");
		assert.deepEqual(problemSummary(session.problems), [["INVALID_RECORD", 2, 9]]);
		assert.equal(session.problems[0]?.entryId, "9a1ea2dc");
		assert.equal(
			session.problems[0]?.message,
			`8 entries without id and parentId on lines 2-9 of ${file}; chained in file order, each under the entry before it, with generated ids 9a1ea2dc to a31eb107`,
		);
		// The entries keep every field they had; type, id and parentId come first (pi's layout).
		const toolResult = session.getEntry("971e9e23") as unknown as Record<string, unknown>;
		assert.deepEqual(Object.keys(toolResult), ["type", "id", "parentId", "timestamp", "message"]);
		await session.close();
		assert.deepEqual(readFileSync(file), before, "opening never writes");
	});

	test("lenient open of a mixed file: real entries unchanged, id-less ones under the entry before them", async () => {
		const file = join(FIXTURES, "mixed.jsonl");
		const session = await Session.open(file, { lenient: true });
		assert.deepEqual(chain(session), MIXED_CHAIN);
		assert.equal(session.getLeafId(), "03c164cb");
		assert.deepEqual(session.listBranches().sort(), ["03c164cb", "fec15cec"]);
		assert.deepEqual(contextOf(session), MIXED_CONTEXT);
		assert.equal(session.getLabel("aa000002"), "ports", "an id-less label entry works");
		assert.deepEqual(problemSummary(session.problems), [
			["INVALID_RECORD", 4, 5],
			["INVALID_RECORD", 8, 10],
		]);
		assert.match(
			session.problems[0]?.message ?? "",
			/^2 entries without id and parentId on lines 4-5 of .*mixed\.jsonl;/,
		);
		assert.match(session.problems[1]?.message ?? "", /with generated ids 01c161a5 to 03c164cb$/);
		await session.close();
	});

	test("opening twice (and with verify) gives the same ids", async () => {
		for (const name of ["linear-chat", "mixed"]) {
			const file = join(FIXTURES, `${name}.jsonl`);
			const first = await Session.open(file, { lenient: true });
			const second = await Session.open(file, { lenient: true, verify: true });
			assert.deepEqual(chain(second), chain(first));
			assert.deepEqual(second.problems, first.problems);
		}
	});

	test("the same entries under a v1 header get the same ids (the v1 migration's rule)", async () => {
		const text = readFileSync(join(FIXTURES, "linear-chat.jsonl"), "utf8").replace('"version":3,', "");
		const file = join(dir, "as-v1.jsonl");
		writeFileSync(file, text);
		const v1 = await Session.open(file);
		assert.equal(v1.fileVersion, 1);
		assert.deepEqual(chain(v1), LINEAR_CHAIN);
		assert.deepEqual(v1.problems, []);
	});

	test("repair: a proper v3 file that opens strictly with the same context; the original kept byte for byte", async () => {
		for (const [name, expectedChain, expectedContext, leaf] of [
			["linear-chat", LINEAR_CHAIN, LINEAR_CONTEXT, "a31eb107"],
			["mixed", MIXED_CHAIN, MIXED_CONTEXT, "03c164cb"],
		] as const) {
			const file = copyOf(name);
			const original = readFileSync(file);
			const session = await Session.open(file, { lenient: true });
			const backup = await session.repair();
			await session.close();
			assert.equal(backup, `${file}.bak`);
			assert.deepEqual(readFileSync(backup), original);
			const repaired = await Session.open(file);
			assert.deepEqual(repaired.problems, []);
			assert.equal(repaired.fileVersion, 3);
			assert.deepEqual(chain(repaired), expectedChain);
			assert.equal(repaired.getLeafId(), leaf);
			assert.deepEqual(contextOf(repaired), expectedContext);
			// Every line has its id and parent in pi's place, so the file reads as pi writes it.
			const lines = readFileSync(file, "utf8").trimEnd().split("\n");
			assert.equal(lines.length, expectedChain.length + 1, "no leaf record: the leaf is the last entry");
			lines.slice(1).forEach((line, i) => {
				const [id, parentId] = expectedChain[i] ?? [];
				assert.ok(
					line.startsWith(`{"type":"${JSON.parse(line).type}","id":"${id}","parentId":${JSON.stringify(parentId)},`),
					line,
				);
			});
			await repaired.close();
		}
	});

	test("leaf records and labels naming generated ids keep working, before and after repair", async () => {
		const file = copyOf("linear-chat");
		const session = await Session.open(file, { lenient: true });
		await session.branch("9c1ea602");
		const label = await session.appendLabelChange("9d1ea795", "the question");
		await session.close();
		const again = await Session.open(file, { lenient: true });
		assert.deepEqual(chain(again).slice(0, 8), LINEAR_CHAIN, "the appended lines do not move the generated ids");
		assert.equal(again.getLeafId(), label);
		assert.equal(again.getEntry(label)?.parentId, "9c1ea602");
		assert.equal(again.getLabel("9d1ea795"), "the question");
		assert.deepEqual(contextOf(again), LINEAR_CONTEXT.slice(0, 2));
		assert.deepEqual(problemSummary(again.problems), [["INVALID_RECORD", 2, 9]]);
		await again.repair();
		await again.close();
		const repaired = await Session.open(file);
		assert.deepEqual(repaired.problems, []);
		assert.equal(repaired.getLeafId(), label);
		assert.equal(repaired.getLabel("9d1ea795"), "the question");
		assert.deepEqual(contextOf(repaired), LINEAR_CONTEXT.slice(0, 2));
		await repaired.close();
	});
});

// ---- the rule in detail, on streams written here ---------------------------------------------

const T = "2026-03-02T10:00:00.000Z";
const header = (id: string) => ({ type: "session", version: 3, id, timestamp: T, cwd: "/" });
const say = (role: string, text: string, extra: RawRecord = {}): RawRecord => ({
	type: "message",
	...extra,
	timestamp: T,
	message: { role, content: text, timestamp: 1 },
});
function stream(...records: RawRecord[]): ParsedLine[] {
	return records.map((record, i) => parseLine(JSON.stringify(record), i + 1, "s.jsonl"));
}
function entriesOf(tree: { getEntries(): SessionEntry[] }): Array<[string, string | null]> {
	return tree.getEntries().map((entry) => [entry.id, entry.parentId]);
}

describe("id-less entries: the rule in detail", () => {
	test("a compaction's v1 firstKeptEntryIndex names an entry by position; a firstKeptEntryId is kept", () => {
		// Ids: FNV-1a("idless-compaction:k") for k = 1..8.
		const lines = stream(
			header("idless-compaction"),
			say("user", "q1"), // 1 344be9a0
			say("assistant", "a1"), // 2 374bee59
			say("user", "q2"), // 3 364becc6
			say("assistant", "a2"), // 4 394bf17f
			{ type: "compaction", timestamp: T, summary: "first", firstKeptEntryIndex: 3, tokensBefore: 10 }, // 5 384befec
			say("user", "q3"), // 6 3b4bf4a5
		);
		const { tree, problems } = loadTree(lines, { lenient: true });
		assert.deepEqual(entriesOf(tree), [
			["344be9a0", null],
			["374bee59", "344be9a0"],
			["364becc6", "374bee59"],
			["394bf17f", "364becc6"],
			["384befec", "394bf17f"],
			["3b4bf4a5", "384befec"],
		]);
		const compaction = tree.getEntry("384befec") as unknown as Record<string, unknown>;
		assert.equal(compaction.firstKeptEntryId, "364becc6", "line index 3 (header = 0) is the third entry");
		assert.equal("firstKeptEntryIndex" in compaction, false, "replaced by the id, as v1 migration does");
		assert.deepEqual(problemSummary(problems), [["INVALID_RECORD", 2, 7]]);

		const kept = loadTree(
			stream(header("idless-compaction"), say("user", "q1"), say("assistant", "a1"), {
				type: "compaction",
				timestamp: T,
				summary: "s",
				firstKeptEntryId: "374bee59",
				tokensBefore: 1,
			}),
			{ lenient: true },
		);
		assert.equal((kept.tree.getEntry("364becc6") as { firstKeptEntryId?: string }).firstKeptEntryId, "374bee59");

		// An index naming no entry up to the compaction is kept as written; the compaction then has
		// no firstKeptEntryId, which is no damage: as pi reads such a compaction (its v1 migration
		// leaves one), nothing before it is kept. Only the run of id-less entries is reported.
		const dangling = loadTree(
			stream(header("idless-compaction"), say("user", "q1"), {
				type: "compaction",
				timestamp: T,
				summary: "s",
				firstKeptEntryIndex: 9,
				tokensBefore: 1,
			}),
			{ lenient: true },
		);
		const incomplete = dangling.tree.getEntry("374bee59") as unknown as Record<string, unknown>;
		assert.equal(incomplete.firstKeptEntryIndex, 9);
		assert.deepEqual(problemSummary(dangling.problems), [["INVALID_RECORD", 2, 3]]);
		assert.deepEqual(
			dangling.tree.getEntries().map((entry) => entry.type),
			["message", "compaction"],
		);
	});

	test("a generated id avoids every id of the stream, later lines included", () => {
		// FNV-1a("idless-collision:1") is 84832ef1, which line 3 uses: the id-less entry takes the next
		// candidate, FNV-1a("idless-collision:1#1") = 78c262e5, and the real entry keeps its id.
		const { tree, problems } = loadTree(
			stream(
				header("idless-collision"),
				say("user", "first"),
				say("user", "second", { id: "84832ef1", parentId: null }),
				say("assistant", "third"), // position 3: FNV-1a("idless-collision:3") = 82832bcb
			),
			{ lenient: true, file: "s.jsonl" },
		);
		assert.deepEqual(entriesOf(tree), [
			["78c262e5", null],
			["84832ef1", null],
			["82832bcb", "84832ef1"],
		]);
		assert.deepEqual(problemSummary(problems), [
			["INVALID_RECORD", 2, 2],
			["INVALID_RECORD", 4, 4],
		]);
		assert.match(problems[0]?.message ?? "", /^1 entry without id and parentId on line 2 of s\.jsonl; .* id 78c262e5$/);
	});

	test("no header at all: a header is made up and the first id-less line stays an entry", () => {
		// Ids: FNV-1a("recovered-session:1") = c859fd82, ":2" = c759fbef.
		const { tree, problems } = loadTree(stream(say("user", "q1"), say("assistant", "a1")), { lenient: true });
		assert.equal(tree.header.id, "recovered-session");
		assert.deepEqual(entriesOf(tree), [
			["c859fd82", null],
			["c759fbef", "c859fd82"],
		]);
		assert.deepEqual(problemSummary(problems), [
			["INVALID_HEADER", 1, undefined],
			["INVALID_RECORD", 1, 2],
		]);
	});

	test("records that are not id-less entries are judged as before", () => {
		for (const record of [
			{ type: "message", parentId: null, timestamp: T, message: { role: "user", content: "x" } },
			{ type: "message", id: "cccccccc", timestamp: T, message: { role: "user", content: "x" } },
			// A timestamp that is not a string (an entry without one at all is id-less: it is chained).
			{ type: "message", timestamp: 5, message: { role: "user", content: "x" } },
		]) {
			const { tree, problems } = loadTree(stream(header("s"), record), { lenient: true });
			assert.equal(tree.size, 0, JSON.stringify(record));
			assert.deepEqual(problemSummary(problems), [["INVALID_RECORD", 2, undefined]]);
		}
	});

	test("other writers' id-less lines: chained as they arrive, the same ids as a reopen", async () => {
		const session = await Session.create({ dir, cwd: "/p", id: "idless-others" });
		const q = await session.appendMessage({ role: "user", content: "ours", timestamp: 1 });
		const a = await session.appendMessage({ role: "user", content: "ours too", timestamp: 2 });
		const file = session.file as string;
		appendFileSync(
			file,
			`${JSON.stringify(say("user", "theirs"))}\n${JSON.stringify(say("assistant", "theirs too"))}\n`,
		);
		await session.refresh();
		// Positions 3 and 4: FNV-1a("idless-others:3") = c400fbac, ":4" = c300fa19.
		assert.deepEqual(chain(session), [
			[q, null],
			[a, q],
			["c400fbac", a],
			["c300fa19", "c400fbac"],
		]);
		assert.equal(session.getLeafId(), a, "their entries do not move this session's leaf");
		assert.deepEqual(problemSummary(session.problems), [["INVALID_RECORD", 4, 5]]);
		await session.close();
		const reopened = await Session.open(file, { lenient: true });
		assert.deepEqual(chain(reopened), chain(session));
		await assert.rejects(
			() => Session.open(file),
			(error: unknown) => isSessionTreeError(error, "INVALID_RECORD") && error.line === 4,
		);
	});
});
