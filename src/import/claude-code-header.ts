/**
 * What a Claude Code import reads off the whole transcript before its lines (used by
 * `claude-code.ts`): the session header, and which line carries each compaction's summary.
 */

import type { SessionHeader } from "../core/types.js";
import { CURRENT_SESSION_VERSION } from "../core/types.js";
import { isJson, uuidFromName } from "./common.js";
import { baseName, fieldError, type JsonLine } from "./jsonl.js";
import type { ImportSource } from "./types.js";

/**
 * The header of a transcript: its session id (a subagent file's derived from the session id
 * and its `agentId`, the session id as `parentSession`), first time and working directory.
 * @throws SessionTreeError INVALID_RECORD when the file is no Claude Code transcript
 */
export function transcriptHeader(source: ImportSource, lines: readonly JsonLine[]): SessionHeader {
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
	const firstString = (field: string): string | undefined => {
		for (const { record } of lines) if (typeof record[field] === "string") return record[field] as string;
		return undefined;
	};
	const sessionId = firstString("sessionId") ?? baseName(source.name);
	// The first line's time that is a date (a bad one is reported where the line is planned).
	const timestamp = lines
		.map((l) => l.record.timestamp)
		.find((t): t is string => typeof t === "string" && !Number.isNaN(Date.parse(t)));
	const conversation = lines.filter((l) => typeof l.record.uuid === "string");
	const subagent = conversation.length > 0 && conversation.every((l) => l.record.isSidechain === true);
	const header: SessionHeader = {
		type: "session",
		version: CURRENT_SESSION_VERSION,
		id: subagent
			? uuidFromName(`claude-code:${sessionId}:${firstString("agentId") ?? baseName(source.name)}`)
			: sessionId,
		timestamp: timestamp ?? new Date(0).toISOString(),
		cwd: firstString("cwd") ?? "",
	};
	if (subagent) header.parentSession = sessionId;
	return header;
}

/** Each compact boundary's summary line: the first later line whose parent it is and that carries a summary. */
export function compactSummaryLines(lines: readonly JsonLine[]): Map<string, JsonLine> {
	const carriers = new Map<string, JsonLine>();
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
