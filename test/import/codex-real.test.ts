/**
 * The Codex importer on the real rollouts of test/fixtures/real/codex (CLI 0.58 to 0.104, Codex
 * Desktop, the VS Code extension with prompts only as `user_message` events; copied byte for byte from the corpus, provenance in test/fixtures/real/SOURCES.md). What each
 * file must give is in `expected.json`, written by `test/fixtures/real/derive.py` (Python stdlib,
 * reading the files directly, never session-tree): the tool results the model sees at the end
 * (each must be right after its call in the import's leaf context), the first prompt (on the
 * active path) and the number of prompts. The counts in the comments below were made with a
 * short Python listing of each file's lines (type, payload type, role, call_id).
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { buildSessionContext } from "../../src/core/context.js";
import type { ContextMessage, SessionEntry } from "../../src/core/types.js";
import { importCodex } from "../../src/import/codex.js";
import type { ImportedSession } from "../../src/import/types.js";
import { asJson, piContext, REPO, removeTemps } from "./helpers.js";

after(removeTemps);

type Json = Record<string, unknown>;

const folder = join(REPO, "test", "fixtures", "real", "codex");
const expected = JSON.parse(readFileSync(join(folder, "expected.json"), "utf8")) as Record<
	string,
	{ toolResults: string[]; firstPrompt: string | null; userPrompts: number; notes: string }
>;
const files = readdirSync(folder).filter((f) => f.endsWith(".jsonl"));

/** What derive.py treats as injected (its CODEX_INJECTED), and its match of localpush's redacted texts. */
const INJECTED = [
	"# AGENTS.md instructions",
	"<environment_context>",
	"<user_instructions>",
	"<permissions instructions>",
	"<INSTRUCTIONS>",
	"<user_shell_command>",
	"<turn_aborted>",
	"<collaboration_mode>",
	"<skills_instructions>",
];
const REDACTED = /^\[REDACTED_(?:TEXT|MESSAGE) len=\d+ sha=([0-9a-f]+)\]/;

function load(name: string, lenient = false): ImportedSession {
	const sessions = importCodex({ name, text: readFileSync(join(folder, name), "utf8"), lenient });
	assert.equal(sessions.length, 1);
	return sessions[0] as ImportedSession;
}

function leafPath(s: ImportedSession): SessionEntry[] {
	const byId = new Map(s.records.map((r) => [r.id, r]));
	const path: SessionEntry[] = [];
	for (let e = byId.get(s.leafId ?? ""); e; e = byId.get(e.parentId ?? "")) path.unshift(e);
	return path;
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	const first = (content as Json[]).find((b) => b.type === "text");
	return first ? String(first.text) : "";
}

/** The shas of the file's `user_message` events (redacted files only). */
function eventShas(name: string): Set<string> {
	const shas = new Set<string>();
	for (const line of readFileSync(join(folder, name), "utf8").split("\n")) {
		if (line.trim() === "") continue;
		const r = JSON.parse(line) as Json;
		const p = r.payload as Json | undefined;
		if (r.type !== "event_msg" || p?.type !== "user_message" || typeof p.message !== "string") continue;
		const match = REDACTED.exec(p.message);
		if (match) shas.add(match[1] as string);
	}
	return shas;
}

