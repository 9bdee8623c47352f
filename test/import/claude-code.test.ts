/**
 * The Claude Code importer on the samples in test/fixtures/import/claude-code (real files from
 * public projects, see SOURCES.md) and on small inline transcripts for what no sample has
 * (sidechains, usage snapshots, bad input). Every expectation below was derived by hand from
 * the sample files (a listing of each line's type, uuid, parentUuid, message.id and content
 * block types); the comment above each says how.
 */

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { buildSessionContext } from "../../src/core/context.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { ContextMessage, SessionEntry } from "../../src/core/types.js";
import { importClaudeCode } from "../../src/import/claude-code.js";
import type { ImportedSession } from "../../src/import/types.js";
import { Session } from "../../src/index.js";
import { asJson, repoRoot } from "../support/fixtures.js";

const sampleDir = join(repoRoot, "test", "fixtures", "import", "claude-code");
const dir = mkdtempSync(join(tmpdir(), "st-import-cc-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const SAMPLES = [
	"agent-history-session-with-compaction",
	"ccl-dag-compact-after-rewind",
	"ccl-real-edit-branch-03eb5929",
	"ccl-real-summaries-hooks-326189cf",
] as const;

function text(name: string): string {
	return readFileSync(join(sampleDir, `${name}.jsonl`), "utf8");
}

function load(name: string): ImportedSession {
	const sessions = importClaudeCode({ name: `${name}.jsonl`, text: text(name) });
	assert.equal(sessions.length, 1);
	return sessions[0] as ImportedSession;
}

function imported(jsonl: string, name = "inline.jsonl"): ImportedSession {
	return importClaudeCode({ name, text: jsonl })[0] as ImportedSession;
}

type Json = Record<string, unknown>;

/** The uuid of the source line an entry was made from (or the snapshot's messageId for a snapshot). */
function uuidOf(entry: SessionEntry | undefined): string | undefined {
	const e = entry as unknown as Json | undefined;
	if (!e) return undefined;
	if (e.type === "custom") {
		const data = e.data as Json;
		return (data.uuid ?? data.messageId) as string | undefined;
	}
	return (e.source as Json | undefined)?.uuid as string | undefined;
}

interface Shape {
	byId: Map<string, SessionEntry>;
	leaves: SessionEntry[];
	path: SessionEntry[];
	messages: ContextMessage[];
}

function shape(session: ImportedSession): Shape {
	const byId = new Map(session.records.map((r) => [r.id, r]));
	const parents = new Set(session.records.map((r) => r.parentId));
	const leaves = session.records.filter((r) => !parents.has(r.id));
	const path: SessionEntry[] = [];
	for (let e = byId.get(session.leafId ?? ""); e; e = byId.get(e.parentId ?? "")) path.unshift(e);
	return { byId, leaves, path, messages: buildSessionContext(path).messages };
}

function words(value: string, n = 4): string {
	return value.trim().split(/\s+/).slice(0, n).join(" ");
}

/** One line per context message: role (tool name), the first words, the tool calls. */
function describeContext(messages: readonly ContextMessage[]): string[] {
	return messages.map((m) => {
		const message = m as Json;
		const role = String(message.role);
		if (role === "compactionSummary") return `compactionSummary: ${words(String(message.summary))}`;
		const content = message.content;
		const blocks = typeof content === "string" ? [{ type: "text", text: content }] : (content as Json[]);
		const said = words(
			blocks
				.filter((b) => b.type === "text")
				.map((b) => String(b.text))
				.join(" "),
		);
		const calls = blocks.filter((b) => b.type === "toolCall").map((b) => String(b.name));
		const who = role === "toolResult" ? `toolResult(${String(message.toolName)})` : role;
		const parts = [said, calls.length > 0 ? `[${calls.join(", ")}]` : ""].filter((part) => part !== "");
		return `${who}: ${parts.join(" ")}`;
	});
}

/** Writes header + records (+ a leaf record when the leaf is not the last record) as a pi file. */
function writeFile(session: ImportedSession, name: string): string {
	const file = join(dir, `${name}.jsonl`);
	const lines = [session.header, ...session.records].map((r) => JSON.stringify(r));
	const last = session.records.at(-1);
	if (last && session.leafId !== last.id) {
		lines.push(
			JSON.stringify({
				type: "leaf",
				id: "ffffffff",
				parentId: session.leafId,
				timestamp: last.timestamp,
				targetId: session.leafId,
			}),
		);
	}
	writeFileSync(file, `${lines.join("\n")}\n`);
	return file;
}

async function assertPiAgrees(session: ImportedSession, name: string): Promise<void> {
	const file = writeFile(session, name);
	const ours = await Session.open(file);
	assert.equal(ours.getLeafId(), session.leafId, "the loader finds the importer's leaf");
	assert.equal(ours.getEntries().length, session.records.length, "every record is an entry");
	const copy = join(dir, `pi-${name}.jsonl`);
	copyFileSync(file, copy);
	const pi = SessionManager.open(copy, dir);
	assert.deepEqual(asJson(pi.buildSessionContext().messages), asJson(ours.buildSessionContext().messages));
	assert.deepEqual(asJson(ours.buildSessionContext().messages), asJson(shape(session).messages));
}

function usageTotals(session: ImportedSession): {
	messages: number;
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
} {
	const out = { messages: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
	for (const r of session.records) {
		if (r.type !== "message" || r.message.role !== "assistant") continue;
		const u = r.message.usage as { input: number; output: number; cacheRead: number; cacheWrite: number };
		out.messages++;
		out.input += u.input;
		out.output += u.output;
		out.cacheRead += u.cacheRead;
		out.cacheWrite += u.cacheWrite;
	}
	return out;
}

describe("Claude Code samples", () => {
	test("ccl-real-edit-branch-03eb5929: an edit branch, split assistant lines, hook pseudo-branches", async () => {
		const s = load("ccl-real-edit-branch-03eb5929");
		const { leaves, messages, path, byId } = shape(s);
		// 61 lines, all kept; the 9 responses span 4+1+1+3+3+1+3+3+3 assistant lines (message.id
		// hPo25U, tNcLfH, sjYcpf, CXfoQx, W4W25K, Xxhnrm, 4X7w8K, tQj2qJ, muojYA) → 13 lines merged
		// into the first line of their response: 61 − 13 = 48 entries.
		assert.equal(s.records.length, 48);
		assert.deepEqual(s.skipped, []);
		// The last line (61) is the user line d107d4c0…; it is the leaf.
		assert.equal(uuidOf(byId.get(s.leafId ?? "")), "d107d4c0-ae71-4d3d-af3a-cf7a370bd21f");
		// Two user prompts (lines 18 and 38) share the parent eb84e3ee (a stop_hook_summary): one
		// branch each. The progress lines beside the tool results (lines 8 and 11–12, siblings of
		// lines 9 and 13) are pseudo-branches and hang above the results, so there are 2 leaves:
		// the end of the first branch (the snapshot of line 37, messageId 9edc38e6…) and line 61.
		assert.deepEqual(leaves.map((e) => uuidOf(e)).sort(), [
			"9edc38e6-0ac0-42c0-b911-e24611af2a5b",
			"d107d4c0-ae71-4d3d-af3a-cf7a370bd21f",
		]);
		// The active path: lines 1–16 (minus 5–7 merged into 4) = 13 entries, then the second
		// branch, lines 38–61 minus 6 merged lines (40–41, 47–48, 54–55) = 18 → 31 entries.
		assert.equal(path.length, 31);
		// The context: 7 user prompts/commands, 6 assistant responses, 2 tool results (Bash, Read)
		// on the path: lines 3, 4–7, 9, 10, 13, 14, 38, 39–41, 45, 46–48, 52, 53–55, 59, 60, 61.
		assert.deepEqual(describeContext(messages), [
			"user: Ok, so there's isn't",
			"assistant: Let me take a [Bash]",
			"toolResult(Bash): total 12 drwxrwxr-x 2",
			"assistant: [Read]",
			"toolResult(Read): 1→# dev-docs/ vs work/",
			"assistant: Got it. One idea",
			"user: I actually don't like",
			"assistant: Here are 5 weak",
			"user: Ok, so, to be",
			"assistant: - **Clear intent signal**:",
			"user: Fair enough. Can you",
			"assistant: The `dev-docs/` vs `work/`",
			"user: <local-command-caveat>Caveat: The messages below",
			"user: <command-name>/exit</command-name> <command-message>exit</command-message> <command-args></command-args>",
			"user: <local-command-stdout>See ya!</local-command-stdout>",
		]);
		// Lines 4–7 (hPo25U) are one message: blocks text "\n\n", thinking, text, tool_use in order.
		const first = messages[1] as Json;
		assert.deepEqual(
			(first.content as Json[]).map((b) => b.type),
			["text", "thinking", "text", "toolCall"],
		);
		await assertPiAgrees(s, "edit-branch");
	});

	test("ccl-real-edit-branch-03eb5929: usage is counted once per response", () => {
		const s = load("ccl-real-edit-branch-03eb5929");
		// The usage of the last line of each of the 9 responses (input / output / cache read /
		// cache creation): hPo25U 3/12/21440/5376, tNcLfH 1/25/26816/298, sjYcpf 1/1/27114/224,
		// CXfoQx 3/14/27433/92, W4W25K 3/12/27828/75, Xxhnrm 3/2/28236/75, 4X7w8K 3/9/24675/2750,
		// tQj2qJ 3/12/27822/71, muojYA 3/1/28242/75. Summed: 23 / 88 / 239606 / 9036. (Summing
		// every line would count hPo25U four times and the 3-line responses three times.)
		assert.deepEqual(usageTotals(s), { messages: 9, input: 23, output: 88, cacheRead: 239606, cacheWrite: 9036 });
	});

	test("ccl-real-summaries-hooks-326189cf: titles of other files, old-style hook lines, linear", async () => {
		const s = load("ccl-real-summaries-hooks-326189cf");
		const { leaves, messages, path, byId } = shape(s);
		// 54 lines; 5 responses span two lines each (hdJXBn 9–10, gZtrhZ 24–25, nwPgti 33–34,
		// Q5ynF6 36–37, XavRR4 43–44) → 54 − 5 = 49 entries.
		assert.equal(s.records.length, 49);
		// The 4 summary lines name leafUuids that are not in this file: they title other
		// conversations, so they are custom entries and the session has no name.
		assert.equal(s.records.filter((r) => r.type === "session_info").length, 0);
		assert.deepEqual(
			s.records.slice(0, 4).map((r) => (r.type === "custom" ? r.customType : r.type)),
			Array(4).fill("claude-code:summary"),
		);
		// The last line (54) is the system line 92816445…: the leaf. The file is one chain (the
		// summaries lead into its first line, whose parentUuid is null): 1 leaf, 49 entries on the path.
		assert.equal(uuidOf(byId.get(s.leafId ?? "")), "92816445-2c39-4427-9431-05ed33e20f73");
		assert.equal(leaves.length, 1);
		assert.equal(path.length, 49);
		// 12 system hook lines (20–21, 29–30, 39–40, 46–47, 51–54) are custom entries.
		assert.equal(s.records.filter((r) => r.type === "custom" && r.customType === "claude-code:system").length, 12);
		// Context: user lines 5–8 (caveat, bash input, bash output, "please fix these"), then 15
		// responses and the 14 tool results between them (lines 11, 13, …, 49): 33 messages.
		const described = describeContext(messages);
		assert.equal(described.length, 33);
		assert.deepEqual(described.slice(0, 8), [
			"user: Caveat: The messages below",
			"user: <bash-input>uv run ty check</bash-input>",
			"user: <bash-stdout>warning[possibly-unbound-attribute]: Attribute `version` on",
			"user: please fix these",
			"assistant: I'll fix these type [TodoWrite]",
			"toolResult(TodoWrite): Todos have been modified",
			"assistant: [Read]",
			'toolResult(Read): 195→ with open(cache_manager_v1.index_file, "w")',
		]);
		// The tool calls of the 15 responses, in order (lines 10, 12, 14, 16, 18, 22, 25, 27, 31,
		// 34, 37, 41, 44, 48; line 50 answers without a call).
		const calls = messages.flatMap((m) =>
			m.role === "assistant" ? (m.content as Json[]).filter((b) => b.type === "toolCall").map((b) => b.name) : [],
		);
		assert.deepEqual(calls, [
			"TodoWrite",
			"Read",
			"Read",
			"TodoWrite",
			"MultiEdit",
			"TodoWrite",
			"Read",
			"Edit",
			"TodoWrite",
			"Bash",
			"Edit",
			"Bash",
			"Edit",
			"Bash",
		]);
		assert.equal(described.at(-1), "assistant: Perfect! Both type checking");
		await assertPiAgrees(s, "summaries-hooks");
	});

	test("ccl-dag-compact-after-rewind: a rewind branch, then a compact boundary", async () => {
		const s = load("ccl-dag-compact-after-rewind");
		const { leaves, messages, path, byId } = shape(s);
		// 12 lines, each its own message.id: 12 entries.
		assert.equal(s.records.length, 12);
		// b1u (line 3) and b2u (line 5) both have parent a1: a rewind, 2 leaves b1a and p1a.
		assert.deepEqual(leaves.map((e) => uuidOf(e)).sort(), ["b1a", "p1a"]);
		assert.equal(uuidOf(byId.get(s.leafId ?? "")), "p1a");
		// The boundary cb (line 9, parentUuid null, logicalParentUuid b2a2) hangs below b2a2, so the
		// path runs u1 a1 b2u b2a b2u2 b2a2 cb cs p1u p1a: 10 entries.
		assert.deepEqual(
			path.map((e) => uuidOf(e)),
			["u1", "a1", "b2u", "b2a", "b2u2", "b2a2", "cb", "cs", "p1u", "p1a"],
		);
		const compaction = path[6] as SessionEntry & Json;
		assert.equal(compaction.type, "compaction");
		assert.equal(compaction.parentId, path[5]?.id);
		// Claude Code keeps nothing from before the boundary: the first kept entry is the compaction itself.
		assert.equal(compaction.firstKeptEntryId, compaction.id);
		// compactMetadata.preTokens 150000; the summary is the text of cs (isCompactSummary, line 10).
		assert.equal(compaction.tokensBefore, 150000);
		assert.match(String(compaction.summary), /^This session is being continued .* the user asked for a plan\.$/);
		// cs is kept as a custom entry (its text is the summary; it must not reach the model twice).
		assert.equal((path[7] as unknown as Json).customType, "claude-code:compact-summary");
		// Context: the summary, then p1u and p1a.
		assert.deepEqual(describeContext(messages), [
			"compactionSummary: This session is being",
			"user: After compaction",
			"assistant: Final answer",
		]);
		await assertPiAgrees(s, "dag-compact");
	});

	test("agent-history-session-with-compaction: a compact boundary with a summary line", async () => {
		const s = load("agent-history-session-with-compaction");
		const { leaves, messages, path, byId } = shape(s);
		// 14 lines, each assistant line its own message.id: 14 entries, one chain, leaf ca6-compact.
		assert.equal(s.records.length, 14);
		assert.equal(leaves.length, 1);
		assert.equal(uuidOf(byId.get(s.leafId ?? "")), "ca6-compact");
		assert.equal(path.length, 14);
		// The boundary (line 9, logicalParentUuid ca4-compact) below ca4; its summary is the
		// message of the uuid'd summary line 10; preTokens 155116.
		const compaction = path[8] as SessionEntry & Json;
		assert.equal(compaction.type, "compaction");
		assert.equal(uuidOf(byId.get(compaction.parentId ?? "")), "ca4-compact");
		assert.equal(compaction.firstKeptEntryId, compaction.id);
		assert.equal(compaction.tokensBefore, 155116);
		assert.match(String(compaction.summary), /^Previous conversation summary: Working on authentication/);
		// Context: the summary, cu5, ca5 (text + Edit), its tool result, ca6.
		assert.deepEqual(describeContext(messages), [
			"compactionSummary: Previous conversation summary: Working",
			"user: Now let's add logout",
			"assistant: I'll add logout functionality [Edit]",
			"toolResult(Edit): File updated successfully",
			"assistant: Done! I've added a",
		]);
		// The 3 tool calls of the file: Read (line 2), Edit (line 4), Edit (line 12).
		const calls = s.records.flatMap((r) =>
			r.type === "message" && r.message.role === "assistant"
				? (r.message.content as Json[]).filter((b) => b.type === "toolCall").map((b) => b.name)
				: [],
		);
		assert.deepEqual(calls, ["Read", "Edit", "Edit"]);
		await assertPiAgrees(s, "agent-history");
	});

	for (const name of SAMPLES) {
		test(`${name}: importing the same text again gives identical records`, () => {
			assert.deepEqual(load(name), load(name));
		});

		test(`${name}: a prefix of the file gives the same ids and parents for its entries`, () => {
			const full = text(name);
			const lines = full.split("\n");
			// Real transcripts are named <sessionId>.jsonl, which gives the session id to prefixes
			// that hold no line with a sessionId yet (326189cf opens with 4 summary lines).
			const sessionId = /"sessionId":"([^"]+)"/.exec(full)?.[1] ?? name;
			const source = `${sessionId}.jsonl`;
			const whole = importClaudeCode({ name: source, text: full })[0] as ImportedSession;
			const parents = new Map(whole.records.map((r) => [r.id, r.parentId]));
			for (let n = 1; n < lines.length; n++) {
				const part = importClaudeCode({
					name: source,
					text: `${lines.slice(0, n).join("\n")}\n`,
				})[0] as ImportedSession;
				for (const r of part.records) {
					assert.ok(parents.has(r.id), `line ${n}: entry ${r.id} is in the whole import`);
					assert.equal(parents.get(r.id), r.parentId, `line ${n}: entry ${r.id} keeps its parent`);
				}
			}
		});
	}
});

