/**
 * `session-tree/openai-agents`: a real Agents SDK `Runner` (`run(agent, input, { session })`)
 * against a model implemented here (canned replies, a function tool call and its result; no
 * network), on a JSONL file, SQLite, PostgreSQL (with SESSION_TREE_PG_URL) and memory. Every
 * turn is run on a `MemorySession` of the SDK too: the items the framework reads back from the
 * tree must be deep-equal to the ones it keeps in memory. Then the branching rules (pop, clear,
 * rewrites, transactions with operation ids), branch and fork, the CLI views and the example.
 */

import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import {
	Agent,
	type AgentInputItem,
	type AgentOutputItem,
	MemorySession,
	type Model,
	type ModelRequest,
	type ModelResponse,
	OutputGuardrailTripwireTriggered,
	run,
	setTracingDisabled,
	tool,
	Usage,
} from "@openai/agents";
import { z } from "zod";
import { TreeSession } from "../../src/adapters/openai-agents.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import { Session } from "../../src/session.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-schema.js";
import { cli } from "../cli/helpers.js";
import { runExample } from "../support/examples.js";
import { asJson } from "../support/fixtures.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

setTracingDisabled(true);

const dir = mkdtempSync(join(tmpdir(), "st-openai-agents-"));
after(() => {
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

let places = 0;
/** A fresh directory under the test's temporary one. */
function newDir(): string {
	const path = join(dir, `place-${++places}`);
	return path;
}

// ---- the model ------------------------------------------------------------------------------

/** The text of a user message item. */
function userText(item: AgentInputItem | undefined): string | undefined {
	if (item === undefined || !("role" in item) || item.role !== "user") return undefined;
	if (typeof item.content === "string") return item.content;
	return item.content.map((part) => (part.type === "input_text" ? part.text : "")).join("");
}

/**
 * The Agents SDK's `Model`, with canned replies: a question about the weather in a city gets a
 * `get_weather` function call, the call's result a sentence about it, anything else an answer
 * that counts the user messages the model was sent (so a test sees which history it got).
 * Ids are numbered per instance, so two instances driven alike give equal items.
 */
class CannedModel implements Model {
	readonly requests: AgentInputItem[][] = [];
	private calls = 0;

	async getResponse(request: ModelRequest): Promise<ModelResponse> {
		const input =
			typeof request.input === "string" ? [{ role: "user" as const, content: request.input }] : request.input;
		this.requests.push(structuredClone(input));
		const n = ++this.calls;
		const last = input.at(-1);
		let output: AgentOutputItem;
		const city = /weather in (\w+)/i.exec(userText(last) ?? "")?.[1];
		if (last?.type === "function_call_result") {
			output = answer(n, `Forecast: ${outputText(last.output)}.`);
		} else if (city !== undefined) {
			output = {
				type: "function_call",
				id: `fc_${n}`,
				callId: `call_${n}`,
				name: "get_weather",
				arguments: JSON.stringify({ city }),
				status: "completed",
			};
		} else {
			const users = input.filter((item) => userText(item) !== undefined).length;
			output = answer(n, `You said "${userText(last) ?? ""}" (user message ${users}).`);
		}
		return {
			usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }),
			output: [output],
			responseId: `resp_${n}`,
		};
	}

	// biome-ignore lint/correctness/useYield: the tests never stream
	async *getStreamedResponse(): AsyncIterable<never> {
		throw new Error("CannedModel does not stream");
	}
}

/** The text of a function result's output (the runner gives a tool's string as a text part). */
function outputText(output: unknown): string {
	if (typeof output === "string") return output;
	const parts = Array.isArray(output) ? output : [output];
	return parts.map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : "")).join("");
}

function answer(n: number, text: string): AgentOutputItem {
	return {
		type: "message",
		id: `msg_${n}`,
		role: "assistant",
		status: "completed",
		content: [{ type: "output_text", text }],
	};
}

const getWeather = tool({
	name: "get_weather",
	description: "The weather in a city",
	parameters: z.object({ city: z.string() }),
	execute: async ({ city }) => `sunny, 21 °C in ${city}`,
});

function weatherAgent(): { agent: Agent; model: CannedModel } {
	const model = new CannedModel();
	return {
		agent: new Agent({ name: "Forecaster", instructions: "Answer briefly.", model, tools: [getWeather] }),
		model,
	};
}

