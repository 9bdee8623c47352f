/**
 * Several Session objects of one process writing one session (a file, or one memory name)
 * without awaiting in between: compare-and-append keeps every entry, every parent and each
 * writer's own chain; `refresh` shows the others' entries; catching up with others never
 * throws for their damage; a session replaced by another writer is read again.
 */

import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { MemorySessionStore, Session } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "st-writers-"));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const user = (content: string) => ({ role: "user" as const, content, timestamp: 1 });

/** Every entry's parent is present and the session opens strictly without problems. */
async function assertWhole(location: string): Promise<Session> {
	const session = await Session.open(location);
	assert.deepEqual(session.problems, []);
	for (const entry of session.getEntries()) {
		if (entry.parentId !== null) assert.ok(session.getEntry(entry.parentId), `parent of ${entry.id}`);
	}
	return session;
}

function assertChain(session: Session, ids: readonly string[], first: string | null, who: string): void {
	ids.forEach((id, i) => {
		assert.equal(session.getEntry(id)?.parentId, i === 0 ? first : ids[i - 1], `${who}'s entry ${i}`);
	});
}

const kinds = {
	file: () => Session.create({ dir, cwd: "/w" }),
	memory: () => Session.create({ location: `memory:writers-${process.pid}-${++n}`, cwd: "/w" }),
};

