/**
 * Codex rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<ts>-<id>.jsonl`) as pi sessions: one
 * session per file. Every line is kept. The decisions (docs/import.md, "Codex"):
 *
 * - Ids: `derivedEntryId(sessionId + ":" + line)` (and `:model`, `:thinking`, `:r<i>` for the
 *   further entries one line gives); positions are stable in an append-only file.
 * - Tree: linear (each entry's parent is the previous entry), except after `thread_rolled_back`,
 *   which moves the end back before the N-th last turn (a real user message, as Codex counts
 *   turns) and continues from there; the rolled-back turns stay as a side branch. Leaf: the
 *   last entry.
 * - What reaches the model is what Codex sends: every `response_item`. User messages are user
 *   messages (the injected AGENTS.md and environment context too), developer and system
 *   messages are custom messages (`codex:developer`, shown to pi's model as user text), and
 *   consecutive output items (reasoning, assistant messages, function and custom tool calls,
 *   web searches) form one assistant message, as one API response does. Outputs are tool
 *   results, matched to their call by `call_id`. The session's base instructions (the system
 *   prompt) stay in the `codex:session_meta` custom entry: pi sessions carry no system prompt.
 * - `turn_context` → a `codex:turn_context` custom entry, plus a model change when the model
 *   changes and a thinking level change when `effort` does.
 * - `event_msg` → custom entries `codex:<type>` (they duplicate response items or carry UI
 *   state); a `token_count` whose totals moved gives its `last_token_usage` to the assistant
 *   message it follows, when one was made since the previous such count (repeated snapshots,
 *   which Codex writes often, are not counted again).
 * - What pi has no field for stays on the entry as `source` (`format: "codex"`, each item's
 *   line and its fields that are not mapped); custom entries hold their line as `data`.
 * - `compacted` → a compaction entry. With `replacement_history` (what Codex sends from then
 *   on) the replacement items become entries just before the compaction and `firstKeptEntryId`
 *   names the first of them, so pi's rule sends the summary, then exactly those items, then
 *   what follows. Without it (older files) nothing is kept: `firstKeptEntryId` is the
 *   compaction's own id, and the summary is `message`.
 */

import {
	customEntry,
	customMessageEntry,
	emptyUsage,
	messageEntry,
	modelChangeEntry,
	thinkingLevelChangeEntry,
} from "../core/entries.js";
import type {
	AssistantMessage,
	CompactionEntry,
	SessionEntry,
	SessionHeader,
	ToolCall,
	ToolResultMessage,
	UserMessage,
} from "../core/types.js";
import { CURRENT_SESSION_VERSION } from "../core/types.js";
import {
	callArguments,
	contentItem,
	contentItems,
	isTurnStart,
	OUTPUT_ITEMS,
	OUTPUT_RESULT_ITEMS,
	reasoningBlock,
	thinkingLevel,
	toolCallBlock,
	toolOutput,
} from "./codex-items.js";
import {
	DerivedIds,
	isJson,
	type Json,
	mapBlocks,
	omit,
	type UnmappedBlock,
	usageFromOpenAI,
	withSource,
} from "./common.js";
import { fieldError, type JsonLine, lineTimestamp, readJsonLines } from "./jsonl.js";
import type { ImportedSession, Importer, ImportSource } from "./types.js";

/** The sessions in one Codex rollout: one, or none for a file without lines. */
export const importCodex: Importer = (source) => new CodexImport(source).run();

/** The `source.format` of entries made from Codex lines. */
export const CODEX_FORMAT = "codex";

/** One item as an entry's `source` keeps it (`source.items`). */
interface ItemMeta {
	/** 1-based line number. */
	line: number;
	/** Index in the compacted line's `replacement_history`, for items taken from there. */
	replacement?: number;
	/** The item's fields that are not mapped into the message (`type`, `role`, `id`, `phase`, `status`, …). */
	rest: Json;
	unmapped?: UnmappedBlock[];
}

/** An assistant message being built from consecutive output items, and its entry's `source`. */
interface Group {
	message: AssistantMessage;
	source: { format: typeof CODEX_FORMAT; items: ItemMeta[] };
}

