/**
 * Resuming from the end of a file (core/tail.ts, FileSessionStore.readTail, Session's tail
 * path): `resumeFromTail` on records, then sessions on real files over 8 MiB whose active path
 * meets, near the end, a compaction carrying `retainedTail` and `retainedState`.
 *
 * A resume from the tail is opt-in: `Session.open(file, { load: "context" })`. Reads beyond the
 * leaf's context then throw NOT_LOADED until `await session.load()`; writes load the rest first.
 *
 * How the tests see that the tail path was taken, without timing: a message line far before
 * the compaction is made invalid JSON (same length). A full open, lazy or `verify`, parses or
 * indexes every line and throws on it; a tail open never reads that part of the file, so
 * `Session.open` succeeds. Where a session must write or load afterwards, the line is restored
 * in place right after the open (see {@link openViaTail}).
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
	closeSync,
	copyFileSync,
	mkdtempSync,
	openSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import type { RawRecord } from "../../src/core/records.js";
import { resumeFromTail } from "../../src/core/tail.js";
import {
	type AgentMessage,
	type CompactionEntry,
	isSessionTreeError,
	type MessageEntry,
	Session,
	type SessionTreeErrorCode,
	type SessionTreeNode,
} from "../../src/index.js";
import { asJson } from "../support/fixtures.js";
import { assistantMessage, userMessage } from "../support/messages.js";

const WRITER = join(dirname(fileURLToPath(import.meta.url)), "..", "support", "writer-process.js");
const dir = mkdtempSync(join(tmpdir(), "st-tail-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `s${++n}.jsonl`);

// ---- resumeFromTail ---------------------------------------------------------------------

const T = "2026-05-01T00:00:00.000Z";
const STATE = { thinkingLevel: "high", model: { provider: "anthropic", modelId: "claude-new" } };

const msg = (id: string, parentId: string | null, role = "user"): RawRecord => ({
	type: "message",
	id,
	parentId,
	timestamp: T,
	message: { role, content: `text of ${id}`, timestamp: 1 },
});

const compaction = (id: string, parentId: string | null, extra: RawRecord = {}): RawRecord => ({
	type: "compaction",
	id,
	parentId,
	timestamp: T,
	summary: `summary ${id}`,
	firstKeptEntryId: parentId ?? "none",
	tokensBefore: 100,
	...extra,
});

/** A compaction as session-tree writes it with a retained tail: both fields present. */
const retained = (id: string, parentId: string | null, state: unknown = STATE): RawRecord =>
	compaction(id, parentId, { retainedTail: [{ role: "user", content: "kept", timestamp: 1 }], retainedState: state });

const leaf = (id: string, targetId: string | null): RawRecord => ({
	type: "leaf",
	id,
	parentId: targetId,
	timestamp: T,
	targetId,
});

function found(records: RawRecord[]): { leafId: string; path: string[] } {
	const result = resumeFromTail(records);
	assert.equal(result.kind, "found", JSON.stringify(result));
	if (result.kind !== "found") throw new Error("unreachable");
	return { leafId: result.leafId, path: result.path.map((entry) => entry.id) };
}

const kind = (records: RawRecord[]) => resumeFromTail(records).kind;

