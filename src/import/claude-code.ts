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
 *
 * The file is read twice, line by line, never whole (a transcript may be hundreds of MB): a
 * scan keeps a few fields of each line (`factsOf`) for the header and the plan, then the lines
 * are read again by place in the plan's order and their entries made one line at a time. The
 * entries go to an {@link EntrySink} with their {@link Recipe}: an import keeps them; a direct
 * read (claude-code-lazy.ts) keeps only envelopes, and makes a body again when it is asked for.
 */

import { type EntryStamp, sessionInfoEntry } from "../core/entries.js";
import { isSessionTreeError } from "../core/errors.js";
import type { SessionEntry, SessionHeader, ToolCall, ToolResultMessage } from "../core/types.js";
import {
	assistantPart,
	boundaryEntry,
	customOf,
	customTypeOf,
	joinResponse,
	type LineRef,
	lineAgain,
	type Recipe,
	type Response,
	responseEntry,
	type SidechainLink,
	startResponse,
	userEntry,
	userParts,
} from "./claude-code-build.js";
import { contentText } from "./claude-code-content.js";
import { compactSummaryLines, type FirstStrings, noteFirstStrings, transcriptHeader } from "./claude-code-header.js";
import { Links, ROOT } from "./claude-code-links.js";
import { factsOf, type PlannedLine, planLines } from "./claude-code-order.js";
import { CLAUDE_CODE_FORMAT } from "./claude-code-user.js";
import { DerivedIds, isJson, type Json, withSource } from "./common.js";
import { fieldError, type JsonLine, JsonLineReader } from "./jsonl.js";
import { type SourceLines, textLines } from "./source-lines.js";
import type { Importer, ImportSkip, SourceName } from "./types.js";

/** The sessions in one Claude Code transcript: one, or none for a file without lines. */
export const importClaudeCode: Importer = (source) => {
	const records: SessionEntry[] = [];
	const read = readTranscript(source, textLines(source.text), { add: (entry) => records.push(entry) });
	if (!read) return [];
	return [{ format: "claude-code", header: read.header, records, leafId: read.leafId, skipped: read.skipped }];
};

export { CLAUDE_CODE_FORMAT };

/** Where the entries of a transcript go, in order, each with how to make it again (none for a session name). */
export interface EntrySink {
	add(entry: SessionEntry, recipe: Recipe | undefined): void;
}

/** What reading a transcript gives besides its entries. */
export interface TranscriptRead {
	header: SessionHeader;
	/** The entry that becomes the leaf. */
	leafId: string | null;
	/** What was left out or worked around. */
	skipped: ImportSkip[];
}

/**
 * Reads a Claude Code transcript from `lines`, giving its entries to `sink` in order (see the
 * module comment); undefined for a source without lines.
 * @throws SessionTreeError as the import does (INVALID_JSON, INVALID_RECORD naming the line and the field)
 */
export function readTranscript(source: SourceName, lines: SourceLines, sink: EntrySink): TranscriptRead | undefined {
	return new ClaudeCodeImport(source, lines, sink).run();
}

/**
 * A line the scan kept: its facts (see `factsOf`) and where it is. After the scan, the same
 * type holds a whole line read again.
 */
interface PlacedLine extends JsonLine, LineRef {}

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
	response: Response;
	recipe: { readonly kind: "assistant"; readonly lines: LineRef[] };
	sidechain: boolean;
	turn: Turn;
}

/** Lines read again at once, and at most this many bytes of them (unless one line is longer). */
const BATCH_LINES = 256;
const BATCH_BYTES = 1024 * 1024;

class ClaudeCodeImport {
	private readonly ids = new DerivedIds();
	private readonly links = new Links();
	/** Responses still open: message id → the group of its lines (dropped after its last line). */
	private readonly groups = new Map<string, Group>();
	/** Assistant line uuid → its response's turn; tool call id → the turn of the response that made it. */
	private readonly turnOfLine = new Map<string, Turn>();
	private readonly turnOfCall = new Map<string, Turn>();
	private skipped: ImportSkip[] = [];
	private uuids: ReadonlySet<string> = new Set();
	private readonly toolNames = new Map<string, string>();
	private readonly promptCalls: Array<{ prompt: string; toolCallId: string; entryId: string; linked: boolean }> = [];
	/** Compact-boundary uuid → the line carrying its summary; and the lines so consumed. */
	private carriers = new Map<string, PlacedLine>();
	private readonly consumed = new Set<number>();
	private seed = "";

	constructor(
		private readonly source: SourceName,
		private readonly lines: SourceLines,
		private readonly sink: EntrySink,
	) {}