const line = (fields: Json): string =>
	JSON.stringify({ sessionId: "11111111-2222-4333-8444-555555555555", cwd: "/w", ...fields });

describe("Claude Code: what no sample has", () => {
	test("usage comes from the last line of a response, not the first or the sum", () => {
		const s = imported(
			[
				line({
					type: "user",
					uuid: "u1",
					parentUuid: null,
					timestamp: "2026-01-01T00:00:00.000Z",
					message: { role: "user", content: "hi" },
				}),
				line({
					type: "assistant",
					uuid: "a1",
					parentUuid: "u1",
					timestamp: "2026-01-01T00:00:01.000Z",
					message: {
						id: "msg_1",
						role: "assistant",
						model: "claude-x",
						content: [{ type: "thinking", thinking: "hmm", signature: "sig" }],
						stop_reason: null,
						usage: { input_tokens: 10, output_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 },
					},
				}),
				line({
					type: "assistant",
					uuid: "a2",
					parentUuid: "a1",
					timestamp: "2026-01-01T00:00:02.000Z",
					message: {
						id: "msg_1",
						role: "assistant",
						model: "claude-x",
						content: [{ type: "text", text: "hello" }],
						stop_reason: "end_turn",
						usage: {
							input_tokens: 10,
							output_tokens: 159,
							cache_read_input_tokens: 100,
							cache_creation_input_tokens: 5,
						},
					},
				}),
			].join("\n"),
		);
		assert.equal(s.records.length, 2);
		const message = (s.records[1] as SessionEntry & { message: Json }).message;
		assert.deepEqual(message.usage, {
			input: 10,
			output: 159,
			cacheRead: 100,
			cacheWrite: 5,
			totalTokens: 274,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		});
		assert.equal(message.stopReason, "stop");
		assert.deepEqual(message.content, [
			{ type: "thinking", thinking: "hmm", thinkingSignature: "sig" },
			{ type: "text", text: "hello" },
		]);
	});

	test("a response whose tool results are written between its lines stays one message", async () => {
		const call = (uuid: string, parentUuid: string, id: string): string =>
			line({
				type: "assistant",
				uuid,
				parentUuid,
				timestamp: "2026-01-01T00:00:01.000Z",
				message: {
					id: "msg_p",
					role: "assistant",
					model: "claude-x",
					content: [{ type: "tool_use", id, name: "Read", input: { file: id } }],
					stop_reason: null,
					usage: { input_tokens: 1, output_tokens: 2 },
				},
			});
		const result = (uuid: string, parentUuid: string, id: string): string =>
			line({
				type: "user",
				uuid,
				parentUuid,
				timestamp: "2026-01-01T00:00:02.000Z",
				message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `read ${id}` }] },
			});
		const s = imported(
			[
				line({
					type: "user",
					uuid: "u1",
					parentUuid: null,
					timestamp: "2026-01-01T00:00:00.000Z",
					message: { role: "user", content: "read both" },
				}),
				call("a1", "u1", "t1"),
				result("r1", "a1", "t1"),
				call("a2", "r1", "t2"),
				result("r2", "a2", "t2"),
			].join("\n"),
		);
		const { messages, leaves } = shape(s);
		// a2 joins a1's message; r2 (child of a2) hangs below r1: one chain, calls before results.
		assert.equal(s.records.length, 4);
		assert.equal(leaves.length, 1);
		assert.deepEqual(describeContext(messages), [
			"user: read both",
			"assistant: [Read, Read]",
			"toolResult(Read): read t1",
			"toolResult(Read): read t2",
		]);
		await assertPiAgrees(s, "interleaved");
	});

	const sidechainFile = [
		line({
			type: "user",
			uuid: "m1",
			parentUuid: null,
			timestamp: "2026-01-01T00:00:00.000Z",
			message: { role: "user", content: "research X" },
		}),
		line({
			type: "assistant",
			uuid: "m2",
			parentUuid: "m1",
			timestamp: "2026-01-01T00:00:01.000Z",
			message: {
				id: "msg_m2",
				role: "assistant",
				model: "claude-x",
				content: [
					{ type: "tool_use", id: "toolu_task", name: "Task", input: { description: "d", prompt: "Look into X" } },
				],
				stop_reason: "tool_use",
				usage: { input_tokens: 1, output_tokens: 1 },
			},
		}),
		line({
			type: "user",
			uuid: "s1",
			parentUuid: null,
			isSidechain: true,
			timestamp: "2026-01-01T00:00:02.000Z",
			message: { role: "user", content: "Look into X" },
		}),
		line({
			type: "assistant",
			uuid: "s2",
			parentUuid: "s1",
			isSidechain: true,
			timestamp: "2026-01-01T00:00:03.000Z",
			message: {
				id: "msg_s2",
				role: "assistant",
				model: "claude-y",
				content: [{ type: "text", text: "X is fine" }],
				stop_reason: "end_turn",
				usage: {},
			},
		}),
		line({
			type: "user",
			uuid: "m3",
			parentUuid: "m2",
			timestamp: "2026-01-01T00:00:04.000Z",
			message: {
				role: "user",
				content: [{ type: "tool_result", tool_use_id: "toolu_task", content: [{ type: "text", text: "X is fine" }] }],
			},
			toolUseResult: { agentId: "ag1" },
		}),
		line({
			type: "assistant",
			uuid: "m4",
			parentUuid: "m3",
			timestamp: "2026-01-01T00:00:05.000Z",
			message: {
				id: "msg_m4",
				role: "assistant",
				model: "claude-x",
				content: [{ type: "text", text: "Done" }],
				stop_reason: "end_turn",
				usage: {},
			},
		}),
		// A subagent line written last must not move the leaf off the main conversation.
		line({
			type: "progress",
			uuid: "s3",
			parentUuid: "s2",
			isSidechain: true,
			timestamp: "2026-01-01T00:00:06.000Z",
			data: {},
		}),
	].join("\n");

	test("sidechain lines: their own root, linked to the Task call, out of the main context", async () => {
		const s = imported(sidechainFile);
		const { byId, leaves, messages } = shape(s);
		assert.equal(s.records.length, 7);
		// The leaf is the last main-chain line (m4), not the sidechain line after it.
		assert.equal(uuidOf(byId.get(s.leafId ?? "")), "m4");
		assert.deepEqual(describeContext(messages), [
			"user: research X",
			"assistant: [Task]",
			"toolResult(Task): X is fine",
			"assistant: Done",
		]);
		const root = s.records.find((r) => uuidOf(r) === "s1") as SessionEntry & { source: Json };
		assert.equal(root.parentId, null);
		const callEntry = s.records.find((r) => uuidOf(r) === "m2");
		assert.deepEqual(root.source.sidechainOf, {
			entryId: callEntry?.id,
			toolCallId: "toolu_task",
		});
		// The subagent's branch is what the subagent saw: its prompt and its answer.
		assert.deepEqual(leaves.map((e) => uuidOf(e)).sort(), ["m4", "s3"]);
		const sub = shape({ ...s, leafId: leaves.find((e) => uuidOf(e) === "s3")?.id ?? null });
		assert.deepEqual(describeContext(sub.messages), ["user: Look into X", "assistant: X is fine"]);
		// The tool result's structured copy is its details.
		assert.deepEqual((messages[2] as Json).details, { agentId: "ag1" });
		await assertPiAgrees(s, "sidechain");
	});

	test("a subagent file gets its own session id and names the session as parent", () => {
		const sub = sidechainFile
			.split("\n")
			.filter((l) => l.includes('"isSidechain":true'))
			.map((l) => l.replace('"isSidechain":true', '"isSidechain":true,"agentId":"ag1"'))
			.join("\n");
		const s = imported(sub, "agent-ag1.jsonl");
		assert.equal(s.header.parentSession, "11111111-2222-4333-8444-555555555555");
		// A UUID in the version-5 layout: uuidFromName (SHA-1 of "session-tree:claude-code:<sessionId>:ag1",
		// version nibble 5, variant 10xx), the one function all importers derive session ids with
		// (it replaced the version-8 derivedUuid this line expected before).
		assert.match(s.header.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		assert.equal(imported(sub, "agent-ag1.jsonl").header.id, s.header.id);
	});

	test("a summary of a leaf in this file names the session; unknown line types are kept", async () => {
		const s = imported(
			[
				line({
					type: "user",
					uuid: "u1",
					parentUuid: null,
					timestamp: "2026-01-01T00:00:00.000Z",
					message: { role: "user", content: "hi" },
				}),
				JSON.stringify({ type: "summary", summary: "Greeting", leafUuid: "u1" }),
				line({ type: "mystery", uuid: "x1", parentUuid: "u1", timestamp: "2026-01-01T00:00:01.000Z" }),
				JSON.stringify({ type: "custom-title", customTitle: "Renamed" }),
			].join("\n"),
		);
		assert.deepEqual(
			s.records.map((r) => (r.type === "custom" ? r.customType : r.type)),
			["message", "session_info", "claude-code:mystery", "session_info"],
		);
		assert.deepEqual(
			s.records.filter((r) => r.type === "session_info").map((r) => (r as unknown as Json).name),
			["Greeting", "Renamed"],
		);
		assert.deepEqual(s.skipped, []);
		// One chain: the transparent lines hang one below the other.
		assert.equal(shape(s).leaves.length, 1);
		await assertPiAgrees(s, "titles");
		const file = writeFile(s, "titles-name");
		assert.equal((await Session.open(file)).getSessionName(), "Renamed");
	});

	test("a file without lines holds no session", () => {
		assert.deepEqual(importClaudeCode({ name: "empty.jsonl", text: "" }), []);
		assert.deepEqual(importClaudeCode({ name: "blank.jsonl", text: "\n \n" }), []);
	});

	test("an incomplete last line is skipped and reported, not fatal", () => {
		const s = imported(
			`${line({ type: "user", uuid: "u1", parentUuid: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "hi" } })}\n{"type":"assi`,
		);
		assert.equal(s.records.length, 1);
		assert.deepEqual(s.skipped, [
			{
				source: "inline.jsonl",
				where: "2",
				reason: "an incomplete last line (no final newline: the file was still being written)",
			},
		]);
	});
});

