/**
 * `session-tree mcp --write`: the write tools through the SDK's `Client` over stdio, checked in
 * the files themselves (their last lines, parsed here) and by pi's own SessionManager, which
 * must read each written file with the context `ctx --json` gives. Another agent's file is
 * refused and left byte for byte as it was.
 */

import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { cliJson } from "../cli/helpers.js";
import { openWithPi, piContext } from "../support/pi.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { buildMcpHome, type Connected, call, connectStdio, type McpHome, ok } from "./support.js";

let home: McpHome;
let server: Connected;

/** The lines of a JSONL file, parsed. */
function records(file: string): Array<Record<string, unknown>> {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** pi's messages of a file (test/support/pi.ts). */
const piMessages = (file: string) => (piContext(file) as { messages: unknown[] }).messages;

async function keyOf(file: string): Promise<string> {
	const id = records(file)[0]?.id;
	const body = await ok<{ sessions: Array<{ session: string; id: string }> }>(server.client, "list_sessions", {
		limit: 200,
	});
	return body.result.sessions.find((item) => item.id === id)?.session as string;
}

// `session-tree mcp` opens the catalog index (SQLite).
before(async () => {
	if (SQLITE_SKIP) return;
	home = await buildMcpHome();
	server = await connectStdio(home.home, ["--write"]);
});

after(async () => {
	await server?.close();
	if (home) rmSync(home.home, { recursive: true, force: true });
});

describe("session-tree mcp --write", { skip: SQLITE_SKIP }, () => {
	test("adds label, set_leaf and fork, marked as writes", async () => {
		const { tools } = await server.client.listTools();
		for (const name of ["label", "set_leaf", "fork"]) {
			const tool = tools.find((candidate) => candidate.name === name);
			assert.ok(tool, `${name} is listed`);
			assert.equal(tool.annotations?.readOnlyHint, false);
			assert.deepEqual(tool.inputSchema.required?.slice().sort(), ["entry", "session"]);
		}
	});

	test("a label set through MCP is in the file, and pi reads the file with the same context", async () => {
		const key = await keyOf(home.branched);
		const before = readFileSync(home.branched, "utf8");
		const body = await ok<{ entryId: string; label: string }>(server.client, "label", {
			session: key,
			entry: home.ids.a2.slice(0, 5),
			label: "trie answer",
		});
		assert.deepEqual(body.result, { session: key, entryId: home.ids.a2, label: "trie answer" });
		const after = readFileSync(home.branched, "utf8");
		assert.ok(after.startsWith(before), "appended: nothing rewritten");
		const last = records(home.branched).at(-1);
		assert.equal(last?.type, "label");
		assert.equal(last?.targetId, home.ids.a2);
		assert.equal(last?.label, "trie answer");
		assert.equal(openWithPi(home.branched).getLabel(home.ids.a2), "trie answer");
		const ctx = await cliJson<{ messages: unknown[] }>(["ctx", home.branched, "--json"]);
		assert.deepEqual(piMessages(home.branched), ctx.messages);
		// The outline shows it.
		const tree = await ok<{ rows: Array<{ id?: string; label?: string }> }>(server.client, "get_tree", {
			session: key,
			filter: "labeled-only",
		});
		assert.deepEqual(
			tree.result.rows.filter((row) => row.id !== undefined).map((row) => [row.id, row.label]),
			[[home.ids.a2, "trie answer"]],
		);
	});

	test("set_leaf follows pi's navigate rule, and pi reads the new leaf's context", async () => {
		const key = await keyOf(home.branched);
		const body = await ok<{ leafId: string; editorText?: string }>(server.client, "set_leaf", {
			session: key,
			entry: home.ids.q2,
		});
		// A user message: the leaf goes to its parent, its text comes back to be sent again.
		assert.equal(body.result.leafId, home.ids.a1);
		assert.equal(body.result.editorText, "And a trie?");
		const ctx = await cliJson<{ messages: Array<{ role: string }> }>(["ctx", home.branched, "--json"]);
		assert.equal(ctx.messages.length, 2);
		assert.deepEqual(piMessages(home.branched), ctx.messages);
		const context = await ok<{ entry: string; messages: Array<{ entryId: string }> }>(server.client, "get_context", {
			session: key,
		});
		assert.deepEqual(
			context.result.messages.map((item) => item.entryId),
			[home.ids.q1, home.ids.a1],
		);
	});

	test("fork makes a new session holding the path to the entry, found by its key", async () => {
		const key = await keyOf(home.branched);
		const body = await ok<{ forked: { session: string; entries: number } }>(server.client, "fork", {
			session: key,
			entry: home.ids.a2,
		});
		const forked = body.result.forked.session;
		assert.notEqual(forked, key);
		// q1, a1, q2, a2 and the label the test above set on a2 (a fork keeps the labels of its path).
		assert.equal(body.result.forked.entries, 5);
		const context = await ok<{ messages: Array<{ message: { role: string } }> }>(server.client, "get_context", {
			session: forked,
		});
		assert.deepEqual(
			context.result.messages.map((item) => item.message.role),
			["user", "assistant", "user", "assistant"],
		);
	});

	test("another agent's file is refused, naming the session, and left as it was", async () => {
		const claudeBefore = readFileSync(home.claude);
		const listed = await ok<{ sessions: Array<{ session: string; agent: string; writable: boolean }> }>(
			server.client,
			"list_sessions",
			{ agent: "claude-code" },
		);
		const claude = listed.result.sessions[0];
		assert.equal(claude?.writable, false);
		const tree = await ok<{ leafId: string }>(server.client, "get_tree", { session: claude?.session, limit: 1 });
		for (const [name, args] of [
			["label", { session: claude?.session, entry: tree.result.leafId, label: "x" }],
			["set_leaf", { session: claude?.session, entry: tree.result.leafId }],
		] as const) {
			const answer = await call(server.client, name, args);
			assert.equal(answer.isError, true);
			assert.match(answer.text, /argument "session": it is another agent's file/);
		}
		assert.deepEqual(readFileSync(home.claude), claudeBefore);
	});
});
