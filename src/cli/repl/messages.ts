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

/** The model an assistant message is stamped with: pi's `provider`, `model` and `api` fields. */
export interface MessageModel {
	readonly provider: string;
	readonly model: string;
	readonly api: string;
}

/**
 * The model of the session at the end of `path`, as pi's context names it (the last
 * model_change or assistant message), with the `api` of the last assistant message of that
 * model (a model_change does not record one). Undefined when the path sets no model, or one
 * without a provider or id (a damaged or hand-made message).
 */
export function sessionModel(path: readonly SessionEntry[]): MessageModel | undefined {
	for (let i = path.length - 1; i >= 0; i--) {
		const entry = path[i];
		let provider: unknown;
		let model: unknown;
		if (entry?.type === "model_change") {
			provider = entry.provider;
			model = entry.modelId;
		} else if (entry?.type === "message" && isAssistantMessage(entry.message)) {
			provider = entry.message.provider;
			model = entry.message.model;
		} else continue;
		if (typeof provider !== "string" || provider === "" || typeof model !== "string" || model === "") return undefined;
		return { provider, model, api: apiOf(path, i, provider, model) };
	}
	return undefined;
}

/** The `api` of the last assistant message of `provider`/`model` at or before `path[end]` ("" if none). */
function apiOf(path: readonly SessionEntry[], end: number, provider: string, model: string): string {
	for (let i = end; i >= 0; i--) {
		const entry = path[i];
		if (entry?.type !== "message" || !isAssistantMessage(entry.message)) continue;
		const { message } = entry;
		if (message.provider === provider && message.model === model && typeof message.api === "string") {
			return message.api;
		}
	}
	return "";
}

/**
 * An assistant reply holding `text`, typed by hand: stamped with the session's model when it
 * has one. pi's format requires `api`, `provider` and `model` to be strings; without a model
 * they are empty rather than a made-up name (pi then finds no such model, as for any unknown
 * one, and keeps its own). It cost nothing: its usage is zero.
 */
export function assistantMessage(text: string, model?: MessageModel, timestamp = Date.now()): AssistantMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: model?.api ?? "",
		provider: model?.provider ?? "",
		model: model?.model ?? "",
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