/** An entry with the items it was made from as its `source`. */
function withItems<T extends SessionEntry>(entry: T, items: ItemMeta[]): T {
	return withSource(entry, { format: CODEX_FORMAT, items });
}

/** Where an item comes from: its line, and its index in a replacement history. */
interface Origin {
	line: JsonLine;
	seed: string;
	timestamp: string;
	replacement?: number;
}

class CodexImport {
	private readonly source: ImportSource;
	private readonly records: SessionEntry[] = [];
	private readonly ids = new DerivedIds();
	private readonly parents = new Map<string, string | null>();
	/** Entries that start a turn (real user messages): what a rollback counts. */
	private readonly turnStarts = new Set<string>();
	/** Compaction id → its first kept entry: a rollback does not count turns before it. */
	private readonly floors = new Map<string, string>();
	private readonly toolNames = new Map<string, string>();
	private seed = "";
	private provider = "openai";
	private model: string | undefined;
	private thinking = "off";
	private tail: string | null = null;
	private lastTimestamp = "";
	/** The assistant message output items are being added to. */
	private group: Group | undefined;
	/** Assistant messages made since the last token count with new totals, and whether they got usage. */
	private pending: Group[] = [];
	private lastTotals: string | undefined;
	private contextTokens = 0;
	private legacy = false;

	constructor(source: ImportSource) {
		this.source = source;
	}

	run(): ImportedSession[] {
		const { lines, skipped } = readJsonLines(this.source);
		if (lines.length === 0) return [];
		const header = this.header(lines);
		this.seed = header.id;
		this.lastTimestamp = header.timestamp;
		for (const line of lines) this.line(line);
		return [{ format: "codex", header, records: this.records, leafId: this.tail, skipped }];
	}

	private header(lines: readonly JsonLine[]): SessionHeader {
		const first = lines[0];
		if (!first) throw fieldError(this.source, 1, "type", "no line");
		const r = first.record;
		let id: unknown;
		let timestamp: string | undefined;
		let cwd: unknown;
		let parent: unknown;
		if (r.type === "session_meta") {
			const meta = r.payload;
			if (!isJson(meta)) throw fieldError(this.source, first.n, "payload", "session_meta needs an object");
			id = meta.id;
			if (typeof id !== "string" || id === "") throw fieldError(this.source, first.n, "payload.id", "missing or empty");
			timestamp =
				lineTimestamp(this.source, first, meta.timestamp, "payload.timestamp") ??
				lineTimestamp(this.source, first, r.timestamp, "timestamp");
			cwd = meta.cwd;
			parent = meta.forked_from_id;
			if (typeof meta.model_provider === "string") this.provider = meta.model_provider;
		} else if (r.type === undefined && r.payload === undefined && typeof r.id === "string") {
			// The legacy layout: a bare {id, timestamp} header, then bare items.
			this.legacy = true;
			id = r.id;
			timestamp = lineTimestamp(this.source, first, r.timestamp, "timestamp");
		} else {
			throw fieldError(
				this.source,
				first.n,
				"type",
				"not a Codex rollout: the first line is neither `session_meta` nor a legacy {id, timestamp} header",
			);
		}
		const header: SessionHeader = {
			type: "session",
			version: CURRENT_SESSION_VERSION,
			id: id as string,
			timestamp: timestamp ?? new Date(0).toISOString(),
			cwd: typeof cwd === "string" ? cwd : "",
		};
		if (typeof parent === "string" && parent !== "") header.parentSession = parent;
		return header;
	}

	private append(entry: SessionEntry): SessionEntry {
		entry.parentId = this.tail;
		this.records.push(entry);
		this.parents.set(entry.id, this.tail);
		this.tail = entry.id;
		return entry;
	}

	private custom(origin: Origin, customType: string, data: unknown): void {
		const id = this.ids.id(origin.seed);
		this.append(customEntry({ id, parentId: null, timestamp: origin.timestamp }, customType, data));
	}

