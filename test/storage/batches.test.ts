/**
 * appendBatches (storage/batches.ts), the batch writer of `copy` and `import`: every batch
 * appended once and in order, and, for a store that waits for a server, the next batch handed
 * to `prepareAppend` while the last one is written. The store here is a real memory store
 * behind the suite's RecordingStore, whose appends are answered a turn of the event loop
 * later, as a server's are; the real PostgreSQL store's hint is held by the conformance suite
 * (store-extras.ts) and its rows by test/storage/sql/postgres-rows.test.ts.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RawRecord } from "../../src/core/records.js";
import { isSessionTreeError } from "../../src/index.js";
import { appendBatches } from "../../src/storage/batches.js";
import { MemorySessionStore } from "../../src/storage/memory-store.js";
import type { AppendOutcome, StorePosition } from "../../src/storage/store.js";
import { chain, itemAt, jsonTexts, newHeader, RecordingStore, recordsOf } from "../../src/testing/helpers.js";

/** What the store saw, in order. */
type Event = { op: "append" | "answer" | "prepare"; first: string };

/** The id of a batch's first record, to name the batch. */
function firstId(records: readonly object[]): string {
	return String((records[0] as { id?: unknown }).id);
}

/** A store answering each append a turn of the event loop later, as a server does, noting its appends and answers. */
class ServerLikeStore extends RecordingStore {
	readonly events: Event[] = [];
	/** Runs before the nth append (1-based) reaches the store: another writer, say. */
	before: ((n: number) => Promise<void>) | undefined;
	private appends = 0;

	override async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		this.events.push({ op: "append", first: firstId(records) });
		await this.before?.(++this.appends);
		await new Promise<void>((resolve) => setImmediate(resolve));
		const outcome = await super.append(records, expected);
		this.events.push({ op: "answer", first: firstId(records) });
		return outcome;
	}
}

/** A {@link ServerLikeStore} that takes the hint, noting it. */
class HintedStore extends ServerLikeStore {
	async prepareAppend(records: readonly object[]): Promise<void> {
		this.events.push({ op: "prepare", first: firstId(records) });
	}
}

describe("appendBatches", () => {
	test("every batch once, in order; the next one hinted while the last is written; empty batches skipped", async () => {
		const inner = new MemorySessionStore();
		const header = newHeader();
		const start = await inner.create(header);
		const records = chain(7, null, "batch") as unknown as RawRecord[];
		const batches = [records.slice(0, 3), [], records.slice(3, 5), records.slice(5)];
		const store = new HintedStore(inner);
		await appendBatches(store, batches, start, "copy");
		assert.deepEqual(jsonTexts(recordsOf(await inner.read(), inner.capabilities)), jsonTexts([header, ...records]));
		const ids = records.map((record) => String(record.id));
		// Expected by hand: each hint comes after its batch's predecessor was sent and before it was answered.
		assert.deepEqual(store.events, [
			{ op: "append", first: ids[0] },
			{ op: "prepare", first: ids[3] },
			{ op: "answer", first: ids[0] },
			{ op: "append", first: ids[3] },
			{ op: "prepare", first: ids[5] },
			{ op: "answer", first: ids[3] },
			{ op: "append", first: ids[5] },
			{ op: "answer", first: ids[5] },
		]);
	});

	test("a store without the hint: the same appends", async () => {
		const inner = new MemorySessionStore();
		const header = newHeader();
		const records = chain(4, null, "plain") as unknown as RawRecord[];
		const store = new ServerLikeStore(inner);
		await appendBatches(store, [records.slice(0, 2), records.slice(2)], await inner.create(header), "copy");
		assert.deepEqual(jsonTexts(recordsOf(await inner.read(), inner.capabilities)), jsonTexts([header, ...records]));
		assert.deepEqual(
			store.events.map((event) => event.op),
			["append", "answer", "append", "answer"],
		);
	});

	test("another writer meanwhile: WRITE_CONFLICT, what was appended before stays, the hinted batch is not written", async () => {
		const inner = new MemorySessionStore();
		const header = newHeader();
		const start = await inner.create(header);
		const records = chain(4, null, "ours") as unknown as RawRecord[];
		const theirs = chain(1, null, "theirs");
		const store = new HintedStore(inner);
		// Another writer appends just before our second batch.
		store.before = async (n) => {
			if (n === 2) await inner.append(theirs, (await inner.read()).position);
		};
		await assert.rejects(
			appendBatches(store, [records.slice(0, 2), records.slice(2)], start, "copy"),
			(error) => isSessionTreeError(error) && error.code === "WRITE_CONFLICT" && /during the copy/.test(error.message),
		);
		assert.deepEqual(
			jsonTexts(recordsOf(await inner.read(), inner.capabilities)),
			jsonTexts([header, itemAt(records, 0), itemAt(records, 1), ...theirs]),
		);
	});
});
