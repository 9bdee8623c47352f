/**
 * Searching message text across session files: user and assistant text, thinking, tool
 * results, bash executions, custom messages, compaction and branch summaries. One pass over
 * each file (see scan.ts); a line is parsed only when its raw text may hold a match.
 */

import { statSync } from "node:fs";
import { flattenKeepEnds } from "./format.js";
import { type EntryView, type EntryVisitor, type JsonRecord, SkippedFile, scanSession } from "./scan.js";
import type { SkippedSession } from "./summary.js";

/** What to look for. */
export interface SearchQuery {
	/** The text (or, with `regex`, a JavaScript regular expression). */
	pattern: string;
	regex?: boolean;
	ignoreCase?: boolean;
}

/** One entry whose text matches. */
export interface SearchHit {
	file: string;
	sessionId: string;
	/** The session's name (latest `session_info`), or null. */
	name: string | null;
	entryId: string;
	/** The message's role, or the entry type for custom messages and summaries. */
	role: string;
	/** Whether the entry is on the path from the root to the session's leaf. */
	onActiveBranch: boolean;
	/** One line of text around the first match of the entry. */
	snippet: string;
	/** Where the match starts in `snippet` (UTF-16 code units). */
	matchStart: number;
	/** Where the match ends in `snippet` (UTF-16 code units). */
	matchEnd: number;
}

/** Options of {@link searchSessions}. */
export interface SearchOptions {
	/** Stop after this many hits. */
	limit?: number;
	/** Columns for a snippet (match included). Default 100. */
	snippetWidth?: number;
	/** Called after each file with the number done so far. */
	onProgress?: (done: number, total: number) => void;
}

/** A compiled query. */
export interface Matcher {
	/** Finds the first match in a text, or undefined. */
	find(text: string): { start: number; end: number } | undefined;
	/** False only when the raw line of an entry cannot hold a match (the entry is then not parsed). */
	mayMatch(line: string): boolean;
	/**
	 * For plain case-sensitive text that JSON writes as it is: its UTF-8 bytes, which a raw line
	 * holding a match contains (unless it spells characters as `\u` escapes).
	 */
	needle?: Buffer;
}

/** `\u`: a raw line with it may spell characters as escapes. */
const ESCAPE_U = Buffer.from("\\u");

