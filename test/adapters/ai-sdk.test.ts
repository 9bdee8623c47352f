/**
 * `session-tree/ai-sdk`: the AI SDK's own client (`AbstractChat`, what `useChat` runs) talking to
 * a route written as the AI SDK's persistence guide writes it (`streamText` →
 * `toUIMessageStream({ originalMessages, onFinish: saveChat })`) with the SDK's mock language
 * model (no network), for several turns with reasoning, a tool call and sources; then an edit of
 * the first question and a regeneration: the client's messages and `loadChat` must be equal
 * after every request, and the session must hold every branch. The same scenario runs on a
 * directory of JSONL files, SQLite, memory and PostgreSQL (with SESSION_TREE_PG_URL). Then the
 * round trip of every part kind, the branching rules one by one, chat ids, the CLI views and the
 * example.
 */

import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import {
	AbstractChat,
	type ChatState,
	type ChatStatus,
	type ChatTransport,
	convertToModelMessages,
	createIdGenerator,
	jsonSchema,
	lastAssistantMessageIsCompleteWithApprovalResponses,
	stepCountIs,
	streamText,
	tool,
	type UIMessage,
	type UIMessageChunk,
} from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { type ChatStore, createChatStore } from "../../src/adapters/ai-sdk.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { AgentMessage, SessionEntry } from "../../src/core/types.js";
import { Session } from "../../src/session.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-schema.js";
import { cli } from "../cli/helpers.js";
import { runExample } from "../support/examples.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "st-ai-sdk-"));
after(() => {
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

let places = 0;
/** A fresh directory path under the test's temporary one (not created: the store creates it). */
const newDir = (): string => join(dir, `place-${++places}`);

/** A value as it reads back from JSON: what a store can give back. */
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

// ---- the model ------------------------------------------------------------------------------

type StreamResult = Awaited<ReturnType<MockLanguageModelV3["doStream"]>>;
type StreamPart = StreamResult["stream"] extends ReadableStream<infer P> ? P : never;

const usage = {
	inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
	outputTokens: { total: 6, text: 6, reasoning: 0 },
};

/**
 * The AI SDK's mock model, answering by the prompt: a question about the weather gets reasoning
 * and a `weather` tool call, a tool result gets a text with a source, anything else
 * `Answer N: QUESTION` (N counts the calls, so that a regenerated answer differs).
 */
function mockModel(): MockLanguageModelV3 {
	let calls = 0;
	return new MockLanguageModelV3({
		provider: "mock",
		modelId: "mock-model",
		doStream: async ({ prompt }) => {
			calls++;
			const last = prompt[prompt.length - 1];
			const question = [...prompt]
				.reverse()
				.find((message) => message.role === "user")
				?.content.map((part) => (part.type === "text" ? part.text : ""))
				.join("");
			let parts: StreamPart[];
			if (last?.role === "tool") {
				parts = [
					{ type: "text-start", id: "t" },
					{ type: "text-delta", id: "t", delta: "It is sunny in Paris." },
					{ type: "text-end", id: "t" },
					{ type: "source", sourceType: "url", id: "src-1", url: "https://weather.example/paris", title: "Paris" },
					{ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
				];
			} else if (question?.includes("weather")) {
				parts = [
					{ type: "reasoning-start", id: "r" },
					{ type: "reasoning-delta", id: "r", delta: "The weather tool knows." },
					{ type: "reasoning-end", id: "r" },
					{ type: "tool-call", toolCallId: `call-${calls}`, toolName: "weather", input: '{"city":"Paris"}' },
					{ type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage },
				];
			} else {
				parts = [
					{ type: "text-start", id: "t" },
					{ type: "text-delta", id: "t", delta: `Answer ${calls}: ` },
					{ type: "text-delta", id: "t", delta: question ?? "" },
					{ type: "text-end", id: "t" },
					{ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
				];
			}
			return { stream: convertArrayToReadableStream<StreamPart>([{ type: "stream-start", warnings: [] }, ...parts]) };
		},
	});
}

const tools = {
	weather: tool({
		description: "The weather in a city",
		inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } } }),
		execute: async ({ city }) => ({ city, sky: "sunny", celsius: 21 }),
	}),
};

// ---- the server and the client --------------------------------------------------------------

/** What the route saw and saved, per request. */
interface Request {
	trigger: string;
	messageId: string | undefined;
}

/** What the route runs with. */
interface RouteSetup {
	model: MockLanguageModelV3;
	tools: Parameters<typeof streamText>[0]["tools"];
}

/**
 * The route of the AI SDK's persistence guide (app/api/chat/route.ts) as a transport: the
 * client's whole list in, the answer streamed out, the list with the answer saved in `onFinish`.
 */
function routeTransport(chats: ChatStore, requests: Request[], setup: RouteSetup): ChatTransport<UIMessage> {
	return {
		async sendMessages({ chatId, messages, trigger, messageId }): Promise<ReadableStream<UIMessageChunk>> {
			requests.push({ trigger, messageId });
			const result = streamText({
				model: setup.model,
				messages: await convertToModelMessages(messages),
				tools: setup.tools,
				stopWhen: stepCountIs(3),
			});
			return result.toUIMessageStream({
				originalMessages: messages,
				sendSources: true,
				generateMessageId: createIdGenerator({ prefix: "msg", size: 16 }),
				onFinish: async ({ messages: all }) => {
					await chats.saveChat({ chatId, messages: all, trigger, messageId });
				},
			});
		},
		async reconnectToStream() {
			return null;
		},
	};
}

