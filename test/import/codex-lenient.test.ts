/**
 * The Codex importer on what real rollouts of some versions do and no sample in
 * test/fixtures/import/codex has: prompts recorded only as `user_message` events, files that
 * name no model, records that break the format (strict: an error naming file, line and field;
 * `--lenient`: the record kept as a custom entry, a report, the rest imported), new item types,
 * and messages Codex writes while a tool runs. The rollouts are small inline files; every
 * expectation is derived by hand from the lines written here (the comment above each says how).
 */

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { buildSessionContext } from "../../src/core/context.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { ContextMessage, SessionEntry } from "../../src/core/types.js";
import { importCodex } from "../../src/import/codex.js";
import type { ImportedSession } from "../../src/import/types.js";
import { asJson, piContext, removeTemps } from "./helpers.js";

after(removeTemps);

type Json = Record<string, unknown>;

let clock = Date.parse("2026-05-01T00:00:00.000Z");
const at = (): string => {
	clock += 1000;
	return new Date(clock).toISOString();
};
const meta = (extra: Json = {}): Json => ({
	timestamp: at(),
	type: "session_meta",
	payload: { id: "019d0000-0000-7000-8000-000000000001", cwd: "/w", cli_version: "0.130.0", ...extra },
});
const item = (payload: Json): Json => ({ timestamp: at(), type: "response_item", payload });
const event = (payload: Json): Json => ({ timestamp: at(), type: "event_msg", payload });
const user = (text: string): Json => item({ type: "message", role: "user", content: [{ type: "input_text", text }] });
const prompt = (message: string, extra: Json = {}): Json =>
	event({ type: "user_message", message, images: [], local_images: [], text_elements: [], ...extra });
