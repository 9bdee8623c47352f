/**
 * Lazy bodies at the session level, on real files: a default open reads only the active
 * context, the rest is parsed (and checked) on first use, with the same results as `verify`,
 * the same errors (file and line) strict, the same problems lenient, and the file untouched.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
	closeSync,
	mkdtempSync,
	openSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	renameSync,
	rmSync,
	statSync,
	unlinkSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadTree } from "../../src/core/load.js";
import {
	FileSessionStore,
	isSessionTreeError,
	type MessageEntry,
	type OpenSessionOptions,
	Session,
	type SessionContext,
	type SessionEntry,
	type SessionRecord,
	type SessionTreeErrorCode,
	type SessionTreeNode,
} from "../../src/index.js";
import { fixtureFile, fixtureNames } from "../support/fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "st-lazy-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(dir, `s${++n}.jsonl`);

function sha256(path: string): string {
	return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** A value as JSON sees it (and as deep-equal compares it without accessors). */
const plain = <T>(value: T): unknown => JSON.parse(JSON.stringify(value));

/**
 * What a session shows, or how opening it failed. `tree` is the JSON of `getTree()`, or the
 * flattened rows for chains too deep for `JSON.stringify`.
 */
async function snapshot(file: string, options: OpenSessionOptions, deep = false): Promise<unknown> {
	let session: Session;
	try {
		session = await Session.open(file, options);
	} catch (error) {
		assert.ok(isSessionTreeError(error), String(error));
		return { throws: error.code, line: error.line, file: error.file };
	}
	try {
		return {
			leafId: session.getLeafId(),
			entries: session.getEntries(),
			context: session.buildSessionContext(),
			branch: session.getBranch(),
			tree: deep
				? session.flattenTree().map(({ entry, depth, label }) => ({ entry, depth, label }))
				: JSON.stringify(session.getTree()),
			problems: plain(session.problems),
		};
	} finally {
		await session.close();
	}
}

describe("pi fixtures: a default (lazy) open and a verify open agree", () => {
	for (const name of fixtureNames()) {
		test(name, async () => {
			const file = fixtureFile(name);
			const before = sha256(file);
			const deep = name === "deep-chain";
			for (const lenient of [false, true]) {
				const lazy = await snapshot(file, { lenient }, deep);
				const verified = await snapshot(file, { lenient, verify: true }, deep);
				assert.deepEqual(lazy, verified, lenient ? "lenient" : "strict");
			}
			// A current-version file that opens strictly holds exactly its lines' records.
			const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
			const header = JSON.parse(lines[0] as string) as { version?: number };
			const strict = (await snapshot(file, {}, deep)) as { entries?: SessionEntry[] };
			if (header.version === 3 && strict.entries) {
				const records = lines.slice(1).map((line) => JSON.parse(line) as SessionRecord);
				assert.deepEqual(
					strict.entries,
					records.filter((record) => record.type !== "leaf"),
				);
			}
			assert.equal(sha256(file), before, "opening must not change the file");
		});
	}
});

/** A session file with a side branch and a label, written by session-tree in pi's layout. */
interface Built {
	file: string;
	/** user 1, assistant 1 (shared), user 2 and assistant 2 (old branch), user 3 and assistant 3 (active). */
	ids: { u1: string; a1: string; u2: string; a2: string; u3: string; a3: string; label: string };
	/** 1-based line of each entry. */
	lineOf: (id: string) => number;
}

async function build(): Promise<Built> {
	const file = fresh();
	let clock = Date.parse("2026-04-01T00:00:00.000Z");
	const session = await Session.create({
		file,
		cwd: "/p",
		now: () => {
			clock += 1000;
			return new Date(clock);
		},
	});
	const assistant = (text: string, timestamp: number) => ({
		role: "assistant" as const,
		content: [{ type: "text" as const, text }],
		provider: "p",
		model: "m",
		timestamp,
	});
	const u1 = await session.appendMessage({ role: "user", content: "first question", timestamp: 1 });
	const a1 = await session.appendMessage(assistant("first answer", 2));
	const u2 = await session.appendMessage({ role: "user", content: "old question", timestamp: 3 });
	const a2 = await session.appendMessage(assistant("old answer with a MIDDLE part that gets damaged", 4));
	await session.branch(a1);
	const u3 = await session.appendMessage({ role: "user", content: "new question", timestamp: 5 });
	const a3 = await session.appendMessage(assistant("new answer with a MIDDLE part too", 6));
	const label = await session.appendLabelChange(u1, "start");
	await session.close();
	const lines = readFileSync(file, "utf8").split("\n");
	const lineOf = (id: string) => {
		const index = lines.findIndex((line) => line.includes(`"id":"${id}"`));
		assert.ok(index >= 0, id);
		return index + 1;
	};
	return { file, ids: { u1, a1, u2, a2, u3, a3, label }, lineOf };
}

