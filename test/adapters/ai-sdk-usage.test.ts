/**
 * `session-tree/ai-sdk`: the usage of an answer, from its metadata (an AI SDK
 * `LanguageModelUsage`, as `streamText`'s `finish` part gives it to `messageMetadata`), on pi's
 * assistant message. The expected records are worked out by hand from the field definitions of
 * `LanguageModelUsage` (ai 6) and pi's `Usage` (`input` counts the uncached input tokens).
 * test/adapters/ai-sdk-next.test.ts checks the same through a real route and stream.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import type { UIMessage } from "ai";
import { piMessagesOf, usageOf } from "../../src/adapters/ai-sdk-messages.js";
import type { AgentMessage } from "../../src/core/types.js";

const names = { provider: "openai", model: "gpt-5-mini" };
const zeroCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
const usages = (messages: AgentMessage[]) =>
	messages.filter((message) => message.role === "assistant").map((message) => message.usage);

test("a LanguageModelUsage with details maps field by field", () => {
	const usage = {
		inputTokens: 1200,
		inputTokenDetails: { noCacheTokens: 200, cacheReadTokens: 900, cacheWriteTokens: 100 },
		outputTokens: 50,
		outputTokenDetails: { textTokens: 30, reasoningTokens: 20 },
		totalTokens: 1250,
	};
	assert.deepEqual(usageOf({ usage }), {
		input: 200,
		output: 50,
		cacheRead: 900,
		cacheWrite: 100,
		totalTokens: 1250,
		cost: zeroCost,
	});
	// `totalUsage` is read as well (the name of the finish part's field).
	assert.deepEqual(usageOf({ totalUsage: usage }), usageOf({ usage }));
});

test("without noCacheTokens, the uncached input is the input less the cache reads and writes; a missing total is the sum", () => {
	assert.deepEqual(usageOf({ usage: { inputTokens: 100, cachedInputTokens: 60, outputTokens: 5 } }), {
		input: 40,
		output: 5,
		cacheRead: 60,
		cacheWrite: 0,
		totalTokens: 105,
		cost: zeroCost,
	});
});

test("metadata without usage, or usage that is not numbers, gives none", () => {
	assert.equal(usageOf(undefined), undefined);
	assert.equal(usageOf({ model: "x" }), undefined);
	assert.equal(usageOf({ usage: 42 }), undefined);
	assert.deepEqual(usageOf({ usage: { inputTokens: "many", outputTokens: -3 } }), {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: zeroCost,
	});
});

test("an answer of two steps keeps its whole usage on the last step; an answer without usage stays at zero", () => {
	const answer: UIMessage = {
		id: "a1",
		role: "assistant",
		metadata: { usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 } },
		parts: [
			{ type: "step-start" },
			{ type: "tool-clock", toolCallId: "c1", state: "output-available", input: {}, output: "noon" },
			{ type: "step-start" },
			{ type: "text", text: "It is noon." },
		],
	};
	const stored = usages(piMessagesOf(answer, 0, names));
	assert.equal(stored.length, 2);
	assert.deepEqual(stored[0], { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: zeroCost });
	assert.deepEqual(stored[1], { input: 10, output: 4, cacheRead: 0, cacheWrite: 0, totalTokens: 14, cost: zeroCost });
	const plain = usages(piMessagesOf({ ...answer, metadata: undefined }, 0, names));
	assert.ok(plain.every((usage) => (usage as { totalTokens: number }).totalTokens === 0));
});
