import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { importSources } from "../../src/import/index.js";
import { removeTemps, sample, tempDir } from "./helpers.js";

after(removeTemps);

/**
 * A Claude Code transcript written here (by hand: the call toolu_01 is never answered, and the
 * user goes on with a new prompt), so the context at its leaf has a call without a result.
 */
function unansweredCall(dir: string): string {
	const file = join(dir, "4b1c2d3e-0000-4000-8000-000000000002.jsonl");
	const base = { sessionId: "4b1c2d3e-0000-4000-8000-000000000002", cwd: "/p", version: "2.1.0", isSidechain: false };
	const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
	const assistant = (id: string, content: unknown[], stop: string) => ({
		id,
		role: "assistant",
		model: "claude-sonnet-4-5",
		content,
		stop_reason: stop,
		usage: { input_tokens: 10, output_tokens: 5 },
	});
	const records = [
		{ ...base, type: "user", uuid: "u1", parentUuid: null, timestamp: at(0), message: { role: "user", content: "ls" } },
		{
			...base,
			type: "assistant",
			uuid: "a1",
			parentUuid: "u1",
			timestamp: at(1),
			message: assistant(
				"msg_1",
				[{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "ls" } }],
				"tool_use",
			),
		},
		{ ...base, type: "user", uuid: "u2", parentUuid: "a1", timestamp: at(2), message: { role: "user", content: "hi" } },
		{
			...base,
			type: "assistant",
			uuid: "a2",
			parentUuid: "u2",
			timestamp: at(3),
			message: assistant("msg_2", [{ type: "text", text: "hi" }], "end_turn"),
		},
	];
	writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
	return file;
}

describe("the context check at the end of an import", () => {
	test("the report gives each session's tool pairing, so a library caller sees what the CLI warns of", async () => {
		const dir = tempDir();
		const broken = unansweredCall(tempDir());
		const report = await importSources(
			[
				broken,
				// A real rollout with a developer message between a call and its output: the import
				// places the output after its call, so nothing is reported (test/cli/integrity.test.ts).
				sample("codex", "localpush-rollout-2026-02-23T12-40-23-019c8a4c.jsonl"),
				sample("claude-code", "ccl-real-edit-branch-03eb5929.jsonl"),
			],
			{ dir },
		);
		assert.deepEqual(report.failures, []);
		const [claudeBroken, codex, claude] = report.sessions;
		assert.deepEqual(
			claudeBroken?.toolPairing.problems.map((p) => [p.code, p.toolCallId]),
			[["TOOL_CALL_WITHOUT_RESULT", "toolu_01"]],
		);
		assert.deepEqual(codex?.toolPairing, { problems: [], pending: [] });
		assert.deepEqual(claude?.toolPairing, { problems: [], pending: [] });
		// Importing again changes nothing and reports the same.
		const again = await importSources([broken], { dir });
		assert.equal(again.sessions[0]?.status, "unchanged");
		assert.equal(again.sessions[0]?.toolPairing.problems.length, 1);
	});
});
