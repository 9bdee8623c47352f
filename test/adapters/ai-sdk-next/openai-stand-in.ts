/**
 * The stand-in for `@ai-sdk/openai` in test/adapters/ai-sdk-next.test.ts: no real LLM is
 * reachable here, so the example's `openai(modelId)` gives the AI SDK's own test model
 * (`MockLanguageModelV3` from `ai/test`). Everything else the example runs is real.
 *
 * Answer number N (1, 2, …) is `(N) An answer to "QUESTION"` with usage `usageOfCall(N)`,
 * distinct per answer so that the test can tell which answer's usage a message holds.
 */

import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";

/** The usage the model reports for its Nth answer (the provider's shape, before the SDK sums it). */
export function usageOfCall(n: number) {
	return {
		inputTokens: { total: 120 + n, noCache: 100 + n, cacheRead: 20, cacheWrite: 0 },
		outputTokens: { total: 7 + n, text: 7 + n, reasoning: 0 },
	};
}

/** How many answers the model has given. */
export const calls = { count: 0 };

/** `openai(modelId)` as the provider package has it, returning the test model. */
export function openai(modelId: string): MockLanguageModelV3 {
	return new MockLanguageModelV3({
		provider: "openai",
		modelId,
		doStream: async ({ prompt }) => {
			const question = prompt
				.filter((message) => message.role === "user")
				.at(-1)
				?.content.map((part) => (part.type === "text" ? part.text : ""))
				.join("");
			const n = ++calls.count;
			const parts: LanguageModelV3StreamPart[] = [
				{ type: "stream-start", warnings: [] },
				{ type: "text-start", id: "t" },
				{ type: "text-delta", id: "t", delta: `(${n}) An answer to "${question}"` },
				{ type: "text-end", id: "t" },
				{ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usageOfCall(n) },
			];
			return { stream: convertArrayToReadableStream(parts) };
		},
	});
}
