/**
 * Round trips: ChatGPT → session-tree → ChatGPT and Open WebUI → session-tree → Open WebUI keep
 * every node, parent link, role, text, timestamp and the current node, on every sample and, by
 * a property test, on random trees (random branching, random current node). A source that grew
 * is re-imported by appending only its new entries.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { importChatGPT } from "../../src/import/chatgpt.js";
import { exportInputOf, toChatGPT, toOpenWebUI } from "../../src/import/export.js";
import { openImported, writeImported } from "../../src/import/index.js";
import { importOpenWebUI } from "../../src/import/openwebui.js";
import type { ImportedSession } from "../../src/import/types.js";
import { Session } from "../../src/session.js";
import { DirectoryCollection } from "../../src/storage/directory-collection.js";
import { asJson, importSample, removeTemps, sampleText, tempDir } from "./helpers.js";

after(removeTemps);

type Json = Record<string, unknown>;

async function chatgptBack(imported: ImportedSession): Promise<unknown> {
	return asJson(toChatGPT(await exportInputOf(await openImported(imported, "test"))));
}

async function openwebuiBack(imported: ImportedSession): Promise<unknown> {
	return asJson(toOpenWebUI(await exportInputOf(await openImported(imported, "test"))));
}

describe("round trips of the samples", () => {
	test("ChatGPT → session-tree → ChatGPT gives every conversation back as it was", async () => {
		for (const name of [
			"librechat-chatgpt-tree.json",
			"librechat-chatgpt-export.json",
			"polylogue-native-conversation-v1.json",
		]) {
			const original = JSON.parse(sampleText("chatgpt", name)) as unknown;
			const conversations = Array.isArray(original) ? original : [original];
			const sessions = await importSample("chatgpt", name);
			assert.equal(sessions.length, conversations.length);
			for (const [i, imported] of sessions.entries()) {
				assert.deepEqual(await chatgptBack(imported), conversations[i], `${name} [${i}]`);
			}
		}
	});

	test("the broken citations sample comes back with its dangling links; current_node is the leaf chosen", async () => {
		const [original] = JSON.parse(sampleText("chatgpt", "librechat-chatgpt-citations.json")) as Json[];
		const [imported] = await importSample("chatgpt", "librechat-chatgpt-citations.json", true);
		assert.ok(imported && original);
		// current_node 88a0cf9f is not in the mapping: the import made the last leaf, 4b3aec6b, the
		// leaf, and the export names the leaf.
		assert.deepEqual(await chatgptBack(imported), {
			...original,
			current_node: "4b3aec6b-5146-4bad-ae8e-204fdb6accda",
		});
	});

	test("Open WebUI → session-tree → Open WebUI gives every chat back as it was", async () => {
		const rows = JSON.parse(sampleText("openwebui", "librechat-openwebui-export.json")) as Json[];
		const sessions = await importSample("openwebui", "librechat-openwebui-export.json");
		for (const [i, imported] of sessions.entries()) {
			// A session from an export file's row comes back as an export file of that one row.
			assert.deepEqual(await openwebuiBack(imported), [rows[i]], `row ${i}`);
		}
		const chat = JSON.parse(sampleText("openwebui", "openwebui-importer-webui-json.json")) as Json;
		const [bare] = await importSample("openwebui", "openwebui-importer-webui-json.json");
		assert.ok(bare);
		// A bare chat comes back bare, with its flat `messages` (the current path) rebuilt.
		assert.deepEqual(await openwebuiBack(bare), chat);
	});

	test("a pi session exports to both formats: every message a node, the leaf the current node", async () => {
		const session = await Session.inMemory({ cwd: "/p" });
		const q = await session.appendMessage({ role: "user", content: "q1", timestamp: 1700000000000 });
		await session.appendMessage({
			role: "assistant",
			content: [{ type: "text", text: "a1" }],
			provider: "anthropic",
			model: "claude",
			timestamp: 1700000001000,
		});
		await session.branch(q);
		const a2 = await session.appendMessage({
			role: "assistant",
			content: [{ type: "text", text: "a2" }],
			provider: "anthropic",
			model: "claude",
			timestamp: 1700000002000,
		});
		const conversation = toChatGPT(await exportInputOf(session, []));
		const mapping = conversation.mapping as Record<string, Json>;
		// A root node and 3 messages; the root's child is q1, which has two children.
		assert.equal(Object.keys(mapping).length, 4);
		const root = mapping["client-created-root"] as Json;
		const [first] = root.children as string[];
		assert.equal(((mapping[first as string] as Json).children as string[]).length, 2);
		const current = mapping[conversation.current_node as string] as Json;
		assert.deepEqual((current.message as Json).content, { content_type: "text", parts: ["a2"] });
		assert.equal((current.message as Json).create_time, 1700000002);
		const [row] = toOpenWebUI(await exportInputOf(session, [])) as Json[];
		const history = ((row as Json).chat as Json).history as Json;
		const messages = history.messages as Record<string, Json>;
		assert.equal(Object.keys(messages).length, 3);
		assert.equal((messages[history.currentId as string] as Json).content, "a2");
		assert.ok(a2);
	});
});

// ---- random trees ------------------------------------------------------------------------------

/** A random tree: node i (1…n) hangs under a node before it; `current` picks the current node; `shape` varies each node. */
const treeArbitrary = fc.integer({ min: 1, max: 14 }).chain((n) =>
	fc.record({
		parents: fc.tuple(...Array.from({ length: n }, (_, i) => fc.integer({ min: 0, max: i }))),
		shapes: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }),
		texts: fc.array(fc.string({ maxLength: 12 }), { minLength: n, maxLength: n }),
		times: fc.array(fc.option(fc.double({ min: 1.6e9, max: 1.8e9, noNaN: true }), { nil: null }), {
			minLength: n,
			maxLength: n,
		}),
		current: fc.integer({ min: 0, max: n }),
		reverse: fc.boolean(),
	}),
);