	private line(line: JsonLine): void {
		const r = line.record;
		const timestamp = lineTimestamp(this.source, line, r.timestamp, "timestamp") ?? this.lastTimestamp;
		this.lastTimestamp = timestamp;
		const origin: Origin = { line, seed: `${this.seed}:${line.n}`, timestamp };
		if (this.legacy) {
			if (this.records.length === 0) {
				this.custom(origin, "codex:session_meta", r);
			} else if (typeof r.type === "string" && r.payload === undefined) {
				this.item(r, origin, "");
			} else {
				this.custom(origin, "codex:legacy", r);
			}
			return;
		}
		const type = r.type;
		if (typeof type !== "string") throw fieldError(this.source, line.n, "type", "missing or not a string");
		const payload = r.payload;
		const known = ["session_meta", "turn_context", "response_item", "event_msg", "compacted"];
		if (known.includes(type) && !isJson(payload)) {
			throw fieldError(this.source, line.n, "payload", `a ${type} line needs an object`);
		}
		const p = payload as Json;
		switch (type) {
			case "session_meta":
				this.custom(origin, "codex:session_meta", r);
				return;
			case "turn_context":
				this.turnContext(p, r, origin);
				return;
			case "response_item":
				this.item(p, origin, "payload.");
				return;
			case "event_msg":
				this.event(p, r, origin);
				return;
			case "compacted":
				this.compacted(p, r, origin);
				return;
			default:
				this.custom(origin, `codex:${type}`, r);
		}
	}

	private turnContext(p: Json, r: Json, origin: Origin): void {
		this.group = undefined;
		this.custom(origin, "codex:turn_context", r);
		const stamp = { parentId: null, timestamp: origin.timestamp };
		if (typeof p.model === "string" && p.model !== this.model) {
			this.model = p.model;
			this.append(modelChangeEntry({ id: this.ids.id(`${origin.seed}:model`), ...stamp }, this.provider, p.model));
		}
		const level = thinkingLevel(p.effort);
		if (level !== undefined && level !== this.thinking) {
			this.thinking = level;
			this.append(thinkingLevelChangeEntry({ id: this.ids.id(`${origin.seed}:thinking`), ...stamp }, level));
		}
	}

