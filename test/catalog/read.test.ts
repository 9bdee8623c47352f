/** The catalog reads a session through its store and the reducer: it agrees with a full open. */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type CatalogSession, readSession, SkippedFile } from "../../src/catalog/read.js";
import type { LineSource } from "../../src/core/lazy.js";
import { Session } from "../../src/session.js";
import { FileSessionStore } from "../../src/storage/file-store.js";
import { MemorySessionStore } from "../../src/storage/memory-store.js";
import type { SessionStore } from "../../src/storage/store.js";
import { fixtureDir, fixtureNames } from "../support/fixtures.js";
import { assistant, clock, user } from "./layout.js";

const dir = mkdtempSync(join(tmpdir(), "session-tree-read-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let counter = 0;
function write(lines: readonly object[] | string): string {
	const file = join(dir, `f${counter++}.jsonl`);
	writeFileSync(file, typeof lines === "string" ? lines : lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
	return file;
}

const HEADER = { type: "session", version: 3, id: "s1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" };
function msg(id: string, parentId: string | null, text = "hi", role = "user"): object {
	return {
		type: "message",
		id,
		parentId,
		timestamp: "2025-01-01T00:00:01.000Z",
		message: { role, content: text, timestamp: 1 },
	};
}

/** What the catalog sees of a session, read with `use` (default: only the tree). */
async function read<T = CatalogSession>(
	location: string | SessionStore,
	use: (session: CatalogSession) => T = (session) => session as T,
): Promise<{ session: CatalogSession; value: T }> {
	const store = typeof location === "string" ? new FileSessionStore(location) : location;
	try {
		return await readSession(store, {}, use);
	} finally {
		await store.close();
	}
}

/** The catalog's view must agree with Session.open (lenient when a strict open fails). */
async function assertAgrees(location: string): Promise<readonly string[]> {
	let session: Session;
	try {
		session = await Session.open(location, { verify: true });
	} catch {
		session = await Session.open(location, { lenient: true, verify: true });
	}
	const catalog = (await read(location)).session;
	assert.equal(catalog.tree.size, session.entryCount, `${location}: entries`);
	assert.equal(catalog.branches, session.listBranches().length, `${location}: branches`);
	assert.equal(catalog.tree.getLeafId(), session.getLeafId(), `${location}: leaf`);
	assert.deepEqual(
		catalog.nodes.map((node) => node.id),
		session.getEntries().map((entry) => entry.id),
		`${location}: entries in order`,
	);
	assert.deepEqual(
		catalog.tree.getPath().map((node) => node.id),
		session.getBranch().map((entry) => entry.id),
		`${location}: active path`,
	);
	await session.close();
	return catalog.warnings;
}

describe("readSession", () => {
	test("agrees with Session.open on every pi fixture", async () => {
		const names = fixtureNames();
		assert.ok(names.length > 10);
		for (const name of names) await assertAgrees(join(fixtureDir, `${name}.jsonl`));
	});

	test("files written by session-tree: branches, leaf records, resetLeaf", async () => {
		const session = await Session.create({ dir, cwd: "/p", now: clock("2025-01-01T00:00:00.000Z") });
		const q = await session.appendMessage(user("q", "2025-01-01T00:00:00.000Z"));
		const a = await session.appendMessage(assistant("a", "2025-01-01T00:00:01.000Z"));
		await session.appendMessage(user("q2", "2025-01-01T00:00:02.000Z"));
		await session.branch(a);
		await session.appendMessage(user("q3", "2025-01-01T00:00:03.000Z"));
		await session.branch(q);
		await session.appendLabelChange(a, "here");
		await session.appendSessionInfo("named");
		const file = session.file as string;
		assert.deepEqual(await assertAgrees(file), []);
		await session.branch(a);
		assert.deepEqual(await assertAgrees(file), []);
		await session.resetLeaf();
		assert.deepEqual(await assertAgrees(file), []);
		await session.close();
		// Most entries come back from the file store unparsed: only their envelopes are read.
		const { session: catalog } = await read(file);
		assert.ok(catalog.nodes.filter((node) => catalog.unparsed(node)).length >= 4);
		assert.equal(catalog.tree.getSessionName(), "named");
	});

	test("a memory store reads the same as a file with the same lines", async () => {
		const file = write([HEADER, msg("a", null), msg("b", "a", "x", "assistant"), msg("c", "a")]);
		const memory = new MemorySessionStore("read-test-copy");
		const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
		await memory.create(JSON.parse(lines[0] as string));
		const position = (await memory.read()).position;
		await memory.append(
			lines.slice(1).map((line) => JSON.parse(line)),
			position,
		);
		const fromMemory = (await read(memory)).session;
		const fromFile = (await read(file)).session;
		assert.equal(fromMemory.location, "memory:read-test-copy");
		assert.deepEqual(
			fromMemory.nodes.map((node) => node.id),
			fromFile.nodes.map((node) => node.id),
		);
		assert.equal(fromMemory.branches, 2);
		assert.equal(fromMemory.tree.getLeafId(), "c");
		assert.ok(
			fromMemory.nodes.every((node) => !fromMemory.unparsed(node)),
			"a memory store parses every line",
		);
		memory.delete();
	});

	test("a child of a leaf record (pi appended after a branch) belongs under the record's target", async () => {
		const file = write([
			HEADER,
			msg("a", null),
			msg("b", "a"),
			msg("c", "b"),
			{ type: "leaf", id: "l1", parentId: "a", timestamp: "2025-01-01T00:00:02.000Z", targetId: "a" },
			msg("d", "l1"),
		]);
		assert.deepEqual(await assertAgrees(file), []);
		const { session } = await read(file);
		assert.equal(session.branches, 2);
		assert.equal(session.tree.getLeafId(), "d");
		assert.equal(session.tree.getParentId("d"), "a");
	});

	test("an incomplete last line is left out with a warning, as a strict open leaves it out", async () => {
		const file = write(`${JSON.stringify(HEADER)}\n${JSON.stringify(msg("a", null))}\n{"type":"message","id":"b","par`);
		assert.deepEqual(await assertAgrees(file), [
			"line 3: the last line is an incomplete record (31 bytes without a newline); left out (an append that never completed)",
		]);
	});

	test("lines in another key order are parsed; blank lines and CRLF are fine", async () => {
		const file = write(
			`${JSON.stringify(HEADER)}\r\n\n{"id":"a","type":"message","timestamp":"2025-01-01T00:00:00.000Z","parentId":null,"message":{"role":"user","content":"x"}}\r\n${JSON.stringify(msg("b", "a"))}\n`,
		);
		assert.deepEqual(await assertAgrees(file), []);
	});

	test("a parent later in the file and old versions are read as an open reads them", async () => {
		assert.deepEqual(await assertAgrees(write([HEADER, msg("b", "a"), msg("a", null)])), []);
		assert.deepEqual(await assertAgrees(write([{ ...HEADER, version: 2 }, msg("a", null)])), []);
		const { version: _, ...v1Header } = HEADER;
		const v1 = write([
			v1Header,
			{ type: "message", timestamp: "2025-01-01T00:00:00.000Z", message: { role: "user", content: "x" } },
		]);
		assert.deepEqual(await assertAgrees(v1), []);
	});

	test("damage: read as a lenient open reads it, with one warning naming the first problem", async () => {
		const missing = await assertAgrees(write([HEADER, msg("a", null), msg("b", "zz")]));
		assert.equal(missing.length, 1);
		assert.match(missing[0] as string, /^damaged: line 3: entry b names parent zz.*; read as a lenient open reads it$/);
		const duplicate = await assertAgrees(write([HEADER, msg("a", null), msg("a", null, "other")]));
		assert.match(duplicate[0] as string, /^damaged: line 3: .*already used/);
		const garbage = await assertAgrees(
			write(`${JSON.stringify(HEADER)}\nnot json\n${JSON.stringify(msg("a", null))}\n`),
		);
		assert.match(garbage[0] as string, /^damaged: line 2: /);
		const secondHeader = await assertAgrees(write([HEADER, msg("a", null), HEADER]));
		assert.match(secondHeader[0] as string, /^damaged: line 3: a second session header/);
		const two = await assertAgrees(write([HEADER, msg("a", "x"), msg("b", "y")]));
		assert.match(two[0] as string, /^damaged: line 2: .* \(and 1 more problem\); read as a lenient open reads it$/);
	});

	test("damage in a body is found when the body is read, and the session is read again leniently", async () => {
		// The envelope of line 2 is in pi's layout; the rest of the line is not JSON.
		const file = write(
			`${JSON.stringify(HEADER)}\n{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"x"}}}\n`,
		);
		// Nobody reads the body: nothing is noticed.
		assert.deepEqual((await read(file)).session.warnings, []);
		const runs: boolean[] = [];
		const { session, value } = await read(file, (catalog) => {
			runs.push(true);
			return catalog.entries(catalog.nodes).length;
		});
		assert.equal(runs.length, 2, "the strict run stopped at the body, the lenient run read it");
		assert.equal(value, 1);
		assert.match(session.warnings[0] as string, /^damaged: line 2: not valid JSON/);
	});

	test("entries are parsed by the core's rules and not kept in the tree", async () => {
		const file = write([HEADER, msg("a", null, "first"), msg("b", "a", "second", "assistant")]);
		const { session, value } = await read(file, (catalog) => catalog.entries(catalog.nodes));
		assert.deepEqual(
			value.map((entry) => entry.id),
			["a", "b"],
		);
		assert.ok(
			session.nodes.every((node) => session.unparsed(node)),
			"the tree still holds only envelopes",
		);
	});

	test("raw lines are visited as bytes; the lines a filter keeps are not read again to be parsed", async () => {
		const lines = [msg("a", null, "first"), msg("b", "a", "second", "assistant"), msg("c", "b", "third")];
		const file = write([HEADER, ...lines]);
		const text = (bytes: Uint8Array, start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString();
		// With the file store's source, and with a source that only has readLines (the catalog falls back on it).
		for (const bytesToo of [true, false]) {
			const store = new FileSessionStore(file);
			const reads: string[] = [];
			const readAll = store.read.bind(store);
			store.read = async () => {
				const read = await readAll();
				const source = read.source as LineSource;
				read.source = {
					readLines(spans) {
						reads.push(...spans.map((span) => span.id));
						return source.readLines(spans);
					},
					...(bytesToo ? { visitLines: (spans, visit) => source.visitLines?.(spans, visit) } : {}),
				};
				return read;
			};
			const { session } = await read(store);
			const seen: string[] = [];
			session.visitLines([...session.nodes].reverse(), (index, bytes, start, end) => {
				seen[index] = text(bytes, start, end);
			});
			assert.deepEqual(seen, lines.map((line) => JSON.stringify(line)).reverse());
			reads.length = 0;
			const kept = session.filterLines(
				session.nodes,
				(bytes, start, end) => !text(bytes, start, end).includes("first"),
			);
			assert.deepEqual(
				kept.map((node) => node.id),
				["b", "c"],
			);
			assert.deepEqual(reads, bytesToo ? [] : ["a", "b", "c"]);
			reads.length = 0;
			assert.deepEqual(
				session.entries(session.nodes).map((entry) => entry.id),
				["a", "b", "c"],
			);
			assert.deepEqual(reads, ["a"], "the lines the filter kept are parsed from the texts it read");
			assert.deepEqual(
				session.filterLines([], () => true),
				[],
			);
		}
	});

	test("files that are not sessions are skipped with a reason", async () => {
		const cases: Array<[string, RegExp]> = [
			["", /^not a session file: the file holds no session header$/],
			["\n\n", /^not a session file: the file holds no session header$/],
			['{"event":1}\n', /^not a session file: line 1: the first line is not a session header \(its type is/],
			["hello\n", /^not a session file: line 1: the first line is not a session header \(not valid JSON/],
			['[1,2]\n{"type":"session"}\n', /^not a session file: .*found an array/],
			[`${JSON.stringify({ ...HEADER, id: 5 })}\n`, /no string id/],
			[`${JSON.stringify({ ...HEADER, version: 4 })}\n`, /version 4 is newer/],
		];
		for (const [text, reason] of cases) {
			const file = write(text);
			await assert.rejects(
				read(file),
				(error: unknown) => error instanceof SkippedFile && reason.test(error.message) && error.file === file,
				JSON.stringify(text),
			);
		}
		await assert.rejects(read(join(dir, "missing.jsonl")), /^SkippedFile: no such file$/);
		await assert.rejects(read(dir), SkippedFile);
	});

	test("errors that are not the session's are not turned into skipped files", async () => {
		const file = write([HEADER, msg("a", null)]);
		await assert.rejects(
			read(file, () => {
				throw new TypeError("a bug");
			}),
			TypeError,
		);
	});
});
