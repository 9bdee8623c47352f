/**
 * The entries of a Codex import as they are built (used by `codex.ts`, which reads the lines):
 * the state a rollout's lines share (the tail, the model, the assistant message being built,
 * the tool calls seen) and the mapping of one ResponseItem to entries (docs/import.md, "Codex").
 */

import { customEntry, customMessageEntry, emptyUsage, messageEntry } from "../core/entries.js";
import type { AssistantMessage, SessionEntry, ToolCall, ToolResultMessage, UserMessage } from "../core/types.js";
import {
	callArguments,
	contentItem,
	contentItems,
	isTurnStart,
	OUTPUT_ITEMS,
	OUTPUT_RESULT_ITEMS,
	reasoningBlock,
	toolCallBlock,
	toolOutput,
} from "./codex-items.js";
import {
	DerivedIds,
	isJson,
	type Json,
	jsonObjectOf,
	mapBlocks,
	omit,
	UNKNOWN_MODEL,
	type UnmappedBlock,
	withSource,
} from "./common.js";
import { fieldError, type JsonLine } from "./jsonl.js";
import type { ImportSkip, ImportSource } from "./types.js";

/** The `source.format` of entries made from Codex lines. */
export const CODEX_FORMAT = "codex";

/** One item as an entry's `source` keeps it (`source.items`). */
export interface ItemMeta {
	/** 1-based line number. */
	line: number;
	/** Index in the compacted line's `replacement_history`, for items taken from there. */
	replacement?: number;
	/** The item's fields that are not mapped into the message (`type`, `role`, `id`, `phase`, `status`, …). */
	rest: Json;
	unmapped?: UnmappedBlock[];
}

/** An assistant message being built from consecutive output items, and its entry's `source`. */
export interface Group {
	message: AssistantMessage;
	source: { format: typeof CODEX_FORMAT; items: ItemMeta[] };
}

/** An entry with the items it was made from as its `source`. */
export function withItems<T extends SessionEntry>(entry: T, items: ItemMeta[]): T {
	return withSource(entry, { format: CODEX_FORMAT, items });
}

/** Where an item comes from: its line, and its index in a replacement history. */
export interface Origin {
	line: JsonLine;
	seed: string;
	timestamp: string;
	replacement?: number;
}

/** The entries of one rollout being built, and the ResponseItem mapping. */
export abstract class CodexEntries {
	protected readonly source: ImportSource;
	protected readonly records: SessionEntry[] = [];
	protected readonly ids = new DerivedIds();
	protected readonly parents = new Map<string, string | null>();
	/** Entries that start a turn (real user messages): what a rollback counts. */
	protected readonly turnStarts = new Set<string>();
	/** Compaction id → its first kept entry: a rollback does not count turns before it. */
	protected readonly floors = new Map<string, string>();
	protected readonly toolNames = new Map<string, string>();
	protected seed = "";
	protected provider = "openai";
	protected model: string | undefined;
	protected thinking = "off";
	protected tail: string | null = null;
	/** Calls of the latest assistant message without their output yet. */
	protected readonly awaiting = new Set<string>();
	/** Messages that wait for those outputs (see {@link appendContext}). */
	protected deferred: SessionEntry[] = [];
	protected lastTimestamp = "";
	/** The assistant message output items are being added to. */
	protected group: Group | undefined;
	/** Assistant messages made since the last token count with new totals, and whether they got usage. */
	protected pending: Group[] = [];
	protected lastTotals: string | undefined;
	protected contextTokens = 0;
	protected legacy = false;
	protected readonly skipped: ImportSkip[] = [];
	/** Lines of `user_message` events that are the only record of their prompt (see codex-prompts.ts). */
	protected promptEvents = new Set<number>();

	constructor(source: ImportSource) {
		this.source = source;
	}

	/** Reports a problem a lenient import worked around (the error's text without the file and line). */
	protected report(line: number, error: Error, workaround = "kept as a custom entry"): void {
		const prefix = `${this.source.name}:${line}: `;
		const why = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
		this.skipped.push({ source: this.source.name, where: String(line), reason: `${why}: ${workaround}` });
	}

	protected append(entry: SessionEntry): SessionEntry {
		entry.parentId = this.tail;
		this.records.push(entry);
		this.parents.set(entry.id, this.tail);
		this.tail = entry.id;
		return entry;
	}

