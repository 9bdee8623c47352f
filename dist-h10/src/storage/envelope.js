/**
 * Reading the envelope of a line without parsing the line: `type`, `id`, `parentId`,
 * `timestamp` and, for messages, the role. pi (and session-tree) write `message`,
 * `branch_summary`, `compaction`, `model_change` and `thinking_level_change` entries with these
 * keys first, in this order and without white space:
 *
 *     {"type":"message","id":"…","parentId":"…"|null,"timestamp":"…","message":{"role":"…",…
 *
 * so they can be read at fixed places from the bytes. A line that does not match exactly is
 * simply parsed as JSON by the caller; nothing here decides what a line means.
 */
import { Envelope } from "../core/lazy.js";
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const PREFIX = Buffer.from('{"type":"');
const ID_KEY = Buffer.from('","id":"');
const PARENT_KEY = Buffer.from('","parentId":');
const NULL = Buffer.from("null");
const TIMESTAMP_KEY = Buffer.from(',"timestamp":"');
const ROLE_KEY = Buffer.from('","message":{"role":"');
/**
 * Entry types whose body may be left unparsed until asked for: messages (the bulk of a file)
 * and the other types pi writes with the envelope first. Labels, session names and `leaf`
 * records are parsed at open, because the tree's state depends on them; custom entries put
 * `customType` first, so they are parsed too.
 */
const LAZY_TYPES = ["message", "branch_summary", "compaction", "model_change", "thinking_level_change"].map((type) => ({
    type,
    bytes: Buffer.from(type),
}));
function lazyType(buf, start, end) {
    for (const candidate of LAZY_TYPES) {
        if (end - start === candidate.bytes.length && startsWithAt(buf, start, end, candidate.bytes))
            return candidate.type;
    }
    return undefined;
}
/** Roles kept as shared strings, so a million messages do not hold a million copies. */
const ROLES = new Map(["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"].map((r) => [
    r,
    r,
]));
/** The marker that starts the envelope of a record; a line holds it once unless records are glued. */
export const PARENT_MARKER = Buffer.from('"parentId":');
function slice(buf, start, end) {
    return buf.latin1Slice(start, end);
}
/** True when `buf[start, end)` holds exactly the characters of `text` (ASCII). */
function bytesEqual(buf, start, end, text) {
    if (end - start !== text.length)
        return false;
    for (let i = 0; i < text.length; i++)
        if (buf[start + i] !== text.charCodeAt(i))
            return false;
    return true;
}
function startsWithAt(buf, at, end, what) {
    if (at + what.length > end)
        return false;
    for (let i = 0; i < what.length; i++)
        if (buf[at + i] !== what[i])
            return false;
    return true;
}
/** End (index of the closing quote) of a plain string starting at `from`: no escapes, ASCII only. */
function plainStringEnd(buf, from, end) {
    for (let i = from; i < end; i++) {
        const c = buf[i];
        if (c === QUOTE)
            return i;
        if (c === BACKSLASH || c < 0x20 || c >= 0x80)
            return -1;
    }
    return -1;
}
/**
 * The envelope of the line `buf[start, end)` (without its newline), or undefined when the line
 * is not a lazily readable entry in pi's exact layout (then parse it whole). `offset` is the
 * line's position in the file, `line` its 1-based number.
 */
export function readEnvelope(buf, start, end, offset, line, previousId) {
    if (end - start < 64 || buf[end - 1] !== CLOSE_BRACE || !startsWithAt(buf, start, end, PREFIX))
        return undefined;
    let at = start + PREFIX.length;
    const typeEnd = plainStringEnd(buf, at, end);
    if (typeEnd < 0)
        return undefined;
    const type = lazyType(buf, at, typeEnd);
    if (type === undefined || !startsWithAt(buf, typeEnd, end, ID_KEY))
        return undefined;
    at = typeEnd + ID_KEY.length;
    const idEnd = plainStringEnd(buf, at, end);
    if (idEnd <= at)
        return undefined;
    const id = slice(buf, at, idEnd);
    if (!startsWithAt(buf, idEnd, end, PARENT_KEY))
        return undefined;
    at = idEnd + PARENT_KEY.length;
    let parentId;
    if (startsWithAt(buf, at, end, NULL)) {
        parentId = null;
        at += NULL.length;
    }
    else {
        if (buf[at] !== QUOTE)
            return undefined;
        const parentEnd = plainStringEnd(buf, at + 1, end);
        if (parentEnd < 0)
            return undefined;
        parentId =
            previousId !== undefined && bytesEqual(buf, at + 1, parentEnd, previousId)
                ? previousId
                : slice(buf, at + 1, parentEnd);
        at = parentEnd + 1;
    }
    if (!startsWithAt(buf, at, end, TIMESTAMP_KEY))
        return undefined;
    at += TIMESTAMP_KEY.length;
    const timestampEnd = plainStringEnd(buf, at, end);
    if (timestampEnd < 0)
        return undefined;
    const timestamp = slice(buf, at, timestampEnd);
    let role;
    if (type === "message" && startsWithAt(buf, timestampEnd, end, ROLE_KEY)) {
        const roleStart = timestampEnd + ROLE_KEY.length;
        const roleEnd = plainStringEnd(buf, roleStart, Math.min(end, roleStart + 32));
        if (roleEnd > roleStart)
            role = ROLES.get(slice(buf, roleStart, roleEnd));
    }
    return new Envelope(type, id, parentId, timestamp, role, offset, end - start, line);
}
//# sourceMappingURL=envelope.js.map