	run(): TranscriptRead | undefined {
		const reader = new JsonLineReader(this.source);
		const facts: PlacedLine[] = [];
		const first: FirstStrings = {};
		for (const line of this.lines.scan()) {
			const record = reader.accept(line);
			if (!record) continue;
			noteFirstStrings(first, record);
			facts.push({ n: line.n, record: factsOf(record), offset: line.offset, length: line.length });
		}
		if (facts.length === 0) return undefined;
		const skipped = reader.skipped;
		this.skipped = skipped;
		const header = transcriptHeader(this.source, facts, first);
		this.seed = header.id;
		// Links are followed after reading the whole file: a parent may come later in it.
		const plan = planLines(this.source, facts, header.timestamp, skipped);
		this.uuids = plan.uuids;
		this.carriers = compactSummaryLines(facts);
		const lastOfResponse = new Map<string, number>();
		plan.order.forEach((planned, index) => {
			const id = messageIdOf(planned.line.record);
			if (id !== undefined) lastOfResponse.set(id, index);
		});
		for (let from = 0; from < plan.order.length; ) {
			let to = from;
			for (let bytes = 0; to < plan.order.length && to - from < BATCH_LINES && bytes < BATCH_BYTES; to++) {
				bytes += (plan.order[to] as PlannedLine<PlacedLine>).line.length;
			}
			const batch = plan.order.slice(from, to);
			const texts = this.lines.read(batch.map((planned) => planned.line));
			batch.forEach((planned, i) => {
				const { line } = planned;
				this.line({ ...planned, line: { ...line, record: lineAgain(this.source, line, texts[i]) } });
				// A response whose last line this was is complete: nothing joins it any more.
				const id = messageIdOf(line.record);
				if (id !== undefined && lastOfResponse.get(id) === from + i) this.groups.delete(id);
			});
			from = to;
		}
		const leafId = plan.last === undefined ? null : this.links.resolve(plan.last);
		return { header, leafId, skipped };
	}

	/** A line the scan kept, read again whole. */
	private reread(line: PlacedLine): PlacedLine {
		return { ...line, record: lineAgain(this.source, line, this.lines.read([line])[0]) };
	}

	/** The id (drawn now, from `seed`: the order of the draws decides clashes) and time of a new entry. */
	private stamp(seed: string, timestamp: string): EntryStamp {
		return { id: this.ids.id(`${this.seed}:${seed}`), parentId: null, timestamp };
	}