	/**
	 * Appends a message that reaches the model (a user, developer or agent message). While the
	 * latest assistant message has calls without their output, it waits until they are answered:
	 * Codex records some messages (an approval note, a steering prompt) while a tool runs, and a
	 * provider wants each call's result right after the message that made the call.
	 */
	protected appendContext(entry: SessionEntry): SessionEntry {
		if (this.awaiting.size === 0) return this.append(entry);
		this.deferred.push(entry);
		return entry;
	}

	/** Appends the messages that waited for tool outputs (see {@link appendContext}). */
	protected flush(): void {
		const waiting = this.deferred;
		this.deferred = [];
		this.awaiting.clear();
		for (const entry of waiting) this.append(entry);
	}

	protected custom(origin: Origin, customType: string, data: unknown): void {
		const id = this.ids.id(origin.seed);
		this.append(customEntry({ id, parentId: null, timestamp: origin.timestamp }, customType, data));
	}

	/** One ResponseItem (`prefix` names where it sits, for errors: `payload.` or `payload.replacement_history[i].`). */
	protected item(item: Json, origin: Origin, prefix: string): void {
		const n = origin.line.n;
		const type = item.type;
		if (typeof type !== "string") throw fieldError(this.source, n, `${prefix}type`, "missing or not a string");
		const ms = Date.parse(origin.timestamp);
		const meta = (keys: readonly string[], unmapped?: UnmappedBlock[]): ItemMeta => {
			const out: ItemMeta = { line: n, rest: omit(item, keys) };
			if (origin.replacement !== undefined) out.replacement = origin.replacement;
			if (unmapped && unmapped.length > 0) out.unmapped = unmapped;
			return out;
		};
		if (type === "message") {
			const role = item.role;
			if (typeof role !== "string") throw fieldError(this.source, n, `${prefix}role`, "missing or not a string");
			const content = item.content;
			if (!Array.isArray(content)) throw fieldError(this.source, n, `${prefix}content`, "not a list of content items");
			if (role === "assistant") {
				// An assistant message holds text only in pi: anything else stays in `source`.
				const { content: texts, unmapped } = mapBlocks(content, (part) => {
					const block = contentItem(part);
					return block?.type === "text" ? block : undefined;
				});
				this.addOutput(origin, texts, meta(["content"], unmapped));
				return;
			}
			this.group = undefined;
			const { content: blocks, unmapped } = contentItems(content);
			const stamp = { id: this.ids.id(origin.seed), parentId: null, timestamp: origin.timestamp };
			if (role === "user") {
				const message: UserMessage = { role: "user", content: blocks, timestamp: ms };
				const entry = this.appendContext(withItems(messageEntry(stamp, message), [meta(["content"], unmapped)]));
				if (isTurnStart(content)) this.turnStarts.add(entry.id);
			} else {
				const entry = customMessageEntry(stamp, `codex:${role}`, blocks, false);
				this.appendContext(withItems(entry, [meta(["content"], unmapped)]));
			}
			return;
		}
		if (OUTPUT_ITEMS.has(type)) {
			if (type === "reasoning") {
				this.addOutput(origin, [reasoningBlock(item)], meta(["type", "summary", "content", "encrypted_content"]));
			} else if (type === "function_call" || type === "custom_tool_call") {
				const callId = item.call_id;
				const name = item.name;
				if (typeof callId !== "string") throw fieldError(this.source, n, `${prefix}call_id`, "missing or not a string");
				if (typeof name !== "string") throw fieldError(this.source, n, `${prefix}name`, "missing or not a string");
				const args =
					type === "function_call"
						? callArguments(item.arguments)
						: { arguments: item.input === undefined ? {} : { input: item.input } };
				this.toolNames.set(callId, name);
				const mapped = type === "function_call" ? ["call_id", "name", "arguments"] : ["call_id", "name", "input"];
				this.addOutput(origin, [toolCallBlock(callId, name, args)], meta(mapped));
			} else if (type === "tool_search_call" && typeof item.call_id === "string" && item.execution !== "server") {
				// A search the client runs, answered by a tool_search_output with the same call_id.
				const args = { arguments: jsonObjectOf(item.arguments) ?? {} };
				this.toolNames.set(item.call_id, "tool_search");
				this.addOutput(origin, [toolCallBlock(item.call_id, "tool_search", args)], meta(["call_id", "arguments"]));
			} else if (type === "local_shell_call" && typeof item.call_id === "string") {
				// Answered by a local_shell_call_output with the same call_id: a call pi can pair.
				const args = { arguments: isJson(item.action) ? item.action : {} };
				this.toolNames.set(item.call_id, "local_shell");
				this.addOutput(origin, [toolCallBlock(item.call_id, "local_shell", args)], meta(["call_id", "action"]));
			} else {
				// Server-side tools (web search, …) have no block in pi: kept on the message only.
				this.addOutput(origin, [], meta([]));
			}
			return;
		}
		if (OUTPUT_RESULT_ITEMS.has(type)) {
			const callId = item.call_id;
			if (type === "tool_search_output" && typeof callId !== "string") {
				// A search the server ran: part of the response, like a web search.
				this.addOutput(origin, [], meta([]));
				return;
			}
			if (typeof callId !== "string") throw fieldError(this.source, n, `${prefix}call_id`, "missing or not a string");
			this.group = undefined;
			const name = this.toolNames.get(callId);
			if (name === undefined) {
				// No call of this id came before: Codex leaves such an output out of what it sends
				// (`remove_orphan_outputs`), and a provider refuses a result without its call.
				this.custom(
					origin,
					"codex:orphan_output",
					origin.replacement === undefined ? item : { item, replacement: origin.replacement },
				);
				return;
			}
			const output =
				type === "tool_search_output"
					? {
							content: [{ type: "text" as const, text: JSON.stringify(item.tools ?? null) }],
							unmapped: [],
							isError: false,
						}
					: toolOutput(item.output);
			const result: ToolResultMessage = {
				role: "toolResult",
				toolCallId: callId,
				toolName: name,
				content: output.content,
				isError: output.isError,
				timestamp: ms,
			};
			const stamp = { id: this.ids.id(origin.seed), parentId: null, timestamp: origin.timestamp };
			// The shell envelope's raw text stays in `source` (its `rest`): the content holds its output only.
			const mapped =
				type === "tool_search_output" ? ["call_id", "tools"] : output.envelope ? ["call_id"] : ["call_id", "output"];
			this.append(withItems(messageEntry(stamp, result), [meta(mapped, output.unmapped)]));
			this.awaiting.delete(callId);
			if (this.awaiting.size === 0) this.flush();
			return;
		}
		if (type === "agent_message" && Array.isArray(item.content)) {
			// A message between agents (multi-agent threads): Codex sends it to the model as input.
			this.group = undefined;
			const { content: blocks, unmapped } = contentItems(item.content);
			const stamp = { id: this.ids.id(origin.seed), parentId: null, timestamp: origin.timestamp };
			this.appendContext(
				withItems(customMessageEntry(stamp, "codex:agent_message", blocks, true), [meta(["content"], unmapped)]),
			);
			return;
		}
		this.custom(
			origin,
			"codex:response_item",
			origin.replacement === undefined ? item : { item, replacement: origin.replacement },
		);
	}

