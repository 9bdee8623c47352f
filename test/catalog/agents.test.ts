/**
 * The agents' default places (`ls --agents`): Gemini CLI's recordings below
 * `$GEMINI_CLI_HOME/.gemini/tmp` (Gemini CLI's `homedir()` takes GEMINI_CLI_HOME for the home
 * directory), found by their place in its layout, and opened read-only as their import.
 */

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { AgentsCollection, agentPlaces } from "../../src/catalog/agents.js";
import { Session } from "../../src/session.js";

const REPO = join(fileURLToPath(import.meta.url), "..", "..", "..", "..");
const SAMPLE = join(REPO, "test", "fixtures", "real", "gemini", "mgemini-session-2025-12-28T04-02-3d0463e2.json");
const temps: string[] = [];
after(() => {
	for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("agentPlaces: Gemini CLI", () => {
	test("GEMINI_CLI_HOME stands for the home directory; else HOME", () => {
		const places = agentPlaces({ HOME: "/home/me", GEMINI_CLI_HOME: "/elsewhere" });
		assert.equal(places.find((place) => place.agent === "gemini")?.root, join("/elsewhere", ".gemini", "tmp"));
		const plain = agentPlaces({ HOME: "/home/me" });
		assert.equal(plain.find((place) => place.agent === "gemini")?.root, join("/home/me", ".gemini", "tmp"));
	});

	test("lists the chats (and subagents' chats), not Gemini CLI's other files; a .json resumed as .jsonl once", async () => {
		const home = mkdtempSync(join(tmpdir(), "session-tree-agents-test-"));
		temps.push(home);
		const project = join(home, ".gemini", "tmp", "my-project");
		const chats = join(project, "chats");
		mkdirSync(join(chats, "3d0463e2-5112-49de-9fde-a36e17975bd8"), { recursive: true });
		copyFileSync(SAMPLE, join(chats, "session-2025-12-28T04-03-3d0463e2.json"));
		// A resumed older session: Gemini CLI writes `<name>.jsonl` beside the `.json`.
		copyFileSync(SAMPLE, join(chats, "session-2025-12-20T01-00-aaaaaaaa.json"));
		writeFileSync(
			join(chats, "session-2025-12-20T01-00-aaaaaaaa.jsonl"),
			`${JSON.stringify({ sessionId: "aaaaaaaa-0000-4000-8000-000000000000", projectHash: "h", startTime: "2025-12-20T01:00:00.000Z" })}\n`,
		);
		writeFileSync(
			join(chats, "3d0463e2-5112-49de-9fde-a36e17975bd8", "sub-1.jsonl"),
			`${JSON.stringify({ sessionId: "sub-1", projectHash: "h", startTime: "2025-12-28T04:05:00.000Z", kind: "subagent" })}\n`,
		);
		writeFileSync(join(project, "logs.json"), "[]\n");
		writeFileSync(join(project, ".project_root"), "/work/my-project");
		writeFileSync(join(chats, "notes.json"), "{}\n");

		const places = agentPlaces({ HOME: join(home, "nowhere"), GEMINI_CLI_HOME: home }).filter(
			(place) => place.agent === "gemini",
		);
		const collection = new AgentsCollection(places);
		const found: string[] = [];
		for await (const listing of collection.list()) found.push(relative(home, listing.location));
		assert.deepEqual(found, [
			join(".gemini", "tmp", "my-project", "chats", "3d0463e2-5112-49de-9fde-a36e17975bd8", "sub-1.jsonl"),
			join(".gemini", "tmp", "my-project", "chats", "session-2025-12-20T01-00-aaaaaaaa.jsonl"),
			join(".gemini", "tmp", "my-project", "chats", "session-2025-12-28T04-03-3d0463e2.json"),
		]);
		const location = join(chats, "session-2025-12-28T04-03-3d0463e2.json");
		assert.equal(collection.agentOf(location), "gemini");
		// Opened as its import, read-only: the session of the recording, its prompt in the context.
		const session = await Session.openStore(collection.open(location));
		assert.equal(session.getHeader().id, "3d0463e2-5112-49de-9fde-a36e17975bd8");
		const first = session.buildSessionContext().messages[0] as { role: string; content: unknown };
		assert.deepEqual([first.role, first.content], ["user", "install 1password cli tool for CachyOS cosmic"]);
	});
});
