/**
 * Searching message text across the sessions of a collection: user and assistant text,
 * thinking, tool results, bash executions, custom messages, compaction and branch summaries.
 * Each session is read through its store and the reducer (see read.ts); an entry's line is
 * parsed only when its raw text may hold a match.
 */

import { SEARCHED_TYPES, searchableTexts } from "../core/search-text.js";
import type { SessionCollection, SessionListing, SessionStore, TextQuery } from "../storage/store.js";
import { flattenKeepEnds } from "./format.js";
import { type GuardedRegex, guardRegex, InvalidPattern } from "./regex-guard.js";

export { InvalidPattern };

import {
	asBuffer,
	type CatalogSession,
	compareLocations,
	listSessions,
	readListed,
	readSession,
	SkippedFile,
	smallestFirst,
} from "./read.js";
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
	/** Called after each session with the number done so far. */
	onProgress?: (done: number, total: number) => void;
	/**
	 * Read every session, even where the collection has a full-text index that could narrow the
	 * search first (an index matches by its own rules: PostgreSQL's by word prefixes).
	 */
	scan?: boolean;
}

/** A compiled query. */
export interface Matcher {
	/**
	 * Finds the first match in a text, or undefined.
	 * @throws InvalidPattern for a regular expression that takes too long on the text
	 */
	find(text: string): { start: number; end: number } | undefined;
	/** False only when the raw line of an entry cannot hold a match (the entry is then not parsed). */
	mayMatch(line: string): boolean;
	/**
	 * {@link mayMatch} of the raw line `bytes[start, end)` (UTF-8), without decoding it unless the
	 * query ignores case. Lines visited in order in the same `bytes` are searched in one pass.
	 */
	mayMatchBytes(bytes: Uint8Array, start: number, end: number): boolean;
	/** False when {@link mayMatch} is always true (a regular expression): raw lines are not worth reading. */
	readonly filters: boolean;
	/** The plain text looked for, for a collection's full-text index; absent for a regular expression. */
	readonly text?: TextQuery;
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * About how often a byte occurs in session text, relative to the others: English letter
 * frequencies (capitals a tenth of theirs), JSON's punctuation, digits. Only the order matters.
 */
function commonness(byte: number): number {
	if (byte >= 0x80) return 3;
	if (byte === 0x20 || byte === 0x22) return 20;
	const char = String.fromCharCode(byte);
	const letter = "etaoinshrdlcumwfgypbvkjxqz".indexOf(char.toLowerCase());
	if (letter >= 0) return (26 - letter) / (char === char.toLowerCase() ? 1 : 10);
	if (":,{}[]".includes(char)) return 10;
	if ("0123456789.-_/\\".includes(char)) return 3;
	return byte < 0x20 ? 0.1 : 0.5;
}

/**
 * The longest needle `Buffer.indexOf` searches by its first byte alone (a `memchr`, then a
 * comparison); it searches longer ones with Boyer-Moore-Horspool, which is several times
 * slower on session text.
 */
const MAX_MEMCHR_NEEDLE = 6;
/** A piece of a long needle searched for first is at least this long. */
const MIN_PIECE = 3;
/** Pieces found where the needle is not before the search looks for the whole needle instead. */
const MAX_PIECE_MISSES = 16;

/**
 * Where some bytes occur in raw lines. For lines visited in order in the same buffer it
 * remembers the next occurrence, so that buffer is searched once, not once per line. A long
 * needle is searched by a short piece of it that starts with its rarest byte (see
 * {@link MAX_MEMCHR_NEEDLE}), and checked whole where the piece is found.
 */
class Occurrences {
	private bytes: Uint8Array | undefined;
	private from = 0;
	/** The first occurrence at or after `from` in `bytes`, or -1. */
	private next = -1;
	/** The piece searched for, and where it is in the needle. */
	private readonly piece: Buffer;
	private readonly at: number;

	constructor(private readonly needle: Buffer) {
		let at = 0;
		if (needle.length > MAX_MEMCHR_NEEDLE) {
			for (let i = 1; i <= needle.length - MIN_PIECE; i++) {
				if (commonness(needle[i] as number) < commonness(needle[at] as number)) at = i;
			}
		}
		this.at = at;
		this.piece = needle.length > MAX_MEMCHR_NEEDLE ? needle.subarray(at, at + MAX_MEMCHR_NEEDLE) : needle;
	}

	/** True when `bytes[start, end)` holds the needle. */
	in(bytes: Uint8Array, start: number, end: number): boolean {
		if (bytes !== this.bytes || start < this.from || (this.next !== -1 && this.next < start)) {
			this.bytes = bytes;
			this.next = this.find(asBuffer(bytes), start);
		}
		this.from = start;
		return this.next !== -1 && this.next + this.needle.length <= end;
	}

