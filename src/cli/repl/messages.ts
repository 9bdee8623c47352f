/** The messages the REPL's `send` appends, built as an agent would have written them. */

import { emptyUsage } from "../../core/entries.js";
import {
	type AssistantMessage,
	isAssistantMessage,
	type SessionEntry,
	type ToolResultMessage,
	type UserMessage,
} from "../../core/types.js";
import { ReplError } from "./state.js";

/** The roles `send` knows, in the order `help` lists them. */
export const SEND_ROLES = ["user", "assistant", "toolResult", "custom"] as const;

/** A role `send` knows. */
export type SendRole = (typeof SEND_ROLES)[number];

/** The role named by `send`'s first argument (case-insensitive; `tool` for toolResult). */
export function parseRole(word: string): SendRole {
	const lower = word.toLowerCase();
	if (lower === "tool" || lower === "toolresult") return "toolResult";
	for (const role of SEND_ROLES) if (role.toLowerCase() === lower) return role;
	throw new ReplError(`unknown role ${JSON.stringify(word)}: use ${SEND_ROLES.join(", ")}`);
}

/** A user message holding `text`. */
export function userMessage(text: string, timestamp = Date.now()): UserMessage {
	return { role: "user", content: text, timestamp };
}

/** An assistant reply holding `text`, from a made-up model `session-tree/repl` that cost nothing. */
export function assistantMessage(text: string, timestamp = Date.now()): AssistantMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		provider: "session-tree",
		model: "repl",
		api: "manual",
		stopReason: "stop",
		usage: emptyUsage(),
		timestamp,
	};
}

/**
 * A tool result answering the first tool call on the path that has no result yet (as an agent
 * would), or a stand-alone one (tool `repl`) when there is none.
 */
export function toolResultMessage(
	path: readonly SessionEntry[],
	text: string,
	timestamp = Date.now(),
): ToolResultMessage {
	const answered = new Set<string>();
	let call: { id: string; name: string } | undefined;
	for (let i = path.length - 1; i >= 0 && !call; i--) {
		const entry = path[i];
		if (entry?.type !== "message") continue;
		const { message } = entry;
		if (message.role === "toolResult" && typeof message.toolCallId === "string") answered.add(message.toolCallId);
		if (message.role === "user") break;
		if (isAssistantMessage(message) && Array.isArray(message.content)) {
			for (const block of message.content) {
				if (block?.type === "toolCall" && typeof block.id === "string" && !answered.has(block.id)) {
					call = { id: block.id, name: typeof block.name === "string" ? block.name : "repl" };
					break;
				}
			}
			break;
		}
	}
	return {
		role: "toolResult",
		toolCallId: call?.id ?? "repl",
		toolName: call?.name ?? "repl",
		content: [{ type: "text", text }],
		isError: false,
		timestamp,
	};
}
