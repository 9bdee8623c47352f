/**
 * The catalog index against the scan it stands for: over a HOME of real pi, Claude Code, Codex
 * and Gemini CLI sessions, `CatalogIndex.search` gives the hits `searchSessions` gives over the
 * same collection (read file by file, without the index), in the same order, and its session
 * rows say what `summarizeSessions` says. The scan is the independent route: it reads the files
 * through the stores and the reducer, the index reads only its database.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AgentsCollection, agentPlaces } from "../../src/catalog/agents.js";
import { agentSources, CatalogIndex } from "../../src/catalog/catalog-index/index.js";
import { compileQuery, type SearchHit, type SearchQuery, searchSessions } from "../../src/catalog/search.js";
import { summarizeSessions } from "../../src/catalog/summary.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { type AgentsHome, buildAgentsHome } from "./agents-home.js";

let home: AgentsHome;
let index: CatalogIndex;
const temps: string[] = [];

before(async () => {
	if (SQLITE_SKIP) return;
	const dir = mkdtempSync(join(tmpdir(), "session-tree-index-test-"));
	temps.push(dir);
	home = await buildAgentsHome(dir);
	index = await CatalogIndex.open({ env: home.env });
	await index.refresh(agentSources(home.env));
});
after(() => {
	index?.close();
	for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The scan's hits: every session file read through its store. */
async function scan(query: SearchQuery, options: { limit?: number } = {}): Promise<SearchHit[]> {
	const collection = new AgentsCollection(agentPlaces(home.env));
	return (await searchSessions(collection, compileQuery(query), { ...options, scan: true })).hits;
}

/** The index's hits without what only the index adds (key, agent). */
function indexed(query: SearchQuery, options: { limit?: number } = {}): SearchHit[] {
	return index.search(query, options).hits.map(({ key: _key, agent: _agent, ...hit }) => hit);
}

describe("CatalogIndex.search finds what searchSessions finds", { skip: SQLITE_SKIP }, () => {
	// [what, query, at least this many hits (so the comparison compares something)]
	const queries: Array<[string, SearchQuery, number]> = [
		["a word in several agents' sessions", { pattern: "the" }, 20],
		["ignore case, ASCII", { pattern: "TREE", ignoreCase: true }, 5],
		["a text only on a side branch", { pattern: "radix tree merges" }, 1],
		["a regular expression", { pattern: "tr(ie|ee)s?\\b", regex: true }, 3],
		["a regular expression ignoring case", { pattern: "^(how|what)", regex: true, ignoreCase: true }, 2],
		["two characters (no trigram)", { pattern: "ok" }, 3],
		["quotes and braces (no query syntax)", { pattern: '[{"title":"' }, 1],
		[
			"a long text (looked up by some of its trigrams)",
			{ pattern: "A radix tree merges chains of single children." },
			1,
		],
		["ignore case beyond ASCII (no trigram narrowing)", { pattern: "STUDIO’S", ignoreCase: true }, 1],
		["beyond ASCII, case kept (trigram)", { pattern: "app’s" }, 1],
		["text in a damaged session", { pattern: "Damaged but" }, 1],
		["nothing", { pattern: "no such text anywhere 1234" }, 0],
	];
	for (const [what, query, least] of queries) {
		test(what, async () => {
			const expected = await scan(query);
			assert.ok(expected.length >= least, `${expected.length} hits`);
			assert.deepEqual(indexed(query), expected);
			// Limits stop both at the same hit.
			assert.deepEqual(indexed(query, { limit: 3 }), await scan(query, { limit: 3 }));
		});
	}

	test("the side-branch text is a hit off the active branch; hits of every agent are found", async () => {
		const side = index.search({ pattern: "radix tree merges" }).hits;
		assert.equal(side.length, 1);
		assert.equal(side[0]?.entryId, home.pi.ids.radixAnswer);
		assert.equal(side[0]?.onActiveBranch, false);
		const agents = new Set(index.search({ pattern: "the" }).hits.map((hit) => hit.agent));
		assert.deepEqual([...agents].sort(), ["claude-code", "codex", "gemini", "pi"]);
	});
});

describe("CatalogIndex.sessions", { skip: SQLITE_SKIP }, () => {
	test("each session as summarizeSessions reads it, newest first, with its agent and key", async () => {
		const collection = new AgentsCollection(agentPlaces(home.env));
		const { sessions, skipped } = await summarizeSessions(collection);
		const listed = index.sessions();
		assert.equal(listed.total, sessions.length);
		assert.deepEqual(
			listed.sessions.map((s) => [s.location, s.id, s.cwd, s.name, s.firstMessage, s.entries, s.branches, s.bytes]),
			sessions.map((s) => [s.file, s.id, s.cwd, s.name, s.firstMessage, s.entries, s.branches, s.bytes]),
		);
		assert.deepEqual(
			listed.sessions.map((s) => [s.modified.getTime(), s.lastActivity.getTime(), s.created?.getTime()]),
			sessions.map((s) => [s.modified.getTime(), s.lastActivity.getTime(), s.created?.getTime()]),
		);
		assert.deepEqual(
			listed.sessions.map((s) => s.agent),
			sessions.map((s) => collection.agentOf(s.file)),
		);
		assert.deepEqual(
			skipped.map((s) => s.file),
			[home.pi.notSession],
		);
		const first = listed.sessions[0];
		assert.ok(first);
		assert.match(first.key, /^[0-9a-f]{16}$/);
		assert.equal(index.session(first.key)?.location, first.location);
		// Filters and paging.
		const pi = index.sessions({ agent: "pi" });
		assert.ok(pi.sessions.every((s) => s.agent === "pi" && s.writable));
		assert.ok(index.sessions({ agent: "codex" }).sessions.every((s) => !s.writable));
		const page = index.sessions({ offset: 1, limit: 2 });
		assert.equal(page.total, listed.total);
		assert.deepEqual(
			page.sessions.map((s) => s.key),
			listed.sessions.slice(1, 3).map((s) => s.key),
		);
		const proj = index.sessions({ cwd: "/home/me/proj" });
		assert.ok(proj.total > 0 && proj.sessions.every((s) => s.cwd === "/home/me/proj"));
		const projects = index.projects();
		assert.equal(
			projects.reduce((sum, p) => sum + p.sessions, 0),
			listed.total,
		);
	});

	test("the index file is 0600 in a 0700 directory under XDG_CACHE_HOME", () => {
		assert.equal(index.path, join(home.home, ".cache", "session-tree", "catalog.sqlite"));
		assert.equal(statSync(index.path).mode & 0o777, 0o600);
		assert.equal(statSync(join(index.path, "..")).mode & 0o777, 0o700);
	});
});
