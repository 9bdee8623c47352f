/**
 * Claude Code transcripts (`~/.claude/projects/<dir>/<sessionId>.jsonl`) as pi sessions: one
 * session per file. Every line is kept: as a message, a compaction, a session name or a custom
 * entry holding the line. The decisions (docs/import.md, "Claude Code"):
 *
 * - Ids: `derivedEntryId(sessionId + ":" + uuid)`, or `+ ":#" + line` for lines without a uuid;
 *   ids are drawn in the order entries are made (file order, a line whose parent comes later
 *   right after its parent: claude-code-order.ts), so a grown file keeps the ids of its old lines.
 * - Tree: `uuid`/`parentUuid`. Several user or assistant children of one parent (rewinds and
 *   edits) are branches. Lines that are not conversation (progress, hook and other system lines,
 *   file-history snapshots, summaries, unknown types) are "transparent" (claude-code-links.ts):
 *   a later line that names the same parent hangs below them instead of beside them, so the
 *   pseudo-branches FORMATS.md describes (a progress line beside a tool result) do not become
 *   leaves. Lines without a uuid hang where they are in the file (below the line before them).
 *   Links are followed after reading the whole file (a parent may come later in it); a parent
 *   that is not in the file makes a root; a cycle is an error (lenient: cut and reported).
 * - Parallel tool calls: the tool results of one response hang one below the other, after its
 *   message, although each names its own call's line as parent (see `userLine`; the rule of
 *   Claude Code's own transcript reader).
 * - Lenient: a line that cannot be read as its type says is a custom entry holding the line, a
 *   bad time the previous line's, a missing `parentUuid` the line before; each is reported.
 * - One API response split over several assistant lines that share `message.id` is one
 *   assistant message at its first line (content blocks in file order, usage of the last line).
 * - Compaction: a `compact_boundary` line becomes a compaction entry below its
 *   `logicalParentUuid`; its summary is the text of the compact-summary line that follows it
 *   (the `isCompactSummary` user line, or a `summary` line with a uuid and a message), which
 *   is then kept as a custom entry so that the summary reaches the model once. Claude Code sends
 *   nothing of what came before, so `firstKeptEntryId` is the compaction's own id: pi's rule
 *   keeps the path entries from that id up to the compaction, which is none.
 * - Sidechains (subagents): kept as messages under their own `parentUuid` (null for the first
 *   line of a run: a root of its own), never on the main path, so never in the main context; the
 *   context of a sidechain leaf is what the subagent saw. The first user line of a run is linked
 *   (`source.sidechainOf`) to the Task/Agent tool call whose `input.prompt` it repeats. A file of
 *   sidechain lines only (`subagents/agent-*.jsonl`) gets a session id derived from the session
 *   id and the `agentId`, and the session id as `parentSession`.
 * - Leaf: the entry of the last line of the file that is not a sidechain line.
 * - Session name: `summary` lines are titles of the conversation ending at `leafUuid`; one whose
 *   `leafUuid` is a line of this file (before or after it) names this session (a `session_info`), as does a
 *   `custom-title` line; a summary of a conversation in another file is a custom entry.
 * - What pi has no field for stays on the entry as `source` (`format: "claude-code"`, the uuid,
 *   and each source line without its mapped content); custom entries hold their line as `data`.
 */

import { customEntry, messageEntry, sessionInfoEntry } from "../core/entries.js";
import { isSessionTreeError } from "../core/errors.js";
import type {
	AssistantMessage,
	CompactionEntry,
	MessageEntry,
	SessionEntry,
	TextContent,
	ToolCall,
	ToolResultMessage,
} from "../core/types.js";
import { anthropicUsage, assistantBlock, contentText, stopReason } from "./claude-code-content.js";
import { compactSummaryLines, transcriptHeader } from "./claude-code-header.js";
import { Links, ROOT } from "./claude-code-links.js";
import { type PlannedLine, planLines } from "./claude-code-order.js";
import { CLAUDE_CODE_FORMAT, type LineMeta, type MessageSource, userLineMessages } from "./claude-code-user.js";
import { DerivedIds, isJson, type Json, mapBlocks, withSource } from "./common.js";
import { fieldError, type JsonLine, readJsonLines } from "./jsonl.js";
import type { ImportedSession, Importer, ImportSkip, ImportSource } from "./types.js";