describe("Claude Code: bad input names the file, the line and the field", () => {
	const good = line({
		type: "user",
		uuid: "u1",
		parentUuid: null,
		timestamp: "2026-01-01T00:00:00.000Z",
		message: { role: "user", content: "hi" },
	});
	const cases: Array<[string, string, string, number, string]> = [
		["not JSON", `${good}\n{oops\n${good}\n`, "INVALID_JSON", 2, "not valid JSON"],
		[
			"an assistant line without a message",
			`${good}\n${line({ type: "assistant", uuid: "a1", parentUuid: "u1" })}\n`,
			"INVALID_RECORD",
			2,
			"`message`",
		],
		[
			"a user line without a uuid",
			`${good}\n${line({ type: "user", parentUuid: "u1", message: { role: "user", content: "x" } })}\n`,
			"INVALID_RECORD",
			2,
			"`uuid`",
		],
		[
			"a tool result without tool_use_id",
			`${good}\n${line({ type: "user", uuid: "u2", parentUuid: "u1", message: { role: "user", content: [{ type: "tool_result", content: "x" }] } })}\n`,
			"INVALID_RECORD",
			2,
			"`message.content[0].tool_use_id`",
		],
		[
			"a bad timestamp",
			`${line({ type: "user", uuid: "u1", parentUuid: null, timestamp: "yesterday", message: { role: "user", content: "x" } })}\n`,
			"INVALID_RECORD",
			1,
			"`timestamp`",
		],
		[
			"a Codex file",
			`${JSON.stringify({ timestamp: "2026-01-01T00:00:00.000Z", type: "session_meta", payload: { id: "x" } })}\n`,
			"INVALID_RECORD",
			1,
			"`type`",
		],
		["a line that is an array", `${good}\n[1,2]\n`, "INVALID_RECORD", 2, "an array"],
	];
	for (const [what, input, code, lineNo, field] of cases) {
		test(what, () => {
			assert.throws(
				() => importClaudeCode({ name: "bad/session.jsonl", text: input }),
				(error: unknown) => {
					assert.ok(isSessionTreeError(error, code as "INVALID_RECORD"), String(error));
					assert.equal(error.file, "bad/session.jsonl");
					assert.equal(error.line, lineNo);
					assert.ok(error.message.startsWith(`bad/session.jsonl:${lineNo}: `), error.message);
					assert.ok(error.message.includes(field), error.message);
					return true;
				},
			);
		});
	}
});