describe("resumeFromTail", () => {
	test("the path from the compaction to the last entry (the window starts mid-file)", () => {
		const records = [msg("m1", "outside1"), retained("c1", "m1"), msg("m2", "c1"), msg("m3", "m2", "assistant")];
		assert.deepEqual(found(records), { leafId: "m3", path: ["c1", "m2", "m3"] });
		const result = resumeFromTail(records);
		assert.ok(result.kind === "found");
		assert.equal(result.path[0], records[1], "the records themselves, compaction first");
	});

	test("the compaction itself as the leaf", () => {
		assert.deepEqual(found([msg("m1", "outside"), retained("c1", "m1")]), { leafId: "c1", path: ["c1"] });
	});

	test("the last such compaction on the path wins", () => {
		const records = [retained("c1", "outside"), msg("m1", "c1"), retained("c2", "m1"), msg("m2", "c2")];
		assert.deepEqual(found(records), { leafId: "m2", path: ["c2", "m2"] });
	});

	test("the walk stops where the path decides the context: the last compaction's kept range and settings", () => {
		const records = [
			retained("c1", "outside"),
			msg("m1", "c1"),
			compaction("c2", "m1"), // pi's: neither field
			msg("m2", "c2"),
			compaction("c3", "m2", { retainedTail: [] }), // no retainedState
			msg("m3", "c3"),
			compaction("c4", "m3", { retainedState: STATE }), // no retainedTail
			msg("m4", "c4"),
			retained("c5", "m4", { thinkingLevel: 3, model: null }),
			retained("c6", "c5", { thinkingLevel: "high", model: { provider: "p" } }),
			retained("c7", "c6", { thinkingLevel: "high" }),
			retained("c8", "c7", null),
			compaction("c9", "c8", { retainedTail: "not an array", retainedState: STATE }),
			msg("m5", "c9"),
		];
		// c9's retainedState is valid and gives the settings; without an array retainedTail it keeps from c8.
		assert.deepEqual(found(records), { leafId: "m5", path: ["c8", "c9", "m5"] });
		// Without usable fields on c9 the walk goes on to the settings further back (c7, c6: "high"; the model from c4).
		const pis = records.map((record) => (record.id === "c9" ? compaction("c9", "c8") : record));
		assert.deepEqual(found(pis), { leafId: "m5", path: ["c4", "m4", "c5", "c6", "c7", "c8", "c9", "m5"] });
	});

	test("a retainedState with model null is valid; an empty retainedTail too", () => {
		const records = [
			msg("m0", "outside"),
			msg("m1", "m0"),
			compaction("c1", "m1", { retainedTail: [], retainedState: { thinkingLevel: "off", model: null } }),
			msg("m2", "c1"),
		];
		assert.deepEqual(found(records), { leafId: "m2", path: ["c1", "m2"] });
	});

	test("entries off the active path are ignored", () => {
		const records = [
			retained("c1", "outside"),
			msg("m1", "c1"),
			msg("x1", "outside-too"),
			msg("m2", "m1"),
			msg("x2", "x1"),
			msg("m3", "m2"),
		];
		assert.deepEqual(found(records), { leafId: "m3", path: ["c1", "m1", "m2", "m3"] });
	});

	test("a trailing leaf record names the leaf", () => {
		const records = [retained("c1", "outside"), msg("m1", "c1"), msg("m2", "m1"), leaf("l1", "m1")];
		assert.deepEqual(found(records), { leafId: "m1", path: ["c1", "m1"] });
		// An earlier leaf record does not matter once an entry follows it.
		assert.deepEqual(found([...records, msg("m3", "m2")]), { leafId: "m3", path: ["c1", "m1", "m2", "m3"] });
	});

	test("a chain of leaf records, and parents naming a leaf record", () => {
		const records = [retained("c1", "outside"), msg("m1", "c1"), msg("m2", "m1"), leaf("l1", "m1"), leaf("l2", "l1")];
		assert.deepEqual(found(records), { leafId: "m1", path: ["c1", "m1"] });
		// An entry whose parent is a leaf record hangs off that record's target.
		const child = [retained("c1", "outside"), msg("m1", "c1"), leaf("l1", "m1"), msg("m2", "l1")];
		assert.deepEqual(found(child), { leafId: "m2", path: ["c1", "m1", "m2"] });
		const viaChain = [...records, msg("m3", "l2")];
		assert.deepEqual(found(viaChain), { leafId: "m3", path: ["c1", "m1", "m3"] });
	});

	test("more: the walk leaves the records", () => {
		assert.equal(kind([]), "more");
		assert.equal(kind([msg("m1", "outside"), msg("m2", "m1")]), "more");
		// The compaction is further back than the records reach.
		assert.equal(kind([msg("m1", "outside"), compaction("c1", "m1"), msg("m2", "c1")]), "more");
		// The leaf record names an entry before the records.
		assert.equal(kind([retained("c1", "outside"), msg("m1", "c1"), leaf("l1", "before-the-window")]), "more");
	});

	test("found: the root is reached (the walk holds the whole path)", () => {
		const ids = (records: RawRecord[]) => {
			const result = resumeFromTail(records);
			return result.kind === "found" ? result.path.map((entry) => entry.id) : result.kind;
		};
		assert.deepEqual(ids([msg("m1", null), msg("m2", "m1")]), ["m1", "m2"]);
		assert.deepEqual(ids([msg("m1", null), compaction("c1", "m1"), msg("m2", "c1")]), ["m1", "c1", "m2"]);
		assert.deepEqual(
			ids([msg("m1", null), compaction("c1", "m1", { retainedTail: [] }), msg("m2", "c1")]),
			["m1", "c1", "m2"],
			"retainedTail without retainedState",
		);
		// A usable compaction off the path is not walked.
		assert.deepEqual(ids([msg("m1", null), retained("c1", "m1"), msg("m2", "m1")]), ["m1", "m2"]);
	});

	test("no: duplicate ids", () => {
		assert.equal(kind([retained("c1", "outside"), msg("m1", "c1"), msg("m1", "c1")]), "no");
		assert.equal(kind([retained("c1", "outside"), msg("m1", "c1"), leaf("m1", "c1")]), "no");
		assert.equal(kind([retained("c1", "outside"), leaf("l1", "c1"), msg("m1", "c1"), leaf("l1", "m1")]), "no");
	});

	test("no: a malformed record anywhere in the records", () => {
		const good = [retained("c1", "outside"), msg("m1", "c1")];
		const bad: RawRecord[] = [
			{ id: "b1", parentId: null, timestamp: T }, // no type
			{ type: "custom", parentId: null, timestamp: T }, // no id
			{ type: "custom", id: "b1", parentId: 7, timestamp: T },
			{ type: "custom", id: "b1", parentId: null }, // no timestamp
			{ type: "session", id: "b1", parentId: null, timestamp: T },
			{ type: "message", id: "b1", parentId: "outside", timestamp: T, message: { content: "no role" } },
			{ type: "compaction", id: "b1", parentId: "outside", timestamp: T, firstKeptEntryId: "x" }, // no summary
			{ type: "label", id: "b1", parentId: "outside", timestamp: T },
			{ type: "leaf", id: "b1", parentId: null, timestamp: T, targetId: 5 },
		];
		for (const record of bad) {
			assert.equal(kind([record, ...good]), "no", JSON.stringify(record));
			assert.equal(kind([...good.slice(0, 1), record, ...good.slice(1)]), "no", JSON.stringify(record));
		}
		assert.deepEqual(found(good), { leafId: "m1", path: ["c1", "m1"] });
	});

	test("no: a leaf record with targetId null (directly or through a chain)", () => {
		assert.equal(kind([retained("c1", "outside"), msg("m1", "c1"), leaf("l1", null)]), "no");
		assert.equal(kind([retained("c1", "outside"), msg("m1", "c1"), leaf("l1", null), leaf("l2", "l1")]), "no");
	});

	test("no: a parent cycle", () => {
		assert.equal(kind([msg("a", "b"), msg("b", "a")]), "no");
	});
});

