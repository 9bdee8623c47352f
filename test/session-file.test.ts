/**
 * `Session.file` asks the store contract (`SessionStore.file`), not the store's class: a JSONL
 * session names its file, a memory session none, another agent's history opened read-only its
 * source file, and a store of the user's own whatever file it declares.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { importText, openImported, Session } from "../src/index.js";
import { MemorySessionStore } from "../src/storage/memory-store.js";
import type { SessionStore } from "../src/storage/store.js";
import { sample, sampleText } from "./import/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "st-session-file-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("a JSONL session names its file; a memory session none", async () => {
	const session = await Session.create({ dir, cwd: "/p" });
	assert.ok(session.file?.startsWith(dir), String(session.file));
	assert.ok(session.file?.endsWith(".jsonl"));
	await session.close();
	const memory = await Session.inMemory({ cwd: "/p" });
	assert.equal(memory.file, undefined);
});

test("another agent's history opened read-only names its source file", async () => {
	const path = sample("chatgpt", "librechat-chatgpt-tree.json");
	const [imported] = await importText(sampleText("chatgpt", "librechat-chatgpt-tree.json"), path);
	assert.ok(imported);
	const session = await openImported(imported, path);
	assert.equal(session.file, path);
});

test("a store of one's own that declares a file", async () => {
	const inner = new MemorySessionStore("own-file-store");
	// Every operation the inner store's, and a file of its own declared (no class of ours to extend).
	const own = Object.assign(Object.create(inner) as SessionStore, { file: "/somewhere/own.jsonl" });
	await inner.create({
		type: "session",
		version: 3,
		id: "0195f3c2-0000-7000-8000-00000000000a",
		timestamp: "2026-01-01T00:00:00.000Z",
		cwd: "/p",
	});
	const session = await Session.openStore(own);
	assert.equal(session.file, "/somewhere/own.jsonl");
});
