/**
 * The ChatGPT importer on every ChatGPT sample in test/fixtures/import/chatgpt. The expected
 * counts, leaves and contexts were derived by hand from the sample files (each with a line
 * saying how); pi's SessionManager must build the same context from the written file.
 */

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { SessionTreeError } from "../../src/core/errors.js";
import { importChatGPT } from "../../src/import/chatgpt.js";
import { detectFormat, importText, openImported } from "../../src/import/index.js";
import type { ImportedSession } from "../../src/import/types.js";
import {
	asJson,
	briefContext,
	entryOfNode,
	importSample,
	jsonlOf,
	kinds,
	ourContext,
	piContext,
	removeTemps,
	sample,
	sampleText,
} from "./helpers.js";

after(removeTemps);

/** The leaves of an imported session as the source node ids they were made from. */
async function leafNodes(imported: ImportedSession): Promise<string[]> {
	const session = await openImported(imported, "test");
	const nodeOf = new Map<string, string>();
	for (const record of imported.records) {
		const source = (record as unknown as { source?: { key?: string } }).source;
		if (source?.key) nodeOf.set(record.id, source.key);
	}
	return session
		.listBranches()
		.map((id) => nodeOf.get(id) ?? id)
		.sort();
}

describe("ChatGPT samples", () => {
	test("every sample is detected as ChatGPT from its content", () => {
		for (const name of [
			"librechat-chatgpt-tree.json",
			"librechat-chatgpt-export.json",
			"librechat-chatgpt-citations.json",
			"polylogue-native-conversation-v1.json",
		]) {
			assert.equal(detectFormat(sampleText("chatgpt", name)), "chatgpt", name);
		}
	});

	test("librechat-chatgpt-tree.json: an edit and a regeneration as branches, current_node as the leaf", async () => {
		const [imported, ...more] = await importSample("chatgpt", "librechat-chatgpt-tree.json");
		assert.ok(imported);
		// The file is an array of 1 conversation.
		assert.equal(more.length, 0);
		// 13 mapping nodes + 1 session_info (the title) + 1 model_change (every assistant node has
		// model_slug text-davinci-002-render-sha: one change, before the first assistant bda8a275) = 15.
		assert.equal(imported.records.length, 15);
		// Node kinds: aaa1f70c has message null → custom chatgpt.node; d38605d2 is the hidden system
		// message with parts [""] → custom chatgpt.system; 5 user and 6 assistant text messages.
		assert.deepEqual(kinds(imported), {
			session_info: 1,
			"custom:chatgpt.node": 1,
			"custom:chatgpt.system": 1,
			"message:user": 5,
			model_change: 1,
			"message:assistant": 6,
		});
		// Nodes with children [] : ada93f81 (the story), d0d2a7df and f63b8e17 (two answers to
		// "tell me a joke") → 3 leaves.
		assert.deepEqual(await leafNodes(imported), [
			"ada93f81-f59e-4b31-933d-1357efd68bfc",
			"d0d2a7df-d2fc-4df9-bf0a-1c5121e227ae",
			"f63b8e17-aa5c-4ca6-a1bf-d4d285e269b8",
		]);
		// current_node is f63b8e17, the second regeneration.
		assert.equal(imported.leafId, entryOfNode(imported, "f63b8e17-aa5c-4ca6-a1bf-d4d285e269b8"));
		const session = await openImported(imported, "test");
		assert.equal(session.getSessionName(), "Assist user with summary");
		// Walking parent links from f63b8e17: aaa20127 ← db88eddf ← aaa236a3 ← bda8a275 ← aaa297ba ←
		// d38605d2 (hidden system) ← aaa1f70c (root): 8 nodes, 2 without anything to say → 6 messages.
		assert.deepEqual(briefContext(session), [
			"user: hi there",
			"assistant: Hello! How can I",
			"user: hi again",
			"assistant: Hey! Welcome back. What's",
			"user: tell me a joke",
			"assistant: Sure, here's one for",
		]);
		// Every assistant node's metadata.model_slug.
		assert.deepEqual(session.buildSessionContext().model, {
			provider: "openai",
			modelId: "text-davinci-002-render-sha",
		});
		// ada93f81 has status in_progress and finish_details.type interrupted → stopped, aborted.
		const story = session.getEntry(entryOfNode(imported, "ada93f81-f59e-4b31-933d-1357efd68bfc") as string);
		assert.equal(story?.type === "message" && story.message.stopReason, "aborted");
		// The edit: bda8a275 has the user children aaa24023 and aaa236a3, in that order.
		const answer = entryOfNode(imported, "bda8a275-886d-4f59-b38c-d7037144f0d5") as string;
		assert.deepEqual(
			session.getChildren(answer).map((entry) => entry.type === "message" && entry.message.role),
			["user", "user"],
		);
	});

	test("librechat-chatgpt-export.json: two conversations, browsing tool calls paired with their results", async () => {
		const sessions = await importSample("chatgpt", "librechat-chatgpt-export.json");
		// An array of 2 conversations.
		assert.equal(sessions.length, 2);
		const [first, second] = sessions as [ImportedSession, ImportedSession];
		// Conversation 1: 17 nodes + session_info + 1 model_change (all assistant nodes are gpt-4) = 19.
		assert.equal(first.records.length, 19);
		// 4 assistant `code` nodes with recipient browser → tool calls; the tool node right under
		// each → its result (4); 2d717cdc is a second tether_quote under the tool node b87c7f57, not
		// under a call → custom message chatgpt.tool.
		assert.deepEqual(kinds(first), {
			session_info: 1,
			"custom:chatgpt.node": 1,
			"custom:chatgpt.system": 1,
			"message:user": 3,
			model_change: 1,
			"message:assistant": 7,
			"message:toolResult": 4,
			"custom_message:chatgpt.tool": 1,
		});
		// A linear chain: 1 leaf, the current_node 88a0cf9f.
		assert.deepEqual(await leafNodes(first), ["88a0cf9f-e860-4b34-8e7e-65f8346f4862"]);
		assert.equal(first.leafId, entryOfNode(first, "88a0cf9f-e860-4b34-8e7e-65f8346f4862"));
		const one = await openImported(first, "test");
		assert.equal(one.getSessionName(), "Conversation 1. Web Search");
		// Walking from 88a0cf9f: 17 nodes; the root (message null) and the hidden empty system node
		// are not sent → 15 context messages, in node order.
		assert.deepEqual(briefContext(one), [
			"user: What is the fuel",
			"assistant: →browser",
			"toolResult(browser): # 【0†Volkswagen Transporter MPG",
			"assistant: →browser",
			"toolResult(browser): 2021 Volkswagen Transporter T6.1",
			"custom(chatgpt.tool): Volkswagen Transporter Review -",
			"assistant: The fuel consumption of",
			"user: What about 10 year",
			"assistant: →browser",
			"toolResult(browser): # 【0†2014 Volkswagen Transporter",
			"assistant: →browser",
			"toolResult(browser): Volkswagen Transporter TDI340 2014",
			"assistant: The fuel consumption of",
			"user: Is it for fully",
			"assistant: The fuel consumption figures",
		]);
		// The first call (node 412dd50f, code `search("…")`) and its result name the same call id.
		const messages = one.buildSessionContext().messages as Array<Record<string, unknown>>;
		const call = ((messages[1]?.content ?? []) as Array<Record<string, unknown>>)[0] ?? {};
		assert.equal(call.type, "toolCall");
		assert.equal(call.id, "call_412dd50f-40c9-4f21-9102-fe148eb41a0b");
		assert.match(String((call.arguments as Record<string, unknown>).input), /^search\("/);
		assert.equal(messages[2]?.toolCallId, call.id);

		// Conversation 2: 6 nodes + session_info + 1 model_change = 8; linear; root and hidden
		// system node not sent → 4 messages.
		assert.equal(second.records.length, 8);
		const two = await openImported(second, "test");
		assert.deepEqual(await leafNodes(second), ["73a2fe12-36bd-4cc2-8460-8108d16cc42d"]);
		assert.deepEqual(briefContext(two), [
			"user: In programming how to",
			"assistant: To find the point",
			"user: give me code in",
			"assistant: Certainly! Here's the same",
		]);
	});

	test("librechat-chatgpt-citations.json: broken links fail, and --lenient imports what is there", async () => {
		// Node 9e874379's parent 5cc5e87b is not in the mapping: the first broken link met.
		await assert.rejects(
			importSample("chatgpt", "librechat-chatgpt-citations.json"),
			(error: unknown) =>
				error instanceof SessionTreeError &&
				error.code === "INVALID_RECORD" &&
				error.message.includes(sample("chatgpt", "librechat-chatgpt-citations.json")) &&
				error.message.includes("mapping/9e874379-5008-4a2d-aa2e-628d1d705a04/parent") &&
				error.message.includes("5cc5e87b-2b74-485a-b3a7-23cb25f202db"),
		);
		const [imported] = await importSample("chatgpt", "librechat-chatgpt-citations.json", true);
		assert.ok(imported);
		// 2 nodes + session_info + 1 model_change (4b3aec6b is gpt-4) = 4.
		assert.equal(imported.records.length, 4);
		// Three workarounds, each reported: the missing parent, the missing child aaa27ed5, the
		// missing current_node 88a0cf9f.
		assert.deepEqual(
			imported.skipped.map((skip) => skip.where.replace(/^.*, /, "")),
			[
				"mapping/9e874379-5008-4a2d-aa2e-628d1d705a04/parent",
				"mapping/4b3aec6b-5146-4bad-ae8e-204fdb6accda/children",
				"current_node",
			],
		);
		// current_node is missing: the last leaf (4b3aec6b, the only one) is the leaf.
		assert.equal(imported.leafId, entryOfNode(imported, "4b3aec6b-5146-4bad-ae8e-204fdb6accda"));
		const session = await openImported(imported, "test");
		// The browser result has no call above it (its parent is missing) → a custom message; then the answer.
		assert.deepEqual(briefContext(session), [
			"custom(chatgpt.tool): # 【0†Signal Sciences -",
			"assistant: Signal Sciences is a",
		]);
	});

	test("polylogue-native-conversation-v1.json: one object, node keys unlike message ids, thoughts, tools, images", async () => {
		const [imported, ...more] = await importSample("chatgpt", "polylogue-native-conversation-v1.json");
		assert.ok(imported);
		// A single conversation object, not an array.
		assert.equal(more.length, 0);
		// 9 nodes + session_info + 2 model_changes (answer-inactive and thought-active, two
		// siblings under `user`, each starts a path with gpt-5-6-pro) = 12.
		assert.equal(imported.records.length, 12);
		assert.deepEqual(kinds(imported), {
			session_info: 1,
			"custom:chatgpt.node": 1,
			"custom_message:chatgpt.context": 1,
			"message:user": 1,
			model_change: 2,
			"message:assistant": 4,
			"message:toolResult": 1,
			"custom:chatgpt.reasoning_recap": 1,
		});
		// `user` has the children answer-inactive and thought-active → 2 leaves.
		assert.deepEqual(await leafNodes(imported), ["answer-active", "answer-inactive"]);
		// current_node answer-active (node keys are used, not message ids such as answer-active-message).
		assert.equal(imported.leafId, entryOfNode(imported, "answer-active"));
		const session = await openImported(imported, "test");
		// Walking from answer-active: recap-active ← tool-result ← tool-call ← thought-active ← user ←
		// context ← root: 8 nodes; root (null) and the reasoning recap are not sent → 6 messages.
		assert.deepEqual(briefContext(session), [
			"custom(chatgpt.context): User profile: Privacy-safe fixture",
			"user: Analyze the attached fixture",
			"assistant: [thinking] Privacy-safe reasoning trace.",
			"assistant: →browser.search",
			"toolResult(browser.search): Privacy-safe tool result.",
			"assistant: Final answer. [Download artifact](sandbox:/mnt/data/fixture-result.zip)",
		]);
		const messages = session.buildSessionContext().messages as Array<Record<string, unknown>>;
		// The user's image_asset_pointer part has no inline data → a placeholder naming the pointer.
		assert.deepEqual(messages[1]?.content, [
			{ type: "text", text: "Analyze the attached fixture and create an artifact." },
			{ type: "text", text: "[image: file-service://fixture-input-image (8×8, 128 bytes)]" },
		]);
		// The call's text is JSON: its object is the arguments.
		assert.deepEqual(((messages[3]?.content ?? []) as Array<Record<string, unknown>>)[0]?.arguments, {
			query: "fixture evidence",
		});
		// The custom instructions reached ChatGPT's model, so they reach ours, hidden from view.
		assert.equal(messages[0]?.display, false);
	});

	test("every sample opens in pi's SessionManager with the same context as ours", async () => {
		for (const [name, lenient] of [
			["librechat-chatgpt-tree.json", false],
			["librechat-chatgpt-export.json", false],
			["librechat-chatgpt-citations.json", true],
			["polylogue-native-conversation-v1.json", false],
		] as const) {
			for (const imported of await importSample("chatgpt", name, lenient)) {
				assert.deepEqual(piContext(imported), await ourContext(imported), name);
			}
		}
	});

	test("importing the same text twice gives the same records; ids and session id derive from the source", async () => {
		for (const name of ["librechat-chatgpt-tree.json", "librechat-chatgpt-export.json"]) {
			const once = await importSample("chatgpt", name);
			const twice = await importSample("chatgpt", name);
			assert.deepEqual(once.map(jsonlOf), twice.map(jsonlOf), name);
		}
		const [imported] = await importSample("chatgpt", "librechat-chatgpt-tree.json");
		// A UUID (version-5 layout) derived from the conversation id d5dc5307-….
		assert.match(String(imported?.header.id), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		// create_time 1714585031.149… → the header's time (ms precision).
		assert.equal(imported?.header.timestamp, "2024-05-01T17:37:11.149Z");
	});

	test("bad input: truncated JSON, a missing parent, another format", async () => {
		const text = sampleText("chatgpt", "librechat-chatgpt-tree.json");
		assert.throws(
			() => importChatGPT({ name: "cut.json", text: text.slice(0, 5000) }),
			(error: unknown) =>
				error instanceof SessionTreeError &&
				error.code === "INVALID_JSON" &&
				/^cut\.json: not valid JSON/.test(error.message),
		);
		const broken = JSON.parse(text) as Array<{ mapping: Record<string, { parent: string | null }> }>;
		(broken[0]?.mapping["aaa236a3-cdfc-4eb1-b5c5-790c6641f880"] as { parent: string }).parent = "nowhere";
		assert.throws(
			() => importChatGPT({ name: "broken.json", text: JSON.stringify(broken) }),
			/broken\.json: \[0\] conversation \(d5dc5307-6807-41a0-8b04-4acee626eeb7 "Assist user with summary"\), mapping\/aaa236a3-cdfc-4eb1-b5c5-790c6641f880\/parent: names node nowhere, which is not in the mapping/,
		);
		// An Open WebUI chat given to the ChatGPT importer.
		await assert.rejects(
			importText(sampleText("openwebui", "librechat-openwebui-export.json"), "owui.json", { from: "chatgpt" }),
			/owui\.json: \[0\] conversation \(reasoning-chat "Chat with reasoning"\), mapping: missing or not an object.*it looks like an Open WebUI chat/,
		);
	});

	test("nodes on a cycle of parent links: strict refuses, lenient reports and imports them under a new root; nothing is lost", () => {
		const user = (id: string, parent: string | null, children: string[], text: string) => ({
			id,
			parent,
			children,
			message: {
				id,
				author: { role: "user" },
				create_time: 1700000000,
				content: { content_type: "text", parts: [text] },
			},
		});
		// r is the root; x and y name each other as parents, so no root reaches them.
		const conversation = {
			id: "cyc",
			title: "cycle",
			create_time: 1700000000,
			current_node: "r",
			mapping: {
				r: user("r", null, [], "root"),
				x: user("x", "y", ["y"], "x text"),
				y: user("y", "x", ["x"], "y text"),
			},
		};
		const text = JSON.stringify(conversation);
		assert.throws(
			() => importChatGPT({ name: "cycle.json", text }),
			/cycle\.json: conversation \(cyc "cycle"\), mapping\/x\/parent: is part of a cycle of parent links/,
			"strict: refused, naming the node",
		);
		const [imported] = importChatGPT({ name: "cycle.json", text, lenient: true });
		assert.ok(imported);
		const cycleSkips = imported.skipped.filter((skip) => /cycle of parent links/.test(skip.reason));
		assert.deepEqual(
			cycleSkips.map((skip) => skip.where),
			['conversation (cyc "cycle"), mapping/x/parent'],
			"the first node found on the cycle is cut from its parent",
		);
		const texts = imported.records.flatMap((entry) =>
			entry.type === "message" && entry.message.role === "user" ? [JSON.stringify(entry.message.content)] : [],
		);
		assert.equal(texts.length, 3, "every node is imported once");
		const byText = (text: string) =>
			imported.records.find((entry) => entry.type === "message" && JSON.stringify(entry.message).includes(text));
		const x = byText("x text");
		const y = byText("y text");
		assert.equal(y?.parentId, x?.id, "y hangs under x");
		assert.notEqual(x?.parentId, y?.id, "x no longer hangs under y");
	});

	test("a tool node whose parent calls no tool, and content kinds without text", async () => {
		const conversation = {
			id: "c1",
			title: "kinds",
			create_time: 1700000000,
			current_node: "d",
			mapping: {
				r: { id: "r", message: null, parent: null, children: ["a"] },
				a: {
					id: "a",
					parent: "r",
					children: ["b"],
					message: {
						id: "a",
						author: { role: "user" },
						create_time: 1700000001,
						content: {
							content_type: "multimodal_text",
							parts: [{ content_type: "image", data: "data:image/png;base64,AAAA" }],
						},
					},
				},
				b: {
					id: "b",
					parent: "a",
					children: ["c"],
					message: {
						id: "b",
						author: { role: "system" },
						content: { content_type: "text", parts: ["Be brief."] },
						metadata: {},
					},
				},
				c: {
					id: "c",
					parent: "b",
					children: ["d"],
					message: {
						id: "c",
						author: { role: "tool", name: "python" },
						content: { content_type: "execution_output", text: "42" },
					},
				},
				d: {
					id: "d",
					parent: "c",
					children: [],
					message: {
						id: "d",
						author: { role: "assistant" },
						content: { content_type: "text", parts: ["It is 42."] },
						metadata: { model_slug: "gpt-4o", finish_details: { type: "max_tokens" } },
					},
				},
			},
		};
		const [imported] = importChatGPT({ name: "kinds.json", text: JSON.stringify(conversation) });
		assert.ok(imported);
		const session = await openImported(imported, "kinds.json");
		// An inline image → an image block; a visible system message → a custom message sent to the
		// model; a tool node under a non-call → a custom message; the answer, stopped by max_tokens.
		assert.deepEqual(briefContext(session), [
			"user: ",
			"custom(chatgpt.system): Be brief.",
			"custom(chatgpt.tool): 42",
			"assistant: It is 42.",
		]);
		const messages = asJson(session.buildSessionContext().messages) as Array<Record<string, unknown>>;
		assert.deepEqual(messages[0]?.content, [{ type: "image", data: "AAAA", mimeType: "image/png" }]);
		assert.equal(messages[3]?.stopReason, "length");
		// b and c have no create_time: they take their parent's (a's) time.
		assert.equal(session.getEntry(entryOfNode(imported, "c") as string)?.timestamp, "2023-11-14T22:13:21.000Z");
	});
});
