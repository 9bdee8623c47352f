import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { emptyUsage } from "../../src/core/entries.js";
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

describe("toolPairingOfRecords reads the leaf's branch alone", () => {
	// Records by hand: a call c1 answered by r1 on one branch, a call c2 left unanswered on
	// another; which report comes back says which branch was read.
	const header = {
		type: "session",
		version: 3,
		id: "0195f3c2-0000-7000-8000-000000000009",
		timestamp: "2026-01-01T00:00:00.000Z",
		cwd: "/p",
	};
	const stamp = (id: string, parentId: string | null) => ({ id, parentId, timestamp: "2026-01-01T00:00:01.000Z" });
	const call = (id: string, parentId: string | null, callId: string) => ({
		type: "message",
		...stamp(id, parentId),
		message: {
			role: "assistant",
			content: [{ type: "toolCall", id: callId, name: "bash", arguments: {} }],
			api: "x",
			provider: "p",
			model: "m",
			usage: emptyUsage(),
			stopReason: "toolUse",
			timestamp: 1,
		},
	});
	const result = (id: string, parentId: string, callId: string) => ({
		type: "message",
		...stamp(id, parentId),
		message: { role: "toolResult", toolCallId: callId, toolName: "bash", content: [], isError: false, timestamp: 1 },
	});
	const user = (id: string, parentId: string | null) => ({
		type: "message",
		...stamp(id, parentId),
		message: { role: "user", content: "go", timestamp: 1 },
	});
	const records = [
		header,
		user("u1", null),
		call("c1", "u1", "k1"),
		result("r1", "c1", "k1"),
		user("u2", "r1"),
		call("c2", "u1", "k2"),
		user("u3", "c2"),
	];

	test("the leaf named, in file order", async () => {
		const { toolPairingOfRecords } = await import("../../src/import/context-check.js");
		assert.equal(toolPairingOfRecords(records as never, "x", "u2").problems.length, 0);
		assert.equal(toolPairingOfRecords(records as never, "x", "u3").problems.length, 1);
		assert.equal(toolPairingOfRecords(records as never, "x").problems.length, 1, "no leaf named: the last entry");
		assert.equal(toolPairingOfRecords(records as never, "x", null).problems.length, 0, "leaf null: an empty context");
	});
	test("a parent written after its child is found by id", async () => {
		const { toolPairingOfRecords } = await import("../../src/import/context-check.js");
		const shuffled = [header, user("u3", "c2"), call("c2", "u1", "k2"), user("u1", null)];
		assert.equal(toolPairingOfRecords(shuffled as never, "x", "u3").problems.length, 1);
		const loop = [header, user("a", "b"), user("b", "a")];
		assert.equal(toolPairingOfRecords(loop as never, "x", "a").problems.length, 0, "a loop of parents ends");
	});
});
