/**
 * Searching message text across the sessions of a collection: user and assistant text,
 * thinking, tool results, bash executions, custom messages, compaction and branch summaries.
 * Each session is read through its store and the reducer (see read.ts); an entry's line is
 * parsed only when its raw text may hold a match.
 */
import { TreeNode } from "../core/tree.js";
import { flattenKeepEnds } from "./format.js";
import { compareLocations, listSessions, readListed, readSession, SkippedFile, } from "./read.js";
/** The query is not a valid regular expression. */
export class InvalidPattern extends Error {
    constructor(message) {
        super(message);
        this.name = "InvalidPattern";
    }
}
function escapeRegExp(text) {
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
export function compileQuery(query) {
    const flags = query.ignoreCase ? "i" : "";
    let regex;
    if (query.regex) {
        try {
            regex = new RegExp(query.pattern, `${flags}gu`);
        }
        catch {
            try {
                regex = new RegExp(query.pattern, `${flags}g`);
            }
            catch (error) {
                throw new InvalidPattern(error instanceof Error ? error.message : String(error));
            }
        }
    }
    else {
        regex = new RegExp(escapeRegExp(query.pattern), `${flags}gu`);
    }
    // A plain needle without characters JSON escapes appears verbatim in the raw line, unless
    // the line spells characters as \uXXXX escapes (JSON.stringify does not, others may).
    const plain = !query.regex && !JSON_ESCAPED.test(query.pattern);
    const lineTest = plain ? new RegExp(regex.source, query.ignoreCase ? "iu" : "u") : undefined;
    return {
        find(text) {
            regex.lastIndex = 0;
            const match = regex.exec(text);
            return match ? { start: match.index, end: match.index + match[0].length } : undefined;
        },
        mayMatch(line) {
            if (!lineTest)
                return true;
            if (!query.ignoreCase && line.includes(query.pattern))
                return true;
            return line.includes("\\u") || (query.ignoreCase === true && lineTest.test(line));
        },
    };
}
/** Entry types whose text is searched. */
const SEARCHED_TYPES = new Set(["message", "custom_message", "compaction", "branch_summary"]);
/** The searchable texts of message content: text blocks and thinking. */
function contentTexts(content, out) {
    if (typeof content === "string") {
        out.push(content);
        return;
    }
    if (!Array.isArray(content))
        return;
    for (const block of content) {
        if (!block || typeof block !== "object")
            continue;
        const b = block;
        if (b.type === "text" && typeof b.text === "string")
            out.push(b.text);
        else if (b.type === "thinking" && typeof b.thinking === "string")
            out.push(b.thinking);
    }
}
/** The role (or entry type) and the texts of an entry that are searched. */
export function searchableTexts(record) {
    const texts = [];
    switch (record.type) {
        case "message": {
            const message = record.message;
            if (!message || typeof message !== "object")
                return undefined;
            const m = message;
            const role = typeof m.role === "string" ? m.role : "message";
            contentTexts(m.content, texts);
            if (role === "bashExecution") {
                if (typeof m.command === "string")
                    texts.push(m.command);
                if (typeof m.output === "string")
                    texts.push(m.output);
            }
            if (typeof m.summary === "string")
                texts.push(m.summary);
            return { role, texts };
        }
        case "custom_message":
            contentTexts(record.content, texts);
            return { role: "custom_message", texts };
        case "compaction":
        case "branch_summary":
            if (typeof record.summary === "string")
                texts.push(record.summary);
            return { role: record.type, texts };
        default:
            return undefined;
    }
}
/** A slice of `text` that does not cut a surrogate pair at either end. */
function safeSlice(text, start, end) {
    let from = Math.max(0, start);
    let to = Math.min(text.length, end);
    if (from > 0 && from < text.length && isLow(text.charCodeAt(from)) && isHigh(text.charCodeAt(from - 1)))
        from++;
    if (to > 0 && to < text.length && isLow(text.charCodeAt(to)) && isHigh(text.charCodeAt(to - 1)))
        to--;
    return text.slice(from, to);
}
function isHigh(code) {
    return code >= 0xd800 && code <= 0xdbff;
}
function isLow(code) {
    return code >= 0xdc00 && code <= 0xdfff;
}
/** Longest match shown in a snippet, in characters; a longer one is cut. */
const MAX_MATCH = 200;
/**
 * One line around a match: the match in the middle, cut with `…` at either side when the
 * text goes on, white space and controls flattened.
 */
export function makeSnippet(text, start, end, width = 100) {
    let match = flattenKeepEnds(safeSlice(text, start, Math.min(end, start + MAX_MATCH * 2)));
    if (match.length > MAX_MATCH)
        match = `${safeSlice(match, 0, MAX_MATCH)}…`;
    const side = Math.max(8, Math.floor((width - match.length) / 2));
    let before = flattenKeepEnds(safeSlice(text, start - side * 2, start));
    if (start - side * 2 <= 0)
        before = before.trimStart();
    if (before.length > side)
        before = `…${safeSlice(before, before.length - (side - 1), before.length).trimStart()}`;
    else if (start - side * 2 > 0)
        before = `…${before.trimStart()}`;
    let after = flattenKeepEnds(safeSlice(text, end, end + side * 2));
    if (end + side * 2 >= text.length)
        after = after.trimEnd();
    if (after.length > side)
        after = `${safeSlice(after, 0, side - 1).trimEnd()}…`;
    else if (end + side * 2 < text.length)
        after = `${after.trimEnd()}…`;
    return { snippet: before + match + after, matchStart: before.length, matchEnd: before.length + match.length };
}
/** Entries whose raw lines are read at once, at first; the batches grow to {@link MAX_BATCH}. */
const FIRST_BATCH = 64;
const MAX_BATCH = 4096;
/**
 * The hits of one session, in stream order, at most `budget`. Candidates are taken in growing
 * batches: the raw lines of unparsed ones are read in one pass and pre-filtered, and those that
 * may match are parsed in one pass (by the reducer's rules) and searched.
 */
function findHits(session, matcher, budget, width) {
    const hits = [];
    const candidates = session.nodes.filter((node) => SEARCHED_TYPES.has(node.type));
    for (let from = 0, size = FIRST_BATCH; from < candidates.length && hits.length < budget;) {
        const batch = candidates.slice(from, from + size);
        from += size;
        size = Math.min(2 * size, MAX_BATCH);
        const unparsed = batch.filter((node) => session.unparsed(node));
        const lines = session.rawLines(unparsed);
        const ruledOut = new Set(unparsed.filter((_, i) => !matcher.mayMatch(lines[i])));
        const searched = batch.filter((node) => !ruledOut.has(node));
        TreeNode.load(searched);
        for (const node of searched) {
            if (hits.length >= budget)
                break;
            const searchable = searchableTexts(node.entry);
            if (!searchable)
                continue;
            for (const text of searchable.texts) {
                const found = matcher.find(text);
                if (!found)
                    continue;
                hits.push({ entryId: node.id, role: searchable.role, ...makeSnippet(text, found.start, found.end, width) });
                break;
            }
        }
    }
    return hits;
}
/** The hits of a session, completed with where they are. */
function searchIn(session, matcher, options) {
    const pending = findHits(session, matcher, options.limit ?? Number.POSITIVE_INFINITY, options.snippetWidth ?? 100);
    if (pending.length === 0)
        return [];
    const active = new Set(session.tree.getPath().map((node) => node.id));
    const sessionId = String(session.header.id);
    const name = session.tree.getSessionName() ?? null;
    return pending.map((hit) => ({
        file: session.location,
        sessionId,
        name,
        entryId: hit.entryId,
        role: hit.role,
        onActiveBranch: active.has(hit.entryId),
        snippet: hit.snippet,
        matchStart: hit.matchStart,
        matchEnd: hit.matchEnd,
    }));
}
/**
 * Searches one session of a store.
 * @throws SkippedFile for a session that is not one or cannot be read
 */
export async function searchSession(store, matcher, options = {}) {
    const { session, value } = await readSession(store, {}, (read) => searchIn(read, matcher, options));
    return { hits: value, warnings: session.warnings };
}
/** Sessions newest first by modification time (ties by location): recent sessions are searched first. */
export function newestFirst(listings) {
    const time = (listing) => listing.modified?.getTime() ?? 0;
    return [...listings].sort((a, b) => time(b) - time(a) || compareLocations(a.location, b.location));
}
/** Searches the sessions of a collection, newest first, stopping at `limit` hits. */
export async function searchSessions(collection, matcher, options = {}) {
    const limit = options.limit ?? Number.POSITIVE_INFINITY;
    const listings = newestFirst(await listSessions(collection));
    const result = { hits: [], sessions: listings.length, skipped: [], warnings: [] };
    let done = 0;
    for (const listing of listings) {
        if (result.hits.length >= limit)
            break;
        const file = listing.location;
        try {
            const { session, value } = await readListed(collection, listing, (read) => searchIn(read, matcher, { limit: limit - result.hits.length, snippetWidth: options.snippetWidth ?? 100 }));
            result.hits.push(...value);
            for (const message of session.warnings)
                result.warnings.push({ file, message });
        }
        catch (error) {
            if (!(error instanceof SkippedFile))
                throw error;
            result.skipped.push({ file, reason: error.message });
        }
        options.onProgress?.(++done, listings.length);
    }
    return result;
}
//# sourceMappingURL=search.js.map