/** Items as JSON text, for searching them. */
const texts = (items: readonly AgentInputItem[]): string => JSON.stringify(items);

// ---- the scenario every store runs ------------------------------------------------------------

/**
 * Three turns (one with a function call), two pops, a new turn: the framework sees the new path,
 * the session holds both branches. Every step is mirrored on the SDK's MemorySession.
 */
async function branchingScenario(location: string): Promise<void> {
	const tree = await TreeSession.open(location, { model: "canned-1" });
	const mirror = new MemorySession();
	const live = weatherAgent();
	const reference = weatherAgent();
	const say = async (text: string): Promise<unknown> => {
		const result = await run(live.agent, text, { session: tree });
		const expected = await run(reference.agent, text, { session: mirror });
		assert.equal(result.finalOutput, expected.finalOutput);
		assert.deepEqual(await tree.getItems(), await mirror.getItems());
		return result.finalOutput;
	};

	assert.equal(await say("Hello"), 'You said "Hello" (user message 1).');
	assert.equal(await say("What is the weather in Paris?"), "Forecast: sunny, 21 °C in Paris.");
	assert.equal(await say("Thanks!"), 'You said "Thanks!" (user message 3).');
	const earlier = await tree.getItems();
	assert.equal(earlier.length, 8); // user, answer; user, call, result, answer; user, answer
	assert.deepEqual(
		earlier.map((item) => item.type),
		["message", "message", "message", "function_call", "function_call_result", "message", "message", "message"],
	);

	// Pop the last answer and the question: both stay in the tree.
	const answer3 = await tree.popItem();
	assert.deepEqual(answer3, await mirror.popItem());
	const question3 = await tree.popItem();
	assert.deepEqual(question3, await mirror.popItem());
	assert.equal(userText(question3), "Thanks!");
	assert.deepEqual(await tree.getItems(), earlier.slice(0, 6));

	assert.equal(await say("And the weather in Rome?"), "Forecast: sunny, 21 °C in Rome.");
	const later = await tree.getItems();
	assert.equal(later.length, 10);
	assert.ok(!texts(later).includes("Thanks!"), "the popped question is not on the new path");
	// The model was sent the new path: the earlier turns, not the popped ones.
	const sent = live.model.requests.at(-2) ?? [];
	assert.deepEqual(sent.slice(0, 6), earlier.slice(0, 6));
	assert.equal(userText(sent.at(-1)), "And the weather in Rome?");
	assert.ok(!texts(sent).includes("Thanks!"));

	// Both branches are in the session: two leaves, the popped items on the other one.
	const session = tree.session;
	const leaves = session.listBranches();
	assert.equal(leaves.length, 2);
	assert.ok(leaves.includes(session.getLeafId() as string));
	const otherLeaf = leaves.find((id) => id !== session.getLeafId()) as string;
	const otherPath = (await itemsAlong(session, otherLeaf)).map(({ item }) => item);
	assert.deepEqual(otherPath, earlier);
	// They fork at the answer about Paris.
	const paths = [session.getBranch(), session.getBranch(otherLeaf)];
	const forkPoint = (await tree.getItemEntries())[5]?.entryId;
	assert.equal(paths[0]?.[5]?.id, forkPoint);
	assert.equal(paths[1]?.[5]?.id, forkPoint);

	// getItems(limit): the most recent items in order.
	assert.deepEqual(await tree.getItems(3), later.slice(-3));
	assert.deepEqual(await tree.getItems(1), later.slice(-1));
	assert.deepEqual(await tree.getItems(0), []);
	assert.deepEqual(await tree.getItems(100), later);
	assert.deepEqual(await tree.getItems(3), await mirror.getItems(3));

	// A reopened session resumes on the same path.
	const id = await tree.getSessionId();
	await tree.close();
	const again = await TreeSession.open(location);
	assert.equal(await again.getSessionId(), id);
	assert.deepEqual(await again.getItems(), later);
	assert.equal(again.session.listBranches().length, 2);
	await again.close();
}

