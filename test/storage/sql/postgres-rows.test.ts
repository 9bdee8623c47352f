/**
 * The PostgreSQL store's rows made ahead of an append (postgres-rows.ts `columnsAhead`, given
 * by `prepareAppend` while an earlier append waits for the server): the same rows the append
 * makes itself, made a slice at a time with the event loop turning between slices, and never
 * taken for other records or another index limit. No server needed: the rows are the
 * parameters the store sends.
 */

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { describe, test } from "node:test";
import { arrayLiteral, columnsAhead, rowsOf } from "../../../src/storage/sql/postgres-rows.js";
import { chain, itemAt } from "../../../src/testing/helpers.js";
import { assistantMessage, userMessage } from "../../support/messages.js";

/** Records of every kind the columns treat apart: plain, non-ASCII, a NUL, too many words, no text. */
function records(): object[] {
	const entries: object[] = chain(150, null, "plain words");
	const last = itemAt(entries as { id: string }[], -1).id;
	const at = (k: number, message: object) => ({
		type: "message",
		id: `e${k}`,
		parentId: last,
		timestamp: "2026-12-07T10:00:00.000Z",
		message,
	});
	entries.push(at(1, userMessage("Grüße aus Köln, σίσυφος ǅ", 1)));
	entries.push(at(2, userMessage("a NUL \u0000 inside", 2)));
	// About 2 MB of distinct words: past the index limit, so unindexed.
	const many = Array.from({ length: 200_000 }, (_, k) => `w${k.toString(36)}`).join(" ");
	entries.push(at(3, assistantMessage(many, 3)));
	entries.push({
		type: "label",
		id: "l1",
		parentId: "e1",
		timestamp: "2026-12-07T10:00:01.000Z",
		targetId: "e1",
		label: "x",
	});
	return entries;
}

describe("PostgreSQL rows made ahead", () => {
	test("the rows of an append that takes them are the rows it makes itself", async () => {
		const batch = records();
		const ahead = await columnsAhead(batch, "postgres://test#s");
		assert.ok(ahead, "made");
		const made = rowsOf(batch, 41, ahead.indexLimit, "postgres://test#s");
		const { literals, ...taken } = rowsOf(batch, 41, ahead.indexLimit, "postgres://test#s", ahead);
		assert.deepEqual(taken, made);
		assert.equal(literals, ahead.literals, "with the array literals made ahead");
		// The cases above are in it: an unindexed record, a NUL made U+FFFD in an index column.
		assert.deepEqual(made.seq.slice(0, 3), [41, 42, 43]);
		assert.equal(made.unindexed.filter(Boolean).length, 1, "the record of too many words is unindexed");
		assert.ok(made.id.includes("e2"));
	});

	test("not taken for another array of records or another index limit", async () => {
		const batch = records();
		const ahead = await columnsAhead(batch);
		assert.ok(ahead);
		const copy = [...batch];
		copy.splice(3, 1);
		assert.deepEqual(rowsOf(copy, 0, ahead.indexLimit, undefined, ahead), rowsOf(copy, 0, ahead.indexLimit));
		assert.deepEqual(rowsOf(batch, 0, 0, undefined, ahead), rowsOf(batch, 0, 0));
		const none = rowsOf(batch, 0, 0);
		assert.ok(
			none.words.every((words) => words === null),
			"limit 0: nothing indexed",
		);
		assert.equal(none.unindexed.filter(Boolean).length, batch.length - 1, "all but the label (no text) unindexed");
	});

	test("made a slice at a time: the event loop turns between slices", async () => {
		const batch = chain(1000, null, "sliced");
		let turns = 0;
		let done = false;
		const turn = () => {
			turns++;
			if (!done) setImmediate(turn);
		};
		setImmediate(turn);
		await columnsAhead(batch);
		done = true;
		// 1,000 records in slices of 64: 16 slices, a turn after each.
		assert.ok(turns >= 15, `${turns} turns of the event loop while 1,000 records were made`);
	});

	test("array literals are the text pg itself sends for the same arrays", async () => {
		// pg's own encoding of an array parameter (its prepareValue), the independent reference.
		const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as {
			prepareValue(value: unknown): string;
		};
		const rows = rowsOf(records(), 7, 1_000_000);
		const columns = [rows.seq, rows.type, rows.id, rows.parentId, rows.line, rows.words, rows.unindexed];
		const odd = ["", "NULL", "a,b", "{x}", 'say "hi"', 'back\\slash \\"', " spaces ", "\u00e9\u{1f600}", "tab\there"];
		for (const values of [...columns, odd, [null, "x", null], [], [true, false], [0, -1, 2 ** 53]]) {
			assert.equal(arrayLiteral(values), prepareValue(values));
		}
		// What the INSERT is sent: the literals made ahead, or made when the append makes its rows.
		const ahead = await columnsAhead(records());
		assert.ok(ahead);
		assert.equal(ahead.literals.line, prepareValue(ahead.columns.line));
		assert.equal(ahead.literals.words, prepareValue(ahead.columns.words));
	});

	test("a record that cannot be encoded: nothing made ahead (the append meets the error itself)", async () => {
		const circular: Record<string, unknown> = { type: "message", id: "c" };
		circular.self = circular;
		assert.equal(await columnsAhead([...chain(3, null), circular]), undefined);
		assert.throws(() => rowsOf([circular], 0, 1000));
	});
});