// ---- sessions on real files -------------------------------------------------------------

const hex = (i: number) => i.toString(16).padStart(8, "0");
const FILLER = "lorem ipsum dolor sit amet ".repeat(52); // ~1.4 KB a message line
const BULK = 6000; // ~9 MiB in all
const NEW_MODEL = { provider: "anthropic", modelId: "claude-new" };

let clock = Date.parse("2026-05-01T00:00:00.000Z");
const now = () => {
	clock += 1000;
	return new Date(clock);
};

const user = (text: string): AgentMessage => userMessage(text, clock);
const assistant = (text: string, model: string): AgentMessage => assistantMessage(text, clock, model);

/** One JSONL line, keys in pi's order (type, id, parentId, timestamp, then the fields). */
function jsonLine(type: string, id: string, parentId: string | null, fields: Record<string, unknown>): string {
	return `${JSON.stringify({ type, id, parentId, timestamp: now().toISOString(), ...fields })}\n`;
}

/**
 * A v3 session over 8 MiB without compaction: a user message, an assistant message (model
 * claude-old), a model change (claude-new) and a thinking level change (high) early, then
 * {@link BULK} user messages of ~1.4 KB. Written line by line, in pi's layout.
 */
async function writeBulk(file: string): Promise<{ bulkIds: string[] }> {
	await (await Session.create({ file, cwd: "/p", now })).close();
	const parts: string[] = [];
	parts.push(jsonLine("message", hex(1), null, { message: user("hello") }));
	parts.push(jsonLine("message", hex(2), hex(1), { message: assistant("hi", "claude-old") }));
	parts.push(jsonLine("model_change", hex(3), hex(2), { provider: "anthropic", modelId: "claude-new" }));
	parts.push(jsonLine("thinking_level_change", hex(4), hex(3), { thinkingLevel: "high" }));
	const bulkIds: string[] = [];
	let parent = hex(4);
	for (let i = 0; i < BULK; i++) {
		const id = hex(16 + i);
		parts.push(jsonLine("message", id, parent, { message: user(`message ${i} ${FILLER}`) }));
		bulkIds.push(id);
		parent = id;
	}
	writeFileSync(file, parts.join(""), { flag: "a" });
	return { bulkIds };
}

interface Big {
	/** The session: bulk, a compaction (through the Session API) and three user messages. */
	file: string;
	/** The same bulk, no compaction. */
	bulk: string;
	compactionId: string;
	/** The three user messages after the compaction. */
	after: string[];
	firstKeptId: string;
	/** The last bulk message, right before the compaction. */
	lastBulkId: string;
	/** A bulk message far before the compaction (line 102 of the file). */
	earlyId: string;
}

let big: Big;

before(async () => {
	const bulk = fresh();
	const { bulkIds } = await writeBulk(bulk);
	const file = fresh();
	copyFileSync(bulk, file);
	const s = await Session.open(file, { now });
	const firstKeptId = bulkIds[BULK - 4] as string;
	const compactionId = await s.appendCompaction("summary of the bulk", firstKeptId, 123456, undefined, undefined, true);
	const afterIds: string[] = [];
	for (const i of [1, 2, 3]) afterIds.push(await s.appendMessage(user(`after compaction ${i}`)));
	await s.close();
	big = {
		file,
		bulk,
		compactionId,
		after: afterIds,
		firstKeptId,
		lastBulkId: bulkIds[BULK - 1] as string,
		earlyId: bulkIds[96] as string,
	};
});

/** A copy of a file to change. */
function copyOf(file: string): string {
	const copy = fresh();
	copyFileSync(file, copy);
	return copy;
}

/** Offset of the first byte of the line of entry `id`. */
function lineStart(file: string, id: string): number {
	const bytes = readFileSync(file);
	const at = bytes.indexOf(`{"type":"message","id":"${id}"`);
	assert.ok(at >= 0, `no line for ${id}`);
	return at;
}

