/**
 * What the conformance suite checks with: records and entries to write, reading records back
 * (envelopes through the read's source), outcome checks, and a store wrapper that records
 * what a store answered. Only the public contract is used, so any store can be checked.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
/** A current-version header with a fresh id, keys in pi's order. */
export function newHeader(cwd = "/conformance") {
    return { type: "session", version: 3, id: randomUUID(), timestamp: new Date().toISOString(), cwd };
}
let idCounter = 0;
/** A fresh 8-hex entry id (pi's shape), unique in this process. */
export function entryId() {
    idCounter = (idCounter + 1) % 0x100000000;
    return idCounter.toString(16).padStart(8, "0");
}
/** A user message entry in pi's layout (so stores with lazy bodies index it as an envelope). */
export function messageRecord(id, parentId, text) {
    return {
        type: "message",
        id,
        parentId,
        timestamp: new Date().toISOString(),
        message: { role: "user", content: text, timestamp: 1 },
    };
}
/** A chain of `count` user message entries under `parentId`. */
export function chain(count, parentId, text = "message") {
    const records = [];
    let parent = parentId;
    for (let i = 0; i < count; i++) {
        const id = entryId();
        records.push(messageRecord(id, parent, `${text} ${i}`));
        parent = id;
    }
    return records;
}
/** The same records as the JSON text a line holds: comparing these compares key order too. */
export function jsonTexts(records) {
    return records.map((record) => JSON.stringify(record));
}
/**
 * Every record of a read, in order: parsed records as they are, envelopes read back through
 * the read's source. Fails on a line that is damaged or torn (the suite writes none), and on
 * an envelope or a source from a store whose capabilities say it has no lazy bodies.
 */
export function recordsOf(read, capabilities, what = "read") {
    assert.ok(Array.isArray(read.lines), `${what}: lines is an array`);
    assert.equal(typeof read.position, "string", `${what}: the position is a string`);
    if (!capabilities.lazyBodies) {
        assert.equal(read.source, undefined, `${what}: a source, from a store whose capabilities say lazyBodies: false`);
    }
    const records = [];
    const envelopes = [];
    read.lines.forEach((line, at) => {
        assert.ok(!line.torn, `${what}: line ${line.line} comes back torn`);
        assert.equal(line.error, undefined, `${what}: line ${line.line} comes back damaged: ${line.error?.message}`);
        if (line.envelope !== undefined) {
            assert.ok(capabilities.lazyBodies, `${what}: an envelope, from a store whose capabilities say lazyBodies: false`);
            envelopes.push({ at, envelope: line.envelope });
            records.push(undefined);
            return;
        }
        assert.ok(line.record, `${what}: line ${line.line} has neither a record nor an envelope`);
        records.push(line.record);
    });
    if (envelopes.length > 0) {
        assert.ok(read.source, `${what}: envelopes without a source to read their bodies`);
        const texts = read.source.readLines(envelopes.map((item) => item.envelope));
        assert.equal(texts.length, envelopes.length, `${what}: the source returns one text per envelope`);
        envelopes.forEach((item, index) => {
            const record = JSON.parse(texts[index]);
            assert.equal(record.id, item.envelope.id, `${what}: the body read for envelope ${item.envelope.id}`);
            assert.equal(record.type, item.envelope.type, `${what}: the type of envelope ${item.envelope.id}`);
            records[item.at] = record;
        });
    }
    return records;
}
/** Asserts that a read holds exactly `want`, key order included. */
export function assertRecords(read, want, capabilities, what = "read") {
    assert.deepEqual(jsonTexts(recordsOf(read, capabilities, what)), jsonTexts(want), `${what}: the records`);
}
/** The position of an `ok` outcome; fails on any other. */
export function okPosition(outcome, what = "write") {
    assert.equal(outcome.status, "ok", `${what}: expected ok, got ${describeOutcome(outcome)}`);
    const position = outcome.position;
    assert.equal(typeof position, "string", `${what}: the position is a string`);
    return position;
}
/** The read of a `behind` outcome; fails on any other. */
export function behindRead(outcome, what = "write") {
    assert.equal(outcome.status, "behind", `${what}: expected behind, got ${describeOutcome(outcome)}`);
    return outcome.read;
}
/** Fails unless the outcome is `stale`. */
export function assertStale(outcome, what = "write") {
    assert.equal(outcome.status, "stale", `${what}: expected stale, got ${describeOutcome(outcome)}`);
}
function describeOutcome(outcome) {
    if (outcome.status === "behind")
        return `behind (${outcome.read.lines.length} line(s) appended by others)`;
    return outcome.status;
}
/**
 * Awaits `action` and fails unless it rejects (or throws) an error whose `code` is `code`.
 * Codes are compared, not classes, so a store that bundles its own copy of session-tree passes.
 */
export async function assertCode(action, code, what) {
    let failed = false;
    try {
        await action();
    }
    catch (error) {
        failed = true;
        assert.ok(error instanceof Error, `${what}: threw a non-Error: ${String(error)}`);
        const got = error.code;
        assert.equal(got, code, `${what}: expected a SessionTreeError ${code}, got code ${String(got)}: ${error.message}`);
    }
    assert.ok(failed, `${what}: expected a SessionTreeError ${code}, but it succeeded`);
}
/** A session's tree as a fixture's flat rows. */
export function treeRows(session) {
    return session.flattenTree().map(({ entry, depth, label }) => {
        const row = { id: entry.id, parentId: entry.parentId, type: entry.type, depth };
        if (label !== undefined)
            row.label = label;
        return row;
    });
}
/** A value as JSON sees it (undefined fields dropped), as pi's expected files were written. */
export function asJson(value) {
    return JSON.parse(JSON.stringify(value));
}
/**
 * A store that forwards every operation to `inner` and notes the outcome of each append and
 * replace, so a test can see that a `Session` met a `stale` or `behind` answer and recovered.
 */
export class RecordingStore {
    inner;
    outcomes = [];
    readTail;
    constructor(inner) {
        this.inner = inner;
        const readTail = inner.readTail?.bind(inner);
        if (readTail)
            this.readTail = readTail;
    }
    get location() {
        return this.inner.location;
    }
    get capabilities() {
        return this.inner.capabilities;
    }
    exists() {
        return this.inner.exists();
    }
    create(header) {
        return this.inner.create(header);
    }
    read() {
        return this.inner.read();
    }
    readSince(position) {
        return this.inner.readSince(position);
    }
    async append(records, expected) {
        const outcome = await this.inner.append(records, expected);
        this.outcomes.push({ op: "append", status: outcome.status });
        return outcome;
    }
    async replace(records, expected) {
        const outcome = await this.inner.replace(records, expected);
        this.outcomes.push({ op: "replace", status: outcome.status });
        return outcome;
    }
    derive(header) {
        return this.inner.derive(header);
    }
    flush() {
        return this.inner.flush();
    }
    close() {
        return this.inner.close();
    }
}
//# sourceMappingURL=helpers.js.map