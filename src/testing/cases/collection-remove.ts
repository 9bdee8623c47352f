/**
 * Removing sessions from a collection (collections with `remove`): the session goes whole,
 * every store object sees it gone, a missing session and a session of another collection are
 * refused with their codes; and searching (collections with `search`): a session holding the
 * text is among those found, a removed one is not.
 */

import assert from "node:assert/strict";
import { errorCode } from "../../core/validate.js";
import type { SessionCollection } from "../../storage/store.js";
import { assertCode, assertRecords, newHeader } from "../helpers.js";
import { createIn } from "./collection-contract.js";
import type { CollectionCase } from "./types.js";

const REMOVE = "remove";
const SEARCH = "search";

/** The collection's `remove`; fails when it declares `remove` without one. */
function remover(collection: SessionCollection): (location: string) => Promise<void> {
	const remove = collection.remove?.bind(collection);
	assert.ok(remove, "remove: true needs remove");
	return remove;
}

/** The cases of remove and search. */
export const COLLECTION_REMOVE_CASES: readonly CollectionCase[] = [
	{
		group: REMOVE,
		name: "remove: the session is gone from the listing, exists and read; the others are untouched",
		needs: "remove",
		async run({ collection, listed }) {
			const c = await collection();
			const gone = await createIn(c, "removed");
			const kept = await createIn(c, "kept");
			await remover(c)(gone.store.location);
			assert.equal(await gone.store.exists(), false, "exists, through the store that created it");
			assert.equal(await c.open(gone.store.location).exists(), false, "exists, through open");
			await assertCode(() => gone.store.read(), "FILE_NOT_FOUND", "read after remove");
			assertRecords(await kept.store.read(), [kept.header, ...kept.records], kept.store.capabilities, "the other");
			if (c.capabilities.listing) {
				assert.deepEqual(
					(await listed(c)).map((item) => item.location),
					[kept.store.location],
				);
			}
		},
	},
	{
		group: REMOVE,
		name: "remove while another store object has read the session: that one sees it gone too",
		needs: "remove",
		async run({ collection }) {
			const c = await collection();
			const { store, header, records } = await createIn(c);
			const reader = c.open(store.location);
			const before = await reader.read();
			assertRecords(before, [header, ...records], reader.capabilities, "read before the remove");
			await remover(c)(store.location);
			assert.equal(await reader.exists(), false, "exists");
			await assertCode(() => reader.read(), "FILE_NOT_FOUND", "read");
			// Its position is of a session that is gone: stale, or the session is not found.
			const since = await reader.readSince(before.position).catch((error: unknown) => {
				assert.equal(errorCode(error), "FILE_NOT_FOUND", `readSince: ${String(error)}`);
				return undefined;
			});
			assert.equal(since, undefined, "readSince a position from before the remove");
		},
	},
	{
		group: REMOVE,
		name: "remove of a session that does not exist, or no longer: FILE_NOT_FOUND",
		needs: "remove",
		async run({ collection }) {
			const c = await collection();
			const remove = remover(c);
			await assertCode(() => remove(c.sessionFor(newHeader()).location), "FILE_NOT_FOUND", "never created");
			const { store } = await createIn(c);
			await remove(store.location);
			await assertCode(() => remove(store.location), "FILE_NOT_FOUND", "removed twice");
		},
	},
	{
		group: REMOVE,
		name: "removes of one session at once: one removes it, the others FILE_NOT_FOUND",
		needs: "remove",
		async run({ collection }) {
			const c = await collection();
			const remove = remover(c);
			const { store } = await createIn(c);
			const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => remove(store.location)));
			assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1, "one remove removes it");
			for (const outcome of outcomes) {
				if (outcome.status === "rejected") {
					assert.equal(
						errorCode(outcome.reason),
						"FILE_NOT_FOUND",
						`a remove that came second: ${String(outcome.reason)}`,
					);
				}
			}
			assert.equal(await store.exists(), false);
		},
	},
	{
		group: REMOVE,
		name: "a removed session can be created again, holding only its new records",
		needs: "remove",
		async run({ collection }) {
			const c = await collection();
			const { store, header } = await createIn(c);
			await remover(c)(store.location);
			const again = c.sessionFor(header);
			assert.equal(again.location, store.location);
			await again.create(header);
			assertRecords(await again.read(), [header], again.capabilities, "only the new header");
			assertRecords(await store.read(), [header], store.capabilities, "through the first store object");
		},
	},
	{
		group: REMOVE,
		name: "remove of a session of another collection: INVALID_ARGUMENT; that session is untouched",
		needs: "otherCollection",
		async run({ collection, otherSession }) {
			const c = await collection();
			if (!c.capabilities.remove) return;
			const other = await otherSession();
			assert.ok(other, "otherSession gives a store");
			const header = newHeader();
			await other.create(header);
			await assertCode(() => remover(c)(other.location), "INVALID_ARGUMENT", "remove");
			assert.equal(await other.exists(), true, "the other session is still there");
			assertRecords(await other.read(), [header], other.capabilities, "and whole");
		},
	},
	{
		group: SEARCH,
		name: "searchText: a session holding the text is among those found, in either case when asked; a removed one is not",
		needs: "search",
		async run({ collection }) {
			const c = await collection();
			const search = c.searchText?.bind(c);
			assert.ok(search, "search: true needs searchText");
			const word = `quokka${Date.now().toString(36)}`;
			const match = await createIn(c, `the ${word} plays the xylophone`);
			await createIn(c, "nothing to find here");
			// Every session of the collection, the case's or not: a search finds a superset.
			const all = new Set<string>();
			if (c.capabilities.listing) for await (const item of c.list()) all.add(item.location);
			for (const query of [
				{ text: word, ignoreCase: false },
				{ text: word.toUpperCase(), ignoreCase: true },
				{ text: `${word} plays`, ignoreCase: false },
			]) {
				const found = await search(query);
				if (found === undefined) continue;
				assert.ok(found.includes(match.store.location), `${JSON.stringify(query)}: the session is found`);
				if (!c.capabilities.listing) continue;
				for (const location of found) assert.ok(all.has(location), `${location}: found, yet not listed`);
			}
			if (!c.capabilities.remove) return;
			await remover(c)(match.store.location);
			const after = await search({ text: word, ignoreCase: false });
			assert.ok(!after?.includes(match.store.location), "a removed session is not found");
		},
	},
];