/** The state `useChat` keeps in React, kept in a field. */
class PlainState implements ChatState<UIMessage> {
	status: ChatStatus = "ready";
	error: Error | undefined = undefined;
	messages: UIMessage[];
	constructor(messages: UIMessage[]) {
		this.messages = messages;
	}
	pushMessage = (message: UIMessage) => {
		this.messages = [...this.messages, message];
	};
	popMessage = () => {
		this.messages = this.messages.slice(0, -1);
	};
	replaceMessage = (index: number, message: UIMessage) => {
		this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
	};
	snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's chat client (what `useChat` wraps), on the route above. */
class TestChat extends AbstractChat<UIMessage> {
	readonly requests: Request[];
	constructor(
		chats: ChatStore,
		id: string,
		messages: UIMessage[],
		setup: RouteSetup = { model: mockModel(), tools },
		sendAutomaticallyWhen?: (options: { messages: UIMessage[] }) => boolean,
	) {
		const requests: Request[] = [];
		super({
			id,
			state: new PlainState(messages),
			transport: routeTransport(chats, requests, setup),
			sendAutomaticallyWhen,
		});
		this.requests = requests;
	}
}

const textOf = (message: UIMessage | undefined): string =>
	(message?.parts ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");

/** The session of a chat, read anew. */
async function sessionOf(chats: ChatStore, chatId: string): Promise<Session> {
	return Session.open(chats.locationOf(chatId));
}

/** The roles of the pi context the session gives its leaf. */
function contextRoles(session: Session): string[] {
	return session.buildSessionContext().messages.map((message) => message.role);
}

// ---- the scenario ---------------------------------------------------------------------------

/**
 * Three turns (one with reasoning, a tool call and a source), an edit of the first question, a
 * regeneration, switches, a turn on the old branch, idempotence and a dropped tail. Returns the
 * chat's id.
 */
async function scenario(location: string): Promise<{ chats: ChatStore; chatId: string }> {
	const chats = createChatStore({ location, provider: "mock", model: "mock-model" });
	const chatId = await chats.createChat();
	assert.deepEqual(await chats.loadChat(chatId), []);
	const chat = new TestChat(chats, chatId, await chats.loadChat(chatId));
	const synced = async (what: string) => assert.deepEqual(await chats.loadChat(chatId), json(chat.messages), what);

	await chat.sendMessage({ text: "hello" });
	await synced("turn 1");
	await chat.sendMessage({ text: "what's the weather in Paris?" });
	await synced("turn 2: reasoning, a tool call, its result, a source");
	await chat.sendMessage({ text: "thanks" });
	await synced("turn 3");
	const original = json(chat.messages);
	assert.equal(original.length, 6);
	const weather = original[3] as UIMessage;
	assert.deepEqual(
		weather.parts.map((part) => part.type),
		["step-start", "reasoning", "tool-weather", "step-start", "text", "source-url"],
	);

	let session = await sessionOf(chats, chatId);
	assert.equal(session.getSessionId(), chatId, "the session's id is the chat's");
	assert.deepEqual(contextRoles(session), [
		"user",
		"assistant",
		"user",
		"assistant",
		"toolResult",
		"assistant",
		"user",
		"assistant",
	]);
	const [, , , call, result] = session.buildSessionContext().messages as AgentMessage[];
	assert.deepEqual(
		((call?.content ?? []) as Array<{ type: string }>).map((block) => block.type),
		["thinking", "toolCall"],
	);
	assert.equal(result?.toolName, "weather");
	assert.deepEqual(result?.content, [{ type: "text", text: '{"city":"Paris","sky":"sunny","celsius":21}' }]);
	const oldLeaf = session.getLeafId() as string;
	assert.equal(session.listBranches().length, 1);
	await session.close();

	// Edit the first question: useChat keeps its id and drops what followed.
	const first = original[0] as UIMessage;
	await chat.sendMessage({ text: "hello, edited", messageId: first.id });
	assert.deepEqual(chat.requests.at(-1), { trigger: "submit-message", messageId: first.id });
	await synced("after the edit");
	assert.equal(chat.messages.length, 2);
	assert.equal(chat.messages[0]?.id, first.id, "the edit keeps the message id");

	session = await sessionOf(chats, chatId);
	assert.equal(session.listBranches().length, 2, "the old branch and the new one");
	assert.ok(session.listBranches().includes(oldLeaf), "the old branch is whole");
	assert.equal(
		session.getBranch(oldLeaf).filter((entry) => entry.type === "message").length,
		8,
		"the old path keeps its 8 pi messages",
	);
	await session.close();

	const questions = await chats.listBranches(chatId, first.id);
	assert.equal(questions.count, 2);
	assert.equal(questions.index, 1);
	assert.deepEqual(
		questions.branches.map((branch) => [textOf(branch.message), branch.active]),
		[
			["hello", false],
			["hello, edited", true],
		],
	);

	// Regenerate the answer: useChat drops it and asks again; the new answer has a new id.
	const replaced = chat.messages[1] as UIMessage;
	await chat.regenerate();
	assert.deepEqual(chat.requests.at(-1), { trigger: "regenerate-message", messageId: undefined });
	await synced("after the regeneration");
	const regenerated = chat.messages[1] as UIMessage;
	assert.notEqual(regenerated.id, replaced.id);
	assert.notEqual(textOf(regenerated), textOf(replaced));

	const answers = await chats.listBranches(chatId, regenerated.id);
	assert.deepEqual(
		[answers.index, answers.count, answers.branches.map((branch) => branch.message.id)],
		[1, 2, [replaced.id, regenerated.id]],
	);
	const old = await chats.listBranches(chatId, replaced.id);
	assert.deepEqual([old.index, old.count], [0, 2], "a message off the active path has its alternatives too");
	assert.deepEqual(
		old.branches.map((branch) => branch.active),
		[false, true],
	);

	session = await sessionOf(chats, chatId);
	assert.equal(session.listBranches().length, 3);
	assert.deepEqual(contextRoles(session), ["user", "assistant"]);
	await session.close();

	// "<" on the answer, then on the question: back to where each branch was left.
	assert.deepEqual(
		(await chats.switchBranch(chatId, replaced.id)).map((message) => message.id),
		[first.id, replaced.id],
	);
	chat.messages = await chats.switchBranch(chatId, questions.branches[0]?.entryId as string);
	assert.deepEqual(chat.messages, original, "the first version with everything that followed it");
	await synced("after switching back");

	// A turn on the old branch continues it.
	await chat.sendMessage({ text: "one more" });
	await synced("a turn on the old branch");
	assert.equal(chat.messages.length, 8);
	session = await sessionOf(chats, chatId);
	assert.equal(session.listBranches().length, 3, "the old branch grew, no new one");
	await session.close();

	// A message already on the active path: nothing moves; the edited version by its entry: its newest answer.
	assert.deepEqual(await chats.switchBranch(chatId, first.id), json(chat.messages));
	const edited = await chats.switchBranch(chatId, questions.branches[1]?.entryId as string);
	assert.deepEqual(
		edited.map((message) => message.id),
		[first.id, regenerated.id],
	);

	// Saving what is stored again writes nothing.
	const beforeSaves = await sessionOf(chats, chatId);
	const entries = beforeSaves.entryCount;
	await beforeSaves.close();
	assert.equal((await chats.saveChat({ chatId, messages: edited })).written, 0);
	assert.equal((await chats.saveChat({ chatId, messages: edited, trigger: "submit-message" })).written, 0);

	// The client drops the answer: the leaf moves back, nothing is deleted; sending it again finds it.
	const dropped = await chats.saveChat({ chatId, messages: edited.slice(0, 1) });
	assert.deepEqual([dropped.written, dropped.stored], [1, []]);
	assert.deepEqual(await chats.loadChat(chatId), edited.slice(0, 1));
	const again = await chats.saveChat({ chatId, messages: edited });
	assert.deepEqual([again.written, again.stored], [1, []], "the answer is found, not written again");
	const afterSaves = await sessionOf(chats, chatId);
	assert.equal(afterSaves.entryCount, entries);
	await afterSaves.close();

	// What was loaded feeds the model again.
	const model = await convertToModelMessages(await chats.loadChat(chatId), { tools });
	assert.deepEqual(
		model.map((message) => message.role),
		["user", "assistant"],
	);
	return { chats, chatId };
}

/** `tree` shows every branch and `ctx` the active path, from the session the scenario wrote. */
async function checkCli(location: string): Promise<void> {
	const tree = await cli(["tree", location]);
	assert.equal(tree.code, 0, tree.stderr);
	for (const text of ["user: hello", "user: hello, edited", "assistant: It is sunny in Paris.", "user: one more"]) {
		assert.ok(tree.stdout.includes(text), `tree shows ${text}:\n${tree.stdout}`);
	}
	const leaves = await cli(["leaves", location, "--json"]);
	assert.equal(leaves.code, 0, leaves.stderr);
	assert.equal((JSON.parse(leaves.stdout) as string[]).length, 3);
	const ctx = await cli(["ctx", location, "--json"]);
	assert.equal(ctx.code, 0, ctx.stderr);
	const context = JSON.parse(ctx.stdout) as { messages: Array<{ role: string }>; model: unknown };
	assert.deepEqual(
		context.messages.map((message) => message.role),
		["user", "assistant"],
	);
	assert.deepEqual(context.model, { provider: "mock", modelId: "mock-model" });
	const md = await cli(["md", location]);
	assert.equal(md.code, 0, md.stderr);
}

describe("the AI SDK's client and route, with every branch kept", () => {
	test("a directory of JSONL files", async () => {
		const location = newDir();
		const { chats, chatId } = await scenario(location);
		assert.deepEqual(readdirSync(location), [`${chatId}.jsonl`]);
		const file = chats.locationOf(chatId);
		assert.equal(file, join(location, `${chatId}.jsonl`));
		assert.equal(statSync(file).mode & 0o777, 0o600);
		const size = statSync(file).size;
		await chats.saveChat({ chatId, messages: await chats.loadChat(chatId) });
		assert.equal(statSync(file).size, size, "an idempotent save does not touch the file");
		await checkCli(file);

		// pi opens the file and gives the model the same context.
		const copy = join(dir, `pi-${chatId}.jsonl`);
		copyFileSync(file, copy);
		const session = await Session.open(file);
		assert.deepEqual(json(SessionManager.open(copy, dir).buildSessionContext()), json(session.buildSessionContext()));
		await session.close();
	});

	test("SQLite (sqlite:PATH)", { skip: SQLITE_SKIP }, async () => {
		const location = `sqlite:${join(dir, "chats.db")}`;
		const { chats, chatId } = await scenario(location);
		assert.equal(chats.locationOf(chatId), `${location}#${chatId}`);
		await checkCli(chats.locationOf(chatId));
		assert.deepEqual(await chats.listChats(), [chatId]);
	});

	test("memory:NAME", async () => {
		const { chats, chatId } = await scenario("memory:ai-sdk-scenario");
		assert.equal(chats.locationOf(chatId), `memory:ai-sdk-scenario/${chatId}`);
	});

	describe("PostgreSQL", () => {
		let server: Awaited<ReturnType<typeof postgresServer>> = { skip: "not checked yet" };
		before(async () => {
			server = await postgresServer();
		});
		test("postgres://…", async (t) => {
			if ("skip" in server) return t.skip(server.skip);
			const schema = testSchema(server.url, "ai_sdk");
			const { chats, chatId } = await scenario(schema.url);
			assert.equal(chats.locationOf(chatId), schema.session(chatId));
			await checkCli(schema.session(chatId));
			assert.deepEqual(await chats.listChats(), [chatId]);
			assert.equal(await chats.deleteChat(chatId), true);
			assert.deepEqual(await chats.listChats(), []);
		});
	});
});

// ---- every part kind ------------------------------------------------------------------------

const png =
	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";

/** One message of every role, with every part kind and every tool state of `ai` 6. */
const everyPart = [
	{ id: "sys-1", role: "system", parts: [{ type: "text", text: "Answer briefly." }] },
	{
		id: "user-1",
		role: "user",
		metadata: { createdAt: "2026-01-02T03:04:05.000Z", tags: ["x"] },
		parts: [
			{ type: "text", text: "Look at these." },
			{ type: "file", mediaType: "image/png", filename: "dot.png", url: png },
			{ type: "file", mediaType: "application/pdf", filename: "report.pdf", url: "https://files.example/report.pdf" },
			{ type: "data-note", id: "note-1", data: { pinned: true } },
		],
	},
	{
		id: "assistant-1",
		role: "assistant",
		metadata: { model: "mock-model", usage: { totalTokens: 42 } },
		parts: [
			{ type: "step-start" },
			{ type: "reasoning", text: "Two tools.", state: "done", providerMetadata: { anthropic: { signature: "sig" } } },
			{ type: "text", text: "Checking.", state: "done" },
			{
				type: "tool-weather",
				toolCallId: "c1",
				state: "output-available",
				input: { city: "Paris" },
				output: { sky: "sunny" },
				callProviderMetadata: { mock: { n: 1 } },
			},
			{
				type: "tool-weather",
				toolCallId: "c2",
				state: "output-error",
				input: { city: "Atlantis" },
				errorText: "no such city",
			},
			{
				type: "tool-remove",
				toolCallId: "c3",
				state: "output-denied",
				input: { path: "/" },
				approval: { id: "ap-1", approved: false, reason: "too risky" },
			},
			{
				type: "dynamic-tool",
				toolName: "lookup",
				toolCallId: "c4",
				state: "output-available",
				input: "plain",
				output: "found",
			},
			{ type: "step-start" },
			{
				type: "tool-weather",
				toolCallId: "c5",
				state: "input-streaming",
				input: { city: "Ber" },
				rawInput: '{"city":"Ber',
			},
			{ type: "tool-weather", toolCallId: "c6", state: "input-available", input: { city: "Rome" } },
			{
				type: "tool-send",
				toolCallId: "c7",
				state: "approval-requested",
				input: { to: "a" },
				approval: { id: "ap-2" },
			},
			{
				type: "tool-send",
				toolCallId: "c8",
				state: "approval-responded",
				input: { to: "b" },
				approval: { id: "ap-3", approved: true },
			},
			{ type: "text", text: "Here is what I found.", state: "done", providerMetadata: { mock: { cached: true } } },
			{ type: "source-url", sourceId: "s1", url: "https://example.com", title: "Example" },
			{ type: "source-document", sourceId: "s2", mediaType: "application/pdf", title: "Doc", filename: "doc.pdf" },
			{ type: "file", mediaType: "image/png", url: png },
			{ type: "data-weather", id: "w1", data: { city: "Paris", sky: "sunny" } },
		],
	},
] as unknown as UIMessage[];

describe("the mapping", () => {
	test("every part kind reads back deep-equal, and pi's context is the conversation", async () => {
		const location = newDir();
		const chats = createChatStore(location);
		const saved = await chats.saveChat({ chatId: "every-part", messages: everyPart });
		assert.deepEqual(saved.stored, ["sys-1", "user-1", "assistant-1"]);
		assert.deepEqual(await chats.loadChat("every-part"), everyPart);
		assert.deepEqual(await createChatStore(location).loadChat("every-part"), everyPart, "read by another store object");
		assert.equal((await chats.saveChat({ chatId: "every-part", messages: everyPart })).written, 0);

		const session = await Session.open(chats.locationOf("every-part"));
		const messages = session.buildSessionContext().messages as AgentMessage[];
		assert.deepEqual(
			messages.map((message) => message.role),
			["custom", "user", "assistant", "toolResult", "toolResult", "toolResult", "toolResult", "assistant"],
		);
		const [system, user, step1, ok, failed, denied, dynamic, step2] = messages;
		assert.deepEqual(
			[system?.customType, system?.content, system?.display],
			["ai-sdk/system", "Answer briefly.", false],
		);
		assert.deepEqual(user?.content, [
			{ type: "text", text: "Look at these." },
			{ type: "image", data: png.slice("data:image/png;base64,".length), mimeType: "image/png" },
			{ type: "text", text: "[file: report.pdf (application/pdf) https://files.example/report.pdf]" },
		]);
		assert.deepEqual(step1?.content, [
			{ type: "thinking", thinking: "Two tools." },
			{ type: "text", text: "Checking." },
			{ type: "toolCall", id: "c1", name: "weather", arguments: { city: "Paris" } },
			{ type: "toolCall", id: "c2", name: "weather", arguments: { city: "Atlantis" } },
			{ type: "toolCall", id: "c3", name: "remove", arguments: { path: "/" } },
			{ type: "toolCall", id: "c4", name: "lookup", arguments: { input: "plain" } },
		]);
		assert.deepEqual([step1?.stopReason, step1?.provider, step1?.model], ["toolUse", "ai-sdk", "unknown"]);
		const result = (message: AgentMessage | undefined) => [
			message?.toolCallId,
			message?.toolName,
			((message?.content ?? []) as Array<{ text: string }>)[0]?.text,
			message?.isError,
		];
		assert.deepEqual(result(ok), ["c1", "weather", '{"sky":"sunny"}', false]);
		assert.deepEqual(result(failed), ["c2", "weather", "no such city", true]);
		assert.deepEqual(result(denied), ["c3", "remove", "Tool execution denied: too risky", true]);
		assert.deepEqual(result(dynamic), ["c4", "lookup", "found", false]);
		assert.deepEqual(
			((step2?.content ?? []) as Array<{ type: string; id?: string; text?: string }>).map(
				(block) => block.id ?? block.text,
			),
			["c5", "c6", "c7", "c8", "Here is what I found."],
			"calls without an outcome yet, and the text",
		);
		// One run of 8 entries; the UIMessage on the last of each run.
		const runs = session.getEntries().filter((entry) => entry.type === "message");
		assert.equal(runs.length, 8);
		const marks = runs.map(
			(entry) => (entry.type === "message" ? entry.message.aiSdk : undefined) as { messageId: string },
		);
		assert.deepEqual(
			marks.map((mark) => [mark.messageId, "uiMessage" in mark]),
			[
				["sys-1", true],
				["user-1", true],
				["assistant-1", false],
				["assistant-1", false],
				["assistant-1", false],
				["assistant-1", false],
				["assistant-1", false],
				["assistant-1", true],
			],
		);
		const copy = join(dir, "pi-every-part.jsonl");
		copyFileSync(chats.locationOf("every-part"), copy);
		assert.deepEqual(json(SessionManager.open(copy, dir).buildSessionContext()), json(session.buildSessionContext()));
		await session.close();
		const html = await cli(["html", chats.locationOf("every-part"), "-o", "-"]);
		assert.equal(html.code, 0, html.stderr);
	});

	test("provider and model name the assistant messages (the store's, or a save's)", async () => {
		const chats = createChatStore({ location: "memory:ai-sdk-names", provider: "openai", model: "gpt-5-mini" });
		const messages = [user("u1", "hi"), answer("a1", "hello")];
		await chats.saveChat({ chatId: "c", messages });
		await chats.saveChat({ chatId: "c", messages: [...messages, user("u2", "more")] });
		await chats.saveChat({
			chatId: "c",
			messages: [...messages, user("u2", "more"), answer("a2", "sure")],
			provider: "anthropic",
			model: "claude-sonnet-4-5",
		});
		const session = await Session.open(chats.locationOf("c"));
		const models = session
			.buildSessionContext()
			.messages.flatMap((message) => (message.role === "assistant" ? [`${message.provider}/${message.model}`] : []));
		assert.deepEqual(models, ["openai/gpt-5-mini", "anthropic/claude-sonnet-4-5"]);
		await session.close();
	});
});

// ---- the branching rules --------------------------------------------------------------------

function user(id: string, text: string): UIMessage {
	return { id, role: "user", parts: [{ type: "text", text }] };
}
function answer(id: string, text: string, extra: UIMessage["parts"] = []): UIMessage {
	return { id, role: "assistant", parts: [{ type: "step-start" }, ...extra, { type: "text", text, state: "done" }] };
}

/** The entries of a chat's session and its number of leaves, read anew. */
async function stored(chats: ChatStore, chatId: string): Promise<{ entries: SessionEntry[]; leaves: number }> {
	const session = await Session.open(chats.locationOf(chatId));
	const entries = session.getEntries();
	const leaves = session.listBranches().length;
	await session.close();
	return { entries, leaves };
}

describe("the branching rules", () => {
	test("appends, edits, stale clients, dropped tails and new questions on an old turn", async () => {
		const chats = createChatStore("memory:ai-sdk-rules");
		const chatId = "rules";
		const turn = [user("u1", "one"), answer("a1", "1"), user("u2", "two"), answer("a2", "2")];
		assert.deepEqual((await chats.saveChat({ chatId, messages: turn })).stored, ["u1", "a1", "u2", "a2"]);
		assert.deepEqual((await chats.saveChat({ chatId, messages: turn })).written, 0);
		const entries = (await stored(chats, chatId)).entries.length;

		// An edit: same id, new content, a new sibling; the old branch stays.
		const edit = [user("u1", "one, edited"), answer("a1b", "1b")];
		const saved = await chats.saveChat({ chatId, messages: edit, trigger: "submit-message", messageId: "u1" });
		assert.deepEqual(saved.stored, ["u1", "a1b"]);
		assert.deepEqual(await chats.loadChat(chatId), edit);
		assert.equal((await stored(chats, chatId)).leaves, 2);

		// A client that still shows the old branch: it is found, not written again.
		const stale = await chats.saveChat({ chatId, messages: turn });
		assert.deepEqual([stale.written, stale.stored], [1, []]);
		assert.deepEqual(await chats.loadChat(chatId), turn);
		assert.equal((await stored(chats, chatId)).entries.length, entries + 2);

		// Messages dropped from the end: the leaf moves back, nothing is deleted.
		await chats.saveChat({ chatId, messages: turn.slice(0, 2) });
		assert.deepEqual(await chats.loadChat(chatId), turn.slice(0, 2));
		assert.equal((await stored(chats, chatId)).entries.length, entries + 2);

		// A new question after the first answer: a sibling of the second question.
		const other = [...turn.slice(0, 2), user("u3", "three")];
		assert.deepEqual((await chats.saveChat({ chatId, messages: other })).stored, ["u3"]);
		const at = await chats.listBranches(chatId, "u3");
		assert.deepEqual([at.index, at.count, at.branches.map((branch) => branch.message.id)], [1, 2, ["u2", "u3"]]);
		// Alternatives have the same role: the answers under u1 are not siblings of a question.
		assert.equal((await chats.listBranches(chatId, "a1")).count, 1);

		// Nothing at all: the leaf goes before the first entry.
		await chats.saveChat({ chatId, messages: [] });
		assert.deepEqual(await chats.loadChat(chatId), []);
		assert.deepEqual(await chats.switchBranch(chatId, "u3"), other, "back, by message id");
	});

	test("a regeneration is a sibling even with the same id; a grown answer is continued", async () => {
		const chats = createChatStore("memory:ai-sdk-continue");
		const chatId = "grow";
		const question = user("u1", "send it");
		const asked = {
			id: "a1",
			role: "assistant",
			parts: [
				{ type: "step-start" },
				{
					type: "tool-send",
					toolCallId: "c1",
					state: "approval-requested",
					input: { to: "x" },
					approval: { id: "ap" },
				},
			],
		} as UIMessage;
		await chats.saveChat({ chatId, messages: [question, asked] });

		// The user approves (addToolApprovalResponse): pi's view is unchanged, the new version is kept.
		const approved = json(asked);
		Object.assign(approved.parts[1] as object, { state: "approval-responded", approval: { id: "ap", approved: true } });
		const revision = await chats.saveChat({ chatId, messages: [question, approved], trigger: "submit-message" });
		assert.deepEqual([revision.written, revision.stored], [1, ["a1"]]);
		assert.deepEqual(await chats.loadChat(chatId), [question, approved]);

		// The tool ran and the model went on (the same answer, continued: isContinuation).
		const done = json(approved);
		Object.assign(done.parts[1] as object, { state: "output-available", output: "sent" });
		done.parts.push({ type: "step-start" }, { type: "text", text: "Sent.", state: "done" });
		const grown = await chats.saveChat({ chatId, messages: [question, done], trigger: "submit-message" });
		assert.deepEqual([grown.written, grown.stored], [2, ["a1"]], "the tool result and the new step");
		assert.deepEqual(await chats.loadChat(chatId), [question, done]);
		assert.equal((await chats.listBranches(chatId, "a1")).count, 1, "a continuation is no alternative");
		let session = await Session.open(chats.locationOf(chatId));
		assert.deepEqual(contextRoles(session), ["user", "assistant", "toolResult", "assistant"]);
		assert.equal(session.listBranches().length, 1);
		await session.close();

		// Regenerated, reusing the id: a sibling, never a continuation.
		const again = answer("a1", "Sent again.", [
			{ type: "tool-send", toolCallId: "c1", state: "output-available", input: { to: "x" }, output: "sent" },
		]);
		await chats.saveChat({ chatId, messages: [question, again], trigger: "regenerate-message", messageId: "a1" });
		assert.deepEqual(await chats.loadChat(chatId), [question, again]);
		const branches = await chats.listBranches(chatId, "a1");
		assert.deepEqual([branches.index, branches.count], [1, 2]);
		assert.deepEqual(branches.branches[0]?.message, done);

		// An answer that changed (not grown) without a trigger is a sibling too.
		const changed = answer("a1", "Something else.");
		await chats.saveChat({ chatId, messages: [question, changed] });
		assert.equal((await chats.listBranches(chatId, "a1")).count, 3);
		session = await Session.open(chats.locationOf(chatId));
		assert.equal(session.listBranches().length, 3);
		await session.close();

		// Switching by entry id picks that version exactly.
		const first = (await chats.listBranches(chatId, "a1")).branches[0];
		assert.deepEqual(await chats.switchBranch(chatId, first?.entryId as string), [question, done]);
	});

	test("a tool approval with the AI SDK's client continues the answer instead of branching", async () => {
		const model = new MockLanguageModelV3({
			doStream: async ({ prompt }) => {
				const parts: StreamPart[] =
					prompt[prompt.length - 1]?.role === "user"
						? [
								{ type: "tool-call", toolCallId: "call-1", toolName: "send", input: '{"to":"bob"}' },
								{ type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage },
							]
						: [
								{ type: "text-start", id: "t" },
								{ type: "text-delta", id: "t", delta: "Sent." },
								{ type: "text-end", id: "t" },
								{ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
							];
				return { stream: convertArrayToReadableStream<StreamPart>([{ type: "stream-start", warnings: [] }, ...parts]) };
			},
		});
		const send = tool({
			description: "Sends a message",
			inputSchema: jsonSchema<{ to: string }>({ type: "object", properties: { to: { type: "string" } } }),
			needsApproval: true,
			execute: async ({ to }) => `sent to ${to}`,
		});
		const chats = createChatStore(newDir());
		const chat = new TestChat(
			chats,
			"approval",
			[],
			{ model, tools: { send } },
			lastAssistantMessageIsCompleteWithApprovalResponses,
		);
		await chat.sendMessage({ text: "send it to bob" });
		const asked = chat.messages[1] as UIMessage;
		const part = asked.parts[1] as { state: string; approval: { id: string } };
		assert.equal(part.state, "approval-requested");
		assert.deepEqual(await chats.loadChat("approval"), json(chat.messages));

		await chat.addToolApprovalResponse({ id: part.approval.id, approved: true });
		for (let wait = 0; chat.requests.length < 2 || chat.status !== "ready"; wait++) {
			assert.ok(wait < 200, "the client sends the approval by itself");
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		assert.deepEqual(chat.requests.at(-1), { trigger: "submit-message", messageId: asked.id });
		assert.equal(chat.messages.length, 2);
		assert.equal(chat.messages[1]?.id, asked.id, "the same answer, continued");
		assert.deepEqual(await chats.loadChat("approval"), json(chat.messages));
		assert.equal((await chats.listBranches("approval", asked.id)).count, 1);
		const session = await Session.open(chats.locationOf("approval"));
		assert.deepEqual(contextRoles(session), ["user", "assistant", "toolResult", "assistant"]);
		assert.equal(session.listBranches().length, 1);
		await session.close();
	});

	test("an answer whose write was cut short is written again beside it; entries of other tools are kept", async () => {
		const chats = createChatStore(newDir());
		const chatId = "cut";
		const question = user("u1", "weather?");
		await chats.saveChat({ chatId, messages: [question] });
		let session = await Session.open(chats.locationOf(chatId));
		await session.appendSessionInfo("A chat about the weather");
		// The first of three entries of an answer, then the process died.
		await session.appendMessage({
			role: "assistant",
			content: [{ type: "toolCall", id: "c1", name: "weather", arguments: {} }],
			provider: "mock",
			model: "mock-model",
			timestamp: 1,
			aiSdk: { messageId: "a1" },
		});
		await session.close();
		assert.deepEqual(await chats.loadChat(chatId), [question], "an unfinished message is not shown");

		const full = answer("a1", "Sunny.", [
			{ type: "tool-weather", toolCallId: "c1", state: "output-available", input: {}, output: "sunny" },
			{ type: "step-start" },
		]);
		assert.deepEqual((await chats.saveChat({ chatId, messages: [question, full] })).stored, ["a1"]);
		assert.deepEqual(await chats.loadChat(chatId), [question, full]);
		assert.equal((await chats.saveChat({ chatId, messages: [question, full] })).written, 0);
		session = await Session.open(chats.locationOf(chatId));
		assert.equal(session.getSessionName(), "A chat about the weather");
		assert.deepEqual(contextRoles(session), ["user", "assistant", "toolResult", "assistant"]);
		assert.equal(session.listBranches().length, 2, "the unfinished write stays beside the answer");
		const path = session.getBranch().map((entry) => entry.type);
		assert.deepEqual(path, ["message", "session_info", "message", "message", "message"]);
		await session.close();
	});

	test("concurrent saves of one chat write each message once", async () => {
		const chats = createChatStore(newDir());
		const messages = [user("u1", "hi"), answer("a1", "hello")];
		const results = await Promise.all([
			chats.saveChat({ chatId: "busy", messages }),
			chats.saveChat({ chatId: "busy", messages }),
			chats.saveChat({ chatId: "busy", messages }),
		]);
		assert.deepEqual(
			results.map((result) => result.written),
			[2, 0, 0],
		);
		assert.equal((await stored(chats, "busy")).entries.length, 2);
	});
});

// ---- chats ----------------------------------------------------------------------------------

describe("chats", () => {
	test("create, list, load, delete; a chat that does not exist loads as []", async () => {
		const location = newDir();
		const chats = createChatStore({ location });
		assert.deepEqual(await chats.listChats(), []);
		assert.deepEqual(await chats.loadChat("nothing-here"), []);
		assert.equal(await chats.hasChat("nothing-here"), false);
		assert.equal(existsSync(location), false, "reading creates nothing");
		const id = await chats.createChat();
		assert.match(id, /^[A-Za-z0-9]{16}$/);
		await assert.rejects(chats.createChat(id), (error) => isSessionTreeError(error, "FILE_EXISTS"));
		await chats.createChat("chat_2");
		await chats.saveChat({ chatId: "chat-3", messages: [user("u", "hi")] });
		assert.deepEqual(await chats.listChats(), [id, "chat-3", "chat_2"].sort());
		assert.equal(await chats.hasChat("chat-3"), true);
		assert.equal(await chats.deleteChat("chat-3"), true);
		assert.equal(await chats.deleteChat("chat-3"), false);
		assert.deepEqual(await chats.loadChat("chat-3"), []);
		assert.deepEqual(await chats.listChats(), [id, "chat_2"].sort());

		const memory = createChatStore("memory:ai-sdk-chats");
		await memory.saveChat({ chatId: "m1", messages: [user("u", "hi")] });
		assert.deepEqual(await memory.listChats(), ["m1"]);
		assert.equal(await memory.deleteChat("m1"), true);
		assert.deepEqual(await memory.listChats(), []);
	});

	test("create, list, delete on SQLite", { skip: SQLITE_SKIP }, async () => {
		const sqlite = createChatStore(`sqlite:${join(dir, "lifecycle.db")}`);
		await sqlite.saveChat({ chatId: "s1", messages: [user("u", "hi")] });
		assert.deepEqual(await sqlite.listChats(), ["s1"]);
		assert.equal(await sqlite.deleteChat("s1"), true);
		assert.deepEqual(await sqlite.listChats(), []);
	});

	test("chat ids that could leave their place are refused, and nothing is written", async () => {
		const location = newDir();
		const chats = createChatStore(location);
		const sqlite = createChatStore(`sqlite:${join(dir, "ids.db")}`);
		const bad = [
			"",
			"../escape",
			"a/b",
			"a\\b",
			".hidden",
			"..",
			"a.b",
			"a#b",
			"a b",
			"a:b",
			"-flag",
			"x".repeat(129),
			"é",
		];
		for (const id of bad) {
			const refused = (error: unknown) => isSessionTreeError(error, "INVALID_ARGUMENT");
			assert.throws(() => chats.locationOf(id), refused, id);
			await assert.rejects(chats.loadChat(id), refused, id);
			await assert.rejects(chats.saveChat({ chatId: id, messages: [user("u", "hi")] }), refused, id);
			await assert.rejects(chats.createChat(id), refused, id);
			await assert.rejects(chats.deleteChat(id), refused, id);
			await assert.rejects(sqlite.saveChat({ chatId: id, messages: [] }), refused, id);
		}
		await assert.rejects(chats.saveChat({ chatId: 123 as unknown as string, messages: [] }));
		assert.equal(existsSync(location), false);
		assert.equal(existsSync(join(dir, "escape.jsonl")), false);
		assert.throws(
			() => createChatStore("sqlite:/tmp/x.db#one"),
			(error) => isSessionTreeError(error, "INVALID_ARGUMENT"),
		);
		// The longest id is fine.
		await chats.saveChat({ chatId: "x".repeat(128), messages: [user("u", "hi")] });
	});

	test("messages that cannot be stored are refused before anything is written", async () => {
		const chats = createChatStore(newDir());
		const cases: Array<[unknown, RegExp]> = [
			["not a list", /array/],
			[[{ role: "user", parts: [] }], /no id/],
			[[{ id: "", role: "user", parts: [] }], /no id/],
			[[user("u", "a"), user("u", "b")], /twice/],
			[[{ id: "u", role: "tool", parts: [] }], /role/],
			[[{ id: "u", role: "user" }], /parts/],
			[[{ id: "u", role: "user", parts: [{ text: "no type" }] }], /parts/],
		];
		for (const [messages, message] of cases) {
			await assert.rejects(
				chats.saveChat({ chatId: "c", messages: messages as UIMessage[] }),
				(error) => isSessionTreeError(error, "INVALID_ARGUMENT") && message.test(error.message),
			);
		}
		assert.equal(await chats.hasChat("c"), false);
		await assert.rejects(chats.listBranches("c", "u"), (error) => isSessionTreeError(error, "ENTRY_NOT_FOUND"));
		await chats.saveChat({ chatId: "c", messages: [user("u", "hi")] });
		await assert.rejects(chats.listBranches("c", "nope"), (error) => isSessionTreeError(error, "ENTRY_NOT_FOUND"));
		await assert.rejects(chats.switchBranch("c", "nope"), (error) => isSessionTreeError(error, "ENTRY_NOT_FOUND"));
	});
});

// ---- packaging and the example --------------------------------------------------------------

describe("packaging", () => {
	test("the adapter imports only types from ai, and the main entry point does not import the adapter", () => {
		const compiled = new URL("../../src/", import.meta.url);
		for (const file of [
			"adapters/ai-sdk.js",
			"adapters/ai-sdk-messages.js",
			"adapters/ai-sdk-save.js",
			"adapters/ai-sdk-tree.js",
			"adapters/common.js",
		]) {
			const text = readFileSync(new URL(file, compiled), "utf8");
			assert.doesNotMatch(text, /from\s+["']ai["']|import\(\s*["']ai["']\s*\)/, file);
		}
		assert.doesNotMatch(readFileSync(new URL("index.js", compiled), "utf8"), /adapters\//);
	});

	test("examples/ai-sdk.mjs runs with the mock model and leaves a session the CLI opens", async () => {
		const chats = join(dir, "example");
		const result = await runExample("ai-sdk.mjs", [chats]);
		assert.equal(result.code, 0, result.stderr);
		for (const line of [
			'  assistant: (3) An answer to "And a B+ tree?"',
			"  user: What is a trie?",
			'  assistant: (5) An answer to "What is a trie?"',
			"The first question: 2/2; its answer: 2/2",
			"Switched back to the first version:",
		]) {
			assert.ok(result.stdout.includes(line), `${line}\n${result.stdout}`);
		}
		const [file] = readdirSync(chats);
		assert.match(result.stdout, /The session keeps 3 branches: /);
		const tree = await cli(["tree", join(chats, file as string)]);
		assert.equal(tree.code, 0, tree.stderr);
		assert.match(tree.stdout, /user: What is a trie\?/);
	});
});
