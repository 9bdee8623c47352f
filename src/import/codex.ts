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
 *   state), except a `user_message` that is the only record of its prompt (Codex Desktop, the
 *   VS Code extension, older CLIs): a user message (decided per prompt, codex-prompts.ts). A
 *   `token_count` whose totals moved gives its `last_token_usage` to the assistant message it
 *   follows, when one was made since the previous such count (repeated snapshots, which Codex
 *   writes often, are not counted again). The model comes from `turn_context`, else from
 *   `session_meta` or an event that names one; none named: no model change, and assistant
 *   messages say `unknown`.
 * - A provider's order: each tool output right after the message with its call. Messages Codex
 *   records while a tool runs (approval notes) wait for the output; an output whose call is
 *   not in the file is a custom entry `codex:orphan_output`, as Codex leaves it out of requests.
 * - Lenient: a line that breaks the format is a custom entry (`codex:invalid`, or
 *   `codex:invalid_line` for one that is not JSON) and a report; the rest is imported.
 * - What pi has no field for stays on the entry as `source` (`format: "codex"`, each item's
 *   line and its fields that are not mapped); custom entries hold their line as `data`.
 * - `compacted` → a compaction entry. With `replacement_history` (what Codex sends from then
 *   on) the replacement items become entries just before the compaction and `firstKeptEntryId`
 *   names the first of them, so pi's rule sends the summary, then exactly those items, then
 *   what follows. Without it (older files) nothing is kept: `firstKeptEntryId` is the
 *   compaction's own id, and the summary is `message`.
 */

import { customEntry, messageEntry, modelChangeEntry, thinkingLevelChangeEntry } from "../core/entries.js";
import { isSessionTreeError } from "../core/errors.js";
import type { CompactionEntry, SessionHeader, UserMessage } from "../core/types.js";
import { CURRENT_SESSION_VERSION } from "../core/types.js";
import { CODEX_FORMAT, CodexEntries, type ItemMeta, type Origin, withItems } from "./codex-entries.js";
import { isTurnStart, thinkingLevel } from "./codex-items.js";
import { eventPromptContent, promptOnlyEvents } from "./codex-prompts.js";
import { isJson, type Json, omit, usageFromOpenAI, uuidFromName, withSource } from "./common.js";
import { baseName, fieldError, type InvalidLine, type JsonLine, lineTimestamp, readJsonLines } from "./jsonl.js";
import type { ImportedSession, Importer, ImportSource } from "./types.js";

/** The sessions in one Codex rollout: one, or none for a file without lines. */
export const importCodex: Importer = (source) => new CodexImport(source).run();

class CodexImport extends CodexEntries {
	/** The line of a legacy layout's bare {id, timestamp} header. */
	private legacyHeader = 0;
	constructor(source: ImportSource) {
		super(source);
	}

	run(): ImportedSession[] {
		const { lines, skipped, invalid } = readJsonLines(this.source);
		this.skipped.push(...skipped);
		if (lines.length === 0 && invalid.length === 0) return [];
		const header = this.header(lines);
		this.seed = header.id;
		this.lastTimestamp = header.timestamp;
		this.promptEvents = promptOnlyEvents(lines);
		// Lines a lenient read could not parse are kept, in file order, as custom entries.
		const pending = [...invalid];
		for (const line of lines) {
			while (pending.length > 0 && (pending[0] as InvalidLine).n < line.n)
				this.invalidLine(pending.shift() as InvalidLine);
			this.guarded(line);
		}
		for (const rest of pending) this.invalidLine(rest);
		this.flush();
		return [{ format: "codex", header, records: this.records, leafId: this.tail, skipped: this.skipped }];
	}

	/**
	 * One line; with `lenient`, a line that breaks the format (a missing field, a payload that
	 * is no object, …) is kept as a custom entry `codex:invalid` holding the line, and reported.
	 * Every check of a line comes before its first entry is appended, so nothing is half done.
	 */
	private guarded(line: JsonLine): void {
		if (!this.source.lenient) {
			this.line(line);
			return;
		}
		try {
			this.line(line);
		} catch (error) {
			if (!isSessionTreeError(error) || error.line !== line.n) throw error;
			this.report(line.n, error);
			this.group = undefined;
			const origin = { line, seed: `${this.seed}:${line.n}`, timestamp: this.lastTimestamp };
			this.custom(origin, "codex:invalid", line.record);
		}
	}