/**
 * A copy of the file where the line of `id` has `MIDDLE` turned into `MI"DLE`: not JSON any
 * more, still ending in `}` with one `"parentId":` key, same length.
 */
function damaged(built: Built, id: string): string {
	const lines = readFileSync(built.file, "utf8").split("\n");
	const index = built.lineOf(id) - 1;
	const line = lines[index] as string;
	assert.ok(line.includes("MIDDLE"));
	lines[index] = line.replace("MIDDLE", 'MI"DLE');
	assert.ok(lines[index]?.endsWith("}"));
	assert.throws(() => JSON.parse(lines[index] as string));
	const file = fresh();
	writeFileSync(file, lines.join("\n"));
	return file;
}

/** A check that an error is a SessionTreeError with this code, naming `file` and `line`. */
function errorAt(code: SessionTreeErrorCode, file: string, line?: number): (error: unknown) => true {
	return (error: unknown) => {
		assert.ok(isSessionTreeError(error), String(error));
		assert.equal(error.code, code, error.message);
		assert.equal(error.file, file);
		assert.equal(error.line, line);
		assert.ok(error.message.startsWith(line === undefined ? `${file}: ` : `${file}:${line}: `), error.message);
		return true;
	};
}

/** Asserts that `run` throws a SessionTreeError with this code, naming `file` and `line`. */
function throwsAt(run: () => unknown, code: SessionTreeErrorCode, file: string, line?: number): void {
	assert.throws(run, errorAt(code, file, line));
}

/** Asserts that `run` rejects with a SessionTreeError with this code, naming `file` and `line`. */
async function rejectsAt(run: () => Promise<unknown>, code: SessionTreeErrorCode, file: string, line?: number) {
	await assert.rejects(run, errorAt(code, file, line));
}

const stubOf = (built: Built, id: string) => {
	const record = JSON.parse(readFileSync(built.file, "utf8").split("\n")[built.lineOf(id) - 1] as string);
	return { type: record.type, id: record.id, parentId: record.parentId, timestamp: record.timestamp };
};