for (const [kind, create] of Object.entries(kinds)) {
	describe(`two sessions on one ${kind} session`, () => {
		test("interleaved writes without await: every entry, every parent, each writer's chain", async () => {
			const a = await create();
			const start = await a.appendMessage(user("start"));
			const b = await Session.open(a.location);
			assert.equal(b.getLeafId(), start);
			const N = 200;
			// A new turn of the event loop: the lock lease the set-up took has ended, so both writers
			// start by taking the lock and their queued writes interleave. (Under a lease still held,
			// a store appends at once and a's 200 writes could all be done before b's first.)
			await new Promise((resolve) => setImmediate(resolve));
			const fromA: Array<Promise<string>> = [];
			const fromB: Array<Promise<string>> = [];
			for (let i = 0; i < N; i++) {
				fromA.push(a.appendMessage(user(`a${i}`)));
				fromB.push(b.appendMessage(user(`b${i}`)));
			}
			const [idsA, idsB] = await Promise.all([Promise.all(fromA), Promise.all(fromB)]);
			assert.equal(new Set([...idsA, ...idsB, start]).size, 2 * N + 1, "distinct ids");
			assert.equal(a.getLeafId(), idsA.at(-1), "a's leaf is its last entry");
			assert.equal(b.getLeafId(), idsB.at(-1), "b's leaf is its last entry");
			assertChain(a, idsA, start, "a");
			assertChain(b, idsB, start, "b");

			const reopened = await assertWhole(a.location);
			assert.equal(reopened.entryCount, 2 * N + 1);
			assertChain(reopened, idsA, start, "a");
			assertChain(reopened, idsB, start, "b");
			// The writes really interleaved: in the stored order, each writer wrote between the
			// other's entries, so each had to catch up before it could append. (How often they
			// alternate depends on how the event loop and the lock lease fall: on a loaded
			// machine a writer may keep the lease for long runs; that is fairness, not safety.)
			const fromWhom = new Map([...idsA.map((id) => [id, "a"] as const), ...idsB.map((id) => [id, "b"] as const)]);
			const order = reopened.getEntries().flatMap((e) => fromWhom.get(e.id) ?? []);
			const switches = order.filter((who, i) => i > 0 && who !== order[i - 1]).length;
			assert.ok(switches >= 2, `the writers alternated only ${switches} times`);
			if (kind === "file") {
				const lines = readFileSync(a.file as string, "utf8").split("\n");
				assert.equal(lines.pop(), "");
				assert.equal(lines.length, 2 * N + 2, "header and one line per entry");
				for (const line of lines) JSON.parse(line);
				assert.equal(statSync(a.file as string).mode & 0o777, 0o600);
			}

			// refresh shows the other's entries; the leaves stay.
			await a.refresh();
			await b.refresh();
			for (const [session, leaf] of [
				[a, idsA.at(-1)],
				[b, idsB.at(-1)],
			] as const) {
				assert.equal(session.entryCount, 2 * N + 1);
				for (const id of [...idsA, ...idsB]) assert.ok(session.getEntry(id), id);
				assert.equal(session.getLeafId(), leaf);
				assert.deepEqual(session.problems, []);
			}
			const next = await a.appendMessage(user("after refresh"));
			assert.equal(a.getEntry(next)?.parentId, idsA.at(-1));
			await a.close();
			await b.close();
			if (kind === "memory") new MemorySessionStore(a.location).delete();
		});

		test("mixed writes (labels, branches, summaries) interleaved: nothing lost, leaves kept", async () => {
			const a = await create();
			const root = await a.appendMessage(user("root"));
			const b = await Session.open(a.location);
			const pending: Array<Promise<unknown>> = [];
			for (let i = 0; i < 30; i++) {
				pending.push(a.appendMessage(user(`a${i}`)));
				pending.push(b.appendLabelChange(root, `label ${i}`));
				pending.push(b.appendMessage(user(`b${i}`)));
				if (i % 10 === 9) pending.push(a.branch(root));
				if (i % 10 === 5) pending.push(b.branchWithSummary(root, `summary ${i}`));
			}
			await Promise.all(pending);
			const reopened = await assertWhole(a.location);
			await a.refresh();
			await b.refresh();
			assert.equal(a.entryCount, reopened.entryCount);
			assert.equal(b.entryCount, reopened.entryCount);
			assert.equal(reopened.getLabel(root), "label 29");
			assert.equal(a.getLabel(root), "label 29");
			// 1 root + 30 + 30 messages, 30 labels, 3 summaries (leaf records are not entries).
			assert.equal(reopened.entryCount, 1 + 30 + 30 + 30 + 3);
			assert.equal(a.getLeafId(), root, "a's last write moved its leaf to the root");
			await a.close();
			await b.close();
			if (kind === "memory") new MemorySessionStore(a.location).delete();
		});

		test("refresh({ leaf: 'stream' }) takes in the others' entries and the leaf the stream names", async () => {
			// Expected by hand from the writes below, and each leaf checked against a fresh open's
			// (the loader's own rule, an independent route through the whole stream).
			const a = await create();
			const x = await a.appendMessage(user("x"));
			const y = await a.appendMessage(user("y"));
			const b = await Session.open(a.location);
			const fresh = async () => {
				const c = await Session.open(a.location);
				await c.close();
				return c.getLeafId();
			};
			await a.branch(x); // a leaf record naming x: the stream's leaf is x, no entry added
			await b.refresh();
			assert.equal(b.getLeafId(), y, "the default keeps b's own leaf");
			await b.refresh({ leaf: "stream" });
			assert.equal(b.getLeafId(), x, "the stream names x (nothing new read since: still followed)");
			assert.equal(await fresh(), x);
			const z = await a.appendMessage(user("z"));
			await b.refresh({ leaf: "stream" });
			assert.equal(b.entryCount, 3);
			assert.equal(b.getLeafId(), z, "an appended entry is the stream's leaf");
			assert.equal(await fresh(), z);
			// b writes under z; a moves the leaf back to y: b follows a's move, not its own write.
			const own = await b.appendMessage(user("b's own"));
			assert.equal(b.getEntry(own)?.parentId, z);
			await a.branch(y);
			await b.refresh({ leaf: "stream" });
			assert.equal(b.getLeafId(), y);
			assert.equal(await fresh(), y);
			assert.deepEqual(
				[...b.walkEntries(2)].map((entry) => entry.id),
				[z, own],
				"walkEntries(2): the entries after the first two, in file order",
			);
			assert.deepEqual(b.problems, []);
			await a.close();
			await b.close();
			if (kind === "memory") new MemorySessionStore(a.location).delete();
		});
	});
}

