/**
 * The collection contract ({@link SessionCollection}): declared capabilities, `sessionFor`
 * naming a session by its header (and refusing a name that would leave the collection),
 * `list` showing each session created once, `open` reading it back, and sessions created at
 * once.
 */

import assert from "node:assert/strict";
import type { SessionHeader } from "../../core/types.js";
import { errorCode } from "../../core/validate.js";
import { Session } from "../../session.js";
import type { SessionCollection, SessionStore } from "../../storage/store.js";
import {
	assertCode,
	assertRecords,
	chain,
	jsonTexts,
	newHeader,
	okPosition,
	okReplace,
	recordsOf,
} from "../helpers.js";
import { user } from "./records.js";
import type { CollectionCase } from "./types.js";

/** The group of the collection contract's cases. */
export const COLLECTION_CONTRACT = "the collection contract";
const AT_ONCE = "sessions created at once";

/** A session made in a collection: its store, header and the records appended after the header. */
export interface CollectionSession {
	store: SessionStore;
	header: SessionHeader;
	records: object[];
}

/** A new session of `collection`, through `sessionFor`: a header and two messages holding `text`. */
export async function createIn(collection: SessionCollection, text = "a message"): Promise<CollectionSession> {
	const header = newHeader();
	const store = collection.sessionFor(header);
	const position = await store.create(header);
	const records = chain(2, null, text);
	okPosition(await store.append(records, position), "append to a new session of the collection");
	return { store, header, records };
}

/** The locations, sorted (a listing is in no particular order). */
function sorted(locations: readonly string[]): string[] {
	return [...locations].sort();
}

/** Ids a header may hold that are no plain name: each would leave a directory, or is too long for a file name. */
const ESCAPING_IDS = ["../escape", "a/b", "a\\b", "..", ".", "/abs", "x".repeat(129), "y".repeat(300), "nul\u0000"];

