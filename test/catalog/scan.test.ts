/** The cheap pass over a session file agrees with a full open, and falls back to one when it must. */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { type EntryView, SkippedFile, scanSession } from "../../src/catalog/scan.js";
import { Session } from "../../src/session.js";
import { fixtureDir, fixtureNames } from "../support/fixtures.js";
import { assistant, clock, user } from "./layout.js";

const dir = mkdtempSync(join(tmpdir(), "session-tree-scan-test-"));
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

function scan(file: string, parents = true) {
	// A fresh visitor per attempt: the fast path may give up halfway.
	const { result, visitor } = scanSession(
		file,
		() => {
			const seen: string[] = [];
			return {
				seen,
				visit(entry: EntryView) {
					seen.push(entry.id);
				},
			};
		},
		{ parents },
	);
	return { result, seen: visitor.seen };
}

/** The pass must agree with Session.open (lenient when a strict open fails). */
function assertAgrees(file: string): { fullLoad: boolean; warnings: string[] } {
	let session: Session;
	try {
		session = Session.open(file);
	} catch {
		session = Session.open(file, { lenient: true });
	}
	const { result, seen } = scan(file);
	assert.equal(result.entries, session.entryCount, `${file}: entries`);
	assert.equal(result.branches, session.listBranches().length, `${file}: branches`);
	assert.equal(result.leafId, session.getLeafId(), `${file}: leaf`);
	assert.deepEqual(
		seen,
		session.getEntries().map((entry) => entry.id),
		`${file}: entries visited`,
	);
	const active = new Set(session.getBranch().map((entry) => entry.id));
	const path = new Set<string>();
	for (let id = result.leafId; id !== null; id = result.parents?.get(id) ?? null) path.add(id);
	assert.deepEqual([...path].sort(), [...active].sort(), `${file}: active path`);
	return { fullLoad: result.fullLoad, warnings: result.warnings };
}

describe("scanSession", () => {
	test("agrees with Session.open on every pi fixture", () => {
		const names = fixtureNames();
		assert.ok(names.length > 10);
		for (const name of names) assertAgrees(join(fixtureDir, `${name}.jsonl`));
	});

	test("plain files written by session-tree take the fast path: branches, leaf records, resetLeaf", () => {
		const session = Session.create({ dir, cwd: "/p", now: clock("2025-01-01T00:00:00.000Z") });
		const q = session.appendMessage(user("q", "2025-01-01T00:00:00.000Z"));
		const a = session.appendMessage(assistant("a", "2025-01-01T00:00:01.000Z"));
		session.appendMessage(user("q2", "2025-01-01T00:00:02.000Z"));
		session.branch(a);
		session.appendMessage(user("q3", "2025-01-01T00:00:03.000Z"));
		session.branch(q);
		session.appendLabelChange(a, "here");
		session.appendSessionInfo("named");
		assert.equal(assertAgrees(session.file as string).fullLoad, false);
		session.branch(a);
		assert.equal(assertAgrees(session.file as string).fullLoad, false);
		session.resetLeaf();
		assert.equal(assertAgrees(session.file as string).fullLoad, false);
		session.close();
	});

	test("a child of a leaf record (pi appended after a branch) belongs under the record's target", () => {
		const file = write([
			HEADER,
			msg("a", null),
			msg("b", "a"),
			msg("c", "b"),
			{ type: "leaf", id: "l1", parentId: "a", timestamp: "2025-01-01T00:00:02.000Z", targetId: "a" },
			msg("d", "l1"),
		]);
		assert.equal(assertAgrees(file).fullLoad, false);
		const { result } = scan(file);
		assert.equal(result.branches, 2);
		assert.equal(result.leafId, "d");
		assert.equal(result.parents?.get("d"), "a");
	});

	test("an incomplete last line is left out with a warning, as a strict open leaves it out", () => {
		const file = write(`${JSON.stringify(HEADER)}\n${JSON.stringify(msg("a", null))}\n{"type":"message","id":"b","par`);
		const { fullLoad, warnings } = assertAgrees(file);
		assert.equal(fullLoad, false);
		assert.deepEqual(warnings, ["line 3: an incomplete last line (left out)"]);
	});

	test("lines in another key order are parsed; blank lines and CRLF are fine", () => {
		const file = write(
			`${JSON.stringify(HEADER)}\r\n\n{"id":"a","type":"message","timestamp":"2025-01-01T00:00:00.000Z","parentId":null,"message":{"role":"user","content":"x"}}\r\n${JSON.stringify(msg("b", "a"))}\n`,
		);
		assert.equal(assertAgrees(file).fullLoad, false);
	});

	test("a parent later in the file, old versions and damage go through a full open", () => {
		const forward = write([HEADER, msg("b", "a"), msg("a", null)]);
		assert.equal(assertAgrees(forward).fullLoad, true);
		const v2 = write([{ ...HEADER, version: 2 }, msg("a", null)]);
		assert.equal(assertAgrees(v2).fullLoad, true);
		const { version: _, ...v1Header } = HEADER;
		const v1 = write([
			v1Header,
			{ type: "message", timestamp: "2025-01-01T00:00:00.000Z", message: { role: "user", content: "x" } },
		]);
		const legacy = assertAgrees(v1);
		assert.equal(legacy.fullLoad, true);
		const missing = write([HEADER, msg("a", null), msg("b", "zz")]);
		const damaged = assertAgrees(missing);
		assert.equal(damaged.fullLoad, true);
		assert.match(
			damaged.warnings[0] as string,
			/^damaged: line 3: entry b names parent zz.*; read as a lenient open reads it$/,
		);
		const duplicate = write([HEADER, msg("a", null), msg("a", null, "other")]);
		assert.match(assertAgrees(duplicate).warnings[0] as string, /^damaged: line 3: .*already used/);
		const garbage = write(`${JSON.stringify(HEADER)}\nnot json\n${JSON.stringify(msg("a", null))}\n`);
		assert.match(assertAgrees(garbage).warnings[0] as string, /^damaged: line 2: /);
		const badTail = write(
			`${JSON.stringify(HEADER)}\n{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"user","content":"x"}}}\n`,
		);
		// Damage after the envelope of a line no visitor reads is not noticed (the line is not
		// parsed); the counts still agree with a lenient open, which salvages the record.
		assertAgrees(badTail);
		const secondHeader = write([HEADER, msg("a", null), HEADER]);
		assert.equal(assertAgrees(secondHeader).fullLoad, true);
	});

	test("files that are not sessions are skipped with a reason", () => {
		const cases: Array<[string, RegExp]> = [
			["", /empty file/],
			["\n\n", /empty file/],
			['{"event":1}\n', /not a session file \(the first line's type is missing/],
			["hello\n", /not a session file \(the first line is not a JSON object\)/],
			['[1,2]\n{"type":"session"}\n', /not a session file/],
			[`${JSON.stringify({ ...HEADER, id: 5 })}\n`, /no string id/],
			[`${JSON.stringify({ ...HEADER, version: 4 })}\n`, /version 4 is newer/],
		];
		for (const [text, reason] of cases) {
			const file = write(text);
			assert.throws(
				() => scan(file),
				(error: unknown) => error instanceof SkippedFile && reason.test(error.message) && error.file === file,
				JSON.stringify(text),
			);
		}
		assert.throws(() => scan(join(dir, "missing.jsonl")), /no such file/);
		assert.throws(() => scan(dir), SkippedFile);
	});
});
