/**
 * The store contract, its required operations: location and capabilities, exists and create,
 * append (and appends behind others), replace, and what a position that is not one gets.
 */

import assert from "node:assert/strict";
import { Session } from "../../session.js";
import { isPending, type StoreCapabilities } from "../../storage/store.js";
import {
	assertCode,
	assertRecords,
	assertStale,
	behindRead,
	chain,
	itemAt,
	jsonTexts,
	newHeader,
	okPosition,
	okReplace,
} from "../helpers.js";
import { oddRecords } from "./records.js";
import type { StoreCase } from "./types.js";

/** The group of the store contract's cases. */
export const STORE_CONTRACT = "the store contract";
const GROUP = STORE_CONTRACT;

/** The cases of the group. */
export const STORE_CONTRACT_CASES: readonly StoreCase[] = [
	{
		group: GROUP,
		name: "location and capabilities are declared, and honest",
		async run({ fresh, same }) {
			const store = await fresh();
			assert.equal(typeof store.location, "string");
			assert.notEqual(store.location, "", "a location");
			const caps: StoreCapabilities = store.capabilities;
			assert.equal(typeof caps.lazyBodies, "boolean", "lazyBodies");
			assert.equal(typeof caps.tailReads, "boolean", "tailReads");
			assert.ok(Array.isArray(caps.durability) && caps.durability.length > 0, "at least one durability mode");
			for (const mode of caps.durability) assert.ok(["none", "fsync", "group"].includes(mode), `mode ${mode}`);
			assert.equal(new Set(caps.durability).size, caps.durability.length, "durability modes are listed once");
			if (caps.tailReads) assert.equal(typeof store.readTail, "function", "tailReads: true needs readTail");
			assert.equal(typeof caps.pathReads, "boolean", "pathReads");
			if (caps.pathReads) assert.equal(typeof store.readPath, "function", "pathReads: true needs readPath");
			const other = await same(store);
			assert.equal(other.location, store.location, "another store object of the session has its location");
			assert.deepEqual(other.capabilities, caps);
		},
	},

	{
		group: GROUP,
		name: "exists, create, and FILE_EXISTS on a second create (through any store object)",
		async run({ fresh, same }) {
			const store = await fresh();
			const early = await same(store);
			assert.equal(await store.exists(), false, "a new store's session does not exist yet");
			assert.equal(await early.exists(), false);
			const header = newHeader();
			const position = await store.create(header);
			assert.equal(typeof position, "string", "create returns a position");
			assert.equal(await store.exists(), true);
			assert.equal(await early.exists(), true, "a store object made before the create sees the session");
			assertRecords(await early.read(), [header], store.capabilities, "the header");
			await assertCode(() => store.create(newHeader()), "FILE_EXISTS", "a second create");
			await assertCode(() => early.create(newHeader()), "FILE_EXISTS", "a create through another store object");
			await assertCode(
				async () => (await same(store)).create(newHeader()),
				"FILE_EXISTS",
				"a create through a new one",
			);
			assertRecords(await store.read(), [header], store.capabilities, "after the failed creates");
			okPosition(await store.append(chain(1, null), position), "append at the position create returned");
		},
	},

	{
		group: GROUP,
		name: "a session that does not exist: FILE_NOT_FOUND from read and Session.openStore",
		async run({ fresh }) {
			const store = await fresh();
			await assertCode(() => store.read(), "FILE_NOT_FOUND", "read");
			await assertCode(() => Session.openStore(store), "FILE_NOT_FOUND", "Session.openStore");
			assert.equal(await store.exists(), false, "reading created nothing");
		},
	},

	{
		group: GROUP,
		name: "append: records read back as written, key order and text included; readSince reads what follows",
		async run({ same, created, since }) {
			const { store, header, position: p0 } = await created();
			const caps = store.capabilities;
			const first = chain(3, null, "first");
			const p1 = okPosition(await store.append(first, p0), "append of three records");
			const lastId = itemAt(first, 2).id;
			const odd = oddRecords(lastId);
			const p2 = okPosition(await store.append(odd, p1), "append of unusual records");
			const all = [header, ...first, ...odd];
			assertRecords(await store.read(), all, caps, "read");
			assertRecords(await since(store, p0), [...first, ...odd], caps, "readSince the create");
			assertRecords(await since(store, p1), odd, caps, "readSince the first append");
			const end = await since(store, p2);
			assertRecords(end, [], caps, "readSince the end");
			const more = chain(1, itemAt(odd, -1).id, "more");
			okPosition(await store.append(more, end.position), "append at readSince's position");
			const whole = await store.read();
			assertRecords(whole, [...all, ...more], caps, "read");
			assertRecords(await (await same(store)).read(), [...all, ...more], caps, "read through another store object");
			okPosition(await store.append(chain(1, null), whole.position), "append at read's position");
		},
	},

	{
		group: GROUP,
		name: "append behind: nothing appended, the read holds what others appended, its position appends",
		async run({ same, created }) {
			const { store: a, header, position: pa0 } = await created();
			const caps = a.capabilities;
			const b = await same(a);
			const pb0 = (await b.read()).position;
			const x = chain(2, null, "a's");
			const pa1 = okPosition(await a.append(x, pa0), "a appends");
			const y = chain(1, null, "b's");
			const behind = behindRead(await b.append(y, pb0), "b appends at a position a wrote past");
			assertRecords(behind, x, caps, "what b is behind by");
			assertRecords(await a.read(), [header, ...x], caps, "after the behind append");
			okPosition(await b.append(y, behind.position), "b appends at the behind read's position");
			const z = chain(1, null, "a's again");
			const behindA = behindRead(await a.append(z, pa1), "a appends at a position b wrote past");
			assertRecords(behindA, y, caps, "what a is behind by");
			assertRecords(behindRead(await a.append(z, pa0), "a appends at its oldest position"), [...x, ...y], caps);
			okPosition(await a.append(z, behindA.position), "a appends at the behind read's position");
			assertRecords(await b.read(), [header, ...x, ...y, ...z], caps, "everything, once");
		},
	},

	{
		group: GROUP,
		name: "append answered at once (an outcome, not a promise): done when it returns, back to back and behind",
		async run({ same, created }) {
			// A store may answer an append with its outcome instead of a promise (SessionStore.append).
			// Such an answer must mean the records are stored: the next append, made in the same
			// synchronous run at the position it returned, lands after them, and another store object
			// reads them. A store that always answers with a promise passes this as well.
			const { store, header, position: p0 } = await created();
			const caps = store.capabilities;
			const other = await same(store);
			const po = (await other.read()).position;
			const written: object[] = [];
			let position = p0;
			for (let i = 0; i < 4; i++) {
				const records = chain(1, null, `burst ${i}`);
				written.push(...records);
				const answer = store.append(records, position);
				if (isPending(answer)) {
					position = okPosition(await answer, `append ${i} of a burst`);
				} else {
					position = okPosition(answer, `append ${i} of a burst, answered at once`);
				}
			}
			assertRecords(await other.read(), [header, ...written], caps, "the burst, through another store object");
			const late = chain(1, null, "late");
			const answer = other.append(late, po);
			const behind = behindRead(isPending(answer) ? await answer : answer, "an append behind the burst");
			assertRecords(behind, written, caps, "what the other store object is behind by");
			okPosition(await other.append(late, behind.position), "the append at the behind read's position");
			assertRecords(await store.read(), [header, ...written, ...late], caps, "everything, once");
		},
	},

	{
		group: GROUP,
		name: "replace: exactly the new records, a backup of the old, stale positions from before it",
		async run({ same, created, readBackup }) {
			const { store, header, position: p0 } = await created();
			const caps = store.capabilities;
			const old = chain(3, null, "before");
			const p1 = okPosition(await store.append(old, p0));
			const other = await same(store);
			const po = (await other.read()).position;
			const replacement = [header, ...chain(2, null, "after")];
			const { position: p2, backup: backup1 } = okReplace(await store.replace(replacement, p1), "replace");
			assert.ok(typeof backup1 === "string" && backup1 !== "", "replace names its backup");
			assertRecords(await store.read(), replacement, caps, "after the replace");
			assertRecords(await other.read(), replacement, caps, "after the replace, through another store object");
			if (readBackup) {
				const kept = await readBackup(backup1, store);
				assert.deepEqual(jsonTexts(kept), jsonTexts([header, ...old]), "the backup holds the old records");
			}
			const one = chain(1, null, "late");
			assertStale(await store.append(one, p1), "append at a position from before the replace");
			assertStale(await store.append(one, p0), "append at the create's position, from before the replace");
			assertStale(await other.append(one, po), "another store object appends at its position from before");
			assertStale(await store.replace([header], p1), "replace at a position from before the replace");
			assert.equal(await store.readSince(p1), undefined, "readSince a position from before the replace");
			assert.equal(await store.readSince(p0), undefined, "readSince the create's position");
			assert.equal(await other.readSince(po), undefined, "readSince another store object's position from before");
			assertRecords(await store.read(), replacement, caps, "the stale writes changed nothing");
			const more = chain(1, itemAt(replacement, 2).id, "more");
			const p3 = okPosition(await store.append(more, p2), "append at the position replace returned");
			const behind = behindRead(await store.replace([header], p2), "replace at a position others wrote past");
			assertRecords(behind, more, caps, "what the replace is behind by");
			assertRecords(await store.read(), [...replacement, ...more], caps, "a replace that is behind replaces nothing");
			// As long as the first session, so that only the position, not the size, can tell it is stale.
			const third = [header, ...chain(6, null, "third")];
			const { backup: backup2 } = okReplace(await store.replace(third, p3), "a second replace");
			assert.notEqual(backup2, backup1, "a second replace keeps its own backup");
			if (readBackup) {
				assert.deepEqual(jsonTexts(await readBackup(backup1, store)), jsonTexts([header, ...old]), "backup 1");
				assert.deepEqual(jsonTexts(await readBackup(backup2, store)), jsonTexts([...replacement, ...more]), "backup 2");
			}
			assertStale(await store.append(one, p1), "a position from before two replaces");
			assertStale(await store.append(one, p3), "a position from before the second replace");
			assert.equal(await store.readSince(p1), undefined, "readSince a position from before two replaces");
			assertRecords(await store.read(), third, caps, "after the second replace");
		},
	},

	{
		group: GROUP,
		name: "a malformed position: INVALID_ARGUMENT from readSince, append and replace",
		async run({ created, malformedPosition }) {
			const { store, header } = await created();
			await assertCode(() => store.readSince(malformedPosition), "INVALID_ARGUMENT", "readSince");
			await assertCode(() => store.append(chain(1, null), malformedPosition), "INVALID_ARGUMENT", "append");
			await assertCode(() => store.replace([header], malformedPosition), "INVALID_ARGUMENT", "replace");
			assertRecords(await store.read(), [header], store.capabilities, "nothing was written");
		},
	},
];