describe("a damaged body", () => {
	let built: Built;
	let a2: string;
	let a3: string;
	let cleanContext: SessionContext;
	before(async () => {
		built = await build();
		({ a2, a3 } = built.ids);
		const session = await Session.open(built.file, { verify: true });
		cleanContext = session.buildSessionContext();
		await session.close();
	});

	test("off the active path: a strict open succeeds, reading that entry throws with its file and line", async () => {
		const file = damaged(built, a2);
		const line = built.lineOf(a2);
		const before = sha256(file);
		const session = await Session.open(file);
		assert.deepEqual(session.problems, []);
		assert.deepEqual(session.buildSessionContext(), cleanContext);
		assert.equal(session.getLeafId(), built.ids.label);
		// The shape of the tree is known without the body.
		const rows = session.flattenTree();
		assert.equal(rows.length, session.entryCount);
		assert.deepEqual(
			rows.map((row) => row.depth),
			[0, 1, 2, 3, 2, 3, 4],
		);
		assert.deepEqual(session.getChildren(built.ids.a1).length, 2);
		throwsAt(() => session.getEntry(a2), "INVALID_JSON", file, line);
		// Still unreadable, the same way, on a second try and through every reader.
		throwsAt(() => session.getEntry(a2), "INVALID_JSON", file, line);
		throwsAt(() => session.getEntries(), "INVALID_JSON", file, line);
		throwsAt(() => session.getBranch(a2), "INVALID_JSON", file, line);
		throwsAt(() => JSON.stringify(session.getTree()), "INVALID_JSON", file, line);
		throwsAt(() => session.buildSessionContext(a2), "INVALID_JSON", file, line);
		// Everything else reads.
		assert.equal(session.getEntry(built.ids.u2)?.type, "message");
		await session.close();
		assert.equal(sha256(file), before, "reading never changes the file");
	});

	test("off the active path: a strict verify open throws at open, naming the line", async () => {
		const file = damaged(built, a2);
		const before = sha256(file);
		await rejectsAt(() => Session.open(file, { verify: true }), "INVALID_JSON", file, built.lineOf(a2));
		assert.equal(sha256(file), before);
	});

	test("off the active path: a lenient open gives the stub and one problem on first read", async () => {
		const file = damaged(built, a2);
		const line = built.lineOf(a2);
		const before = sha256(file);
		const session = await Session.open(file, { lenient: true });
		assert.equal(session.problems.length, 0, "nothing read yet");
		assert.deepEqual(session.getEntry(a2), stubOf(built, a2));
		assert.deepEqual(
			session.problems.map((p) => ({ code: p.code, line: p.line, entryId: p.entryId })),
			[{ code: "INVALID_JSON", line, entryId: a2 }],
		);
		assert.match(session.problems[0]?.message ?? "", /not valid JSON/);
		// Read again, and through other readers: still one problem.
		assert.deepEqual(session.getEntry(a2), stubOf(built, a2));
		session.getEntries();
		JSON.stringify(session.getTree());
		assert.equal(session.problems.length, 1);
		// The stub is left out of the context on its branch; the active context is intact.
		assert.deepEqual(session.buildSessionContext(), cleanContext);
		const onOldBranch = session.buildSessionContext(a2).messages;
		assert.deepEqual(
			onOldBranch.map((m) => m.role),
			["user", "assistant", "user"],
		);
		await session.close();
		assert.equal(sha256(file), before);
	});

	test("off the active path: a lenient verify open reports it at open", async () => {
		const file = damaged(built, a2);
		const before = sha256(file);
		const session = await Session.open(file, { lenient: true, verify: true });
		assert.deepEqual(
			session.problems.map((p) => [p.code, p.line, p.entryId]),
			[["INVALID_JSON", built.lineOf(a2), a2]],
		);
		assert.deepEqual(session.getEntry(a2), stubOf(built, a2));
		assert.equal(session.problems.length, 1);
		await session.close();
		assert.equal(sha256(file), before);
	});

	test("on the active path: a strict open throws; a lenient one reports it at open", async () => {
		const file = damaged(built, a3);
		const line = built.lineOf(a3);
		const before = sha256(file);
		await rejectsAt(() => Session.open(file), "INVALID_JSON", file, line);
		await rejectsAt(() => Session.open(file, { verify: true }), "INVALID_JSON", file, line);
		const lenient = await Session.open(file, { lenient: true });
		assert.deepEqual(
			lenient.problems.map((p) => [p.code, p.line, p.entryId]),
			[["INVALID_JSON", line, a3]],
		);
		assert.deepEqual(lenient.getEntry(a3), stubOf(built, a3));
		assert.deepEqual(
			lenient.buildSessionContext().messages,
			cleanContext.messages.slice(0, -1),
			"the damaged message is left out",
		);
		await lenient.close();
		assert.equal(sha256(file), before);
	});

	test("a message without a string role: INVALID_RECORD when read (strict), kept and reported (lenient)", async () => {
		const lines = readFileSync(built.file, "utf8").split("\n");
		const line = built.lineOf(a2);
		lines[line - 1] = (lines[line - 1] as string).replace('"role":"assistant"', '"role":null');
		const file = fresh();
		writeFileSync(file, lines.join("\n"));
		const strict = await Session.open(file);
		assert.deepEqual(strict.buildSessionContext(), cleanContext);
		throwsAt(() => strict.getEntry(a2), "INVALID_RECORD", file, line);
		await strict.close();
		await rejectsAt(() => Session.open(file, { verify: true }), "INVALID_RECORD", file, line);
		const lenient = await Session.open(file, { lenient: true });
		const entry = lenient.getEntry(a2) as MessageEntry;
		assert.equal(entry.id, a2);
		assert.equal(entry.message.role, null);
		assert.deepEqual(
			lenient.problems.map((p) => [p.code, p.line, p.entryId]),
			[["INVALID_RECORD", line, a2]],
		);
		assert.match(lenient.problems[0]?.message ?? "", /kept in the tree/);
		// Kept in the tree, with the same context on its branch as a verify open gives.
		const verified = await Session.open(file, { lenient: true, verify: true });
		assert.deepEqual(plain(verified.problems), plain(lenient.problems));
		assert.deepEqual(lenient.buildSessionContext(a2), verified.buildSessionContext(a2));
		assert.deepEqual(lenient.getBranch(a2), verified.getBranch(a2));
		// "Left out of the context": the message without a role is not among the messages.
		const atA2 = lenient.buildSessionContext(a2).messages;
		const clean = await Session.open(built.file, { verify: true });
		assert.deepEqual(atA2, clean.buildSessionContext(a2).messages.slice(0, -1));
		await clean.close();
		await verified.close();
		await lenient.close();
	});
});

