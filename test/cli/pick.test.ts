/**
 * `session-tree pick` as a real process: on files (then read by Session.open and pi's
 * SessionManager to the same context), from another session, on SQLite, in the REPL, and the
 * refusals, which leave the file's bytes as they were. The sessions are built here with the
 * library; the variable names say where each entry sits.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { PickReport } from "../../src/cli/commands/pick.js";
import { type AgentMessage, Session } from "../../src/index.js";
import { asJson } from "../support/fixtures.js";
import { assistantMessage, userMessage } from "../support/messages.js";
import { piContext } from "../support/pi.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { cli, cliJson, lines, removeTempDirs, tempDir } from "./helpers.js";

delete process.env.FORCE_COLOR;
after(removeTempDirs);

let clock = Date.parse("2026-04-01T00:00:00.000Z");
const now = () => {
	clock += 7;
	return new Date(clock);
};
const user = (text: string): AgentMessage => userMessage(text, clock);
const assistant = (text: string): AgentMessage => assistantMessage(text, clock);
const call = (id: string): AgentMessage => ({
	...assistantMessage("", clock),
	content: [{ type: "toolCall", id, name: "bash", arguments: { command: "ls" } }],
	stopReason: "toolUse",
});
const result = (toolCallId: string): AgentMessage => ({
	role: "toolResult",
	toolCallId,
	toolName: "bash",
	content: [{ type: "text", text: "a.ts b.ts" }],
	isError: false,
	timestamp: clock,
});

/**
 * u1 → a1 → u2 → c1 (call t1) → r1 → label(a1) → a2                 (branch A)
 *        a1 → u3 → a3                                                 (branch B, the leaf)
 */
async function build(location: string) {
	const s = await Session.create({ location, cwd: "/p", now });
	const u1 = await s.appendMessage(user("q1"));
	const a1 = await s.appendMessage(assistant("a1"));
	const u2 = await s.appendMessage(user("list the files"));
	const c1 = await s.appendMessage(call("t1"));
	const r1 = await s.appendMessage(result("t1"));
	const label = await s.appendLabelChange(a1, "the answer");
	const a2 = await s.appendMessage(assistant("two files"));
	await s.branch(a1);
	const u3 = await s.appendMessage(user("another way"));
	const a3 = await s.appendMessage(assistant("a3"));
	await s.close();
	return { location, u1, a1, u2, c1, r1, label, a2, u3, a3 };
}

/** Our context of a location and, for a file, pi's of a copy of it. */
async function contexts(location: string): Promise<{ ours: unknown; pi?: unknown }> {
	const session = await Session.open(location);
	const ours = asJson(session.buildSessionContext());
	await session.close();
	if (!location.endsWith(".jsonl")) return { ours };
	return { ours, pi: piContext(location) };
}

/** The roles and texts of the context at the session's leaf. */
async function texts(location: string): Promise<string[]> {
	const session = await Session.open(location);
	const out = session.buildSessionContext().messages.map((m) => {
		const message = m as Record<string, unknown>;
		const content = message.content;
		if (typeof content === "string") return `${message.role}: ${content}`;
		const parts = (content as Array<Record<string, unknown>>).map((b) =>
			b.type === "toolCall" ? `call ${b.id}` : String(b.text),
		);
		return `${message.role}: ${parts.join(" ")}`;
	});
	await session.close();
	return out;
}

