/**
 * Archiving a branch (issue 27): archive records folded into the tree as labels are, the leaf
 * kept (here and for pi, whose SessionManager reads the files), views without the archived
 * branches, and dropArchived's rewrite with a backup, on a branched, compacted and labelled
 * session in every store. Expectations are derived by hand from the session built below.
 */

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { SessionManager } from "@mariozechner/pi-coding-agent";
import { ARCHIVE_CUSTOM_TYPE } from "../../src/core/archive.js";
import { type AgentMessage, Session } from "../../src/index.js";
import { layoutTree } from "../../src/render/tree-layout.js";
import { asJson } from "../support/fixtures.js";
import { assistantMessage, userMessage } from "../support/messages.js";
import { openWithPi } from "../support/pi.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "st-archive-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let clock = Date.parse("2026-01-01T00:00:00.000Z");
const now = () => {
	clock += 7;
	return new Date(clock);
};
const user = (text: string): AgentMessage => userMessage(text, clock);
const assistant = (text: string): AgentMessage => assistantMessage(text, clock);

/** The ids of the session {@link build} writes. */
interface Built {
	s: Session;
	u1: string;
	a1: string;
	u2: string;
	a2: string;
	a4: string;
	u2b: string;
	a2b: string;
	labelB: string;
	u3c: string;
	a3c: string;
}

/**
 * u1 → a1 → u2 → a2 → u3 → a3 → compaction (keeps from u3) → u4 → a4   (main, the leaf a4)
 *            a1 → u2b → a2b → label(u2b "alt")                          (branch B)
 *                       a2 → u3c → a3c                                  (branch C)
 */
async function build(location?: string): Promise<Built> {
	const s = location
		? await Session.create({ location, cwd: "/p", now })
		: await Session.create({ dir: mkdtempSync(join(dir, "s-")), cwd: "/p", now });
	const u1 = await s.appendMessage(user("q1"));
	const a1 = await s.appendMessage(assistant("a1"));
	const u2 = await s.appendMessage(user("q2"));
	const a2 = await s.appendMessage(assistant("a2"));
	const u3 = await s.appendMessage(user("q3"));
	await s.appendMessage(assistant("a3"));
	await s.appendCompaction("summary", u3, 1000, undefined, false, true);
	await s.appendMessage(user("q4"));
	const a4 = await s.appendMessage(assistant("a4"));
	await s.branch(a1);
	const u2b = await s.appendMessage(user("q2 other"));
	const a2b = await s.appendMessage(assistant("a2 other"));
	const labelB = await s.appendLabelChange(u2b, "alt");
	await s.branch(a2);
	const u3c = await s.appendMessage(user("q3 other"));
	const a3c = await s.appendMessage(assistant("a3 other"));
	await s.branch(a4);
	return { s, u1, a1, u2, a2, a4, u2b, a2b, labelB, u3c, a3c };
}

/** pi's view of a file (test/support/pi.ts). */
const pi = openWithPi;

const sorted = (ids: string[]) => [...ids].sort();

