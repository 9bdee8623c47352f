/**
 * One row of `session-tree ls`: what pi's session picker shows about a session file (its
 * `buildSessionInfo`), plus the entry and branch counts, from one cheap pass over the file.
 */

import {
	type EntryView,
	type EntryVisitor,
	type JsonRecord,
	type ScanResult,
	SkippedFile,
	scanSession,
} from "./scan.js";

/** What `ls` knows about one session file. */
export interface SessionSummary {
	/** Absolute path. */
	file: string;
	/** The session id from the header. */
	id: string;
	/** The working directory from the header ("" when it has none). */
	cwd: string;
	/** The latest `session_info` name (trimmed), or null. */
	name: string | null;
	/** Text of the first user message that has text, or null. */
	firstMessage: string | null;
	/** pi's "modified": the last user/assistant message time, else the header time, else the file's mtime. */
	modified: Date;
	/** The header's timestamp, or null when it is not a date. */
	created: Date | null;
	entries: number;
	branches: number;
	bytes: number;
	/** The session this one was forked from (header), or null. */
	parentSession: string | null;
	/** Problems that did not stop the listing (an incomplete last line). */
	warnings: string[];
}

/** A file that was not listed, and why. */
export interface SkippedSession {
	file: string;
	reason: string;
}

/** pi's `extractTextContent`: a string, or the text blocks joined by a space. */
export function messageText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const parts: string[] = [];
	for (const block of content) {
		if (block && typeof block === "object" && (block as JsonRecord).type === "text") {
			const text = (block as JsonRecord).text;
			parts.push(typeof text === "string" ? text : String(text));
		}
	}
	return parts.join(" ");
}

/** Collects what pi's `buildSessionInfo` collects, entry by entry. */
class SummaryVisitor implements EntryVisitor {
	name: string | undefined;
	firstMessage = "";
	lastActivity: number | undefined;

	visit(entry: EntryView): void {
		if (entry.type === "session_info") {
			const name = entry.record().name;
			this.name = typeof name === "string" ? name.trim() || undefined : undefined;
			return;
		}
		if (entry.type !== "message") return;
		const role = entry.role();
		if (role !== "user" && role !== "assistant") return;
		if (this.firstMessage || role !== "user") {
			// Only the time is needed: read it without parsing the line when it is in pi's shape.
			const peek = entry.peekMessage();
			if (peek) {
				this.lastActivity = Math.max(this.lastActivity ?? 0, peek.timestamp);
				return;
			}
		}
		const message = entry.record().message as JsonRecord | undefined;
		if (!message || typeof message !== "object" || !("content" in message)) return;
		// pi's getLastActivityTime: the message's numeric timestamp, else the entry's.
		let time: number | undefined;
		if (typeof message.timestamp === "number") time = message.timestamp;
		else {
			const parsed = new Date(entry.timestamp).getTime();
			if (!Number.isNaN(parsed)) time = parsed;
		}
		if (time !== undefined) this.lastActivity = Math.max(this.lastActivity ?? 0, time);
		if (!this.firstMessage && role === "user") this.firstMessage = messageText(message.content);
	}
}

function dateOrNull(value: unknown): Date | null {
	if (typeof value !== "string") return null;
	const date = new Date(value);
	return Number.isNaN(date.getTime()) ? null : date;
}

/** Builds the summary of one file from the pass and the visitor. */
function toSummary(result: ScanResult, visitor: SummaryVisitor): SessionSummary {
	const header = result.header;
	const created = dateOrNull(header.timestamp);
	let modified: Date;
	if (typeof visitor.lastActivity === "number" && visitor.lastActivity > 0) modified = new Date(visitor.lastActivity);
	else modified = created ?? result.mtime;
	if (Number.isNaN(modified.getTime())) modified = result.mtime;
	return {
		file: result.file,
		id: String(header.id),
		cwd: typeof header.cwd === "string" ? header.cwd : "",
		name: visitor.name ?? null,
		firstMessage: visitor.firstMessage || null,
		modified,
		created,
		entries: result.entries,
		branches: result.branches,
		bytes: result.bytes,
		parentSession: typeof header.parentSession === "string" ? header.parentSession : null,
		warnings: result.warnings,
	};
}

/**
 * Summarises one session file.
 * @throws SkippedFile for a file that is not a session or is damaged
 */
export function summarizeSession(file: string): SessionSummary {
	const { result, visitor } = scanSession(file, () => new SummaryVisitor());
	return toSummary(result, visitor);
}

/** Options of {@link summarizeSessions}. */
export interface SummarizeOptions {
	/** Called after each file with the number done so far. */
	onProgress?: (done: number, total: number) => void;
}

/** Summaries of many files, newest first (ties by file name), and the files that were skipped. */
export function summarizeSessions(
	files: readonly string[],
	options: SummarizeOptions = {},
): { sessions: SessionSummary[]; skipped: SkippedSession[] } {
	const sessions: SessionSummary[] = [];
	const skipped: SkippedSession[] = [];
	let done = 0;
	for (const file of files) {
		try {
			sessions.push(summarizeSession(file));
		} catch (error) {
			if (!(error instanceof SkippedFile)) throw error;
			skipped.push({ file, reason: error.message });
		}
		options.onProgress?.(++done, files.length);
	}
	sessions.sort(newestFirst);
	return { sessions, skipped };
}

function newestFirst(a: SessionSummary, b: SessionSummary): number {
	const diff = b.modified.getTime() - a.modified.getTime();
	if (diff !== 0) return diff;
	return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}
