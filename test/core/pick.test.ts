/**
 * `pick` (issue 27, carrying turns across): the pure planning of src/core/pick.ts, and
 * `Session.pick` on files that pi's own SessionManager then reads to the same context. The
 * expectations are read off the branched, labelled and compacted session {@link build} makes
 * (the variable names say where each entry sits).
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { checkToolPairing } from "../../src/core/index.js";
import { PICK_CUSTOM_TYPE, planPick } from "../../src/core/pick.js";
import { type AgentMessage, isSessionTreeError, Session } from "../../src/index.js";
import { asJson } from "../support/fixtures.js";
import { assistantMessage, userMessage } from "../support/messages.js";
import { piContext } from "../support/pi.js";

const dir = mkdtempSync(join(tmpdir(), "st-pick-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let clock = Date.parse("2026-03-01T00:00:00.000Z");
const now = () => {
	clock += 7;
	return new Date(clock);
};
const user = (text: string): AgentMessage => userMessage(text, clock);
const assistant = (text: string): AgentMessage => assistantMessage(text, clock);
const calls = (...ids: string[]): AgentMessage => ({
	...assistantMessage("", clock),
	content: ids.map((id) => ({ type: "toolCall", id, name: "bash", arguments: { command: `echo ${id}` } })),
	stopReason: "toolUse",
});
const result = (toolCallId: string): AgentMessage => ({
	role: "toolResult",
	toolCallId,
	toolName: "bash",
	content: [{ type: "text", text: `out ${toolCallId}` }],
	isError: false,
	timestamp: clock,
});

/**
 * u1 → a1 → u2 → c1 (calls t1, t2) → r1 → label(c1) → r2 → a2            (branch A)
 *        a1 → u3 → a3 → compaction(kept u3) → u4 → a4 → c2 (call t3) → u5  (branch B, the leaf)
 */
async function build(name: string) {
	const s = await Session.create({ file: join(dir, `${name}.jsonl`), cwd: "/p", now });
	const u1 = await s.appendMessage(user("q1"));
	const a1 = await s.appendMessage(assistant("a1"));
	const u2 = await s.appendMessage(user("run two commands"));
	const c1 = await s.appendMessage(calls("t1", "t2"));
	const r1 = await s.appendMessage(result("t1"));
	const label = await s.appendLabelChange(c1, "the calls");
	const r2 = await s.appendMessage(result("t2"));
	const a2 = await s.appendMessage(assistant("both ran"));
	await s.branch(a1);
	const u3 = await s.appendMessage(user("another way"));
	const a3 = await s.appendMessage(assistant("a3"));
	const compaction = await s.appendCompaction("we tried another way", u3, 100);
	const u4 = await s.appendMessage(user("q4"));
	const a4 = await s.appendMessage(assistant("a4"));
	const c2 = await s.appendMessage(calls("t3"));
	const u5 = await s.appendMessage(user("never mind"));
	return { s, u1, a1, u2, c1, r1, label, r2, a2, u3, a3, compaction, u4, a4, c2, u5 };
}

/** Reopened, the file gives the live context, pi gives the same, and a provider would take it. */
async function assertSound(s: Session): Promise<void> {
	const file = s.file as string;
	const reopened = await Session.open(file);
	const ours = asJson(reopened.buildSessionContext());
	assert.deepEqual(ours, asJson(s.buildSessionContext()), "reopened context equals the live one");
	assert.deepEqual(piContext(file), ours, "pi builds the same context from our file");
	assert.deepEqual(checkToolPairing(reopened.buildContextEntries()).problems, []);
}

/** The text of a context message, for short expectations. */
function texts(s: Session): string[] {
	return s.buildSessionContext().messages.map((m) => {
		const message = m as Record<string, unknown>;
		if (typeof message.summary === "string") return `${message.role}: ${message.summary}`;
		const content = message.content;
		if (typeof content === "string") return `${message.role}: ${content}`;
		const parts = (content as Array<Record<string, unknown>>).map((b) =>
			b.type === "toolCall" ? `call ${b.id}` : String(b.text),
		);
		return `${message.role}: ${parts.join(" ")}`;
	});
}

