/**
 * Appends whose answer was lost: a store that loses the answer to an append (a connection cut
 * after the commit) sends it again and gets `behind` with its own records: the write is done,
 * not made twice.
 */

import assert from "node:assert/strict";
import { Session } from "../../session.js";
import { jsonTexts, LostAnswerStore } from "../helpers.js";
import { assistant, user } from "./records.js";
import type { StoreCase } from "./types.js";

const GROUP = "appends whose answer was lost";

/** The cases of the group. */
export const LOST_ANSWER_CASES: readonly StoreCase[] = [
	{
		group: GROUP,
		name: "an entry, a leaf record and a label stored although their answers were lost: each stored once",
		async run({ same, created, read, reopen }) {
			const { store } = await created();
			const lossy = new LostAnswerStore(await same(store), 0);
			const s = await Session.openStore(lossy);
			const q = await s.appendMessage(user("before"));
			lossy.losses = 1;
			const id = await s.appendMessage(user("sent once"));
			assert.equal(s.getLeafId(), id, "the entry is the leaf");
			assert.equal(s.getEntry(id)?.parentId, q);
			const a = await s.appendMessage(assistant("after"));
			assert.equal(s.getEntry(a)?.parentId, id, "the next entry hangs under it");
			lossy.losses = 1;
			await s.branch(q);
			assert.equal(s.getLeafId(), q, "the leaf record moved the leaf");
			lossy.losses = 1;
			const label = await s.appendLabelChange(id, "kept");
			assert.equal(s.getLabel(id), "kept");
			assert.deepEqual(
				lossy.outcomes.map((outcome) => outcome.status),
				["ok", "behind", "ok", "behind", "behind"],
				"the store answered the lost appends with behind",
			);
			const records = await read(store);
			assert.equal(records.length, 6, "the header, three messages, a leaf record and a label: none twice");
			assert.deepEqual(
				jsonTexts(records.slice(1).filter((record) => record.type !== "leaf")),
				jsonTexts(s.getEntries()),
				"the entries, as written",
			);
			const r = await reopen(store);
			assert.deepEqual(r.getEntries(), s.getEntries());
			assert.equal(s.getLeafId(), label, "the label is the leaf, as in pi");
			assert.equal(r.getLeafId(), label);
			assert.equal(r.getLabel(id), "kept");
			assert.equal(r.getEntry(label)?.type, "label");
		},
	},

	{
		group: GROUP,
		name: "another writer appending meanwhile: both entries stored once, ours the leaf",
		async run({ same, created, reopen }) {
			const { store } = await created();
			const lossy = new LostAnswerStore(await same(store), 0);
			const s = await Session.openStore(lossy);
			const q = await s.appendMessage(user("q"));
			const other = await reopen(store);
			lossy.afterLoss = async () => {
				await other.appendMessage(user("the other writer's"));
			};
			lossy.losses = 1;
			const id = await s.appendMessage(assistant("ours"));
			assert.equal(s.getLeafId(), id);
			assert.equal(s.entryCount, 3, "ours and the other writer's, once each");
			const next = await s.appendMessage(user("next"));
			assert.equal(s.getEntry(next)?.parentId, id, "our chain goes on from ours");
			const r = await reopen(store);
			assert.equal(r.entryCount, 4);
			assert.deepEqual(
				r.getChildren(q).map((entry) => entry.type === "message" && entry.message.role),
				["assistant", "user"],
				"two children of q: ours, then the other writer's",
			);
		},
	},

	{
		group: GROUP,
		name: "a fork's copies stored although their answer was lost: copied once",
		async run({ same, created }) {
			const { store } = await created();
			const lossy = new LostAnswerStore(await same(store), 0);
			const s = await Session.openStore(lossy);
			await s.appendMessage(user("q1"));
			await s.appendMessage(assistant("a1"));
			lossy.losses = 1;
			const f = await s.fork();
			const copy = await Session.openStore(await same(store.derive(f.getHeader())));
			assert.deepEqual(copy.getEntries(), f.getEntries());
			assert.equal(copy.entryCount, 2, "the path, copied once");
			assert.equal(copy.getLeafId(), f.getLeafId());
		},
	},
];
