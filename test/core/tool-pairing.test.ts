import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
	type AgentMessage,
	buildContextEntries,
	checkToolPairing,
	type SessionEntry,
	type ToolPairingProblem,
} from "../../src/core/index.js";
import { Session } from "../../src/index.js";
import { fixtureFile, fixtureNames } from "../support/fixtures.js";

const TS = "2026-01-01T00:00:00.000Z";

/** A chain of message entries e1, e2, … (each the child of the one before). */
function chain(...messages: AgentMessage[]): SessionEntry[] {
	return messages.map((message, i) => ({
		type: "message",
		id: `e${i + 1}`,
		parentId: i === 0 ? null : `e${i}`,
		timestamp: TS,
		message,
	}));
}

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const calls = (ids: string[], extra: Record<string, unknown> = {}): AgentMessage => ({
	role: "assistant",
	content: ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: {} })),
	provider: "anthropic",
	model: "m",
	stopReason: "toolUse",
	timestamp: 1,
	...extra,
});
const result = (id: string): AgentMessage => ({
	role: "toolResult",
	toolCallId: id,
	toolName: "bash",
	content: [{ type: "text", text: "ok" }],
	isError: false,
	timestamp: 1,
});
const text = (t: string): AgentMessage => ({
	role: "assistant",
	content: [{ type: "text", text: t }],
	provider: "anthropic",
	model: "m",
	stopReason: "stop",
	timestamp: 1,
});

/** Each problem as [code, toolCallId, entry ids]. */
function brief(found: readonly ToolPairingProblem[]): Array<[string, string, string[]]> {
	return found.map((problem) => [problem.code, problem.toolCallId, problem.entryIds]);
}

function check(...messages: AgentMessage[]) {
	return checkToolPairing(buildContextEntries(chain(...messages)));
}

describe("checkToolPairing", () => {
	test("every golden pi fixture's leaf context pairs its calls (pi wrote them; damaged ones read leniently)", async () => {
		// pi 0.73.1 wrote these sessions; a provider took each context, so none may be reported.
		for (const name of fixtureNames()) {
			const session = await Session.open(fixtureFile(name), { lenient: true });
			const report = checkToolPairing(session.buildContextEntries());
			assert.deepEqual(brief(report.problems), [], name);
			await session.close();
		}
	});

	test("parallel calls answered in any order right after their message: nothing to report", () => {
		const report = check(user("q"), calls(["a", "b"]), result("b"), result("a"), text("done"));
		assert.deepEqual(report, { problems: [], pending: [] });
	});

	test("a call without a result, once the context goes on, names its entry and id", () => {
		const report = check(user("q"), calls(["a", "b"]), result("a"), user("stop"), text("ok"));
		assert.deepEqual(brief(report.problems), [["TOOL_CALL_WITHOUT_RESULT", "b", ["e2"]]]);
		assert.equal(report.problems[0]?.callIndex, 1);
		assert.match(report.problems[0]?.message ?? "", /tool call b \(bash\) in entry e2 has no result/);
		assert.deepEqual(report.pending, []);
	});

	test("a result without a call, and a result that answers a call twice", () => {
		const report = check(user("q"), result("zz"), calls(["a"]), result("a"), result("a"));
		assert.deepEqual(brief(report.problems), [
			["TOOL_RESULT_WITHOUT_CALL", "zz", ["e2"]],
			["TOOL_RESULT_DUPLICATE", "a", ["e3", "e5"]],
		]);
	});

	test("a result separated from its call by a user message (or by the next assistant message)", () => {
		const byUser = check(user("q"), calls(["a"]), user("interrupt"), result("a"), text("x"));
		assert.deepEqual(brief(byUser.problems), [["TOOL_RESULT_SEPARATED", "a", ["e2", "e4"]]]);
		assert.equal(byUser.problems[0]?.callEntryId, "e2");
		assert.equal(byUser.problems[0]?.resultEntryId, "e4");
		assert.match(byUser.problems[0]?.message ?? "", /separated from its call in entry e2 by 1 message/);
		// Claude Code's chained parallel calls followed literally: call a, call b, result a, result b.
		const chained = check(user("q"), calls(["a"]), calls(["b"]), result("a"), result("b"), text("x"));
		assert.deepEqual(brief(chained.problems), [["TOOL_RESULT_SEPARATED", "a", ["e2", "e4"]]]);
	});

	test("the last assistant message's unanswered calls are pending, not problems", () => {
		const midTurn = check(user("q"), calls(["a", "b"]), result("a"));
		assert.deepEqual(midTurn.problems, []);
		assert.deepEqual(brief(midTurn.pending), [["TOOL_CALL_PENDING", "b", ["e2"]]]);
		// A user message after it ends the turn: the same call is now a problem.
		const after = check(user("q"), calls(["a", "b"]), result("a"), user("next"));
		assert.deepEqual(brief(after.problems), [["TOOL_CALL_WITHOUT_RESULT", "b", ["e2"]]]);
		assert.deepEqual(after.pending, []);
	});

	test("as pi sends them: aborted or failed assistant messages, and bash runs kept out of the context", () => {
		// pi-ai leaves out an aborted message, so its call needs no result, and a result of it answers nothing.
		const aborted = check(user("q"), calls(["a"], { stopReason: "aborted" }), user("again"), text("x"));
		assert.deepEqual(aborted, { problems: [], pending: [] });
		const answered = check(user("q"), calls(["a"], { stopReason: "error" }), result("a"));
		assert.deepEqual(brief(answered.problems), [["TOOL_RESULT_WITHOUT_CALL", "a", ["e3"]]]);
		assert.match(answered.problems[0]?.message ?? "", /stopped with an error or was aborted/);
		// A `!!` bash run (excludeFromContext) is not sent; a plain one becomes a user message.
		const bash = (exclude: boolean): AgentMessage => ({
			role: "bashExecution",
			command: "ls",
			output: "",
			exitCode: 0,
			cancelled: false,
			truncated: false,
			timestamp: 1,
			...(exclude ? { excludeFromContext: true } : {}),
		});
		assert.deepEqual(check(user("q"), calls(["a"]), bash(true), result("a")).problems, []);
		assert.deepEqual(brief(check(user("q"), calls(["a"]), bash(false), result("a")).problems), [
			["TOOL_RESULT_SEPARATED", "a", ["e2", "e4"]],
		]);
	});

	test("a compaction's retained tail: its messages name the compaction entry", () => {
		const path: SessionEntry[] = [
			...chain(user("old")),
			{
				type: "compaction",
				id: "c1",
				parentId: "e1",
				timestamp: TS,
				summary: "s",
				firstKeptEntryId: "e1",
				tokensBefore: 0,
				retainedTail: [calls(["a"])],
			},
			{ type: "message", id: "r1", parentId: "c1", timestamp: TS, message: user("go on") },
		];
		const report = checkToolPairing(buildContextEntries(path));
		// The summary comes first, then the kept call, then the user message: the call is unanswered.
		assert.deepEqual(brief(report.problems), [["TOOL_CALL_WITHOUT_RESULT", "a", ["c1"]]]);
	});
});