/** The cases of the collection contract, and of sessions created at once. */
export const COLLECTION_CONTRACT_CASES: readonly CollectionCase[] = [
	{
		group: COLLECTION_CONTRACT,
		name: "location and capabilities are declared, and honest",
		async run({ collection }) {
			const c = await collection();
			assert.equal(typeof c.location, "string");
			assert.notEqual(c.location, "", "a location");
			for (const key of ["listing", "search", "remove"] as const) {
				assert.equal(typeof c.capabilities[key], "boolean", key);
			}
			if (c.capabilities.search) assert.equal(typeof c.searchText, "function", "search: true needs searchText");
			if (c.capabilities.remove) assert.equal(typeof c.remove, "function", "remove: true needs remove");
		},
	},
	{
		group: COLLECTION_CONTRACT,
		name: "sessionFor: a store of a session not created yet, named by its header; FILE_EXISTS on a second create",
		async run({ collection }) {
			const c = await collection();
			const header = newHeader();
			const store = c.sessionFor(header);
			assert.equal(await store.exists(), false, "not created yet");
			await assertCode(() => store.read(), "FILE_NOT_FOUND", "read before the create");
			assert.equal(c.sessionFor(header).location, store.location, "the same header names the same session");
			assert.notEqual(c.sessionFor(newHeader()).location, store.location, "another header, another session");
			await store.create(header);
			assert.equal(await c.sessionFor(header).exists(), true, "created, through another store object");
			await assertCode(() => c.sessionFor(header).create(header), "FILE_EXISTS", "a second create");
			assertRecords(await store.read(), [header], store.capabilities, "the header, once");
		},
	},
	{
		group: COLLECTION_CONTRACT,
		name: "list: every session created, once, at its store's location; none that was only named",
		needs: "listing",
		async run({ collection, listed }) {
			const c = await collection();
			assert.deepEqual(await listed(c), [], "nothing new before the creates");
			const made = [await createIn(c), await createIn(c), await createIn(c)];
			c.sessionFor(newHeader());
			const locations = (await listed(c)).map((item) => item.location);
			assert.deepEqual(sorted(locations), sorted(made.map((s) => s.store.location)));
		},
	},
	{
		group: COLLECTION_CONTRACT,
		name: "open: a listed location reads back its session as written, and writes through the facade",
		needs: "listing",
		async run({ collection, listed }) {
			const c = await collection();
			const made = [await createIn(c, "first"), await createIn(c, "second")];
			for (const item of await listed(c)) {
				const mine = made.find((s) => s.store.location === item.location);
				assert.ok(mine, `listed: ${item.location}, not a session of this case`);
				const store = c.open(item.location);
				assert.equal(store.location, item.location, "open keeps the listed location");
				assertRecords(await store.read(), [mine.header, ...mine.records], store.capabilities, "read through open");
				const session = await Session.openStore(c.open(item.location));
				assert.equal(session.getHeader().id, mine.header.id);
				const added = await session.appendMessage(user("through the facade"));
				const again = await Session.openStore(c.open(item.location));
				assert.equal(again.getLeafId(), added, "the write is read back through another open");
			}
		},
	},
	{
		group: COLLECTION_CONTRACT,
		name: "open of a session that does not exist: FILE_NOT_FOUND from read; nothing is created",
		async run({ collection, listed }) {
			const c = await collection();
			const store = c.open(c.sessionFor(newHeader()).location);
			assert.equal(await store.exists(), false);
			await assertCode(() => store.read(), "FILE_NOT_FOUND", "read");
			await assertCode(() => Session.openStore(store), "FILE_NOT_FOUND", "Session.openStore");
			assert.equal(await store.exists(), false, "reading created nothing");
			if (c.capabilities.listing) assert.deepEqual(await listed(c), [], "nothing listed");
		},
	},
	{
		group: COLLECTION_CONTRACT,
		name: "a listing's size grows with an append, its time does not go back; a replace's backup is not listed",
		needs: "listing",
		async run({ collection, listed }) {
			const c = await collection();
			const { store } = await createIn(c);
			const [first] = await listed(c);
			assert.ok(first, "the session is listed");
			const current = await store.read();
			const records = recordsOf(current, store.capabilities);
			const more = chain(5, null, "more");
			const { position } = okReplace(await store.replace(records, current.position), "a replace, keeping a backup");
			okPosition(await store.append(more, position), "an append after the replace");
			const after = await listed(c);
			assert.deepEqual(
				after.map((item) => item.location),
				[store.location],
				"one session, its backup not listed",
			);
			const [second] = after;
			if (first.bytes !== undefined) assert.ok((second?.bytes ?? 0) > first.bytes, "bytes grew with the append");
			if (first.modified !== undefined) {
				assert.ok((second?.modified?.getTime() ?? 0) >= first.modified.getTime(), "modified did not go back");
			}
		},
	},
	{
		group: COLLECTION_CONTRACT,
		name: "a header id that would leave the collection: refused with INVALID_ARGUMENT, or a session the collection holds",
		async run({ collection, listed }) {
			const c = await collection();
			for (const id of ESCAPING_IDS) {
				const header = { ...newHeader(), id };
				const what = `header id ${JSON.stringify(id.length > 20 ? `${id.slice(0, 8)}… (${id.length})` : id)}`;
				let store: SessionStore;
				try {
					store = c.sessionFor(header);
					await store.create(header);
				} catch (error) {
					assert.equal(errorCode(error), "INVALID_ARGUMENT", `${what}: ${String(error)}`);
					continue;
				}
				// Taken: then it is a session of this collection like any other.
				assertRecords(await c.open(store.location).read(), [header], store.capabilities, `${what}: open`);
				if (c.capabilities.listing) {
					assert.ok(
						(await listed(c)).some((item) => item.location === store.location),
						`${what}: listed by the collection`,
					);
				}
				if (c.capabilities.remove) await c.remove?.(store.location);
			}
		},
	},
	{
		group: COLLECTION_CONTRACT,
		name: "close; after close the collection works again",
		async run({ collection, listed }) {
			const c = await collection();
			await c.close?.();
			await c.close?.();
			const { store, header, records } = await createIn(c);
			assertRecords(await c.open(store.location).read(), [header, ...records], store.capabilities, "after close");
			await c.close?.();
			if (c.capabilities.listing) {
				assert.deepEqual(
					(await listed(c)).map((item) => item.location),
					[store.location],
				);
			}
			await c.close?.();
		},
	},
	{
		group: AT_ONCE,
		name: "sessions created at once: each created whole, each listed once",
		async run({ collection, listed }) {
			const c = await collection();
			const made = await Promise.all(Array.from({ length: 8 }, (_, i) => createIn(c, `at once ${i}`)));
			assert.equal(new Set(made.map((s) => s.store.location)).size, made.length, "a location each");
			for (const { store, header, records } of made) {
				assertRecords(await c.open(store.location).read(), [header, ...records], store.capabilities, store.location);
			}
			if (c.capabilities.listing) {
				assert.deepEqual(
					sorted((await listed(c)).map((item) => item.location)),
					sorted(made.map((s) => s.store.location)),
				);
			}
		},
	},
	{
		group: AT_ONCE,
		name: "one session created at once through several store objects: one create wins, the others FILE_EXISTS",
		async run({ collection, listed }) {
			const c = await collection();
			const header = newHeader();
			const stores = Array.from({ length: 4 }, () => c.sessionFor(header));
			const outcomes = await Promise.allSettled(stores.map((store) => store.create(header)));
			assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1, "one create wins");
			for (const outcome of outcomes) {
				if (outcome.status === "rejected") {
					assert.equal(errorCode(outcome.reason), "FILE_EXISTS", `a create that lost: ${String(outcome.reason)}`);
				}
			}
			const [store] = stores;
			assert.ok(store);
			assert.deepEqual(jsonTexts(recordsOf(await store.read(), store.capabilities)), jsonTexts([header]), "one header");
			if (c.capabilities.listing) {
				assert.deepEqual(
					(await listed(c)).map((item) => item.location),
					[store.location],
				);
			}
		},
	},
];
