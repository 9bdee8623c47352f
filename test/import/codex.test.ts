/**
 * The Codex importer on the samples in test/fixtures/import/codex (see SOURCES.md) and on small
 * inline rollouts for what no sample has (rollbacks, `replacement_history`, forks, bad input).
 * Every expectation below was derived by hand from the sample files (a listing of each line's
 * type and payload type, and counts over them); the comment above each says how.
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
import { importCodex } from "../../src/import/codex.js";
import type { ImportedSession } from "../../src/import/types.js";
import { Session } from "../../src/index.js";
import { asJson, repoRoot } from "../support/fixtures.js";

const sampleDir = join(repoRoot, "test", "fixtures", "import", "codex");
const dir = mkdtempSync(join(tmpdir(), "st-import-codex-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const LOCALPUSH = "localpush-rollout-2026-02-23T12-40-23-019c8a4c";
const SAMPLES = [
	"agent-history-session-with-compaction",
	"ccl-legacy-rollout-44444444",
	LOCALPUSH,
	"simonw-sample-codex-session",
];

type Json = Record<string, unknown>;

function text(name: string): string {
	return readFileSync(join(sampleDir, `${name}.jsonl`), "utf8");
}

function sourceLines(name: string): Json[] {
	return text(name)
		.split("\n")
		.filter((l) => l.trim() !== "")
		.map((l) => JSON.parse(l) as Json);
}

function load(name: string): ImportedSession {
	const sessions = importCodex({ name: `${name}.jsonl`, text: text(name) });
	assert.equal(sessions.length, 1);
	return sessions[0] as ImportedSession;
}

function imported(lines: readonly Json[], name = "rollout.jsonl"): ImportedSession {
	return importCodex({ name, text: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n` })[0] as ImportedSession;
}

interface Shape {
	byId: Map<string, SessionEntry>;
	leaves: SessionEntry[];
	path: SessionEntry[];
	messages: ContextMessage[];
	model: unknown;
	thinkingLevel: string;
}

function shape(session: ImportedSession, leafId = session.leafId): Shape {
	const byId = new Map(session.records.map((r) => [r.id, r]));
	const parents = new Set(session.records.map((r) => r.parentId));
	const leaves = session.records.filter((r) => !parents.has(r.id));
	const path: SessionEntry[] = [];
	for (let e = byId.get(leafId ?? ""); e; e = byId.get(e.parentId ?? "")) path.unshift(e);
	const context = buildSessionContext(path);
	return { byId, leaves, path, messages: context.messages, model: context.model, thinkingLevel: context.thinkingLevel };
}

function words(value: string, n = 4): string {
	return value.trim().split(/\s+/).slice(0, n).join(" ");
}

/** One line per context message: role (tool name or custom type), the first words, the tool calls. */
function describeContext(messages: readonly ContextMessage[]): string[] {
	return messages.map((m) => {
		const message = m as Json;
		const role = String(message.role);
		if (role === "compactionSummary") return `compactionSummary: ${words(String(message.summary))}`.trimEnd();
		const content = message.content;
		const blocks = typeof content === "string" ? [{ type: "text", text: content }] : (content as Json[]);
		const said = words(
			blocks
				.filter((b) => b.type === "text")
				.map((b) => String(b.text))
				.join(" "),
		);
		const calls = blocks.filter((b) => b.type === "toolCall").map((b) => String(b.name));
		const thinking = blocks.some((b) => b.type === "thinking") ? "(thinking)" : "";
		const who =
			role === "toolResult"
				? `toolResult(${String(message.toolName)})`
				: role === "custom"
					? `custom(${String(message.customType)})`
					: role;
		const parts = [thinking, said, calls.length > 0 ? `[${calls.join(", ")}]` : ""].filter((p) => p !== "");
		return `${who}: ${parts.join(" ")}`.trimEnd();
	});
}

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
	const pi = SessionManager.open(copy, dir).buildSessionContext();
	const mine = ours.buildSessionContext();
	assert.deepEqual(asJson(pi.messages), asJson(mine.messages));
	assert.deepEqual(asJson(pi.model), asJson(mine.model));
	assert.equal(pi.thinkingLevel, mine.thinkingLevel);
	assert.deepEqual(asJson(mine.messages), asJson(shape(session).messages));
}

