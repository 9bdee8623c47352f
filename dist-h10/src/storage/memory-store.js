/**
 * A store that keeps the lines in memory: same codec, same behaviour, no file. Sessions are
 * held in named spaces: every store object for `memory:NAME` in this process sees the same
 * lines, as every store object for one path sees the same file, so several writers can share
 * a memory session through separate stores.
 */
import { SessionTreeError } from "../core/errors.js";
import { encodeRecord, isBlankLine, parseLine } from "./codec.js";
/** Every memory session of this process, by name. */
const spaces = new Map();
let counter = 0;
const CAPABILITIES = Object.freeze({
    lazyBodies: false,
    tailReads: false,
    durability: Object.freeze(["none"]),
});
/** The name part of a `memory:NAME` location (names are free text but never empty). */
function nameOf(location) {
    const name = location.startsWith("memory:") ? location.slice("memory:".length) : location;
    if (name === "")
        throw new SessionTreeError("INVALID_ARGUMENT", "a memory location needs a name: memory:NAME");
    return name;
}
/**
 * An in-memory {@link SessionStore}. Lines are encoded and parsed exactly as in a file, so a
 * session reopened from it behaves as one reopened from disk.
 */
export class MemorySessionStore {
    location;
    capabilities = CAPABILITIES;
    name;
    /** @param name the session's name in this process; default: a fresh one */
    constructor(name = `session-${++counter}`) {
        this.name = nameOf(name);
        this.location = `memory:${this.name}`;
    }
    async exists() {
        return spaces.has(this.name);
    }
    async create(header) {
        if (spaces.has(this.name))
            throw new SessionTreeError("FILE_EXISTS", "the session already exists", this.where());
        const records = { lines: [encodeRecord(header)], generation: 0, backups: [], modified: new Date() };
        spaces.set(this.name, records);
        return positionOf(records);
    }
    async read() {
        const records = this.required();
        return { lines: this.parse(records, 0), position: positionOf(records) };
    }
    async readSince(position) {
        const records = spaces.get(this.name);
        const at = records && this.decode(position);
        if (!records || !at || at.generation !== records.generation || at.count > records.lines.length)
            return undefined;
        return { lines: this.parse(records, at.count), position: positionOf(records) };
    }
    async append(records, expected) {
        const stored = this.required();
        const behind = this.behind(stored, expected);
        if (behind)
            return behind;
        for (const record of records)
            stored.lines.push(encodeRecord(record));
        stored.modified = new Date();
        return { status: "ok", position: positionOf(stored) };
    }
    async replace(records, expected) {
        const stored = this.required();
        const behind = this.behind(stored, expected);
        if (behind)
            return behind;
        stored.backups.push(stored.lines);
        stored.lines = records.map(encodeRecord);
        stored.generation++;
        stored.modified = new Date();
        return { status: "ok", backup: `${this.location}#backup-${stored.backups.length}`, position: positionOf(stored) };
    }
    derive(header) {
        return new MemorySessionStore(header.id);
    }
    /** The stored text, as a file would hold it. */
    text() {
        return (spaces.get(this.name)?.lines ?? []).join("");
    }
    async flush() { }
    async close() { }
    /** Forgets the session (for tests and long-running processes that create many). */
    delete() {
        spaces.delete(this.name);
    }
    /** Synchronous on purpose: the check and the write happen in one turn, with no other writer between. */
    behind(stored, expected) {
        const at = this.decode(expected);
        if (at.generation !== stored.generation || at.count > stored.lines.length)
            return { status: "stale" };
        if (at.count === stored.lines.length)
            return undefined;
        return { status: "behind", read: { lines: this.parse(stored, at.count), position: positionOf(stored) } };
    }
    where() {
        return { file: this.location };
    }
    required() {
        const records = spaces.get(this.name);
        if (!records)
            throw new SessionTreeError("FILE_NOT_FOUND", "no such session", this.where());
        return records;
    }
    decode(position) {
        const [generation, count] = position.split("/").map(Number);
        if (!Number.isSafeInteger(generation) || !Number.isSafeInteger(count)) {
            throw new SessionTreeError("INVALID_ARGUMENT", `not a position of this store: ${JSON.stringify(position)}`);
        }
        return { generation: generation, count: count };
    }
    parse(records, from) {
        const out = [];
        for (let index = from; index < records.lines.length; index++) {
            const text = records.lines[index].slice(0, -1);
            if (!isBlankLine(text))
                out.push(parseLine(text, index + 1, this.location));
        }
        return out;
    }
}
function positionOf(records) {
    return `${records.generation}/${records.lines.length}`;
}
const COLLECTION_CAPABILITIES = Object.freeze({ listing: true, search: false });
/** Every memory session of this process, as one collection (`memory:`). */
export class MemoryCollection {
    location = "memory:";
    capabilities = COLLECTION_CAPABILITIES;
    async *list() {
        for (const [name, records] of [...spaces]) {
            yield { location: `memory:${name}`, modified: records.modified, bytes: Buffer.byteLength(records.lines.join("")) };
        }
    }
    open(location) {
        return new MemorySessionStore(location);
    }
}
//# sourceMappingURL=memory-store.js.map