	/** `buf.indexOf(needle, from)`. */
	private find(buf: Buffer, from: number): number {
		const { needle, piece, at } = this;
		if (piece === needle) return buf.indexOf(needle, from);
		let misses = 0;
		for (let i = buf.indexOf(piece, from + at); i !== -1; i = buf.indexOf(piece, i + 1)) {
			const candidate = i - at;
			if (candidate + needle.length > buf.length) return -1;
			if (buf.compare(needle, 0, needle.length, candidate, candidate + needle.length) === 0) return candidate;
			if (++misses === MAX_PIECE_MISSES) return buf.indexOf(needle, candidate + 1);
		}
		return -1;
	}
}

/** Characters JSON.stringify writes escaped: a raw line holds them differently from the text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes
const JSON_ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * Compiles a query. A regular expression is tried with the `u` flag first (so `.` is a whole
 * character) and without it if that fails (so patterns such as `\-` keep working); it runs in
 * linear time or under a time limit (regex-guard.ts), so its `find` may throw InvalidPattern.
 * @throws InvalidPattern for a regular expression that does not compile
 */
export function compileQuery(query: SearchQuery): Matcher {
	const flags = query.ignoreCase ? "i" : "";
	// A user's regular expression never runs on the backtracking engine in this thread: see regex-guard.ts.
	const guarded = query.regex ? compileRegex(query.pattern, flags) : undefined;
	const regex = new RegExp(escapeRegExp(query.pattern), `${flags}gu`);
	// A plain needle without characters JSON escapes appears verbatim in the raw line, unless
	// the line spells characters as \uXXXX escapes (JSON.stringify does not, others may).
	const plain = !query.regex && !JSON_ESCAPED.test(query.pattern);
	const lineTest = plain ? new RegExp(regex.source, query.ignoreCase ? "iu" : "u") : undefined;
	const mayMatch = (line: string): boolean => {
		if (!lineTest) return true;
		if (!query.ignoreCase && line.includes(query.pattern)) return true;
		return line.includes("\\u") || (query.ignoreCase === true && lineTest.test(line));
	};
	// The same test on bytes: the pattern's UTF-8 bytes, else `\u`. (U+FFFD is in the text where
	// the bytes are not UTF-8: such a pattern is looked for in the decoded line.)
	const bytesTell = lineTest !== undefined && !query.ignoreCase && !query.pattern.includes("\uFFFD");
	const needle = bytesTell ? new Occurrences(Buffer.from(query.pattern, "utf8")) : undefined;
	const escapes = new Occurrences(Buffer.from("\\u"));
	return {
		filters: lineTest !== undefined,
		text: query.regex ? undefined : { text: query.pattern, ignoreCase: query.ignoreCase === true },
		find(text) {
			if (guarded) return guarded.exec(text);
			regex.lastIndex = 0;
			const match = regex.exec(text);
			return match ? { start: match.index, end: match.index + match[0].length } : undefined;
		},
		mayMatch,
		mayMatchBytes(bytes, start, end) {
			if (!lineTest) return true;
			if (!needle) return mayMatch(asBuffer(bytes).toString("utf8", start, end));
			return needle.in(bytes, start, end) || escapes.in(bytes, start, end);
		},
	};
}

/** A regular expression with the `u` flag if it compiles with it, else without (so `\-` keeps working). */
function compileRegex(pattern: string, flags: string): GuardedRegex {
	try {
		return guardRegex(pattern, `${flags}u`);
	} catch {
		try {
			return guardRegex(pattern, flags);
		} catch (error) {
			throw new InvalidPattern(error instanceof Error ? error.message : String(error));
		}
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

/** Entries whose raw lines are read at once, at first; the batches grow to {@link MAX_BATCH}. */
const FIRST_BATCH = 64;
const MAX_BATCH = 4096;

/**
 * The hits of one session, in stream order, at most `budget`. Candidates are taken in growing
 * batches: the raw lines of unparsed ones are read in one pass and pre-filtered on their bytes
 * (unless the query cannot rule a line out), and those that may match are parsed in one pass
 * (by the core's rules for bodies, from the lines already read) and searched.
 */
function findHits(session: CatalogSession, matcher: Matcher, budget: number, width: number): PendingHit[] {
	const hits: PendingHit[] = [];
	const candidates = session.nodes.filter((node) => SEARCHED_TYPES.has(node.type));
	for (let from = 0, size = FIRST_BATCH; from < candidates.length && hits.length < budget; ) {
		const batch = candidates.slice(from, from + size);
		from += size;
		size = Math.min(2 * size, MAX_BATCH);
		let searched = batch;
		if (matcher.filters) {
			const unparsed = batch.filter((node) => session.unparsed(node));
			const kept = new Set(
				session.filterLines(unparsed, (bytes, start, end) => matcher.mayMatchBytes(bytes, start, end)),
			);
			searched = batch.filter((node) => kept.has(node) || !session.unparsed(node));
		}
		const entries = session.entries(searched);
		for (const [i, node] of searched.entries()) {
			if (hits.length >= budget) break;
			const searchable = searchableTexts(entries[i] as object);
			if (!searchable) continue;
			for (const text of searchable.texts) {
				const found = matcher.find(text);
				if (!found) continue;
				hits.push({ entryId: node.id, role: searchable.role, ...makeSnippet(text, found.start, found.end, width) });
				break;
			}
		}
	}
	return hits;
}

/** The hits of a session, completed with where they are. */
function searchIn(session: CatalogSession, matcher: Matcher, options: { limit?: number; snippetWidth?: number }) {
	const pending = findHits(session, matcher, options.limit ?? Number.POSITIVE_INFINITY, options.snippetWidth ?? 100);
	if (pending.length === 0) return [];
	const active = new Set(session.tree.getPath().map((node) => node.id));
	const sessionId = String(session.header.id);
	const name = session.tree.getSessionName() ?? null;
	return pending.map(
		(hit): SearchHit => ({
			file: session.location,
			sessionId,
			name,
			entryId: hit.entryId,
			role: hit.role,
			onActiveBranch: active.has(hit.entryId),
			snippet: hit.snippet,
			matchStart: hit.matchStart,
			matchEnd: hit.matchEnd,
		}),
	);
}

/**
 * Searches one session of a store.
 * @throws SkippedFile for a session that is not one or cannot be read
 */
export async function searchSession(
	store: SessionStore,
	matcher: Matcher,
	options: { limit?: number; snippetWidth?: number } = {},
): Promise<{ hits: SearchHit[]; warnings: readonly string[] }> {
	const { session, value } = await readSession(store, {}, (read) => searchIn(read, matcher, options));
	return { hits: value, warnings: session.warnings };
}

/** Sessions newest first by modification time (ties by location): recent sessions are searched first. */
export function newestFirst(listings: readonly SessionListing[]): SessionListing[] {
	const time = (listing: SessionListing) => listing.modified?.getTime() ?? 0;
	return [...listings].sort((a, b) => time(b) - time(a) || compareLocations(a.location, b.location));
}

/** What {@link searchSessions} found. */
export interface SearchResult {
	hits: SearchHit[];
	/** How many sessions the collection listed. */
	sessions: number;
	skipped: SkippedSession[];
	/** Problems in sessions that were still searched, by location. */
	warnings: Array<{ file: string; message: string }>;
}

/** What one session gave: its hits and warnings, or why it was skipped. */
type Outcome = { hits: SearchHit[]; warnings: readonly string[] } | { skipped: string };

/**
 * The sessions a collection's full-text index says may hold the text, or undefined when it
 * has no index or the index cannot narrow this query (a regular expression, a short text).
 */
async function indexed(collection: SessionCollection, matcher: Matcher): Promise<Set<string> | undefined> {
	if (!collection.capabilities.search || !collection.searchText || !matcher.text) return undefined;
	const locations = await collection.searchText(matcher.text);
	return locations && new Set(locations);
}

/**
 * Searches the sessions of a collection, newest first, stopping at `limit` hits. (Without a
 * limit they are read smallest first, see `smallestFirst`; what is found is the same.)
 */
export async function searchSessions(
	collection: SessionCollection,
	matcher: Matcher,
	options: SearchOptions = {},
): Promise<SearchResult> {
	const limit = options.limit ?? Number.POSITIVE_INFINITY;
	const all = await listSessions(collection);
	const candidates = options.scan ? undefined : await indexed(collection, matcher);
	const listings = newestFirst(candidates ? all.filter((listing) => candidates.has(listing.location)) : all);
	const outcomes: Array<Outcome | undefined> = new Array(listings.length);
	let found = 0;
	let done = 0;
	// A limit may stop the search early: newest first then. Else every session is read (see smallestFirst).
	const order = Number.isFinite(limit) ? listings.map((_, i) => i) : smallestFirst(listings);
	for (const index of order) {
		if (found >= limit) break;
		const listing = listings[index] as SessionListing;
		try {
			const { session, value } = await readListed(collection, listing, (read) =>
				searchIn(read, matcher, { limit: limit - found, snippetWidth: options.snippetWidth ?? 100 }),
			);
			outcomes[index] = { hits: value, warnings: session.warnings };
			found += value.length;
		} catch (error) {
			if (!(error instanceof SkippedFile)) throw error;
			outcomes[index] = { skipped: error.message };
		}
		options.onProgress?.(++done, listings.length);
	}
	const result: SearchResult = { hits: [], sessions: all.length, skipped: [], warnings: [] };
	outcomes.forEach((outcome, i) => {
		const file = (listings[i] as SessionListing).location;
		if (!outcome) return;
		if ("skipped" in outcome) result.skipped.push({ file, reason: outcome.skipped });
		else {
			for (const hit of outcome.hits) result.hits.push(hit);
			for (const message of outcome.warnings) result.warnings.push({ file, message });
		}
	});
	return result;
}
