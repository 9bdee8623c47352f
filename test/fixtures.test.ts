/**
 * Every golden pi fixture loads and agrees with what pi 0.73.1 computed for it: leaf, path,
 * context (deep-equal), tree order, leaves, session name and entry count.
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { isSessionTreeError, type MessageEntry, Session } from "../src/index.js";
import { assertAsPiReads } from "../src/testing/helpers.js";
import { asJson, contextRoles, expected, fixtureFile, fixtureNames, treeRows } from "./support/fixtures.js";

/** Cases whose ids pi invents afresh (v1 has none) or whose file pi wrote broken. */
const SPECIAL = new Set(["legacy-v1", "branched-session"]);

function sha256(path: string): string {
	return createHash("sha256").update(readFileSync(path)).digest("hex");
}

describe("pi-v3 fixtures", () => {
	test("the fixture folder holds the cases this suite expects", () => {
		const names = fixtureNames();
		assert.ok(names.length >= 24, `found only ${names.length} fixtures`);
		for (const name of SPECIAL) assert.ok(names.includes(name), name);
	});

	for (const name of fixtureNames().filter((n) => !SPECIAL.has(n))) {
		test(name, async () => {
			const file = fixtureFile(name);
			const before = sha256(file);
			const want = expected(name);
			const session = await Session.open(file);
			assertAsPiReads(session, want);
			await session.close();
			assert.equal(sha256(file), before, "opening must not change the file");
		});
	}

	test("big-line: the 1 MB tool result is read back intact", async () => {
		const want = expected("big-line").bigEntry;
		assert.ok(want);
		const entry = (await Session.open(fixtureFile("big-line"))).getEntry(want.id) as MessageEntry;
		const content = entry.message.content as Array<{ type: string; text: string }>;
		const text = content.map((block) => block.text).join("");
		assert.equal(text.length, want.textLength);
		assert.equal(Buffer.byteLength(text, "utf8"), want.utf8Bytes);
		assert.equal(createHash("sha256").update(text, "utf8").digest("hex"), want.sha256);
	});

	test("legacy-v1: migrated in memory to the same context, tree shape and leaf as pi's", async () => {
		const file = fixtureFile("legacy-v1");
		const before = sha256(file);
		const want = expected("legacy-v1");
		const session = await Session.open(file);
		assert.equal(session.fileVersion, 1);
		assert.equal(session.getHeader().version, 3);
		const context = session.buildSessionContext();
		assert.deepEqual(contextRoles(context.messages as Array<Record<string, unknown>>), want.contextRoles);
		assert.equal(context.thinkingLevel, (want.context as { thinkingLevel: string }).thinkingLevel);
		assert.deepEqual(context.model, (want.context as { model: unknown }).model);
		// Same shape: rename our ids to pi's by position, then everything must match.
		const rename = new Map(session.getEntries().map((entry, i) => [entry.id, want.tree[i]?.id]));
		const renamed = (id: string | null) => (id === null ? null : (rename.get(id) ?? id));
		assert.deepEqual(
			treeRows(session).map((row) => ({ ...row, id: renamed(row.id), parentId: renamed(row.parentId) })),
			want.tree,
		);
		assert.equal(renamed(session.getLeafId()), want.leafId);
		assert.equal(session.entryCount, want.entryCount);
		assert.equal(sha256(file), before, "opening must not change the file");
		// Ids are derived, not random: a second open shows the same ones.
		assert.deepEqual(
			(await Session.open(file)).getEntries().map((e) => e.id),
			session.getEntries().map((e) => e.id),
		);
	});

	for (const name of ["legacy-v1", "legacy-v2"]) {
		test(`${name}: an explicit migrate writes pi's text and keeps a backup`, async () => {
			const dir = mkdtempSync(join(tmpdir(), "st-migrate-"));
			try {
				const file = join(dir, "session.jsonl");
				copyFileSync(fixtureFile(name), file);
				const original = readFileSync(file, "utf8");
				const session = await Session.open(file);
				const backup = await session.migrate();
				assert.ok(backup);
				assert.equal(readFileSync(backup, "utf8"), original, "backup holds the original bytes");
				let text = readFileSync(file, "utf8");
				const want = expected(name).migratedText as string;
				if (name === "legacy-v1") {
					// pi's v1 ids are random: map ours onto pi's by position before comparing.
					const ours = session.getEntries().map((e) => e.id);
					const theirs = expected(name).tree.map((row) => row.id);
					ours.forEach((id, i) => {
						text = text.split(`"${id}"`).join(`"${theirs[i]}"`);
					});
				}
				assert.equal(text, want);
				assert.equal(statSync(file).mode & 0o777, 0o600);
				assert.equal((await Session.open(file)).fileVersion, 3);
				assert.equal(await session.migrate(), undefined, "a second migrate does nothing");
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		});
	}

	test("legacy-v2: the first write migrates the file atomically, keeps a backup, then appends", async () => {
		const dir = mkdtempSync(join(tmpdir(), "st-migrate-"));
		try {
			const file = join(dir, "session.jsonl");
			copyFileSync(fixtureFile("legacy-v2"), file);
			const original = readFileSync(file, "utf8");
			const session = await Session.open(file);
			assert.equal(readFileSync(file, "utf8"), original, "opening wrote nothing");
			const id = await session.appendMessage({ role: "user", content: "after migration", timestamp: 1 });
			assert.equal(readFileSync(`${file}.bak`, "utf8"), original);
			const lines = readFileSync(file, "utf8").trimEnd().split("\n");
			assert.equal(lines.slice(0, -1).join("\n"), (expected("legacy-v2").migratedText as string).trimEnd());
			assert.equal(JSON.parse(lines.at(-1) as string).id, id);
			const reopened = await Session.open(file);
			assert.equal(reopened.fileVersion, 3);
			assert.equal(reopened.getLeafId(), id);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test("branched-session: a strict open reports the missing parent with file and line", async () => {
		const file = fixtureFile("branched-session");
		await assert.rejects(
			Session.open(file),
			(error: unknown) =>
				isSessionTreeError(error, "MISSING_PARENT") &&
				error.line === 6 &&
				error.file === file &&
				error.message.includes("0994e182"),
		);
	});

	test("branched-session: a lenient open bridges the gaps and keeps all eight messages", async () => {
		const session = await Session.open(fixtureFile("branched-session"), { lenient: true });
		const want = expected("branched-session");
		assert.deepEqual(
			session.problems.map((p) => [p.code, p.line]),
			[
				["MISSING_PARENT", 6],
				["MISSING_PARENT", 8],
			],
		);
		assert.equal(session.getLeafId(), want.leafId);
		const messages = session.buildSessionContext().messages;
		assert.equal(messages.length, 8, "pi keeps 2 of 8; we keep all");
		// pi's two surviving messages are the last two of ours.
		assert.deepEqual(asJson(messages.slice(-2)), (want.context as { messages: unknown[] }).messages);
		assert.equal(session.getBranch()[0]?.parentId, null, "the path reaches the real root");
	});
});