type Tree = typeof treeArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** A ChatGPT conversation for a random tree: a null root, then users, assistants, tools, system and hidden nodes. */
function chatgptConversation(tree: Tree): Json {
	const keys = ["root", ...tree.parents.map((_, i) => `node-${i + 1}`)];
	const children: string[][] = keys.map(() => []);
	tree.parents.forEach((parent, i) => {
		children[parent]?.push(keys[i + 1] as string);
	});
	if (tree.reverse) for (const list of children) list.reverse();
	const mapping: Json = { root: { id: "root", message: null, parent: null, children: children[0] } };
	tree.parents.forEach((parent, i) => {
		const key = keys[i + 1] as string;
		const text = tree.texts[i] as string;
		const time = tree.times[i] ?? null;
		const shape = tree.shapes[i] as number;
		const base = (role: string, content: Json, extra: Json = {}) => ({
			id: `m-${key}`,
			author: { role, name: role === "tool" ? "python" : null, metadata: {} },
			create_time: time,
			update_time: null,
			content,
			status: "finished_successfully",
			end_turn: null,
			weight: 1,
			metadata: {},
			recipient: "all",
			...extra,
		});
		const messages = [
			() => base("user", { content_type: "text", parts: [text] }),
			() => base("user", { content_type: "text", parts: [text, `${text}!`] }),
			() => base("assistant", { content_type: "text", parts: [text] }, { metadata: { model_slug: "gpt-4" } }),
			() => base("assistant", { content_type: "text", parts: [text] }, { metadata: { model_slug: "gpt-4o" } }),
			() => base("assistant", { content_type: "code", language: "python", text }, { recipient: "python" }),
			() => base("tool", { content_type: "execution_output", text }),
			() =>
				base(
					"system",
					{ content_type: "text", parts: [""] },
					{ metadata: { is_visually_hidden_from_conversation: true } },
				),
			() => base("system", { content_type: "text", parts: [text] }),
			() =>
				base("user", {
					content_type: "multimodal_text",
					parts: [
						text,
						{ content_type: "image_asset_pointer", asset_pointer: `file-service://${key}`, width: 2, height: 2 },
					],
				}),
			() => base("assistant", { content_type: "thoughts", thoughts: [{ summary: text, content: text }] }),
		];
		mapping[key] = {
			id: key,
			message: (messages[shape] as () => Json)(),
			parent: keys[parent],
			children: children[i + 1],
		};
	});
	return {
		title: "random",
		create_time: 1.6e9,
		update_time: 1.9e9,
		mapping,
		current_node: keys[tree.current],
		conversation_id: "conv-random",
		id: "conv-random",
	};
}

