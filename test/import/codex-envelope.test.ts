/**
 * Codex's shell envelope (issue 25): up to about CLI 0.60 the shell tool's
 * `function_call_output` holds a JSON text `{"output":"…","metadata":{"exit_code":N,…}}`. The
 * import gives the tool result the output text, as pi's bash tool records one (a non-zero exit
 * code appended as `Command exited with code N`, as an error), and keeps the raw text in the
 * entry's `source`. Expectations come from the rollout's lines, parsed here on their own.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { SessionEntry } from "../../src/core/types.js";
import { importCodex } from "../../src/import/codex.js";
import { shellEnvelope } from "../../src/import/codex-items.js";
import { REPO } from "./helpers.js";

type Json = Record<string, unknown>;

const NAME = "acidicsoil-0.58.0-rollout-019a93b9.jsonl";
const TEXT = readFileSync(join(REPO, "test", "fixtures", "real", "codex", NAME), "utf8");

/** Each function_call_output of the file by call id: its raw output text. */
function rawOutputs(): Map<string, string> {
	const outputs = new Map<string, string>();
	for (const line of TEXT.split("\n")) {
		if (line.trim() === "") continue;
		const payload = (JSON.parse(line) as Json).payload as Json | undefined;
		if (payload?.type === "function_call_output") outputs.set(String(payload.call_id), String(payload.output));
	}
	return outputs;
}

describe("Codex import: the shell envelope", () => {
	test(`${NAME}: every tool result holds the envelope's output text, the raw text stays in source`, () => {
		const raw = rawOutputs();
		assert.ok(raw.size >= 30, `the rollout has its outputs (${raw.size})`);
		const session = importCodex({ name: NAME, text: TEXT })[0];
		assert.ok(session);
		let envelopes = 0;
		let checked = 0;
		for (const record of session.records as SessionEntry[]) {
			if (record.type !== "message" || record.message.role !== "toolResult") continue;
			const callId = String(record.message.toolCallId);
			const text = raw.get(callId);
			assert.ok(text !== undefined, callId);
			const items = (record as unknown as { source: { items: Array<{ rest: Json }> } }).source.items;
			checked++;
			if (!text.startsWith('{"output":')) {
				// Other tools' outputs (update_plan: "Plan updated") are text already.
				assert.deepEqual(record.message.content, [{ type: "text", text }]);
				assert.equal(items[0]?.rest.output, undefined);
				continue;
			}
			const envelope = JSON.parse(text) as { output: string; metadata: { exit_code: number } };
			const code = envelope.metadata.exit_code;
			const expected =
				code === 0
					? envelope.output
					: `${envelope.output ? `${envelope.output}\n\n` : ""}Command exited with code ${code}`;
			assert.deepEqual(record.message.content, [{ type: "text", text: expected }]);
			assert.equal(record.message.isError, code !== 0);
			assert.equal(items[0]?.rest.output, text, "the raw envelope is kept");
			envelopes++;
		}
		assert.ok(envelopes >= 30, `most outputs were envelopes (${envelopes})`);
		assert.equal(checked, raw.size, "every output has its result");
	});

	test("only the envelope's exact shape is unwrapped", () => {
		assert.deepEqual(shellEnvelope('{"output":"a\\n","metadata":{"exit_code":2}}'), { output: "a\n", exitCode: 2 });
		// A command whose own output is JSON, and shapes that are not the envelope, stay as they are.
		assert.equal(shellEnvelope('{"output":"a","metadata":{},"more":1}'), undefined);
		assert.equal(shellEnvelope('{"output":1,"metadata":{}}'), undefined);
		assert.equal(shellEnvelope('{"output":"a"}'), undefined);
		assert.equal(shellEnvelope('{"output":"a","metadata":{}'), undefined);
		assert.equal(shellEnvelope('[{"output":"a","metadata":{}}]'), undefined);
	});

	test("an envelope with a failing exit code is an error result, as pi's bash tool records it", () => {
		const lines = [
			{
				timestamp: "2025-11-17T21:32:50.000Z",
				type: "session_meta",
				payload: { id: "s", cwd: "/w", timestamp: "2025-11-17T21:32:50.000Z" },
			},
			{
				timestamp: "2025-11-17T21:32:51.000Z",
				type: "response_item",
				payload: { type: "message", role: "user", content: [{ type: "input_text", text: "run it" }] },
			},
			{
				timestamp: "2025-11-17T21:32:52.000Z",
				type: "response_item",
				payload: { type: "function_call", name: "shell", arguments: '{"command":["false"]}', call_id: "c1" },
			},
			{
				timestamp: "2025-11-17T21:32:53.000Z",
				type: "response_item",
				payload: {
					type: "function_call_output",
					call_id: "c1",
					output: JSON.stringify({ output: "", metadata: { exit_code: 1, duration_seconds: 0 } }),
				},
			},
		];
		const session = importCodex({ name: "fail.jsonl", text: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n` })[0];
		const result = ((session?.records ?? []) as SessionEntry[]).find(
			(r) => r.type === "message" && r.message.role === "toolResult",
		);
		assert.ok(result?.type === "message" && result.message.role === "toolResult");
		assert.deepEqual(result.message.content, [{ type: "text", text: "Command exited with code 1" }]);
		assert.equal(result.message.isError, true);
	});
});
