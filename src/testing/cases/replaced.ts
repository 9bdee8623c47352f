/**
 * Replaced and closed stores: positions from before a replace, sessions closed before one,
 * repair, writers that close their stores between writes.
 */

import assert from "node:assert/strict";
import { errorCode } from "../../core/validate.js";
import { Session } from "../../session.js";
import { assertCode, entryId, jsonTexts, messageRecord, okPosition, RecordingStore, recordsOf } from "../helpers.js";
import { assistant, user } from "./records.js";
import type { StoreCase, StoreCaseContext } from "./types.js";

const GROUP = "replaced and closed stores";

/** The cases of the group. */
export const REPLACED_CASES: readonly StoreCase[] = [
	{
		group: GROUP,
		name: "a session whose position predates a replace meets stale and catches up by re-reading",
		async run({ fresh, same, reopen }) {
			const store = await fresh();
			const a = await Session.createIn(store);
			const q = await a.appendMessage(user("q"));
			await a.appendMessage(assistant("a"));
			const spy = new RecordingStore(await same(store));
			const b = await Session.openStore(spy);
			const c = await same(store);
			const current = await c.read();
			const records = recordsOf(current, c.capabilities);
			const inserted = messageRecord(entryId(), q, "added by the replace");
			okPosition(await c.replace([...records, inserted], current.position), "replace");
			const answer = await b.appendMessage(assistant("b writes after the replace"));
			assert.ok(
				spy.outcomes.some((o) => o.op === "append" && o.status === "stale"),
				`b's first append meets stale (saw ${JSON.stringify(spy.outcomes)})`,
			);
			assert.equal(spy.outcomes.at(-1)?.status, "ok");
			assert.ok(b.getEntry(inserted.id), "b re-read the replaced session");
			await a.refresh();
			assert.ok(a.getEntry(inserted.id), "refresh re-reads a replaced session");
			assert.ok(a.getEntry(answer), "and what was appended after");
			const r = await reopen(store);
			assert.equal(r.entryCount, 4);
			assert.equal(r.getLeafId(), answer);
		},
	},

	{
		group: GROUP,
		name: "a closed session still reads after its session was replaced elsewhere",
		async run(context) {
			const { s, r, leaf } = await closedBeforeReplace(context);
			// Session.close's TSDoc: a closed session can still be read; a body its store reads
			// lazily (after close, from the path again) is gone once the session was replaced
			// elsewhere: that read fails with IO_ERROR naming the remedy, refresh().
			try {
				assert.deepEqual(r.getEntries(), s.getEntries(), "a closed session reads its entries");
			} catch (error) {
				assert.ok(r.getEntry(leaf), "the entries read at open stay readable");
				assert.equal(errorCode(error), "IO_ERROR", String(error));
				assert.match(String(error), /refresh\(\)/, "the error names the remedy");
			}
			await r.refresh();
			assert.deepEqual(r.getEntries(), s.getEntries(), "and after refresh");
		},
	},

	{
		group: GROUP,
		name: "a closed session writes after its session was replaced elsewhere, and then reads",
		async run(context) {
			const { s, r } = await closedBeforeReplace(context);
			const added = await r.appendMessage(user("after the replace"));
			assert.equal(r.getEntry(added)?.parentId, s.getLeafId());
			assert.equal(r.entryCount, s.entryCount + 1);
			assert.deepEqual(r.getEntries().slice(0, -1), s.getEntries());
		},
	},

	{
		group: GROUP,
		name: "repair through Session: replace keeps a backup; a writer from before it catches up",
		async run({ same, created, reopen, readBackup }) {
			const { store, header, position } = await created();
			const root = messageRecord(entryId(), null, "root");
			const orphan = messageRecord(entryId(), "fffffff0", "a parent that is missing");
			okPosition(await store.append([root, orphan], position));
			await assertCode(() => reopen(store), "MISSING_PARENT", "a strict open");
			const lenient = await Session.openStore(await same(store), { lenient: true });
			const writer = await Session.openStore(await same(store), { lenient: true });
			assert.deepEqual(
				lenient.problems.map((p) => p.code),
				["MISSING_PARENT"],
			);
			const backup = await lenient.repair();
			assert.ok(typeof backup === "string" && backup !== "", "repair names its backup");
			if (readBackup) {
				assert.deepEqual(jsonTexts(await readBackup(backup, store)), jsonTexts([header, root, orphan]));
			}
			const repaired = await reopen(store);
			assert.deepEqual(repaired.problems, []);
			assert.equal(repaired.getEntry(orphan.id)?.parentId, root.id, "the gap is bridged");
			assert.equal(await lenient.repair(), undefined, "nothing left to repair");
			const added = await writer.appendMessage(user("from a writer that opened before the repair"));
			const r = await reopen(store);
			assert.deepEqual(r.problems, []);
			assert.equal(r.getEntry(added)?.parentId, orphan.id);
		},
	},

	{
		group: GROUP,
		name: "writers closing their stores between interleaved writes lose nothing",
		async run({ same, created, reopen, writers }) {
			const { store } = await created();
			const stores = [store];
			for (let w = 1; w < writers; w++) stores.push(await same(store));
			const opened = await Promise.all(stores.map(async (st) => ({ store: st, session: await Session.openStore(st) })));
			const ops: Promise<unknown>[] = [];
			for (let i = 0; i < 4; i++) {
				opened.forEach(({ store: st, session: s }, w) => {
					ops.push(s.appendMessage(user(`w${w} ${i}`)));
					ops.push(st.close());
					if (i % 2) ops.push(s.close());
				});
			}
			await Promise.all(ops);
			const r = await reopen(store);
			assert.equal(r.entryCount, 4 * writers);
			assert.deepEqual(r.problems, []);
		},
	},
];

/** A session with an entry off the leaf's path (so a lazy open leaves its body unread), reopened and closed. */
async function closedBeforeReplace({ fresh, same, reopen }: StoreCaseContext) {
	const store = await fresh();
	const s = await Session.createIn(store);
	const q = await s.appendMessage(user("q"));
	await s.appendMessage(assistant("an answer left behind"));
	await s.branch(q);
	const leaf = await s.appendMessage(assistant("the answer on the path"));
	const r = await reopen(store);
	await r.close();
	const c = await same(store);
	const current = await c.read();
	okPosition(await c.replace(recordsOf(current, c.capabilities), current.position), "replace");
	return { s, r, leaf };
}
