/** Agent messages for tests that drive a session and compare with pi. */
/** A user message with plain text. */
export function userMessage(text, timestamp) {
    return { role: "user", content: text, timestamp };
}
/** An assistant message with one text block, from anthropic's `model`. */
export function assistantMessage(text, timestamp, model = "claude-sonnet-4-5") {
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
//# sourceMappingURL=messages.js.map