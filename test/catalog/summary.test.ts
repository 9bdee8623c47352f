/** Session summaries agree with pi's own session listing (`SessionManager.list`, its buildSessionInfo). */

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { summarizeSessions } from "../../src/catalog/summary.js";
import { Session } from "../../src/session.js";
import { DirectoryCollection } from "../../src/storage/directory-collection.js";
import { MemoryCollection } from "../../src/storage/memory-store.js";
import { fixtureDir, fixtureNames } from "../support/fixtures.js";
import { assistant, clock, user } from "./layout.js";

const dirs: string[] = [];
function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "session-tree-summary-test-"));
	dirs.push(dir);
	return dir;
}
after(() => {
	for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Compares every listed summary with what pi lists for the same directory. */
async function assertAgreesWithPi(dir: string): Promise<number> {
	const ours = (await summarizeSessions(new DirectoryCollection(dir))).sessions;
	const theirs = await SessionManager.list("/unused", dir);
	const byPath = new Map(theirs.map((info) => [info.path, info]));
	for (const summary of ours) {
		const info = byPath.get(summary.file);
		assert.ok(info, `pi lists ${summary.file}`);
		// pi's "modified" is our lastActivity; ours is when the file last changed.
		assert.equal(summary.lastActivity.toISOString(), info.modified.toISOString(), `${summary.file}: modified`);
		assert.equal(summary.modified.toISOString(), statSync(summary.file).mtime.toISOString(), `${summary.file}: mtime`);
		assert.equal(summary.name, info.name ?? null, `${summary.file}: name`);
		assert.equal(summary.firstMessage ?? "(no messages)", info.firstMessage, `${summary.file}: first message`);
		assert.equal(summary.id, info.id);
		assert.equal(summary.cwd, info.cwd);
		assert.equal(summary.parentSession, info.parentSessionPath ?? null);
	}
	return ours.length;
}

describe("summaries", () => {
	test("agree with pi on its golden fixtures (v1 and v2 files too)", async () => {
		const dir = tempDir();
		for (const name of fixtureNames()) copyFileSync(join(fixtureDir, `${name}.jsonl`), join(dir, `${name}.jsonl`));
		const listed = await assertAgreesWithPi(dir);
		assert.ok(listed > 10);
	});

	test("agree with pi on the edge cases of modified time, name and first message", async () => {
		const dir = tempDir();
		// Messages without a numeric timestamp fall back to the entry's; a cleared name is no name;
		// a first user message without text blocks is passed over.
		const a = await Session.create({ dir, cwd: "/p", now: clock("2025-05-01T00:00:00.000Z") });
		await a.appendMessage({
			role: "user",
			content: [{ type: "image", data: "AA==", mimeType: "image/png" }],
			timestamp: 5,
		});
		await a.appendMessage({
			role: "user",
			content: [
				{ type: "text", text: "second" },
				{ type: "text", text: "part" },
			],
		} as never);
		await a.appendSessionInfo("first name");
		await a.appendSessionInfo("  ");
		await a.close();
		const b = await Session.create({ dir, cwd: "/p", now: clock("2025-05-02T00:00:00.000Z") });
		await b.appendMessage(user("q", "2025-05-02T00:10:00.000Z"));
		await b.appendMessage(assistant("a", "2025-05-02T00:20:00.000Z"));
		await b.appendMessage({
			role: "toolResult",
			toolCallId: "t",
			toolName: "bash",
			content: [{ type: "text", text: "later tool output does not count" }],
			isError: false,
			timestamp: Date.parse("2025-06-01T00:00:00.000Z"),
		});
		await b.appendSessionInfo("  spaced name  ");
		await b.close();
		// Only a header: the header's time.
		await (await Session.create({ dir, cwd: "/p", now: clock("2025-05-03T00:00:00.000Z") })).close();
		// Hand-written lines in another key order, and a message timestamp that is not a number.
		writeFileSync(
			join(dir, "hand.jsonl"),
			[
				{ type: "session", version: 3, id: "h", timestamp: "2025-05-04T00:00:00.000Z", cwd: "/q" },
				{
					message: { content: "hand", role: "user" },
					timestamp: "2025-05-04T01:00:00.000Z",
					parentId: null,
					id: "a",
					type: "message",
				},
				{
					type: "message",
					id: "b",
					parentId: "a",
					timestamp: "2025-05-04T02:00:00.000Z",
					message: { role: "assistant", content: [], timestamp: "late" },
				},
			]
				.map((record) => `${JSON.stringify(record)}\n`)
				.join(""),
		);
		assert.equal(await assertAgreesWithPi(dir), 4);
		const sessions = (await summarizeSessions(new DirectoryCollection(dir))).sessions;
		sessions.sort((x, y) => y.lastActivity.getTime() - x.lastActivity.getTime());
		assert.deepEqual(
			sessions.map((s) => [s.name, s.firstMessage, s.lastActivity.toISOString()]),
			[
				[null, "hand", "2025-05-04T02:00:00.000Z"],
				[null, null, "2025-05-03T00:00:00.000Z"],
				["spaced name", "q", "2025-05-02T00:20:00.000Z"],
				[null, "second part", "2025-05-01T00:00:02.000Z"],
			],
		);
	});

	test("agree with pi when only the ends of lines are read: a message without content does not count", async () => {
		const dir = tempDir();
		const at = (iso: string) => Date.parse(iso);
		const entry = (id: string, parentId: string | null, message: object) => ({
			type: "message",
			id,
			parentId,
			timestamp: "2025-06-01T00:00:00.000Z",
			message,
		});
		writeFileSync(
			join(dir, "peek.jsonl"),
			[
				{ type: "session", version: 3, id: "p", timestamp: "2025-06-01T00:00:00.000Z", cwd: "/p" },
				entry("a", null, { role: "user", content: "q", timestamp: at("2025-06-01T00:01:00.000Z") }),
				// The latest time, but no content: pi passes over it.
				entry("b", "a", { role: "assistant", timestamp: at("2030-01-01T00:00:00.000Z") }),
				// Content, but not right after the role: parsed.
				entry("c", "b", { role: "user", note: 1, content: "later", timestamp: at("2025-06-01T05:00:00.000Z") }),
				entry("d", "c", { role: "assistant", content: [], timestamp: at("2025-06-01T03:00:00.000Z") }),
			]
				.map((record) => `${JSON.stringify(record)}\n`)
				.join(""),
		);
		assert.equal(await assertAgreesWithPi(dir), 1);
		const [summary] = (await summarizeSessions(new DirectoryCollection(dir))).sessions;
		assert.equal(summary?.lastActivity.toISOString(), "2025-06-01T05:00:00.000Z");
		assert.equal(summary?.firstMessage, "q");
	});

	test("memory sessions are summarised as files are (ls memory:)", async () => {
		const a = await Session.create({ location: "memory:summary-a", cwd: "/m", now: clock("2025-07-01T00:00:00.000Z") });
		const q = await a.appendMessage(user("in memory", "2025-07-01T00:01:00.000Z"));
		await a.appendMessage(assistant("answer", "2025-07-01T00:02:00.000Z"));
		await a.branch(q);
		await a.appendMessage(user("other way", "2025-07-01T00:03:00.000Z"));
		await a.appendSessionInfo("memory notes");
		const b = await Session.create({ location: "memory:summary-b", cwd: "/m", now: clock("2025-07-02T00:00:00.000Z") });
		const { sessions, skipped } = await summarizeSessions(new MemoryCollection());
		assert.deepEqual(skipped, []);
		// modified is the memory store's time of the last write: b's creation, after a's last append.
		for (const s of sessions) assert.ok(Date.now() - s.modified.getTime() < 60_000, s.file);
		assert.ok((sessions[0]?.modified.getTime() ?? 0) >= (sessions[1]?.modified.getTime() ?? 0));
		sessions.sort((x, y) => y.lastActivity.getTime() - x.lastActivity.getTime());
		assert.deepEqual(
			sessions.map((s) => [s.file, s.name, s.firstMessage, s.lastActivity.toISOString(), s.entries, s.branches]),
			[
				["memory:summary-b", null, null, "2025-07-02T00:00:00.000Z", 0, 0],
				["memory:summary-a", "memory notes", "in memory", "2025-07-01T00:03:00.000Z", 4, 2],
			],
		);
		assert.ok((sessions[1]?.bytes ?? 0) > 0);
		await a.close();
		await b.close();
	});

	test("newest first, ties by file name; skipped files are reported", async () => {
		const dir = tempDir();
		for (const name of ["b", "a"]) {
			writeFileSync(
				join(dir, `${name}.jsonl`),
				`${JSON.stringify({ type: "session", version: 3, id: name, timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" })}\n`,
			);
		}
		writeFileSync(join(dir, "c.jsonl"), `${"junk".repeat(100)}\n`);
		writeFileSync(join(dir, "d.jsonl"), "junk\n");
		const progress: number[] = [];
		const { sessions, skipped } = await summarizeSessions(new DirectoryCollection(dir), {
			onProgress: (done, total) => progress.push(done, total),
		});
		assert.deepEqual(
			sessions.map((s) => s.id),
			["a", "b"],
		);
		// Read smallest first (d before c), reported in the listing's order.
		assert.deepEqual(
			skipped.map((s) => s.file),
			[join(dir, "c.jsonl"), join(dir, "d.jsonl")],
		);
		assert.deepEqual(progress, [1, 4, 2, 4, 3, 4, 4, 4]);
	});
});