/** The sessions in one Claude Code transcript: one, or none for a file without lines. */
export const importClaudeCode: Importer = (source) => new ClaudeCodeImport(source).run();

export { CLAUDE_CODE_FORMAT };

/**
 * The tool results of one API response (a turn): the key of the last result line placed, and
 * the calls answered. Claude Code 2.x writes each parallel call as its own assistant line and
 * hangs each result below its own call's line; the results of one turn are chained instead.
 */
interface Turn {
	sidechain: boolean;
	tail: string | undefined;
	readonly answered: Set<string>;
}

/** An assistant message being assembled from the lines that share its `message.id`. */
interface Group {
	entryId: string;
	message: AssistantMessage;
	source: MessageSource;
	sidechain: boolean;
	stop: unknown;
	turn: Turn;
}

class ClaudeCodeImport {
	private readonly source: ImportSource;
	private readonly records: SessionEntry[] = [];
	private readonly ids = new DerivedIds();
	private readonly links = new Links();
	private readonly groups = new Map<string, Group>();
	/** Assistant line uuid → its response's turn; tool call id → the turn of the response that made it. */
	private readonly turnOfLine = new Map<string, Turn>();
	private readonly turnOfCall = new Map<string, Turn>();
	private skipped: ImportSkip[] = [];
	private uuids: ReadonlySet<string> = new Set();
	private readonly toolNames = new Map<string, string>();
	private readonly promptCalls: Array<{ prompt: string; toolCallId: string; entryId: string; linked: boolean }> = [];
	/** Compact-boundary uuid → the line carrying its summary; and the lines so consumed. */
	private carriers = new Map<string, JsonLine>();
	private readonly consumed = new Set<number>();
	private seed = "";

	constructor(source: ImportSource) {
		this.source = source;
	}

	run(): ImportedSession[] {
		const { lines, skipped } = readJsonLines(this.source);
		if (lines.length === 0) return [];
		this.skipped = skipped;
		const header = transcriptHeader(this.source, lines);
		this.seed = header.id;
		// Links are followed after reading the whole file: a parent may come later in it.
		const plan = planLines(this.source, lines, header.timestamp, skipped);
		this.uuids = plan.uuids;
		this.carriers = compactSummaryLines(lines);
		for (const planned of plan.order) this.line(planned);
		const leafId = plan.last === undefined ? null : this.links.resolve(plan.last);
		return [{ format: "claude-code", header, records: this.records, leafId, skipped }];
	}

	/**
	 * The entries of one line. Lenient, a line that cannot be read as what its type says (a field
	 * missing or of the wrong kind) is kept as a custom entry holding the line, where the line
	 * would hang, and reported; strict, that is an error naming the line and the field.
	 */
	private line(planned: PlannedLine): void {
		try {
			this.lineEntries(planned);
		} catch (error) {
			if (this.source.lenient !== true || !isSessionTreeError(error) || error.code !== "INVALID_RECORD") throw error;
			const { line, key, timestamp } = planned;
			const prefix = `${this.source.name}:${line.n}: `;
			const reason = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
			this.skipped.push({
				source: this.source.name,
				where: String(line.n),
				reason: `${reason}; kept as a custom entry`,
			});
			const entry = this.custom(line, this.ids.id(`${this.seed}:${key}`), timestamp);
			this.chain(this.parentOf(planned), [entry], key, key.startsWith("#"));
		}
	}

	/** Where a planned line hangs: its parent's attach point; a sidechain's first line is a root of its own. */
	private parentOf(planned: PlannedLine): string | null {
		if (planned.dependsOn === null && planned.line.record.isSidechain === true && !planned.key.startsWith("#")) {
			return null;
		}
		return this.links.resolve(planned.dependsOn ?? ROOT);
	}

