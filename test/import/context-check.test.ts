import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { importSources } from "../../src/import/index.js";
import { removeTemps, sample, tempDir } from "./helpers.js";

after(removeTemps);

describe("the context check at the end of an import", () => {
	test("the report gives each session's tool pairing, so a library caller sees what the CLI warns of", async () => {
		const dir = tempDir();
		const report = await importSources(
			[
				sample("codex", "localpush-rollout-2026-02-23T12-40-23-019c8a4c.jsonl"),
				sample("claude-code", "ccl-real-edit-branch-03eb5929.jsonl"),
			],
			{ dir },
		);
		assert.deepEqual(report.failures, []);
		const [codex, claude] = report.sessions;
		// The rollout records a developer message between this call and its output (the CLI test
		// test/cli/integrity.test.ts derives that from the rollout's own lines).
		assert.deepEqual(
			codex?.toolPairing.problems.map((p) => [p.code, p.toolCallId]),
			[["TOOL_RESULT_SEPARATED", "call_4jxJEFRewIBvuWaOcDI5P7M7"]],
		);
		assert.deepEqual(claude?.toolPairing, { problems: [], pending: [] });
		// Importing again changes nothing and reports the same.
		const again = await importSources([sample("codex", "localpush-rollout-2026-02-23T12-40-23-019c8a4c.jsonl")], {
			dir,
		});
		assert.equal(again.sessions[0]?.status, "unchanged");
		assert.equal(again.sessions[0]?.toolPairing.problems.length, 1);
	});
});
