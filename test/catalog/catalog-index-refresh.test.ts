/**
 * Keeping the catalog index up to date: what a refresh reads (nothing for an unchanged file;
 * only the new bytes of a pi file that grew; the whole of a rewritten one), what it drops, and
 * how a deleted, damaged or foreign-version index file is built again. After each change the
 * index is compared with the scan (`searchSessions` reading the files) or with an index built
 * from nothing: two independent routes to the same answer.
 */

import assert from "node:assert/strict";
import {
	appendFileSync,
	closeSync,
	copyFileSync,
	mkdtempSync,
	openSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AgentsCollection, agentPlaces, TranscriptDirectory } from "../../src/catalog/agents.js";
import { agentSources, CatalogIndex } from "../../src/catalog/catalog-index/index.js";
import { compileQuery, type SearchQuery, searchSessions } from "../../src/catalog/search.js";
import { Session } from "../../src/session.js";
import { DirectoryCollection } from "../../src/storage/directory-collection.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { type AgentsHome, buildAgentsHome } from "./agents-home.js";
import { assistant, user } from "./layout.js";

let home: AgentsHome;
const temps: string[] = [];
/** Size and mtime of every other agent's file, before anything ran. */
let foreign: Map<string, string>;

function fingerprint(file: string): string {
	const stats = statSync(file);
	return `${stats.size}/${stats.mtimeMs}/${readFileSync(file).toString("base64")}`;
}

