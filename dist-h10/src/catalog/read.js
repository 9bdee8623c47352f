/**
 * Reading the sessions of a collection for `ls` and `search`. The collection lists them; each
 * session's store reads its lines (a file store hands most entries back as envelopes: type, id,
 * parent, timestamp, role and where the line is, without parsing the line); the core reducer
 * interprets them exactly as an open does; summaries and searches run over the reducer's tree.
 * A body is read only when asked for, through the store's line source: a whole raw line for a
 * pre-filter, the start or the end of a line for a peek, or the parsed entry (checked by the
 * reducer's rules) through `TreeNode.entry` and `TreeNode.load`. There is no second reader of
 * the format here: envelopes come from `storage/envelope.ts`, meaning from `core/reducer.ts`.
 *
 * A session a strict read rejects for damage is read again as a lenient open reads it, with a
 * warning naming the line; one that is not a session at all (no header, a newer format) or
 * that cannot be read is skipped with the reason. Damage in a body nobody reads is not noticed:
 * that line is never parsed.
 */
import { SessionTreeError } from "../core/errors.js";
import { Envelope } from "../core/lazy.js";
import { loadTree } from "../core/load.js";
import { stripLocation } from "../core/reducer.js";
/** A session that is not listed, and why: not a session at all, or unreadable. */
export class SkippedFile extends Error {
    /** The session's location (a file path for a directory collection). */
    file;
    constructor(file, reason) {
        super(reason);
        this.name = "SkippedFile";
        this.file = file;
    }
}
/** Errors of a strict read that a lenient read works around. */
const DAMAGE = new Set([
    "INVALID_JSON",
    "NUL_PADDING",
    "GLUED_RECORDS",
    "INVALID_RECORD",
    "MISSING_PARENT",
    "DUPLICATE_ID",
    "PARENT_CYCLE",
    "ENTRY_NOT_FOUND",
]);
/** Errors that mean the stream is no session (or none this library reads). */
const NOT_A_SESSION = new Set(["INVALID_HEADER", "EMPTY_FILE"]);
/**
 * A line source that keeps the texts of the lines last read for a pre-filter: the bodies the
 * reducer parses next (through this source) are then not read and decoded a second time.
 */
class RememberingSource {
    source;
    remembered = new Map();
    constructor(source) {
        this.source = source;
    }
    /** Keeps these texts (and forgets those kept before). */
    remember(lines, texts) {
        this.remembered = new Map(lines.map((line, i) => [line, texts[i]]));
    }
    readLines(spans) {
        const texts = new Array(spans.length);
        const missing = [];
        const at = [];
        spans.forEach((span, i) => {
            const text = this.remembered.get(span);
            if (text !== undefined)
                texts[i] = text;
            else {
                missing.push(span);
                at.push(i);
            }
        });
        if (missing.length > 0) {
            const read = this.source.readLines(missing);
            at.forEach((i, k) => {
                texts[i] = read[k];
            });
        }
        return texts;
    }
}
/** One session as the reducer read it, with its raw lines at hand. */
export class CatalogSession {
    location;
    tree;
    source;
    bytes;
    modified;
    warnings;
    constructor(
    /** Where the session is (a file path for a directory collection). */
    location, 
    /** The settled tree, its leaf where the stream puts it. */
    tree, source, 
    /** The size the collection listed (0 when it does not know). */
    bytes, 
    /** When the session last changed, as the collection listed it (the epoch when it does not know). */
    modified, 
    /** Problems that did not stop the session from being read. */
    warnings) {
        this.location = location;
        this.tree = tree;
        this.source = source;
        this.bytes = bytes;
        this.modified = modified;
        this.warnings = warnings;
    }
    /** The header, as read (migrated to the current version). */
    get header() {
        return this.tree.header;
    }
    /** The entries (persisted-leaf records excluded), in stream order. */
    get nodes() {
        return this.tree.nodesInOrder();
    }
    /** The number of leaves, as `Session.listBranches().length`. */
    get branches() {
        let leaves = 0;
        for (const node of this.tree.nodesInOrder())
            if (!node.children)
                leaves++;
        return leaves;
    }
    /** True when the store left the node's body unparsed: its raw line can be read. */
    unparsed(node) {
        return this.source !== undefined && node.envelope !== undefined && !node.loaded;
    }
    /**
     * The raw lines of unparsed nodes (see {@link unparsed}), read in one pass over the store.
     * They are kept until the next call, so parsing those nodes next does not read them again.
     */
    rawLines(nodes) {
        const texts = this.readParts(nodes, (line) => line);
        if (this.source instanceof RememberingSource) {
            this.source.remember(nodes.map((node) => node.envelope), texts);
        }
        return texts;
    }
    /**
     * The first `bytes` bytes of the raw lines of unparsed nodes, decoded (a character cut at
     * the end shows as U+FFFD), read in one pass without decoding the rest of the lines.
     */
    lineHeads(nodes, bytes) {
        return this.readParts(nodes, (line) => part(line, line.offset, Math.min(bytes, line.length)));
    }
    /** The last `bytes` bytes of the raw lines of unparsed nodes (see {@link lineHeads}). */
    lineTails(nodes, bytes) {
        return this.readParts(nodes, (line) => {
            const length = Math.min(bytes, line.length);
            return part(line, line.offset + line.length - length, length);
        });
    }
    readParts(nodes, span) {
        if (nodes.length === 0)
            return [];
        return this.requireSource().readLines(nodes.map((node) => span(node.envelope)));
    }
    requireSource() {
        if (!this.source)
            throw new Error("this session's store returned no unparsed lines");
        return this.source;
    }
}
/** A span of bytes inside a line, in the shape the line source reads. */
function part(line, offset, length) {
    return new Envelope(line.type, line.id, line.parentId, line.timestamp, line.role, offset, length, line.line);
}
/** The sessions a collection lists, by location. */
export async function listSessions(collection) {
    const listings = [];
    for await (const listing of collection.list())
        listings.push(listing);
    return listings.sort((a, b) => compareLocations(a.location, b.location));
}
/** Orders locations by code unit. */
export function compareLocations(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
}
/**
 * Reads one listed session of a collection and runs `use` over it (see {@link readSession}),
 * then closes its store.
 * @throws SkippedFile for a session that is not one or cannot be read
 */