/** 1-based line number of the entry `id` (the bulk is the same in every copy: counted once). */
const lineNumbers = new Map<string, number>();
function lineOf(id: string): number {
	let line = lineNumbers.get(id);
	if (line === undefined) {
		const bytes = readFileSync(big.bulk);
		const at = lineStart(big.bulk, id);
		line = 1;
		for (let i = bytes.indexOf(0x0a); i >= 0 && i < at; i = bytes.indexOf(0x0a, i + 1)) line++;
		lineNumbers.set(id, line);
	}
	return line;
}

/** Overwrites one byte in place (same inode, same length). */
function patchByte(file: string, offset: number, char: string): void {
	const fd = openSync(file, "r+");
	try {
		writeSync(fd, char, offset);
	} finally {
		closeSync(fd);
	}
}

/** Makes the line of `id` invalid JSON in place (its `{` becomes `x`); returns the undo. */
function breakLine(file: string, id: string): () => void {
	const at = lineStart(file, id);
	patchByte(file, at, "x");
	return () => patchByte(file, at, "{");
}

/** A check that an error is a SessionTreeError with this code (and, when given, file and line). */
function errorOf(code: SessionTreeErrorCode, file?: string, line?: number): (error: unknown) => true {
	return (error: unknown) => {
		assert.ok(isSessionTreeError(error), String(error));
		assert.equal(error.code, code, error.message);
		if (file !== undefined) assert.equal(error.file, file);
		if (line !== undefined) assert.equal(error.line, line);
		return true;
	};
}

async function rejectsInvalidJsonAt(run: () => Promise<unknown>, file: string, line: number): Promise<void> {
	await assert.rejects(run, errorOf("INVALID_JSON", file, line));
}

/** Asserts that a read of a session opened with `load: "context"` throws NOT_LOADED. */
function assertNotLoaded(run: () => unknown, what: string): void {
	assert.throws(run, errorOf("NOT_LOADED"), what);
}

/**
 * Opens `file` with `load: "context"` and the early line broken, then restores the line in
 * place. A full open, lazy or verify, throws on that line (see the tests "the tail path is
 * taken" and the full-open ones), so a successful open here can only be a tail open.
 */
async function openViaTail(file: string): Promise<Session> {
	const undo = breakLine(file, big.earlyId);
	try {
		return await Session.open(file, { now, load: "context" });
	} finally {
		undo();
	}
}

/** pi's context for a file (from a copy: pi may rewrite what it opens). */
function piContext(file: string): unknown {
	return asJson(SessionManager.open(copyOf(file), dir).buildSessionContext());
}

/** pi's context for the unchanged large session, computed once. */
let piBig: unknown;
const piBigContext = () => {
	piBig ??= piContext(big.file);
	return piBig;
};

async function verified<T>(file: string, read: (s: Session) => T): Promise<T> {
	const s = await Session.open(file, { verify: true });
	try {
		return read(s);
	} finally {
		await s.close();
	}
}

/** The compaction line of a file, parsed. */
function compactionRecord(file: string, id: string): CompactionEntry {
	const line = readFileSync(file, "utf8")
		.split("\n")
		.find((text) => text.includes(`"id":"${id}"`));
	assert.ok(line);
	return JSON.parse(line) as CompactionEntry;
}

/** Rows of getTree() in depth-first order, walked without recursion (the tree is 9,000 deep). */
function treeRows(roots: SessionTreeNode[]): unknown[] {
	const rows: unknown[] = [];
	const stack = roots.map((node) => ({ node, depth: 0 })).reverse();
	for (let item = stack.pop(); item; item = stack.pop()) {
		const { node, depth } = item;
		rows.push({ id: node.entry.id, parentId: node.entry.parentId, depth, label: node.label, n: node.children.length });
		for (let i = node.children.length - 1; i >= 0; i--)
			stack.push({ node: node.children[i] as SessionTreeNode, depth: depth + 1 });
	}
	return rows;
}

