/**
 * Export back to Claude Code: a session as a Claude Code transcript (the records of a
 * `~/.claude/projects/<dir>/<sessionId>.jsonl` file). docs/import.md ("Export back") has the
 * mapping; in short:
 *
 * - Every entry that came from a Claude Code line gives its line back: the line kept in the
 *   entry's `source` (or a custom entry's `data`) with the content rebuilt from the pi message,
 *   a user line's tool results and text joined again, a response the import merged split again
 *   into its lines. Their `uuid`/`parentUuid` are the original ones, so the whole tree (every
 *   branch, sidechains, transparent lines) is as Claude Code wrote it.
 * - Other entries (a pi session, a Codex or ChatGPT import, entries appended after an import)
 *   become new lines: uuids derived from the session and the entry, `parentUuid` the nearest
 *   exported line above. A pi compaction becomes a `compact_boundary` line and an
 *   `isCompactSummary` user line (the kept entries as its `preservedSegment`); a session name a
 *   `custom-title` line; entries Claude Code has no line for (model and thinking level changes,
 *   labels, custom entries of other formats) are left out.
 * - Order: parents first, in the order of the source lines where there are any, new lines after
 *   the line before them. Claude Code (`claude --resume`, the Agent SDK's `getSessionMessages`)
 *   takes as the active point the latest line in the file that no other main-chain line names as
 *   parent, and walks up from it to the nearest user or assistant line
 *   (`claudeCodeResumePoint`); where that is not the leaf's line (the leaf moved to another
 *   branch), the leaf's end of the path is moved last. A leaf with entries below it cannot be
 *   Claude Code's active point: `leafUuid` and the resume point then differ (the CLI says so).
 */

import type { SessionEntry } from "../core/types.js";
import { isJson, type Json, uuidFromName } from "./common.js";
import {
	assistantBlockBack,
	assistantMessageBack,
	ccCustomLine,
	ccSource,
	isoOf,
	numberOf,
	resultContent,
	sdkSource,
	toolResultBlock,
	toolResultMessageBack,
	userBlockBack,
	userContent,
	userKey,
	withKeyAfter,
	withMessageContent,
	withUnmapped,
} from "./export-claude-code-blocks.js";
import { claudeCodeResumePoint, type Line, orderLines } from "./export-claude-code-order.js";
import type { ExportInput } from "./types.js";

export { claudeCodeResumePoint } from "./export-claude-code-order.js";

/** The `version` written on new lines when the session has no Claude Code line to take it from. */
export const CLAUDE_CODE_EXPORT_VERSION = "2.0.0";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The session id Claude Code files the transcript under: the session's, or a UUID derived from it. */
export function claudeCodeSessionId(headerId: string): string {
	return UUID.test(headerId) ? headerId : uuidFromName(`claude-code:${headerId}`);
}