describe("Codex samples", () => {
	test("agent-history-session-with-compaction: tools, reasoning, an old-style compaction, a token count", async () => {
		const s = load("agent-history-session-with-compaction");
		const { leaves, messages, path, model, thinkingLevel } = shape(s);
		// 20 lines: line 2 (turn_context with model gpt-4.5-turbo and effort high) gives 3 entries
		// (the line, a model change, a thinking level change); the output items after the first of
		// their run join its assistant message: 5 and 6 join 4, 16 and 17 join 15 → 20 + 2 − 4 = 18.
		assert.equal(s.records.length, 18);
		// Linear, the leaf is the last line's entry (the token_count of line 20).
		assert.equal(leaves.length, 1);
		assert.equal(path.length, 18);
		assert.equal(s.leafId, s.records.at(-1)?.id);
		assert.deepEqual(
			(s.records.at(-1) as unknown as Json).data,
			sourceLines("agent-history-session-with-compaction")[19],
		);
		// The compacted line (13) has a message and no replacement_history: a compaction that keeps
		// nothing (first kept = itself); no token count came before it, so tokensBefore is 0.
		const compaction = s.records.find((r) => r.type === "compaction") as SessionEntry & Json;
		assert.equal(compaction.firstKeptEntryId, compaction.id);
		assert.equal(compaction.tokensBefore, 0);
		// Context: the summary, then lines 14 (user), 15–17 (reasoning, text, shell call), 18 (its
		// empty output), 19 (the final answer).
		assert.deepEqual(describeContext(messages), [
			"compactionSummary: **Progress + Plan Status**",
			"user: Now add the authentication",
			"assistant: (thinking) I'll implement JWT-based authentication [shell]",
			"toolResult(shell):",
			"assistant: Authentication middleware is now",
		]);
		// The token count of line 20 (new totals) gives its last_token_usage to the message of
		// line 19: input 2000 − 500 cached = 1500, output 1000, cache read 500, total 3200.
		const last = messages.at(-1) as Json;
		assert.deepEqual(last.usage, {
			input: 1500,
			output: 1000,
			cacheRead: 500,
			cacheWrite: 0,
			totalTokens: 3200,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		});
		// The message of lines 15–17 had no count of its own: zero usage.
		assert.equal(((messages[2] as Json).usage as Json).totalTokens, 0);
		// The turn_context of line 2: model gpt-4.5-turbo, effort high.
		assert.deepEqual(model, { provider: "openai", modelId: "gpt-4.5-turbo" });
		assert.equal(thinkingLevel, "high");
		await assertPiAgrees(s, "agent-history");
	});

	test("ccl-legacy-rollout-44444444: the legacy layout without envelopes", async () => {
		const s = load("ccl-legacy-rollout-44444444");
		const { messages, model } = shape(s);
		// 3 lines: the bare {id, timestamp} header (a custom entry), a user and an assistant item.
		assert.equal(s.records.length, 3);
		assert.equal(s.header.id, "44444444-4444-4444-8444-444444444444");
		assert.equal(s.header.timestamp, "2026-01-04T05:06:07.000Z");
		assert.equal(s.header.cwd, "");
		assert.equal(s.leafId, s.records[2]?.id);
		assert.deepEqual(describeContext(messages), [
			"user: Open the synthetic legacy",
			"assistant: The synthetic legacy session",
		]);
		// No turn_context and nothing else names the model: no model change, and the assistant
		// message says "unknown" (never an empty id, which would show as "openai/").
		assert.deepEqual(model, { provider: "openai", modelId: "unknown" });
		assert.equal(
			s.records.some((r) => r.type === "model_change"),
			false,
		);
		await assertPiAgrees(s, "legacy");
	});

	test("simonw-sample-codex-session: injected context, one prompt, six turn contexts", async () => {
		const s = load("simonw-sample-codex-session");
		const { messages, model, thinkingLevel, leaves } = shape(s);
		// 11 lines, one entry each, plus a model change at the first turn_context (line 6,
		// gpt-5.2-codex; lines 7–11 repeat it; none has an effort): 12 entries.
		assert.equal(s.records.length, 12);
		assert.equal(leaves.length, 1);
		// The leaf is the last turn_context (line 11).
		assert.equal(s.leafId, s.records.at(-1)?.id);
		assert.equal((s.records.at(-1) as unknown as Json).customType, "codex:turn_context");
		// Context: the three user response_items (AGENTS.md, environment context, the prompt); the
		// event_msg user_message of line 5 duplicates the prompt and stays a custom entry.
		assert.deepEqual(describeContext(messages), [
			"user: # AGENTS.md instructions for",
			"user: <environment_context> <cwd>/Users/macmini/Code/homelab-migration</cwd> <approval_policy>on-request</approval_policy> <sandbox_mode>workspace-write</sandbox_mode>",
			"user: can you analyse the",
		]);
		assert.deepEqual(model, { provider: "openai", modelId: "gpt-5.2-codex" });
		assert.equal(thinkingLevel, "off");
		assert.equal(s.header.id, "019b64e5-57fa-7463-b644-fba7e456f905");
		assert.equal(s.header.cwd, "/Users/macmini/Code/homelab-migration");
		await assertPiAgrees(s, "simonw");
	});

	test(`${LOCALPUSH}: a real session with 104 tool calls`, async () => {
		const s = load(LOCALPUSH);
		const { messages, model, thinkingLevel, leaves, path } = shape(s);
		// 702 lines. Output items (assistant messages, reasoning, function/custom tool calls, the web
		// search) form 81 runs (a run ends at a user/developer message, a tool output, a
		// turn_context or a token_count with new totals); the 136 items after the first of a run
		// join its message. turn_context lines give 1 model change (line 11, gpt-5.3-codex) and
		// 2 thinking level changes (line 11 high, line 532 medium): 702 − 136 + 3 = 569 entries.
		assert.equal(s.records.length, 569);
		assert.equal(leaves.length, 1);
		assert.equal(path.length, 569);
		// The leaf is the last line (an event_msg task_complete).
		assert.equal((s.records.at(-1) as unknown as Json).customType, "codex:task_complete");
		assert.equal(s.leafId, s.records.at(-1)?.id);
		// Context: 10 developer messages (custom), 10 user messages, 81 assistant messages and the
		// 82 + 22 outputs of the function and custom tool calls = 205 messages.
		const roles = new Map<string, number>();
		for (const m of messages) roles.set(String(m.role), (roles.get(String(m.role)) ?? 0) + 1);
		assert.deepEqual(Object.fromEntries(roles), { custom: 10, user: 10, assistant: 81, toolResult: 104 });
		// The first messages: developer ×2 (lines 2–3), user ×2 (4–5), developer ×2 (6–7), the prompt
		// (9), then reasoning + commentary + 2 exec_command calls (14, 16–18) and their outputs (20–21).
		assert.deepEqual(describeContext(messages.slice(0, 10)), [
			"custom(codex:developer): [REDACTED_TEXT len=3640 sha=9c9ba526]",
			"custom(codex:developer): [REDACTED_TEXT len=6684 sha=1eb53f31]",
			"user: [REDACTED_TEXT len=3019 sha=37168476]",
			"user: [REDACTED_TEXT len=110 sha=1efde24d]",
			"custom(codex:developer): [REDACTED_TEXT len=3675 sha=be54e886]",
			"custom(codex:developer): [REDACTED_TEXT len=806 sha=d10ca27b]",
			"user: [REDACTED_TEXT len=516 sha=05857781]",
			"assistant: (thinking) [REDACTED_TEXT len=178 sha=ba799f97] [exec_command, exec_command]",
			"toolResult(exec_command): [REDACTED_OUTPUT len=5030 sha=28c2f7e1]",
			"toolResult(exec_command): [REDACTED_OUTPUT len=406 sha=45aebb76]",
		]);
		// Tool calls by name over the file: exec_command 71, apply_patch 22, write_stdin 9, update_plan 2.
		const calls = new Map<string, number>();
		for (const m of messages) {
			if (m.role !== "assistant") continue;
			for (const b of m.content as Json[])
				if (b.type === "toolCall") calls.set(String(b.name), (calls.get(String(b.name)) ?? 0) + 1);
		}
		assert.deepEqual(Object.fromEntries(calls), { exec_command: 71, apply_patch: 22, write_stdin: 9, update_plan: 2 });
		// 162 token_count lines: 81 with new totals, each right after one run; 81 repeat the
		// previous snapshot and give nothing. The 81 last_token_usage values add up to the final
		// total_token_usage (input 7204025 of which 6836352 cached, output 36075, total 7240100).
		const sum = { input: 0, output: 0, cacheRead: 0, totalTokens: 0 };
		for (const m of messages) {
			if (m.role !== "assistant") continue;
			const u = m.usage as typeof sum;
			sum.input += u.input;
			sum.output += u.output;
			sum.cacheRead += u.cacheRead;
			sum.totalTokens += u.totalTokens;
		}
		assert.deepEqual(sum, { input: 7204025 - 6836352, output: 36075, cacheRead: 6836352, totalTokens: 7240100 });
		assert.deepEqual(model, { provider: "openai", modelId: "gpt-5.3-codex" });
		assert.equal(thinkingLevel, "medium");
		await assertPiAgrees(s, "localpush");
	});

	for (const name of SAMPLES) {
		test(`${name}: importing the same text again gives identical records`, () => {
			assert.deepEqual(load(name), load(name));
		});

		test(`${name}: a prefix of the file gives the same ids and parents for its entries`, () => {
			const full = text(name);
			const lines = full.split("\n");
			const whole = importCodex({ name: "r.jsonl", text: full })[0] as ImportedSession;
			const parents = new Map(whole.records.map((r) => [r.id, r.parentId]));
			const step = lines.length > 100 ? 7 : 1;
			for (let n = 1; n < lines.length; n += step) {
				const part = importCodex({ name: "r.jsonl", text: `${lines.slice(0, n).join("\n")}\n` })[0] as ImportedSession;
				for (const r of part.records) {
					assert.ok(parents.has(r.id), `line ${n}: entry ${r.id} is in the whole import`);
					assert.equal(parents.get(r.id), r.parentId, `line ${n}: entry ${r.id} keeps its parent`);
				}
			}
		});
	}
});

