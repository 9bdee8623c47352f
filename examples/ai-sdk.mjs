#!/usr/bin/env node
/**
 * session-tree/ai-sdk with the AI SDK's own mock model (no network, no API key): a chat route
 * written as the AI SDK's persistence guide writes it, three turns, an edit of the first
 * question, a regenerated answer, the "< 1/2 >" alternatives and a switch back to the first
 * version. Every branch stays in one session file, which `session-tree tree` shows.
 *
 *   npm run build && node examples/ai-sdk.mjs [DIR]
 *
 * DIR (default: a new temporary directory) holds the chats, one CHAT_ID.jsonl file each.
 */

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { convertToModelMessages, createIdGenerator, readUIMessageStream, streamText } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { createChatStore } from "session-tree/ai-sdk";

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), "session-tree-ai-sdk-"));
const chats = createChatStore({ location: dir, provider: "mock", model: "mock-model" });

// ---- the model: answers "(call number) TEXT?" -------------------------------------------------

let calls = 0;
const usage = {
	inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
	outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const model = new MockLanguageModelV3({
	doStream: async ({ prompt }) => {
		const question = prompt
			.filter((message) => message.role === "user")
			.at(-1)
			.content.map((part) => (part.type === "text" ? part.text : ""))
			.join("");
		const answer = `(${++calls}) An answer to "${question}"`;
		return {
			stream: convertArrayToReadableStream([
				{ type: "stream-start", warnings: [] },
				{ type: "text-start", id: "t" },
				{ type: "text-delta", id: "t", delta: answer },
				{ type: "text-end", id: "t" },
				{ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
			]),
		};
	},
});

// ---- the server: app/api/chat/route.ts, given the body DefaultChatTransport sends ------------

async function POST({ id, messages, trigger, messageId }) {
	const result = streamText({ model, messages: await convertToModelMessages(messages) });
	return result.toUIMessageStream({
		originalMessages: messages,
		generateMessageId: createIdGenerator({ prefix: "msg", size: 16 }),
		messageMetadata: ({ part }) => (part.type === "finish" ? { usage: part.totalUsage } : undefined),
		onFinish: ({ messages }) => chats.saveChat({ chatId: id, messages, trigger, messageId }),
	});
}

// ---- the client: what useChat does, reduced to a list ----------------------------------------

let nextUserId = 0;
const userMessage = (text, id = `user-${++nextUserId}`) => ({ id, role: "user", parts: [{ type: "text", text }] });

/** Sends the list, reads the streamed answer, returns the list with it. */
async function request(chatId, messages, trigger = "submit-message", messageId = undefined) {
	let answer;
	const stream = await POST({ id: chatId, messages, trigger, messageId });
	for await (const message of readUIMessageStream({ stream })) answer = message;
	return [...messages, answer];
}

const textOf = (message) => message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
function show(title, messages) {
	console.log(title);
	for (const message of messages) console.log(`  ${message.role}: ${textOf(message)}`);
}

// ---- the chat --------------------------------------------------------------------------------

const chatId = await chats.createChat();
let messages = await chats.loadChat(chatId);
for (const question of ["What is a B-tree?", "How does it split?", "And a B+ tree?"]) {
	messages = await request(chatId, [...messages, userMessage(question)]);
}
show("Three turns:", await chats.loadChat(chatId));

// Editing the first question: useChat's sendMessage({ text, messageId }) keeps the id and drops what followed.
const first = messages[0];
messages = await request(chatId, [userMessage("What is a trie?", first.id)], "submit-message", first.id);
show("After editing the first question:", await chats.loadChat(chatId));

// Regenerating the answer: useChat's regenerate() drops it and asks again.
messages = await request(chatId, messages.slice(0, -1), "regenerate-message", messages.at(-1).id);
show("After regenerating the answer:", await chats.loadChat(chatId));

const questions = await chats.listBranches(chatId, first.id);
const answers = await chats.listBranches(chatId, messages[1].id);
console.log(
	`The first question: ${questions.index + 1}/${questions.count}; its answer: ${answers.index + 1}/${answers.count}`,
);

// "<" on the first question: back to the first version, with everything that followed it.
messages = await chats.switchBranch(chatId, questions.branches[0].entryId);
show("Switched back to the first version:", messages);

const { Session } = await import("session-tree");
const session = await Session.open(chats.locationOf(chatId));
console.log(`The session keeps ${session.listBranches().length} branches: ${chats.locationOf(chatId)}`);
console.log(`See them all: npx session-tree tree ${chats.locationOf(chatId)}`);