/** The lines as a JSONL file's text. */
export function claudeCodeJsonl(lines: readonly unknown[]): string {
	return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

/** A session as a Claude Code transcript. */
export interface ClaudeCodeTranscript {
	/** The records of the file, in file order. */
	lines: Array<Record<string, unknown>>;
	/** The session id Claude Code files it under (`<sessionId>.jsonl`). */
	sessionId: string;
	/** The uuid of the user or assistant line at or above the leaf (undefined for a session without one). */
	leafUuid: string | undefined;
}

/** A session as a Claude Code transcript, with where it should resume; see the module comment. */
export function claudeCodeTranscript(input: ExportInput): ClaudeCodeTranscript {
	const run = new ClaudeCodeExport(input);
	const lines = run.run();
	return { lines, sessionId: claudeCodeSessionId(input.header.id), leafUuid: run.leafUuid() };
}

/** The lines of a session as Claude Code writes them; see the module comment. */
export function toClaudeCode(input: ExportInput): Array<Record<string, unknown>> {
	return claudeCodeTranscript(input).lines;
}

class ClaudeCodeExport {
	private readonly input: ExportInput;
	private readonly byId: Map<string, SessionEntry>;
	private readonly lines: Line[] = [];
	/** The lines each entry gave (in order). */
	private readonly linesOf = new Map<string, Line[]>();
	/** The uuid below which a child of the entry hangs, for entries that gave a line with one. */
	private readonly tailOf = new Map<string, string>();
	private readonly sessionId: string;
	private readonly version: string;
	/** Line numbers of the later lines of merged responses (no entry of their own stands for them). */
	private readonly absorbed = new Set<number>();
	private cursor = 1;

	constructor(input: ExportInput) {
		this.input = input;
		this.byId = new Map(input.entries.map((entry) => [entry.id, entry]));
		this.sessionId = claudeCodeSessionId(input.header.id);
		let version: string | undefined;
		for (const entry of input.entries) {
			const line = this.sourceLinesOf(entry).at(-1);
			if (line && typeof line.version === "string") version = line.version;
		}
		this.version = version ?? CLAUDE_CODE_EXPORT_VERSION;
	}

	run(): Json[] {
		const userParts = this.userLineParts();
		for (const entry of this.input.entries) {
			const lines = ccSource(entry)?.lines;
			if (Array.isArray(lines))
				for (const meta of lines.slice(1)) if (isJson(meta)) this.absorbed.add(Number(meta.line));
		}
		for (const entry of this.input.entries) {
			const source = ccSource(entry);
			const custom = ccCustomLine(entry);
			const stored = sdkSource(entry);
			if (stored) {
				// A line the Agent SDK adapter stored: its first entry holds it as appended; the others name the first.
				if (isJson(stored.entry)) this.add(entry, stored.entry, undefined);
				else if (typeof stored.of === "string") {
					const tail = this.tailOf.get(stored.of);
					if (tail !== undefined) this.tailOf.set(entry.id, tail);
				}
			} else if (source && entry.type === "message" && Array.isArray(source.lines)) {
				const key = userKey(source);
				if (key !== undefined) {
					const parts = userParts.get(key);
					// A user line gives its line once, at its first part.
					if (parts?.[0] === entry) this.add(entry, this.userLine(parts), numberOf(source.lines[0]));
					else if (parts) this.tailOf.set(entry.id, String(source.uuid));
				} else this.assistantLines(entry, source);
			} else if (source && isJson(source.record)) {
				this.add(entry, source.record, typeof source.line === "number" ? source.line : undefined);
			} else if (custom) this.add(entry, custom, undefined);
			else this.foreign(entry);
		}
		return this.ordered();
	}

	/** The source lines an entry holds (for the version). */
	private sourceLinesOf(entry: SessionEntry): Json[] {
		const stored = sdkSource(entry);
		if (stored) return isJson(stored.entry) ? [stored.entry] : [];
		const source = ccSource(entry);
		if (source && Array.isArray(source.lines))
			return source.lines.filter(isJson).map((m) => (isJson(m.record) ? m.record : {}));
		if (source && isJson(source.record)) return [source.record];
		const custom = ccCustomLine(entry);
		return custom ? [custom] : [];
	}

	/** The entries of each user line (its tool results and its text, in part order), keyed by line. */
	private userLineParts(): Map<string, SessionEntry[]> {
		const parts = new Map<string, SessionEntry[]>();
		for (const entry of this.input.entries) {
			const source = ccSource(entry);
			const key = source && entry.type === "message" ? userKey(source) : undefined;
			if (key === undefined) continue;
			const list = parts.get(key) ?? [];
			list.push(entry);
			parts.set(key, list);
		}
		const part = (entry: SessionEntry) => Number(ccSource(entry)?.part ?? 0);
		for (const list of parts.values()) list.sort((a, b) => part(a) - part(b));
		return parts;
	}

	/**
	 * Adds a line. One without a number goes after the line before it in the session: the
	 * import wrote its entries in the order of the lines, the later lines of a merged response
	 * aside (those numbers are skipped, and do not move the place: `later`).
	 */
	private add(entry: SessionEntry, record: Json, line: number | undefined, later = false): Line {
		if (line === undefined) while (this.absorbed.has(this.cursor)) this.cursor++;
		const rank = line ?? this.cursor;
		if (!later) this.cursor = rank + 1;
		const out: Line = { record, rank, seq: this.lines.length };
		this.lines.push(out);
		const list = this.linesOf.get(entry.id) ?? [];
		list.push(out);
		this.linesOf.set(entry.id, list);
		if (typeof record.uuid === "string") this.tailOf.set(entry.id, record.uuid);
		return out;
	}

	/** A user line rebuilt from its parts: the kept line, its content from the messages, `toolUseResult` from the first result's details. */
	private userLine(parts: readonly SessionEntry[]): Json {
		const first = ccSource(parts[0] as SessionEntry) as Json;
		const meta = (first.lines as Json[])[0] as Json;
		let record: Json = isJson(meta.record) ? meta.record : {};
		const messages = parts.map((entry) => (entry.type === "message" ? (entry.message as unknown as Json) : {}));
		const only = messages[0];
		let content: unknown;
		if (parts.length === 1 && only?.role === "user" && typeof only.content === "string") content = only.content;
		else {
			const mapped: unknown[] = [];
			const unmapped: unknown[] = [];
			let details: unknown;
			parts.forEach((entry, i) => {
				const source = ccSource(entry) as Json;
				const message = messages[i] as Json;
				const partMeta = Array.isArray(source.lines) && isJson(source.lines[0]) ? source.lines[0] : {};
				if (message.role === "toolResult") {
					if (details === undefined) details = message.details;
					const rest = isJson(source.block) ? source.block : { type: "tool_result", tool_use_id: message.toolCallId };
					const value = resultContent(message.content, partMeta.unmapped, source.resultContent);
					mapped.push(toolResultBlock(rest, value, source.resultContent));
				} else {
					const blocks = Array.isArray(message.content) ? message.content : [];
					for (const block of blocks) if (isJson(block)) mapped.push(userBlockBack(block));
					if (Array.isArray(partMeta.unmapped)) unmapped.push(...partMeta.unmapped);
				}
			});
			content = withUnmapped(mapped, unmapped);
			if (details !== undefined) record = withKeyAfter(record, "toolUseResult", details, ["timestamp"]);
		}
		const message = isJson(record.message) ? record.message : { role: "user" };
		return withKeyAfter(record, "message", withMessageContent(message, content), []);
	}

	/** The lines of an assistant message: one per source line, the blocks shared out (one per line, the rest on the last). */
	private assistantLines(entry: SessionEntry, source: Json): void {
		const metas = (source.lines as unknown[]).filter(isJson);
		const blocks = entry.type === "message" && Array.isArray(entry.message.content) ? [...entry.message.content] : [];
		const back = blocks.map((block) => assistantBlockBack(block as unknown as Json, (id) => id));
		metas.forEach((meta, i) => {
			const unmapped = Array.isArray(meta.unmapped) ? meta.unmapped : [];
			// Claude Code writes one block per line of a split response; a line with an unmapped block has no other.
			const take = i === metas.length - 1 ? back.length : unmapped.length > 0 ? 0 : 1;
			const content = withUnmapped(back.splice(0, take), unmapped);
			const record = isJson(meta.record) ? meta.record : {};
			const message = isJson(record.message) ? record.message : { role: "assistant" };
			this.add(entry, withKeyAfter(record, "message", withMessageContent(message, content), []), numberOf(meta), i > 0);
		});
	}

	// ---- entries from elsewhere ---------------------------------------------------------------

	/** The uuid a new line under `parentId` names as parent: the nearest exported line with a uuid above. */
	private parentUuid(parentId: string | null): string | null {
		for (let at = parentId; at !== null; at = this.byId.get(at)?.parentId ?? null) {
			const tail = this.tailOf.get(at);
			if (tail !== undefined) return tail;
			if (!this.byId.has(at)) break;
		}
		return null;
	}

	private newUuid(entry: SessionEntry, part = ""): string {
		return uuidFromName(`claude-code-export:${this.input.header.id}:${entry.id}${part}`);
	}

	/** The fields every conversation line starts with, in Claude Code's order. */
	private lineHead(parentUuid: string | null): Json {
		return {
			parentUuid,
			isSidechain: false,
			userType: "external",
			cwd: this.input.header.cwd,
			sessionId: this.sessionId,
			version: this.version,
		};
	}

	private conversationLine(entry: SessionEntry, type: string, message: Json, extra: Json = {}): Json {
		return {
			...this.lineHead(this.parentUuid(entry.parentId)),
			type,
			message,
			...extra,
			uuid: this.newUuid(entry),
			timestamp: isoOf(entry),
		};
	}

	private foreign(entry: SessionEntry): void {
		switch (entry.type) {
			case "message":
				this.foreignMessage(entry);
				return;
			case "custom_message":
				this.add(
					entry,
					this.conversationLine(entry, "user", { role: "user", content: userContent(entry.content) }),
					undefined,
				);
				return;
			case "branch_summary":
				this.add(entry, this.conversationLine(entry, "user", { role: "user", content: entry.summary }), undefined);
				return;
			case "compaction":
				this.compaction(entry);
				return;
			case "session_info":
				if (entry.name)
					this.add(entry, { type: "custom-title", customTitle: entry.name, sessionId: this.sessionId }, undefined);
				return;
			default:
				// Model and thinking level changes, labels, other formats' custom entries: Claude Code has no line.
				return;
		}
	}

	private foreignMessage(entry: SessionEntry & { type: "message" }): void {
		const message = entry.message as unknown as Json;
		if (message.role === "user") {
			this.add(
				entry,
				this.conversationLine(entry, "user", { role: "user", content: userContent(message.content) }),
				undefined,
			);
		} else if (message.role === "toolResult") {
			this.add(entry, this.conversationLine(entry, "user", toolResultMessageBack(message)), undefined);
		} else if (message.role === "assistant") {
			const id = `msg_${this.newUuid(entry, ":message").replace(/-/g, "").slice(0, 24)}`;
			const extra: Json = message.stopReason === "error" ? { isApiErrorMessage: true } : {};
			this.add(entry, this.conversationLine(entry, "assistant", assistantMessageBack(message, id), extra), undefined);
		}
		// Other roles (pi's bashExecution and friends) reach no model Claude Code talks to.
	}

	/** A pi compaction: a boundary (below nothing, its logical parent the line above) and the summary as a user line. */
	private compaction(entry: SessionEntry & { type: "compaction" }): void {
		const logical = this.parentUuid(entry.parentId);
		const boundaryUuid = this.newUuid(entry);
		const summaryUuid = this.newUuid(entry, ":summary");
		const metadata: Json = { trigger: "manual", preTokens: entry.tokensBefore };
		const kept = this.keptSegment(entry);
		if (kept) metadata.preservedSegment = { headUuid: kept.head, anchorUuid: summaryUuid, tailUuid: kept.tail };
		this.add(
			entry,
			{
				...this.lineHead(null),
				type: "system",
				subtype: "compact_boundary",
				content: "Conversation compacted",
				isMeta: false,
				timestamp: isoOf(entry),
				uuid: boundaryUuid,
				level: "info",
				compactMetadata: metadata,
				logicalParentUuid: logical,
			},
			undefined,
		);
		this.add(
			entry,
			{
				...this.lineHead(boundaryUuid),
				type: "user",
				message: { role: "user", content: entry.summary },
				isVisibleInTranscriptOnly: true,
				isCompactSummary: true,
				uuid: summaryUuid,
				timestamp: isoOf(entry),
			},
			undefined,
		);
	}

	/** The lines pi keeps after a compaction (from `firstKeptEntryId` to the compaction's parent), as Claude Code's preserved segment. */
	private keptSegment(entry: SessionEntry & { type: "compaction" }): { head: string; tail: string } | undefined {
		const path: string[] = [];
		let found = false;
		for (let at = entry.parentId; at !== null; at = this.byId.get(at)?.parentId ?? null) {
			path.push(at);
			if (at === entry.firstKeptEntryId) {
				found = true;
				break;
			}
			if (!this.byId.has(at)) break;
		}
		if (!found) return undefined;
		const uuids = path
			.reverse()
			.flatMap((id) => this.linesOf.get(id) ?? [])
			.map((line) => line.record.uuid)
			.filter((uuid): uuid is string => typeof uuid === "string");
		const head = uuids[0];
		const tail = uuids.at(-1);
		return head !== undefined && tail !== undefined ? { head, tail } : undefined;
	}

	// ---- order ----------------------------------------------------------------------------------

	/**
	 * The lines in the order of the source where Claude Code then resumes at the leaf; else with
	 * the leaf's end of the path (its lines from the leaf up to its user or assistant line) moved
	 * last, so that it is the newest branch end (the leaf moved to another branch since).
	 */
	private ordered(): Json[] {
		const plain = orderLines(this.lines, new Set());
		const leaf = this.leafUuid();
		if (leaf === undefined || claudeCodeResumePoint(plain) === leaf) return plain;
		const tail = new Set<Line>();
		for (let at = this.input.leafId; at !== null; at = this.byId.get(at)?.parentId ?? null) {
			const lines = this.linesOf.get(at) ?? [];
			for (const line of lines) tail.add(line);
			if (lines.some((line) => line.record.uuid === leaf) || !this.byId.has(at)) break;
		}
		return orderLines(this.lines, tail);
	}

	/** The uuid of the nearest user or assistant line at or above the leaf. */
	leafUuid(): string | undefined {
		for (let at = this.input.leafId; at !== null; at = this.byId.get(at)?.parentId ?? null) {
			const lines = (this.linesOf.get(at) ?? []).filter(
				(line) =>
					(line.record.type === "user" || line.record.type === "assistant") && typeof line.record.uuid === "string",
			);
			const last = lines.reduce<Line | undefined>((a, b) => (a === undefined || b.rank >= a.rank ? b : a), undefined);
			if (last) return String(last.record.uuid);
			if (!this.byId.has(at)) break;
		}
		return undefined;
	}
}