describe("the file changes under an open session", () => {
	/** Offset in the file of the first byte of the id on the line of `id`. */
	function idOffset(file: string, id: string): number {
		const bytes = readFileSync(file);
		const at = bytes.indexOf(`"id":"${id}"`);
		assert.ok(at >= 0);
		return at + '"id":"'.length;
	}

	/** Writes `text` at `offset` into the file itself (same inode, same length). */
	function patch(file: string, offset: number, text: string): void {
		const fd = openSync(file, "r+");
		try {
			writeSync(fd, text, offset);
		} finally {
			closeSync(fd);
		}
	}

	test("a line changed in place after open (another id, same length): reading it throws naming the line", async () => {
		const built = await build();
		const { a2 } = built.ids;
		const file = built.file;
		const inode = statSync(file).ino;
		const session = await Session.open(file);
		const context = session.buildSessionContext();
		patch(file, idOffset(file, a2), "0f0f0f0f");
		assert.equal(statSync(file).ino, inode, "the same file");
		throwsAt(() => session.getEntry(a2), "INVALID_JSON", file, built.lineOf(a2));
		// What was read at open is unaffected.
		assert.deepEqual(session.buildSessionContext(), context);
		// A lenient session gets the stub and a problem instead.
		const built2 = await build();
		const lenient = await Session.open(built2.file, { lenient: true });
		patch(built2.file, idOffset(built2.file, built2.ids.a2), "0f0f0f0f");
		const stub = lenient.getEntry(built2.ids.a2);
		assert.deepEqual(Object.keys(stub ?? {}), ["type", "id", "parentId", "timestamp"]);
		assert.equal(stub?.id, built2.ids.a2);
		assert.equal(stub?.parentId, built2.ids.u2);
		assert.deepEqual(
			lenient.problems.map((p) => [p.code, p.line, p.entryId]),
			[["INVALID_JSON", built2.lineOf(built2.ids.a2), built2.ids.a2]],
		);
		assert.match(lenient.problems[0]?.message ?? "", /changed in place/);
		await session.close();
		await lenient.close();
	});

	test("a parent changed in place after open: reading that entry throws naming the line", async () => {
		const built = await build();
		const { a2, u2 } = built.ids;
		const file = built.file;
		const session = await Session.open(file);
		const bytes = readFileSync(file);
		const at = bytes.indexOf(`"parentId":"${u2}"`, idOffset(file, a2));
		assert.ok(at > 0);
		patch(file, at + '"parentId":"'.length, "0e0e0e0e");
		throwsAt(() => session.getEntry(a2), "INVALID_JSON", file, built.lineOf(a2));
		await session.close();
	});

	test("after close, a file replaced by rename: reading an unread entry is IO_ERROR; read ones stay", async () => {
		const built = await build();
		const { a2, u3 } = built.ids;
		const file = built.file;
		const session = await Session.open(file);
		const u3Entry = session.getEntry(u3); // on the active path: parsed at open
		await session.close();
		const replacement = join(dir, "replacement.tmp");
		writeFileSync(replacement, readFileSync(file));
		renameSync(replacement, file);
		throwsAt(() => session.getEntry(a2), "IO_ERROR", file);
		assert.deepEqual(session.getEntry(u3), u3Entry);
		assert.ok(session.buildSessionContext().messages.length > 0);
	});

	test("before close, a file replaced by rename: the open descriptor still reads the original", async () => {
		const built = await build();
		const { a2 } = built.ids;
		const file = built.file;
		const original = JSON.parse(readFileSync(file, "utf8").split("\n")[built.lineOf(a2) - 1] as string);
		const session = await Session.open(file);
		const replacement = join(dir, "replacement2.tmp");
		writeFileSync(replacement, "garbage\n");
		renameSync(replacement, file);
		assert.deepEqual(session.getEntry(a2), original);
		await session.close();
	});

	test("after close, a file removed: reading an unread entry is IO_ERROR", async () => {
		const built = await build();
		const session = await Session.open(built.file);
		await session.close();
		unlinkSync(built.file);
		throwsAt(() => session.getEntry(built.ids.a2), "IO_ERROR", built.file);
	});

	test("after close, the same file: reading reopens it", async () => {
		const built = await build();
		const { a2, u2 } = built.ids;
		const lines = readFileSync(built.file, "utf8").split("\n");
		const session = await Session.open(built.file);
		await session.close();
		assert.deepEqual(session.getEntry(a2), JSON.parse(lines[built.lineOf(a2) - 1] as string));
		assert.deepEqual(session.getEntry(u2), JSON.parse(lines[built.lineOf(u2) - 1] as string));
		await session.close();
		// Appends in between do not matter either.
		const again = await Session.open(built.file);
		await again.close();
		const other = await Session.open(built.file);
		await other.appendMessage({ role: "user", content: "more", timestamp: 9 });
		await other.close();
		assert.deepEqual(again.getEntries(), other.getEntries().slice(0, -1));
	});
});