	private invalidLine(line: InvalidLine): void {
		this.group = undefined;
		const id = this.ids.id(`${this.seed}:${line.n}`);
		const data = { line: line.n, text: line.text, reason: line.reason };
		this.append(customEntry({ id, parentId: null, timestamp: this.lastTimestamp }, "codex:invalid_line", data));
	}

	/** A line's timestamp; with `lenient`, one that is not a date is reported and the previous one used. */
	private timestampOf(line: JsonLine, value: unknown, field: string): string | undefined {
		if (!this.source.lenient) return lineTimestamp(this.source, line, value, field);
		try {
			return lineTimestamp(this.source, line, value, field);
		} catch (error) {
			if (!isSessionTreeError(error)) throw error;
			this.report(line.n, error, "the previous line's time is used");
			return undefined;
		}
	}

	private header(lines: readonly JsonLine[]): SessionHeader {
		const lenient = this.source.lenient === true;
		// A lenient import takes the first session_meta line wherever it is (a damaged first line).
		const first = (lenient ? lines.find((l) => l.record.type === "session_meta") : undefined) ?? lines[0];
		const r = first?.record ?? {};
		const n = first?.n ?? 1;
		let id: unknown;
		let timestamp: string | undefined;
		let cwd: unknown;
		let parent: unknown;
		const problem = (field: string, message: string): void => {
			const error = fieldError(this.source, n, field, message);
			if (!lenient) throw error;
			this.report(n, error, "the session id is made from the file name");
		};
		if (r.type === "session_meta") {
			const meta = isJson(r.payload) ? r.payload : {};
			if (!isJson(r.payload)) problem("payload", "session_meta needs an object");
			else {
				// Newer rollouts may also (or only) carry `session_id` (the session a thread belongs to).
				id = [meta.id, meta.session_id].find((v): v is string => typeof v === "string" && v !== "");
				if (id === undefined) problem("payload.id", "missing or empty");
			}
			if (first) {
				timestamp =
					this.timestampOf(first, meta.timestamp, "payload.timestamp") ??
					this.timestampOf(first, r.timestamp, "timestamp");
			}
			cwd = meta.cwd;
			parent = meta.forked_from_id;
			if (typeof meta.model_provider === "string" && meta.model_provider !== "") this.provider = meta.model_provider;
		} else if (first && r.type === undefined && r.payload === undefined && typeof r.id === "string") {
			// The legacy layout: a bare {id, timestamp} header, then bare items.
			this.legacy = true;
			this.legacyHeader = first.n;
			id = r.id;
			timestamp = this.timestampOf(first, r.timestamp, "timestamp");
		} else {
			problem(
				"type",
				"not a Codex rollout: the first line is neither `session_meta` nor a legacy {id, timestamp} header",
			);
		}
		const header: SessionHeader = {
			type: "session",
			version: CURRENT_SESSION_VERSION,
			id: typeof id === "string" ? id : this.idFromName(),
			timestamp: timestamp ?? new Date(0).toISOString(),
			cwd: typeof cwd === "string" ? cwd : "",
		};
		if (typeof parent === "string" && parent !== "") header.parentSession = parent;
		return header;
	}

	/** The session id a rollout's name holds (`rollout-<time>-<uuid>.jsonl`), else one derived from the name. */
	private idFromName(): string {
		const name = baseName(this.source.name);
		const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.exec(name);
		return uuid ? uuid[0] : uuidFromName(`codex:${name}`);
	}

