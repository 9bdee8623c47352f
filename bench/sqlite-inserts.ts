/**
 * What bounds `copy` into SQLite (issue 28): SQLite's own work for the rows a copy writes. The
 * file's records are made into rows per batch of the store's `RECORD_BATCH` with the store's own
 * `indexRecord` (parse, encode, searchable text: not timed), then each batch is written as the
 * store's append writes it: one `BEGIN IMMEDIATE` transaction that reads the session's row,
 * inserts the records with the store's `insertRecords` (the rows, their two indexes and the
 * chunks of the text index) and updates the session's row. Only the transactions are timed:
 * SQLite's share of a copy, before any of the copy's own work (the read, the parse, the
 * read-back). Variants: as the store writes (with the text index), and without the text index
 * (the same rows with no searchable text, so no chunk is written). Each in a new database in a
 * scratch directory (removed after), opened by the store's own `openDatabase` (its pragmas and
 * schema). Prints, per variant, the time in transactions and the database's size.
 *
 * `tsc -p bench/tsconfig.json && node bench/data/.build/bench/sqlite-inserts.js FILE [--only with|without] [--batch N]`
 * (`--batch`: records per transaction, default the store's `RECORD_BATCH`)
 */

import { createReadStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { RECORD_BATCH } from "../src/storage/batches.js";
import { type IndexedRecord, indexRecord } from "../src/storage/sql/common.js";
import { loadDriver, openDatabase, statementsOf } from "../src/storage/sql/sqlite-schema.js";

const args = process.argv.slice(2);
const file = args[0];
if (file === undefined) throw new Error("usage: sqlite-inserts.js FILE [--only with|without] [--batch N]");
const option = (name: string) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : undefined);
const only = option("--only");
/** Records per transaction: the store's append writes `RECORD_BATCH` (a copy's batch). */
const batchSize = Number(option("--batch") ?? RECORD_BATCH);
const VARIANTS = [
	{ name: "as the store writes (rows, both indexes, text index)", key: "with", text: true },
	{ name: "without the text index (rows, both indexes)", key: "without", text: false },
].filter((variant) => only === undefined || variant.key === only);

const dir = mkdtempSync(join(tmpdir(), "sqlite-inserts-"));
try {
	for (const variant of VARIANTS) {
		const path = join(dir, `${variant.key}.db`);
		const db = openDatabase(await loadDriver(path), path, "create");
		if (db === undefined) throw new Error(`could not create ${path}`);
		const sql = statementsOf(db);
		const name = "s";
		let inserting = 0;
		let count = 0;
		let bytes = 0;
		let batch: string[] = [];
		const flush = () => {
			const rows: IndexedRecord[] = batch.map((line) => {
				const row = indexRecord(JSON.parse(line) as object, file);
				return variant.text ? row : { ...row, text: null };
			});
			const size = rows.reduce((sum, row) => sum + Buffer.byteLength(row.line) + 1, 0);
			const from = count;
			const started = performance.now();
			db.transaction(() => {
				const now = Date.now();
				if (sql.session.get(name) === undefined) sql.insertSession.run(name, sql.nextGeneration(), 0, now, now, 0);
				sql.insertRecords(name, from, rows);
				sql.appended.run(from + rows.length, now, size, name);
			}).immediate();
			inserting += performance.now() - started;
			count += rows.length;
			bytes += size;
			batch = [];
		};
		const wall = performance.now();
		for await (const line of createInterface({ input: createReadStream(file) })) {
			if (line === "") continue;
			batch.push(line);
			if (batch.length === batchSize) flush();
		}
		if (batch.length > 0) flush();
		db.pragma("wal_checkpoint(TRUNCATE)");
		db.close();
		const mib = (n: number) => (n / 2 ** 20).toFixed(0);
		console.log(
			`${variant.name}: ${count.toLocaleString("en-US")} records, transactions ${(inserting / 1000).toFixed(1)} s ` +
				`(whole loop ${((performance.now() - wall) / 1000).toFixed(1)} s), database ${mib(statSync(path).size)} MiB ` +
				`for ${mib(bytes)} MiB of records`,
		);
		rmSync(path, { force: true });
	}
} finally {
	rmSync(dir, { recursive: true, force: true });
}
