/**
 * The store contract, its optional reads and the rest: lazy bodies, readTail, readPath
 * (each when declared), derive, flush and close.
 */

import assert from "node:assert/strict";
import { Session } from "../../session.js";
import { assertCode, assertRecords, chain, entryId, itemAt, jsonTexts, newHeader, okPosition } from "../helpers.js";
import { bigChain } from "./records.js";
import { STORE_CONTRACT as GROUP } from "./store-contract.js";
import type { StoreCase } from "./types.js";

/** The store contract, its optional reads and the rest: lazy bodies, readTail, readPath */
/** The cases of the group. */
export const STORE_EXTRA_CASES: readonly StoreCase[] = [
	{
		group: GROUP,
		name: "lazy bodies: envelopes only when declared, and their bodies read back",
		async run({ created }) {
			const { store, header, position } = await created();
			const records = chain(5, null, "lazy");
			okPosition(await store.append(records, position));
			const got = await store.read();
			const envelopes = got.lines.filter((line) => line.envelope !== undefined).length;
			if (!store.capabilities.lazyBodies) {
				assert.equal(envelopes, 0, "lazyBodies: false, yet envelopes");
				assert.equal(got.source, undefined, "lazyBodies: false, yet a source");
			}
			assertRecords(got, [header, ...records], store.capabilities, "read");
			await store.close();
			assertRecords(got, [header, ...records], store.capabilities, "bodies read after the store was closed");
		},
	},

	{
		group: GROUP,
		name: "prepareAppend, where a store has it: a hint that writes nothing, the append of the records prepared theirs wherever the stream ends",
		async run({ created, same, read }) {
			const { store, header, position } = await created();
			const first = chain(3, null, "first");
			const second = chain(3, itemAt(first, -1).id, "second");
			const never = chain(2, null, "never");
			// The hints while an append is under way, as a batch writer gives them.
			const pending = store.append(first, position);
			const hints = [store.prepareAppend?.(second), store.prepareAppend?.(never)];
			const p1 = okPosition(await pending);
			await Promise.all(hints);
			assert.deepEqual(
				jsonTexts(await read(store)),
				jsonTexts([header, ...first]),
				"nothing of a prepared batch before its append",
			);
			const p2 = okPosition(await store.append(second, p1));
			// Another writer appends after the hint: the prepared batch is behind at the old end,
			// then appended at the new one, as any batch.
			const third = chain(2, itemAt(second, -1).id, "third");
			const other = chain(1, itemAt(second, -1).id, "other");
			await store.prepareAppend?.(third);
			const p3 = okPosition(await (await same(store)).append(other, p2));
			assert.equal((await store.append(third, p2)).status, "behind", "a prepared batch at a stale end");
			await store.prepareAppend?.(third);
			okPosition(await store.append(third, p3));
			assert.deepEqual(
				jsonTexts(await read(store)),
				jsonTexts([header, ...first, ...second, ...other, ...third]),
				"every batch appended once, in order, none of those never appended",
			);
		},
	},

	{
		group: GROUP,
		name: "readTail, when tailReads: the header and the last records, whole only when they are all",
		needs: "tailReads",
		async run({ created }) {
			const { store, header, position } = await created();
			const small = chain(4, null, "small");
			const p1 = okPosition(await store.append(small, position));
			const answers: string[] = [];
			const check = async (count: number, entries: readonly object[], what: string) => {
				const tail = await store.readTail?.(count);
				answers.push(tail ? "tail" : "undefined");
				if (!tail) return;
				assert.equal(JSON.stringify(tail.header), JSON.stringify(header), `${what}: the header`);
				assert.ok(tail.records.length > 0 && tail.records.length <= entries.length, `${what}: how many records`);
				assert.deepEqual(
					jsonTexts(tail.records),
					jsonTexts(entries.slice(entries.length - tail.records.length)),
					`${what}: the last records, in order`,
				);
				assert.equal(tail.whole, tail.records.length === entries.length, `${what}: whole`);
			};
			await check(2, small, "a small session");
			const big = bigChain(itemAt(small, -1).id);
			okPosition(await store.append(big, p1));
			await check(10, [...small, ...big], "a large session");
			await check(100, [...small, ...big], "a large session, 100 records");
			assert.ok(answers.includes("tail"), "tailReads: true, yet no tail even for a session of 9 MiB");
		},
	},

	{
		group: GROUP,
		name: "readPath, when pathReads: the header and the active path, in stream order",
		needs: "pathReads",
		async run({ same, created, reopen }) {
			const { store, header, position } = await created();
			const trunk = chain(3, null, "trunk");
			const [a1, a2, a3] = [itemAt(trunk, 0), itemAt(trunk, 1), itemAt(trunk, 2)];
			const side = chain(2, a2.id, "side");
			const leaf = { type: "leaf", id: entryId(), parentId: a3.id, timestamp: a3.timestamp, targetId: a3.id };
			const p1 = okPosition(await store.append([...trunk, ...side, leaf], position));
			const path = async (count: number, expected: readonly object[], what: string) => {
				const read = await store.readPath?.(count);
				assert.ok(read, `${what}: a current-version session has a path`);
				assert.equal(JSON.stringify(read.header), JSON.stringify(header), `${what}: the header`);
				assert.deepEqual(jsonTexts(read.records), jsonTexts(expected), `${what}: the records of the path`);
				assert.equal(read.whole, false, `${what}: not the whole session`);
			};
			await path(100, [a1, a2, a3, leaf], "through a leaf record to the root");
			await path(2, [a3, leaf], "at most count records, nearest the leaf");
			const next = chain(2, leaf.id, "after the leaf record");
			okPosition(await store.append(next, p1));
			await path(100, [a1, a2, a3, leaf, ...next], "an entry whose parent is a leaf record");
			const reopened = await Session.openStore(await same(store), { load: "context" });
			assert.equal(reopened.getLeafId(), itemAt(next, -1).id, "a context-only open resumes at the leaf");
			assert.deepEqual(
				reopened.buildSessionContext(),
				(await reopen(store)).buildSessionContext(),
				"the context read by path is the context of a full open",
			);
			await assertCode(async () => reopened.getEntries(), "NOT_LOADED", "only the path was read");
			await reopened.load();
			assert.equal(reopened.getEntries().length, trunk.length + side.length + next.length, "load reads the rest");
		},
	},

	{
		group: GROUP,
		name: "derive: a store of the same kind for a new session, named by its header",
		async run({ same, created }) {
			const { store, header } = await created();
			const next = newHeader();
			const derived = store.derive(next);
			assert.notEqual(derived.location, store.location, "another location");
			assert.deepEqual(derived.capabilities, store.capabilities, "the same kind of store");
			assert.equal(await derived.exists(), false, "not created yet");
			const position = await derived.create(next);
			const records = chain(2, null, "derived");
			okPosition(await derived.append(records, position));
			assertRecords(await derived.read(), [next, ...records], derived.capabilities, "the derived session");
			assertRecords(await store.read(), [header], store.capabilities, "the source is untouched");
			const again = store.derive(next);
			assert.equal(again.location, derived.location, "deriving with the same header names the same session");
			assertRecords(await again.read(), [next, ...records], again.capabilities, "read through a second derive");
			assertRecords(await (await same(derived)).read(), [next, ...records], derived.capabilities, "sameSession");
			const grandchild = derived.derive(newHeader());
			assert.notEqual(grandchild.location, derived.location, "a derived store derives too");
		},
	},

	{
		group: GROUP,
		name: "flush and close; after close every operation works again",
		async run({ fresh, created, read, since }) {
			const unused = await fresh();
			await unused.close();
			await unused.flush();
			const { store, header, position: p0 } = await created();
			const caps = store.capabilities;
			const first = chain(2, null, "first");
			const p1 = okPosition(await store.append(first, p0));
			await store.flush();
			await store.close();
			await store.close();
			assert.equal(await store.exists(), true, "exists after close");
			assertRecords(await store.read(), [header, ...first], caps, "read after close");
			await store.close();
			const second = chain(1, itemAt(first, 1).id, "second");
			const p2 = okPosition(await store.append(second, p1), "append after close, at a position from before it");
			await store.close();
			assertRecords(await since(store, p1), second, caps, "readSince after close");
			await store.flush();
			await store.close();
			const p3 = okPosition(await store.replace([header], p2), "replace after close");
			await store.close();
			okPosition(await store.append(chain(1, null), p3), "append after close, at the replace's position");
			await store.close();
			assert.equal((await read(store, "read after the last close")).length, 2);
		},
	},
];
