/** Agent messages for tests that drive a session and compare with pi. */

import type { AgentMessage } from "../../src/index.js";

/** A user message with plain text. */
export function userMessage(text: string, timestamp: number): AgentMessage {
	return { role: "user", content: text, timestamp };
}

/** An assistant message with one text block, from anthropic's `model`. */
export function assistantMessage(text: string, timestamp: number, model = "claude-sonnet-4-5"): AgentMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model,
		usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
		stopReason: "stop",
		timestamp,
	};
}
