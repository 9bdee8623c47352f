#!/usr/bin/env node

/**
 * session-tree/claude-agent-sdk without a model or the Claude binary: the store that a Claude
 * Agent SDK app passes as `sessionStore`, fed the transcript lines the SDK mirrors to it (shaped
 * as Claude Code writes them): a first turn, a second with a tool call (sent twice, as the SDK
 * does when an acknowledgement is lost), then a rewind to the first answer and another
 * question. `load` gives the lines back in append order, as the SDK needs to resume; the
 * session file keeps both branches, which `session-tree tree` shows.
 *
 *   npm run build && node examples/claude-agent-sdk.mjs [DIR]
 *
 * DIR (default: a new temporary directory) holds the transcripts: DIR/PROJECT_KEY/SESSION_ID.jsonl.
 * In an app:
 *
 *   import { query } from "@anthropic-ai/claude-agent-sdk";
 *   for await (const message of query({ prompt, options: { sessionStore: store } })) { … }
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { Session } from "session-tree";
import { TreeSessionStore } from "session-tree/claude-agent-sdk";

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), "session-tree-claude-agent-sdk-"));
const store = new TreeSessionStore(dir); // or "sqlite:./agents.db", "postgres://…"
const key = { projectKey: "-home-me-proj", sessionId: "5f0c3a52-8d4e-4d6b-9a51-0c2b7e9d1a11" };

// ---- transcript lines, as the SDK mirrors them ------------------------------------------------

let second = 0;
const line = (type, uuid, parentUuid, message, extra = {}) => ({
	parentUuid,
	isSidechain: false,
	userType: "external",
	cwd: "/home/me/proj",
	sessionId: key.sessionId,
	version: "2.1.0",
	type,
	message,
	uuid,
	timestamp: new Date(Date.UTC(2026, 2, 2, 9, 0, ++second)).toISOString(),
	...extra,
});
const user = (uuid, parentUuid, text) => line("user", uuid, parentUuid, { role: "user", content: text });
const assistant = (uuid, parentUuid, content, stop = "end_turn") =>
	line("assistant", uuid, parentUuid, {
		id: `msg_${uuid}`,
		type: "message",
		role: "assistant",
		model: "claude-sonnet-4-5-20250929",
		content: typeof content === "string" ? [{ type: "text", text: content }] : content,
		stop_reason: stop,
		usage: { input_tokens: 12, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
	});
const snapshot = (messageId) => ({
	type: "file-history-snapshot",
	messageId,
	snapshot: {
		messageId,
		trackedFileBackups: {},
		timestamp: new Date(Date.UTC(2026, 2, 2, 9, 0, ++second)).toISOString(),
	},
	isSnapshotUpdate: false,
});

const turn1 = [
	snapshot("u1"),
	user("u1", null, "How do I pin Node 20 in CI?"),
	assistant("a1", "u1", "Set node-version: 20 in actions/setup-node."),
];
const turn2 = [
	user("u2", "a1", "And which version runs locally?"),
	assistant(
		"a2",
		"u2",
		[{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "node --version" } }],
		"tool_use",
	),
	line("user", "r2", "a2", {
		role: "user",
		content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "v18.19.0" }],
	}),
	assistant("a2b", "r2", "Node 18 runs locally: install 20 with nvm."),
];
// The user rewinds to the first answer (Esc Esc in Claude Code) and asks something else.
const rewind = [user("u3", "a1", "And on GitLab CI?"), assistant("a3", "u3", "Use image: node:20 in .gitlab-ci.yml.")];

// ---- what the SDK does with the store ---------------------------------------------------------

await store.append(key, turn1);
await store.append(key, turn2);
await store.append(key, turn2); // a retry: every uuid is stored already
await store.append(key, rewind);

const appended = [...turn1, ...turn2, ...rewind];
const loaded = await store.load(key);
if (!isDeepStrictEqual(loaded, appended)) throw new Error("load() does not give back what was appended");
console.log(`load() gives the ${loaded.length} lines back, deep-equal and in append order`);
console.log("A retried batch changed nothing: still", loaded.length, "lines");
console.log("Sessions of the project:", (await store.listSessions(key.projectKey)).map((s) => s.sessionId).join(", "));

// ---- the same transcript as a session tree ------------------------------------------------------

const file = store.sessionLocation(key);
const session = await Session.open(file);
console.log(`The session keeps ${session.listBranches().length} branches; what the model sees now:`);
for (const message of session.buildSessionContext().messages) {
	const text =
		typeof message.content === "string" ? message.content : message.content.map((b) => b.text ?? "").join("");
	console.log(`  ${message.role}: ${text}`);
}
await session.close();
await store.close();
console.log(`Every branch: session-tree tree ${file}`);
