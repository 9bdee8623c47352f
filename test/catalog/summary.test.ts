/** Session summaries agree with pi's own session listing (`SessionManager.list`, its buildSessionInfo). */

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { sessionFilesIn } from "../../src/catalog/discover.js";
import { summarizeSessions } from "../../src/catalog/summary.js";
import { Session } from "../../src/session.js";
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
	const ours = summarizeSessions(sessionFilesIn(dir)).sessions;
	const theirs = await SessionManager.list("/unused", dir);
	const byPath = new Map(theirs.map((info) => [info.path, info]));
	for (const summary of ours) {
		const info = byPath.get(summary.file);
		assert.ok(info, `pi lists ${summary.file}`);
		assert.equal(summary.modified.toISOString(), info.modified.toISOString(), `${summary.file}: modified`);
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
		const a = Session.create({ dir, cwd: "/p", now: clock("2025-05-01T00:00:00.000Z") });
		a.appendMessage({ role: "user", content: [{ type: "image", data: "AA==", mimeType: "image/png" }], timestamp: 5 });
		a.appendMessage({
			role: "user",
			content: [
				{ type: "text", text: "second" },
				{ type: "text", text: "part" },
			],
		} as never);
		a.appendSessionInfo("first name");
		a.appendSessionInfo("  ");
		a.close();
		const b = Session.create({ dir, cwd: "/p", now: clock("2025-05-02T00:00:00.000Z") });
		b.appendMessage(user("q", "2025-05-02T00:10:00.000Z"));
		b.appendMessage(assistant("a", "2025-05-02T00:20:00.000Z"));
		b.appendMessage({
			role: "toolResult",
			toolCallId: "t",
			toolName: "bash",
			content: [{ type: "text", text: "later tool output does not count" }],
			isError: false,
			timestamp: Date.parse("2025-06-01T00:00:00.000Z"),
		});
		b.appendSessionInfo("  spaced name  ");
		b.close();
		// Only a header: the header's time.
		Session.create({ dir, cwd: "/p", now: clock("2025-05-03T00:00:00.000Z") }).close();
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
		const sessions = summarizeSessions(sessionFilesIn(dir)).sessions;
		assert.deepEqual(
			sessions.map((s) => [s.name, s.firstMessage, s.modified.toISOString()]),
			[
				[null, "hand", "2025-05-04T02:00:00.000Z"],
				[null, null, "2025-05-03T00:00:00.000Z"],
				["spaced name", "q", "2025-05-02T00:20:00.000Z"],
				[null, "second part", "2025-05-01T00:00:02.000Z"],
			],
		);
	});

	test("newest first, ties by file name; skipped files are reported", () => {
		const dir = tempDir();
		for (const name of ["b", "a"]) {
			writeFileSync(
				join(dir, `${name}.jsonl`),
				`${JSON.stringify({ type: "session", version: 3, id: name, timestamp: "2025-01-01T00:00:00.000Z", cwd: "/" })}\n`,
			);
		}
		writeFileSync(join(dir, "c.jsonl"), "junk\n");
		const progress: number[] = [];
		const { sessions, skipped } = summarizeSessions(sessionFilesIn(dir), {
			onProgress: (done, total) => progress.push(done, total),
		});
		assert.deepEqual(
			sessions.map((s) => s.id),
			["a", "b"],
		);
		assert.deepEqual(
			skipped.map((s) => s.file),
			[join(dir, "c.jsonl")],
		);
		assert.deepEqual(progress, [1, 3, 2, 3, 3, 3]);
	});
});
