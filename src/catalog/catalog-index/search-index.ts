/**
 * Searching the index: the same hits as `searchSessions` (search.ts) over the same sessions.
 * The stored texts are the texts search.ts matches (`searchableTexts`), matched by the same
 * matcher (`compileQuery`, `makeSnippet`), session by session newest first (the listed time,
 * ties by location) and entry by entry in stream order, the first matching text of an entry
 * making its hit. FTS5 only narrows which entries are matched: for a literal query of 3 or
 * more characters its trigram index (which folds case) finds every entry holding the text in
 * any case, a superset of the exact hits. Where that is not provably a superset (a regular
 * expression, a shorter text, an ignore-case text with characters beyond ASCII, whose case
 * folding SQLite and JavaScript may do differently), every stored text is matched instead,
 * still without reading a session file. The active branch is walked from the leaf along the
 * stored parents at query time, so an append that moved the leaf is seen.
 */

import { redactText } from "../../render/redact.js";
import type { SqliteDatabase } from "../../storage/sql/sqlite-schema.js";
import type { Agent } from "../agents.js";
import { compareLocations } from "../read.js";
import { compileQuery, type Matcher, makeSnippet, type SearchHit, type SearchQuery } from "../search.js";

/** A hit of the index: a {@link SearchHit} with the session's key and agent. */
export type IndexHit = SearchHit & { key: string; agent: Agent | null };

/** Options of an index search. */
export interface IndexSearchOptions {
	agent?: Agent | null;
	cwd?: string;
	/** Only sessions of this source. */
	source?: string;
	/** Only sessions of these sources. */
	sources?: readonly string[];
	/** Only the session of this key. */
	key?: string;
	limit?: number;
	snippetWidth?: number;
	/**
	 * Snippets cut from the text with its secrets redacted (the export's rules, render/redact.ts),
	 * so that no part of a secret is cut into one: the match is looked for again in the redacted
	 * text, and where it was inside a secret the snippet is the redacted text's beginning. The
	 * hits are the same; only their snippets differ. Default false.
	 */
	redact?: boolean;
}

interface Candidate {
	entry_id: string;
	role: string;
	texts: string;
}

interface SearchedSession {
	sid: number;
	key: string;
	location: string;
	agent: Agent | null;
	id: string;
	name: string | null;
	leaf_id: string | null;
	listed_ms: number;
}

/** True when the trigram index finds every entry that can match `query` (see the module comment). */
export function narrowsExactly(query: SearchQuery): boolean {
	if (query.regex) return false;
	const pattern = query.pattern;
	if ([...pattern].length < 3 || /\p{Cs}|\0/u.test(pattern)) return false;
	// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII is what is asked
	return !query.ignoreCase || /^[\u0000-\u007f]*$/.test(pattern);
}

/** Trigrams asked for at most: a long text is looked up by some of its trigrams (still a superset). */
const MAX_TRIGRAMS = 12;

/**
 * The FTS5 query for the entries holding every trigram of `pattern` (at most
 * {@link MAX_TRIGRAMS} of them, spread over it), each a quoted string: no query syntax. The
 * index keeps no positions (schema.ts), so the trigrams are asked for separately.
 */
export function trigramQuery(pattern: string): string {
	const chars = [...pattern];
	const all = [...new Set(chars.slice(0, -2).map((_, i) => chars.slice(i, i + 3).join("")))];
	const step = Math.max(1, all.length / MAX_TRIGRAMS);
	const picked = new Set<string>();
	for (let i = 0; i < all.length && picked.size < MAX_TRIGRAMS; i += step) picked.add(all[Math.floor(i)] as string);
	picked.add(all.at(-1) as string);
	return [...picked].map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(" AND ");
}

/** Sessions matching the filter, as `where` and its parameters. */
export function filterSql(options: {
	agent?: Agent | null;
	cwd?: string;
	source?: string;
	sources?: readonly string[];
	key?: string;
}): {
	where: string;
	params: unknown[];
} {
	const clauses = ["skipped IS NULL"];
	const params: unknown[] = [];
	if (options.agent === null) clauses.push("agent IS NULL");
	else if (options.agent !== undefined) {
		clauses.push("agent = ?");
		params.push(options.agent);
	}
	if (options.cwd !== undefined) {
		clauses.push("cwd = ?");
		params.push(options.cwd);
	}
	if (options.source !== undefined) {
		clauses.push("source = ?");
		params.push(options.source);
	}
	if (options.sources !== undefined) {
		clauses.push(options.sources.length === 0 ? "0" : `source IN (${options.sources.map(() => "?").join(", ")})`);
		params.push(...options.sources);
	}
	if (options.key !== undefined) {
		clauses.push("key = ?");
		params.push(options.key);
	}
	return { where: clauses.join(" AND "), params };
}