describe("Codex: real rollouts", () => {
	for (const name of files) {
		const want = expected[name];
		test(`${name}: ${want?.notes ?? "(no expected values)"}`, () => {
			assert.ok(want, `expected.json has ${name}`);
			const s = load(name);
			assert.deepEqual(s.skipped, [], "a strict import of a real file works around nothing");
			assert.deepEqual(load(name, true).records, s.records, "lenient gives the same records");
			const path = leafPath(s);
			const messages: ContextMessage[] = buildSessionContext(path).messages;

			// Each tool result the model sees is right after the assistant message with its call.
			for (const id of want.toolResults) {
				const at = messages.findIndex((m) => m.role === "toolResult" && (m as Json).toolCallId === id);
				assert.ok(at >= 0, `${id}: a result in the leaf context`);
				let i = at - 1;
				while (i >= 0 && messages[i]?.role === "toolResult") i--;
				const caller = messages[i] as { role: string; content: Json[] };
				assert.equal(caller.role, "assistant", `${id}: after an assistant message`);
				assert.ok(
					caller.content.some((b) => b.type === "toolCall" && b.id === id),
					`${id}: right after the message with its call`,
				);
			}
			// No result without its call anywhere in the context.
			const calls = new Set(
				messages.flatMap((m) => (m.role === "assistant" ? (m.content as Json[]) : []).map((b) => b.id)),
			);
			for (const m of messages) if (m.role === "toolResult") assert.ok(calls.has((m as Json).toolCallId));

			// The first prompt is on the active path; the prompts are counted as derive.py counts them.
			const users = path.filter(
				(e): e is SessionEntry & { message: { role: string; content: unknown } } =>
					e.type === "message" && e.message.role === "user",
			);
			if (want.firstPrompt !== null) {
				assert.ok(users.some((e) => textOf(e.message.content).startsWith(want.firstPrompt as string)));
			}
			const shas = eventShas(name);
			const fromLines = s.records.filter((r) => {
				if (r.type !== "message" || r.message.role !== "user") return false;
				const items = ((r as unknown as { source: { items: Json[] } }).source?.items ?? []) as Json[];
				return items.every((item) => item.replacement === undefined);
			});
			const prompts = fromLines.filter((r) => {
				const text = textOf((r as unknown as { message: { content: unknown } }).message.content);
				if (text.trim() === "") return false;
				if (shas.size > 0) return shas.has(REDACTED.exec(text)?.[1] ?? "");
				return !INJECTED.some((marker) => text.trimStart().startsWith(marker));
			});
			assert.equal(prompts.length, want.userPrompts);

			// The model is the one a turn_context names; a file without one (and nothing else naming
			// it) has no model change and says "unknown", never an empty id ("openai/").
			const model = buildSessionContext(path).model;
			if (want.notes.includes("no turn_context")) {
				// (null when the file has no assistant message either: no model at all.)
				assert.ok(model === null || model.modelId === "unknown", JSON.stringify(model));
				assert.equal(
					s.records.some((r) => r.type === "model_change"),
					false,
				);
			} else assert.ok(model && model.modelId !== "" && model.modelId !== "unknown", JSON.stringify(model));
			// pi's own SessionManager reads the import with the same context.
			assert.deepEqual(piContext(s), asJson(buildSessionContext(path)));
		});
	}

	for (const name of files) {
		test(`${name}: a prefix of the file gives the same ids and parents, except a cut while a message waits for an output`, () => {
			const full = readFileSync(join(folder, name), "utf8");
			const lines = full.split("\n");
			const whole = importCodex({ name, text: full })[0] as ImportedSession;
			const parents = new Map(whole.records.map((r) => [r.id, r.parentId]));
			// From the raw lines: cuts after a developer/user message that stands between a call
			// and its output, before that output (the documented exception, docs/import.md).
			const waiting = new Set<number>();
			const open = new Map<string, number>();
			let since: number | undefined;
			lines.forEach((line, index) => {
				const p = line.trim() === "" ? undefined : ((JSON.parse(line) as Json).payload as Json | undefined);
				if (p?.type === "function_call" || p?.type === "custom_tool_call") open.set(String(p.call_id), index);
				else if (p?.type === "function_call_output" || p?.type === "custom_tool_call_output") {
					open.delete(String(p.call_id));
					if (open.size === 0) since = undefined;
				} else if (p?.type === "message" && p.role !== "assistant" && open.size > 0) since ??= index;
				if (since !== undefined) waiting.add(index + 1);
			});
			const step = Math.max(1, Math.floor(lines.length / 80));
			for (let n = 1; n < lines.length; n += step) {
				if (waiting.has(n)) continue;
				const part = importCodex({ name, text: `${lines.slice(0, n).join("\n")}\n` })[0];
				for (const r of part?.records ?? []) {
					assert.ok(parents.has(r.id), `line ${n}: entry ${r.id} is in the whole import`);
					assert.equal(parents.get(r.id), r.parentId, `line ${n}: entry ${r.id} keeps its parent`);
				}
			}
		});
	}

	test("localpush-0.104-12-54-34: 26 messages written while a tool ran come after its output", () => {
		// In the file, 26 developer messages (approval notes) stand between a function_call or
		// custom_tool_call and its output (first at line 57, between the call of line 55 and its
		// output). In the context each output follows its call, and every line has its entry.
		const s = load("localpush-0.104-12-54-34-019c8a59.jsonl");
		const lines = new Set(
			s.records.flatMap((r) =>
				((r as unknown as { source?: { items?: Json[] } }).source?.items ?? []).map((i) => i.line),
			),
		);
		const developer = s.records.find(
			(r) =>
				r.type === "custom_message" &&
				((r as unknown as { source: { items: Json[] } }).source.items[0] as Json).line === 57,
		);
		assert.ok(developer, "the developer message of line 57 has an entry");
		const parent = s.records.find((r) => r.id === developer.parentId) as SessionEntry & { message?: Json };
		assert.equal(parent.message?.role, "toolResult", "it hangs below the output of the call of line 55");
		assert.ok(lines.has(55) && lines.has(57));
	});
});
