/**
 * What a Claude Code import reads off the whole transcript before its lines (used by
 * `claude-code.ts`): the session header, and which line carries each compaction's summary.
 */

import type { SessionHeader } from "../core/types.js";
import { CURRENT_SESSION_VERSION } from "../core/types.js";
import { isJson, type Json, uuidFromName } from "./common.js";
import { baseName, fieldError, type JsonLine } from "./jsonl.js";
import type { SourceName } from "./types.js";

/** The first string each of the fields the header takes has in the file (see {@link noteFirstStrings}). */
export type FirstStrings = Partial<Record<"sessionId" | "cwd" | "agentId", string>>;

/** Notes the fields of one line (in file order) that are the first strings of their kind. */
export function noteFirstStrings(first: FirstStrings, record: Json): void {
	if (first.sessionId === undefined && typeof record.sessionId === "string") first.sessionId = record.sessionId;
	if (first.cwd === undefined && typeof record.cwd === "string") first.cwd = record.cwd;
	if (first.agentId === undefined && typeof record.agentId === "string") first.agentId = record.agentId;
}

/**
 * The header of a transcript: its session id (a subagent file's derived from the session id
 * and its `agentId`, the session id as `parentSession`), first time and working directory.
 * `lines` need only hold what the plan reads (see `factsOf`); `firsts` is what
 * {@link noteFirstStrings} noted of every line.
 * @throws SessionTreeError INVALID_RECORD when the file is no Claude Code transcript
 */
export function transcriptHeader(source: SourceName, lines: readonly JsonLine[], firsts: FirstStrings): SessionHeader {
	const first = lines[0];
	const known = new Set(["summary", "file-history-snapshot", "custom-title"]);
	if (first && !lines.some((l) => typeof l.record.uuid === "string" || known.has(String(l.record.type)))) {
		throw fieldError(
			source,
			first.n,
			"type",
			"not a Claude Code transcript (no line has a uuid or a Claude Code record type)",
		);
	}
	const sessionId = firsts.sessionId ?? baseName(source.name);
	// The first line's time that is a date (a bad one is reported where the line is planned).
	const timestamp = lines
		.map((l) => l.record.timestamp)
		.find((t): t is string => typeof t === "string" && !Number.isNaN(Date.parse(t)));
	const conversation = lines.filter((l) => typeof l.record.uuid === "string");
	const subagent = conversation.length > 0 && conversation.every((l) => l.record.isSidechain === true);
	const header: SessionHeader = {
		type: "session",
		version: CURRENT_SESSION_VERSION,
		id: subagent ? uuidFromName(`claude-code:${sessionId}:${firsts.agentId ?? baseName(source.name)}`) : sessionId,
		timestamp: timestamp ?? new Date(0).toISOString(),
		cwd: firsts.cwd ?? "",
	};
	if (subagent) header.parentSession = sessionId;
	return header;
}

/** Each compact boundary's summary line: the first later line whose parent it is and that carries a summary. */
export function compactSummaryLines<L extends JsonLine>(lines: readonly L[]): Map<string, L> {
	const carriers = new Map<string, L>();
	const boundaries = new Set<string>();
	for (const line of lines) {
		const r = line.record;
		if (typeof r.uuid !== "string") continue;
		if (r.type === "system" && r.subtype === "compact_boundary") boundaries.add(r.uuid);
		const carries = r.isCompactSummary === true || (r.type === "summary" && isJson(r.message));
		const parent = r.parentUuid;
		if (carries && typeof parent === "string" && boundaries.has(parent) && !carriers.has(parent)) {
			carriers.set(parent, line);
		}
	}
	return carriers;
}