	/** One ResponseItem (`prefix` names where it sits, for errors: `payload.` or `payload.replacement_history[i].`). */
	private item(item: Json, origin: Origin, prefix: string): void {
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
				const entry = this.append(withItems(messageEntry(stamp, message), [meta(["content"], unmapped)]));
				if (isTurnStart(content)) this.turnStarts.add(entry.id);
			} else {
				const entry = customMessageEntry(stamp, `codex:${role}`, blocks, false);
				this.append(withItems(entry, [meta(["content"], unmapped)]));
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
			this.group = undefined;
			const callId = item.call_id;
			if (typeof callId !== "string") throw fieldError(this.source, n, `${prefix}call_id`, "missing or not a string");
			const output = toolOutput(item.output);
			const result: ToolResultMessage = {
				role: "toolResult",
				toolCallId: callId,
				toolName: this.toolNames.get(callId) ?? "",
				content: output.content,
				isError: output.isError,
				timestamp: ms,
			};
			const stamp = { id: this.ids.id(origin.seed), parentId: null, timestamp: origin.timestamp };
			this.append(withItems(messageEntry(stamp, result), [meta(["call_id", "output"], output.unmapped)]));
			return;
		}
		this.custom(
			origin,
			"codex:response_item",
			origin.replacement === undefined ? item : { item, replacement: origin.replacement },
		);
	}

	/** Adds an output item's blocks to the assistant message being built, or starts one. */
	private addOutput(origin: Origin, blocks: AssistantMessage["content"], meta: ItemMeta): void {
		let group = this.group;
		if (!group) {
			const message: AssistantMessage = {
				role: "assistant",
				content: [],
				api: "openai-responses",
				provider: this.provider,
				model: this.model ?? "",
				usage: emptyUsage(),
				stopReason: "stop",
				timestamp: Date.parse(origin.timestamp),
			};
			const stamp = { id: this.ids.id(origin.seed), parentId: null, timestamp: origin.timestamp };
			group = { message, source: { format: CODEX_FORMAT, items: [] } };
			this.append(withSource(messageEntry(stamp, message), group.source));
			this.group = group;
			if (origin.replacement === undefined) this.pending.push(group);
		}
		const message = group.message;
		message.content.push(...blocks);
		group.source.items.push(meta);
		message.stopReason = message.content.some((b): b is ToolCall => b.type === "toolCall") ? "toolUse" : "stop";
	}

	private event(p: Json, r: Json, origin: Origin): void {
		const type = typeof p.type === "string" ? p.type : "event_msg";
		if (type === "token_count") this.tokenCount(p);
		if (type === "thread_rolled_back") {
			const turns = p.num_turns;
			if (typeof turns !== "number" || !Number.isInteger(turns) || turns < 0) {
				throw fieldError(this.source, origin.line.n, "payload.num_turns", "not a non-negative integer");
			}
			this.rollback(turns);
		}
		this.custom(origin, `codex:${type}`, r);
	}

	/**
	 * A token count whose totals moved ends an API response: its `last_token_usage` is that
	 * response's usage, given to the assistant message made since the previous such count (the
	 * latest, if several were). Repeated snapshots and counts with no message since give none.
	 */
	private tokenCount(p: Json): void {
		const info = p.info;
		if (!isJson(info) || !isJson(info.total_token_usage)) return;
		const totals = JSON.stringify(info.total_token_usage);
		if (totals === this.lastTotals) return;
		this.lastTotals = totals;
		this.group = undefined;
		const last = info.last_token_usage;
		if (!isJson(last)) return;
		this.contextTokens = typeof last.total_tokens === "number" ? last.total_tokens : this.contextTokens;
		const target = this.pending.at(-1);
		this.pending = [];
		if (target) target.message.usage = usageFromOpenAI(last);
	}

	/** Moves the end back before the `turns`-th last turn of the current path (all of them if fewer). */
	private rollback(turns: number): void {
		this.group = undefined;
		this.pending = [];
		if (turns === 0) return;
		const starts: string[] = [];
		let stopAt: string | undefined;
		for (let id = this.tail; id !== null; id = this.parents.get(id) ?? null) {
			if (this.turnStarts.has(id)) starts.push(id);
			if (id === stopAt) break;
			const floor = this.floors.get(id);
			if (floor === id) break;
			if (floor !== undefined) stopAt = floor;
		}
		const cut = starts[Math.min(turns, starts.length) - 1];
		if (cut !== undefined) this.tail = this.parents.get(cut) ?? null;
	}

	private compacted(p: Json, r: Json, origin: Origin): void {
		this.group = undefined;
		this.pending = [];
		const history = p.replacement_history;
		if (typeof p.message !== "string" && !Array.isArray(history)) {
			throw fieldError(
				this.source,
				origin.line.n,
				"payload.message",
				"a compacted line needs a summary or a replacement_history",
			);
		}
		let firstKept: string | undefined;
		if (Array.isArray(history)) {
			history.forEach((item, index) => {
				const at = `payload.replacement_history[${index}]`;
				if (!isJson(item)) throw fieldError(this.source, origin.line.n, at, "not an object");
				const before = this.records.length;
				this.item(item, { ...origin, seed: `${origin.seed}:r${index}`, replacement: index }, `${at}.`);
				if (firstKept === undefined && this.records.length > before) firstKept = this.records[before]?.id;
			});
			this.group = undefined;
		}
		const id = this.ids.id(origin.seed);
		const { replacement_history: _history, ...payload } = p;
		const source: Json = { format: CODEX_FORMAT, line: origin.line.n, record: { ...r, payload } };
		if (Array.isArray(history)) source.replacementItems = history.length;
		const entry: CompactionEntry = {
			type: "compaction",
			id,
			parentId: null,
			timestamp: origin.timestamp,
			summary: typeof p.message === "string" ? p.message : "",
			firstKeptEntryId: firstKept ?? id,
			tokensBefore: this.contextTokens,
		};
		this.append(withSource(entry, source));
		this.floors.set(id, firstKept ?? id);
	}
}
