/**
 * Entries whose body is parsed only when asked for.
 *
 * Opening a large session used to mean parsing every line, although resuming it needs only
 * the messages of the active context. A store may instead hand the loader the *envelope* of a
 * line (type, id, parent, timestamp, role, and where the line is); the tree is built from
 * envelopes, and a body is read back from the store and parsed the first time someone asks
 * for the entry. Pure: reading is the store's job, behind {@link LineSource}.
 */
import { SessionTreeError } from "./errors.js";
import { entryContentError, entryShapeError } from "./validate.js";
/**
 * What is known of a line without parsing it, and where it is. It is also the loader's
 * `ParsedLine` for that line (its `envelope` is itself), so a million lines cost one object each.
 */
export class Envelope {
    type;
    id;
    parentId;
    timestamp;
    role;
    offset;
    length;
    line;
    constructor(type, id, parentId, timestamp, 
    /** The message role, for `message` entries whose role could be read in place. */
    role, 
    /** Byte offset of the line in its store. */
    offset, 
    /** Byte length of the line, without its newline. */
    length, 
    /** 1-based line number, for messages. */
    line) {
        this.type = type;
        this.id = id;
        this.parentId = parentId;
        this.timestamp = timestamp;
        this.role = role;
        this.offset = offset;
        this.length = length;
        this.line = line;
    }
    /** The line as a `ParsedLine`: this envelope. */
    get envelope() {
        return this;
    }
}
/**
 * The bodies of one loaded session: reads lines from the source and turns them into entries,
 * with the checks a full parse at open would have made.
 */
export class LazyBodies {
    source;
    options;
    constructor(source, options) {
        this.source = source;
        this.options = options;
    }
    /** The entries of these envelopes, read in one pass over the store. */
    load(envelopes) {
        const texts = this.source.readLines(envelopes);
        return envelopes.map((envelope, i) => this.parse(envelope, texts[i]));
    }
    parse(envelope, text) {
        let record;
        let problem;
        try {
            const value = JSON.parse(text);
            if (value !== null && typeof value === "object" && !Array.isArray(value))
                record = value;
            else
                problem = "expected a JSON object";
        }
        catch (cause) {
            problem = `not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`;
        }
        if (record) {
            const shape = entryShapeError(record);
            if (shape)
                problem = shape;
            else if (record.type !== envelope.type || record.id !== envelope.id || record.parentId !== envelope.parentId) {
                problem = `the line no longer holds ${envelope.type} entry ${envelope.id} (the file was changed in place)`;
            }
        }
        if (problem || !record) {
            this.report("INVALID_JSON", problem ?? "unreadable", envelope, "its body is left out of the context");
            return stub(envelope);
        }
        const content = entryContentError(record);
        if (content)
            this.report("INVALID_RECORD", content, envelope, "kept in the tree, left out of the context");
        return record;
    }
    report(code, message, envelope, action) {
        const line = envelope.line;
        if (!this.options.lenient)
            throw new SessionTreeError(code, message, { file: this.options.file, line });
        this.options.problems.push({ code, message: `${message}; ${action}`, line, entryId: envelope.id });
    }
}
/** Stubs standing for unreadable bodies (see {@link isUnreadable}). */
const stubs = new WeakSet();
/**
 * True for an entry a lenient read could not parse: only its envelope is known. A repair
 * leaves it out of the rewritten file (its children move up to its parent).
 */
export function isUnreadable(entry) {
    return stubs.has(entry);
}
/** The entry as far as its envelope tells: what a lenient read keeps of an unreadable body. */
function stub(envelope) {
    const entry = {
        type: envelope.type,
        id: envelope.id,
        parentId: envelope.parentId,
        timestamp: envelope.timestamp,
    };
    stubs.add(entry);
    return entry;
}
//# sourceMappingURL=lazy.js.map