/**
 * Several writers of one session at once, through separate store objects.
 */

import assert from "node:assert/strict";
import { Session } from "../../session.js";
import { behindRead, chain, itemAt, jsonTexts, parseRecordText, recordsOf } from "../helpers.js";
import { assistant, user, WRITES_PER_WRITER } from "./records.js";
import type { StoreCase } from "./types.js";

const GROUP = "several writers";

/** The cases of the group. */
export const WRITER_CASES: readonly StoreCase[] = [
	{
		group: GROUP,
		name: "store objects appending at once: every append lands whole and once; behind reads are exact",
		async run({ same, created, read, since, writers }) {
			const { store } = await created();
			const stores = [store];
			for (let w = 1; w < writers; w++) stores.push(await same(store));
			const views = await Promise.all(
				stores.map(async (writer, w) => {
					const start = await writer.read();
					let at = start.position;
					const seen = jsonTexts(recordsOf(start, writer.capabilities, `writer ${w}: first read`));
					let parent: string | null = null;
					for (let i = 0; i < WRITES_PER_WRITER; i++) {
						// Two records per append: they must stay together.
						const records = chain(2, parent, `writer ${w} append ${i}`);
						for (let attempt = 0; ; attempt++) {
							assert.ok(attempt < 1000, `writer ${w}: no progress after 1000 attempts`);
							const outcome = await writer.append(records, at);
							if (outcome.status === "ok") {
								at = outcome.position;
								seen.push(...jsonTexts(records));
								break;
							}
							const read = behindRead(outcome, `writer ${w}`);
							seen.push(...jsonTexts(recordsOf(read, writer.capabilities, `writer ${w}: behind read`)));
							at = read.position;
						}
						parent = itemAt(records, 1).id;
					}
					return { writer, seen, at };
				}),
			);
			// Once every writer is done, what each read and wrote, and what follows, is the session.
			for (const [w, view] of views.entries()) {
				const { writer } = view;
				const rest = await since(writer, view.at, `writer ${w}: readSince its last position`);
				view.seen.push(...jsonTexts(recordsOf(rest, writer.capabilities)));
			}
			const final = jsonTexts(await read(await same(store)));
			assert.equal(final.length, 1 + writers * WRITES_PER_WRITER * 2, "every record once");
			assert.equal(new Set(final).size, final.length, "no record twice");
			for (const [w, view] of views.entries()) {
				assert.deepEqual(view.seen, final, `writer ${w}'s reads add up to the session`);
			}
			const records = final.map((text) => parseRecordText(text));
			for (let i = 1; i < records.length; i += 2) {
				assert.equal(records[i + 1]?.parentId, records[i]?.id, `an append's two records are adjacent (at ${i})`);
			}
		},
	},

	{
		group: GROUP,
		name: "sessions writing at once through separate store objects: each writer's chain, every entry once",
		async run({ fresh, reopen, writers }) {
			const store = await fresh();
			const first = await Session.createIn(store);
			const root = await first.appendMessage(user("root"));
			const top = await first.appendSessionInfo("shared");
			const sessions = [first];
			for (let w = 1; w < writers; w++) sessions.push(await reopen(store));
			const pending: Array<{ session: Session; ops: Promise<string>[] }> = sessions.map((session) => ({
				session,
				ops: [],
			}));
			const others: Promise<unknown>[] = [];
			for (let i = 0; i < WRITES_PER_WRITER; i++) {
				pending.forEach(({ session: s, ops }, w) => {
					const op =
						i % 4 === 1
							? s.appendLabelChange(root, `label by ${w}`)
							: i % 4 === 3
								? s.appendCustomEntry("progress", { w, i })
								: s.appendMessage(i % 2 ? assistant(`w${w} ${i}`) : user(`w${w} ${i}`));
					ops.push(op);
					if (i === 2) others.push(s.refresh());
					if (i === WRITES_PER_WRITER / 2 && w === 0) others.push(s.close());
				});
			}
			const ids = await Promise.all(pending.map(({ ops }) => Promise.all(ops)));
			await Promise.all(others);
			const all = ids.flat();
			assert.equal(new Set(all).size, all.length, "every write got its own id");
			const r = await reopen(store);
			assert.deepEqual(r.problems, []);
			const entries = r.getEntries();
			const entryIds = entries.map((e) => e.id);
			assert.equal(new Set(entryIds).size, entryIds.length, "every entry once");
			assert.equal(entries.length, 2 + all.length, "every entry present");
			const known = new Set(entryIds);
			for (const entry of entries) {
				assert.ok(entry.parentId === null || known.has(entry.parentId), `the parent of ${entry.id} is present`);
			}
			ids.forEach((chainIds, w) => {
				chainIds.forEach((id, i) => {
					const want = i === 0 ? top : chainIds[i - 1];
					assert.equal(r.getEntry(id)?.parentId, want, `writer ${w}'s write ${i} follows its previous one`);
				});
			});
			await Promise.all(sessions.map((s) => s.refresh()));
			sessions.forEach((s, w) => {
				assert.equal(s.entryCount, entries.length, `writer ${w} sees every entry after refresh`);
				assert.equal(s.getLeafId(), ids[w]?.at(-1), `writer ${w}'s leaf is its own last write`);
			});
		},
	},

	{
		group: GROUP,
		name: "refresh: a session reads what another appended; its leaf stays its own",
		async run({ fresh, reopen }) {
			const store = await fresh();
			const a = await Session.createIn(store);
			const q = await a.appendMessage(user("q"));
			const b = await reopen(store);
			const answer = await b.appendMessage(assistant("b's answer"));
			await b.appendLabelChange(q, "by b");
			await b.appendSessionInfo("named by b");
			await b.branch(q);
			assert.equal(a.getEntry(answer), undefined, "not read yet");
			await a.refresh();
			assert.equal(a.getEntry(answer)?.parentId, q);
			assert.equal(a.getLabel(q), "by b");
			assert.equal(a.getSessionName(), "named by b");
			assert.equal(a.getLeafId(), q, "another writer's leaf moves do not move this session's leaf");
			const mine = await a.appendMessage(assistant("a's answer"));
			assert.equal(a.getEntry(mine)?.parentId, q);
		},
	},
];
