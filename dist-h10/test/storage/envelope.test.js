/**
 * Envelopes read in place (`readEnvelope`) and what the file store hands the loader: envelopes
 * only for `message`/`branch_summary` lines in pi's exact layout in a current-version file,
 * whole parses for everything else (so the salvage of damaged lines works as before), across
 * chunk boundaries too.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { Envelope } from "../../src/core/lazy.js";
import { FileSessionStore, isSessionTreeError, Session } from "../../src/index.js";
import { readEnvelope } from "../../src/storage/envelope.js";
const dir = mkdtempSync(join(tmpdir(), "st-envelope-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `f${++n}.jsonl`);
const T0 = "2026-03-01T10:00:00.000Z";
const header = (version) => JSON.stringify(version === undefined
    ? { type: "session", id: "sess-1", timestamp: T0, cwd: "/p" }
    : { type: "session", version, id: "sess-1", timestamp: T0, cwd: "/p" });
/** A message line in pi's key order. */
function messageLine(id, parentId, content = `text of ${id}`, role = "user") {
    return JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: T0,
        message: { role, content, timestamp: 1 },
    });
}
function summaryLine(id, parentId) {
    return JSON.stringify({ type: "branch_summary", id, parentId, timestamp: T0, fromId: "root", summary: "gone" });
}
/** `readEnvelope` on `text` placed after `pad` bytes of other data, as in a read chunk. */
function envelopeOf(text, options = {}) {
    const pad = options.pad ?? 0;
    const buf = Buffer.concat([Buffer.alloc(pad, 0x78), Buffer.from(text), Buffer.from("\nnext line")]);
    const end = pad + Buffer.byteLength(text);
    return readEnvelope(buf, pad, end, options.offset ?? 0, options.line ?? 1, options.previousId);
}
describe("readEnvelope", () => {
    test("a message line: every field, the role, and where the line is", () => {
        const text = messageLine("abcdef01", "abcdef00", "hello", "assistant");
        const env = envelopeOf(text, { pad: 37, offset: 12345, line: 7 });
        assert.ok(env instanceof Envelope);
        assert.equal(env.type, "message");
        assert.equal(env.id, "abcdef01");
        assert.equal(env.parentId, "abcdef00");
        assert.equal(env.timestamp, T0);
        assert.equal(env.role, "assistant");
        assert.equal(env.offset, 12345);
        assert.equal(env.length, Buffer.byteLength(text));
        assert.equal(env.line, 7);
        assert.equal(env.envelope, env, "an envelope is its own ParsedLine envelope");
    });
    test("the length is in bytes, with multi-byte characters in the body", () => {
        const text = messageLine("abcdef01", null, "héllo 😀 — ünïcode");
        const env = envelopeOf(text);
        assert.ok(env);
        assert.equal(env.length, Buffer.byteLength(text));
        assert.notEqual(env.length, text.length);
    });
    test("a null parent", () => {
        const env = envelopeOf(messageLine("abcdef01", null));
        assert.ok(env);
        assert.equal(env.parentId, null);
        assert.equal(env.id, "abcdef01");
        assert.equal(env.role, "user");
    });
    test("every known role is read; an unknown, escaped or missing role is left undefined", () => {
        for (const role of ["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary"]) {
            assert.equal(envelopeOf(messageLine("abcdef01", null, "x", role))?.role, role);
        }
        assert.equal(envelopeOf(messageLine("abcdef01", null, "x", "wizard"))?.role, undefined);
        const escaped = messageLine("abcdef01", null).replace('"role":"user"', '"role":"us\\u0065r"');
        assert.equal(envelopeOf(escaped)?.role, undefined);
        // Role not first in the message: still an envelope, role unknown until parsed.
        const late = JSON.stringify({
            type: "message",
            id: "abcdef01",
            parentId: null,
            timestamp: T0,
            message: { content: "x", role: "user" },
        });
        const env = envelopeOf(late);
        assert.ok(env);
        assert.equal(env.role, undefined);
        // A role that is not a string: still an envelope (the body check finds it later).
        const numeric = messageLine("abcdef01", null).replace('"role":"user"', '"role":5');
        assert.equal(envelopeOf(numeric)?.role, undefined);
        assert.ok(envelopeOf(numeric));
    });
    test("a branch_summary line: an envelope without a role", () => {
        const env = envelopeOf(summaryLine("abcdef02", "abcdef01"), { offset: 9, line: 3 });
        assert.ok(env);
        assert.equal(env.type, "branch_summary");
        assert.equal(env.id, "abcdef02");
        assert.equal(env.parentId, "abcdef01");
        assert.equal(env.role, undefined);
        assert.equal(env.offset, 9);
        assert.equal(env.line, 3);
    });
    test("a parent equal to previousId reuses that very value; a different one is read from the bytes", () => {
        // A String object makes identity observable: only a reuse returns the same object.
        const previous = new String("abcdef00");
        const env = envelopeOf(messageLine("abcdef01", "abcdef00"), { previousId: previous });
        assert.ok(env);
        assert.equal(env.parentId, previous, "the very previousId value");
        for (const other of ["abcdef0", "abcdef000", "abcdef0f", "ABCDEF00"]) {
            const otherPrevious = new String(other);
            const read = envelopeOf(messageLine("abcdef01", "abcdef00"), { previousId: otherPrevious });
            assert.ok(read);
            assert.equal(typeof read.parentId, "string", other);
            assert.equal(read.parentId, "abcdef00", other);
        }
        // A null parent stays null whatever the previous id.
        assert.equal(envelopeOf(messageLine("abcdef01", null), { previousId: "abcdef00" })?.parentId, null);
    });
    test("compaction, model_change and thinking_level_change lines give envelopes (no role)", () => {
        const stamp = { id: "abcdef02", parentId: "abcdef01", timestamp: T0 };
        for (const line of [
            JSON.stringify({ type: "compaction", ...stamp, summary: "s", firstKeptEntryId: "abcdef01", tokensBefore: 10 }),
            JSON.stringify({ type: "model_change", ...stamp, provider: "anthropic", modelId: "claude-sonnet-4-5" }),
            JSON.stringify({ type: "thinking_level_change", ...stamp, thinkingLevel: "high", padding: "x".repeat(20) }),
        ]) {
            const env = envelopeOf(line);
            assert.ok(env, line);
            assert.equal(env.type, JSON.parse(line).type);
            assert.equal(env.id, "abcdef02");
            assert.equal(env.parentId, "abcdef01");
            assert.equal(env.role, undefined);
        }
    });
    describe("lines that give no envelope (parsed whole instead)", () => {
        const base = messageLine("abcdef01", "abcdef00", "some message text long enough");
        const cases = [
            [
                "a label",
                JSON.stringify({
                    type: "label",
                    id: "abcdef02",
                    parentId: "abcdef01",
                    timestamp: T0,
                    targetId: "abcdef01",
                    label: "important",
                }),
            ],
            [
                "a custom entry",
                JSON.stringify({
                    type: "custom",
                    id: "abcdef02",
                    parentId: "abcdef01",
                    timestamp: T0,
                    customType: "ext",
                    data: { a: 1 },
                }),
            ],
            [
                "a custom_message",
                JSON.stringify({
                    type: "custom_message",
                    id: "abcdef02",
                    parentId: "abcdef01",
                    timestamp: T0,
                    customType: "ext",
                    content: "hello",
                    display: true,
                }),
            ],
            [
                "a session_info",
                JSON.stringify({ type: "session_info", id: "abcdef02", parentId: "abcdef01", timestamp: T0, name: "x" }),
            ],
            [
                "a leaf record",
                JSON.stringify({ type: "leaf", id: "abcdef02", parentId: null, timestamp: T0, targetId: "abcdef01" }),
            ],
            ["a header", header(3)],
            ["a type that only starts like message", base.replace('"type":"message"', '"type":"messages"')],
            ["a type that is a prefix of message", base.replace('"type":"message"', '"type":"messag"')],
            ["white space after a colon", base.replace('{"type":"message"', '{"type": "message"')],
            ["white space after the brace", base.replace('{"type":"message"', '{ "type":"message"')],
            ["white space after a comma", base.replace(',"id":', ', "id":')],
            ["white space before parentId", base.replace(',"parentId":', ', "parentId":')],
            ["white space after parentId", base.replace('"parentId":"', '"parentId": "')],
            ["white space before timestamp", base.replace(',"timestamp":', ', "timestamp":')],
            ["leading white space", ` ${base}`],
            [
                "keys in another order",
                base.replace('"id":"abcdef01","parentId":"abcdef00"', '"parentId":"abcdef00","id":"abcdef01"'),
            ],
            ["an escaped id", base.replace('"id":"abcdef01"', '"id":"abcde\\u006601"')],
            ["an escaped quote in the id", base.replace('"id":"abcdef01"', '"id":"abc\\"def01"')],
            ["an escaped parent", base.replace('"parentId":"abcdef00"', '"parentId":"abcde\\u006600"')],
            ["an escaped timestamp", base.replace(`"timestamp":"${T0}"`, `"timestamp":"${T0.replace("T", "\\u0054")}"`)],
            ["an escaped type", base.replace('"type":"message"', '"type":"mess\\u0061ge"')],
            ["a non-ASCII id", base.replace('"id":"abcdef01"', '"id":"abcdéf01"')],
            ["a non-ASCII parent", base.replace('"parentId":"abcdef00"', '"parentId":"abcdéf00"')],
            ["a non-ASCII timestamp", base.replace(`"timestamp":"${T0}"`, `"timestamp":"${T0}\u00a0"`)],
            ["an empty id", base.replace('"id":"abcdef01"', '"id":""')],
            ["a numeric parent", base.replace('"parentId":"abcdef00"', '"parentId":5')],
            ["a missing parent key", base.replace('"parentId":"abcdef00",', "")],
            ["a missing timestamp", base.replace(`"timestamp":"${T0}",`, "")],
            ["a line not ending in }", `${base} `],
            ["a line ending in \\r (CRLF)", `${base}\r`],
            ["a line ending in ]", `${base.slice(0, -1)}]`],
        ];
        for (const [name, text] of cases) {
            test(name, () => {
                assert.notEqual(text, base, "the case changes the line");
                assert.equal(envelopeOf(text, { pad: 5 }), undefined);
            });
        }
        test("too short: under 64 bytes, even when well formed; 64 bytes is enough", () => {
            const make = (length) => {
                const bare = `{"type":"message","id":"a","parentId":null,"timestamp":""}`;
                const text = bare.replace('"timestamp":""', `"timestamp":"${"1".repeat(length - bare.length)}"`);
                assert.equal(Buffer.byteLength(text), length);
                return text;
            };
            assert.equal(envelopeOf(make(63)), undefined);
            assert.equal(envelopeOf(`{"type":"message","id":"a","parentId":null,"timestamp":"t"}`), undefined);
            const env = envelopeOf(make(64));
            assert.ok(env, "a 64-byte line is long enough");
            assert.equal(env.id, "a");
            assert.equal(env.length, 64);
            assert.equal(envelopeOf(""), undefined);
        });
    });
});
/** Byte offset of each line (0-based index into `lines`) in a file whose text is `lines.join(sep)+sep`. */
function offsets(lines, sep = "\n", start = 0) {
    const result = [];
    let at = start;
    for (const line of lines) {
        result.push(at);
        at += Buffer.byteLength(line) + Buffer.byteLength(sep);
    }
    return result;
}
async function readAll(file) {
    const store = new FileSessionStore(file);
    try {
        const read = await store.read();
        // The texts of the envelopes, read back through the source before the store closes.
        const envelopes = read.lines.filter((l) => l instanceof Envelope);
        const texts = read.source ? read.source.readLines(envelopes) : [];
        // What follows the position: nothing now; a line appended later, with the next line number.
        const since = await store.readSince(read.position);
        return { ...read, envelopes, texts, since, store };
    }
    finally {
        await store.close();
    }
}
const kinds = (lines) => lines.map((l) => (l instanceof Envelope ? "envelope" : l.record ? "record" : (l.error?.code ?? "?")));
describe("FileSessionStore.read", () => {
    /** A v3 file mixing lazily readable lines and others. */
    const mixed = [
        header(3),
        messageLine("aaaa0001", null, "first question"),
        JSON.stringify({
            type: "label",
            id: "aaaa0002",
            parentId: "aaaa0001",
            timestamp: T0,
            targetId: "aaaa0001",
            label: "start",
        }),
        messageLine("aaaa0003", "aaaa0002", "an answer", "assistant"),
        summaryLine("aaaa0004", "aaaa0003"),
        JSON.stringify({
            type: "compaction",
            id: "aaaa0005",
            parentId: "aaaa0004",
            timestamp: T0,
            summary: "s",
            firstKeptEntryId: "aaaa0003",
            tokensBefore: 5,
        }),
        JSON.stringify({ type: "custom", id: "aaaa0006", parentId: "aaaa0005", timestamp: T0, customType: "x" }),
        messageLine("aaaa0007", "aaaa0006", "ünïcödé ☃"),
        messageLine("aaaa0008", "aaaa0007", "last"),
    ];
    test("a v3 file: envelopes for message, branch_summary and compaction lines, records for the rest", async () => {
        const file = fresh();
        writeFileSync(file, `${mixed.join("\n")}\n`);
        const read = await readAll(file);
        assert.deepEqual(kinds(read.lines), [
            "record",
            "envelope",
            "record",
            "envelope",
            "envelope",
            "envelope",
            "record",
            "envelope",
            "envelope",
        ]);
        assert.ok(read.source);
        const starts = offsets(mixed);
        for (const env of read.envelopes) {
            const index = env.line - 1;
            const text = mixed[index];
            const record = JSON.parse(text);
            assert.equal(env.offset, starts[index], `offset of line ${env.line}`);
            assert.equal(env.length, Buffer.byteLength(text));
            assert.equal(env.id, record.id);
            assert.equal(env.parentId, record.parentId);
            assert.equal(env.type, record.type);
            assert.equal(env.timestamp, record.timestamp);
        }
        assert.deepEqual(read.envelopes.map((e) => [e.line, e.role]), [
            [2, "user"],
            [4, "assistant"],
            [5, undefined],
            [6, undefined],
            [8, "user"],
            [9, "user"],
        ]);
        assert.deepEqual(read.texts, read.envelopes.map((e) => mixed[e.line - 1]));
        // The position is the end of the file: nothing follows it, and what is appended next is
        // read from it with the next line number.
        assert.deepEqual(read.since?.lines, []);
        const next = messageLine("aaaa0009", "aaaa0008", "appended later");
        appendFileSync(file, `${next}\n`);
        const appended = await read.store.readSince(read.position);
        assert.deepEqual(appended?.lines.map((l) => [l.line, l.record]), [[mixed.length + 1, JSON.parse(next)]]);
        writeFileSync(file, `${mixed.join("\n")}\n`);
        // And the session built from it is what a whole parse gives.
        const session = await Session.open(file);
        assert.deepEqual(session.getEntries(), mixed.slice(1).map((t) => JSON.parse(t)));
        await session.close();
    });
    test("a byte-order mark before the header: envelopes still point at the right bytes", async () => {
        const file = fresh();
        writeFileSync(file, `\ufeff${mixed.join("\n")}\n`);
        const read = await readAll(file);
        assert.equal(read.envelopes.length, 6);
        const starts = offsets(mixed, "\n", 3);
        for (const env of read.envelopes)
            assert.equal(env.offset, starts[env.line - 1]);
        assert.deepEqual(read.texts, read.envelopes.map((e) => mixed[e.line - 1]));
    });
    for (const version of [2, 1, undefined]) {
        test(`a ${version === undefined ? "version-less (v1)" : `v${version}`} header: no envelopes, every line parsed`, async () => {
            const file = fresh();
            writeFileSync(file, `${[header(version), ...mixed.slice(1)].join("\n")}\n`);
            const read = await readAll(file);
            assert.equal(read.envelopes.length, 0);
            assert.equal(read.source, undefined);
            assert.ok(read.lines.every((l) => l.record !== undefined));
        });
    }
    test("a v3 file whose first line is not a header: no envelopes", async () => {
        const file = fresh();
        writeFileSync(file, `${mixed.slice(1).join("\n")}\n`);
        const read = await readAll(file);
        assert.equal(read.envelopes.length, 0);
    });
    test("a last line without newline is parsed whole, not read in place", async () => {
        const file = fresh();
        writeFileSync(file, mixed.join("\n"));
        const read = await readAll(file);
        const last = read.lines[read.lines.length - 1];
        assert.ok(!(last instanceof Envelope));
        assert.equal(last.record?.id, "aaaa0008");
        assert.equal(read.envelopes.length, 5);
    });
    test("two records glued on one line are parsed whole: GLUED_RECORDS as before", async () => {
        const glued = [
            header(3),
            messageLine("bbbb0001", null),
            `${messageLine("bbbb0002", "bbbb0001")}${messageLine("bbbb0003", "bbbb0002")}`,
            messageLine("bbbb0004", "bbbb0003"),
        ];
        const file = fresh();
        writeFileSync(file, `${glued.join("\n")}\n`);
        const read = await readAll(file);
        assert.deepEqual(kinds(read.lines), ["record", "envelope", "GLUED_RECORDS", "envelope"]);
        const line = read.lines[2];
        assert.equal(line.line, 3);
        assert.deepEqual(line.salvaged?.map((r) => r.id), ["bbbb0002", "bbbb0003"]);
        await assert.rejects(Session.open(file), (error) => isSessionTreeError(error, "GLUED_RECORDS") && error.line === 3);
        const lenient = await Session.open(file, { lenient: true });
        assert.deepEqual(lenient.problems.map((p) => [p.code, p.line]), [["GLUED_RECORDS", 3]]);
        assert.deepEqual(lenient.getBranch().map((e) => e.id), ["bbbb0001", "bbbb0002", "bbbb0003", "bbbb0004"]);
        await lenient.close();
    });
    test("a NUL byte inside a line in pi's layout: parsed whole, NUL_PADDING as before; the next line is read in place", async () => {
        const withNul = messageLine("cccc0002", "cccc0001", "before|after").replace("|", "\0");
        const lines = [header(3), messageLine("cccc0001", null), withNul, messageLine("cccc0003", "cccc0002")];
        const file = fresh();
        writeFileSync(file, `${lines.join("\n")}\n`);
        // Without the NUL check this line would qualify.
        assert.ok(envelopeOf(withNul));
        const read = await readAll(file);
        assert.deepEqual(kinds(read.lines), ["record", "envelope", "NUL_PADDING", "envelope"]);
        assert.deepEqual(read.lines[2]?.salvaged?.[0]?.id, "cccc0002");
        await assert.rejects(Session.open(file), (error) => isSessionTreeError(error, "NUL_PADDING") && error.line === 3);
        const lenient = await Session.open(file, { lenient: true });
        assert.deepEqual(lenient.problems.map((p) => [p.code, p.line]), [["NUL_PADDING", 3]]);
        assert.equal(lenient.entryCount, 3);
        assert.equal(lenient.getEntry("cccc0002").message.content, "beforeafter");
        await lenient.close();
    });
    test("a line without any parentId key before a clean one: each judged on its own", async () => {
        const lines = [
            header(3),
            messageLine("dddd0001", null),
            '{"note":"no marker on this line"}',
            messageLine("dddd0002", "dddd0001"),
        ];
        const file = fresh();
        writeFileSync(file, `${lines.join("\n")}\n`);
        assert.deepEqual(kinds((await readAll(file)).lines), ["record", "envelope", "record", "envelope"]);
    });
    test("a CRLF file: no line ends with }, all parsed whole, and it loads as the LF file does", async () => {
        const lf = fresh();
        const crlf = fresh();
        writeFileSync(lf, `${mixed.join("\n")}\n`);
        writeFileSync(crlf, `${mixed.join("\r\n")}\r\n`);
        const read = await readAll(crlf);
        assert.equal(read.envelopes.length, 0);
        assert.ok(read.lines.every((l) => l.record !== undefined));
        const a = await Session.open(lf);
        const b = await Session.open(crlf);
        assert.deepEqual(b.problems, []);
        assert.deepEqual(b.getEntries(), a.getEntries());
        assert.deepEqual(b.buildSessionContext(), a.buildSessionContext());
        assert.deepEqual(b.getBranch(), a.getBranch());
        await a.close();
        await b.close();
    });
    describe("lines across the 1 MiB read chunk", () => {
        const CHUNK = 1 << 20;
        /** Writes `lines`, checks every envelope against the bytes and the session against a whole parse. */
        async function checkFile(lines, expectEnvelopes) {
            const file = fresh();
            writeFileSync(file, `${lines.join("\n")}\n`);
            const read = await readAll(file);
            assert.equal(read.envelopes.length, expectEnvelopes);
            const starts = offsets(lines);
            for (const env of read.envelopes) {
                const text = lines[env.line - 1];
                assert.equal(env.offset, starts[env.line - 1], `offset of line ${env.line}`);
                assert.equal(env.length, Buffer.byteLength(text), `length of line ${env.line}`);
                assert.equal(env.id, JSON.parse(text).id);
            }
            assert.ok(read.texts.every((t, i) => t === lines[read.envelopes[i].line - 1]), "texts read back");
            const session = await Session.open(file);
            const entries = session.getEntries();
            assert.equal(entries.length, lines.length - 1);
            entries.forEach((entry, i) => {
                assert.deepEqual(entry, JSON.parse(lines[i + 1]), `entry on line ${i + 2}`);
            });
            await session.close();
            return { file, starts };
        }
        test("a 1.5 MiB message line spanning the boundary, and lines after it", async () => {
            const big = "é😀x".repeat(Math.ceil((1.5 * CHUNK) / 8));
            const lines = [
                header(3),
                messageLine("eeee0001", null, "small"),
                messageLine("eeee0002", "eeee0001", big, "toolResult"),
                messageLine("eeee0003", "eeee0002", "after the big one"),
                summaryLine("eeee0004", "eeee0003"),
            ];
            const { starts } = await checkFile(lines, 4);
            assert.ok(starts[2] < CHUNK && starts[3] > CHUNK, "line 3 crosses the chunk edge");
        });
        test("a 2.5 MiB line spanning two boundaries", async () => {
            const big = "y".repeat(2.5 * CHUNK);
            await checkFile([header(3), messageLine("ffff0001", null, big), messageLine("ffff0002", "ffff0001", "tail")], 2);
        });
        /**
         * Lines of ordinary size, padded so that the `\n` of line 3 (a message) lands `shift`
         * bytes after the chunk edge (negative: before it).
         */
        for (const shift of [-200, -1, 0, 1, 100]) {
            test(`a message line whose newline is at chunk edge ${shift >= 0 ? "+" : ""}${shift}`, async () => {
                const first = messageLine("9999aaa1", null, "");
                const second = messageLine("9999aaa2", "9999aaa1", "the line placed on the edge of the chunk");
                const head = header(3);
                const fixed = Buffer.byteLength(head) + 1 + Buffer.byteLength(first) + 1 + Buffer.byteLength(second);
                // Pad line 2 so that line 3's newline is at CHUNK + shift.
                const padded = messageLine("9999aaa1", null, "p".repeat(CHUNK + shift - fixed));
                const lines = [head, padded, second, messageLine("9999aaa3", "9999aaa2", "next")];
                const { starts } = await checkFile(lines, 3);
                assert.equal(starts[2] + Buffer.byteLength(second), CHUNK + shift);
            });
        }
        test("two records glued on a line that crosses the chunk edge: still GLUED_RECORDS", async () => {
            const head = header(3);
            const a = messageLine("7777aaa2", "7777aaa1", "glued first half");
            const b = messageLine("7777aaa3", "7777aaa2", "glued second half");
            const glued = `${a}${b}`;
            const firstLen = Buffer.byteLength(messageLine("7777aaa1", null, ""));
            // The boundary falls between the two `"parentId":` keys of the glued line.
            const target = CHUNK - Buffer.byteLength(a) - 20;
            const padded = messageLine("7777aaa1", null, "q".repeat(target - Buffer.byteLength(head) - 2 - firstLen));
            const lines = [head, padded, glued, messageLine("7777aaa4", "7777aaa3")];
            const file = fresh();
            writeFileSync(file, `${lines.join("\n")}\n`);
            const starts = offsets(lines);
            assert.ok(starts[2] + Buffer.byteLength(a) < CHUNK);
            assert.ok(starts[3] > CHUNK);
            const read = await readAll(file);
            assert.deepEqual(kinds(read.lines), ["record", "envelope", "GLUED_RECORDS", "envelope"]);
            const lenient = await Session.open(file, { lenient: true });
            assert.deepEqual(lenient.problems.map((p) => [p.code, p.line]), [["GLUED_RECORDS", 3]]);
            assert.equal(lenient.getBranch().length, 4);
            await lenient.close();
        });
        test("a NUL byte in a line that crosses the chunk edge (after the edge): parsed whole", async () => {
            const head = header(3);
            const first = messageLine("6666aaa1", null, "");
            const body = `${"r".repeat(100)}|${"r".repeat(100)}`;
            const withNul = messageLine("6666aaa2", "6666aaa1", body).replace("|", "\0");
            const padded = messageLine("6666aaa1", null, "s".repeat(CHUNK - 150 - Buffer.byteLength(head) - 1 - Buffer.byteLength(first) - 1));
            const lines = [head, padded, withNul, messageLine("6666aaa3", "6666aaa2")];
            const file = fresh();
            writeFileSync(file, `${lines.join("\n")}\n`);
            const starts = offsets(lines);
            const nulAt = starts[2] + Buffer.from(withNul).indexOf(0);
            assert.ok(starts[2] < CHUNK && nulAt >= CHUNK, "the NUL is in the second chunk");
            assert.deepEqual(kinds((await readAll(file)).lines), ["record", "envelope", "NUL_PADDING", "envelope"]);
        });
    });
});
//# sourceMappingURL=envelope.test.js.map