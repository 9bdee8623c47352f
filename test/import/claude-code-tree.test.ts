/**
 * The Claude Code importer on what issue 22 found in real transcripts: parallel tool calls whose
 * results hang off their own call's line, a parent that comes later in the file, summaries
 * naming a later line, odd lines under `--lenient`, and cycles. Real files are in
 * test/fixtures/real/claude-code/ (copied byte for byte from the corpus; provenance in
 * test/fixtures/real/SOURCES.md). Expectations are derived from the source JSON in the test
 * itself (walking `parentUuid` from the last line, collecting `tool_use` ids) or by hand from
 * a listing of each line's type, uuid, parentUuid, message.id and content blocks; the comment
 * above each test says which.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { buildSessionContext } from "../../src/core/context.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { ContextMessage, SessionEntry } from "../../src/core/types.js";
import { importClaudeCode } from "../../src/import/claude-code.js";
import type { ImportedSession } from "../../src/import/types.js";
import { repoRoot } from "../support/fixtures.js";

type Json = Record<string, unknown>;
const realDir = join(repoRoot, "test", "fixtures", "real", "claude-code");

function real(name: string): { text: string; lines: Json[] } {
	const text = readFileSync(join(realDir, name), "utf8");
	const lines = text
		.split("\n")
		.filter((l) => l.trim() !== "")
		.map((l) => JSON.parse(l) as Json);
	return { text, lines };
}

function importOne(name: string, text: string, lenient = false): ImportedSession {
	const sessions = importClaudeCode({ name, text, lenient });
	assert.equal(sessions.length, 1);
	return sessions[0] as ImportedSession;
}

function pathOf(session: ImportedSession): SessionEntry[] {
	const byId = new Map(session.records.map((r) => [r.id, r]));
	const path: SessionEntry[] = [];
	for (let e = byId.get(session.leafId ?? ""); e; e = byId.get(e.parentId ?? "")) path.unshift(e);
	return path;
}

function leaves(session: ImportedSession): SessionEntry[] {
	const parents = new Set(session.records.map((r) => r.parentId));
	return session.records.filter((r) => !parents.has(r.id));
}

/** Every uuid of the source an entry stands for (each line of a merged response, or a custom entry's line). */
function uuidsOf(entry: SessionEntry): string[] {
	const e = entry as unknown as Json;
	if (e.type === "custom") {
		const data = e.data as Json;
		return typeof data.uuid === "string" ? [data.uuid] : [];
	}
	const source = e.source as Json | undefined;
	const lines = source?.lines as Json[] | undefined;
	if (lines) return lines.map((l) => l.uuid).filter((u): u is string => typeof u === "string");
	return typeof source?.uuid === "string" ? [source.uuid] : [];
}

function assertParentsFirst(session: ImportedSession): void {
	const seen = new Set<string>();
	for (const r of session.records) {
		if (r.parentId !== null) assert.ok(seen.has(r.parentId), `the parent of ${r.id} comes before it`);
		seen.add(r.id);
	}
}

/** The `tool_use` ids of the source's assistant lines (read from the JSON, not through the importer). */
function toolUseIds(lines: readonly Json[]): string[] {
	const ids: string[] = [];
	for (const r of lines) {
		const content = (r.message as Json | undefined)?.content;
		if (r.type !== "assistant" || !Array.isArray(content)) continue;
		for (const b of content as Json[]) if (b.type === "tool_use") ids.push(String(b.id));
	}
	return ids;
}

/**
 * Each assistant message with tool calls is followed by exactly its results (in any order),
 * and every call in the context has one: what a provider accepts.
 */
function assertCallsAnswered(messages: readonly ContextMessage[]): string[] {
	const answered: string[] = [];
	for (let i = 0; i < messages.length; i++) {
		const m = messages[i] as Json;
		if (m.role !== "assistant") continue;
		const calls = (m.content as Json[]).filter((b) => b.type === "toolCall").map((b) => String(b.id));
		if (calls.length === 0) continue;
		const results = messages.slice(i + 1, i + 1 + calls.length) as Json[];
		assert.deepEqual(
			results.map((r) => r.role),
			calls.map(() => "toolResult"),
			`the results of message ${i} follow it`,
		);
		assert.deepEqual(new Set(results.map((r) => r.toolCallId)), new Set(calls));
		answered.push(...calls);
	}
	return answered;
}