describe("getTree and flattenTree nodes", () => {
	let built: Built;
	let u1: string;
	let a2: string;
	let u3: string;
	before(async () => {
		built = await build();
		({ u1, a2, u3 } = built.ids);
	});

	function nodeOf(roots: SessionTreeNode[], id: string): SessionTreeNode {
		const stack = [...roots];
		for (let node = stack.pop(); node; node = stack.pop()) {
			if (node.entry.id === id) return node;
			stack.push(...node.children);
		}
		assert.fail(`no node ${id}`);
	}

	test("keys in pi's order; entry is an own enumerable accessor read like a data property", async () => {
		const session = await Session.open(built.file);
		const roots = session.getTree();
		assert.equal(roots.length, 1);
		const root = roots[0] as SessionTreeNode;
		assert.deepEqual(Object.keys(root), ["entry", "children", "label", "labelTimestamp"]);
		const descriptor = Object.getOwnPropertyDescriptor(root, "entry");
		assert.ok(descriptor?.enumerable);
		assert.equal(typeof descriptor?.get, "function");
		assert.equal(root.entry.id, u1);
		assert.equal(root.label, "start");
		const leafNode = nodeOf(roots, a2);
		assert.deepEqual(Object.keys(leafNode), ["entry", "children"]);
		// Spread, before anything parsed the body: entry is there and equal to the session's.
		const spread = { ...nodeOf(session.getTree(), a2) };
		assert.deepEqual(Object.keys(spread), ["entry", "children"]);
		assert.deepEqual(spread.entry, session.getEntry(a2));
		assert.deepEqual(Object.getOwnPropertyDescriptor(spread, "entry")?.value, session.getEntry(a2));
		assert.equal(JSON.stringify(leafNode), JSON.stringify({ entry: session.getEntry(a2), children: [] }));
		assert.deepEqual(JSON.parse(JSON.stringify(root)).entry, session.getEntry(u1), "JSON.stringify sees entry");
		await session.close();
	});

	test("assigning entry replaces it, keeps the key order and leaves the session alone", async () => {
		const session = await Session.open(built.file);
		const root = session.getTree()[0] as SessionTreeNode;
		const replacement = { ...(session.getEntry(u1) as SessionEntry), id: "replaced" };
		root.entry = replacement;
		assert.equal(root.entry, replacement);
		assert.deepEqual(Object.keys(root), ["entry", "children", "label", "labelTimestamp"]);
		assert.equal(Object.getOwnPropertyDescriptor(root, "entry")?.value, replacement);
		assert.equal(session.getEntry(u1)?.id, u1);
		assert.equal(session.getTree()[0]?.entry.id, u1, "a new tree is not affected");
		await session.close();
	});

	test("assigning entry does not parse the body (a damaged one off the path)", async () => {
		const file = damaged(built, a2);
		const session = await Session.open(file);
		const node = nodeOf(session.getTree(), u1);
		// Walk to a2 by ids read from the shape, without reading a2's entry.
		const a1Node = node.children[0] as SessionTreeNode;
		const u2Node = a1Node.children[0] as SessionTreeNode;
		const a2Node = u2Node.children[0] as SessionTreeNode;
		assert.equal(u2Node.entry.id, built.ids.u2);
		throwsAt(() => a2Node.entry, "INVALID_JSON", file, built.lineOf(a2));
		const value = { type: "custom", id: "x", parentId: null, timestamp: "t" } as SessionEntry;
		a2Node.entry = value;
		assert.equal(a2Node.entry, value);
		// In display order a2 comes right after its parent u2.
		const rows = session.flattenTree();
		const row = rows[rows.findIndex((r) => r.entry.id === built.ids.u2) + 1];
		assert.ok(row);
		row.entry = value;
		assert.equal(row.entry, value);
		await session.close();
	});

	test("flattenTree rows: keys entry, depth, label; spread and assignment", async () => {
		const session = await Session.open(built.file);
		const rows = session.flattenTree();
		assert.deepEqual(
			rows.map((row) => Object.keys(row)),
			rows.map((_, i) => (i === 0 ? ["entry", "depth", "label"] : ["entry", "depth"])),
		);
		for (const row of rows) {
			const spread = { ...row };
			assert.deepEqual(spread.entry, session.getEntry(row.entry.id));
			assert.ok(Object.getOwnPropertyDescriptor(row, "entry")?.enumerable);
		}
		assert.deepEqual(
			plain(rows[0]),
			{ entry: session.getEntry(u1), depth: 0, label: "start" },
			"JSON sees entry, depth, label",
		);
		const row = rows.find((r) => r.entry.id === u3);
		assert.ok(row);
		const value = { ...(row.entry as SessionEntry), id: "other" };
		row.entry = value;
		assert.equal(row.entry, value);
		assert.deepEqual(Object.keys(row), ["entry", "depth"]);
		assert.equal(session.getEntry(u3)?.id, u3);
		await session.close();
	});
});

