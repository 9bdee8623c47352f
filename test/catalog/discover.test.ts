/** Choosing sessions: the directory collection (pi's layout, explicit paths) and collections by location. */

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { selectCollection } from "../../src/catalog/discover.js";
import { listSessions } from "../../src/catalog/read.js";
import { DirectoryCollection } from "../../src/storage/directory-collection.js";
import { FileSessionStore } from "../../src/storage/file-store.js";
import { collectionAt } from "../../src/storage/locations.js";
import { MemoryCollection } from "../../src/storage/memory-store.js";
import { defaultSessionDir } from "../../src/storage/paths.js";

const root = mkdtempSync(join(tmpdir(), "session-tree-discover-test-"));
after(() => rmSync(root, { recursive: true, force: true }));

function touch(file: string, text = "x\n"): string {
	mkdirSync(join(file, ".."), { recursive: true });
	writeFileSync(file, text);
	return file;
}

async function locations(collection: DirectoryCollection | MemoryCollection): Promise<string[]> {
	return (await listSessions(collection)).map((listing) => listing.location);
}

describe("DirectoryCollection", () => {
	test("a directory: its *.jsonl files at any depth, sorted, with time and size; a link loop ends", async () => {
		const dir = join(root, "tree");
		const top = touch(join(dir, "b.jsonl"), "12345\n");
		const inner = touch(join(dir, "--proj--", "a.jsonl"));
		touch(join(dir, "notes.txt"));
		const deeper = touch(join(dir, "--proj--", "deeper", "c.jsonl"));
		// Four levels down, as Codex's sessions/YYYY/MM/DD/.
		const dated = touch(join(dir, "2025", "11", "18", "rollout.jsonl"));
		// A link back up: followed once, never into the directory it is inside.
		symlinkSync(dir, join(dir, "--proj--", "deeper", "loop"));
		mkdirSync(join(dir, "dir.jsonl"));
		const linked = join(dir, "linked.jsonl");
		symlinkSync(top, linked);
		symlinkSync(join(dir, "--proj--"), join(dir, "link-to-proj"));
		utimesSync(top, new Date("2025-01-02T00:00:00.000Z"), new Date("2025-01-02T00:00:00.000Z"));
		const collection = new DirectoryCollection(dir);
		assert.equal(collection.location, dir);
		assert.deepEqual(collection.capabilities, { listing: true, search: false, remove: true });
		const listings = await listSessions(collection);
		assert.deepEqual(
			listings.map((listing) => listing.location),
			[
				inner,
				deeper,
				dated,
				top,
				join(dir, "link-to-proj", "a.jsonl"),
				join(dir, "link-to-proj", "deeper", "c.jsonl"),
				linked,
			].sort(),
		);
		const b = listings.find((listing) => listing.location === top);
		assert.equal(b?.bytes, 6);
		assert.equal(b?.modified?.toISOString(), "2025-01-02T00:00:00.000Z");
		assert.ok(collection.open(top) instanceof FileSessionStore);
	});

	test("explicit paths: directories and files, each file once; missing paths hold nothing", async () => {
		const dir = join(root, "explicit");
		const a = touch(join(dir, "a.jsonl"));
		const other = touch(join(root, "elsewhere", "x.jsonl"));
		const collection = new DirectoryCollection([dir, other, a, join(root, "missing")]);
		assert.deepEqual(await locations(collection), [a, other].sort());
		assert.deepEqual(await locations(new DirectoryCollection(join(root, "missing"))), []);
	});

	test("pi's layout: one project, or every project under the sessions root", async () => {
		const agentDir = join(root, "agent");
		const mine = touch(join(defaultSessionDir("/home/me/proj", agentDir), "s.jsonl"));
		const theirs = touch(join(defaultSessionDir("/home/me/other", agentDir), "t.jsonl"));
		assert.deepEqual(await locations(DirectoryCollection.project("/home/me/proj", agentDir)), [mine]);
		assert.deepEqual(await locations(DirectoryCollection.allProjects(agentDir)), [theirs, mine].sort());
		const env = { PI_CODING_AGENT_DIR: agentDir };
		const project = selectCollection({ cwd: "/home/me/proj", env });
		assert.equal(project.kind, "project");
		assert.equal(project.root, defaultSessionDir("/home/me/proj", agentDir));
		assert.deepEqual(await locations(project.collection as DirectoryCollection), [mine]);
		const all = selectCollection({ all: true, env });
		assert.equal(all.kind, "all");
		assert.equal((await listSessions(all.collection)).length, 2);
		// A project without sessions yet is no error: it holds none.
		assert.deepEqual(await listSessions(selectCollection({ cwd: "/nowhere", env }).collection), []);
	});

	test("a directory the user names must exist and be a directory", () => {
		assert.throws(() => DirectoryCollection.directory(join(root, "nope")), /nope: no such directory/);
		const file = touch(join(root, "file.jsonl"));
		assert.throws(() => DirectoryCollection.directory(file), /not a directory/);
		assert.throws(() => selectCollection({ dir: join(root, "nope") }), { code: "FILE_NOT_FOUND" });
	});
});

describe("collectionAt", () => {
	test("a path or a file: URL is a directory, memory: the memory sessions of this process", () => {
		const dir = join(root, "at");
		mkdirSync(dir);
		assert.equal(collectionAt(dir).location, dir);
		assert.equal(collectionAt(pathToFileURL(dir).href).location, dir);
		assert.ok(collectionAt("memory:") instanceof MemoryCollection);
		assert.equal(selectCollection({ dir: "memory:" }).root, "memory:");
		assert.throws(() => collectionAt("memory:one"), { code: "INVALID_ARGUMENT" });
		assert.throws(() => collectionAt("nosuch:x.db"), /no session collection for nosuch: locations/);
		assert.equal(collectionAt("sqlite:x.db").capabilities.search, true, "a database is a collection");
	});
});