	private lineEntries(planned: PlannedLine): void {
		const { line, key, timestamp } = planned;
		const r = line.record;
		const type = r.type;
		if (typeof type !== "string") throw fieldError(this.source, line.n, "type", "missing or not a string");
		if (r.uuid !== undefined && typeof r.uuid !== "string") {
			throw fieldError(this.source, line.n, "uuid", "not a string");
		}
		if ((type === "user" || type === "assistant") && r.uuid === undefined) {
			throw fieldError(this.source, line.n, "uuid", `a ${type} line needs one`);
		}
		if (key.startsWith("#")) {
			// No uuid (or one seen before): hung where it is in the file, transparent.
			const entry = this.titleOrCustom(line, this.ids.id(`${this.seed}:${key}`), timestamp);
			this.chain(this.parentOf(planned), [entry], key, true);
		} else {
			this.conversationLine(planned, type);
		}
	}

	/** The entry for a line without a uuid: a session name for a real title, else the line as a custom entry. */
	private titleOrCustom(line: JsonLine, id: string, timestamp: string): SessionEntry {
		const r = line.record;
		const name =
			r.type === "summary" &&
			typeof r.summary === "string" &&
			typeof r.leafUuid === "string" &&
			this.uuids.has(r.leafUuid)
				? r.summary
				: r.type === "custom-title" && typeof r.customTitle === "string"
					? r.customTitle
					: undefined;
		if (name === undefined) return this.custom(line, id, timestamp);
		const source = { format: CLAUDE_CODE_FORMAT, line: line.n, record: r };
		return withSource(sessionInfoEntry({ id, parentId: null, timestamp }, name), source);
	}

	private custom(line: JsonLine, id: string, timestamp: string, customType?: string): SessionEntry {
		const type = customType ?? `claude-code:${String(line.record.type)}`;
		return customEntry({ id, parentId: null, timestamp }, type, line.record);
	}

	/** Appends `entries` as a chain below `parentId` and records where the line `key` now ends. */
	private chain(parentId: string | null, entries: SessionEntry[], key: string, transparent: boolean): void {
		let parent = parentId;
		for (const entry of entries) {
			entry.parentId = parent;
			this.records.push(entry);
			parent = entry.id;
		}
		if (parent !== null) this.links.attached(parentId, parent, key, transparent);
	}

	private conversationLine(planned: PlannedLine, type: string): void {
		const { line, key: uuid, timestamp } = planned;
		const r = line.record;
		const sidechain = r.isSidechain === true;
		const parentKey = planned.dependsOn ?? ROOT;
		const parentId = this.parentOf(planned);
		const ms = Date.parse(timestamp);
		if (this.consumed.has(line.n)) {
			const entry = this.custom(line, this.ids.id(`${this.seed}:${uuid}`), timestamp, "claude-code:compact-summary");
			this.chain(parentId, [entry], uuid, false);
		} else if (type === "user" && r.isVisibleInTranscriptOnly !== true) {
			this.userLine(line, uuid, parentId, sidechain, timestamp, ms);
		} else if (type === "assistant") {
			this.assistantLine(line, uuid, parentKey, parentId, sidechain, timestamp, ms);
		} else if (type === "system" && r.subtype === "compact_boundary") {
			// Below its `logicalParentUuid` (the plan's parent for a boundary): that joins the two halves of the file.
			this.chain(this.links.resolve(parentKey), [this.boundary(line, uuid, timestamp)], uuid, false);
		} else {
			// A user line only shown in the transcript is not sent, but it is conversation: not transparent.
			const entry = this.custom(line, this.ids.id(`${this.seed}:${uuid}`), timestamp);
			this.chain(parentId, [entry], uuid, type !== "user");
		}
	}