/** The items along the path to `leafId`. */
async function itemsAlong(session: Session, leafId: string): Promise<Array<{ entryId: string; item: AgentInputItem }>> {
	const copy = new TreeSession(session);
	const saved = session.getLeafId();
	await copy.branch(leafId);
	const entries = await copy.getItemEntries();
	if (saved !== null) await copy.branch(saved);
	return entries;
}

/** What `session-tree tree` and `ctx` show of the scenario's session. */
async function checkCli(location: string): Promise<void> {
	const tree = await cli(["tree", location]);
	assert.equal(tree.code, 0, tree.stderr);
	for (const text of ["Hello", "What is the weather in Paris?", "Thanks!", "And the weather in Rome?", "get_weather"]) {
		assert.ok(tree.stdout.includes(text), `tree shows ${text}:\n${tree.stdout}`);
	}
	const ctx = await cli(["ctx", location, "--json"]);
	assert.equal(ctx.code, 0, ctx.stderr);
	const context = JSON.parse(ctx.stdout) as { messages: Array<{ role: string; content: unknown }>; model: unknown };
	assert.deepEqual(
		context.messages.map((message) => message.role),
		[
			"user",
			"assistant",
			"user",
			"assistant",
			"toolResult",
			"assistant",
			"user",
			"assistant",
			"toolResult",
			"assistant",
		],
	);
	assert.ok(!ctx.stdout.includes("Thanks!"), "the context is the active path");
	assert.ok(JSON.stringify(context.messages[3]).includes('"type":"toolCall"'));
	assert.deepEqual(context.model, { provider: "openai", modelId: "canned-1" });
	const text = await cli(["ctx", location]);
	assert.equal(text.code, 0, text.stderr);
	assert.ok(text.stdout.includes("Forecast: sunny, 21 °C in Rome."), text.stdout);
}

describe("openai-agents: a Runner on every store", () => {
	test("a JSONL file", async () => {
		const file = join(newDir(), "chat.jsonl");
		await branchingScenario(file);
		await checkCli(file);
		// The file is an ordinary pi session: it opens strictly and verifies, and pi's own
		// SessionManager builds the same context from it (opened from a copy: pi may rewrite it).
		const session = await Session.open(file, { verify: true });
		assert.deepEqual(session.problems, []);
		const copy = join(dirname(file), "pi-copy.jsonl");
		copyFileSync(file, copy);
		const pi = SessionManager.open(copy, dirname(file)).buildSessionContext();
		assert.deepEqual(asJson(pi), asJson(session.buildSessionContext()));
	});

	test("SQLite (sqlite:PATH#ID)", { skip: SQLITE_SKIP }, async () => {
		const location = `sqlite:${join(dir, "agents.db")}#chat-1`;
		await branchingScenario(location);
		await checkCli(location);
		const session = await Session.open(location);
		assert.equal(session.getSessionId(), "chat-1", "the header's id is the row's name");
		await session.close();
	});

	test("memory:NAME", async () => {
		await branchingScenario("memory:openai-agents-scenario");
	});

	describe("PostgreSQL", () => {
		let server: Awaited<ReturnType<typeof postgresServer>> = { skip: "not checked yet" };
		before(async () => {
			server = await postgresServer();
		});
		test("postgres://…#ID", async (t) => {
			if ("skip" in server) return t.skip(server.skip);
			const schema = testSchema(server.url, "openai_agents");
			const location = schema.session("chat-1");
			await branchingScenario(location);
			await checkCli(location);
			const again = await TreeSession.openIn(schema.url, "chat-1");
			assert.equal((await again.getItems()).length, 10);
			await again.close();
		});
	});
});

// ---- the branching rules --------------------------------------------------------------------

const user = (text: string): AgentInputItem => ({ role: "user", content: text });
const assistant = (text: string): AgentInputItem => ({
	type: "message",
	role: "assistant",
	status: "completed",
	content: [{ type: "output_text", text }],
});

async function fresh(items: AgentInputItem[] = []): Promise<TreeSession> {
	const tree = await TreeSession.open(join(newDir(), "s.jsonl"));
	await tree.addItems(items);
	return tree;
}

/** Expect a SessionTreeError with this code. */
async function rejectsWith(promise: Promise<unknown>, code: string): Promise<void> {
	await assert.rejects(promise, (error: unknown) => isSessionTreeError(error) && error.code === code);
}

