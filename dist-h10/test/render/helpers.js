/** Sessions with readable ids for the renderer tests. */
import { Session } from "../../src/session.js";
/** An in-memory session whose ids are 00000001, 00000002, ... and whose clock ticks a second per call. */
export async function memorySession() {
    let t = Date.parse("2026-01-01T00:00:00.000Z");
    let n = 0;
    return Session.inMemory({
        cwd: "/x",
        now: () => {
            t += 1000;
            return new Date(t);
        },
        random: (length) => {
            const bytes = new Uint8Array(length);
            if (length !== 4)
                return globalThis.crypto.getRandomValues(bytes);
            n++;
            new DataView(bytes.buffer).setUint32(0, n);
            return bytes;
        },
    });
}
/** Appends a user or assistant message with text. */
export async function say(s, role, text) {
    return s.appendMessage(role === "user"
        ? { role, content: text, timestamp: 1 }
        : { role, content: [{ type: "text", text }], provider: "anthropic", model: "m", timestamp: 1 });
}
/** Appends an assistant message that only calls a tool, and its result. */
export async function toolRound(s, tool, args, output) {
    const call = await s.appendMessage({
        role: "assistant",
        content: [{ type: "toolCall", id: `call-${tool}`, name: tool, arguments: args }],
        provider: "anthropic",
        model: "m",
        stopReason: "toolUse",
        timestamp: 1,
    });
    const result = await s.appendMessage({
        role: "toolResult",
        toolCallId: `call-${tool}`,
        toolName: tool,
        content: [{ type: "text", text: output }],
        isError: false,
        timestamp: 1,
    });
    return [call, result];
}
//# sourceMappingURL=helpers.js.map