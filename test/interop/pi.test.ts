/**
 * Files session-tree writes, opened by pi's own SessionManager (0.73.1, a dev dependency used
 * only here and in the property test), give the same model context as session-tree computes.
 */

import assert from "node:assert/strict";
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { type AgentMessage, Session } from "../../src/index.js";
import { asJson } from "../support/fixtures.js";
import { assistantMessage, userMessage } from "../support/messages.js";

const dir = mkdtempSync(join(tmpdir(), "st-interop-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let clock = Date.parse("2026-01-01T00:00:00.000Z");
const now = () => {
	clock += 7;
	return new Date(clock);
};

const user = (text: string): AgentMessage => userMessage(text, clock);
const assistant = (text: string, model?: string): AgentMessage => assistantMessage(text, clock, model);

/** pi's view of a file: opened from a copy, since pi may rewrite what it opens. */
function piContext(file: string): unknown {
	const copy = join(dir, `pi-${Math.random().toString(16).slice(2)}.jsonl`);
	copyFileSync(file, copy);
	return asJson(SessionManager.open(copy, dir).buildSessionContext());
}

function assertSameContext(session: Session): void {
	const file = session.file as string;
	const ours = asJson(Session.open(file).buildSessionContext());
	assert.deepEqual(ours, asJson(session.buildSessionContext()), "reopened context equals the live one");
	assert.deepEqual(piContext(file), ours, "pi builds the same context from our file");
}

describe("pi reads what session-tree writes", () => {
	test("a linear chat with every entry type", () => {
		const s = Session.create({ dir, cwd: "/p", now });
		s.appendModelChange("anthropic", "claude-sonnet-4-5");
		s.appendThinkingLevelChange("high");
		const q1 = s.appendMessage(user("first question"));
		s.appendMessage(assistant("first answer"));
		s.appendCustomEntry("ext-state", { n: 1 });
		s.appendCustomMessageEntry("reminder", "run the tests", true, { why: "ci" });
		s.appendCustomMessageEntry("hidden", [{ type: "text", text: "blocks" }], false);
		s.appendLabelChange(q1, "start");
		s.appendSessionInfo("  named  ");
		s.appendMessage(user("second"));
		assertSameContext(s);
		assert.equal(s.getSessionName(), "named");
	});

	test("branch without a following append: the leaf record keeps pi on the same context", () => {
		const s = Session.create({ dir, cwd: "/p", now });
		s.appendMessage(user("q1"));
		const a1 = s.appendMessage(assistant("a1"));
		s.appendMessage(user("q2"));
		s.appendMessage(assistant("a2"));
		s.branch(a1);
		assert.equal(Session.open(s.file as string).getLeafId(), a1);
		assertSameContext(s);
		// Branch, then append: the new entry hangs off a1.
		s.appendMessage(user("q2 asked differently"));
		assertSameContext(s);
		assert.equal(Session.open(s.file as string).listBranches().length, 2);
	});

	test("resetLeaf and branchWithSummary (also from the root)", () => {
		const s = Session.create({ dir, cwd: "/p", now });
		const q1 = s.appendMessage(user("q1"));
		s.appendMessage(assistant("a1"));
		s.resetLeaf();
		assert.equal(Session.open(s.file as string).getLeafId(), null);
		assertSameContext(s);
		s.branchWithSummary(q1, "tried something else", { files: ["a.ts"] });
		s.appendMessage(assistant("after summary"));
		assertSameContext(s);
		s.branchWithSummary(null, "start over");
		assertSameContext(s);
		s.branchWithSummary(q1, "");
		assertSameContext(s);
	});

	test("compactions, with and without retainedTail", () => {
		const s = Session.create({ dir, cwd: "/p", now });
		const ids: string[] = [];
		for (let i = 0; i < 6; i++) {
			ids.push(s.appendMessage(user(`q${i}`)));
			ids.push(s.appendMessage(assistant(`a${i}`)));
		}
		s.appendCompaction("summary one", ids[4] as string, 1000, { readFiles: [] }, false);
		s.appendMessage(user("after one"));
		assertSameContext(s);
		s.appendCustomMessageEntry("note", "kept custom message", true);
		s.appendCompaction("summary two", ids[8] as string, 2000, undefined, true, true);
		const tail = s.getLeafEntry() as { retainedTail?: unknown[] };
		assert.ok(Array.isArray(tail.retainedTail) && tail.retainedTail.length > 0);
		s.appendMessage(user("after two"));
		assertSameContext(s);
	});

	test("navigate: a user message moves the leaf to its parent; the root one resets it", () => {
		const s = Session.create({ dir, cwd: "/p", now });
		const q1 = s.appendMessage(user("q1"));
		const a1 = s.appendMessage(assistant("a1"));
		const q2 = s.appendMessage({
			role: "user",
			content: [
				{ type: "text", text: "q2 " },
				{ type: "text", text: "blocks" },
			],
			timestamp: 1,
		});
		s.appendMessage(assistant("a2"));
		assert.deepEqual(s.navigate(q2), { leafId: a1, editorText: "q2 blocks" });
		assertSameContext(s);
		assert.deepEqual(s.navigate(q1), { leafId: null, editorText: "q1" });
		assertSameContext(s);
		assert.deepEqual(s.navigate(a1), { leafId: a1 });
		const result = s.navigate(q2, { summary: "left the q2 branch" });
		assert.equal(s.getEntry(result.summaryEntryId as string)?.parentId, a1);
		assertSameContext(s);
	});

	test("fork and clone write a file pi reads to the same context, labels included", () => {
		const s = Session.create({ dir, cwd: "/p", now });
		const q1 = s.appendMessage(user("q1"));
		s.appendLabelChange(q1, "first");
		const a1 = s.appendMessage(assistant("a1"));
		s.appendLabelChange(a1, "answer");
		const q2 = s.appendMessage(user("q2"));
		s.appendMessage(assistant("a2"));
		const forked = s.fork(q2);
		assert.equal(forked.getHeader().parentSession, s.file);
		assert.deepEqual(
			forked.getBranch().map((e) => e.id),
			[q1, a1, q2],
		);
		assert.equal(forked.getLabel(q1), "first");
		assert.equal(forked.getLabel(a1), "answer");
		assert.deepEqual(forked.problems, []);
		assertSameContext(forked);
		const reopened = Session.open(forked.file as string);
		assert.equal(reopened.getLeafId(), q2);
		assert.equal(reopened.getLabel(a1), "answer");
		const cloned = s.clone();
		assert.deepEqual(asJson(cloned.buildSessionContext()), asJson(s.buildSessionContext()));
		assertSameContext(cloned);
	});

	test("what pi appends after our leaf record is read by us as pi reads it", () => {
		const s = Session.create({ dir, cwd: "/p", now });
		s.appendMessage(user("q1"));
		const a1 = s.appendMessage(assistant("a1"));
		s.appendMessage(user("q2"));
		s.branch(a1);
		const file = s.file as string;
		const pi = SessionManager.open(file, dir);
		pi.appendMessage(user("written by pi") as never);
		pi.appendMessage(assistant("pi's answer") as never);
		const ours = Session.open(file);
		assert.deepEqual(asJson(ours.buildSessionContext()), asJson(pi.buildSessionContext()));
		assert.equal(ours.getBranch()[1]?.id, a1, "pi's entry hangs off the leaf record's target");
		// And we can keep writing after pi.
		ours.appendMessage(user("back in session-tree"));
		assertSameContext(ours);
	});

	test("appending to a file without a final newline does not glue lines", () => {
		const s = Session.create({ dir, cwd: "/p", now });
		s.appendMessage(user("q1"));
		s.close();
		const file = s.file as string;
		const text = readFileSync(file, "utf8");
		const reopened = Session.open(file);
		rmSync(file);
		appendFileSync(file, text.slice(0, -1));
		reopened.appendMessage(assistant("a1"));
		assert.equal(Session.open(file).entryCount, 2);
		assertSameContext(reopened);
	});
});