describe("openai-agents: branching rules", () => {
	test("clearSession moves the leaf before the first item; nothing is deleted", async () => {
		const tree = await fresh([user("a"), assistant("b")]);
		const entries = tree.session.getEntries().length;
		await tree.clearSession();
		assert.deepEqual(await tree.getItems(), []);
		assert.equal(await tree.popItem(), undefined);
		assert.equal(tree.session.getEntries().length, entries);
		await tree.addItems([user("c")]);
		assert.deepEqual(await tree.getItems(), [user("c")]);
		assert.equal(tree.session.listBranches().length, 2); // a new root beside the old one
		const reopened = await TreeSession.open(tree.location);
		assert.deepEqual(await reopened.getItems(), [user("c")]);
	});

	test("every kind of item reads back deep-equal; others are custom entries", async () => {
		const items: AgentInputItem[] = [
			{ role: "system", content: "Be brief." },
			{
				role: "user",
				content: [
					{ type: "input_text", text: "Look:" },
					{ type: "input_image", image: "data:image/png;base64,iVBORw0KGgo=" },
					{ type: "input_image", image: "https://example.com/cat.png", detail: "low" },
					{ type: "input_file", file: { url: "https://example.com/a.pdf" }, filename: "a.pdf" },
				],
			},
			{ type: "reasoning", id: "rs_1", content: [{ type: "input_text", text: "thinking" }], providerData: { x: 1 } },
			{ type: "hosted_tool_call", id: "ws_1", name: "web_search_call", status: "completed", providerData: { q: "x" } },
			{ type: "function_call", callId: "c1", name: "sum", arguments: '{"a":1,"b":2}', status: "completed" },
			{
				type: "function_call_result",
				callId: "c1",
				name: "sum",
				status: "completed",
				output: { type: "text", text: "3" },
			},
			{ type: "function_call", callId: "c2", name: "raw", arguments: "not json" },
			{
				type: "function_call_result",
				callId: "c2",
				name: "raw",
				status: "completed",
				output: [{ type: "input_text", text: "ok" }],
			},
			{
				type: "message",
				role: "assistant",
				status: "incomplete",
				content: [
					{ type: "output_text", text: "Partly " },
					{ type: "refusal", refusal: "no" },
				],
			},
			{ type: "compaction", encrypted_content: "opaque" } as AgentInputItem,
			{ type: "unknown_future_item", payload: [1, 2, { deep: null }] } as unknown as AgentInputItem,
		];
		const tree = await fresh(items);
		assert.deepEqual(await tree.getItems(), items);
		const reopened = await TreeSession.open(tree.location);
		assert.deepEqual(await reopened.getItems(), items);
		const kinds = reopened.session
			.getBranch()
			.map((entry) => (entry.type === "message" ? (entry.message as { role: string }).role : `${entry.type}`));
		assert.deepEqual(kinds, [
			"custom",
			"user",
			"custom",
			"custom",
			"assistant",
			"toolResult",
			"assistant",
			"toolResult",
			"assistant",
			"custom",
			"custom",
		]);
		const context = reopened.session.buildSessionContext().messages as Array<Record<string, unknown>>;
		assert.deepEqual(context[0]?.content, [
			{ type: "text", text: "Look:" },
			{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
			{ type: "text", text: "[image: https://example.com/cat.png]" },
			{ type: "text", text: "[file: a.pdf]" },
		]);
		assert.deepEqual((context[1]?.content as unknown[] | undefined)?.[0], {
			type: "toolCall",
			id: "c1",
			name: "sum",
			arguments: { a: 1, b: 2 },
		});
		assert.deepEqual((context[3]?.content as unknown[] | undefined)?.[0], {
			type: "toolCall",
			id: "c2",
			name: "raw",
			arguments: { raw: "not json" },
		});
		assert.deepEqual(context[2]?.content, [{ type: "text", text: "3" }]);
		assert.equal(context[5]?.stopReason, "length");
	});

	test("what JSON cannot hold is refused before anything is written", async () => {
		const tree = await fresh([user("a")]);
		const bad = {
			type: "function_call_result",
			callId: "c",
			name: "n",
			status: "completed",
			output: { type: "image", image: { data: new Uint8Array([1, 2]), mediaType: "image/png" } },
		} as unknown as AgentInputItem;
		await rejectsWith(tree.addItems([user("b"), bad]), "INVALID_ARGUMENT");
		assert.deepEqual(await tree.getItems(), [user("a")]);
		// Keys holding undefined are dropped, as in any JSON store.
		await tree.addItems([{ role: "user", content: "c", providerData: undefined }]);
		assert.deepEqual((await tree.getItems()).at(-1), user("c"));
	});

	test("calls run in the order they were made", async () => {
		const tree = await fresh();
		const calls = [
			tree.addItems([user("1"), assistant("2")]),
			tree.getItems(),
			tree.popItem(),
			tree.addItems([assistant("2b")]),
			tree.getItems(),
		] as const;
		const [, seen, popped, , last] = await Promise.all(calls);
		assert.deepEqual(seen, [user("1"), assistant("2")]);
		assert.deepEqual(popped, assistant("2"));
		assert.deepEqual(last, [user("1"), assistant("2b")]);
	});

	test("replaceHistoryWithCompaction branches before the first item; the history stays", async () => {
		const history = [user("a"), assistant("b"), user("c"), assistant("d")];
		const tree = await fresh(history);
		const compacted = [
			{ type: "compaction", encrypted_content: "summary" } as AgentInputItem,
			user("c"),
			assistant("d"),
		];
		await tree.replaceHistoryWithCompaction(compacted);
		assert.deepEqual(await tree.getItems(), compacted);
		assert.equal(tree.session.listBranches().length, 2);
		// Replacing with what is there already changes nothing.
		const entries = tree.session.getEntries().length;
		await tree.replaceHistoryWithCompaction(compacted);
		assert.equal(tree.session.getEntries().length, entries);
		// The uncompacted history is a sibling branch.
		const old = tree.session.listBranches().find((id) => id !== tree.session.getLeafId()) as string;
		assert.deepEqual(
			(await itemsAlong(tree.session, old)).map(({ item }) => item),
			history,
		);
	});

	test("applyHistoryMutations replaces a function call on a new branch", async () => {
		const call = { type: "function_call", callId: "c1", name: "f", arguments: "{}" } as AgentInputItem;
		const result = {
			type: "function_call_result",
			callId: "c1",
			name: "f",
			status: "completed",
			output: "x",
		} as AgentInputItem;
		const tree = await fresh([user("a"), call, result, assistant("b")]);
		const replacement = { type: "function_call", callId: "c1", name: "f", arguments: '{"fixed":true}' } as const;
		await tree.applyHistoryMutations({ mutations: [{ type: "replace_function_call", callId: "c1", replacement }] });
		assert.deepEqual(await tree.getItems(), [user("a"), replacement, result, assistant("b")]);
		assert.equal(tree.session.listBranches().length, 2);
	});

	test("history transactions: operation ids make retries no-ops", async () => {
		const tree = await fresh([user("a"), assistant("b")]);
		const append = { type: "append_items" as const, items: [user("c"), assistant("d")] };
		await tree.applyHistoryTransaction({ operationId: "op-1", transaction: append });
		await tree.applyHistoryTransaction({ operationId: "op-1", transaction: structuredClone(append) });
		assert.deepEqual(await tree.getItems(), [user("a"), assistant("b"), user("c"), assistant("d")]);
		// The same id with another transaction is refused, and changes nothing.
		await rejectsWith(
			tree.applyHistoryTransaction({ operationId: "op-1", transaction: { type: "append_items", items: [user("x")] } }),
			"INVALID_ARGUMENT",
		);
		await rejectsWith(tree.applyHistoryTransaction({ operationId: " ", transaction: append }), "INVALID_ARGUMENT");

		// replace_suffix branches before the suffix; the old suffix stays as a sibling.
		const replace = {
			type: "replace_suffix" as const,
			expectedSuffix: [user("c"), assistant("d")],
			replacement: [user("c2"), assistant("d2"), assistant("e2")],
		};
		await tree.applyHistoryTransaction({ operationId: "op-2", transaction: replace });
		const replaced = [user("a"), assistant("b"), user("c2"), assistant("d2"), assistant("e2")];
		assert.deepEqual(await tree.getItems(), replaced);
		assert.equal(tree.session.listBranches().length, 2);
		// A retry (after a lost acknowledgement) is a no-op, even though the suffix changed.
		const entries = tree.session.getEntries().length;
		await tree.applyHistoryTransaction({ operationId: "op-2", transaction: replace });
		await tree.applyHistoryTransaction({ operationId: "op-1", transaction: append });
		assert.equal(tree.session.getEntries().length, entries);
		assert.deepEqual(await tree.getItems(), replaced);
		// A suffix that does not match is refused.
		await rejectsWith(
			tree.applyHistoryTransaction({
				operationId: "op-3",
				transaction: { type: "replace_suffix", expectedSuffix: [user("c")], replacement: [] },
			}),
			"INVALID_ARGUMENT",
		);
		assert.deepEqual(await tree.getItems(), replaced);
		// A replacement that keeps the suffix's first items branches after them.
		await tree.applyHistoryTransaction({
			operationId: "op-4",
			transaction: {
				type: "replace_suffix",
				expectedSuffix: [assistant("e2")],
				replacement: [assistant("e2"), user("f")],
			},
		});
		assert.deepEqual(await tree.getItems(), [...replaced, user("f")]);
		assert.equal(tree.session.listBranches().length, 2);
		// The operations are recorded in the session and survive a reopen.
		const reopened = await TreeSession.open(tree.location);
		await reopened.applyHistoryTransaction({ operationId: "op-1", transaction: append });
		assert.deepEqual(await reopened.getItems(), [...replaced, user("f")]);
		const records = reopened.session
			.getEntries()
			.filter((entry) => entry.type === "custom" && entry.customType === "openai-agents/operation");
		assert.equal(records.length, 3);
	});

	test("a transaction cut short midway is completed by its retry", async () => {
		const tree = await fresh([user("a")]);
		const transaction = { type: "append_items" as const, items: [assistant("b"), user("c"), assistant("d")] };
		// The store fails on the second item's write.
		const original = tree.session.appendMessage.bind(tree.session);
		let writes = 0;
		tree.session.appendMessage = (message) =>
			++writes === 2 ? Promise.reject(new Error("disk full")) : original(message);
		await assert.rejects(tree.applyHistoryTransaction({ operationId: "op", transaction }), /disk full/);
		assert.deepEqual(await tree.getItems(), [user("a"), assistant("b")]);
		tree.session.appendMessage = original;
		await tree.applyHistoryTransaction({ operationId: "op", transaction });
		assert.deepEqual(await tree.getItems(), [user("a"), assistant("b"), user("c"), assistant("d")]);
		await tree.applyHistoryTransaction({ operationId: "op", transaction });
		assert.equal((await tree.getItems()).length, 4);
		// Popped items of an applied operation are not brought back by a retry.
		await tree.popItem();
		await tree.applyHistoryTransaction({ operationId: "op", transaction });
		assert.equal((await tree.getItems()).length, 3);
	});

	test("the Runner persists a blocked output with a history transaction", async () => {
		const tree = await fresh();
		const { model } = weatherAgent();
		const agent = new Agent({
			name: "Guarded",
			model,
			outputGuardrails: [
				{
					name: "no forecasts",
					execute: async ({ agentOutput }) => ({
						tripwireTriggered: String(agentOutput).includes("Forecast"),
						outputInfo: null,
					}),
				},
			],
			tools: [getWeather],
		});
		await run(agent, "Hi", { session: tree });
		await assert.rejects(
			run(agent, "What is the weather in Oslo?", { session: tree }),
			OutputGuardrailTripwireTriggered,
		);
		const items = await tree.getItems();
		assert.equal(userText(items[2]), "What is the weather in Oslo?");
		const records = tree.session
			.getEntries()
			.filter((entry) => entry.type === "custom" && entry.customType === "openai-agents/operation");
		assert.ok(records.length >= 1, "the runner used applyHistoryTransaction");
	});
});

// ---- branch, fork, places -------------------------------------------------------------------

describe("openai-agents: branch, fork and places", () => {
	test("branch(entryId) shows the path to it; the next run continues there", async () => {
		const tree = await fresh();
		const { agent } = weatherAgent();
		await run(agent, "one", { session: tree });
		await run(agent, "two", { session: tree });
		const entries = await tree.getItemEntries();
		await tree.branch(entries[1]?.entryId as string);
		assert.deepEqual(
			await tree.getItems(),
			entries.slice(0, 2).map(({ item }) => item),
		);
		const result = await run(agent, "three", { session: tree });
		assert.equal(result.finalOutput, 'You said "three" (user message 2).');
		assert.equal(tree.session.listBranches().length, 2);
	});

	for (const [label, place, skip] of [
		["a JSONL file", () => join(newDir(), "f.jsonl"), undefined],
		["SQLite", () => `sqlite:${join(dir, "forks.db")}#source`, SQLITE_SKIP],
	] as const) {
		test(`fork() copies the path into a new session in the same store: ${label}`, { skip }, async () => {
			const location = place();
			const tree = await TreeSession.open(location);
			const { agent } = weatherAgent();
			await run(agent, "What is the weather in Lima?", { session: tree });
			const copy = await tree.fork();
			assert.notEqual(await copy.getSessionId(), await tree.getSessionId());
			assert.deepEqual(await copy.getItems(), await tree.getItems());
			if (location.startsWith("sqlite:")) assert.ok(copy.location.startsWith(`sqlite:${join(dir, "forks.db")}#`));
			else assert.equal(dirname(copy.location), dirname(location));
			// A fork at an earlier item, and the copies go their own ways.
			const first = (await tree.getItemEntries())[0]?.entryId as string;
			const early = await tree.fork(first);
			assert.equal((await early.getItems()).length, 1);
			await run(agent, "Thanks", { session: copy });
			assert.equal((await copy.getItems()).length, 6);
			assert.equal((await tree.getItems()).length, 4);
			const reopened = await TreeSession.open(copy.location);
			assert.equal((await reopened.getItems()).length, 6);
		});
	}

	/** openIn creates session chat-42 in a place, and opens the same session again. */
	async function openInTwice(place: string): Promise<void> {
		const first = await TreeSession.openIn(place, "chat-42", { cwd: "/project" });
		assert.equal(await first.getSessionId(), "chat-42");
		await first.addItems([user("hello")]);
		const again = await TreeSession.openIn(place, "chat-42");
		assert.equal(again.location, first.location);
		assert.deepEqual(await again.getItems(), [user("hello")]);
	}

	test("openIn: a session id in a directory or memory", async () => {
		const sessions = newDir();
		for (const place of [sessions, "memory:"]) await openInTwice(place);
		assert.deepEqual(
			readdirSync(sessions).filter((name) => name.endsWith(".jsonl")).length,
			1,
			readdirSync(sessions).join(", "),
		);
		await rejectsWith(TreeSession.openIn(sessions, "../escape"), "INVALID_ARGUMENT");
		// A named memory space is a place of its own: the same id there is another session.
		const spaced = await TreeSession.openIn("memory:team-a", "chat-42");
		assert.equal(spaced.location, "memory:team-a/chat-42");
		assert.deepEqual(await spaced.getItems(), []);
	});

	test("openIn: a session id in a database", { skip: SQLITE_SKIP }, async () => {
		await openInTwice(`sqlite:${join(dir, "many.db")}`);
		await rejectsWith(TreeSession.openIn(`sqlite:${join(dir, "many.db")}#x`, "y"), "INVALID_ARGUMENT");
	});

	test("create() and wrapping an open session", async () => {
		const sessions = newDir();
		const created = await TreeSession.create({ dir: sessions, cwd: "/p", model: "m" });
		await created.addItems([user("x")]);
		const wrapped = new TreeSession(await Session.open(created.location));
		assert.deepEqual(await wrapped.getItems(), [user("x")]);
		assert.ok(existsSync(created.location));
	});
});

// ---- the example ----------------------------------------------------------------------------

test("examples/openai-agents.mjs runs", async () => {
	const out = newDir();
	const { code, stdout, stderr } = await runExample("openai-agents.mjs", [out]);
	assert.equal(code, 0, stderr);
	assert.match(stdout, /2 branches/);
	const files = readdirSync(out).filter((name) => name.endsWith(".jsonl"));
	assert.equal(files.length, 1);
	const session = await Session.open(join(out, files[0] as string));
	assert.equal(session.listBranches().length, 2);
});
