/**
 * The Open WebUI importer on every Open WebUI sample in test/fixtures/import/openwebui (and on
 * a branched chat built here: no public sample has branches). Expected counts, leaves and
 * contexts were derived by hand from the files, each with a line saying how.
 */

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SessionTreeError } from "../../src/core/errors.js";
import { exportInputOf, toOpenWebUI } from "../../src/import/export.js";
import { detectFormat, openImported } from "../../src/import/index.js";
import { importOpenWebUI } from "../../src/import/openwebui.js";
import type { ImportedSession } from "../../src/import/types.js";
import {
	asJson,
	briefContext,
	entryOfNode,
	importSample,
	kinds,
	ourContext,
	piContext,
	removeTemps,
	sampleText,
} from "./helpers.js";

after(removeTemps);

describe("Open WebUI samples", () => {
	test("both samples are detected as Open WebUI from their content", () => {
		assert.equal(detectFormat(sampleText("openwebui", "librechat-openwebui-export.json")), "openwebui");
		assert.equal(detectFormat(sampleText("openwebui", "openwebui-importer-webui-json.json")), "openwebui");
	});

	test("librechat-openwebui-export.json: three rows, reasoning and a tool call from `output`", async () => {
		const sessions = await importSample("openwebui", "librechat-openwebui-export.json");
		// An array of 3 chat rows.
		assert.equal(sessions.length, 3);
		const [reasoning, tool, simple] = sessions as [ImportedSession, ImportedSession, ImportedSession];

		// reasoning-chat: ra1 (user) → ra2 (assistant, deepseek-r1): session_info + ra1 + a model_change + ra2 = 4.
		assert.equal(reasoning.records.length, 4);
		// currentId ra2; linear → 1 leaf.
		assert.equal(reasoning.leafId, entryOfNode(reasoning, "ra2"));
		const one = await openImported(reasoning, "test");
		assert.equal(one.getSessionName(), "Chat with reasoning");
		assert.deepEqual(one.listBranches(), [reasoning.leafId]);
		// ra2's output holds a reasoning item and a message item → one assistant message: thinking, then "255".
		assert.deepEqual(briefContext(one), ["user: What is 15 *", "assistant: 255"]);
		const answer = one.buildSessionContext().messages[1] as { content: unknown };
		assert.deepEqual(answer.content, [
			{ type: "thinking", thinking: "15 * 17 = 15 * 10 + 15 * 7 = 150 + 105 = 255" },
			{ type: "text", text: "255" },
		]);
		assert.deepEqual(one.buildSessionContext().model, { provider: "open-webui", modelId: "deepseek-r1" });

		// tool-chat: ta2's output is function_call, function_call_output, message → 3 steps: an
		// assistant with the call, the tool result, the answer. session_info + ta1 + model_change + 3 = 6.
		assert.equal(tool.records.length, 6);
		assert.deepEqual(kinds(tool), {
			session_info: 1,
			"message:user": 1,
			model_change: 1,
			"message:assistant": 2,
			"message:toolResult": 1,
		});
		const two = await openImported(tool, "test");
		// currentId ta2 → its last step is the leaf (and the only leaf).
		assert.equal(two.listBranches().length, 1);
		assert.equal(tool.leafId, two.listBranches()[0]);
		assert.deepEqual(briefContext(two), [
			"user: What's the weather in",
			"assistant: →get_weather",
			"toolResult(get_weather): Paris: 18C, rain",
			"assistant: The weather in Paris",
		]);
		const messages = two.buildSessionContext().messages as Array<Record<string, unknown>>;
		// call_id call_1 pairs the call with its output; arguments is a JSON string.
		assert.deepEqual(((messages[1]?.content ?? []) as unknown[])[0], {
			type: "toolCall",
			id: "call_1",
			name: "get_weather",
			arguments: { city: "Paris" },
		});
		assert.equal(messages[2]?.toolCallId, "call_1");

		// simple-chat: sa1 "Hello" → sa2 "Hi there!" (llama3.1:latest): 4 entries, 2 messages.
		assert.equal(simple.records.length, 4);
		assert.deepEqual(briefContext(await openImported(simple, "test")), ["user: Hello", "assistant: Hi there!"]);
	});

	test("openwebui-importer-webui-json.json: a bare chat object with an empty id", async () => {
		const [imported, ...more] = await importSample("openwebui", "openwebui-importer-webui-json.json");
		assert.ok(imported);
		assert.equal(more.length, 0);
		// 2 messages + session_info + a model_change (deepseek/deepseek-chat:free) = 4.
		assert.equal(imported.records.length, 4);
		// currentId a9436447…: the answer.
		assert.equal(imported.leafId, entryOfNode(imported, "a9436447-add3-4bd8-a25f-6ce54b73903c"));
		// The top-level timestamp is in ms: 1744577557127.
		assert.equal(imported.header.timestamp, "2025-04-13T20:52:37.127Z");
		const session = await openImported(imported, "test");
		assert.equal(session.getSessionName(), "🧠 Goldwater Rule Ethics");
		// The doubled apostrophes come from the SQL dump the sample was cut from: kept as they are.
		assert.deepEqual(briefContext(session), [
			"user: what was the ruling",
			"assistant: The principle you''re referring",
		]);
		// usage {prompt_tokens 26, completion_tokens 310, total_tokens 336}.
		const answer = session.buildSessionContext().messages[1] as { usage: Record<string, unknown> };
		assert.equal(answer.usage.input, 26);
		assert.equal(answer.usage.output, 310);
		assert.equal(answer.usage.totalTokens, 336);
	});

	test("every sample opens in pi's SessionManager with the same context as ours", async () => {
		for (const name of ["librechat-openwebui-export.json", "openwebui-importer-webui-json.json"]) {
			for (const imported of await importSample("openwebui", name)) {
				assert.deepEqual(piContext(imported), await ourContext(imported), name);
			}
		}
	});
});