describe("other writers' damage", () => {
	test("a strict session catching up never throws for what others wrote: the problem is recorded", async () => {
		const a = await Session.create({ dir, cwd: "/d" });
		const q = await a.appendMessage(user("q"));
		const file = a.file as string;
		appendFileSync(file, "{this is not json\n");
		const foreignParent = JSON.stringify({
			type: "message",
			id: "0f0f0f0f",
			parentId: "deadbeef",
			timestamp: "2026-01-01T00:00:00.000Z",
			message: user("orphan"),
		});
		appendFileSync(file, `${foreignParent}\n`);
		const id = await a.appendMessage(user("after the damage"));
		assert.equal(a.getEntry(id)?.parentId, q, "own chain kept");
		const codes = a.problems.map((p) => p.code);
		assert.ok(codes.includes("INVALID_JSON"), codes.join());
		assert.ok(codes.includes("MISSING_PARENT"), codes.join());

		appendFileSync(file, "{more damage\n");
		await a.refresh();
		assert.equal(a.problems.filter((p) => p.code === "INVALID_JSON").length, 2);
		// A strict open of the damaged file still refuses it, naming the line.
		await assert.rejects(Session.open(file), (e: unknown) => (e as { line?: number }).line === 3);
		await a.close();
	});

	test("a session repaired by another writer is read again before the next write", async () => {
		const a = await Session.create({ dir, cwd: "/r" });
		const q = await a.appendMessage(user("q"));
		const r = await a.appendMessage(user("r"));
		await a.close();
		const file = a.file as string;
		// Damage in the middle: a line that is not JSON.
		const lines = readFileSync(file, "utf8").split("\n");
		lines.splice(2, 0, "{broken");
		writeFileSync(file, lines.join("\n"));
		const repairer = await Session.open(file, { lenient: true });
		const writer = await Session.open(file, { lenient: true });
		assert.ok(await repairer.repair());
		const id = await writer.appendMessage(user("after the repair"));
		assert.equal(writer.getEntry(id)?.parentId, r);
		const reopened = await assertWhole(file);
		assert.deepEqual(
			reopened.getBranch().map((e) => e.id),
			[q, r, id],
		);
		// And the repairer, behind now, catches up on refresh.
		await repairer.refresh();
		assert.ok(repairer.getEntry(id));
	});

	test("refresh({ leaf: 'stream' }) of a replaced session reads it again whole, with a fresh open's leaf", async () => {
		const a = await Session.create({ dir, cwd: "/f" });
		const q = await a.appendMessage(user("q"));
		await a.appendMessage(user("r"));
		await a.close();
		const file = a.file as string;
		appendFileSync(file, "{broken\n");
		const reader = await Session.open(file, { lenient: true });
		const repairer = await Session.open(file, { lenient: true });
		assert.ok(await repairer.repair());
		await repairer.branch(q);
		await reader.refresh({ leaf: "stream" });
		const reopened = await assertWhole(file);
		assert.equal(reopened.getLeafId(), q);
		assert.equal(reader.getLeafId(), q, "the repaired file's leaf record, as a fresh open reads it");
		assert.equal(reader.entryCount, reopened.entryCount);
		assert.deepEqual(reader.problems, [], "read again: the damage the repair removed is gone");
	});

	test("a leaf record naming a missing entry: the last entry is followed, the problem recorded once", async () => {
		const a = await Session.create({ dir, cwd: "/m" });
		await a.appendMessage(user("q"));
		const last = await a.appendMessage(user("r"));
		const reader = await Session.open(a.file as string);
		const leaf = {
			type: "leaf",
			id: "1e1e1e1e",
			parentId: "00000000",
			timestamp: "2026-01-01T00:00:00.000Z",
			targetId: "00000000",
		};
		appendFileSync(a.file as string, `${JSON.stringify(leaf)}\n`);
		await reader.refresh({ leaf: "stream" });
		await reader.refresh({ leaf: "stream" });
		assert.equal(reader.getLeafId(), last);
		assert.deepEqual(
			reader.problems.map((problem) => problem.code),
			["ENTRY_NOT_FOUND"],
		);
		await a.close();
		await reader.close();
	});
});