describe("appending to a lazily opened session", () => {
	test("a reopen gives the context, entries and leaf the session had in memory", async () => {
		const built = await build();
		const { a2, u1 } = built.ids;
		const session = await Session.open(built.file);
		await session.appendMessage({ role: "user", content: "continued", timestamp: 10 });
		await session.branchWithSummary(a2, "went back to the old answer");
		await session.appendMessage({ role: "user", content: "on the old branch", timestamp: 11 });
		await session.appendMessage({
			role: "assistant",
			content: [{ type: "text", text: "reply" }],
			provider: "p",
			model: "m",
			timestamp: 12,
		});
		await session.appendLabelChange(u1, "renamed");
		const memory = {
			leafId: session.getLeafId(),
			context: plain(session.buildSessionContext()),
			entries: plain(session.getEntries()),
			tree: JSON.stringify(session.getTree()),
		};
		await session.close();
		for (const options of [{}, { verify: true }, { lenient: true }]) {
			const reopened = await Session.open(built.file, options);
			assert.deepEqual(reopened.problems, []);
			assert.deepEqual(
				{
					leafId: reopened.getLeafId(),
					context: plain(reopened.buildSessionContext()),
					entries: plain(reopened.getEntries()),
					tree: JSON.stringify(reopened.getTree()),
				},
				memory,
				JSON.stringify(options),
			);
			await reopened.close();
		}
	});
});