describe("session-tree pick", () => {
	test("a tool call by prefix brings its result; text output; pi reads the file to the same context", async () => {
		const f = await build(join(tempDir(), "s.jsonl"));
		const run = await cli(["pick", f.location, f.c1.slice(0, 5)]);
		assert.equal(run.code, 0, run.stderr);
		const out = lines(run.stdout);
		assert.match(out[0] as string, new RegExp(`^provenance: [0-9a-f]{8} \\(session-tree.pick, under ${f.a3}\\)$`));
		assert.match(out[1] as string, new RegExp(`^[0-9a-f]{8} ← ${f.c1}  assistant: → bash\\({"command":"ls"}\\)$`));
		assert.match(
			out[2] as string,
			new RegExp(`^[0-9a-f]{8} ← ${f.r1}  toolResult: bash: a.ts b.ts  \\(a result of a picked call\\)$`),
		);
		assert.equal(out[3], `leaf: ${out[2]?.slice(0, 8)}`);
		assert.equal(out.length, 4);
		assert.deepEqual(await texts(f.location), [
			"user: q1",
			"assistant: a1",
			"user: another way",
			"assistant: a3",
			"assistant: call t1",
			"toolResult: a.ts b.ts",
		]);
		const { ours, pi } = await contexts(f.location);
		assert.deepEqual(pi, ours);
	});

	test("a range with --onto and --json: the label is skipped, the leaf is the last copy", async () => {
		const f = await build(join(tempDir(), "s.jsonl"));
		const report = await cliJson<PickReport>(["pick", f.location, `${f.u2}..${f.a2}`, "--onto", f.u1, "--json"]);
		assert.equal(report.attachedTo, f.u1);
		assert.deepEqual(
			report.copies.map((c) => [c.sourceId, c.reason]),
			[
				[f.u2, "picked"],
				[f.c1, "picked"],
				[f.r1, "tool-result"],
				[f.a2, "picked"],
			],
		);
		assert.deepEqual(report.skipped, [{ id: f.label, type: "label" }]);
		assert.equal(report.leafId, report.copies.at(-1)?.id);
		const session = await Session.open(f.location);
		assert.equal(session.getLeafId(), report.leafId);
		await session.close();
		assert.deepEqual(await texts(f.location), [
			"user: q1",
			"user: list the files",
			"assistant: call t1",
			"toolResult: a.ts b.ts",
			"assistant: two files",
		]);
		const { ours, pi } = await contexts(f.location);
		assert.deepEqual(pi, ours);
	});

	test("--from another session: the result alone brings its call; the source is not written", async () => {
		const dest = await build(join(tempDir(), "dest.jsonl"));
		const source = await build(join(tempDir(), "source.jsonl"));
		const sourceBytes = readFileSync(source.location);
		const report = await cliJson<PickReport>(["pick", dest.location, source.r1, "--from", source.location, "--json"]);
		assert.deepEqual(
			report.copies.map((c) => [c.sourceId, c.reason]),
			[
				[source.c1, "tool-call"],
				[source.r1, "picked"],
			],
		);
		const sourceSession = await Session.open(source.location);
		assert.equal(report.sourceSession, sourceSession.getSessionId());
		await sourceSession.close();
		assert.deepEqual(readFileSync(source.location), sourceBytes);
		const { ours, pi } = await contexts(dest.location);
		assert.deepEqual(pi, ours);
	});

	test("refused picks exit 1, name the entry and leave the file's bytes unchanged", async () => {
		const f = await build(join(tempDir(), "s.jsonl"));
		const bytes = readFileSync(f.location);
		for (const [args, pattern] of [
			[[f.label], new RegExp(`entry ${f.label} is a label entry, not a message`)],
			[[`${f.a3}..${f.u2}`], new RegExp(`entry ${f.a3} is not an ancestor of entry ${f.u2}`)],
			// Onto the call: a user message between the call and its (missing) result.
			[[f.u1, "--onto", f.c1], new RegExp(`tool call t1 \\(bash\\) in entry ${f.c1} has no result in the context`)],
			[["ffffffff"], /no entry id starts with ffffffff/],
		] as const) {
			const run = await cli(["pick", f.location, ...args]);
			assert.equal(run.code, 1, `${args.join(" ")}: ${run.stdout}`);
			assert.match(run.stderr, pattern);
			assert.deepEqual(readFileSync(f.location), bytes, args.join(" "));
		}
		const missing = await cli(["pick", f.location]);
		assert.equal(missing.code, 2);
		assert.match(missing.stderr, /missing ENTRY/);
	});

	test("on SQLite: the same pick, the same context as the file store gives", { skip: SQLITE_SKIP }, async () => {
		const dir = tempDir();
		const db = `sqlite:${join(dir, "s.db")}#pick-test`;
		const f = await build(db);
		const file = await build(join(dir, "s.jsonl"));
		const run = await cli(["pick", db, f.c1]);
		assert.equal(run.code, 0, run.stderr);
		assert.equal(lines(run.stdout).length, 4);
		const again = await cli(["pick", file.location, file.c1]);
		assert.equal(again.code, 0, again.stderr);
		assert.deepEqual(await texts(db), await texts(file.location));
		const reopened = await Session.open(db);
		assert.equal(reopened.getLeafEntry()?.type, "message");
		assert.equal(reopened.getEntries().filter((e) => e.type === "custom").length, 1);
		await reopened.close();
	});

	test("the REPL's pick: copies onto the current session and prints the same lines", async () => {
		const f = await build(join(tempDir(), "s.jsonl"));
		const run = await cli(["repl", f.location, "--strict"], { input: `pick ${f.c1} --onto ${f.u1}\nctx\n` });
		assert.equal(run.code, 0, run.stderr);
		const out = lines(run.stdout);
		assert.ok(
			out.some((line) => line.includes(`← ${f.r1}  toolResult: bash: a.ts b.ts`)),
			run.stdout,
		);
		assert.ok(
			out.some((line) => line.startsWith("leaf: ")),
			run.stdout,
		);
		assert.deepEqual(await texts(f.location), ["user: q1", "assistant: call t1", "toolResult: a.ts b.ts"]);
	});
});

const server = await postgresServer();
if ("skip" in server) {
	test("session-tree pick on PostgreSQL", { skip: server.skip }, () => {});
} else {
	describe("session-tree pick on PostgreSQL", () => {
		const { session } = testSchema(server.url, "pick");

		test("a pick into a PostgreSQL session, and one from it onto a file, give the file store's contexts", async () => {
			const db = await build(session("dest"));
			const file = await build(join(tempDir(), "s.jsonl"));
			for (const [location, id] of [
				[db.location, db.c1],
				[file.location, file.c1],
			] as const) {
				const run = await cli(["pick", location, id]);
				assert.equal(run.code, 0, run.stderr);
			}
			assert.deepEqual(await texts(db.location), await texts(file.location));
			const onto = await build(join(tempDir(), "onto.jsonl"));
			const report = await cliJson<PickReport>(["pick", onto.location, db.r1, "--from", db.location, "--json"]);
			assert.deepEqual(
				report.copies.map((c) => c.sourceId),
				[db.c1, db.r1],
			);
			const { ours, pi } = await contexts(onto.location);
			assert.deepEqual(pi, ours);
		});
	});
}