describe("a large session resumed from its tail", () => {
	test("the file is over 8 MiB and the compaction line carries retainedTail and retainedState", async () => {
		const size = readFileSync(big.file).length;
		assert.ok(size > 8 * 1024 * 1024, `${size} bytes`);
		const record = compactionRecord(big.file, big.compactionId);
		assert.deepEqual(record.retainedState, { thinkingLevel: "high", model: NEW_MODEL });
		// The state in effect on the path before the compaction, as a full read computes it.
		const before = await verified(big.file, (s) => s.buildSessionContext(big.lastBulkId));
		assert.deepEqual(record.retainedState, { thinkingLevel: before.thinkingLevel, model: before.model });
		// The retained tail is pi's rule: the messages from firstKeptEntryId to the compaction.
		assert.equal(record.firstKeptEntryId, big.firstKeptId);
		assert.deepEqual(
			(record.retainedTail ?? []).map((m) =>
				(m as { content: string }).content.slice(0, `message ${BULK - 1} `.length),
			),
			[4, 3, 2, 1].map((back) => `message ${BULK - back} `),
		);
		// The last 1 MiB holds the compaction line and everything after it.
		assert.ok(size - lineStart(big.file, big.after[0] as string) < 1024 * 1024);
	});

	test("a context open gives what a verify open, a default (full) open and pi give", async () => {
		const s = await Session.open(big.file, { load: "context" });
		const context = asJson(s.buildSessionContext());
		const verify = await Session.open(big.file, { verify: true });
		const full = await Session.open(big.file);
		assert.deepEqual(context, asJson(verify.buildSessionContext()));
		assert.deepEqual(context, asJson(full.buildSessionContext()));
		assert.deepEqual(context, piBigContext());
		assert.equal(s.getLeafId(), big.after[2]);
		assert.equal(s.getLeafId(), verify.getLeafId());
		assert.equal(full.getLeafId(), verify.getLeafId());
		assert.deepEqual(s.getLeafEntry(), verify.getLeafEntry());
		assert.deepEqual(asJson(s.buildContextEntries()), asJson(verify.buildContextEntries()));
		assert.deepEqual(asJson(s.buildSessionContext(big.after[2])), context, "the leaf, by id");
		assert.deepEqual(s.getHeader(), verify.getHeader());
		assert.equal(s.getSessionId(), verify.getSessionId());
		assert.equal(s.getCwd(), "/p");
		assert.equal(s.fileVersion, 3);
		assert.deepEqual(s.problems, []);
		// Only the context was read: the rest waits for load().
		assertNotLoaded(() => s.getEntries(), "getEntries");
		// The context is the summary, the retained messages, what follows; the settings come from retainedState.
		const built = s.buildSessionContext();
		assert.equal(built.thinkingLevel, "high");
		assert.deepEqual(built.model, NEW_MODEL);
		assert.deepEqual(
			built.messages.map((m) => m.role),
			["compactionSummary", "user", "user", "user", "user", "user", "user", "user"],
		);
		await s.close();
		await verify.close();
		await full.close();
	});

	test("the tail path is taken: a broken line far before the compaction is never read", async () => {
		const file = copyOf(big.file);
		const context = await verified(file, (s) => asJson(s.buildSessionContext()));
		breakLine(file, big.earlyId);
		const line = lineOf(big.earlyId);
		await rejectsInvalidJsonAt(() => Session.open(file, { verify: true }), file, line);
		// A default open reads the whole file: the tail is opt-in.
		await rejectsInvalidJsonAt(() => Session.open(file), file, line);
		const s = await Session.open(file, { load: "context" });
		assert.deepEqual(asJson(s.buildSessionContext()), context);
		assert.deepEqual(asJson(s.buildSessionContext(big.after[2])), context, "the leaf, by id");
		assert.equal(s.getLeafId(), big.after[2]);
		assert.equal(s.getHeader().cwd, "/p");
		assert.ok(s.buildContextEntries().length > 0);
		// Anything beyond the leaf's context needs the whole file: NOT_LOADED, and load() meets the broken line.
		assertNotLoaded(() => s.getEntries(), "getEntries");
		await rejectsInvalidJsonAt(() => s.load(), file, line);
		// The failed load leaves the session as it was: the context reads, the rest is still not loaded.
		assertNotLoaded(() => s.getEntries(), "getEntries after the failed load");
		assert.deepEqual(asJson(s.buildSessionContext()), context);
		assert.equal(s.getLeafId(), big.after[2]);
		// A write loads the rest first: it fails the same way and writes nothing.
		const size = statSync(file).size;
		await rejectsInvalidJsonAt(() => s.appendMessage(user("never written")), file, line);
		assert.equal(statSync(file).size, size);
		await s.close();
		// Lenient opens are never tail opens: the line is reported at open.
		const lenient = await Session.open(file, { lenient: true, load: "context" });
		assert.deepEqual(lenient.problems.map((p) => [p.code, p.line]).slice(0, 1), [["INVALID_JSON", line]]);
		assert.equal(lenient.entryCount, BULK + 4 + 1 + 3 - 1, "read whole, the broken line left out");
		await lenient.close();
	});

	test("reads beyond the context throw NOT_LOADED until load(); then they give what a verify open gives", async () => {
		const expected = await verified(big.file, (verify) => ({
			count: verify.entryCount,
			entries: verify.getEntries(),
			rows: treeRows(verify.getTree()),
			flat: verify.flattenTree().map((row) => [row.entry.id, row.depth]),
			leafEntry: verify.getLeafEntry(),
			branches: verify.listBranches(),
			branch: verify.getBranch().map((entry) => entry.id),
			children: verify.getChildren(big.compactionId).map((entry) => entry.id),
			name: verify.getSessionName(),
			earlier: asJson(verify.buildSessionContext(big.lastBulkId)),
		}));
		assert.equal(expected.count, BULK + 4 + 1 + 3);
		// Each read on a fresh tail-resumed session: NOT_LOADED first, the full open's answer after load().
		const reads: Array<[string, (s: Session) => unknown, unknown]> = [
			["getEntries()", (s) => s.getEntries(), expected.entries],
			["getTree()", (s) => treeRows(s.getTree()), expected.rows],
			["entryCount", (s) => s.entryCount, expected.count],
			["getEntry(early)", (s) => s.getEntry(big.earlyId)?.id, big.earlyId],
			["flattenTree()", (s) => s.flattenTree().map((row) => [row.entry.id, row.depth]), expected.flat],
			["listBranches()", (s) => s.listBranches(), expected.branches],
			["getBranch()", (s) => s.getBranch().map((entry) => entry.id), expected.branch],
			["getChildren(compaction)", (s) => s.getChildren(big.compactionId).map((entry) => entry.id), expected.children],
			["getSessionName()", (s) => s.getSessionName(), expected.name],
			["getLabel(compaction)", (s) => s.getLabel(big.compactionId), undefined],
			["resolveId(early)", (s) => s.resolveId(big.earlyId), big.earlyId],
			["buildSessionContext(earlier)", (s) => asJson(s.buildSessionContext(big.lastBulkId)), expected.earlier],
		];
		for (const [name, read, want] of reads) {
			const s = await openViaTail(big.file);
			assertNotLoaded(() => read(s), name);
			// What a resume needs still reads.
			assert.equal(s.getLeafId(), big.after[2], name);
			assert.deepEqual(asJson(s.buildSessionContext()), piBigContext(), name);
			await s.load();
			assert.deepEqual(read(s), want, name);
			// Loaded now: the leaf is the one resumed, the count the file's.
			assert.equal(s.getLeafId(), big.after[2], name);
			assert.equal(s.entryCount, expected.count, name);
			await s.close();
		}
		const s = await openViaTail(big.file);
		await s.load();
		await s.load(); // a second load changes nothing
		assert.deepEqual(s.getEntries(), expected.entries);
		assert.deepEqual(treeRows(s.getTree()), expected.rows);
		assert.deepEqual(
			s.flattenTree().map((row) => [row.entry.id, row.depth]),
			expected.flat,
		);
		assert.deepEqual(s.listBranches(), expected.branches);
		assert.deepEqual(s.getLeafEntry(), expected.leafEntry);
		assert.deepEqual(asJson(s.buildSessionContext(big.lastBulkId)), expected.earlier);
		assert.deepEqual(asJson(s.buildSessionContext()), piBigContext());
		assert.deepEqual(s.problems, []);
		await s.close();
	});

	test("a write on a tail-resumed session: parent is the resumed leaf, reopens agree", async () => {
		const file = copyOf(big.file);
		const s = await openViaTail(file);
		const leafId = s.getLeafId();
		assert.equal(leafId, big.after[2]);
		assertNotLoaded(() => s.getEntries(), "before the write");
		const id = await s.appendMessage(assistant("an answer after resuming", "claude-after"));
		const lines = readFileSync(file, "utf8").trimEnd().split("\n");
		const last = JSON.parse(lines[lines.length - 1] as string) as MessageEntry;
		assert.equal(last.id, id);
		assert.equal(last.parentId, leafId);
		assert.equal(s.getLeafId(), id);
		// The write read the rest first: every read works now.
		assert.equal(s.entryCount, BULK + 4 + 1 + 3 + 1);
		assert.equal(s.getEntry(big.earlyId)?.id, big.earlyId);
		const memory = asJson(s.buildSessionContext());
		assert.deepEqual((memory as { model: unknown }).model, { provider: "anthropic", modelId: "claude-after" });
		const q = await s.appendMessage(user("and another question"));
		await s.close();
		const verify = await verified(file, (v) => ({
			context: asJson(v.buildSessionContext()),
			leafId: v.getLeafId(),
			count: v.entryCount,
			parent: v.getEntry(id)?.parentId,
		}));
		assert.deepEqual(verify.leafId, q);
		assert.equal(verify.parent, leafId);
		assert.equal(verify.count, BULK + 4 + 1 + 3 + 2);
		const afterWrites = asJson(s.buildSessionContext());
		assert.deepEqual(verify.context, afterWrites);
		// A context reopen resumes from the tail again (the path still reaches the compaction).
		const again = await openViaTail(file);
		assert.deepEqual(asJson(again.buildSessionContext()), afterWrites);
		assert.equal(again.getLeafId(), q);
		await again.close();
		assert.deepEqual(piContext(file), afterWrites);
	});

	test("every other write (branch summary, label, compaction) works the same after a tail open", async () => {
		const file = copyOf(big.file);
		const s = await openViaTail(file);
		const summary = await s.branchWithSummary(big.after[1] as string, "left the last question behind");
		assert.equal(s.getEntry(summary)?.parentId, big.after[1]);
		await s.appendLabelChange(big.compactionId, "compacted here");
		await s.appendThinkingLevelChange("low");
		const c2 = await s.appendCompaction("second summary", big.after[1] as string, 99, undefined, undefined, true);
		await s.appendMessage(user("after the second compaction"));
		const memory = asJson(s.buildSessionContext());
		await s.close();
		const record = compactionRecord(file, c2);
		assert.deepEqual(record.retainedState, { thinkingLevel: "low", model: NEW_MODEL });
		assert.deepEqual(await verified(file, (v) => asJson(v.buildSessionContext())), memory);
		const again = await openViaTail(file);
		assert.deepEqual(asJson(again.buildSessionContext()), memory);
		assertNotLoaded(() => again.getLabel(big.compactionId), "getLabel");
		await again.load();
		assert.equal(again.getLabel(big.compactionId), "compacted here");
		assert.deepEqual(asJson(again.buildSessionContext()), memory);
		await again.close();
		assert.deepEqual(piContext(file), memory);
	});

	test("branch() after the compaction: the leaf record's target is resumed", async () => {
		const file = copyOf(big.file);
		const s = await Session.open(file, { now });
		await s.branch(big.after[0] as string);
		const memory = asJson(s.buildSessionContext());
		await s.close();
		const lastLine = readFileSync(file, "utf8").trimEnd().split("\n").pop() as string;
		assert.equal(JSON.parse(lastLine).type, "leaf");
		const resumed = await openViaTail(file);
		assert.equal(resumed.getLeafId(), big.after[0]);
		const context = asJson(resumed.buildSessionContext());
		assert.deepEqual(context, memory);
		assert.deepEqual(
			(context as { messages: unknown[] }).messages.length,
			1 + 4 + 1,
			"summary, retained tail, one message",
		);
		assert.deepEqual(
			await verified(file, (v) => ({ leafId: v.getLeafId(), context: asJson(v.buildSessionContext()) })),
			{ leafId: big.after[0], context },
		);
		assert.deepEqual(context, piContext(file));
		// Appending there starts a branch off the leaf record's target.
		const id = await resumed.appendMessage(user("a second branch"));
		assert.equal(resumed.getEntry(id)?.parentId, big.after[0]);
		await resumed.close();
		assert.deepEqual(
			await verified(file, (v) => v.getChildren(big.after[0] as string).map((e) => [e.id, e.parentId])),
			[
				[big.after[1], big.after[0]],
				[id, big.after[0]],
			],
		);
	});

	test("branch() to an entry before the compaction: a context open reads the file whole, same context as pi", async () => {
		const file = copyOf(big.file);
		const s = await Session.open(file, { now });
		await s.branch(big.lastBulkId);
		await s.close();
		const opened = await Session.open(file, { load: "context" });
		const context = asJson(opened.buildSessionContext());
		assert.equal(opened.entryCount, BULK + 4 + 1 + 3, "read whole: no NOT_LOADED");
		await opened.close();
		assert.deepEqual(context, piContext(file));
		// The walk leaves the last MiB: the file is read whole, broken line included.
		breakLine(file, big.earlyId);
		await rejectsInvalidJsonAt(() => Session.open(file, { load: "context" }), file, lineOf(big.earlyId));
	});

	test("a compaction without retainedState (written by hand): a full open, pi's context", async () => {
		for (const variant of ["absent", "invalid"] as const) {
			const file = copyOf(big.file);
			const lines = readFileSync(file, "utf8").split("\n");
			const index = lines.findIndex((line) => line.includes(`"id":"${big.compactionId}"`));
			const record = JSON.parse(lines[index] as string) as CompactionEntry & Record<string, unknown>;
			if (variant === "absent") delete record.retainedState;
			else record.retainedState = { thinkingLevel: "high" } as never; // no model
			lines[index] = JSON.stringify(record);
			writeFileSync(file, lines.join("\n"));
			const s = await Session.open(file, { load: "context" });
			const context = asJson(s.buildSessionContext());
			assert.equal(s.entryCount, BULK + 4 + 1 + 3, `${variant}: read whole`);
			await s.close();
			// pi ignores both fields: its context is the one of the unchanged file.
			assert.deepEqual(context, variant === "absent" ? piContext(file) : piBigContext(), variant);
			// It is a full open: the broken line is met at open.
			breakLine(file, big.earlyId);
			await rejectsInvalidJsonAt(() => Session.open(file, { load: "context" }), file, lineOf(big.earlyId));
		}
	});

	test("a later compaction without retainedTail (as pi writes), keeping from after the retained one", async () => {
		const file = copyOf(big.file);
		const s = await Session.open(file, { now });
		await s.appendCompaction("pi's summary", big.after[1] as string, 77);
		await s.appendMessage(user("after pi's compaction"));
		const memory = asJson(s.buildSessionContext());
		await s.close();
		const resumed = await openViaTail(file);
		assert.deepEqual(asJson(resumed.buildSessionContext()), memory);
		await resumed.close();
		assert.deepEqual(memory, await verified(file, (v) => asJson(v.buildSessionContext())));
		assert.deepEqual(memory, piContext(file));
	});

	test("a later compaction without retainedTail keeping from before the retained one: tail open agrees with pi", async () => {
		// pi 0.73.1's prepareCompaction starts its cut-point search at the previous compaction's
		// firstKeptEntryId, so pi itself can write such a compaction after one of ours.
		const file = copyOf(big.file);
		const s = await Session.open(file, { now });
		await s.appendCompaction("pi's summary", big.lastBulkId, 77);
		await s.appendMessage(user("after pi's compaction"));
		await s.close();
		const full = await verified(file, (v) => asJson(v.buildSessionContext()));
		assert.deepEqual(full, piContext(file));
		const resumed = await Session.open(file, { load: "context" });
		const context = asJson(resumed.buildSessionContext());
		await resumed.close();
		assert.deepEqual(context, full);
	});

	test("another process appends after the tail open, before the first write: the write catches up", async () => {
		const file = copyOf(big.file);
		const s = await openViaTail(file);
		const leafId = s.getLeafId();
		const others = execFileSync(process.execPath, [WRITER, file, "2", "none", "other"], { encoding: "utf8" })
			.trim()
			.split("\n");
		assert.equal(others.length, 2);
		// Not written yet: the tail session still shows what it resumed.
		assert.equal(s.getLeafId(), leafId);
		const mine = await s.appendMessage(user("mine, after the other process"));
		assert.equal(s.getLeafId(), mine);
		assert.equal(s.getEntry(others[0] as string)?.parentId, leafId, "the other entries are in memory too");
		const memory = asJson(s.buildSessionContext());
		await s.close();
		const reopened = await verified(file, (v) => ({
			parents: [others[0], others[1], mine].map((id) => v.getEntry(id as string)?.parentId),
			leafId: v.getLeafId(),
			count: v.entryCount,
			context: asJson(v.buildSessionContext()),
		}));
		assert.deepEqual(reopened.parents, [leafId, others[0], leafId]);
		assert.equal(reopened.leafId, mine);
		assert.equal(reopened.count, BULK + 4 + 1 + 3 + 3);
		assert.deepEqual(reopened.context, memory);
		assert.deepEqual(piContext(file), memory);
	});

	test("another process appends after the tail open, then load(): their entries are there, the leaf stays", async () => {
		const file = copyOf(big.file);
		const s = await openViaTail(file);
		const leafId = s.getLeafId();
		const context = asJson(s.buildSessionContext());
		const others = execFileSync(process.execPath, [WRITER, file, "2", "none", "other"], { encoding: "utf8" })
			.trim()
			.split("\n");
		await s.load();
		assert.equal(s.getLeafId(), leafId, "the leaf this session resumed");
		assert.deepEqual(asJson(s.buildSessionContext()), context);
		assert.deepEqual(
			others.map((id) => s.getEntry(id)?.parentId),
			[leafId, others[0]],
		);
		assert.equal(s.entryCount, BULK + 4 + 1 + 3 + 2);
		const mine = await s.appendMessage(user("mine, after load"));
		assert.equal(s.getEntry(mine)?.parentId, leafId);
		await s.close();
		assert.deepEqual(await verified(file, (v) => ({ leafId: v.getLeafId(), parent: v.getEntry(mine)?.parentId })), {
			leafId: mine,
			parent: leafId,
		});
	});

	test("another session of this process appends after the tail open: the write catches up", async () => {
		const file = copyOf(big.file);
		const s = await openViaTail(file);
		const other = await openViaTail(file);
		const theirs = await other.appendMessage(user("theirs"));
		await other.close();
		const mine = await s.appendMessage(user("mine"));
		await s.close();
		const reopened = await verified(file, (v) => [theirs, mine].map((id) => v.getEntry(id)?.parentId));
		assert.deepEqual(reopened, [big.after[2], big.after[2]]);
	});
});