const assistant = (text: string): Json =>
	item({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
const call = (id: string, args = '{"cmd":"ls"}'): Json =>
	item({ type: "function_call", name: "exec_command", arguments: args, call_id: id });
const output = (id: string, out = "ok"): Json => item({ type: "function_call_output", call_id: id, output: out });
const turn = (model = "gpt-5.4"): Json => ({ timestamp: at(), type: "turn_context", payload: { model } });

function text(lines: readonly (Json | string)[]): string {
	return `${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`;
}

function load(lines: readonly (Json | string)[], lenient = false): ImportedSession {
	const sessions = importCodex({ name: "sessions/rollout.jsonl", text: text(lines), lenient });
	assert.equal(sessions.length, 1);
	return sessions[0] as ImportedSession;
}

function contextOf(s: ImportedSession): { messages: ContextMessage[]; model: unknown } {
	const byId = new Map(s.records.map((r) => [r.id, r]));
	const path: SessionEntry[] = [];
	for (let e = byId.get(s.leafId ?? ""); e; e = byId.get(e.parentId ?? "")) path.unshift(e);
	const context = buildSessionContext(path);
	return { messages: context.messages, model: context.model };
}

/** One line per context message: its role (custom type, tool name) and its text. */
function brief(messages: readonly ContextMessage[]): string[] {
	return messages.map((m) => {
		const message = m as Json;
		const content = message.content;
		const blocks = typeof content === "string" ? [{ type: "text", text: content }] : ((content ?? []) as Json[]);
		const said = blocks
			.map((b) => (b.type === "text" ? String(b.text) : b.type === "toolCall" ? `[${String(b.id)}]` : `(${b.type})`))
			.join(" ");
		const who =
			message.role === "custom"
				? `custom(${String(message.customType)})`
				: message.role === "toolResult"
					? `toolResult(${String(message.toolCallId)})`
					: String(message.role);
		return `${who}: ${said}`.trimEnd();
	});
}

function customTypes(s: ImportedSession): string[] {
	return s.records.filter((r) => r.type === "custom").map((r) => (r as unknown as { customType: string }).customType);
}

describe("Codex: prompts recorded only as user_message events", () => {
	test("an event without its response item is the prompt; one with it stays a custom entry (per prompt)", async () => {
		const s = load([
			meta(),
			turn(),
			// Turn 1: only the event (as Codex Desktop writes it).
			prompt("first question"),
			assistant("first answer"),
			// Turn 2: the item and, right after it, the event (as the CLI writes it).
			user("second question"),
			prompt("second question"),
			assistant("second answer"),
			// Turn 3: only the event again, with an inline image and a local one.
			prompt("look at this", { images: ["data:image/png;base64,iVBORw0KGgo="], local_images: ["/tmp/shot.png"] }),
			assistant("I see it"),
		]);
		const { messages } = contextOf(s);
		// Three prompts, each once: the event of turn 2 duplicates its item and is not a message.
		assert.deepEqual(brief(messages), [
			"user: first question",
			"assistant: first answer",
			"user: second question",
			"assistant: second answer",
			"user: look at this (image) [image: /tmp/shot.png]",
			"assistant: I see it",
		]);
		assert.deepEqual(
			customTypes(s).filter((t) => t === "codex:user_message"),
			["codex:user_message"],
		);
		const image = (messages[4] as { content: Json[] }).content[1];
		assert.deepEqual(image, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
		assert.deepEqual(piContext(s), asJson(buildSessionContext(pathOf(s))));
	});

	test("injected context events pair with injected items; an event before its item pairs too", () => {
		const s = load([
			meta(),
			// An older CLI: the environment context as an item and as an event of that kind.
			user("<environment_context>cwd</environment_context>"),
			prompt("<environment_context>cwd</environment_context>", { kind: "environment_context" }),
			// The prompt's event before its item (no answer between them).
			prompt("the real prompt"),
			user("the real prompt"),
			assistant("done"),
		]);
		assert.deepEqual(brief(contextOf(s).messages), [
			"user: <environment_context>cwd</environment_context>",
			"user: the real prompt",
			"assistant: done",
		]);
	});

	test("a rollback counts prompts that exist only as events", () => {
		const s = load([
			meta(),
			prompt("q1"),
			assistant("a1"),
			prompt("q2"),
			assistant("a2"),
			event({ type: "thread_rolled_back", num_turns: 1 }),
			prompt("q2 again"),
			assistant("a2 again"),
		]);
		assert.deepEqual(brief(contextOf(s).messages), [
			"user: q1",
			"assistant: a1",
			"user: q2 again",
			"assistant: a2 again",
		]);
	});
});

function pathOf(s: ImportedSession): SessionEntry[] {
	const byId = new Map(s.records.map((r) => [r.id, r]));
	const path: SessionEntry[] = [];
	for (let e = byId.get(s.leafId ?? ""); e; e = byId.get(e.parentId ?? "")) path.unshift(e);
	return path;
}

describe("Codex: the model", () => {
	test("no turn_context: the model session_meta names, as a model change", () => {
		const s = load([meta({ model: "gpt-5.2" }), user("q"), assistant("a")]);
		assert.deepEqual(contextOf(s).model, { provider: "openai", modelId: "gpt-5.2" });
		const change = s.records.find((r) => r.type === "model_change") as unknown as Json;
		assert.equal(change.modelId, "gpt-5.2");
		const message = contextOf(s).messages[1] as Json;
		assert.equal(message.model, "gpt-5.2");
	});

	test("no turn_context: the model an event names (session_configured)", () => {
		const s = load([meta(), event({ type: "session_configured", model: "o4-mini" }), user("q"), assistant("a")]);
		assert.deepEqual(contextOf(s).model, { provider: "openai", modelId: "o4-mini" });
	});

	test("nothing names the model: no model change, and never an empty id", () => {
		const s = load([meta(), user("q"), assistant("a"), turn("")]);
		assert.equal(
			s.records.some((r) => r.type === "model_change"),
			false,
		);
		const { model } = contextOf(s);
		assert.deepEqual(model, { provider: "openai", modelId: "unknown" });
		for (const r of s.records) assert.ok(!JSON.stringify(r).includes('"modelId":""'), "no empty model id");
	});
});

describe("Codex: a context a provider accepts", () => {
	test("a developer message Codex wrote while a tool ran comes after the tool's output", async () => {
		// As in localpush-rollout-…019c8a4c.jsonl lines 691–694: call, token count, developer
		// message (an approval note), then the output.
		const s = load([
			meta(),
			turn(),
			user("run it"),
			call("c1"),
			event({ type: "token_count", info: { total_token_usage: { total_tokens: 5 }, last_token_usage: {} } }),
			item({ type: "message", role: "developer", content: [{ type: "input_text", text: "approved" }] }),
			output("c1", "files"),
			assistant("done"),
		]);
		assert.deepEqual(brief(contextOf(s).messages), [
			"user: run it",
			"assistant: [c1]",
			"toolResult(c1): files",
			"custom(codex:developer): approved",
			"assistant: done",
		]);
		// Every line still has its entry (8 lines + the model change).
		assert.equal(s.records.length, 9);
		assert.deepEqual(piContext(s), asJson(buildSessionContext(pathOf(s))));
	});

	test("an output whose call is not in the file is kept aside, as Codex leaves it out of what it sends", () => {
		const s = load([meta(), user("q"), output("gone", "late"), assistant("a")]);
		assert.deepEqual(brief(contextOf(s).messages), ["user: q", "assistant: a"]);
		assert.ok(customTypes(s).includes("codex:orphan_output"));
	});

	test("a client tool search is a call with its result; new item types are kept as custom entries", () => {
		const s = load([
			meta(),
			user("find a tool"),
			item({
				type: "tool_search_call",
				call_id: "ts1",
				execution: "client",
				status: "completed",
				arguments: { query: "calendar" },
			}),
			item({ type: "tool_search_output", call_id: "ts1", status: "completed", execution: "client", tools: [] }),
			item({ type: "ghost_snapshot", ghost_commit: { id: "abc", parent: null } }),
			item({ type: "additional_tools", role: "developer", tools: [{ name: "x" }] }),
			item({
				type: "agent_message",
				author: "worker",
				recipient: "main",
				content: [{ type: "input_text", text: "hi" }],
			}),
			item({ type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "raw thought" }] }),
			assistant("found it"),
		]);
		assert.deepEqual(brief(contextOf(s).messages), [
			"user: find a tool",
			"assistant: [ts1]",
			"toolResult(ts1): []",
			"custom(codex:agent_message): hi",
			"assistant: (thinking) found it",
		]);
		const reasoning = (contextOf(s).messages[4] as { content: Json[] }).content[0];
		assert.equal(reasoning?.thinking, "raw thought");
		assert.deepEqual(customTypes(s).slice(1), ["codex:response_item", "codex:response_item"]);
	});
});

/** A session_meta line every case below starts with. */
const M = meta();

describe("Codex: records that break the format", () => {
	// [what, the lines after session_meta, line of the problem, field named, custom type lenient keeps]
	const cases: Array<[string, (Json | string)[], number, string, string]> = [
		[
			"a replacement item without a type",
			[{ timestamp: at(), type: "compacted", payload: { message: "", replacement_history: [{ role: "user" }] } }],
			2,
			"payload.replacement_history[0].type",
			"codex:response_item",
		],
		[
			"a response_item whose payload is no object",
			[{ timestamp: at(), type: "response_item", payload: 7 }],
			2,
			"payload",
			"codex:invalid",
		],
		["a message without content", [item({ type: "message", role: "user" })], 2, "payload.content", "codex:invalid"],
		[
			"an output without call_id",
			[item({ type: "function_call_output", output: "x" })],
			2,
			"payload.call_id",
			"codex:invalid",
		],
		[
			"a rollback with a bad num_turns",
			[event({ type: "thread_rolled_back", num_turns: -1 })],
			2,
			"payload.num_turns",
			"codex:invalid",
		],
		["a line without a type", [{ timestamp: at(), payload: {} }], 2, "type", "codex:invalid"],
		["a timestamp that is not a date", [{ ...user("x"), timestamp: "yesterday" }], 2, "timestamp", ""],
		["a line that is not JSON", ["{not json"], 2, "not valid JSON", "codex:invalid_line"],
	];
	for (const [what, lines, line, field, kept] of cases) {
		test(`${what}: strict names file, line and field; lenient keeps it, reports it and imports the rest`, () => {
			const all = [M, ...lines, user("after"), assistant("still here")];
			assert.throws(
				() => load(all),
				(error: unknown) => {
					assert.ok(isSessionTreeError(error), String(error));
					assert.equal(error.file, "sessions/rollout.jsonl");
					assert.equal(error.line, line);
					assert.ok(error.message.includes(field), error.message);
					return true;
				},
			);
			const s = load(all, true);
			assert.equal(s.skipped.length, 1, JSON.stringify(s.skipped));
			assert.equal(s.skipped[0]?.where, String(line));
			assert.ok(s.skipped[0]?.reason.includes(field), s.skipped[0]?.reason);
			if (kept !== "") assert.ok(customTypes(s).includes(kept), customTypes(s).join());
			// The rest is imported: the lines after the bad one reach the context.
			assert.deepEqual(brief(contextOf(s).messages).slice(-2), ["user: after", "assistant: still here"]);
		});
	}

	test("a function_call whose arguments are not JSON is kept, raw, in both modes (real redacted files have them)", () => {
		const s = load([M, user("q"), call("c1", "[REDACTED_ARGUMENTS len=5]"), output("c1")]);
		const message = contextOf(s).messages[1] as { content: Json[] };
		assert.deepEqual(message.content[0]?.arguments, {});
		assert.equal(message.content[0]?.rawArguments, "[REDACTED_ARGUMENTS len=5]");
		assert.deepEqual(s.skipped, []);
	});

	test("session_meta without an id: strict fails; lenient takes the id from the file name", () => {
		const lines = [{ timestamp: at(), type: "session_meta", payload: { cwd: "/w" } }, user("q")];
		const name = "rollout-2026-05-01T00-00-00-019d1111-2222-7333-8444-555566667777.jsonl";
		assert.throws(() => importCodex({ name, text: text(lines) }), /payload\.id/);
		const [s] = importCodex({ name, text: text(lines), lenient: true });
		assert.equal(s?.header.id, "019d1111-2222-7333-8444-555566667777");
		assert.equal(s?.skipped.length, 1);
	});

	test("an unknown item type with odd fields is a custom entry, in strict mode too", () => {
		const odd = item({ type: "hologram", weird: [1, { deep: null }], call_id: 5 });
		const s = load([M, odd, user("q")]);
		assert.deepEqual(customTypes(s).slice(1), ["codex:response_item"]);
		assert.deepEqual((s.records[1] as unknown as Json).data, odd.payload);
	});
});