	private line(line: JsonLine): void {
		const r = line.record;
		const timestamp = this.timestampOf(line, r.timestamp, "timestamp") ?? this.lastTimestamp;
		this.lastTimestamp = timestamp;
		const origin: Origin = { line, seed: `${this.seed}:${line.n}`, timestamp };
		if (this.legacy) {
			if (line.n === this.legacyHeader) {
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
				// Newer rollouts may name the model here; a turn_context names it otherwise.
				this.modelNamed(p.model, origin);
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

	/** A model the file names (a non-empty string): a model change when it is not the current one. */
	private modelNamed(model: unknown, origin: Origin): void {
		if (typeof model !== "string" || model === "" || model === this.model) return;
		this.model = model;
		const stamp = { id: this.ids.id(`${origin.seed}:model`), parentId: null, timestamp: origin.timestamp };
		this.append(modelChangeEntry(stamp, this.provider, model));
	}

	private turnContext(p: Json, r: Json, origin: Origin): void {
		this.group = undefined;
		// Written before each request: the calls before it are answered or never will be.
		this.flush();
		this.custom(origin, "codex:turn_context", r);
		const stamp = { parentId: null, timestamp: origin.timestamp };
		this.modelNamed(p.model, origin);
		const level = thinkingLevel(p.effort);
		if (level !== undefined && level !== this.thinking) {
			this.thinking = level;
			this.append(thinkingLevelChangeEntry({ id: this.ids.id(`${origin.seed}:thinking`), ...stamp }, level));
		}
	}

	private event(p: Json, r: Json, origin: Origin): void {
		const type = typeof p.type === "string" ? p.type : "event_msg";
		if (type === "user_message" && this.promptEvents.has(origin.line.n)) {
			this.eventPrompt(p, origin);
			return;
		}
		if (type === "token_count") this.tokenCount(p);
		// A turn that starts or ends: calls still open are never answered (see appendContext).
		if (["task_started", "turn_started", "task_complete", "turn_complete", "turn_aborted"].includes(type)) this.flush();
		if (type === "thread_rolled_back") {
			const turns = p.num_turns;
			if (typeof turns !== "number" || !Number.isInteger(turns) || turns < 0) {
				throw fieldError(this.source, origin.line.n, "payload.num_turns", "not a non-negative integer");
			}
			this.rollback(turns);
		}
		this.custom(origin, `codex:${type}`, r);
		// An event that names the model (`session_configured` and the like) when no turn_context does.
		if (type !== "user_message") this.modelNamed(p.model, origin);
	}

	/** A prompt recorded only as a `user_message` event (see codex-prompts.ts): a user message. */
	private eventPrompt(p: Json, origin: Origin): void {
		this.group = undefined;
		const { content, unmapped } = eventPromptContent(p);
		const stamp = { id: this.ids.id(origin.seed), parentId: null, timestamp: origin.timestamp };
		const meta: ItemMeta = { line: origin.line.n, rest: omit(p, ["message", "images", "local_images"]) };
		if (unmapped.length > 0) meta.unmapped = unmapped;
		const message: UserMessage = { role: "user", content, timestamp: Date.parse(origin.timestamp) };
		const entry = this.appendContext(withItems(messageEntry(stamp, message), [meta]));
		const text = typeof p.message === "string" ? p.message : "";
		const injected = (typeof p.kind === "string" && p.kind !== "plain") || !isTurnStart([{ text }]);
		if (!injected) this.turnStarts.add(entry.id);
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
		this.flush();
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
		this.flush();
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
			// Checked first, so that a strict import fails before the line has any entry.
			if (!this.source.lenient) {
				for (const [index, item] of history.entries()) this.checkReplacement(item, index, origin);
			}
			history.forEach((item, index) => {
				const before = this.records.length;
				const at: Origin = { ...origin, seed: `${origin.seed}:r${index}`, replacement: index };
				try {
					this.checkReplacement(item, index, origin);
					this.item(item as Json, at, `payload.replacement_history[${index}].`);
				} catch (error) {
					// Lenient only (strict failed above): the item is kept as a custom entry.
					if (!isSessionTreeError(error) || error.line !== origin.line.n) throw error;
					this.report(origin.line.n, error);
					this.group = undefined;
					this.custom(at, "codex:response_item", { item, replacement: index, invalid: true });
				}
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

	/** Throws for a replacement item that is not an item (no object, or no `type`). */
	private checkReplacement(item: unknown, index: number, origin: Origin): void {
		const at = `payload.replacement_history[${index}]`;
		if (!isJson(item)) throw fieldError(this.source, origin.line.n, at, "not an object");
		if (typeof item.type !== "string")
			throw fieldError(this.source, origin.line.n, `${at}.type`, "missing or not a string");
	}
}