/** The snippet of a hit from its text with secrets redacted (see {@link IndexSearchOptions.redact}). */
function redactedSnippet(
	matcher: Matcher,
	text: string,
	width: number,
): { snippet: string; matchStart: number; matchEnd: number } {
	const safe = redactText(text);
	const again = safe === text ? matcher.find(text) : matcher.find(safe);
	return again ? makeSnippet(safe, again.start, again.end, width) : makeSnippet(safe, 0, 0, width);
}

/** Searches the index (see the module comment). @throws InvalidPattern as `searchSessions` does */
export function searchIndex(
	db: SqliteDatabase,
	query: SearchQuery,
	options: IndexSearchOptions = {},
): { hits: IndexHit[]; sessions: number } {
	const matcher = compileQuery(query);
	const limit = options.limit ?? Number.POSITIVE_INFINITY;
	const width = options.snippetWidth ?? 100;
	const { where, params } = filterSql(options);
	const sessions = db
		.prepare<unknown[], SearchedSession>(
			`SELECT sid, key, location, agent, id, name, leaf_id, listed_ms FROM sessions WHERE ${where}`,
		)
		.all(...params)
		.sort((a, b) => b.listed_ms - a.listed_ms || compareLocations(a.location, b.location));
	// The entries the trigram index names, by session; their texts are read only when reached
	// (a limit may stop the search long before the last).
	let candidates: Map<number, Array<{ seq: number; eid: number }>> | undefined;
	if (narrowsExactly(query)) {
		candidates = new Map();
		const rows = db
			.prepare<[string], { sid: number; seq: number; eid: number }>(
				"SELECT e.sid, e.seq, e.eid FROM entry_text JOIN entries AS e ON e.eid = entry_text.rowid " +
					"WHERE entry_text MATCH ?",
			)
			.all(trigramQuery(query.pattern));
		for (const row of rows) {
			const list = candidates.get(row.sid);
			if (list) list.push(row);
			else candidates.set(row.sid, [row]);
		}
	}
	const textsOf = db.prepare<[number], Candidate>(
		"SELECT entry_id, role, texts FROM entries WHERE sid = ? AND texts IS NOT NULL ORDER BY seq",
	);
	const entry = db.prepare<[number], Candidate>("SELECT entry_id, role, texts FROM entries WHERE eid = ?");
	const read = function* (list: Array<{ seq: number; eid: number }>): Iterable<Candidate> {
		for (const { eid } of list.sort((a, b) => a.seq - b.seq)) yield entry.get(eid) as Candidate;
	};
	const hits: IndexHit[] = [];
	for (const session of sessions) {
		if (hits.length >= limit) break;
		const rows = candidates ? read(candidates.get(session.sid) ?? []) : textsOf.iterate(session.sid);
		const found: Array<Omit<IndexHit, "onActiveBranch">> = [];
		for (const row of rows) {
			if (hits.length + found.length >= limit) break;
			for (const text of JSON.parse(row.texts) as string[]) {
				const match = matcher.find(text);
				if (!match) continue;
				found.push({
					file: session.location,
					sessionId: session.id,
					name: session.name,
					entryId: row.entry_id,
					role: row.role,
					...(options.redact === true
						? redactedSnippet(matcher, text, width)
						: makeSnippet(text, match.start, match.end, width)),
					key: session.key,
					agent: session.agent,
				});
				break;
			}
		}
		if (found.length === 0) continue;
		const active = activeBranch(db, session.sid, session.leaf_id);
		for (const hit of found) hits.push({ ...hit, onActiveBranch: active.has(hit.entryId) });
	}
	return { hits, sessions: sessions.length };
}

/** The ids on the path from the root to the leaf, from the stored parents. */
export function activeBranch(db: SqliteDatabase, sid: number, leaf: string | null): Set<string> {
	const parents = new Map<string, string | null>();
	for (const row of db
		.prepare<[number], { entry_id: string; parent_id: string | null }>(
			"SELECT entry_id, parent_id FROM entries WHERE sid = ?",
		)
		.iterate(sid)) {
		parents.set(row.entry_id, row.parent_id);
	}
	const path = new Set<string>();
	for (let id = leaf; id !== null && !path.has(id); id = parents.get(id) ?? null) path.add(id);
	return path;
}
