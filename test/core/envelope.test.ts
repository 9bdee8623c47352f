/**
 * Envelopes read in place (`readEnvelope`) and what the file store hands the loader: envelopes
 * only for `message`/`branch_summary` lines in pi's exact layout in a current-version file,
 * whole parses for everything else (so the salvage of damaged lines works as before), across
 * chunk boundaries too; the search for glued records; the raw bytes of lines read back
 * (`visitLines`).
 */

import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import fc from "fast-check";
import { readEnvelope } from "../../src/core/envelope.js";
import { type LineSource, type Span, visitLines } from "../../src/core/lazy.js";
import type { ParsedLine } from "../../src/core/records.js";
import { Envelope } from "../../src/core/tree-node.js";
import { FileSessionStore, isSessionTreeError, type MessageEntry, Session } from "../../src/index.js";
import { indexOfParentMarker, PARENT_MARKER } from "../../src/storage/parent-marker.js";

const dir = mkdtempSync(join(tmpdir(), "st-envelope-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `f${++n}.jsonl`);

const T0 = "2026-03-01T10:00:00.000Z";
const header = (version?: number) =>
	JSON.stringify(
		version === undefined
			? { type: "session", id: "sess-1", timestamp: T0, cwd: "/p" }
			: { type: "session", version, id: "sess-1", timestamp: T0, cwd: "/p" },
	);

/** A message line in pi's key order. */
function messageLine(id: string, parentId: string | null, content = `text of ${id}`, role = "user"): string {
	return JSON.stringify({
		type: "message",
		id,
		parentId,
		timestamp: T0,
		message: { role, content, timestamp: 1 },
	});
}

function summaryLine(id: string, parentId: string | null): string {
	return JSON.stringify({ type: "branch_summary", id, parentId, timestamp: T0, fromId: "root", summary: "gone" });
}

/** `readEnvelope` on `text` placed after `pad` bytes of other data, as in a read chunk. */
function envelopeOf(text: string, options: { pad?: number; offset?: number; line?: number; previous?: Envelope } = {}) {
	const pad = options.pad ?? 0;
	const buf = Buffer.concat([Buffer.alloc(pad, 0x78), Buffer.from(text), Buffer.from("\nnext line")]);
	const end = pad + Buffer.byteLength(text);
	return readEnvelope(buf, pad, end, options.offset ?? 0, options.line ?? 1, options.previous);
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

	test("a plain Uint8Array (the HTML page's bytes) reads as a Buffer does, ids of any length (property)", () => {
		const id = fc.stringMatching(/^[0-9a-zA-Z_-]{1,40}$/);
		fc.assert(
			fc.property(
				id,
				fc.option(id, { nil: null }),
				fc.constantFrom("message", "branch_summary", "compaction", "label", "custom"),
				fc.constantFrom("user", "assistant", "toolResult", "other"),
				fc.string(),
				(entryId, parentId, type, role, content) => {
					const text =
						type === "message"
							? messageLine(entryId, parentId, content, role)
							: JSON.stringify({ type, id: entryId, parentId, timestamp: T0, summary: content });
					const buffer = Buffer.from(`xx${text}\n`);
					const plain = new Uint8Array(buffer);
					assert.ok(!Buffer.isBuffer(plain));
					const fromBuffer = readEnvelope(buffer, 2, buffer.length - 1, 5, 3);
					const fromPlain = readEnvelope(plain, 2, plain.length - 1, 5, 3);
					assert.deepEqual(fromPlain, fromBuffer);
					// The readable layouts are read (a line too short to hold a body is parsed whole).
					if (type !== "label" && type !== "custom" && text.length >= 64) assert.ok(fromPlain?.id === entryId);
				},
			),
			{ numRuns: 300 },
		);
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

	test("a parent that is the previous envelope's id, and the same timestamp, reuse its very values", () => {
		// String objects make identity observable: only a reuse returns the same object.
		const envelope = (id: string, timestamp = T0) =>
			new Envelope(
				"message",
				new String(id) as unknown as string,
				null,
				new String(timestamp) as unknown as string,
				"user",
				0,
				99,
				1,
			);
		const previous = envelope("abcdef00");
		const env = envelopeOf(messageLine("abcdef01", "abcdef00"), { previous });
		assert.ok(env);
		assert.equal(env.parentId, previous.id, "the very id of the previous envelope");
		assert.equal(env.timestamp, previous.timestamp, "the very timestamp of the previous envelope");
		for (const other of ["abcdef0", "abcdef000", "abcdef0f", "ABCDEF00", "bbcdef00"]) {
			const read = envelopeOf(messageLine("abcdef01", "abcdef00"), { previous: envelope(other) });
			assert.ok(read);
			assert.equal(typeof read.parentId, "string", other);
			assert.equal(read.parentId, "abcdef00", other);
		}
		for (const other of ["2026-03-01T10:00:00.001Z", "1026-03-01T10:00:00.000Z", "2026-03-01T10:00:00.000", ""]) {
			const read = envelopeOf(messageLine("abcdef01", "abcdef00"), { previous: envelope("abcdef00", other) });
			assert.equal(typeof read?.timestamp, "string", other);
			assert.equal(read?.timestamp, T0, other);
		}
		// A null parent stays null whatever the previous id.
		assert.equal(envelopeOf(messageLine("abcdef01", null), { previous })?.parentId, null);
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

	test("a message's own timestamp, when it ends the line and the content follows the role (endTimestamp)", () => {
		const line = (message: object, type = "message") =>
			JSON.stringify({ type, id: "abcdef01", parentId: null, timestamp: T0, message, padding: undefined });
		const at = (message: object) => envelopeOf(line(message))?.endTimestamp;
		assert.equal(envelopeOf(messageLine("abcdef01", null))?.endTimestamp, 1);
		assert.equal(at({ role: "assistant", content: [], timestamp: 1736157600123 }), 1736157600123);
		assert.equal(at({ role: "user", content: "x", timestamp: 0 }), 0);
		assert.equal(at({ role: "narrator", content: "x", timestamp: 7 }), 7, "any role");
		// Sixteen digits at most, read as Number reads them.
		assert.equal(at({ role: "user", content: "x", timestamp: 123456789012345 }), 123456789012345);
		const sixteen =
			'{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"user","content":"x","timestamp":9007199254740993}}';
		assert.equal(envelopeOf(sixteen)?.endTimestamp, Number("9007199254740993"));
		assert.equal(envelopeOf(sixteen.replace("9007199254740993", "19007199254740993"))?.endTimestamp, undefined);
		for (const [why, message] of [
			["no content", { role: "assistant", timestamp: 5 }],
			["content not right after the role", { role: "user", note: 1, content: "x", timestamp: 5 }],
			["the timestamp not last", { role: "user", content: "x", timestamp: 5, more: 1 }],
			["a string timestamp", { role: "user", content: "x", timestamp: "5" }],
			["a negative timestamp", { role: "user", content: "x", timestamp: -5 }],
			["a fractional timestamp", { role: "user", content: "x", timestamp: 1.5 }],
			["an exponent", { role: "user", content: "x", timestamp: 1e21 }],
			["no timestamp", { role: "user", content: "x", other: 5 }],
			["a nested timestamp key", { role: "user", content: "x", meta: { timestamp: 5 } }],
		] as const) {
			const env = envelopeOf(line(message));
			assert.ok(env, why);
			assert.equal(env.endTimestamp, undefined, why);
		}
		assert.equal(
			envelopeOf(`${line({ role: "user", content: "x", timestamp: 5 }).slice(0, -2)},"t":1}}`)?.endTimestamp,
			undefined,
		);
		const summary = JSON.stringify({
			type: "branch_summary",
			id: "a",
			parentId: null,
			timestamp: T0,
			summary: "s",
			x: { timestamp: 5 },
		});
		assert.equal(envelopeOf(summary)?.endTimestamp, undefined, "messages only");
	});

	describe("indexOfParentMarker", () => {
		test("finds what Buffer.indexOf finds, from every position (property)", () => {
			const piece = fc.constantFrom('"parentId":', "I", "Id", 'Id":', '"parent', 'd":', "x", '"', "é", "\n");
			fc.assert(
				fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
					const buf = Buffer.from(pieces.join(""));
					for (let from = 0; from <= buf.length; from++) {
						assert.equal(indexOfParentMarker(buf, from), buf.indexOf(PARENT_MARKER, from), `${buf} from ${from}`);
					}
				}),
				{ numRuns: 500 },
			);
		});

		test("many capital I's before the marker (base64, say)", () => {
			const buf = Buffer.from(`${"IdI".repeat(500)}"parentId":${"I".repeat(100)}"parentId":`);
			assert.equal(indexOfParentMarker(buf, 0), 1500);
			assert.equal(indexOfParentMarker(buf, 1501), 1500 + 11 + 100);
			assert.equal(indexOfParentMarker(buf, 1612), -1);
		});
	});

	describe("lines that give no envelope (parsed whole instead)", () => {
		const base = messageLine("abcdef01", "abcdef00", "some message text long enough");
		const cases: Array<[string, string]> = [
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
			const make = (length: number) => {
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
function offsets(lines: readonly string[], sep = "\n", start = 0): number[] {
	const result: number[] = [];
	let at = start;
	for (const line of lines) {
		result.push(at);
		at += Buffer.byteLength(line) + Buffer.byteLength(sep);
	}
	return result;
}

async function readAll(file: string) {
	const store = new FileSessionStore(file);
	try {
		const read = await store.read();
		// The texts of the envelopes, read back through the source before the store closes.
		const envelopes = read.lines.filter((l): l is Envelope => l instanceof Envelope);
		const texts = read.source ? read.source.readLines(envelopes) : [];
		// What follows the position: nothing now; a line appended later, with the next line number.
		const since = await store.readSince(read.position);
		return { ...read, envelopes, texts, since, store };
	} finally {
		await store.close();
	}
}

const kinds = (lines: readonly ParsedLine[]) =>
	lines.map((l) => (l instanceof Envelope ? "envelope" : l.record ? "record" : (l.error?.code ?? "?")));

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
			const text = mixed[index] as string;
			const record = JSON.parse(text) as Record<string, unknown>;
			assert.equal(env.offset, starts[index], `offset of line ${env.line}`);
			assert.equal(env.length, Buffer.byteLength(text));
			assert.equal(env.id, record.id);
			assert.equal(env.parentId, record.parentId);
			assert.equal(env.type, record.type);
			assert.equal(env.timestamp, record.timestamp);
		}
		assert.deepEqual(
			read.envelopes.map((e) => [e.line, e.role]),
			[
				[2, "user"],
				[4, "assistant"],
				[5, undefined],
				[6, undefined],
				[8, "user"],
				[9, "user"],
			],
		);
		assert.deepEqual(
			read.texts,
			read.envelopes.map((e) => mixed[e.line - 1]),
		);
		// The position is the end of the file: nothing follows it, and what is appended next is
		// read from it with the next line number.
		assert.deepEqual(read.since?.lines, []);
		const next = messageLine("aaaa0009", "aaaa0008", "appended later");
		appendFileSync(file, `${next}\n`);
		const appended = await read.store.readSince(read.position);
		assert.deepEqual(
			appended?.lines.map((l) => [l.line, l.record]),
			[[mixed.length + 1, JSON.parse(next)]],
		);
		writeFileSync(file, `${mixed.join("\n")}\n`);
		// And the session built from it is what a whole parse gives.
		const session = await Session.open(file);
		assert.deepEqual(
			session.getEntries(),
			mixed.slice(1).map((t) => JSON.parse(t)),
		);
		await session.close();
	});

	test("a byte-order mark before the header: envelopes still point at the right bytes", async () => {
		const file = fresh();
		writeFileSync(file, `\ufeff${mixed.join("\n")}\n`);
		const read = await readAll(file);
		assert.equal(read.envelopes.length, 6);
		const starts = offsets(mixed, "\n", 3);
		for (const env of read.envelopes) assert.equal(env.offset, starts[env.line - 1]);
		assert.deepEqual(
			read.texts,
			read.envelopes.map((e) => mixed[e.line - 1]),
		);
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
		const last = read.lines[read.lines.length - 1] as ParsedLine;
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
		const line = read.lines[2] as ParsedLine;
		assert.equal(line.line, 3);
		assert.deepEqual(
			line.salvaged?.map((r) => r.id),
			["bbbb0002", "bbbb0003"],
		);
		await assert.rejects(
			Session.open(file),
			(error: unknown) => isSessionTreeError(error, "GLUED_RECORDS") && error.line === 3,
		);
		const lenient = await Session.open(file, { lenient: true });
		assert.deepEqual(
			lenient.problems.map((p) => [p.code, p.line]),
			[["GLUED_RECORDS", 3]],
		);
		assert.deepEqual(
			lenient.getBranch().map((e) => e.id),
			["bbbb0001", "bbbb0002", "bbbb0003", "bbbb0004"],
		);
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
		await assert.rejects(
			Session.open(file),
			(error: unknown) => isSessionTreeError(error, "NUL_PADDING") && error.line === 3,
		);
		const lenient = await Session.open(file, { lenient: true });
		assert.deepEqual(
			lenient.problems.map((p) => [p.code, p.line]),
			[["NUL_PADDING", 3]],
		);
		assert.equal(lenient.entryCount, 3);
		assert.equal((lenient.getEntry("cccc0002") as MessageEntry).message.content, "beforeafter");
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
		async function checkFile(lines: readonly string[], expectEnvelopes: number) {
			const file = fresh();
			writeFileSync(file, `${lines.join("\n")}\n`);
			const read = await readAll(file);
			assert.equal(read.envelopes.length, expectEnvelopes);
			const starts = offsets(lines);
			for (const env of read.envelopes) {
				const text = lines[env.line - 1] as string;
				assert.equal(env.offset, starts[env.line - 1], `offset of line ${env.line}`);
				assert.equal(env.length, Buffer.byteLength(text), `length of line ${env.line}`);
				assert.equal(env.id, (JSON.parse(text) as { id: string }).id);
			}
			assert.ok(
				read.texts.every((t, i) => t === lines[(read.envelopes[i] as Envelope).line - 1]),
				"texts read back",
			);
			const session = await Session.open(file);
			const entries = session.getEntries();
			assert.equal(entries.length, lines.length - 1);
			entries.forEach((entry, i) => {
				assert.deepEqual(entry, JSON.parse(lines[i + 1] as string), `entry on line ${i + 2}`);
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
			assert.ok((starts[2] as number) < CHUNK && (starts[3] as number) > CHUNK, "line 3 crosses the chunk edge");
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
				assert.equal((starts[2] as number) + Buffer.byteLength(second), CHUNK + shift);
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
			assert.ok((starts[2] as number) + Buffer.byteLength(a) < CHUNK);
			assert.ok((starts[3] as number) > CHUNK);
			const read = await readAll(file);
			assert.deepEqual(kinds(read.lines), ["record", "envelope", "GLUED_RECORDS", "envelope"]);
			const lenient = await Session.open(file, { lenient: true });
			assert.deepEqual(
				lenient.problems.map((p) => [p.code, p.line]),
				[["GLUED_RECORDS", 3]],
			);
			assert.equal(lenient.getBranch().length, 4);
			await lenient.close();
		});

		test("a NUL byte in a line that crosses the chunk edge (after the edge): parsed whole", async () => {
			const head = header(3);
			const first = messageLine("6666aaa1", null, "");
			const body = `${"r".repeat(100)}|${"r".repeat(100)}`;
			const withNul = messageLine("6666aaa2", "6666aaa1", body).replace("|", "\0");
			const padded = messageLine(
				"6666aaa1",
				null,
				"s".repeat(CHUNK - 150 - Buffer.byteLength(head) - 1 - Buffer.byteLength(first) - 1),
			);
			const lines = [head, padded, withNul, messageLine("6666aaa3", "6666aaa2")];
			const file = fresh();
			writeFileSync(file, `${lines.join("\n")}\n`);
			const starts = offsets(lines);
			const nulAt = (starts[2] as number) + Buffer.from(withNul).indexOf(0);
			assert.ok((starts[2] as number) < CHUNK && nulAt >= CHUNK, "the NUL is in the second chunk");
			assert.deepEqual(kinds((await readAll(file)).lines), ["record", "envelope", "NUL_PADDING", "envelope"]);
		});
	});
});

describe("visitLines: the raw bytes of lines read back", () => {
	const text = (bytes: Uint8Array, start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString();

	/** Every visit of `spans`: index, text, and the bytes object it came in. */
	function visitAll(source: LineSource, spans: readonly Span[]) {
		const visits: Array<{ index: number; text: string; bytes: Uint8Array; end: number }> = [];
		source.visitLines?.(spans, (index, bytes, start, end) => {
			visits.push({ index, text: text(bytes, start, end), bytes, end });
		});
		return visits;
	}

	test("file source: any spans in any order, each visited once, by offset, in reads that end where the data ends", async () => {
		const CHUNK = 1 << 20;
		const lines = [
			header(3),
			messageLine("aaaa0001", null, "é😀 first"),
			messageLine("aaaa0002", "aaaa0001", "x".repeat(100 * 1024)),
			messageLine("aaaa0003", "aaaa0002", "third"),
			messageLine("aaaa0004", "aaaa0003", "y".repeat(CHUNK + 10)),
			messageLine("aaaa0005", "aaaa0004", "last"),
		];
		const file = fresh();
		writeFileSync(file, `${lines.join("\n")}\n`);
		const store = new FileSessionStore(file);
		const read = await store.read();
		const source = read.source as LineSource;
		const envelopes = read.lines.filter((l): l is Envelope => l instanceof Envelope);
		assert.equal(envelopes.length, 5);
		const first = envelopes[0] as Envelope;
		const spans: Span[] = [
			...[...envelopes].reverse(),
			{ offset: first.offset, length: 9 },
			{ offset: first.offset + first.length - 4, length: 4 },
			{ offset: first.offset, length: 0 },
			first,
		];
		const firstText = lines[1] as string;
		const expected = [...lines.slice(1).reverse(), firstText.slice(0, 9), firstText.slice(-4), "", firstText];
		const visits = visitAll(source, spans);
		assert.deepEqual(
			visits.map((v) => v.index).sort((a, b) => a - b),
			spans.map((_, i) => i),
			"every span once",
		);
		for (const visit of visits) assert.equal(visit.text, expected[visit.index], `span ${visit.index}`);
		const offsets = visits.map((v) => (spans[v.index] as Span).offset);
		assert.deepEqual(
			offsets,
			[...offsets].sort((a, b) => a - b),
			"by offset",
		);
		// A bytes object per read, holding nothing past the last span read into it; a span longer
		// than a read is read alone.
		const reads = [...new Set(visits.map((v) => v.bytes))];
		assert.equal(reads.length, 3);
		for (const bytes of reads) {
			assert.equal(bytes.length, Math.max(...visits.filter((v) => v.bytes === bytes).map((v) => v.end)));
		}
		// Lines far apart are read apart; close ones together.
		const [, second, third] = envelopes as [Envelope, Envelope, Envelope];
		assert.equal(new Set(visitAll(source, [first, third]).map((v) => v.bytes)).size, 2);
		assert.equal(new Set(visitAll(source, [first, second, third]).map((v) => v.bytes)).size, 1);
		assert.deepEqual(source.readLines(envelopes), lines.slice(1), "readLines decodes what visitLines sees");
		let calls = 0;
		source.visitLines?.([], () => calls++);
		assert.equal(calls, 0);
		await store.close();
	});

	test("file source: a visitor may read again, and the bytes it was given stay as they were", async () => {
		const lines = [header(3), messageLine("bbbb0001", null, "one"), messageLine("bbbb0002", "bbbb0001", "two")];
		const file = fresh();
		writeFileSync(file, `${lines.join("\n")}\n`);
		const store = new FileSessionStore(file);
		const read = await store.read();
		const source = read.source as LineSource;
		const [a, b] = read.lines.filter((l): l is Envelope => l instanceof Envelope) as [Envelope, Envelope];
		const seen: string[] = [];
		source.visitLines?.([a], (_, bytes, start, end) => {
			assert.deepEqual(source.readLines([b]), [lines[2]]);
			seen.push(text(bytes, start, end));
		});
		assert.deepEqual(seen, [lines[1]]);
		await store.close();
	});

	test("file source: after close the same file is read again; a file replaced since cannot be", async () => {
		const lines = [header(3), messageLine("cccc0001", null, "one")];
		const file = fresh();
		writeFileSync(file, `${lines.join("\n")}\n`);
		const store = new FileSessionStore(file);
		const read = await store.read();
		await store.close();
		const source = read.source as LineSource;
		const envelopes = read.lines.filter((l): l is Envelope => l instanceof Envelope);
		assert.deepEqual(
			visitAll(source, envelopes).map((v) => v.text),
			[lines[1]],
		);
		await store.close();
		const other = fresh();
		writeFileSync(other, `${lines.join("\n")}\n`);
		renameSync(other, file);
		assert.throws(
			() => visitAll(source, envelopes),
			(error: unknown) => isSessionTreeError(error) && error.code === "IO_ERROR",
		);
	});

	test("the helper uses a source's visitLines, or encodes what readLines gives", () => {
		const texts = new Map([
			["a", "plain"],
			["b", "é😀"],
		]);
		const envelopes = ["a", "b"].map((id, i) => new Envelope("message", id, null, T0, "user", i * 10, 5, i + 2));
		const readOnly: LineSource = { readLines: (spans) => spans.map((span) => texts.get(span.id) ?? "") };
		const seen: string[] = [];
		visitLines(readOnly, envelopes, (index, bytes, start, end) => {
			assert.ok(bytes instanceof Uint8Array);
			seen[index] = text(bytes, start, end);
		});
		assert.deepEqual(seen, ["plain", "é😀"]);
		const given: Array<readonly Span[]> = [];
		const withBytes: LineSource = {
			readLines: () => assert.fail("readLines is not used"),
			visitLines(spans, visit) {
				given.push(spans);
				spans.forEach((_, i) => {
					visit(i, Buffer.from("xyz"), 1, 2);
				});
			},
		};
		const visited: string[] = [];
		visitLines(withBytes, envelopes, (index, bytes, start, end) => {
			visited[index] = text(bytes, start, end);
		});
		assert.deepEqual(given, [envelopes]);
		assert.deepEqual(visited, ["y", "y"]);
		visitLines(withBytes, [], () => assert.fail("nothing to visit"));
		assert.equal(given.length, 1);
	});
});