describe("a session under 8 MiB", () => {
	test("never uses the tail; contexts agree either way", async () => {
		const file = fresh();
		const s = await Session.create({ file, cwd: "/p", now });
		await s.appendThinkingLevelChange("medium");
		const ids: string[] = [];
		for (let i = 0; i < 200; i++) {
			ids.push(await s.appendMessage(i % 2 ? assistant(`a${i}`, "claude-small") : user(`q${i}`)));
		}
		const c = await s.appendCompaction("small summary", ids[196] as string, 10, undefined, undefined, true);
		await s.appendMessage(user("after"));
		await s.close();
		assert.deepEqual(compactionRecord(file, c).retainedState, {
			thinkingLevel: "medium",
			model: { provider: "anthropic", modelId: "claude-small" },
		});
		const opened = await Session.open(file, { load: "context" });
		const context = asJson(opened.buildSessionContext());
		assert.equal(opened.entryCount, 1 + 200 + 1 + 1, "read whole: no NOT_LOADED");
		await opened.close();
		assert.deepEqual(context, await verified(file, (v) => asJson(v.buildSessionContext())));
		assert.deepEqual(context, piContext(file));
	});

	test("retainedState with model null when no model was set", async () => {
		const file = fresh();
		const s = await Session.create({ file, cwd: "/p", now });
		const q = await s.appendMessage(user("q"));
		const c = await s.appendCompaction("s", q, 1, undefined, undefined, true);
		await s.appendMessage(user("after"));
		await s.close();
		assert.deepEqual(compactionRecord(file, c).retainedState, { thinkingLevel: "off", model: null });
		// Without a retained tail, no retainedState either.
		const plainFile = fresh();
		const p = await Session.create({ file: plainFile, cwd: "/p", now });
		const q2 = await p.appendMessage(user("q"));
		const c2 = await p.appendCompaction("s", q2, 1);
		await p.close();
		assert.equal("retainedState" in compactionRecord(plainFile, c2), false);
		assert.equal("retainedTail" in compactionRecord(plainFile, c2), false);
		const opened = await Session.open(file, { load: "context" });
		const context = asJson(opened.buildSessionContext());
		await opened.close();
		assert.deepEqual(context, piContext(file));
	});
});