	/**
	 * A user line. Tool results join the results of their turn already placed (see {@link Turn}),
	 * the rule Claude Code's own transcript reader follows when it resumes (docs/import.md,
	 * "Parallel tool calls"): a result answering a call of the response that made the calls
	 * placed before, and none answered yet, hangs below the last of them instead of beside it.
	 */
	private userLine(
		line: JsonLine,
		uuid: string,
		parentId: string | null,
		sidechain: boolean,
		timestamp: string,
		ms: number,
	): void {
		const entries = this.userEntries(line, uuid, timestamp, ms, sidechain);
		const callIds = entries.flatMap((e) =>
			e.type === "message" && e.message.role === "toolResult" ? [(e.message as ToolResultMessage).toolCallId] : [],
		);
		const turn = this.turnOfResults(line.record, sidechain, callIds);
		if (turn?.tail !== undefined && callIds.every((id) => !turn.answered.has(id))) {
			// Transparent: whatever would hang below the previous result of the turn hangs below this one.
			this.chain(this.links.resolve(turn.tail), entries, uuid, true);
		} else {
			this.chain(parentId, entries, uuid, false);
		}
		if (turn) {
			turn.tail = uuid;
			for (const id of callIds) turn.answered.add(id);
		}
	}

	/** The turn whose calls a user line answers: its parent line's, else its first result's call's. */
	private turnOfResults(r: Json, sidechain: boolean, callIds: readonly string[]): Turn | undefined {
		const first = callIds[0];
		if (first === undefined) return undefined;
		const turn =
			(typeof r.parentUuid === "string" ? this.turnOfLine.get(r.parentUuid) : undefined) ?? this.turnOfCall.get(first);
		return turn?.sidechain === sidechain ? turn : undefined;
	}

	/** A user line: its tool results (each a toolResult message), and its other content as a user message. */
	private userEntries(line: JsonLine, uuid: string, timestamp: string, ms: number, sidechain: boolean): SessionEntry[] {
		const report =
			this.source.lenient === true
				? (field: string, problem: string) =>
						this.skipped.push({
							source: this.source.name,
							where: String(line.n),
							reason: `field \`${field}\`: ${problem}`,
						})
				: undefined;
		const parts = userLineMessages(this.source, line, uuid, ms, (id) => this.toolNames.get(id) ?? "", report);
		const first = parts[0]?.source;
		if (first && sidechain && line.record.parentUuid === null) {
			const message = line.record.message;
			const link = this.sidechainOf(contentText(isJson(message) ? message.content : undefined));
			if (link) first.sidechainOf = link;
		}
		return parts.map(({ message, source }, part) => {
			const seed = part === 0 ? `${this.seed}:${uuid}` : `${this.seed}:${uuid}:${part}`;
			return withSource(messageEntry({ id: this.ids.id(seed), parentId: null, timestamp }, message), source);
		});
	}

	/** The latest Task/Agent call not linked yet whose prompt is `text`. */
	private sidechainOf(text: string): { entryId: string; toolCallId: string } | undefined {
		for (let i = this.promptCalls.length - 1; i >= 0; i--) {
			const call = this.promptCalls[i];
			if (call && !call.linked && call.prompt === text) {
				call.linked = true;
				return { entryId: call.entryId, toolCallId: call.toolCallId };
			}
		}
		return undefined;
	}

