/**
 * ChatGPT and Open WebUI exports with records that break the format: strict fails naming the
 * file, the conversation (or chat), the node and the field; `--lenient` works around each one,
 * reports it, and imports the rest. One real file (LibreChat's `chatgpt-modern-export.json`, in
 * test/fixtures/real/chatgpt, a conversation without `mapping` among two good ones; its expected
 * values in expected.json are by derive.py); the other cases are small inline exports, whose
 * expectations are derived by hand from the JSON written here.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { SessionEntry } from "../../src/core/types.js";
import { importChatGPT } from "../../src/import/chatgpt.js";
import { importOpenWebUI } from "../../src/import/openwebui.js";
import type { ImportedSession } from "../../src/import/types.js";
import { REPO } from "./helpers.js";

type Json = Record<string, unknown>;

function pathTexts(s: ImportedSession): string[] {
	const byId = new Map(s.records.map((r) => [r.id, r]));
	const out: string[] = [];
	for (let e = byId.get(s.leafId ?? ""); e; e = byId.get(e.parentId ?? "")) {
		if (e.type !== "message") continue;
		const content = (e as SessionEntry & { message: { content: unknown } }).message.content;
		const text =
			typeof content === "string"
				? content
				: (content as Json[])
						.filter((b) => b.type === "text")
						.map((b) => String(b.text))
						.join(" ");
		out.unshift(`${String((e as unknown as { message: Json }).message.role)}: ${text}`);
	}
	return out;
}

function strictFails(run: () => unknown, file: string, ...parts: string[]): void {
	assert.throws(run, (error: unknown) => {
		assert.ok(isSessionTreeError(error, "INVALID_RECORD"), String(error));
		assert.ok(error.message.startsWith(`${file}: `), error.message);
		for (const part of parts) assert.ok(error.message.includes(part), `${error.message} names ${part}`);
		return true;
	});
}

const node = (id: string, parent: string | null, role: string | null, text: string, extra: Json = {}): Json => ({
	id,
	parent,
	children: [],
	message:
		role === null
			? null
			: {
					id,
					author: { role },
					create_time: 1756000000,
					content: { content_type: "text", parts: [text] },
					...extra,
				},
});

function conversation(id: string, nodes: Json[], current: string, extra: Json = {}): Json {
	const mapping: Json = {};
	for (const n of nodes) mapping[n.id as string] = n;
	for (const n of nodes) {
		const parent = n.parent;
		if (typeof parent === "string" && mapping[parent])
			((mapping[parent] as Json).children as string[]).push(n.id as string);
	}
	return { conversation_id: id, title: `t-${id}`, create_time: 1756000000, mapping, current_node: current, ...extra };
}

describe("ChatGPT: --lenient keeps going", () => {
	test("real export: a conversation without mapping is left out with a report, the other two imported", () => {
		const folder = join(REPO, "test", "fixtures", "real", "chatgpt");
		const name = "librechat-chatgpt-modern-export.json";
		const expected = JSON.parse(readFileSync(join(folder, "expected.json"), "utf8"))[name] as Json;
		const text = readFileSync(join(folder, name), "utf8");
		// Strict: fails naming the second conversation (index 1, "Corrupted entry") and `mapping`.
		strictFails(() => importChatGPT({ name, text }), name, "[1]", "Corrupted entry", "mapping");
		const sessions = importChatGPT({ name, text, lenient: true });
		assert.equal(sessions.length, expected.sessions);
		const skipped = sessions.flatMap((s) => s.skipped);
		assert.equal(skipped.length, 1);
		assert.match(skipped[0]?.where ?? "", /\[1\] mapping/);
		const per = expected.perSession as Record<string, { firstPrompt: string; userPrompts: number }>;
		for (const s of sessions) {
			const conversationId = ((s.state as Json).conversation as Json).conversation_id as string;
			const want = per[conversationId];
			assert.ok(want, conversationId);
			const users = pathTexts(s).filter((t) => t.startsWith("user: "));
			assert.equal(users.length, want.userPrompts);
			assert.ok(users[0]?.startsWith(`user: ${want.firstPrompt}`), users[0]);
		}
	});

	test("odd nodes: strict names the node and the field; lenient reports each and imports the rest", () => {
		const good = conversation("c-good", [node("r", null, null, ""), node("u", "r", "user", "hello")], "u");
		const odd = conversation(
			"c-odd",
			[
				node("r", null, null, ""),
				node("u", "r", "user", "question", { create_time: "yesterday" }),
				node("a", "u", "assistant", "answer"),
				// Content types no sample has: kept, as text where they have some.
				{
					id: "w",
					parent: "a",
					children: [],
					message: {
						id: "w",
						author: { role: "tool", name: "web" },
						content: { content_type: "sonic_webpage", text: "page text" },
					},
				},
				{
					id: "z",
					parent: "w",
					children: [],
					message: {
						id: "z",
						author: { role: "assistant" },
						content: { content_type: "computer_output", parts: [{ weird: 1 }] },
					},
				},
			],
			"z",
			{ create_time: "2025-01-01" },
		);
		((odd.mapping as Json).x as unknown) = "not a node";
		const name = "conversations.json";
		const text = JSON.stringify([good, odd]);
		// Strict stops at the first problem in mapping order: the question's create_time.
		strictFails(() => importChatGPT({ name, text }), name, "[1]", "c-odd", "mapping/u/message/create_time");
		const sessions = importChatGPT({ name, text, lenient: true });
		assert.equal(sessions.length, 2);
		const where = sessions[1]?.skipped.map((s) => s.where.replace(/^.*, /, ""));
		assert.deepEqual(where?.sort(), ["create_time", "mapping/u/message/create_time", "mapping/x"]);
		assert.deepEqual(pathTexts(sessions[1] as ImportedSession), [
			"user: question",
			"assistant: answer",
			// A part of no known kind: a placeholder naming what it is (the part stays in `source`).
			"assistant: [object]",
		]);
		// The question's time is its parent's (the root has none: the conversation's earliest).
		const question = sessions[1]?.records.find((r) => r.type === "message") as SessionEntry;
		assert.ok(!Number.isNaN(Date.parse(question.timestamp)));
	});

	test("a conversation that cannot be imported is left out in lenient mode, not the whole export", () => {
		const bad = conversation("c-bad", [node("u", null, "user", "q")], "u");
		(bad.mapping as Json).u = { id: "u", parent: 42, children: "nope", message: "not an object" };
		const good = conversation("c-good", [node("u", null, "user", "fine")], "u");
		const name = "conversations.json";
		const text = JSON.stringify([bad, good]);
		strictFails(() => importChatGPT({ name, text }), name, "c-bad", "mapping/u/message");
		const sessions = importChatGPT({ name, text, lenient: true });
		// The broken node is still a node (no message: a custom entry), its parent a root; both kept.
		assert.equal(sessions.length, 2);
		assert.deepEqual(
			sessions[0]?.skipped.map((s) => s.where.replace(/^.*, /, "")),
			["mapping/u/message", "mapping/u/parent", "mapping/u/children"],
		);
		assert.deepEqual(pathTexts(sessions[1] as ImportedSession), ["user: fine"]);
	});
});

describe("Open WebUI: --lenient keeps going", () => {
	const chat = (id: string, messages: Json, currentId: string): Json => ({
		id,
		user_id: "u1",
		title: `chat ${id}`,
		created_at: 1756000000,
		chat: { id, title: `chat ${id}`, models: ["llama3"], history: { messages, currentId } },
	});
	const message = (id: string, parentId: string | null, role: string, content: string, childrenIds: unknown = []) => ({
		id,
		parentId,
		childrenIds,
		role,
		content,
		timestamp: 1756000000,
	});

	test("an odd message: strict names the chat, the message and the field; lenient imports the rest", () => {
		const messages: Json = {
			m1: message("m1", null, "user", "hi", ["m2"]),
			m2: message("m2", "m1", "assistant", "hello", "m3"),
			broken: 17,
		};
		const name = "export.json";
		const text = JSON.stringify([chat("c1", messages, "m2")]);
		// Strict stops at the first problem in message order: m2's childrenIds.
		strictFails(() => importOpenWebUI({ name, text }), name, "chat (c1", "history.messages/m2/childrenIds");
		const [s] = importOpenWebUI({ name, text, lenient: true });
		assert.deepEqual(
			s?.skipped.map((k) => k.where.replace(/^.*, /, "")),
			["history.messages/m2/childrenIds", "history.messages/broken"],
		);
		assert.deepEqual(pathTexts(s as ImportedSession), ["user: hi", "assistant: hello"]);
	});

	test("a chat without history among good ones: lenient leaves it out with a report", () => {
		const good = chat("c2", { m1: message("m1", null, "user", "ok") }, "m1");
		const name = "export.json";
		const text = JSON.stringify([{ id: "c1", chat: { id: "c1", title: "no history" } }, good]);
		strictFails(() => importOpenWebUI({ name, text }), name, "[0]", "history");
		const sessions = importOpenWebUI({ name, text, lenient: true });
		assert.equal(sessions.length, 1);
		assert.equal(sessions[0]?.skipped[0]?.where, "[0]");
		assert.deepEqual(pathTexts(sessions[0] as ImportedSession), ["user: ok"]);
	});
});
