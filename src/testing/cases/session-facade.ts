/**
 * The session facade on the store: what a session writes reads back the same after a
 * reopen (leaf records, labels, names, forks and clones), errors that write nothing, close and resume.
 */

import assert from "node:assert/strict";
import { Session } from "../../session.js";
import { asJson, assertCode, chain, itemAt, jsonTexts, okPosition, treeRows } from "../helpers.js";
import { assistant, bigChain, user } from "./records.js";
import type { StoreCase } from "./types.js";

const GROUP = "the session facade";

/** The cases of the group. */
export const SESSION_FACADE_CASES: readonly StoreCase[] = [
	{
		group: GROUP,
		name: "a session reads back the same after reopening: entries, leaf, tree, context",
		async run({ fresh, read, reopen }) {
			const store = await fresh();
			const s = await Session.createIn(store, { cwd: "/conformance" });
			assert.equal(s.location, store.location);
			const q = await s.appendMessage(user("question"));
			const a = await s.appendMessage(assistant("answer"));
			await s.appendModelChange("openai", "gpt-5");
			await s.appendThinkingLevelChange("high");
			await s.appendCustomEntry("state", { n: 1, list: [1, 2] });
			await s.appendCustomMessageEntry("note", "an extension note", true, { k: "v" });
			await s.appendMessage(user("follow-up"));
			await s.appendCompaction("summary of the start", a, 1234, { files: [] }, false, true);
			await s.appendMessage(assistant("after the compaction"));
			const r = await reopen(store);
			assert.deepEqual(r.getHeader(), s.getHeader());
			assert.deepEqual(r.getEntries(), s.getEntries());
			assert.equal(r.getLeafId(), s.getLeafId());
			assert.deepEqual(treeRows(r), treeRows(s));
			assert.deepEqual(asJson(r.buildSessionContext()), asJson(s.buildSessionContext()));
			assert.deepEqual(asJson(r.buildSessionContext(q)), asJson(s.buildSessionContext(q)));
			assert.deepEqual(r.problems, []);
			const records = await read(store);
			assert.equal(records.length, 1 + s.entryCount, "one record per entry after the header");
			assert.deepEqual(jsonTexts(records.slice(1)), jsonTexts(s.getEntries()), "the entries, as written");
		},
	},

	{
		group: GROUP,
		name: "the leaf record: branch, resetLeaf, branchWithSummary and navigate persist; a reopen resumes the leaf",
		async run({ fresh, read, reopen }) {
			const store = await fresh();
			const s = await Session.createIn(store);
			const q1 = await s.appendMessage(user("q1"));
			const a1 = await s.appendMessage(assistant("a1"));
			const q2 = await s.appendMessage(user("q2"));
			await s.appendMessage(assistant("a2"));
			await s.branch(q1);
			assert.equal((await reopen(store)).getLeafId(), q1, "branch persists");
			const records = await read(store);
			const last = itemAt(records, -1);
			assert.equal(last.type, "leaf", "branch appends a leaf record");
			assert.equal(last.targetId, q1);
			await s.branch(q1);
			assert.equal((await read(store)).length, records.length, "a branch to the leaf writes nothing");
			const q3 = await s.appendMessage(user("q1, second answer"));
			let r = await reopen(store);
			assert.equal(r.getLeafId(), q3);
			assert.deepEqual(
				r.getBranch().map((e) => e.id),
				[q1, q3],
				"the new branch hangs under the entry branched to",
			);
			assert.deepEqual(
				r.getChildren(q1).map((e) => e.id),
				[a1, q3],
			);
			await s.resetLeaf();
			r = await reopen(store);
			assert.equal(r.getLeafId(), null, "resetLeaf persists");
			assert.deepEqual(r.buildSessionContext().messages, []);
			const root2 = await s.appendMessage(user("a second root"));
			r = await reopen(store);
			assert.equal(r.getEntry(root2)?.parentId, null);
			assert.equal(r.getTree().length, 2, "two roots");
			const summary = await s.branchWithSummary(a1, "what the other branch did");
			r = await reopen(store);
			assert.equal(r.getLeafId(), summary, "the summary is the leaf");
			assert.equal(r.buildSessionContext().messages.at(-1)?.role, "branchSummary");
			const nav = await s.navigate(q2);
			assert.equal(nav.leafId, a1, "navigating to a user message moves to its parent");
			assert.equal(nav.editorText, "q2");
			r = await reopen(store);
			assert.equal(r.getLeafId(), a1, "navigate persists");
			assert.deepEqual(asJson(r.buildSessionContext()), asJson(s.buildSessionContext()));
			assert.equal(r.entryCount, s.entryCount, "leaf records are not entries");
		},
	},

	{
		group: GROUP,
		name: "labels: set, overwrite, clear, on another branch; a reopen shows them",
		async run({ fresh, reopen }) {
			const store = await fresh();
			const s = await Session.createIn(store);
			const q = await s.appendMessage(user("q"));
			const a = await s.appendMessage(assistant("a"));
			await s.appendLabelChange(q, "start");
			await s.appendLabelChange(a, "first answer");
			await s.appendLabelChange(a, "the answer");
			await s.branch(q);
			const other = await s.appendMessage(assistant("another answer"));
			await s.appendLabelChange(a, "  padded  ");
			await s.appendLabelChange(other, "other");
			await s.appendLabelChange(other, "");
			let r = await reopen(store);
			assert.equal(r.getLabel(q), "start");
			assert.equal(r.getLabel(a), "  padded  ", "labels are not trimmed");
			assert.equal(r.getLabel(other), undefined, "an empty label clears");
			assert.deepEqual(treeRows(r), treeRows(s));
			await s.appendLabelChange(q);
			r = await reopen(store);
			assert.equal(r.getLabel(q), undefined, "no label clears");
		},
	},

	{
		group: GROUP,
		name: "session names: trimmed, the latest wins, an empty one clears",
		async run({ fresh, reopen }) {
			const store = await fresh();
			const s = await Session.createIn(store);
			assert.equal((await reopen(store)).getSessionName(), undefined);
			await s.appendMessage(user("q"));
			await s.appendSessionInfo("  first name  ");
			assert.equal((await reopen(store)).getSessionName(), "first name");
			await s.appendSessionInfo("second name");
			assert.equal((await reopen(store)).getSessionName(), "second name");
			await s.appendSessionInfo("   ");
			assert.equal((await reopen(store)).getSessionName(), undefined);
			assert.equal(s.getSessionName(), undefined);
		},
	},

	{
		group: GROUP,
		name: "fork: the copy lands where derive puts it, names its source, holds the path and its labels",
		async run({ fresh, same, read }) {
			const store = await fresh();
			const s = await Session.createIn(store);
			const q1 = await s.appendMessage(user("q1"));
			const a1 = await s.appendMessage(assistant("a1"));
			await s.appendLabelChange(q1, "start");
			await s.appendMessage(user("q2"));
			await s.appendMessage(assistant("a2"));
			const before = jsonTexts(await read(store));
			const f = await s.fork(a1);
			assert.notEqual(f.location, s.location, "the copy is another session");
			assert.equal(f.getHeader().parentSession, store.location, "parentSession names the source");
			const derived = store.derive(f.getHeader());
			assert.equal(derived.location, f.location, "the copy is in the store derive gives for its header");
			const copy = await Session.openStore(derived);
			assert.deepEqual(copy.getEntries(), f.getEntries());
			assert.equal(copy.getLeafId(), a1);
			assert.deepEqual(
				copy.getBranch().map((e) => e.id),
				[q1, a1],
			);
			assert.equal(copy.getLabel(q1), "start", "labels on the path come along");
			assert.deepEqual(asJson(copy.buildSessionContext()), asJson(s.buildSessionContext(a1)));
			assert.deepEqual(jsonTexts(await read(store)), before, "the source is untouched");
			const added = await f.appendMessage(user("in the copy"));
			assert.equal((await Session.openStore(await same(derived))).getLeafId(), added, "the copy is writable");
			const ff = await f.fork();
			assert.equal(ff.getHeader().parentSession, f.location, "a fork of the fork names the fork");
			assert.equal(
				derived.derive(ff.getHeader()).location,
				ff.location,
				"a fork of the fork is where the fork's store derives it",
			);
			await assertCode(() => s.fork("ffffffff"), "ENTRY_NOT_FOUND", "fork at a missing entry");
		},
	},

	{
		group: GROUP,
		name: "clone: a new session holding the active path",
		async run({ fresh }) {
			const store = await fresh();
			const s = await Session.createIn(store);
			const q1 = await s.appendMessage(user("q1"));
			await s.appendMessage(assistant("a1"));
			await s.appendLabelChange(q1, "start");
			const q2 = await s.appendMessage(user("q2"));
			await s.branch(q1);
			const other = await s.appendMessage(assistant("a1 again"));
			const c = await s.clone();
			assert.equal(c.getHeader().parentSession, store.location);
			assert.equal(store.derive(c.getHeader()).location, c.location);
			const copy = await Session.openStore(store.derive(c.getHeader()));
			assert.equal(copy.getLeafId(), other);
			assert.deepEqual(
				copy.getBranch().map((e) => e.id),
				[q1, other],
			);
			assert.equal(copy.getEntry(q2), undefined, "off the path: not copied");
			assert.equal(copy.getLabel(q1), "start");
			assert.deepEqual(asJson(copy.buildSessionContext()), asJson(s.buildSessionContext()));
		},
	},

	{
		group: GROUP,
		name: "ENTRY_NOT_FOUND for a missing entry; nothing is written",
		async run({ fresh, read }) {
			const store = await fresh();
			const s = await Session.createIn(store);
			await s.appendMessage(user("q"));
			const before = (await read(store)).length;
			await assertCode(() => s.branch("ffffffff"), "ENTRY_NOT_FOUND", "branch");
			await assertCode(() => s.appendLabelChange("ffffffff", "x"), "ENTRY_NOT_FOUND", "appendLabelChange");
			await assertCode(() => s.navigate("ffffffff"), "ENTRY_NOT_FOUND", "navigate");
			await assertCode(() => s.branchWithSummary("ffffffff", "s"), "ENTRY_NOT_FOUND", "branchWithSummary");
			assert.equal((await read(store)).length, before, "nothing was written");
			await s.appendMessage(user("still writable"));
		},
	},

	{
		group: GROUP,
		name: "INVALID_ARGUMENT for an entry the reader would reject; nothing is written",
		async run({ fresh, read, reopen }) {
			const store = await fresh();
			const s = await Session.createIn(store);
			const q = await s.appendMessage(user("q"));
			const before = (await read(store)).length;
			// A message without a role: stored, it would be an INVALID_RECORD on every read.
			const roleless: Parameters<Session["appendMessage"]>[0] = JSON.parse('{"content":"no role","timestamp":1}');
			await assertCode(() => s.appendMessage(roleless), "INVALID_ARGUMENT", "appendMessage without a role");
			assert.equal((await read(store)).length, before, "nothing was written");
			assert.equal(s.getLeafId(), q, "the leaf did not move");
			await s.appendMessage(user("still writable"));
			assert.deepEqual(asJson((await reopen(store)).getEntries()), asJson(s.getEntries()));
		},
	},

	{
		group: GROUP,
		name: "close: a closed session, and one reopened and closed, still read and write",
		async run({ fresh, reopen }) {
			const store = await fresh();
			const s = await Session.createIn(store);
			for (let i = 0; i < 4; i++) await s.appendMessage(i % 2 ? assistant(`a${i}`) : user(`q${i}`));
			await s.close();
			assert.equal(s.entryCount, 4);
			await s.appendMessage(user("after close"));
			const r = await reopen(store);
			await r.close();
			// Bodies not read yet are read after the close.
			assert.deepEqual(r.getEntries(), s.getEntries());
			assert.deepEqual(asJson(r.buildSessionContext()), asJson(s.buildSessionContext()));
			const added = await r.appendMessage(assistant("after the reopened session's close"));
			await r.close();
			await r.close();
			assert.equal((await reopen(store)).getLeafId(), added);
			await s.flush();
		},
	},

	{
		group: GROUP,
		name: "resume from the end (load: context) gives the leaf and context of a full open",
		async run({ same, created, reopen }) {
			const { store, position } = await created();
			// Large records only where the store can read a tail: that is when the end alone is read.
			const records = store.capabilities.tailReads ? bigChain(null) : chain(20, null, "history");
			okPosition(await store.append(records, position));
			const s = await reopen(store);
			const kept = itemAt(records, -3).id;
			await s.appendCompaction("the history so far", kept, 50_000, undefined, undefined, true);
			await s.appendMessage(user("after the compaction"));
			await s.appendMessage(assistant("an answer"));
			const resumed = await Session.openStore(await same(store), { load: "context" });
			assert.equal(resumed.getLeafId(), s.getLeafId());
			assert.deepEqual(asJson(resumed.buildSessionContext()), asJson(s.buildSessionContext()));
			await resumed.load();
			assert.equal(resumed.entryCount, s.entryCount);
			const added = await resumed.appendMessage(user("resumed"));
			assert.equal(resumed.getEntry(added)?.parentId, s.getLeafId());
		},
	},
];