describe("planPick", () => {
	test("a tool call brings its results, through the label between them", async () => {
		const f = await build("plan-call");
		const plan = planPick(f.s.getTreeIndex(), [{ from: f.c1 }], { sourceLeaf: f.s.getLeafId() });
		assert.deepEqual(plan.sources, [
			{ sourceId: f.c1, reason: "picked" },
			{ sourceId: f.r1, reason: "tool-result" },
			{ sourceId: f.r2, reason: "tool-result" },
		]);
		assert.deepEqual(plan.skipped, []);
	});

	test("a tool result alone brings its call and the call's other result, in the call's order", async () => {
		const f = await build("plan-result");
		const plan = planPick(f.s.getTreeIndex(), [{ from: f.r2 }], { sourceLeaf: f.s.getLeafId() });
		assert.deepEqual(plan.sources, [
			{ sourceId: f.c1, reason: "tool-call" },
			{ sourceId: f.r1, reason: "tool-result" },
			{ sourceId: f.r2, reason: "picked" },
		]);
	});

	test("a result the destination waits for is copied alone", async () => {
		const f = await build("plan-pending");
		const plan = planPick(f.s.getTreeIndex(), [{ from: f.r1 }], { pendingCalls: new Set(["t1"]) });
		assert.deepEqual(plan.sources, [{ sourceId: f.r1, reason: "picked" }]);
	});

	test("a range copies its messages in order, skips the label, keeps each entry once", async () => {
		const f = await build("plan-range");
		const plan = planPick(f.s.getTreeIndex(), [{ from: f.u2, to: f.a2 }, { from: f.r1 }, { from: f.u1 }]);
		assert.deepEqual(plan.sources, [
			{ sourceId: f.u2, reason: "picked" },
			{ sourceId: f.c1, reason: "picked" },
			{ sourceId: f.r1, reason: "tool-result" },
			{ sourceId: f.r2, reason: "tool-result" },
			{ sourceId: f.a2, reason: "picked" },
			{ sourceId: f.u1, reason: "picked" },
		]);
		assert.deepEqual(plan.skipped, [{ id: f.label, type: "label" }]);
	});

	test("a range across a compaction copies the messages on both sides of it, not the compaction", async () => {
		const f = await build("plan-compaction-range");
		const plan = planPick(f.s.getTreeIndex(), [{ from: f.u3, to: f.a4 }]);
		assert.deepEqual(
			plan.sources.map((p) => p.sourceId),
			[f.u3, f.a3, f.u4, f.a4],
		);
		assert.deepEqual(plan.skipped, [{ id: f.compaction, type: "compaction" }]);
	});

	test("refused: a compaction, a label, a range whose start is not above its end, nothing", async () => {
		const f = await build("plan-refused");
		const tree = f.s.getTreeIndex();
		const refused = (selections: Parameters<typeof planPick>[1], words: RegExp) =>
			assert.throws(
				() => planPick(tree, selections),
				(e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT") && words.test(e.message),
			);
		refused([{ from: f.compaction }], new RegExp(`entry ${f.compaction} is a compaction`));
		refused([{ from: f.label }], new RegExp(`entry ${f.label} is a label entry, not a message`));
		refused([{ from: f.u3, to: f.a2 }], new RegExp(`${f.u3} is not an ancestor of entry ${f.a2}`));
		refused([], /no entry given/);
		assert.throws(
			() => planPick(tree, [{ from: "nope" }]),
			(e: unknown) => isSessionTreeError(e, "ENTRY_NOT_FOUND"),
		);
	});
});

describe("Session.pick", () => {
	test("a tool call onto the leaf of another branch: call and results copied, provenance first, pi agrees", async () => {
		const f = await build("call");
		await f.s.branch(f.a4);
		const before = texts(f.s);
		const picked = await f.s.pick([f.c1.slice(0, 6)]);
		assert.deepEqual(
			picked.copies.map((c) => [c.sourceId, c.reason]),
			[
				[f.c1, "picked"],
				[f.r1, "tool-result"],
				[f.r2, "tool-result"],
			],
		);
		assert.equal(f.s.getLeafId(), picked.leafId);
		assert.equal(picked.leafId, picked.copies[2]?.id);
		assert.deepEqual(texts(f.s), [...before, "assistant: call t1 call t2", "toolResult: out t1", "toolResult: out t2"]);
		// The provenance entry hangs under the old leaf, the copies under it, each under the one before.
		const provenance = f.s.getEntry(picked.provenanceId);
		assert.deepEqual(asJson(provenance), {
			type: "custom",
			customType: PICK_CUSTOM_TYPE,
			data: {
				sourceSession: f.s.getSessionId(),
				copies: picked.copies.map(({ id, sourceId }) => ({ id, sourceId })),
			},
			id: picked.provenanceId,
			parentId: f.a4,
			timestamp: provenance?.timestamp,
		});
		const chain = f.s
			.getBranch()
			.slice(-4)
			.map((e) => e.id);
		assert.deepEqual(chain, [picked.provenanceId, ...picked.copies.map((c) => c.id)]);
		// A copy's body is its source's: only id, parent and time differ.
		const { id: _i, parentId: _p, timestamp: _t, ...copyBody } = f.s.getEntry(picked.copies[0]?.id as string) ?? {};
		const { id: _j, parentId: _q, timestamp: _u, ...sourceBody } = f.s.getEntry(f.c1) ?? {};
		assert.deepEqual(copyBody, sourceBody);
		await assertSound(f.s);
	});

	test("a tool result alone brings its call; --onto attaches elsewhere and the leaf ends at the last copy", async () => {
		const f = await build("onto");
		const picked = await f.s.pick([f.r2], { onto: f.u3 });
		assert.deepEqual(
			picked.copies.map((c) => c.sourceId),
			[f.c1, f.r1, f.r2],
		);
		assert.equal(f.s.getEntry(picked.provenanceId)?.parentId, f.u3);
		assert.equal(f.s.getLeafId(), picked.leafId);
		assert.deepEqual(texts(f.s), [
			"user: q1",
			"assistant: a1",
			"user: another way",
			"assistant: call t1 call t2",
			"toolResult: out t1",
			"toolResult: out t2",
		]);
		await assertSound(f.s);
	});

	test("a range from another session, onto a compacted branch", async () => {
		const f = await build("dest");
		const other = await build("source");
		await f.s.branch(f.a4);
		const picked = await f.s.pick([`${other.u2}..${other.a2}`], { from: other.s });
		assert.deepEqual(
			picked.copies.map((c) => c.sourceId),
			[other.u2, other.c1, other.r1, other.r2, other.a2],
		);
		assert.deepEqual(picked.skipped, [{ id: other.label, type: "label" }]);
		const data = f.s.getEntry(picked.provenanceId) as { data?: { sourceSession?: string } };
		assert.equal(data.data?.sourceSession, other.s.getSessionId());
		// The compaction still holds: summary, kept u3 onwards, then the copies.
		assert.deepEqual(texts(f.s), [
			"compactionSummary: we tried another way",
			"user: another way",
			"assistant: a3",
			"user: q4",
			"assistant: a4",
			"user: run two commands",
			"assistant: call t1 call t2",
			"toolResult: out t1",
			"toolResult: out t2",
			"assistant: both ran",
		]);
		await assertSound(f.s);
	});

	test("a result the destination's leaf waits for answers it alone", async () => {
		const f = await build("pending");
		// A branch that asks t1 again (same call id), and waits.
		await f.s.branch(f.u2);
		const waiting = await f.s.appendMessage(calls("t1"));
		const picked = await f.s.pick([f.r1]);
		assert.deepEqual(
			picked.copies.map((c) => [c.sourceId, c.reason]),
			[[f.r1, "picked"]],
		);
		assert.equal(f.s.getEntry(picked.provenanceId)?.parentId, waiting);
		await assertSound(f.s);
	});

	test("refused picks write nothing: the file's bytes are unchanged", async () => {
		const f = await build("refused");
		const file = f.s.file as string;
		const bytes = readFileSync(file);
		const refused = async (words: string[], pattern: RegExp, options = {}) => {
			await assert.rejects(
				f.s.pick(words, options),
				(e: unknown) => isSessionTreeError(e, "INVALID_ARGUMENT") && pattern.test(e.message),
			);
			assert.deepEqual(readFileSync(file), bytes);
		};
		// A call whose result the source never got (the user went on): it would stay unanswered.
		await refused([f.c2], new RegExp(`tool call t3 \\(bash\\) in the copy of entry ${f.c2} would have no result`));
		// Onto a call that waits for its result: a user message would leave it unanswered.
		await refused([f.u1], new RegExp(`tool call t3 \\(bash\\) in entry ${f.c2} has no result in the context`), {
			onto: f.c2,
		});
		await refused([f.compaction], /is a compaction/);
		await refused([f.label], /is a label entry/);
		await refused([`${f.a2}..${f.u2}`], /is not an ancestor/);
		await assert.rejects(f.s.pick(["ffffffff"]), (e: unknown) => isSessionTreeError(e, "ENTRY_NOT_FOUND"));
		assert.deepEqual(readFileSync(file), bytes);
	});

	test("refused: the result of a call whose message was aborted (pi does not send that call)", async () => {
		const s = await Session.create({ file: join(dir, "aborted.jsonl"), cwd: "/p", now });
		const q = await s.appendMessage(user("q"));
		const aborted = await s.appendMessage({ ...calls("t9"), stopReason: "aborted" });
		const r9 = await s.appendMessage(result("t9"));
		await s.appendMessage(user("again"));
		const bytes = readFileSync(s.file as string);
		await assert.rejects(
			s.pick([r9]),
			(e: unknown) =>
				isSessionTreeError(e, "INVALID_ARGUMENT") &&
				e.message.includes(
					`the result in the copy of entry ${r9} answers tool call t9 (bash) of the copy of entry ${aborted}`,
				) &&
				e.message.includes("stopped with an error or was aborted"),
		);
		assert.deepEqual(readFileSync(s.file as string), bytes);
		// Named with its (unsent) call, the call alone is fine: only the result cannot go.
		// (Onto q: the path to the leaf holds that unanswerable result itself.)
		const picked = await s.pick([aborted], { onto: q });
		assert.deepEqual(
			picked.copies.map((c) => c.sourceId),
			[aborted],
		);
		await assertSound(s);
	});
});