	/** Adds an output item's blocks to the assistant message being built, or starts one. */
	protected addOutput(origin: Origin, blocks: AssistantMessage["content"], meta: ItemMeta): void {
		let group = this.group;
		if (!group) {
			const message: AssistantMessage = {
				role: "assistant",
				content: [],
				api: "openai-responses",
				provider: this.provider,
				model: this.model ?? UNKNOWN_MODEL,
				usage: emptyUsage(),
				stopReason: "stop",
				timestamp: Date.parse(origin.timestamp),
			};
			const stamp = { id: this.ids.id(origin.seed), parentId: null, timestamp: origin.timestamp };
			group = { message, source: { format: CODEX_FORMAT, items: [] } };
			// A new response: calls of the previous one left without output stay so (pi, like
			// Codex, answers them as aborted when it sends the context).
			this.flush();
			this.append(withSource(messageEntry(stamp, message), group.source));
			this.group = group;
			if (origin.replacement === undefined) this.pending.push(group);
		}
		const message = group.message;
		message.content.push(...blocks);
		for (const block of blocks) if (block.type === "toolCall") this.awaiting.add(block.id);
		group.source.items.push(meta);
		message.stopReason = message.content.some((b): b is ToolCall => b.type === "toolCall") ? "toolUse" : "stop";
	}
}
