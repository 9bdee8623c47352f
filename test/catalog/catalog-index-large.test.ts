/**
 * A large session in the catalog index: written in parts, the event loop turning between them
 * (a server building its first index answers meanwhile, src/catalog/catalog-index/refresh.ts),
 * with the same rows and hits as the scan of the file; and a build stopped midway (the process
 * killed) is read whole again by the next refresh, which ends with what an index built from
 * nothing holds.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CatalogIndex, directorySource } from "../../src/catalog/catalog-index/index.js";
import { UNFINISHED } from "../../src/catalog/catalog-index/tables.js";
import { compileQuery, type SearchQuery, searchSessions } from "../../src/catalog/search.js";
import { Session } from "../../src/session.js";
import { DirectoryCollection } from "../../src/storage/directory-collection.js";
import { removeTempDirs, tempDir } from "../cli/helpers.js";
import { SQLITE_SKIP, sqliteDriver } from "../support/sqlite.js";
import { assistant, user } from "./layout.js";

/** More entries than refresh.ts writes in one part (2,000), and a word in some of them. */
const MESSAGES = 7_000;
let dir: string;
let file: string;

before(async () => {
	dir = tempDir();
	const session = await Session.create({ dir, cwd: "/home/me/large", durability: "none" });
	for (let i = 0; i < MESSAGES; i++) {
		const at = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
		const word = i % 997 === 0 ? ` quokka${i}` : "";
		await session.appendMessage(
			i % 2 === 0 ? user(`question ${i}${word}`, at) : assistant(`answer ${i} about trees${word}`, at),
		);
	}
	file = session.file as string;
	await session.close();
});
after(removeTempDirs);

function indexPath(): string {
	return join(tempDir(), "catalog.sqlite");
}

const QUERIES: SearchQuery[] = [{ pattern: "quokka" }, { pattern: "answer 6999 about" }, { pattern: "question 0" }];

async function scanHits(query: SearchQuery) {
	return (await searchSessions(new DirectoryCollection(dir), compileQuery(query), { scan: true })).hits;
}

function hitsOf(index: CatalogIndex, query: SearchQuery) {
	return index.search(query).hits.map(({ key: _key, agent: _agent, ...hit }) => hit);
}

describe("a large session in the catalog index", { skip: SQLITE_SKIP }, () => {
	test("written in parts, the event loop turning between them; the same hits as the scan", async () => {
		const index = await CatalogIndex.open({ path: indexPath() });
		// Looked at while the refresh runs: only a refresh that lets the loop turn between its
		// parts shows the session written in part (its row says so), and more than once.
		const seen: number[] = [];
		const timer = setInterval(() => {
			const row = index.sessions().sessions[0];
			if (row) seen.push(row.bytes);
		}, 1);
		const result = await index.refresh([directorySource(dir)]);
		clearInterval(timer);
		assert.equal(result.added, 1);
		const unfinished = seen.filter((bytes) => bytes === UNFINISHED).length;
		assert.ok(unfinished >= 2, `the session was seen in part ${unfinished} times (${seen.length} looks)`);
		const row = index.sessions().sessions[0];
		assert.equal(row?.bytes, statSync(file).size, "the row is finished");
		assert.equal(row?.entries, MESSAGES);
		for (const query of QUERIES) {
			const hits = hitsOf(index, query);
			assert.ok(hits.length > 0, query.pattern);
			assert.deepEqual(hits, await scanHits(query), query.pattern);
		}
		// Unchanged: read no more.
		assert.equal((await index.refresh([directorySource(dir)])).unchanged, 1);
		index.close();
	});

	test("another process that rewrites the session while it is written in part: the first build stops, the index is whole", async () => {
		const path = indexPath();
		const first = await CatalogIndex.open({ path });
		// A second connection to the same file, as another process has (a CLI beside `serve`).
		const second = await CatalogIndex.open({ path });
		let other: Promise<unknown> | undefined;
		const timer = setInterval(() => {
			if (other === undefined && first.sessions().sessions[0]?.bytes === UNFINISHED)
				other = second.refresh([directorySource(dir)]);
		}, 1);
		await first.refresh([directorySource(dir)]);
		clearInterval(timer);
		assert.ok(other, "the second refresh started while the first wrote the session in part");
		await other;
		const freshPath = indexPath();
		const fresh = await CatalogIndex.open({ path: freshPath });
		await fresh.refresh([directorySource(dir)]);
		assert.deepEqual(first.sessions().sessions, fresh.sessions().sessions);
		for (const query of QUERIES) assert.deepEqual(hitsOf(first, query), hitsOf(fresh, query), query.pattern);
		for (const index of [first, second, fresh]) index.close();
		// No entry of the first build is left behind its dropped row.
		const rows = (file: string) => {
			const db = new (sqliteDriver())(file, { readonly: true });
			try {
				return db
					.prepare("SELECT (SELECT COUNT(*) FROM entries) AS entries, (SELECT COUNT(*) FROM entry_text) AS texts")
					.get();
			} finally {
				db.close();
			}
		};
		assert.deepEqual(rows(path), rows(freshPath));
	});

	test("a build killed midway is read whole again by the next refresh", async () => {
		const path = indexPath();
		// A child process builds the index; it is killed once its row says it is written in part.
		const child = spawn(
			process.execPath,
			[
				"--input-type=module",
				"-e",
				`const { CatalogIndex, directorySource } = await import(${JSON.stringify(
					new URL("../../src/catalog/catalog-index/index.js", import.meta.url).href,
				)});
				const index = await CatalogIndex.open({ path: ${JSON.stringify(path)} });
				await index.refresh([directorySource(${JSON.stringify(dir)})]);
				process.stdout.write("finished");`,
			],
			{ stdio: ["ignore", "pipe", "inherit"] },
		);
		let out = "";
		child.stdout.on("data", (chunk: Buffer) => {
			out += chunk.toString("utf8");
		});
		const exited = new Promise((resolve) => child.once("exit", resolve));
		const Database = sqliteDriver();
		let killed = false;
		for (let tries = 0; tries < 3_000 && !killed && out === ""; tries++) {
			await new Promise((resolve) => setTimeout(resolve, 2));
			try {
				const db = new Database(path, { readonly: true, fileMustExist: true });
				try {
					const row = db.prepare("SELECT listed_bytes FROM sessions").get() as { listed_bytes: number } | undefined;
					if (row?.listed_bytes === UNFINISHED) {
						child.kill("SIGKILL");
						killed = true;
					}
				} finally {
					db.close();
				}
			} catch {
				// Not made yet, or its schema not yet written.
			}
		}
		await exited;
		assert.ok(killed, `the child was killed while the session was written in part (it said ${JSON.stringify(out)})`);
		const index = await CatalogIndex.open({ path });
		const stopped = index.sessions().sessions[0];
		assert.equal(stopped?.bytes, UNFINISHED, "the killed build left the row unfinished");
		const result = await index.refresh([directorySource(dir)]);
		assert.deepEqual([result.changed, result.appended, result.unchanged], [1, 0, 0], "read whole again");
		const fresh = await CatalogIndex.open({ path: indexPath() });
		await fresh.refresh([directorySource(dir)]);
		const strip = (i: CatalogIndex) => i.sessions().sessions;
		assert.deepEqual(strip(index), strip(fresh));
		for (const query of QUERIES) assert.deepEqual(hitsOf(index, query), hitsOf(fresh, query), query.pattern);
		fresh.close();
		index.close();
	});
});
