/**
 * appendBatches: groups of batches per append, the next group read while the last is written,
 * and failures on either side reported after the append in flight has ended.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { asRawRecord, type RawRecord } from "../../src/core/records.js";
import type { SessionHeader } from "../../src/core/types.js";
import { MemorySessionStore } from "../../src/index.js";
import { appendBatches, readAllRecords } from "../../src/storage/batches.js";
import type { AppendOutcome, SessionStore, StorePosition } from "../../src/storage/store.js";
import { chain, jsonTexts, newHeader, okPosition } from "../../src/testing/helpers.js";

/** A memory store whose appends take a few turns of the event loop, with a log of what happened when. */
class SlowStore {
	readonly log: string[] = [];
	readonly inner = new MemorySessionStore();
	readonly location = this.inner.location;
	failAt: number | undefined;
	private appends = 0;

	create(header: SessionHeader) {
		return this.inner.create(header);
	}

	read() {
		return this.inner.read();
	}

	async append(records: readonly object[], expected: StorePosition): Promise<AppendOutcome> {
		const k = ++this.appends;
		this.log.push(`append ${k}: ${records.length}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
		if (k === this.failAt) {
			this.log.push(`failed ${k}`);
			throw new Error(`append ${k} failed`);
		}
		const outcome = this.inner.append(records, expected);
		this.log.push(`done ${k}`);
		return outcome;
	}

	/** This store as the contract's (appendBatches and readAllRecords use the methods above only). */
	get store(): SessionStore {
		return this as unknown as SessionStore;
	}
}

/** Batches of `records`, `size` each, logging when each is taken (and failing at `failAt`). */
function* batchesOf(records: RawRecord[], size: number, log: string[], failAt?: number): Generator<RawRecord[]> {
	for (let at = 0, k = 1; at < records.length; at += size, k++) {
		if (k === failAt) throw new Error(`batch ${k} is damaged`);
		log.push(`batch ${k}`);
		yield records.slice(at, at + size);
	}
}

describe("appendBatches", () => {
	test("groups of batches per append, in order; the next group is read while the last is written", async () => {
		const store = new SlowStore();
		const header = newHeader();
		const p0 = await store.create(header);
		const records = chain(25, null, "grouped").map(asRawRecord);
		const end = await appendBatches(store.store, batchesOf(records, 3, store.log), p0, "copy", 4);
		assert.deepEqual(jsonTexts(await readAllRecords(store.store)), jsonTexts([header, ...records]));
		assert.equal(end, okPosition({ status: "ok", position: (await store.read()).position }));
		const at = (entry: string) => store.log.indexOf(entry);
		assert.deepEqual(
			store.log.filter((entry) => entry.startsWith("append")),
			["append 1: 12", "append 2: 12", "append 3: 1"],
		);
		// The next group is taken while append 1 is in flight; each append waits for the one before.
		assert.ok(at("append 1: 12") < at("batch 5") && at("batch 5") < at("done 1"), store.log.join(", "));
		assert.ok(at("done 1") < at("append 2: 12") && at("done 2") < at("append 3: 1"), store.log.join(", "));
	});

	test("damage found while an append is in flight: thrown once that append has ended, what it wrote stays", async () => {
		const store = new SlowStore();
		const p0 = await store.create(newHeader());
		const records = chain(20, null, "damaged").map(asRawRecord);
		await assert.rejects(
			appendBatches(store.store, batchesOf(records, 5, store.log, 3), p0, "copy", 2),
			/batch 3 is damaged/,
		);
		assert.deepEqual(store.log, ["batch 1", "batch 2", "append 1: 10", "done 1"]);
		assert.equal((await readAllRecords(store.store)).length, 11);
	});

	test("an append that fails while the next group is read: its error, nothing appended after it, no unhandled rejection", async () => {
		const unhandled: unknown[] = [];
		const listener = (reason: unknown) => unhandled.push(reason);
		process.on("unhandledRejection", listener);
		try {
			const store = new SlowStore();
			store.failAt = 1;
			const p0 = await store.create(newHeader());
			const records = chain(20, null, "failing").map(asRawRecord);
			await assert.rejects(
				appendBatches(store.store, batchesOf(records, 5, store.log), p0, "copy", 2),
				/append 1 failed/,
			);
			assert.deepEqual(store.log.slice(0, 3), ["batch 1", "batch 2", "append 1: 10"]);
			assert.ok(!store.log.some((entry) => entry.startsWith("append 2")));
			await new Promise((resolve) => setTimeout(resolve, 20));
			assert.deepEqual(unhandled, []);
		} finally {
			process.off("unhandledRejection", listener);
		}
	});

	test("another writer's records stop it with WRITE_CONFLICT", async () => {
		const store = new SlowStore();
		const p0 = await store.create(newHeader());
		okPosition(await store.append(chain(1, null, "theirs"), p0));
		const records = chain(6, null, "mine").map(asRawRecord);
		await assert.rejects(appendBatches(store.store, batchesOf(records, 3, store.log), p0, "copy", 2), {
			code: "WRITE_CONFLICT",
		});
	});
});