export async function readListed(collection, listing, use) {
    let store;
    try {
        store = collection.open(listing.location);
    }
    catch (error) {
        throw skipped(listing.location, error);
    }
    try {
        return await readSession(store, listing, use);
    }
    finally {
        await store.close();
    }
}
/**
 * Reads a session through its store and the reducer (strict), and runs `use` over it. If the
 * reducer, or `use` parsing a body, finds damage, the session is read again as a lenient open
 * reads it and `use` runs again from the start on that (so `use` must not keep state between
 * calls), with one warning naming the first problem.
 * @throws SkippedFile for a session that is not one or cannot be read
 */
export async function readSession(store, listing, use) {
    const location = store.location;
    let read;
    try {
        read = await store.read();
    }
    catch (error) {
        throw skipped(location, error);
    }
    const source = read.source && new RememberingSource(read.source);
    let strictError;
    try {
        const { tree, problems } = loadTree(read.lines, { file: location, source });
        // A strict read throws on every problem but an incomplete last line, which it leaves out.
        const warnings = problems.map((problem) => withLine(problem.message, problem.line));
        const session = new CatalogSession(location, tree, source, listing.bytes ?? 0, modifiedOf(listing), warnings);
        return { session, value: use(session) };
    }
    catch (error) {
        if (!(error instanceof SessionTreeError) || !DAMAGE.has(error.code))
            throw skipped(location, error);
        strictError = error;
    }
    try {
        const { tree, problems } = loadTree(read.lines, { lenient: true, file: location, source });
        // Every body, so the warning counts every problem, as `Session.open(…, { lenient, verify })` does.
        tree.getEntries();
        const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems)` : "";
        const warning = `damaged: ${reasonOf(strictError)}${more}; read as a lenient open reads it`;
        const session = new CatalogSession(location, tree, source, listing.bytes ?? 0, modifiedOf(listing), [warning]);
        return { session, value: use(session) };
    }
    catch (error) {
        throw skipped(location, error instanceof SessionTreeError && DAMAGE.has(error.code) ? strictError : error);
    }
}
function modifiedOf(listing) {
    return listing.modified ?? new Date(0);
}
/** A SkippedFile for a read that failed with `error`; errors that are not the session's are thrown on. */
function skipped(location, error) {
    if (!(error instanceof SessionTreeError))
        throw error;
    const reason = reasonOf(error);
    return new SkippedFile(location, NOT_A_SESSION.has(error.code) ? `not a session file: ${reason}` : reason);
}
/** An error's message without the file its constructor put in front (the warning names it). */
function reasonOf(error) {
    if (error.line !== undefined)
        return withLine(stripLocation(error), error.line);
    const prefix = error.file === undefined ? "" : `${error.file}: `;
    return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}
function withLine(message, line) {
    return line === undefined || line === 0 ? message : `line ${line}: ${message}`;
}
//# sourceMappingURL=read.js.map