describe("archive: the library", () => {
	test("archive keeps the leaf and the context, here and in pi; views leave the branch out; unarchive brings it back", async () => {
		const b = await build();
		const { s } = b;
		const file = s.file as string;
		const context = asJson(s.buildSessionContext());
		const piBefore = pi(file);
		assert.deepEqual(asJson(piBefore.buildSessionContext()), context, "pi agrees before");
		const allLeaves = sorted([b.a4, b.labelB, b.a3c]);
		assert.deepEqual(s.listBranches({ archived: false }), allLeaves, "nothing archived: every tip");

		const record = await s.archive(b.u2b);
		assert.ok(record);
		assert.equal(s.getLeafId(), b.a4, "the leaf stays");
		assert.deepEqual([...s.getArchived().keys()], [b.u2b]);
		assert.equal(s.isArchived(b.u2b), true);
		assert.equal(s.isArchived(b.labelB), true, "a descendant lies in the archived branch");
		assert.equal(s.isArchived(b.a1), false, "the parent does not");
		assert.equal(s.getEntry(record)?.parentId, b.u2b, "the record hangs under its target");
		assert.deepEqual(asJson(s.getEntry(record)), {
			type: "custom",
			customType: ARCHIVE_CUSTOM_TYPE,
			data: { targetId: b.u2b, archived: true },
			id: record,
			parentId: b.u2b,
			timestamp: s.getEntry(record)?.timestamp,
		});

		// Reopened strictly: the same leaf, context and archived state.
		const reopened = await Session.open(file);
		assert.equal(reopened.getLeafId(), b.a4);
		assert.deepEqual(asJson(reopened.buildSessionContext()), context);
		assert.deepEqual([...reopened.getArchived().keys()], [b.u2b]);
		// pi: the same context; its leaf is the leaf record, whose parent is our leaf.
		const piAfter = pi(file);
		assert.deepEqual(asJson(piAfter.buildSessionContext()), context, "pi's context is unchanged");
		const piLeaf = piAfter.getLeafId() as string;
		assert.equal(piAfter.getEntry(piLeaf)?.parentId, b.a4, "pi's leaf stands for a4");
		// (Before, pi's leaf was already the leaf record `branch(a4)` wrote.)
		const entriesOf = (manager: SessionManager) =>
			manager
				.getBranch()
				.filter((entry) => (entry.type as string) !== "leaf")
				.map((entry) => entry.id);
		assert.deepEqual(entriesOf(piAfter), entriesOf(piBefore), "pi's path: the same entries");
		assert.deepEqual(
			entriesOf(piAfter),
			s.getBranch().map((entry) => entry.id),
			"as ours",
		);
		assert.equal(piAfter.getBranch().at(-1)?.id, piLeaf, "then the leaf record");
		// pi appends under its leaf; session-tree reads the new entry under a4.
		const piCopy = piAfter.getSessionFile() as string;
		const piNext = piAfter.appendMessage({ role: "user", content: "from pi", timestamp: clock });
		const afterPi = await Session.open(piCopy);
		assert.equal(afterPi.getTreeIndex().getParentId(piNext), b.a4);

		// Views: the leaves leave the archived tip out; the tree hides the branch and its record.
		assert.deepEqual(s.listBranches({ archived: false }), sorted([b.a4, b.a3c]));
		assert.deepEqual(s.listBranches(), sorted([b.a4, b.labelB, b.a3c, record]), "everything without options");
		const shown = (filter?: "all") => {
			const layout = layoutTree(s.getTree(), { leafId: s.getLeafId(), ...(filter ? { filter } : {}) });
			return layout.shown;
		};
		assert.equal(shown().has(b.u2b), false);
		assert.equal(shown().has(b.a2b), false);
		assert.equal(shown().has(record), false);
		assert.equal(shown().has(b.u3c), true);
		assert.equal(shown("all").has(b.u2b), true, "--filter all shows it");
		assert.equal(shown("all").has(record), true);
		assert.equal(s.getTree()[0]?.children[0]?.children.find((n) => n.entry.id === b.u2b)?.archived, true);
		assert.equal(
			s.flattenTree().find((row) => row.entry.id === b.a2b)?.archived,
			true,
			"flat rows mark the whole branch",
		);

		// Archiving it again writes nothing.
		const size = readFileSync(file).length;
		assert.equal(await s.archive(b.u2b), undefined);
		assert.equal(readFileSync(file).length, size);

		// Unarchive: back in the views; the records stay hidden; the leaf and context stay.
		const back = await s.unarchive(b.u2b);
		assert.ok(back);
		assert.equal(s.getLeafId(), b.a4);
		assert.deepEqual(s.getArchived().size, 0);
		assert.deepEqual(s.listBranches({ archived: false }), allLeaves);
		assert.equal(shown().has(b.u2b), true);
		assert.equal(shown().has(back), false, "the archive records stay out of the views");
		assert.deepEqual(asJson(pi(file).buildSessionContext()), context);
		assert.equal((await Session.open(file)).getLeafId(), b.a4);
		assert.equal(await s.unarchive(b.u2b), undefined, "not archived: nothing to do");
	});

	test("refusals: the branch of the leaf; an entry inside an archived branch; nested archives", async () => {
		const b = await build();
		const { s } = b;
		await assert.rejects(s.archive(b.u2), /holds the leaf/);
		await assert.rejects(s.archive(b.a4), /holds the leaf/);
		await assert.rejects(s.archive("ffffffff"), { code: "ENTRY_NOT_FOUND" });
		await s.archive(b.u2b);
		await s.archive(b.a2b);
		await assert.rejects(s.unarchive(b.labelB), /lies in the branch archived at/);
		await s.unarchive(b.u2b);
		assert.deepEqual([...s.getArchived().keys()], [b.a2b], "the inner branch stays archived");
		assert.equal(s.isArchived(b.u2b), false);
		assert.equal(s.isArchived(b.labelB), true);
		// u2b's only shown child is archived: u2b is a tip of what the views show.
		assert.deepEqual(s.listBranches({ archived: false }), sorted([b.a4, b.a3c, b.u2b]));
	});

	test("dropArchived: an atomic rewrite with a backup that opens strictly with the same context", async () => {
		const b = await build();
		const { s } = b;
		const file = s.file as string;
		assert.equal(await s.dropArchived(), undefined, "nothing archived: nothing written");
		await s.archive(b.u2b);
		await s.unarchive(b.u2b);
		await s.archive(b.u3c);
		const before = readFileSync(file, "utf8");
		const context = asJson(s.buildSessionContext());
		const entriesBefore = s.getEntries().map((entry) => entry.id);
		const backup = await s.dropArchived();
		assert.ok(backup && existsSync(backup));
		assert.equal(readFileSync(backup, "utf8"), before, "the backup holds the file as it was");
		const dropped = await Session.open(file);
		assert.deepEqual(asJson(dropped.buildSessionContext()), context);
		assert.equal(dropped.getLeafId(), b.a4);
		assert.deepEqual(dropped.getArchived().size, 0);
		const gone = entriesBefore.filter((id) => !dropped.getEntry(id));
		// u3c, a3c and u3c's archive record; u2b's two records stay (it is not archived).
		assert.equal(gone.length, 3);
		assert.ok(gone.includes(b.u3c) && gone.includes(b.a3c));
		assert.deepEqual(dropped.listBranches({ archived: false }), sorted([b.a4, b.labelB]));
		assert.equal(dropped.getLabel(b.u2b), "alt");
		assert.deepEqual(asJson(pi(file).buildSessionContext()), context, "pi reads the same context");
		assert.deepEqual(asJson(s.buildSessionContext()), context, "the live session read it again");
		assert.equal(s.getEntry(b.u3c), undefined);
	});

	test("dropArchived refuses when the leaf lies in an archived branch", async () => {
		const b = await build();
		await b.s.archive(b.u3c);
		await b.s.branch(b.a3c);
		await assert.rejects(b.s.dropArchived(), /the leaf .* lies in an archived branch/);
	});

	test("every store: archive, unarchive and dropArchived through the facade", async (t) => {
		const server = await postgresServer();
		const stores: Array<[string, string, string | undefined]> = [
			["SQLite", `sqlite:${join(dir, "archive.db")}#one`, SQLITE_SKIP],
			["memory", "memory:archive-test", undefined],
		];
		if ("url" in server) stores.push(["PostgreSQL", testSchema(server.url, "archive").session("one"), undefined]);
		else t.diagnostic(server.skip);
		for (const [label, location, skip] of stores) {
			await t.test(label, { skip }, async () => {
				const b = await build(location);
				const context = asJson(b.s.buildSessionContext());
				await b.s.archive(b.u2b);
				const reopened = await Session.open(location);
				assert.equal(reopened.getLeafId(), b.a4, location);
				assert.deepEqual([...reopened.getArchived().keys()], [b.u2b], location);
				assert.deepEqual(reopened.listBranches({ archived: false }), sorted([b.a4, b.a3c]), location);
				const backup = await reopened.dropArchived();
				assert.ok(backup, location);
				const dropped = await Session.open(location);
				assert.equal(dropped.getEntry(b.u2b), undefined, location);
				assert.equal(dropped.getLeafId(), b.a4, location);
				assert.deepEqual(asJson(dropped.buildSessionContext()), context, location);
				await b.s.close();
				await reopened.close();
				await dropped.close();
			});
		}
	});
});