describe("parallel tool calls (Claude Code 2.x: one assistant line per call, each result below its own call)", () => {
	// ccl-2.1.114-subagent-a4ca7529-parallel.jsonl, from the listing: 56 lines, 24 tool_use
	// blocks; the responses of lines 7-8, 11-12, 15-16 and 19-20 each hold two calls (one line
	// each, sharing message.id), and their results (lines 9-10, 13-14, 17-18, 21-22) name their
	// own call's line as parent, so lines 7, 11, 15 and 19 have two children. Followed literally,
	// the leaf context held 20 results for 24 calls.
	const name = "ccl-2.1.114-subagent-a4ca7529-parallel.jsonl";
	const { text, lines } = real(name);
	const session = importOne(name, text);
	const path = pathOf(session);
	const messages = buildSessionContext(path).messages;

	test("one path: every call and every result of the file is in the leaf context, each result right after its call", () => {
		assert.equal(leaves(session).length, 1, "no pseudo-branches are left");
		assert.equal(path.length, session.records.length);
		const answered = assertCallsAnswered(messages);
		assert.deepEqual(new Set(answered), new Set(toolUseIds(lines)));
		assert.equal(answered.length, 24);
		assertParentsFirst(session);
	});

	test("the results of one response follow its message in file order; each keeps its own parentUuid", () => {
		// Lines 11-12 (calls …zsmPJ1, …VKW1H8) are one message; line 13 answers line 12's call, line 14 line 11's.
		const at = (n: number) => session.records.find((r) => uuidsOf(r)[0] === lines[n - 1]?.uuid) as SessionEntry;
		const response = at(11);
		assert.deepEqual(uuidsOf(response), [lines[10]?.uuid, lines[11]?.uuid]);
		const first = at(13);
		const second = at(14);
		assert.equal(first.parentId, response.id);
		assert.equal(second.parentId, first.id, "the second result hangs below the first");
		const kept = ((second as unknown as Json).source as Json).lines as Json[];
		assert.equal(((kept[0] as Json).record as Json).parentUuid, lines[10]?.uuid, "its source still names line 11");
		// The next response (line 15) names line 14 as parent and follows both results.
		assert.equal(at(15).parentId, second.id);
	});

	test("a 2.1.17 subagent: 15 records with several children, all of them parallel results: one leaf, every result", () => {
		const other = "ccl-2.1.17-subagent-a2271d1-parallel-forks.jsonl";
		const source = real(other);
		const imported = importOne(other, source.text);
		assert.equal(leaves(imported).length, 1);
		const answered = assertCallsAnswered(buildSessionContext(pathOf(imported)).messages);
		assert.deepEqual(new Set(answered), new Set(toolUseIds(source.lines)));
		assert.equal(answered.length, 24);
	});

	test("a real rewind stays a branch: 1.0.56, line 1 has two user children (/clear, and a `!` command)", () => {
		const other = "ccl-1.0.56-12a546d1-fork.jsonl";
		const imported = importOne(other, real(other).text);
		const ends = leaves(imported).map((l) => (((l as unknown as Json).source as Json).lines as Json[])[0]?.line);
		assert.deepEqual(ends, [3, 113]);
	});

	test("calls of one response whose results are written late, between other lines, still join it", () => {
		const jsonl = [
			{
				type: "user",
				uuid: "u1",
				parentUuid: null,
				timestamp: "2026-01-01T00:00:00Z",
				message: { role: "user", content: "go" },
			},
			...["a", "b", "c"].map((id, i) => ({
				type: "assistant",
				uuid: `a${i + 1}`,
				parentUuid: i === 0 ? "u1" : `a${i}`,
				timestamp: "2026-01-01T00:00:01Z",
				message: {
					id: "msg1",
					role: "assistant",
					model: "m",
					content: [{ type: "tool_use", id: `t${id}`, name: "Read", input: {} }],
				},
			})),
			// Results in another order than the calls, each below its own call, with a hook line between.
			{
				type: "user",
				uuid: "r3",
				parentUuid: "a3",
				timestamp: "2026-01-01T00:00:02Z",
				message: { role: "user", content: [{ type: "tool_result", tool_use_id: "tc", content: "3" }] },
			},
			{ type: "progress", uuid: "p1", parentUuid: "r3", timestamp: "2026-01-01T00:00:02Z", data: {} },
			{
				type: "user",
				uuid: "r1",
				parentUuid: "a1",
				timestamp: "2026-01-01T00:00:03Z",
				message: { role: "user", content: [{ type: "tool_result", tool_use_id: "ta", content: "1" }] },
			},
			{
				type: "user",
				uuid: "r2",
				parentUuid: "a2",
				timestamp: "2026-01-01T00:00:04Z",
				message: { role: "user", content: [{ type: "tool_result", tool_use_id: "tb", content: "2" }] },
			},
			{
				type: "assistant",
				uuid: "a4",
				parentUuid: "r2",
				timestamp: "2026-01-01T00:00:05Z",
				message: { id: "msg2", role: "assistant", model: "m", content: [{ type: "text", text: "done" }] },
			},
		]
			.map((l) => JSON.stringify(l))
			.join("\n");
		const imported = importOne("late.jsonl", `${jsonl}\n`);
		assert.equal(leaves(imported).length, 1);
		const roles = buildSessionContext(pathOf(imported)).messages.map((m) => {
			const x = m as Json;
			return x.role === "toolResult" ? `result ${String(x.toolCallId)}` : String(x.role);
		});
		assert.deepEqual(roles, ["user", "assistant", "result tc", "result ta", "result tb", "assistant"]);
	});

	test("a second result for a call already answered is a branch, not a join", () => {
		const base = [
			{ type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "go" } },
			{
				type: "assistant",
				uuid: "a1",
				parentUuid: "u1",
				message: { id: "m1", role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
			},
			{
				type: "user",
				uuid: "r1",
				parentUuid: "a1",
				message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
			},
			{
				type: "user",
				uuid: "r1b",
				parentUuid: "a1",
				message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "y" }] },
			},
		];
		const imported = importOne("again.jsonl", `${base.map((l) => JSON.stringify(l)).join("\n")}\n`);
		assert.equal(leaves(imported).length, 2);
	});
});