	/**
	 * The entries of one line. Lenient, a line that cannot be read as what its type says (a field
	 * missing or of the wrong kind) is kept as a custom entry holding the line, where the line
	 * would hang, and reported; strict, that is an error naming the line and the field.
	 */
	private line(planned: PlannedLine<PlacedLine>): void {
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
			this.chain(this.parentOf(planned), [this.custom(line, this.stamp(key, timestamp))], key, key.startsWith("#"));
		}
	}

	/** Where a planned line hangs: its parent's attach point; a sidechain's first line is a root of its own. */
	private parentOf(planned: PlannedLine<PlacedLine>): string | null {
		if (planned.dependsOn === null && planned.line.record.isSidechain === true && !planned.key.startsWith("#")) {
			return null;
		}
		return this.links.resolve(planned.dependsOn ?? ROOT);
	}

	private lineEntries(planned: PlannedLine<PlacedLine>): void {
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
			this.chain(this.parentOf(planned), [this.titleOrCustom(line, this.stamp(key, timestamp))], key, true);
		} else {
			this.conversationLine(planned, type);
		}
	}

	/** The entry for a line without a uuid: a session name for a real title, else the line as a custom entry. */
	private titleOrCustom(line: PlacedLine, stamp: EntryStamp): Made {
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
		if (name === undefined) return this.custom(line, stamp);
		const source = { format: CLAUDE_CODE_FORMAT, line: line.n, record: r };
		// A session name is read when the session is opened: no recipe, the entry is kept.
		return { entry: withSource(sessionInfoEntry(stamp, name), source), recipe: undefined };
	}

	private custom(line: PlacedLine, stamp: EntryStamp, customType = customTypeOf(line.record)): Made {
		return { entry: customOf(stamp, line, customType), recipe: { kind: "custom", line: refOf(line), customType } };
	}

	/** Gives `made` to the sink as a chain below `parentId` and records where the line `key` now ends. */
	private chain(parentId: string | null, made: readonly Made[], key: string, transparent: boolean): void {
		let parent = parentId;
		for (const { entry, recipe } of made) {
			entry.parentId = parent;
			this.sink.add(entry, recipe);
			parent = entry.id;
		}
		if (parent !== null) this.links.attached(parentId, parent, key, transparent);
	}

	private conversationLine(planned: PlannedLine<PlacedLine>, type: string): void {
		const { line, key: uuid, timestamp } = planned;
		const r = line.record;
		const sidechain = r.isSidechain === true;
		const parentKey = planned.dependsOn ?? ROOT;
		const parentId = this.parentOf(planned);
		if (this.consumed.has(line.n)) {
			const made = this.custom(line, this.stamp(uuid, timestamp), "claude-code:compact-summary");
			this.chain(parentId, [made], uuid, false);
		} else if (type === "user" && r.isVisibleInTranscriptOnly !== true) {
			this.userLine(line, uuid, parentId, sidechain, timestamp);
		} else if (type === "assistant") {
			this.assistantLine(line, uuid, parentKey, parentId, sidechain, timestamp);
		} else if (type === "system" && r.subtype === "compact_boundary") {
			// Below its `logicalParentUuid` (the plan's parent for a boundary): that joins the two halves of the file.
			this.chain(this.links.resolve(parentKey), [this.boundary(line, uuid, timestamp)], uuid, false);
		} else {
			// A user line only shown in the transcript is not sent, but it is conversation: not transparent.
			this.chain(parentId, [this.custom(line, this.stamp(uuid, timestamp))], uuid, type !== "user");
		}
	}

	/**
	 * A user line. Tool results join the results of their turn already placed (see {@link Turn}),
	 * the rule Claude Code's own transcript reader follows when it resumes (docs/import.md,
	 * "Parallel tool calls"): a result answering a call of the response that made the calls
	 * placed before, and none answered yet, hangs below the last of them instead of beside it.
	 */
	private userLine(
		line: PlacedLine,
		uuid: string,
		parentId: string | null,
		sidechain: boolean,
		timestamp: string,
	): void {
		const made = this.userEntries(line, uuid, timestamp, sidechain);
		const callIds = made.flatMap(({ entry: e }) =>
			e.type === "message" && e.message.role === "toolResult" ? [(e.message as ToolResultMessage).toolCallId] : [],
		);
		const turn = this.turnOfResults(line.record, sidechain, callIds);
		if (turn?.tail !== undefined && callIds.every((id) => !turn.answered.has(id))) {
			// Transparent: whatever would hang below the previous result of the turn hangs below this one.
			this.chain(this.links.resolve(turn.tail), made, uuid, true);
		} else {
			this.chain(parentId, made, uuid, false);
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
	private userEntries(line: PlacedLine, uuid: string, timestamp: string, sidechain: boolean): Made[] {
		const report =
			this.source.lenient === true
				? (field: string, problem: string) =>
						this.skipped.push({
							source: this.source.name,
							where: String(line.n),
							reason: `field \`${field}\`: ${problem}`,
						})
				: undefined;
		// The names the results are given now, kept for making them again.
		const names = new Map<string, string>();
		const toolName = (id: string): string => {
			const name = this.toolNames.get(id) ?? "";
			names.set(id, name);
			return name;
		};
		const parts = userParts(this.source, line, Date.parse(timestamp), toolName, report, undefined);
		let link: SidechainLink | undefined;
		const first = parts[0]?.source;
		if (first && sidechain && line.record.parentUuid === null) {
			const message = line.record.message;
			link = this.sidechainOf(contentText(isJson(message) ? message.content : undefined));
			if (link) first.sidechainOf = link;
		}
		const ref = refOf(line);
		return parts.map((part, index) => {
			const seed = index === 0 ? uuid : `${uuid}:${index}`;
			const recipe: Recipe = { kind: "user", line: ref, part: index, names, sidechainOf: link };
			return { entry: userEntry(this.stamp(seed, timestamp), part), recipe };
		});
	}

	/** The latest Task/Agent call not linked yet whose prompt is `text`. */
	private sidechainOf(text: string): SidechainLink | undefined {
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
		line: PlacedLine,
		uuid: string,
		parentKey: string,
		parentId: string | null,
		sidechain: boolean,
		timestamp: string,
	): void {
		const r = line.record;
		const part = assistantPart(this.source, line);
		const { messageId, blocks } = part;
		const group = messageId === undefined ? undefined : this.groups.get(messageId);
		let entryId: string;
		let turn: Turn;
		if (group && group.sidechain === sidechain) {
			// Another line of a response already begun: its blocks join that message.
			joinResponse(group.response, part, r);
			group.recipe.lines.push(refOf(line));
			this.links.absorbed(uuid, parentKey);
			entryId = group.entryId;
			turn = group.turn;
		} else {
			const response = startResponse(part, r, Date.parse(timestamp));
			const recipe = { kind: "assistant" as const, lines: [refOf(line)] };
			const entry = responseEntry(this.stamp(uuid, timestamp), response);
			turn = { sidechain, tail: undefined, answered: new Set() };
			if (messageId !== undefined) this.groups.set(messageId, { entryId: entry.id, response, recipe, sidechain, turn });
			this.chain(parentId, [{ entry, recipe }], uuid, false);
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

	/** A compact boundary as a compaction entry (see the file comment for `firstKeptEntryId`). */
	private boundary(line: PlacedLine, uuid: string, timestamp: string): Made {
		const kept = this.carriers.get(uuid);
		if (kept) this.consumed.add(kept.n);
		const carrier = kept && this.reread(kept);
		const entry = boundaryEntry(this.stamp(uuid, timestamp), line, carrier);
		return { entry, recipe: { kind: "boundary", line: refOf(line), carrier: carrier && refOf(carrier) } };
	}
}

/** An entry made, and how to make it again (none for what is kept whole). */
interface Made {
	entry: SessionEntry;
	recipe: Recipe | undefined;
}

/** Where a line is, without its record. */
function refOf(line: PlacedLine): LineRef {
	return { n: line.n, offset: line.offset, length: line.length };
}

/** The `message.id` of an assistant line (or of its facts). */
function messageIdOf(record: Json): string | undefined {
	const message = record.message;
	return record.type === "assistant" && isJson(message) && typeof message.id === "string" ? message.id : undefined;
}