describe("regressions", () => {
	const T = "2026-04-02T00:00:00.000Z";
	const header = JSON.stringify({ type: "session", version: 3, id: "repair-session", timestamp: T, cwd: "/p" });
	const userLine = (id: string, parentId: string | null, text: string) =>
		JSON.stringify({
			type: "message",
			id,
			parentId,
			timestamp: T,
			message: { role: "user", content: text, timestamp: 1 },
		});
	/** An assistant message whose text holds a raw `"`: not JSON, yet it ends in `}` and has one `"parentId":`. */
	const damagedLine = (id: string, parentId: string) =>
		`{"type":"message","id":"${id}","parentId":"${parentId}","timestamp":"${T}","message":{"role":"assistant","content":[{"type":"text","text":"a "quoted" word"}],"provider":"p","model":"m","timestamp":2}}`;

	test("repair of a v3 file whose only damage is an unread body off the active path rewrites it", async () => {
		const file = fresh();
		const bad = damagedLine("aaaaaaa2", "aaaaaaa1");
		assert.ok(bad.endsWith("}"));
		assert.throws(() => JSON.parse(bad));
		const original = `${[
			header,
			userLine("aaaaaaa1", null, "root"),
			bad,
			userLine("aaaaaaa4", "aaaaaaa2", "child of the damaged entry"),
			userLine("aaaaaaa3", "aaaaaaa1", "the leaf"),
		].join("\n")}\n`;
		writeFileSync(file, original);
		const context = await (async () => {
			const s = await Session.open(file, { lenient: true });
			const built = s.buildSessionContext();
			await s.close();
			return built;
		})();
		const session = await Session.open(file, { lenient: true });
		assert.deepEqual(session.problems, [], "the damaged body is not read at open");
		const backup = await session.repair();
		assert.equal(typeof backup, "string", "repair rewrote the file");
		assert.equal(readFileSync(backup as string, "utf8"), original, "the backup is the original");
		await session.close();
		assert.notEqual(readFileSync(file, "utf8"), original);
		// The repaired file opens strictly, every line read.
		const repaired = await Session.open(file, { verify: true });
		assert.deepEqual(repaired.problems, []);
		assert.equal(repaired.getEntry("aaaaaaa2"), undefined, "the unreadable entry is left out");
		assert.deepEqual(
			repaired.getEntries().map((entry) => [entry.id, entry.parentId]),
			[
				["aaaaaaa1", null],
				["aaaaaaa4", "aaaaaaa1"],
				["aaaaaaa3", "aaaaaaa1"],
			],
			"the child of the dropped entry moves up to its parent",
		);
		assert.equal(repaired.getLeafId(), "aaaaaaa3");
		assert.deepEqual(repaired.buildSessionContext(), context);
		assert.equal(repaired.getEntry("aaaaaaa4")?.type, "message");
		await repaired.close();
		// Nothing left to repair.
		const again = await Session.open(file, { lenient: true });
		assert.equal(await again.repair(), undefined);
		await again.close();
	});

	test("writes after repair() stay consistent with the repaired file (in-memory tree keeps dropped entries)", async () => {
		// The damaged entry is the leaf: a lenient open reports it, repair drops it and points the
		// file's leaf at its parent, but the session's leaf stays on the dropped id.
		const file = fresh();
		writeFileSync(
			file,
			`${[header, userLine("aaaaaaa1", null, "root"), damagedLine("aaaaaaa2", "aaaaaaa1")].join("\n")}\n`,
		);
		const session = await Session.open(file, { lenient: true });
		assert.equal(session.problems.length, 1);
		assert.equal(typeof (await session.repair()), "string");
		const id = await session.appendMessage({ role: "user", content: "after the repair", timestamp: 3 });
		await session.close();
		const reopened = await Session.open(file, { verify: true });
		assert.equal(reopened.getEntry(id)?.parentId, "aaaaaaa1");
		await reopened.close();
	});

	test("close() after a read that reopened the file closes it again: no descriptor is left", async () => {
		const built = await build();
		const { a2 } = built.ids;
		const target = realpathSync(built.file);
		const openOnFile = () =>
			readdirSync("/proc/self/fd").filter((fd) => {
				try {
					return readlinkSync(`/proc/self/fd/${fd}`) === target;
				} catch {
					return false; // closed meanwhile (the descriptor of readdirSync itself)
				}
			}).length;
		assert.equal(openOnFile(), 0);
		const session = await Session.open(built.file);
		await session.close();
		assert.equal(openOnFile(), 0, "closed");
		// a2 is off the active path: not parsed at open, read now from the file (reopened).
		assert.equal(session.getEntry(a2)?.id, a2);
		assert.ok(openOnFile() > 0, "the read reopened the file");
		await session.close();
		assert.equal(openOnFile(), 0, "the second close closed it");
	});
});

describe("envelopes are tree nodes", () => {
	test("one read given to two loads: each tree gets its own nodes, the first stays as it was", async () => {
		const file = fixtureFile("branch-in-place");
		const store = new FileSessionStore(file);
		const read = await store.read();
		const options = { file, source: read.source };
		const first = loadTree(read.lines, options).tree;
		const before = JSON.stringify(first.getTree());
		const second = loadTree(read.lines, options).tree;
		assert.equal(JSON.stringify(second.getTree()), before, "the second tree is the same tree");
		assert.equal(JSON.stringify(first.getTree()), before, "and the first was not re-linked by it");
		for (const node of first.nodesInOrder()) {
			const other = second.getNode(node.id);
			assert.ok(other && other !== node, `entry ${node.id}: a node of its own in each tree`);
		}
		await store.close();
	});
});