describe("links followed after reading the whole file", () => {
	// ccl-2.1.114-ef958aa1-forward-parent-parallel.jsonl: line 145 (an attachment) names as
	// parent the uuid of line 146. Read in one pass it became a root and the active path held 29
	// entries. The expectation walks parentUuid from the last line over the source JSON.
	const name = "ccl-2.1.114-ef958aa1-forward-parent-parallel.jsonl";
	const { text, lines } = real(name);
	const session = importOne(name, text);

	test("the active path holds every line of the source's active chain, and reaches the first prompt", () => {
		const byUuid = new Map(lines.filter((l) => typeof l.uuid === "string").map((l) => [l.uuid as string, l]));
		const chain: string[] = [];
		const last = [...lines].reverse().find((l) => typeof l.uuid === "string");
		for (let at = last; at; at = byUuid.get(at.parentUuid as string)) chain.push(at.uuid as string);
		assert.equal(chain.length, 146);
		const onPath = new Set(pathOf(session).flatMap(uuidsOf));
		assert.deepEqual(
			chain.filter((u) => !onPath.has(u)),
			[],
		);
		assert.equal(session.records.filter((r) => r.parentId === null).length, 1, "one root");
		assertParentsFirst(session);
		const messages = buildSessionContext(pathOf(session)).messages;
		const first = messages.find((m) => m.role === "user") as Json;
		assert.match(String(first.content), /^OK, we're going to make a little experiment here/);
		assert.equal(assertCallsAnswered(messages).length, toolUseIds(lines).length);
	});

	test("a chain of 100,000 lines written leaf first (every parent on the next line) imports without overflowing", () => {
		const n = 100_000;
		const out: string[] = [];
		for (let i = 0; i < n; i++) {
			const parent = i === n - 1 ? null : `u${i + 1}`;
			out.push(
				JSON.stringify({
					type: "system",
					subtype: "x",
					uuid: `u${i}`,
					parentUuid: parent,
					timestamp: "2026-01-01T00:00:00Z",
				}),
			);
		}
		const imported = importOne("deep.jsonl", `${out.join("\n")}\n`);
		assert.equal(imported.records.length, n);
		assertParentsFirst(imported);
		// The root (the last line) comes first, and line 1 is the end of the one chain.
		assert.equal(((imported.records[0] as unknown as Json).data as Json).uuid, `u${n - 1}`);
		assert.equal(leaves(imported).length, 1);
	});

	test("ids do not depend on where the parent is: a file and its grown copy share their entries", () => {
		const cut = text.split("\n").slice(0, 100).join("\n");
		const small = importOne(name, `${cut}\n`);
		const ids = new Set(session.records.map((r) => r.id));
		for (const r of small.records) assert.ok(ids.has(r.id), `entry ${r.id} of the shorter file is in the longer`);
	});

	const cycle = [
		{ type: "user", uuid: "root", parentUuid: null, message: { role: "user", content: "hi" } },
		{ type: "user", uuid: "x", parentUuid: "z", message: { role: "user", content: "1" } },
		{ type: "user", uuid: "y", parentUuid: "x", message: { role: "user", content: "2" } },
		{ type: "user", uuid: "z", parentUuid: "y", message: { role: "user", content: "3" } },
	]
		.map((l) => JSON.stringify(l))
		.join("\n");

	test("a cycle of parent links: strict names the line and the field", () => {
		assert.throws(
			() => importClaudeCode({ name: "cycle.jsonl", text: `${cycle}\n` }),
			(error: unknown) =>
				isSessionTreeError(error, "INVALID_RECORD") &&
				error.line === 2 &&
				/parentUuid/.test(error.message) &&
				/cycle/.test(error.message),
		);
	});

	test("a cycle of parent links: lenient cuts it at its first line (a root) and reports it", () => {
		const imported = importOne("cycle.jsonl", `${cycle}\n`, true);
		assert.equal(imported.records.length, 4);
		assert.deepEqual(
			imported.skipped.map((s) => s.where),
			["2"],
		);
		assert.match(imported.skipped[0]?.reason ?? "", /cycle.*lines 2, 3, 4.*made a root/);
		assertParentsFirst(imported);
	});
});

describe("summary lines name the session when their leaf is anywhere in the file", () => {
	test("a summary before the line it names (Claude Code writes them at the top)", () => {
		const jsonl = [
			{ type: "summary", summary: "Fixing the parser", leafUuid: "a1" },
			{ type: "summary", summary: "Another session's title", leafUuid: "elsewhere" },
			{ type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "fix it" } },
			{
				type: "assistant",
				uuid: "a1",
				parentUuid: "u1",
				message: { id: "m", role: "assistant", content: [{ type: "text", text: "ok" }] },
			},
		]
			.map((l) => JSON.stringify(l))
			.join("\n");
		const imported = importOne("titled.jsonl", `${jsonl}\n`);
		const infos = imported.records.filter((r) => r.type === "session_info");
		assert.deepEqual(
			infos.map((r) => (r as unknown as Json).name),
			["Fixing the parser"],
		);
		const customs = imported.records.filter((r) => r.type === "custom").map((r) => (r as unknown as Json).customType);
		assert.deepEqual(customs, ["claude-code:summary"]);
	});
});

