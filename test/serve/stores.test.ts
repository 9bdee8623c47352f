/**
 * `session-tree serve DIR`: a directory given as a STORE, holding a pi session and a Claude
 * Code transcript. Both are listed (no agent: a STORE is no agent's place); the pi session is
 * writable and a label set through the server is in its file; the transcript, told by its first
 * lines, is read-only (403 NOT_WRITABLE) and never written. Also the resume commands.
 */

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { keyOf } from "../../src/serve/catalog.js";
import { resumeCommand } from "../../src/serve/resume.js";
import { Session } from "../../src/session.js";
import { REPO } from "../cli/helpers.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { http, type Served, startServe } from "./support.js";

let root: string;
let dir: string;
let pi: string;
let claude: string;
let served: Served;
// `serve` opens the catalog index (SQLite); resumeCommand alone runs without it.
before(async () => {
	if (SQLITE_SKIP) return;
	root = mkdtempSync(join(tmpdir(), "st-serve-dir-"));
	dir = join(root, "store");
	mkdirSync(join(dir, "nested"), { recursive: true });
	const session = await Session.create({ dir, cwd: "/p" });
	await session.appendMessage({ role: "user", content: "In a directory", timestamp: 1 });
	pi = session.file as string;
	await session.close();
	claude = join(dir, "nested", "transcript.jsonl");
	copyFileSync(join(REPO, "test", "fixtures", "real", "claude-code", "ccl-2.1.17-256ba646.jsonl"), claude);
	served = await startServe(join(root, "home"), [dir]);
});
after(async () => {
	await served?.stop();
	if (root) rmSync(root, { recursive: true, force: true });
});

describe("serve DIR", () => {
	const headers = () => ({
		Host: `127.0.0.1:${served.port}`,
		Authorization: `Bearer ${served.token}`,
		Origin: served.origin,
		"Content-Type": "application/json",
	});

	test("lists the directory's sessions; its pi session is writable, another agent's transcript read-only", {
		skip: SQLITE_SKIP,
	}, async () => {
		const answer = await http(served.port, "/api/sessions", { headers: headers() });
		const { sessions } = JSON.parse(answer.body) as {
			sessions: Array<{ key: string; agent: string | null; writable: boolean }>;
		};
		const byKey = new Map(sessions.map((s) => [s.key, s]));
		assert.deepEqual(byKey.get(keyOf(pi)), { ...byKey.get(keyOf(pi)), agent: null, writable: true });
		assert.deepEqual(byKey.get(keyOf(claude)), { ...byKey.get(keyOf(claude)), agent: null, writable: false });
		assert.equal(sessions.length, 2);

		const entry = (await Session.open(pi)).getLeafId() as string;
		const label = await http(served.port, `/api/sessions/${keyOf(pi)}/label`, {
			method: "POST",
			headers: headers(),
			body: JSON.stringify({ entryId: entry, label: "from the browser" }),
		});
		assert.equal(label.status, 200, label.body);
		assert.equal((await Session.open(pi)).getLabel(entry), "from the browser");

		const before = readFileSync(claude, "utf8");
		const refused = await http(served.port, `/api/sessions/${keyOf(claude)}/name`, {
			method: "POST",
			headers: headers(),
			body: JSON.stringify({ name: "x" }),
		});
		assert.equal(refused.status, 403);
		assert.match(refused.body, /NOT_WRITABLE/);
		assert.equal(readFileSync(claude, "utf8"), before, "the transcript is not written");
	});

	test("with --agents, the agents' places are served beside the STORE; without, not", {
		skip: SQLITE_SKIP,
	}, async () => {
		// A pi session in the HOME's agent place: served only with --agents.
		const home = join(root, "home-agents");
		const place = join(home, ".pi", "agent", "sessions", "--p--");
		mkdirSync(place, { recursive: true });
		const own = await Session.create({ dir: place, cwd: "/p" });
		await own.appendMessage({ role: "user", content: "In the agent's place", timestamp: 1 });
		await own.close();
		// The last run comes after one that indexed the agents' places into the same index: what
		// the index holds of places not given is not served.
		for (const [args, want] of [
			[[dir], [keyOf(pi), keyOf(claude)].sort()],
			[[dir, "--agents"], [keyOf(pi), keyOf(claude), keyOf(own.file as string)].sort()],
			[[dir], [keyOf(pi), keyOf(claude)].sort()],
		] as const) {
			const server = await startServe(home, [...args]);
			try {
				const answer = await http(server.port, "/api/sessions", {
					headers: { Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${server.token}` },
				});
				const { sessions } = JSON.parse(answer.body) as { sessions: Array<{ key: string }> };
				assert.deepEqual(sessions.map((s) => s.key).sort(), want, args.join(" "));
				if (!args.includes("--agents")) {
					const page = await http(server.port, `/s/${keyOf(own.file as string)}`, {
						headers: { Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${server.token}` },
					});
					assert.equal(page.status, 404, "a session of a place not given is not found");
					assert.doesNotMatch(page.body, /home-agents/, "nor its path told");
				}
			} finally {
				await server.stop();
			}
		}
	});

	test("the command that resumes a session in its agent", () => {
		const base = { id: "abc-1", cwd: "/home/me/my proj", location: "/x/s.jsonl" };
		assert.equal(resumeCommand({ ...base, agent: "pi" }), "pi --session /x/s.jsonl");
		assert.equal(resumeCommand({ ...base, agent: "claude-code" }), "cd '/home/me/my proj' && claude --resume abc-1");
		assert.equal(resumeCommand({ ...base, agent: "codex" }), "cd '/home/me/my proj' && codex resume abc-1");
		assert.equal(resumeCommand({ ...base, agent: "gemini" }), "cd '/home/me/my proj' && gemini --resume abc-1");
		assert.equal(resumeCommand({ ...base, agent: null, location: "sqlite:/db#abc-1" }), undefined);
		assert.equal(
			resumeCommand({ ...base, agent: "pi", location: "/it's/s.jsonl" }),
			"pi --session '/it'\\''s/s.jsonl'",
		);
	});
});