let clock = Date.parse("2026-03-01T00:00:00.000Z");
const at = (): string => {
	clock += 1000;
	return new Date(clock).toISOString();
};
const meta = (extra: Json = {}): Json => ({
	timestamp: at(),
	type: "session_meta",
	payload: { id: "019c0000-0000-7000-8000-000000000001", cwd: "/w", model_provider: "openai", ...extra },
});
const item = (payload: Json): Json => ({ timestamp: at(), type: "response_item", payload });
const event = (payload: Json): Json => ({ timestamp: at(), type: "event_msg", payload });
const user = (text: string): Json => item({ type: "message", role: "user", content: [{ type: "input_text", text }] });
const assistant = (text: string): Json =>
	item({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
const context = (model: string, effort?: string): Json => ({
	timestamp: at(),
	type: "turn_context",
	payload: { model, effort },
});

describe("Codex: what no sample has", () => {
	test("thread_rolled_back moves the end back N turns; the rolled-back turns stay as a branch", async () => {
		const s = imported([
			meta(),
			context("gpt-5"),
			user("<environment_context>cwd</environment_context>"),
			user("q1"),
			assistant("a1"),
			user("q2"),
			assistant("a2"),
			user("q3"),
			assistant("a3"),
			event({ type: "thread_rolled_back", num_turns: 2 }),
			user("q2 again"),
			assistant("a2 again"),
		]);
		const { messages, leaves } = shape(s);
		// q2 and q3 are rolled back (the environment context is not a turn): two leaves.
		assert.equal(leaves.length, 2);
		assert.deepEqual(describeContext(messages), [
			"user: <environment_context>cwd</environment_context>",
			"user: q1",
			"assistant: a1",
			"user: q2 again",
			"assistant: a2 again",
		]);
		const side = shape(s, leaves.find((l) => l.id !== s.leafId)?.id ?? null);
		assert.deepEqual(describeContext(side.messages).slice(3), [
			"user: q2",
			"assistant: a2",
			"user: q3",
			"assistant: a3",
		]);
		// The rollback marker hangs where the conversation continues: below a1.
		const marker = s.records.find((r) => r.type === "custom" && r.customType === "codex:thread_rolled_back");
		const a1 = s.records.find((r) => r.type === "message" && JSON.stringify(r.message.content).includes('"a1"'));
		assert.equal(marker?.parentId, a1?.id);
		await assertPiAgrees(s, "rollback");
		// More turns than there are: back to before the first real prompt.
		const all = imported([meta(), user("q1"), assistant("a1"), event({ type: "thread_rolled_back", num_turns: 5 })]);
		assert.deepEqual(shape(all).messages, []);
	});

	test("compacted with replacement_history: the summary, then exactly the replacement items", async () => {
		const s = imported([
			meta(),
			context("gpt-5", "high"),
			item({
				type: "message",
				role: "developer",
				content: [{ type: "input_text", text: "<permissions instructions>" }],
			}),
			user("q1"),
			assistant("a1"),
			user("q2"),
			item({
				type: "reasoning",
				summary: [{ type: "summary_text", text: "thinking about it" }],
				encrypted_content: "e1",
			}),
			item({ type: "function_call", name: "shell", arguments: '{"cmd":"ls"}', call_id: "c1" }),
			event({
				type: "token_count",
				info: {
					total_token_usage: { input_tokens: 900, total_tokens: 950 },
					last_token_usage: { input_tokens: 900, cached_input_tokens: 100, output_tokens: 50, total_tokens: 950 },
				},
			}),
			item({ type: "function_call_output", call_id: "c1", output: "a.txt" }),
			{
				timestamp: at(),
				type: "compacted",
				payload: {
					message: "",
					replacement_history: [
						{
							type: "message",
							role: "developer",
							content: [{ type: "input_text", text: "<permissions instructions>" }],
						},
						{ type: "message", role: "user", content: [{ type: "input_text", text: "q1" }] },
						{ type: "message", role: "user", content: [{ type: "input_text", text: "q2" }] },
						{ type: "compaction", encrypted_content: "opaque" },
					],
				},
			},
			event({ type: "context_compacted" }),
			user("q3"),
			assistant("a3"),
		]);
		const { messages, path } = shape(s);
		assert.deepEqual(describeContext(messages), [
			"compactionSummary:",
			"custom(codex:developer): <permissions instructions>",
			"user: q1",
			"user: q2",
			"user: q3",
			"assistant: a3",
		]);
		const compaction = path.find((e) => e.type === "compaction") as SessionEntry & Json;
		const firstKept = s.records.find((r) => r.id === compaction.firstKeptEntryId);
		assert.equal(firstKept?.type, "custom_message", "the first kept entry is the first replacement item");
		// The last token count before the compaction: its last_token_usage total.
		assert.equal(compaction.tokensBefore, 950);
		// The tool call and its output before the compaction: the usage of the count went to it.
		const call = s.records.find(
			(r) =>
				r.type === "message" && r.message.role === "assistant" && JSON.stringify(r.message.content).includes("shell"),
		);
		assert.equal(((call as unknown as { message: Json }).message.usage as Json).totalTokens, 950);
		await assertPiAgrees(s, "replacement");
	});

	test("a repeated token count gives nothing; forked_from_id names the parent session", () => {
		const count = (total: number): Json =>
			event({
				type: "token_count",
				info: {
					total_token_usage: { total_tokens: total },
					last_token_usage: { input_tokens: total, total_tokens: total },
				},
			});
		const s = imported([
			meta({ forked_from_id: "019b0000-0000-7000-8000-00000000000f" }),
			user("q"),
			assistant("a"),
			count(10),
			count(10),
			assistant("b"),
			count(10),
			count(30),
		]);
		assert.equal(s.header.parentSession, "019b0000-0000-7000-8000-00000000000f");
		const usage = s.records
			.filter((r) => r.type === "message" && r.message.role === "assistant")
			.map((r) => ((r as unknown as { message: Json }).message.usage as Json).totalTokens);
		// "a" gets the first count; the repeats (same totals) give nothing; "b" gets the count of 30.
		assert.deepEqual(usage, [10, 30]);
	});

	test("a model change mid-session; custom tool calls; an output with an error flag", async () => {
		const s = imported([
			meta(),
			context("gpt-5", "low"),
			user("patch it"),
			item({
				type: "custom_tool_call",
				status: "completed",
				call_id: "p1",
				name: "apply_patch",
				input: "*** Begin Patch",
			}),
			item({ type: "custom_tool_call_output", call_id: "p1", output: { content: "failed", success: false } }),
			context("gpt-5-mini", "none"),
			assistant("sorry"),
		]);
		const { messages, model, thinkingLevel } = shape(s);
		assert.deepEqual(describeContext(messages), [
			"user: patch it",
			"assistant: [apply_patch]",
			"toolResult(apply_patch): failed",
			"assistant: sorry",
		]);
		assert.deepEqual((messages[1] as { content: Json[] }).content[0]?.arguments, { input: "*** Begin Patch" });
		assert.equal((messages[2] as Json).isError, true);
		assert.equal((messages[3] as Json).model, "gpt-5-mini");
		assert.deepEqual(model, { provider: "openai", modelId: "gpt-5-mini" });
		assert.equal(thinkingLevel, "off");
		await assertPiAgrees(s, "model-change");
	});
});

describe("Codex: bad input names the file, the line and the field", () => {
	const m = JSON.stringify({
		timestamp: "2026-01-01T00:00:00.000Z",
		type: "session_meta",
		payload: { id: "x", cwd: "/" },
	});
	const cases: Array<[string, string, string, number, string]> = [
		["not JSON", `${m}\n{nope\n${m}\n`, "INVALID_JSON", 2, "not valid JSON"],
		[
			"a first line that is not session_meta",
			`${JSON.stringify({ type: "user", uuid: "u" })}\n`,
			"INVALID_RECORD",
			1,
			"`type`",
		],
		[
			"session_meta without an id",
			`${JSON.stringify({ type: "session_meta", payload: { cwd: "/" } })}\n`,
			"INVALID_RECORD",
			1,
			"`payload.id`",
		],
		[
			"a response_item without a payload",
			`${m}\n${JSON.stringify({ type: "response_item" })}\n`,
			"INVALID_RECORD",
			2,
			"`payload`",
		],
		[
			"a function call without call_id",
			`${m}\n${JSON.stringify({ type: "response_item", payload: { type: "function_call", name: "shell", arguments: "{}" } })}\n`,
			"INVALID_RECORD",
			2,
			"`payload.call_id`",
		],
		[
			"a message without content",
			`${m}\n${JSON.stringify({ type: "response_item", payload: { type: "message", role: "user" } })}\n`,
			"INVALID_RECORD",
			2,
			"`payload.content`",
		],
		[
			"a rollback without num_turns",
			`${m}\n${JSON.stringify({ type: "event_msg", payload: { type: "thread_rolled_back" } })}\n`,
			"INVALID_RECORD",
			2,
			"`payload.num_turns`",
		],
		[
			"a replacement item without a type",
			`${m}\n${JSON.stringify({ type: "compacted", payload: { message: "", replacement_history: [{ role: "user" }] } })}\n`,
			"INVALID_RECORD",
			2,
			"`payload.replacement_history[0].type`",
		],
	];
	for (const [what, input, code, lineNo, field] of cases) {
		test(what, () => {
			assert.throws(
				() => importCodex({ name: "sessions/rollout.jsonl", text: input }),
				(error: unknown) => {
					assert.ok(isSessionTreeError(error, code as "INVALID_RECORD"), String(error));
					assert.equal(error.file, "sessions/rollout.jsonl");
					assert.equal(error.line, lineNo);
					assert.ok(error.message.startsWith(`sessions/rollout.jsonl:${lineNo}: `), error.message);
					assert.ok(error.message.includes(field), error.message);
					return true;
				},
			);
		});
	}

	test("a file without lines holds no session", () => {
		assert.deepEqual(importCodex({ name: "empty.jsonl", text: "" }), []);
	});

	test("unknown line types are kept as custom entries, nothing skipped", () => {
		const s = importCodex({
			name: "r.jsonl",
			text: `${m}\n${JSON.stringify({ type: "world_state", payload: { x: 1 } })}\n`,
		})[0] as ImportedSession;
		assert.deepEqual(
			s.records.map((r) => (r.type === "custom" ? r.customType : r.type)),
			["codex:session_meta", "codex:world_state"],
		);
		assert.deepEqual(s.skipped, []);
	});
});