describe("--lenient keeps going on odd lines; strict names the line and the field", () => {
	const t = "2026-01-01T00:00:00Z";
	const good = [
		{ type: "user", uuid: "u1", parentUuid: null, timestamp: t, message: { role: "user", content: "go" } },
		{
			type: "assistant",
			uuid: "a1",
			parentUuid: "u1",
			timestamp: t,
			message: { id: "m1", role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
		},
	];
	const odd: Array<{ what: string; line: Json; field: RegExp }> = [
		{
			what: "a tool_result without tool_use_id",
			line: {
				type: "user",
				uuid: "r1",
				parentUuid: "a1",
				timestamp: t,
				message: { role: "user", content: [{ type: "tool_result", content: "lost" }] },
			},
			field: /message\.content\[0\]\.tool_use_id/,
		},
		{
			what: "a timestamp that is not a date",
			line: {
				type: "user",
				uuid: "r1",
				parentUuid: "a1",
				timestamp: "yesterday",
				message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] },
			},
			field: /`timestamp`/,
		},
		{
			what: "a user line without uuid",
			line: { type: "user", parentUuid: "a1", timestamp: t, message: { role: "user", content: "no uuid" } },
			field: /`uuid`/,
		},
		{
			what: "an assistant line without parentUuid",
			line: {
				type: "assistant",
				uuid: "a2",
				timestamp: t,
				message: { id: "m2", role: "assistant", content: [{ type: "text", text: "hi" }] },
			},
			field: /`parentUuid`/,
		},
		{
			what: "an assistant line whose content is not a list",
			line: {
				type: "assistant",
				uuid: "a2",
				parentUuid: "a1",
				timestamp: t,
				message: { id: "m2", role: "assistant", content: "text" },
			},
			field: /`message\.content`/,
		},
	];
	const after = {
		type: "user",
		uuid: "u9",
		parentUuid: "a1",
		timestamp: t,
		message: { role: "user", content: "after" },
	};
	for (const { what, line, field } of odd) {
		const text = `${[...good, line, after].map((l) => JSON.stringify(l)).join("\n")}\n`;
		test(`${what}: strict throws naming line 3`, () => {
			assert.throws(
				() => importClaudeCode({ name: "odd.jsonl", text }),
				(error: unknown) =>
					isSessionTreeError(error, "INVALID_RECORD") && error.line === 3 && field.test(error.message),
			);
		});
		test(`${what}: lenient imports every line and reports line 3`, () => {
			const imported = importOne("odd.jsonl", text, true);
			assert.deepEqual(
				imported.skipped.map((s) => s.where),
				["3"],
			);
			assert.match(imported.skipped[0]?.reason ?? "", field);
			// Every line is an entry; the line after the odd one is still on the path.
			const lines = new Set(imported.records.flatMap(uuidsOf));
			for (const uuid of ["u1", "a1", "u9"]) assert.ok(lines.has(uuid), `${uuid} is imported`);
			assert.ok(imported.records.length >= 4);
			assertParentsFirst(imported);
		});
	}
});
