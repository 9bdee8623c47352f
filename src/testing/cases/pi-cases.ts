/**
 * pi's golden fixtures (src/testing/pi-fixtures.ts), each written with create and append and
 * opened as pi opens it: the leaf, path, context, tree and name pi reported; a legacy session
 * migrated to pi's migrated text, keeping a backup.
 */

import assert from "node:assert/strict";
import { isHeaderRecord } from "../../core/validate.js";
import { assertAsPiReads, itemAt, jsonTexts, okPosition, parseRecordText } from "../helpers.js";
import { PI_CASES } from "../pi-fixtures.js";
import type { StoreCase } from "./types.js";

const GROUP = "pi's fixtures";

/** One case per fixture. */
export const PI_FIXTURE_CASES: readonly StoreCase[] = PI_CASES.map(
	(piCase): StoreCase => ({
		group: GROUP,
		name: `${piCase.name}: written with create and append, opened like pi`,
		async run({ fresh, read, reopen, readBackup }) {
			const lines = piCase.jsonl.split("\n").filter((line) => line.trim() !== "");
			const records = lines.map((line) => parseRecordText(line, piCase.name));
			const want = piCase.expected;
			const header = itemAt(records, 0);
			assert.ok(isHeaderRecord(header), `${piCase.name}: the first line is a session header`);
			const store = await fresh();
			let position = await store.create(header);
			for (let at = 1; at < records.length; at += 8) {
				position = okPosition(await store.append(records.slice(at, at + 8), position), `append from ${at}`);
			}
			assert.deepEqual(jsonTexts(await read(store)), lines, "the records read back are pi's lines");
			const session = await reopen(store);
			assertAsPiReads(session, want);
			if (want.migratedText === undefined) return;
			// A legacy case: migrate replaces the session with pi's migrated text, keeping a backup.
			assert.ok(session.fileVersion < 3, "a legacy session is migrated in memory only");
			const backup = await session.migrate();
			assert.ok(typeof backup === "string" && backup !== "", "migrate names its backup");
			const migrated = want.migratedText.split("\n").filter((line) => line !== "");
			assert.deepEqual(jsonTexts(await read(store)), migrated, "the migrated records are pi's");
			if (readBackup) {
				assert.deepEqual(jsonTexts(await readBackup(backup, store)), lines, "the backup");
			}
			const again = await reopen(store);
			assert.equal(again.fileVersion, 3);
			assert.equal(again.getLeafId(), want.leafId);
			assert.equal(await again.migrate(), undefined, "a second migrate does nothing");
		},
	}),
);
