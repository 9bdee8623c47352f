import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MemorySessionStore, Session } from "../../src/index.js";

describe("MemorySessionStore", () => {
	test("behaves like a file: reopen gives the same leaf, tree and context", () => {
		const store = new MemorySessionStore();
		const s = Session.createIn(store, { cwd: "/m" });
		const q = s.appendMessage({ role: "user", content: "q", timestamp: 1 });
		s.appendMessage({ role: "user", content: "q again", timestamp: 2 });
		s.branch(q);
		const reopened = Session.openStore(store);
		assert.equal(reopened.getLeafId(), q);
		assert.deepEqual(reopened.getEntries(), s.getEntries());
		assert.deepEqual(reopened.buildSessionContext(), s.buildSessionContext());
		assert.equal(store.text().split("\n").length, 5, "header, two entries, one leaf record, final newline");
	});

	test("fork of an in-memory session stays in memory", () => {
		const s = Session.inMemory();
		s.appendMessage({ role: "user", content: "q", timestamp: 1 });
		const f = s.fork();
		assert.equal(f.file, undefined);
		assert.match(String(f.getHeader().parentSession), /^memory:/);
		assert.equal(f.entryCount, 1);
	});
});