	private assistantLine(
		line: JsonLine,
		uuid: string,
		parentKey: string,
		parentId: string | null,
		sidechain: boolean,
		timestamp: string,
		ms: number,
	): void {
		const r = line.record;
		const message = r.message;
		if (!isJson(message)) throw fieldError(this.source, line.n, "message", "an assistant line needs an object");
		const content = message.content;
		if (!Array.isArray(content)) throw fieldError(this.source, line.n, "message.content", "not a list of blocks");
		const { content: _content, ...restMessage } = message;
		const meta: LineMeta = { line: line.n, uuid, record: { ...r, message: restMessage } };
		const { content: blocks, unmapped } = mapBlocks(content, assistantBlock);
		if (unmapped.length > 0) meta.unmapped = unmapped;
		const messageId = typeof message.id === "string" ? message.id : undefined;
		const group = messageId === undefined ? undefined : this.groups.get(messageId);
		let entryId: string;
		let turn: Turn;
		if (group && group.sidechain === sidechain) {
			// Another line of a response already begun: its blocks join that message.
			group.message.content.push(...blocks);
			group.source.lines.push(meta);
			// Usage is counted once per response, from its last line. Every line of a split response
			// repeats a usage snapshot, so summing the lines counts it several times (ccusage #389), and
			// the first snapshot is often partial while the last has the final output tokens (ccusage #797).
			if (message.usage !== undefined) group.message.usage = anthropicUsage(message.usage);
			if (message.stop_reason !== null && message.stop_reason !== undefined) group.stop = message.stop_reason;
			group.message.stopReason = this.stopOf(group.message, group.stop, r);
			this.links.absorbed(uuid, parentKey);
			entryId = group.entryId;
			turn = group.turn;
		} else {
			const built: AssistantMessage = {
				role: "assistant",
				content: blocks,
				api: "anthropic-messages",
				provider: "anthropic",
				model: typeof message.model === "string" ? message.model : "",
				usage: anthropicUsage(message.usage),
				stopReason: "stop",
				timestamp: ms,
			};
			built.stopReason = this.stopOf(built, message.stop_reason, r);
			const source: MessageSource = { format: CLAUDE_CODE_FORMAT, uuid, lines: [meta] };
			const entry: MessageEntry = withSource(
				messageEntry({ id: this.ids.id(`${this.seed}:${uuid}`), parentId: null, timestamp }, built),
				source,
			);
			turn = { sidechain, tail: undefined, answered: new Set() };
			if (messageId !== undefined) {
				this.groups.set(messageId, {
					entryId: entry.id,
					message: built,
					source,
					sidechain,
					stop: message.stop_reason,
					turn,
				});
			}
			this.chain(parentId, [entry], uuid, false);
			entryId = entry.id;
		}
		this.turnOfLine.set(uuid, turn);
		for (const block of blocks) {
			if (block.type !== "toolCall") continue;
			const call = block as ToolCall;
			this.turnOfCall.set(call.id, turn);
			this.toolNames.set(call.id, call.name);
			if (typeof call.arguments.prompt === "string") {
				this.promptCalls.push({ prompt: call.arguments.prompt, toolCallId: call.id, entryId, linked: false });
			}
		}
	}

	private stopOf(message: AssistantMessage, stop: unknown, r: Json): string {
		if (r.isApiErrorMessage === true) {
			message.errorMessage = message.content
				.filter((b): b is TextContent => b.type === "text")
				.map((b) => b.text)
				.join("\n");
			return "error";
		}
		return stopReason(
			stop,
			message.content.some((b) => b.type === "toolCall"),
		);
	}

	/** A compact boundary as a compaction entry (see the file comment for `firstKeptEntryId`). */
	private boundary(line: JsonLine, uuid: string, timestamp: string): CompactionEntry {
		const r = line.record;
		const carrier = this.carriers.get(uuid);
		let summary = typeof r.content === "string" ? r.content : "";
		if (carrier) {
			this.consumed.add(carrier.n);
			const message = carrier.record.message;
			summary = contentText(isJson(message) ? message.content : undefined);
		}
		const metadata = r.compactMetadata;
		const preTokens = isJson(metadata) ? metadata.preTokens : undefined;
		const id = this.ids.id(`${this.seed}:${uuid}`);
		const entry: CompactionEntry = {
			type: "compaction",
			id,
			parentId: null,
			timestamp,
			summary,
			firstKeptEntryId: id,
			tokensBefore: typeof preTokens === "number" ? preTokens : 0,
		};
		return withSource(entry, { format: CLAUDE_CODE_FORMAT, uuid, line: line.n, record: r });
	}
}