/** A chat where two models answer one prompt and the user asks again under the second answer. */
export function branchedChat(): Record<string, unknown> {
	const message = (id: string, parentId: string | null, childrenIds: string[], fields: Record<string, unknown>) => ({
		id,
		parentId,
		childrenIds,
		timestamp: 1700000000 + Number(id.slice(1)),
		...fields,
	});
	return {
		id: "branched",
		title: "Two models",
		models: ["m-a", "m-b"],
		history: {
			currentId: "a4",
			messages: {
				u1: message("u1", null, ["a1", "a2"], { role: "user", content: "Compare", models: ["m-a", "m-b"] }),
				a1: message("a1", "u1", ["u2"], { role: "assistant", content: "A says", model: "m-a", modelIdx: 0 }),
				a2: message("a2", "u1", ["u3", "u4"], { role: "assistant", content: "B says", model: "m-b", modelIdx: 1 }),
				u2: message("u2", "a1", [], { role: "user", content: "More, A" }),
				u3: message("u3", "a2", ["a3"], { role: "user", content: "first try" }),
				a3: message("a3", "u3", [], { role: "assistant", content: "B again", model: "m-b" }),
				u4: message("u4", "a2", ["a4"], {
					role: "user",
					content: "second try",
					files: [{ type: "image", url: "data:image/png;base64,iVBORw0KGgo=" }],
				}),
				a4: message("a4", "u4", [], { role: "assistant", content: "A now", model: "m-a" }),
			},
		},
		timestamp: 1700000000000,
	};
}

describe("Open WebUI branches", () => {
	test("several models answering one message are siblings, each with its model; currentId is the leaf", async () => {
		const chat = branchedChat();
		const [imported] = importOpenWebUI({ name: "branched.json", text: JSON.stringify(chat) });
		assert.ok(imported);
		// 8 messages + session_info + model_changes before a1 (m-a), a2 (m-b) and a4 (m-a after m-b
		// on its path; a3 keeps m-b) = 12.
		assert.equal(imported.records.length, 12);
		const session = await openImported(imported, "branched.json");
		// Messages without children: u2, a3, a4 → 3 leaves.
		assert.equal(session.listBranches().length, 3);
		assert.equal(imported.leafId, entryOfNode(imported, "a4"));
		// u1 → a2 → u4 → a4.
		assert.deepEqual(briefContext(session), [
			"user: Compare",
			"assistant: B says",
			"user: second try",
			"assistant: A now",
		]);
		assert.deepEqual(session.buildSessionContext().model, { provider: "open-webui", modelId: "m-a" });
		// The two answers to u1, each under a model change of its own.
		const u1 = entryOfNode(imported, "u1") as string;
		const answers = session.getChildren(u1).map((change) => {
			assert.equal(change.type, "model_change");
			const [answer] = session.getChildren(change.id);
			return answer?.type === "message" ? answer.message.model : undefined;
		});
		assert.deepEqual(answers, ["m-a", "m-b"]);
		// u4's image (a data URL in `files`) → an image block after the text.
		const u4 = session.getEntry(entryOfNode(imported, "u4") as string);
		assert.deepEqual(u4?.type === "message" && u4.message.content, [
			{ type: "text", text: "second try" },
			{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
		]);
		assert.deepEqual(piContext(imported), await ourContext(imported));
		// And back: the same chat.
		assert.deepEqual(asJson(toOpenWebUI(await exportInputOf(session))), asJson(chat));
	});

	test("bad input names the chat, the message and the field", () => {
		const chat = branchedChat();
		const messages = (chat.history as { messages: Record<string, Record<string, unknown>> }).messages;
		(messages.a3 as Record<string, unknown>).parentId = "gone";
		assert.throws(
			() => importOpenWebUI({ name: "bad.json", text: JSON.stringify(chat) }),
			(error: unknown) =>
				error instanceof SessionTreeError &&
				error.code === "INVALID_RECORD" &&
				error.message.startsWith(
					'bad.json: chat (branched "Two models"), history.messages/a3/parentId: names message gone',
				),
		);
		assert.throws(
			() => importOpenWebUI({ name: "no-history.json", text: JSON.stringify([{ id: "x", chat: { title: "t" } }]) }),
			/no-history\.json: \[0\] chat \(x "t"\), history: missing or not an object/,
		);
	});
});