before(async () => {
	const dir = mkdtempSync(join(tmpdir(), "session-tree-index-refresh-"));
	temps.push(dir);
	home = await buildAgentsHome(dir);
	foreign = new Map([...home.claude, home.codex, home.gemini].map((file) => [file, fingerprint(file)]));
});
after(() => {
	for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const QUERIES: SearchQuery[] = [
	{ pattern: "tries" },
	{ pattern: "radix tree merges" },
	{ pattern: "appended" },
	{ pattern: "B-?trees?", regex: true, ignoreCase: true },
];

async function scanHits(query: SearchQuery) {
	const collection = new AgentsCollection(agentPlaces(home.env));
	return (await searchSessions(collection, compileQuery(query), { scan: true })).hits;
}

function hitsOf(index: CatalogIndex, query: SearchQuery) {
	return index.search(query).hits.map(({ key: _key, agent: _agent, ...hit }) => hit);
}

/** What an index holds, for comparing two: every session and the hits of QUERIES. */
function contents(index: CatalogIndex) {
	return {
		sessions: index.sessions().sessions,
		hits: QUERIES.map((query) => index.search(query).hits),
	};
}

/** An index built from nothing at another path, for comparison. */
async function fresh(): Promise<CatalogIndex> {
	const path = join(mkdtempSync(join(tmpdir(), "session-tree-index-fresh-")), "catalog.sqlite");
	temps.push(join(path, ".."));
	const index = await CatalogIndex.open({ path });
	await index.refresh(agentSources(home.env));
	return index;
}

describe("CatalogIndex.refresh", { skip: SQLITE_SKIP }, () => {
	test("cold, then warm: the first refresh reads every session, the second none", async () => {
		const index = await CatalogIndex.open({ env: home.env });
		const progress: Array<[number, number]> = [];
		const cold = await index.refresh(agentSources(home.env), {
			onProgress: (done, total) => progress.push([done, total]),
		});
		// 7 pi files (one not a session), 2 Claude Code, 1 Codex, 1 Gemini CLI.
		assert.deepEqual([cold.sessions, cold.added, cold.unchanged, cold.changed, cold.appended], [11, 11, 0, 0, 0]);
		assert.deepEqual(
			cold.skipped.map((s) => s.file),
			[home.pi.notSession],
		);
		assert.deepEqual(progress.at(-1), [11, 11]);
		const warm = await index.refresh(agentSources(home.env));
		assert.deepEqual([warm.added, warm.unchanged, warm.changed, warm.appended, warm.removed], [0, 11, 0, 0, 0]);
		// A skipped file is still reported, not read again.
		assert.deepEqual(
			warm.skipped.map((s) => s.file),
			[home.pi.notSession],
		);
		index.close();
	});

	test("an append to a pi file is read from the last position, and gives what a whole read gives", async () => {
		const index = await CatalogIndex.open({ env: home.env });
		const session = await Session.open(home.pi.branched);
		await session.appendMessage(user("One more question, appended", "2025-03-05T10:00:00.000Z"));
		await session.appendMessage(assistant("An appended answer", "2025-03-05T10:01:00.000Z"));
		// A persisted leaf record: the leaf moves to the side branch.
		await session.branch(home.pi.ids.radixAnswer);
		await session.close();
		const refresh = await index.refresh(agentSources(home.env));
		assert.deepEqual([refresh.appended, refresh.changed, refresh.added, refresh.unchanged], [1, 0, 0, 10]);
		for (const query of QUERIES) assert.deepEqual(hitsOf(index, query), await scanHits(query), query.pattern);
		// Moved by the leaf record: the side branch is now the active one.
		assert.equal(index.search({ pattern: "radix tree merges" }).hits[0]?.onActiveBranch, true);
		const rebuilt = await fresh();
		assert.deepEqual(contents(index), contents(rebuilt));
		rebuilt.close();
		index.close();
	});

	test("only the new bytes are read: an earlier byte changed in place is not noticed until the file is rewritten", async () => {
		const index = await CatalogIndex.open({ env: home.env });
		const file = home.pi.branched;
		const text = readFileSync(file, "utf8");
		const at = Buffer.byteLength(text.slice(0, text.indexOf("How do tries work")));
		// Same length, in place (same inode): "tries" becomes "TRIES".
		const fd = openSync(file, "r+");
		writeSync(fd, "How do TRIES work", at);
		closeSync(fd);
		const session = await Session.open(file);
		await session.appendMessage(user("Appended after the change", "2025-03-06T10:00:00.000Z"));
		await session.close();
		const refresh = await index.refresh(agentSources(home.env));
		assert.equal(refresh.appended, 1);
		// A whole read would see TRIES; the index read only what came after its position.
		assert.equal(index.search({ pattern: "How do TRIES" }).hits.length, 0);
		assert.equal(index.search({ pattern: "How do tries" }).hits.length, 1);
		assert.equal((await scanHits({ pattern: "How do TRIES" })).length, 1);
		assert.equal(index.search({ pattern: "Appended after the change" }).hits.length, 1);
		// Rewritten (not a growth): read whole, and now the index sees TRIES.
		const lines = readFileSync(file, "utf8").split("\n");
		writeFileSync(file, `${lines.slice(0, -2).join("\n")}\n`);
		const rewritten = await index.refresh(agentSources(home.env));
		assert.deepEqual([rewritten.changed, rewritten.appended], [1, 0]);
		assert.equal(index.search({ pattern: "How do TRIES" }).hits.length, 1);
		assert.equal(index.search({ pattern: "Appended after the change" }).hits.length, 0);
		for (const query of QUERIES) assert.deepEqual(hitsOf(index, query), await scanHits(query), query.pattern);
		index.close();
	});

	test("a partial last line is left for the next refresh", async () => {
		const index = await CatalogIndex.open({ env: home.env });
		const file = home.pi.named;
		const lines = readFileSync(file, "utf8").trimEnd().split("\n");
		const last = JSON.parse(lines.at(-1) as string) as { id: string };
		const entry = JSON.stringify({
			type: "message",
			id: "partial1",
			parentId: last.id,
			timestamp: "2025-03-07T10:00:00.000Z",
			message: { role: "user", content: "half written line", timestamp: Date.parse("2025-03-07T10:00:00.000Z") },
		});
		appendFileSync(file, entry.slice(0, 40));
		const half = await index.refresh(agentSources(home.env));
		assert.equal(half.appended, 1);
		assert.equal(index.search({ pattern: "half written" }).hits.length, 0);
		appendFileSync(file, `${entry.slice(40)}\n`);
		const whole = await index.refresh(agentSources(home.env));
		assert.equal(whole.appended, 1);
		assert.equal(index.search({ pattern: "half written" }).hits.length, 1);
		const rebuilt = await fresh();
		assert.deepEqual(contents(index), contents(rebuilt));
		rebuilt.close();
		index.close();
	});

	test("a deleted session drops out", async () => {
		const index = await CatalogIndex.open({ env: home.env });
		assert.equal(index.search({ pattern: "Other project answer" }).hits.length, 2);
		rmSync(home.pi.fork);
		const refresh = await index.refresh(agentSources(home.env));
		assert.equal(refresh.removed, 1);
		assert.equal(index.search({ pattern: "Other project answer" }).hits.length, 1);
		assert.equal(
			index.sessions().sessions.find((s) => s.location === home.pi.fork),
			undefined,
		);
		index.close();
	});

	test("a directory searched once: its rows go when its files are gone, at any source's refresh", async () => {
		const index = await CatalogIndex.open({ env: home.env });
		const dir = mkdtempSync(join(tmpdir(), "session-tree-index-dir-"));
		temps.push(dir);
		copyFileSync(home.pi.named, join(dir, "copy.jsonl"));
		const collection = new TranscriptDirectory(new DirectoryCollection(dir));
		const source = { name: dir, collection, agentOf: () => null, writable: () => false };
		assert.equal((await index.refresh([source])).added, 1);
		assert.equal(index.sessions({ source: dir }).total, 1);
		rmSync(dir, { recursive: true });
		const refresh = await index.refresh(agentSources(home.env));
		assert.equal(refresh.removed, 1);
		assert.equal(index.sessions({ source: dir }).total, 0);
		index.close();
	});

	test("a deleted, damaged or other-version index file is built again", async () => {
		const first = await CatalogIndex.open({ env: home.env });
		const expected = contents(first);
		const path = first.path;
		first.close();
		const damages: Array<[string, () => void]> = [
			["deleted", () => rmSync(path)],
			["not a database", () => writeFileSync(path, "this is not a database file, only text\n".repeat(200))],
			[
				"damaged pages past the header",
				() => {
					const bytes = readFileSync(path);
					// Page 1 (header and schema) stays; every page after it is overwritten.
					bytes.fill(0xab, 4096);
					writeFileSync(path, bytes);
				},
			],
			[
				"another schema version",
				() => {
					const bytes = readFileSync(path);
					bytes.writeUInt32BE(99, 60); // the header's user_version
					writeFileSync(path, bytes);
				},
			],
		];
		for (const [what, damage] of damages) {
			for (const suffix of ["-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
			damage();
			const index = await CatalogIndex.open({ env: home.env });
			const refresh = await index.refresh(agentSources(home.env));
			assert.equal(refresh.added, 10, `${what}: every session read again`);
			assert.deepEqual(contents(index), expected, what);
			assert.equal(statSync(path).mode & 0o777, 0o600, what);
			index.close();
		}
	});

	test("no other agent's file was written", () => {
		for (const [file, before] of foreign) assert.equal(fingerprint(file), before, file);
	});
});