/** The query is not a valid regular expression. */
export class InvalidPattern extends Error {
	constructor(message: string) {
		super(message);
		this.name = "InvalidPattern";
	}
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** Characters JSON.stringify writes escaped: a raw line holds them differently from the text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Compiles a query. A regular expression is tried with the `u` flag first (so `.` is a whole
 * character) and without it if that fails (so patterns such as `\-` keep working).
 * @throws InvalidPattern for a regular expression that does not compile
 */
export function compileQuery(query: SearchQuery): Matcher {
	const flags = query.ignoreCase ? "i" : "";
	let regex: RegExp;
	if (query.regex) {
		try {
			regex = new RegExp(query.pattern, `${flags}gu`);
		} catch {
			try {
				regex = new RegExp(query.pattern, `${flags}g`);
			} catch (error) {
				throw new InvalidPattern(error instanceof Error ? error.message : String(error));
			}
		}
	} else {
		regex = new RegExp(escapeRegExp(query.pattern), `${flags}gu`);
	}
	// A plain needle without characters JSON escapes appears verbatim in the raw line, unless
	// the line spells characters as \uXXXX escapes (JSON.stringify does not, others may).
	const plain = !query.regex && !JSON_ESCAPED.test(query.pattern);
	const lineTest = plain ? new RegExp(regex.source, query.ignoreCase ? "iu" : "u") : undefined;
	return {
		...(plain && !query.ignoreCase ? { needle: Buffer.from(query.pattern, "utf8") } : {}),
		find(text) {
			regex.lastIndex = 0;
			const match = regex.exec(text);
			return match ? { start: match.index, end: match.index + match[0].length } : undefined;
		},
		mayMatch(line) {
			if (!lineTest) return true;
			if (!query.ignoreCase && line.includes(query.pattern)) return true;
			return line.includes("\\u") || (query.ignoreCase === true && lineTest.test(line));
		},
	};
}

/** Entry types whose text is searched. */
const SEARCHED_TYPES = new Set(["message", "custom_message", "compaction", "branch_summary"]);

/** The searchable texts of message content: text blocks and thinking. */
function contentTexts(content: unknown, out: string[]): void {
	if (typeof content === "string") {
		out.push(content);
		return;
	}
	if (!Array.isArray(content)) return;
	for (const block of content) {
		if (!block || typeof block !== "object") continue;
		const b = block as JsonRecord;
		if (b.type === "text" && typeof b.text === "string") out.push(b.text);
		else if (b.type === "thinking" && typeof b.thinking === "string") out.push(b.thinking);
	}
}

/** The role (or entry type) and the texts of an entry that are searched. */
export function searchableTexts(record: JsonRecord): { role: string; texts: string[] } | undefined {
	const texts: string[] = [];
	switch (record.type) {
		case "message": {
			const message = record.message;
			if (!message || typeof message !== "object") return undefined;
			const m = message as JsonRecord;
			const role = typeof m.role === "string" ? m.role : "message";
			contentTexts(m.content, texts);
			if (role === "bashExecution") {
				if (typeof m.command === "string") texts.push(m.command);
				if (typeof m.output === "string") texts.push(m.output);
			}
			if (typeof m.summary === "string") texts.push(m.summary);
			return { role, texts };
		}
		case "custom_message":
			contentTexts(record.content, texts);
			return { role: "custom_message", texts };
		case "compaction":
		case "branch_summary":
			if (typeof record.summary === "string") texts.push(record.summary);
			return { role: record.type, texts };
		default:
			return undefined;
	}
}

/** A slice of `text` that does not cut a surrogate pair at either end. */
function safeSlice(text: string, start: number, end: number): string {
	let from = Math.max(0, start);
	let to = Math.min(text.length, end);
	if (from > 0 && from < text.length && isLow(text.charCodeAt(from)) && isHigh(text.charCodeAt(from - 1))) from++;
	if (to > 0 && to < text.length && isLow(text.charCodeAt(to)) && isHigh(text.charCodeAt(to - 1))) to--;
	return text.slice(from, to);
}

function isHigh(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

function isLow(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}

/** Longest match shown in a snippet, in characters; a longer one is cut. */
const MAX_MATCH = 200;

/**
 * One line around a match: the match in the middle, cut with `…` at either side when the
 * text goes on, white space and controls flattened.
 */
export function makeSnippet(
	text: string,
	start: number,
	end: number,
	width = 100,
): { snippet: string; matchStart: number; matchEnd: number } {
	let match = flattenKeepEnds(safeSlice(text, start, Math.min(end, start + MAX_MATCH * 2)));
	if (match.length > MAX_MATCH) match = `${safeSlice(match, 0, MAX_MATCH)}…`;
	const side = Math.max(8, Math.floor((width - match.length) / 2));
	let before = flattenKeepEnds(safeSlice(text, start - side * 2, start));
	if (start - side * 2 <= 0) before = before.trimStart();
	if (before.length > side) before = `…${safeSlice(before, before.length - (side - 1), before.length).trimStart()}`;
	else if (start - side * 2 > 0) before = `…${before.trimStart()}`;
	let after = flattenKeepEnds(safeSlice(text, end, end + side * 2));
	if (end + side * 2 >= text.length) after = after.trimEnd();
	if (after.length > side) after = `${safeSlice(after, 0, side - 1).trimEnd()}…`;
	else if (end + side * 2 < text.length) after = `${after.trimEnd()}…`;
	return { snippet: before + match + after, matchStart: before.length, matchEnd: before.length + match.length };
}

interface PendingHit {
	entryId: string;
	role: string;
	snippet: string;
	matchStart: number;
	matchEnd: number;
}

class SearchVisitor implements EntryVisitor {
	name: string | undefined;
	readonly hits: PendingHit[] = [];
	constructor(
		private readonly matcher: Matcher,
		private readonly budget: number,
		private readonly width: number,
	) {}

	visit(entry: EntryView): void {
		if (entry.type === "session_info") {
			const name = entry.record().name;
			this.name = typeof name === "string" ? name.trim() || undefined : undefined;
			return;
		}
		if (!SEARCHED_TYPES.has(entry.type) || this.hits.length >= this.budget) return;
		const needle = this.matcher.needle;
		const hasNeedle = needle ? entry.includes(needle) : undefined;
		if (hasNeedle === false) {
			if (entry.includes(ESCAPE_U) === false) return;
		} else if (hasNeedle === undefined && entry.text !== undefined && !this.matcher.mayMatch(entry.text)) return;
		const searchable = searchableTexts(entry.record());
		if (!searchable) return;
		for (const text of searchable.texts) {
			const found = this.matcher.find(text);
			if (!found) continue;
			this.hits.push({
				entryId: entry.id,
				role: searchable.role,
				...makeSnippet(text, found.start, found.end, this.width),
			});
			return;
		}
	}
}

/** The ids on the path from the root to `leafId`. */
function activePath(leafId: string | null, parents: ReadonlyMap<string, string | null>): Set<string> {
	const path = new Set<string>();
	for (let id = leafId; id !== null && !path.has(id); id = parents.get(id) ?? null) path.add(id);
	return path;
}

/**
 * Searches one session file.
 * @throws SkippedFile for a file that is not a session or cannot be read
 */
export function searchSession(
	file: string,
	matcher: Matcher,
	options: { limit?: number; snippetWidth?: number } = {},
): { hits: SearchHit[]; warnings: string[] } {
	const budget = options.limit ?? Number.POSITIVE_INFINITY;
	const { result, visitor } = scanSession(file, () => new SearchVisitor(matcher, budget, options.snippetWidth ?? 100), {
		parents: true,
	});
	if (visitor.hits.length === 0) return { hits: [], warnings: result.warnings };
	const path = activePath(result.leafId, result.parents ?? new Map());
	const sessionId = String(result.header.id);
	const hits = visitor.hits.map((hit) => ({
		file,
		sessionId,
		name: visitor.name ?? null,
		entryId: hit.entryId,
		role: hit.role,
		onActiveBranch: path.has(hit.entryId),
		snippet: hit.snippet,
		matchStart: hit.matchStart,
		matchEnd: hit.matchEnd,
	}));
	return { hits, warnings: result.warnings };
}

/** Files newest first by modification time (ties by name): recent sessions are searched first. */
export function newestFilesFirst(files: readonly string[]): string[] {
	const keyed = files.map((file) => {
		let mtime = 0;
		try {
			mtime = statSync(file).mtimeMs;
		} catch {
			// Reported when the file is scanned.
		}
		return { file, mtime };
	});
	keyed.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
	return keyed.map((item) => item.file);
}

/** What {@link searchSessions} found. */
export interface SearchResult {
	hits: SearchHit[];
	skipped: SkippedSession[];
	/** Problems in files that were still searched, by file. */
	warnings: Array<{ file: string; message: string }>;
}

/** Searches files in the given order, stopping at `limit` hits. */
export function searchSessions(files: readonly string[], matcher: Matcher, options: SearchOptions = {}): SearchResult {
	const limit = options.limit ?? Number.POSITIVE_INFINITY;
	const result: SearchResult = { hits: [], skipped: [], warnings: [] };
	let done = 0;
	for (const file of files) {
		if (result.hits.length >= limit) break;
		try {
			const found = searchSession(file, matcher, {
				limit: limit - result.hits.length,
				snippetWidth: options.snippetWidth ?? 100,
			});
			result.hits.push(...found.hits);
			for (const message of found.warnings) result.warnings.push({ file, message });
		} catch (error) {
			if (!(error instanceof SkippedFile)) throw error;
			result.skipped.push({ file, reason: error.message });
		}
		options.onProgress?.(++done, files.length);
	}
	return result;
}
