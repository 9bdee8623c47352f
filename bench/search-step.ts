/**
 * The SQLite store's text index step, warm (issue 28, "search no slower"): bench/stores.ts's
 * 1,000 search sessions copied once into one SQLite database by the CLI's `copy`, then
 * `searchText` of each build given (its `dist` directory) for three texts, medians of 15
 * after one warm-up, builds alternating twice; and version 2's index (FTS5 trigram with
 * positions, one row per record: what the store had before schema 3) built over the same
 * records in a copy of the database, its phrase query timed the same way, with both files'
 * sizes.
 *
 * `tsc -p bench/tsconfig.json && node bench/data/.build/bench/search-step.js NAME=DIST…`
 * (e.g. `ours=dist base=/work/wt/head/dist`).
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { indexRecord } from "../src/storage/sql/common.js";
import { DATA_DIR } from "./generate.js";
import { median } from "./shared.js";
import { ensureSearchSet } from "./stores.js";

const TEXTS = ["crossing protocol", "zebra crossing", "the protocol for"];
const builds = process.argv.slice(2).map((arg) => {
	const [name, dist] = arg.split("=");
	if (!name || !dist) throw new Error("usage: search-step.js NAME=DIST…");
	return { name, dist: resolve(dist) };
});
ensureSearchSet((line) => console.log(line));
const v3 = join(DATA_DIR, "search-step.db");
const v2 = join(DATA_DIR, "search-step-v2.db");
if (!existsSync(v3)) {
	const cli = join(builds[0]?.dist ?? "dist", "bin", "session-tree.js");
	const copied = spawnSync(process.execPath, [cli, "copy", join(DATA_DIR, "search1k"), `sqlite:${v3}`], {
		encoding: "utf8",
	});
	if (copied.status !== 0) throw new Error(copied.stderr);
}

interface Collection {
	searchText(query: { text: string; ignoreCase: boolean }): Promise<string[] | undefined>;
}

async function timeText(search: (text: string) => Promise<number> | number, text: string): Promise<string> {
	await search(text);
	const times: number[] = [];
	let hits = 0;
	for (let i = 0; i < 15; i++) {
		const started = performance.now();
		hits = await search(text);
		times.push(performance.now() - started);
	}
	return `${(median(times) ?? 0).toFixed(2)} ms (${hits} sessions)`;
}

for (let round = 0; round < 2; round++) {
	for (const { name, dist } of builds) {
		const { collectionAt } = (await import(pathToFileURL(join(dist, "storage", "locations.js")).href)) as {
			collectionAt(location: string): Collection;
		};
		// The SQLite store registers its scheme when its module loads.
		await import(pathToFileURL(join(dist, "sqlite.js")).href);
		const collection = collectionAt(`sqlite:${v3}`);
		for (const text of TEXTS) {
			const figure = await timeText(
				async (t) => (await collection.searchText({ text: t, ignoreCase: true }))?.length ?? -1,
				text,
			);
			console.log(`${name} ${JSON.stringify(text)}: ${figure}`);
		}
	}
}

// Version 2's index of the same records, beside a copy of the database.
{
	const db3 = new Database(v3);
	db3.pragma("wal_checkpoint(TRUNCATE)");
	db3.close();
	for (const suffix of ["", "-wal", "-shm"]) rmSync(v2 + suffix, { force: true });
	copyFileSync(v3, v2);
	const db = new Database(v2);
	db.exec("DROP TABLE records_search; DROP TABLE search_chunks");
	db.exec(
		"CREATE VIRTUAL TABLE records_text USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram')",
	);
	const insert = db.prepare("INSERT INTO records_text (rowid, text) VALUES (?, ?)");
	const rows = db.prepare("SELECT rid, line FROM records").all() as Array<{ rid: number; line: string }>;
	db.transaction(() => {
		for (const row of rows) {
			const text = indexRecord(JSON.parse(row.line) as object).text;
			if (text !== null) insert.run(row.rid, text);
		}
	})();
	const phrase = db.prepare(
		"SELECT DISTINCT r.session AS session FROM records_text JOIN records AS r ON r.rid = records_text.rowid " +
			"WHERE records_text MATCH ? ORDER BY r.session",
	);
	for (const text of TEXTS) {
		const figure = await timeText((t) => phrase.all(`"${t.replaceAll('"', '""')}"`).length, text);
		console.log(`version 2's phrase index ${JSON.stringify(text)}: ${figure}`);
	}
	db.exec("VACUUM");
	db.close();
	console.log(
		`files: schema 3 ${statSync(v3).size.toLocaleString("en-US")} bytes, version 2's index instead ${statSync(v2).size.toLocaleString("en-US")} bytes`,
	);
}