/** An Open WebUI chat for a random tree (node 0 is a message too; some nodes are roots). */
function openwebuiChat(tree: Tree): Json {
	const ids = ["m0", ...tree.parents.map((_, i) => `m${i + 1}`)];
	const children: string[][] = ids.map(() => []);
	const parentOf = (i: number): number | null =>
		i === 0 || (tree.shapes[i - 1] as number) === 9 ? null : (tree.parents[i - 1] as number);
	ids.forEach((_, i) => {
		const parent = parentOf(i);
		if (parent !== null) children[parent]?.push(ids[i] as string);
	});
	if (tree.reverse) for (const list of children) list.reverse();
	const messages: Json = {};
	ids.forEach((id, i) => {
		const shape = i === 0 ? 0 : (tree.shapes[i - 1] as number);
		const text = i === 0 ? "hello" : (tree.texts[i - 1] as string);
		const seconds = Math.floor(i === 0 ? 1.6e9 : (tree.times[i - 1] ?? 1.6e9));
		const assistant = shape % 2 === 1;
		const parent = parentOf(i);
		messages[id] = {
			id,
			parentId: parent === null ? null : ids[parent],
			childrenIds: children[i],
			role: assistant ? "assistant" : "user",
			content:
				shape === 7 ? `<details type="reasoning" done="true"><summary>t</summary>&gt; ${text}</details>${text}` : text,
			timestamp: seconds,
			...(assistant ? { model: shape === 3 ? "m-b" : "m-a", done: true } : { models: ["m-a"] }),
		};
	});
	const currentId = ids[tree.current] as string;
	const path: Json[] = [];
	for (let at: string | null = currentId; at !== null; ) {
		const message = messages[at] as Json;
		path.unshift(message);
		at = message.parentId as string | null;
	}
	return {
		id: "chat-random",
		title: "random",
		models: ["m-a", "m-b"],
		history: { messages, currentId },
		messages: path,
		timestamp: 1.6e12,
	};
}

describe("round trips of random trees (property)", () => {
	test("ChatGPT: every node, link, role, text, time and the current node come back", async () => {
		await fc.assert(
			fc.asyncProperty(treeArbitrary, async (tree) => {
				const conversation = chatgptConversation(tree);
				const [imported] = importChatGPT({ name: "random.json", text: JSON.stringify(conversation) });
				assert.ok(imported);
				assert.deepEqual(await chatgptBack(imported), asJson(conversation));
			}),
			{ numRuns: 150 },
		);
	});

	test("Open WebUI: every message, link, role, text, time and currentId come back", async () => {
		await fc.assert(
			fc.asyncProperty(treeArbitrary, async (tree) => {
				const chat = openwebuiChat(tree);
				const [imported] = importOpenWebUI({ name: "random.json", text: JSON.stringify(chat) });
				assert.ok(imported);
				assert.deepEqual(await openwebuiBack(imported), asJson(chat));
			}),
			{ numRuns: 150 },
		);
	});

	test("a conversation that grew is re-imported by appending only its new entries", async () => {
		const dir = tempDir();
		let run = 0;
		await fc.assert(
			fc.asyncProperty(treeArbitrary, fc.integer({ min: 0, max: 14 }), async (tree, cut) => {
				// The earlier export: the nodes before `cut` (parents come before children), its current node
				// among them. ChatGPT adds a node at the end of its parent's children: siblings in creation order.
				const n = tree.parents.length;
				const keep = Math.min(cut, n);
				tree.reverse = false;
				const earlier: Tree = {
					...tree,
					parents: tree.parents.slice(0, keep),
					shapes: tree.shapes.slice(0, keep),
					texts: tree.texts.slice(0, keep),
					times: tree.times.slice(0, keep),
					current: Math.min(tree.current, keep),
				};
				const before = { ...chatgptConversation(earlier), update_time: 1.85e9 };
				const after = chatgptConversation(tree);
				const collection = new DirectoryCollection(`${dir}/${++run}`);
				const [old] = importChatGPT({ name: "old.json", text: JSON.stringify(before) });
				const [grown] = importChatGPT({ name: "new.json", text: JSON.stringify(after) });
				assert.ok(old && grown);
				const first = await writeImported(old, { collection });
				assert.equal(first.status, "written");
				const text = readFileSync(first.location, "utf8");
				const second = await writeImported(grown, { collection });
				// The update_time changed, so there is always something to append: at least the leaf record.
				assert.equal(second.status, "appended");
				const grownText = readFileSync(second.location, "utf8");
				assert.ok(grownText.startsWith(text), "the earlier file is a prefix of the grown one");
				const added = grown.records.length - old.records.length;
				assert.equal(second.records, added + 1, "the new entries and one leaf record");
				// The grown session reads as the grown conversation, and exports as it.
				const session = await Session.open(second.location);
				assert.equal(session.getLeafId(), grown.leafId);
				assert.deepEqual(
					session
						.getEntries()
						.map((entry) => entry.id)
						.sort(),
					grown.records.map((entry) => entry.id).sort(),
				);
				assert.deepEqual(asJson(toChatGPT(await exportInputOf(session))), asJson(after));
				// Importing the grown conversation again changes nothing.
				assert.equal((await writeImported(grown, { collection })).status, "unchanged");
				assert.equal(readFileSync(second.location, "utf8"), grownText);
			}),
			{ numRuns: 60 },
		);
	});
});
