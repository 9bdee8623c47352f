/**
 * `session-tree/claude-agent-sdk`: `TreeSessionStore` against the contract the Claude Agent SDK
 * documents for a `sessionStore` (append then load gives deep-equal entries in append order,
 * `null` for a key never written, subpaths apart, listing, deletion with its cascade), run on
 * the SDK's own `InMemorySessionStore` too, so the tests say what the SDK's reference does; then
 * what the SDK asks stores to do beyond its reference (idempotent appends on `uuid`), a rewind
 * that must become a branch while `load` keeps the append order, on a directory of JSONL files,
 * SQLite, memory and PostgreSQL (with SESSION_TREE_PG_URL); the SDK's own functions
 * (`importSessionToStore`, `getSessionMessages`, `listSessions`, `renameSession`,
 * `listSubagents`, `getSubagentMessages`, `forkSession`, `deleteSession`, which need no Claude
 * binary) driving the store; keys that try to leave their place; writers racing; the CLI views
 * and the example.
 */

import assert from "node:assert/strict";
import {
	copyFileSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { after, before, describe, test } from "node:test";
import {
	deleteSession,
	forkSession,
	getSessionMessages,
	getSubagentMessages,
	InMemorySessionStore,
	importSessionToStore,
	listSessions,
	listSubagents,
	renameSession,
	type SessionStore as SdkSessionStore,
	type SessionKey,
	type SessionStoreEntry,
} from "@anthropic-ai/claude-agent-sdk";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { TreeSessionStore } from "../../src/adapters/claude-agent-sdk.js";
import { escapeComponent, unescapeComponent } from "../../src/adapters/claude-agent-sdk-names.js";
import { isSessionTreeError } from "../../src/core/errors.js";
import type { SessionEntry } from "../../src/core/types.js";
import { importClaudeCode } from "../../src/import/claude-code.js";
import { Session } from "../../src/session.js";
import { registerStoreScheme } from "../../src/storage/locations.js";
import { MemoryCollection, MemorySessionStore } from "../../src/storage/memory-store.js";
import { closeSqliteDatabases } from "../../src/storage/sql/sqlite-schema.js";
import type { SessionCollection } from "../../src/storage/store.js";
import { cli, REPO } from "../cli/helpers.js";
import { runExample } from "../support/examples.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

const dir = mkdtempSync(join(tmpdir(), "session-tree-claude-agent-sdk-"));
let dirs = 0;
const stores: Array<{ close(): Promise<void> }> = [];

after(async () => {
	for (const store of stores) await store.close();
	closeSqliteDatabases();
	rmSync(dir, { recursive: true, force: true });
});

function newDir(): string {
	return join(dir, `d${++dirs}`);
}

/** The PostgreSQL server of SESSION_TREE_PG_URL, or why its tests skip. */
let pg: Awaited<ReturnType<typeof postgresServer>> = { skip: "not checked yet" };
before(async () => {
	pg = await postgresServer();
});
let pgSchemas = 0;

/** A fresh schema's location on the PostgreSQL server (dropped after the test). */
function newSchema(): string {
	if ("skip" in pg) throw new Error(pg.skip);
	return testSchema(pg.url, `claude_agent_sdk_${++pgSchemas}`).url;
}

/** Why the PostgreSQL tests skip, or undefined when they run. */
function pgSkip(): string | undefined {
	return "skip" in pg ? pg.skip : undefined;
}

/** A `sqlite:` location in a new directory (a database's directory must exist). */
function newDatabase(): string {
	const place = newDir();
	mkdirSync(place, { recursive: true });
	return `sqlite:${join(place, "transcripts.db")}`;
}

/** A store that is closed when the file's tests are done. */
function treeStore(location: string, options?: ConstructorParameters<typeof TreeSessionStore>[1]): TreeSessionStore {
	const store = new TreeSessionStore(location, options);
	stores.push(store);
	return store;
}

function json(value: unknown): unknown {
	return JSON.parse(JSON.stringify(value));
}

// ---- transcript lines shaped as Claude Code writes them ----------------------------------------

const PROJECT = "-home-me-proj";
const SESSION = "5f0c3a52-8d4e-4d6b-9a51-0c2b7e9d1a11";
const T0 = Date.parse("2026-03-02T09:00:00.000Z");
let clock = 0;

function base(type: string, uuid: string, parentUuid: string | null, sessionId = SESSION): SessionStoreEntry {
	return {
		parentUuid,
		isSidechain: false,
		userType: "external",
		cwd: "/home/me/proj",
		sessionId,
		version: "2.1.0",
		gitBranch: "main",
		type,
		uuid,
		timestamp: new Date(T0 + ++clock * 1000).toISOString(),
	};
}

function userLine(uuid: string, parentUuid: string | null, text: string): SessionStoreEntry {
	return { ...base("user", uuid, parentUuid), message: { role: "user", content: text } };
}

function assistantLine(uuid: string, parentUuid: string, text: string, extra: object[] = []): SessionStoreEntry {
	return {
		...base("assistant", uuid, parentUuid),
		requestId: `req_${uuid}`,
		message: {
			id: `msg_${uuid}`,
			type: "message",
			role: "assistant",
			model: "claude-sonnet-4-5-20250929",
			content: [{ type: "text", text }, ...extra],
			stop_reason: extra.length > 0 ? "tool_use" : "end_turn",
			stop_sequence: null,
			usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 100, output_tokens: 20 },
		},
	};
}

function toolResultLine(uuid: string, parentUuid: string, toolUseId: string, text: string): SessionStoreEntry {
	return {
		...base("user", uuid, parentUuid),
		message: { role: "user", content: [{ tool_use_id: toolUseId, type: "tool_result", content: text }] },
		toolUseResult: { stdout: text, stderr: "", interrupted: false },
	};
}

function snapshotLine(messageId: string): SessionStoreEntry {
	return {
		type: "file-history-snapshot",
		messageId,
		snapshot: { messageId, trackedFileBackups: {}, timestamp: new Date(T0 + ++clock * 1000).toISOString() },
		isSnapshotUpdate: false,
	};
}

function progressLine(uuid: string, parentUuid: string, toolUseId: string): SessionStoreEntry {
	return {
		...base("progress", uuid, parentUuid),
		data: { type: "hook_progress", hookEvent: "PostToolUse", hookName: "PostToolUse:Bash", command: "true" },
		parentToolUseID: toolUseId,
		toolUseID: toolUseId,
	};
}

/** Three batches as the SDK mirrors them (a turn each): a question, a tool call, then a rewind of the second question. */
function rewindTranscript(): { turn1: SessionStoreEntry[]; turn2: SessionStoreEntry[]; rewind: SessionStoreEntry[] } {
	const turn1 = [
		snapshotLine("u1"),
		userLine("u1", null, "How do I pin Node 20 in CI?"),
		assistantLine("a1", "u1", "Set node-version: 20 in actions/setup-node."),
	];
	const turn2 = [
		snapshotLine("u2"),
		userLine("u2", "a1", "And which version runs locally?"),
		assistantLine("a2", "u2", "Let me check.", [
			{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "node --version" } },
		]),
		progressLine("p2", "a2", "toolu_01"),
		toolResultLine("r2", "a2", "toolu_01", "v18.19.0"),
		assistantLine("a2b", "r2", "Node 18 runs locally."),
	];
	// The user rewinds to the first answer and asks something else: parentUuid is a1 again.
	const rewind = [
		snapshotLine("u3"),
		userLine("u3", "a1", "And on GitLab CI?"),
		assistantLine("a3", "u3", "Use image: node:20 in .gitlab-ci.yml."),
	];
	return { turn1, turn2, rewind };
}

// ---- the contract the SDK documents, on the SDK's reference and on ours -------------------------

type Factory = () => Promise<SdkSessionStore> | SdkSessionStore;

const KEY: SessionKey = { projectKey: "proj", sessionId: "sess" };
const E = (type: string, extra: Record<string, unknown> = {}): SessionStoreEntry => ({ type, ...extra });

/**
 * The SessionStore contract as the SDK documents it (its `SessionStore` type and its session
 * storage guide), one test each; `skip` says why a backend cannot run now.
 */
function contract(label: string, make: Factory, skip: () => string | undefined = () => undefined): void {
	describe(label, () => {
		const it = (name: string, body: (store: SdkSessionStore) => Promise<void>) =>
			test(name, async (t) => {
				const why = skip();
				if (why) return t.skip(why);
				await body(await make());
			});

		it("append then load gives deep-equal entries in the same order", async (store) => {
			const entries = [E("a", { n: 1, nested: { x: [1, 2], y: null, s: "é✓" } }), E("b", { n: 2, flag: true })];
			await store.append(KEY, entries);
			assert.deepEqual(await store.load(KEY), entries);
		});

		it("load of a key never written is null (main and subpath)", async (store) => {
			assert.equal(await store.load(KEY), null);
			assert.equal(await store.load({ ...KEY, subpath: "subagents/agent-a" }), null);
		});

		it("several appends keep the call order", async (store) => {
			await store.append(KEY, [E("a")]);
			await store.append(KEY, [E("b"), E("c")]);
			await store.append(KEY, [E("d")]);
			assert.deepEqual(await store.load(KEY), [E("a"), E("b"), E("c"), E("d")]);
		});

		it("append([]) writes nothing", async (store) => {
			await store.append(KEY, []);
			// The SDK's reference stores an empty list here; the SDK's conformance suite (its
			// repository's examples/session-stores/shared/conformance.ts) asks for null, as ours gives.
			assert.deepEqual(await store.load(KEY), store instanceof InMemorySessionStore ? [] : null);
			await store.append(KEY, [E("a")]);
			await store.append(KEY, []);
			assert.deepEqual(await store.load(KEY), [E("a")]);
		});

		it("subpaths are stored apart from the main transcript and from each other", async (store) => {
			await store.append(KEY, [E("main")]);
			await store.append({ ...KEY, subpath: "subagents/agent-x" }, [E("x")]);
			await store.append({ ...KEY, subpath: "subagents/agent-y" }, [E("y")]);
			assert.deepEqual(await store.load(KEY), [E("main")]);
			assert.deepEqual(await store.load({ ...KEY, subpath: "subagents/agent-x" }), [E("x")]);
			assert.deepEqual(await store.load({ ...KEY, subpath: "subagents/agent-y" }), [E("y")]);
		});

		it("project keys are apart", async (store) => {
			await store.append({ projectKey: "A", sessionId: "s" }, [E("a")]);
			await store.append({ projectKey: "B", sessionId: "s" }, [E("b")]);
			assert.deepEqual(await store.load({ projectKey: "A", sessionId: "s" }), [E("a")]);
			assert.deepEqual(await store.load({ projectKey: "B", sessionId: "s" }), [E("b")]);
		});

		it("listSessions gives the project's main transcripts with integer epoch-millisecond mtimes", async (store) => {
			assert.ok(store.listSessions);
			const before = Date.now();
			await store.append({ projectKey: "P", sessionId: "s1" }, [E("a")]);
			await store.append({ projectKey: "P", sessionId: "s2" }, [E("b")]);
			await store.append({ projectKey: "P", sessionId: "s3", subpath: "subagents/agent-z" }, [E("sub")]);
			await store.append({ projectKey: "Q", sessionId: "s4" }, [E("c")]);
			const listed = await store.listSessions("P");
			assert.deepEqual(listed.map((s) => s.sessionId).sort(), ["s1", "s2"]);
			for (const { mtime } of listed) {
				assert.ok(Number.isInteger(mtime) && mtime > 1e12, `mtime ${mtime}`);
				assert.ok(mtime >= before - 2000 && mtime <= Date.now() + 2000, `mtime ${mtime} is a storage time`);
			}
			assert.deepEqual(await store.listSessions("never-seen"), []);
		});

		it("delete of the main transcript: load gives null, its subpaths go too, others stay", async (store) => {
			assert.ok(store.delete && store.listSubkeys);
			await store.append(KEY, [E("main")]);
			await store.append({ ...KEY, subpath: "subagents/agent-a" }, [E("sa")]);
			await store.append({ ...KEY, subpath: "subagents/agent-b" }, [E("sb")]);
			await store.append({ projectKey: "proj", sessionId: "other" }, [E("o")]);
			await store.append({ projectKey: "proj2", sessionId: "sess" }, [E("p2")]);
			await store.delete(KEY);
			assert.equal(await store.load(KEY), null);
			assert.equal(await store.load({ ...KEY, subpath: "subagents/agent-a" }), null);
			assert.equal(await store.load({ ...KEY, subpath: "subagents/agent-b" }), null);
			assert.deepEqual(await store.listSubkeys(KEY), []);
			assert.deepEqual(await store.load({ projectKey: "proj", sessionId: "other" }), [E("o")]);
			assert.deepEqual(await store.load({ projectKey: "proj2", sessionId: "sess" }), [E("p2")]);
			await store.delete({ projectKey: "x", sessionId: "never" });
		});

		it("delete of a subpath removes that transcript only", async (store) => {
			assert.ok(store.delete);
			await store.append(KEY, [E("main")]);
			await store.append({ ...KEY, subpath: "subagents/agent-a" }, [E("sa")]);
			await store.append({ ...KEY, subpath: "subagents/agent-b" }, [E("sb")]);
			await store.delete({ ...KEY, subpath: "subagents/agent-a" });
			assert.deepEqual(await store.load(KEY), [E("main")]);
			assert.equal(await store.load({ ...KEY, subpath: "subagents/agent-a" }), null);
			assert.deepEqual(await store.load({ ...KEY, subpath: "subagents/agent-b" }), [E("sb")]);
		});

		it("listSubkeys gives the session's subpaths only", async (store) => {
			assert.ok(store.listSubkeys);
			await store.append(KEY, [E("main")]);
			assert.deepEqual(await store.listSubkeys(KEY), []);
			await store.append({ ...KEY, subpath: "subagents/agent-a" }, [E("sa")]);
			await store.append({ ...KEY, subpath: "subagents/workflows/run-1/agent-b" }, [E("sb")]);
			await store.append({ projectKey: "proj", sessionId: "other", subpath: "subagents/agent-c" }, [E("sc")]);
			assert.deepEqual((await store.listSubkeys(KEY)).sort(), [
				"subagents/agent-a",
				"subagents/workflows/run-1/agent-b",
			]);
			assert.deepEqual(await store.listSubkeys({ projectKey: "x", sessionId: "never" }), []);
		});

		it("what load returns is a copy: changing it, or the appended objects, changes nothing stored", async (store) => {
			const entry = E("a", { list: [1] });
			await store.append(KEY, [entry]);
			(entry.list as number[]).push(2);
			const loaded = (await store.load(KEY)) ?? [];
			if (store instanceof InMemorySessionStore) return; // the reference keeps the caller's objects
			assert.deepEqual(loaded, [E("a", { list: [1] })]);
			((loaded[0] as SessionStoreEntry).list as number[]).push(3);
			assert.deepEqual(await store.load(KEY), [E("a", { list: [1] })]);
		});
	});
}

contract("the SDK's InMemorySessionStore (the reference)", () => new InMemorySessionStore());
contract("TreeSessionStore on a directory of JSONL files", () => treeStore(newDir()));
contract(
	"TreeSessionStore on SQLite",
	() => treeStore(newDatabase()),
	() => SQLITE_SKIP,
);
let memorySpaces = 0;
contract("TreeSessionStore on memory:NAME", () => treeStore(`memory:claude-contract-${++memorySpaces}`));
contract("TreeSessionStore on PostgreSQL", () => treeStore(newSchema()), pgSkip);

// ---- idempotent appends, and the tree ----------------------------------------------------------

describe("appends are idempotent on uuid", () => {
	test("a stored uuid is skipped (across batches, in a batch, after a restart); lines without uuid are always stored", async () => {
		const location = newDir();
		const store = treeStore(location);
		const { turn1, turn2 } = rewindTranscript();
		await store.append(KEY, turn1);
		await store.append(KEY, [...turn1.slice(1), ...turn2.slice(1, 3)]); // a retry that overlaps
		await store.append(KEY, [turn2[3] as SessionStoreEntry, turn2[3] as SessionStoreEntry]); // the same uuid twice in one batch
		const noUuid = E("custom-title", { customTitle: "Node in CI", sessionId: "sess" });
		await store.append(KEY, [noUuid]);
		await store.append(KEY, [noUuid]);
		const expected = [...turn1, ...turn2.slice(1, 4), noUuid, noUuid];
		assert.deepEqual(await store.load(KEY), expected);

		// Another store (nothing cached) finds the stored uuids in the session.
		const fresh = treeStore(location, { cacheSize: 0 });
		await fresh.append(KEY, [...turn1, ...turn2.slice(1)]);
		const grown = [...expected, turn1[0] as SessionStoreEntry, ...turn2.slice(4)];
		assert.deepEqual(await fresh.load(KEY), grown);
		assert.deepEqual(await store.load(KEY), grown, "the first store takes in what the second wrote");
		const session = await Session.open(store.sessionLocation(KEY));
		assert.equal(session.entryCount, grown.length);
		await session.close();
	});
});

/** The uuids of the lines an entry's path holds, root to leaf (entries without a line are left out). */
function uuidsOn(path: readonly SessionEntry[]): string[] {
	const out: string[] = [];
	for (const entry of path) {
		const source = (entry as { source?: { entry?: { uuid?: unknown } } }).source;
		if (typeof source?.entry?.uuid === "string") out.push(source.entry.uuid);
	}
	return out;
}

/**
 * The rewind scenario on a place: the SDK appends three turns (and retries the second), the
 * third below the first answer. `load` keeps the append order; the session holds both branches.
 */
async function rewindScenario(
	location: string,
): Promise<{ store: TreeSessionStore; key: SessionKey; session: string }> {
	const store = treeStore(location);
	const key: SessionKey = { projectKey: PROJECT, sessionId: SESSION };
	const { turn1, turn2, rewind } = rewindTranscript();
	await store.append(key, turn1);
	await store.append(key, turn2);
	await store.append(key, turn2.slice(1)); // the SDK retries a batch whose acknowledgement was lost
	await store.append(key, rewind);
	const appended = [...turn1, ...turn2, ...rewind];
	assert.deepEqual(await store.load(key), appended);
	assert.deepEqual(await treeStore(location, { cacheSize: 0 }).load(key), appended, "read back cold");

	const session = await Session.open(store.sessionLocation(key));
	try {
		const leaves = session.listBranches();
		assert.equal(leaves.length, 2, "two leaves: the old second question and the rewound one");
		assert.deepEqual(uuidsOn(session.getBranch()), ["u1", "a1", "u3", "a3"], "the leaf is the rewound path");
		const other = leaves.find((id) => id !== session.getLeafId()) as string;
		assert.deepEqual(uuidsOn(session.getBranch(other)), ["u1", "a1", "u2", "a2", "p2", "r2", "a2b"]);
		// Both second questions hang below the first answer (the snapshot lines stay on the path, not beside it).
		const a1 = session.getEntries().find((entry) => uuidsOn([entry])[0] === "a1") as SessionEntry;
		const below = session.getChildren(a1.id);
		assert.deepEqual(
			below.map((entry) => entry.type),
			["custom", "custom"],
			"each turn starts with its file-history snapshot",
		);
		assert.deepEqual(
			below.map((entry) => uuidsOn(session.getChildren(entry.id))),
			[["u2"], ["u3"]],
		);
		const context = session.buildSessionContext();
		assert.deepEqual(
			context.messages.map((message) => [message.role, textOf(message)]),
			[
				["user", "How do I pin Node 20 in CI?"],
				["assistant", "Set node-version: 20 in actions/setup-node."],
				["user", "And on GitLab CI?"],
				["assistant", "Use image: node:20 in .gitlab-ci.yml."],
			],
		);
		assert.deepEqual(context.model, { provider: "anthropic", modelId: "claude-sonnet-4-5-20250929" });
		// The other branch's tool call and result are pi's toolCall and toolResult.
		const path = session.buildSessionContext(other).messages;
		assert.deepEqual(
			path.map((message) => message.role),
			["user", "assistant", "user", "assistant", "toolResult", "assistant"],
		);
		assert.equal((path[4] as { toolName?: string }).toolName, "Bash");
		assert.equal(session.getHeader().cwd, "/home/me/proj");
		assert.deepEqual(session.getHeader().claudeAgentSdk, { projectKey: PROJECT, sessionId: SESSION });
	} finally {
		await session.close();
	}
	return { store, key, session: store.sessionLocation(key) };
}

function textOf(message: unknown): string {
	const content = (message as { content?: unknown }).content;
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((block) => block?.type === "text")
		.map((block) => block.text)
		.join("");
}

/** `tree` shows both branches, `leaves` two, `ctx` the rewound path. */
async function checkCli(location: string): Promise<void> {
	const tree = await cli(["tree", location]);
	assert.equal(tree.code, 0, tree.stderr);
	for (const text of [
		"user: And which version runs locally?",
		"user: And on GitLab CI?",
		"toolResult: Bash: v18.19.0",
	]) {
		assert.ok(tree.stdout.includes(text), `tree shows ${text}:\n${tree.stdout}`);
	}
	const leaves = await cli(["leaves", location, "--json"]);
	assert.equal(leaves.code, 0, leaves.stderr);
	assert.equal((JSON.parse(leaves.stdout) as string[]).length, 2);
	const ctx = await cli(["ctx", location, "--json"]);
	assert.equal(ctx.code, 0, ctx.stderr);
	const context = JSON.parse(ctx.stdout) as { messages: Array<{ role: string }> };
	assert.deepEqual(
		context.messages.map((message) => [message.role, textOf(message)]),
		[
			["user", "How do I pin Node 20 in CI?"],
			["assistant", "Set node-version: 20 in actions/setup-node."],
			["user", "And on GitLab CI?"],
			["assistant", "Use image: node:20 in .gitlab-ci.yml."],
		],
	);
	const md = await cli(["md", location]);
	assert.equal(md.code, 0, md.stderr);
	const html = await cli(["html", location, "-o", "-"]);
	assert.equal(html.code, 0, html.stderr);
	assert.match(html.stdout, /<html/i);
}

describe("a rewind is a branch, and load keeps the append order", () => {
	test("a directory of JSONL files: DIR/PROJECT/SESSION.jsonl, pi builds the same context", async () => {
		const location = newDir();
		const { session } = await rewindScenario(location);
		assert.equal(session, join(location, PROJECT, `${SESSION}.jsonl`));
		assert.equal(statSync(session).mode & 0o777, 0o600);
		await checkCli(session);
		const copy = join(dir, `pi-${SESSION}.jsonl`);
		copyFileSync(session, copy);
		const opened = await Session.open(session);
		assert.deepEqual(json(SessionManager.open(copy, dir).buildSessionContext()), json(opened.buildSessionContext()));
		await opened.close();
	});

	test("SQLite: sqlite:PATH#claude.PROJECT.SESSION", { skip: SQLITE_SKIP }, async () => {
		const location = newDatabase();
		const { session } = await rewindScenario(location);
		assert.equal(session, `${location}#claude.${PROJECT}.${SESSION}`);
		await checkCli(session);
	});

	test("memory:NAME", async () => {
		const { session } = await rewindScenario("memory:claude-rewind");
		assert.equal(session, `memory:claude-rewind/claude.${PROJECT}.${SESSION}`);
	});

	describe("PostgreSQL", () => {
		test("postgres://…#claude.PROJECT.SESSION", async (t) => {
			const why = pgSkip();
			if (why) return t.skip(why);
			const location = newSchema();
			const { store, key, session } = await rewindScenario(location);
			assert.equal(session, `${location}#claude.${PROJECT}.${SESSION}`);
			await checkCli(session);
			assert.deepEqual(
				(await store.listSessions(PROJECT)).map((s) => s.sessionId),
				[SESSION],
			);
			await store.delete(key);
			assert.deepEqual(await store.listSessions(PROJECT), []);
		});
	});
});

describe("real Claude Code transcripts", () => {
	const fixtures = join(REPO, "test", "fixtures", "import", "claude-code");
	for (const name of readdirSync(fixtures).sort()) {
		test(`${name}: load gives the lines back; the tree has the importer's leaves, batched or line by line`, async () => {
			const text = readFileSync(join(fixtures, name), "utf8");
			const lines = text
				.split("\n")
				.filter((line) => line.trim() !== "")
				.map((line) => JSON.parse(line) as SessionStoreEntry);
			const store = treeStore(newDir());
			const key = { projectKey: PROJECT, sessionId: name };
			for (let at = 0; at < lines.length; at += 5) await store.append(key, lines.slice(at, at + 5));
			await store.append(
				key,
				lines.filter((line) => typeof line.uuid === "string"),
			); // a replay of every line with a uuid
			assert.deepEqual(await store.load(key), lines);
			const session = await Session.open(store.sessionLocation(key));
			const [imported] = importClaudeCode({ name, text });
			assert.ok(imported);
			const parents = new Set(imported.records.map((record) => record.parentId));
			const importerLeaves = imported.records.filter((record) => !parents.has(record.id)).length;
			assert.equal(session.listBranches().length, importerLeaves);
			assert.ok(session.buildSessionContext().messages.length > 0);
			// The SDK's "eager" flush appends each line alone: the same leaves and the same context.
			const eager = treeStore(`memory:claude-eager-${name}`);
			for (const line of lines) await eager.append(key, [line]);
			assert.deepEqual(await eager.load(key), lines);
			const lineByLine = (await eager.openSession(key)) as Session;
			assert.equal(lineByLine.listBranches().length, importerLeaves);
			assert.deepEqual(json(lineByLine.buildSessionContext()), json(session.buildSessionContext()));
			await session.close();
			const tree = await cli(["tree", store.sessionLocation(key)]);
			assert.equal(tree.code, 0, tree.stderr);
		});
	}

	test("a compact boundary is a compaction: the model sees what Claude Code sent after it", async () => {
		const text = readFileSync(join(fixtures, "ccl-dag-compact-after-rewind.jsonl"), "utf8");
		const lines = text
			.split("\n")
			.filter((line) => line.trim() !== "")
			.map((line) => JSON.parse(line) as SessionStoreEntry);
		const store = treeStore("memory:claude-compaction");
		await store.append(KEY, lines);
		const session = (await store.openSession(KEY)) as Session;
		const roles = session.buildSessionContext().messages.map((message) => message.role);
		assert.deepEqual(roles, ["compactionSummary", "user", "user", "assistant"]);
	});
});

// ---- the SDK's own functions on the store ------------------------------------------------------

describe("the SDK's session functions read and write through the store", () => {
	const config = join(dir, "claude-config");
	const project = join(dir, "project");
	let previous: string | undefined;
	before(() => {
		previous = process.env.CLAUDE_CONFIG_DIR;
		process.env.CLAUDE_CONFIG_DIR = config;
		mkdirSync(project, { recursive: true });
	});
	after(() => {
		if (previous === undefined) delete process.env.CLAUDE_CONFIG_DIR;
		else process.env.CLAUDE_CONFIG_DIR = previous;
	});

	/** The project key the SDK derives from a directory (asked of the SDK itself, through a store that records it). */
	async function projectKeyOf(path: string): Promise<string> {
		let seen: string | undefined;
		const probe: SdkSessionStore = {
			append: async () => {},
			load: async () => null,
			listSessions: async (projectKey) => {
				seen = projectKey;
				return [];
			},
		};
		await listSessions({ dir: path, sessionStore: probe });
		assert.ok(seen);
		return seen;
	}

	for (const [label, location, skip] of [
		["a directory", newDir, () => undefined],
		["SQLite", newDatabase, () => SQLITE_SKIP],
		["PostgreSQL", newSchema, pgSkip],
	] as const) {
		test(`${label}: importSessionToStore, getSessionMessages, listSessions, renameSession, subagents, forkSession, deleteSession`, async (t) => {
			const why = skip();
			if (why) return t.skip(why);
			const projectKey = await projectKeyOf(project);
			const local = join(config, "projects", projectKey);
			const { turn1, turn2, rewind } = rewindTranscript();
			const transcript = [...turn1, ...turn2, ...rewind];
			mkdirSync(join(local, SESSION, "subagents"), { recursive: true });
			writeFileSync(join(local, `${SESSION}.jsonl`), transcript.map((line) => `${JSON.stringify(line)}\n`).join(""));
			const agentId = "a1b2c3d4e5f6a7b8c";
			const subagent = [
				{ ...userLine("s1", null, "Find the CI files."), isSidechain: true, agentId },
				{ ...assistantLine("s2", "s1", "Found .github/workflows/ci.yml."), isSidechain: true, agentId },
			];
			writeFileSync(
				join(local, SESSION, "subagents", `agent-${agentId}.jsonl`),
				subagent.map((line) => `${JSON.stringify(line)}\n`).join(""),
			);

			const store = treeStore(location());
			await importSessionToStore(SESSION, store, { dir: project, batchSize: 4 });
			await importSessionToStore(SESSION, store, { dir: project, batchSize: 3 }); // a replay: no uuid is stored twice
			const key = { projectKey, sessionId: SESSION };
			// Lines without a uuid (the snapshots) are stored again by the replay, as the SDK asks.
			assert.deepEqual(await store.load(key), [
				...transcript,
				...transcript.filter((line) => typeof line.uuid !== "string"),
			]);

			// The SDK builds the same conversation from the store as from the local file: the rewound path.
			const fromStore = await getSessionMessages(SESSION, { dir: project, sessionStore: store });
			const fromDisk = await getSessionMessages(SESSION, { dir: project });
			assert.deepEqual(fromStore, fromDisk);
			assert.deepEqual(
				fromStore.map((message) => message.uuid),
				["u1", "a1", "u3", "a3"],
			);

			const listed = await listSessions({ dir: project, sessionStore: store });
			assert.deepEqual(
				listed.map((info) => info.sessionId),
				[SESSION],
			);
			assert.equal(listed[0]?.firstPrompt, "How do I pin Node 20 in CI?");

			await renameSession(SESSION, "Node in CI", { dir: project, sessionStore: store });
			assert.equal((await listSessions({ dir: project, sessionStore: store }))[0]?.customTitle, "Node in CI");
			const session = (await store.openSession(key)) as Session;
			assert.equal(session.getSessionName(), "Node in CI");
			assert.equal(session.listBranches().length, 2);
			await session.close();

			assert.deepEqual(await listSubagents(SESSION, { dir: project, sessionStore: store }), [agentId]);
			assert.deepEqual(await store.listSubkeys(key), [`subagents/agent-${agentId}`]);
			const sub = await getSubagentMessages(SESSION, agentId, { dir: project, sessionStore: store });
			assert.deepEqual(
				sub.map((message) => message.uuid),
				["s1", "s2"],
			);
			const subSession = (await store.openSession({ ...key, subpath: `subagents/agent-${agentId}` })) as Session;
			assert.equal(subSession.getHeader().parentSession, store.sessionLocation(key));
			assert.deepEqual(
				subSession.buildSessionContext().messages.map((message) => message.role),
				["user", "assistant"],
			);
			await subSession.close();

			const fork = await forkSession(SESSION, { dir: project, sessionStore: store, upToMessageId: "a1" });
			const forked = await getSessionMessages(fork.sessionId, { dir: project, sessionStore: store });
			assert.equal(forked.length, 2);
			assert.deepEqual(
				(await store.listSessions(projectKey)).map((s) => s.sessionId).sort(),
				[SESSION, fork.sessionId].sort(),
			);

			await deleteSession(SESSION, { dir: project, sessionStore: store });
			assert.equal(await store.load(key), null);
			assert.deepEqual(await store.listSubkeys(key), []);
			assert.deepEqual(
				(await listSessions({ dir: project, sessionStore: store })).map((info) => info.sessionId),
				[fork.sessionId],
			);
		});
	}
});

// ---- keys, places, errors ----------------------------------------------------------------------

describe("keys never leave their place", () => {
	const keys: SessionKey[] = [
		{ projectKey: "../../etc", sessionId: "../passwd" },
		{ projectKey: "/abs/olute", sessionId: "a/b\\c", subpath: "../../../../tmp/x" },
		{ projectKey: "..", sessionId: "." },
		{ projectKey: "proj#x", sessionId: "s?y:z" },
		{ projectKey: "Grüße 👋", sessionId: "セッション" },
		{
			projectKey: `-${"very-long-path-".repeat(20)}`,
			sessionId: "x".repeat(150),
			subpath: `subagents/${"y".repeat(200)}`,
		},
		{ projectKey: `-${"very-long-path-".repeat(20)}`, sessionId: "x".repeat(150) },
		{ projectKey: "p", sessionId: "s", subpath: "subagents/agent-1" },
		{ projectKey: "p", sessionId: "s" },
		{ projectKey: "p", sessionId: "s.x" },
	];

	for (const [label, location, files, skip] of [
		["a directory", newDir, true, () => undefined],
		["SQLite", newDatabase, false, () => SQLITE_SKIP],
		["memory:", () => `memory:claude-keys-${++memorySpaces}`, false, () => undefined],
		["PostgreSQL", newSchema, false, pgSkip],
	] as const) {
		test(`${label}: every key is its own session inside the place, listed back by its own name`, async (t) => {
			const why = skip();
			if (why) return t.skip(why);
			const where = location();
			const store = treeStore(where);
			for (const [index, key] of keys.entries()) await store.append(key, [E("line", { index })]);
			for (const [index, key] of keys.entries()) assert.deepEqual(await store.load(key), [E("line", { index })]);
			if (files) {
				const found: string[] = [];
				const walk = (path: string) => {
					for (const item of readdirSync(path, { withFileTypes: true })) {
						if (item.isDirectory()) walk(join(path, item.name));
						else found.push(relative(where, join(path, item.name)));
					}
				};
				walk(where);
				assert.equal(found.filter((file) => file.endsWith(".jsonl")).length, keys.length);
				for (const file of found) {
					assert.equal(file.split(sep).length, 2, file);
					assert.ok(!file.split(sep).some((part) => part === ".." || part === "."), file);
					assert.ok(Buffer.byteLength(file.split(sep)[1] as string) <= 255, file);
				}
			} else {
				for (const key of keys) {
					const name = store.sessionLocation(key).split(/[#/]/).at(-1) as string;
					assert.match(name, /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, name);
				}
			}
			for (const projectKey of new Set(keys.map((key) => key.projectKey))) {
				const sessions = (await store.listSessions(projectKey)).map((s) => s.sessionId).sort();
				const expected = keys
					.filter((key) => key.projectKey === projectKey && key.subpath === undefined)
					.map((key) => key.sessionId);
				assert.deepEqual(sessions, [...new Set(expected)].sort(), projectKey);
			}
			for (const key of keys) {
				const subpaths = keys
					.filter((k) => k.projectKey === key.projectKey && k.sessionId === key.sessionId && k.subpath !== undefined)
					.map((k) => k.subpath);
				assert.deepEqual((await store.listSubkeys(key)).sort(), subpaths.sort());
			}
			for (const key of keys) await store.delete(key);
			for (const key of keys) assert.equal(await store.load(key), null);
		});
	}

	test("components escape and unescape; a shortened one is not read as a name", () => {
		for (const text of ["-home-me-proj", "a/b", "..", "Grüße 👋", "_2f", "x_zy"]) {
			const escaped = escapeComponent(text);
			assert.match(escaped, /^(?:[A-Za-z0-9-]|_[0-9a-f]{2})+$/);
			assert.equal(unescapeComponent(escaped), text);
		}
		assert.equal(escapeComponent("a/b.c"), "a_2fb_2ec");
		assert.equal(unescapeComponent("abc_z0123456789abcdef0123"), undefined);
		assert.equal(unescapeComponent("a_2F"), undefined, "only the form escapeComponent writes");
	});

	test("bad keys, entries and locations are refused with INVALID_ARGUMENT", async () => {
		const store = treeStore(newDir());
		const invalid = (error: unknown) => isSessionTreeError(error, "INVALID_ARGUMENT");
		await assert.rejects(store.append({ projectKey: "", sessionId: "s" }, [E("a")]), invalid);
		await assert.rejects(store.append({ projectKey: "p", sessionId: 5 as unknown as string }, [E("a")]), invalid);
		await assert.rejects(store.load({ projectKey: "p" } as SessionKey), invalid);
		await assert.rejects(store.append(KEY, ["text" as unknown as SessionStoreEntry]), invalid);
		await assert.rejects(store.append(KEY, [[1] as unknown as SessionStoreEntry]), invalid);
		await assert.rejects(store.append(KEY, "x" as unknown as SessionStoreEntry[]), invalid);
		await assert.rejects(store.listSessions(""), invalid);
		assert.equal(await store.load(KEY), null, "nothing was written");
		assert.throws(() => new TreeSessionStore("sqlite:/tmp/x.db#one-session"), invalid);
		assert.throws(() => new TreeSessionStore("nosuchscheme://place"), invalid);
		// An empty subpath is the main transcript (as the SDK's reference treats it).
		await store.append({ ...KEY, subpath: "" }, [E("main")]);
		assert.deepEqual(await store.load(KEY), [E("main")]);
	});

	test("a session at a key's place that the adapter did not write is refused, not mixed", async () => {
		const location = newDir();
		const store = treeStore(location);
		const file = store.sessionLocation(KEY);
		const other = await Session.create({ file, cwd: "/elsewhere" });
		await other.appendMessage({ role: "user", content: "not a Claude transcript", timestamp: T0 });
		await other.close();
		await assert.rejects(store.load(KEY), (error) => isSessionTreeError(error, "INVALID_ARGUMENT"));
		await assert.rejects(store.append(KEY, [E("a")]), (error) => isSessionTreeError(error, "INVALID_ARGUMENT"));
	});

	test("delete on a collection without remove says so", async () => {
		// A scheme whose sessions live in memory, with a collection that cannot remove.
		const collection = (location: string): SessionCollection => ({
			location,
			capabilities: { listing: true, search: false, remove: false },
			async *list() {
				for await (const listing of new MemoryCollection().list()) {
					const name = listing.location.slice("memory:".length);
					if (name.startsWith(`${location}#`)) yield { ...listing, location: name };
				}
			},
			open: (session) => new MemorySessionStore(session),
			sessionFor: (header) => new MemorySessionStore(`${location}#${header.id}`),
		});
		registerStoreScheme("casnoremove", (location) => new MemorySessionStore(location), collection);
		const store = treeStore("casnoremove:place");
		await store.append(KEY, [E("a")]);
		assert.deepEqual(await store.load(KEY), [E("a")]);
		assert.deepEqual(
			(await store.listSessions("proj")).map((s) => s.sessionId),
			["sess"],
		);
		await assert.rejects(
			store.delete(KEY),
			(error) => isSessionTreeError(error, "INVALID_ARGUMENT") && /cannot delete/.test(String(error)),
		);
		assert.deepEqual(await store.load(KEY), [E("a")]);
	});
});

// ---- writers -----------------------------------------------------------------------------------

describe("writers", () => {
	test("appends of one key called at once run in call order", async () => {
		const store = treeStore(newDir());
		const lines = Array.from({ length: 20 }, (_, i) =>
			E("line", { uuid: `l${i}`, parentUuid: i === 0 ? null : `l${i - 1}` }),
		);
		await Promise.all(lines.map((line) => store.append(KEY, [line])));
		assert.deepEqual(await store.load(KEY), lines);
		const session = (await store.openSession(KEY)) as Session;
		assert.equal(session.listBranches().length, 1);
		await session.close();
	});

	for (const [label, location, skip] of [
		["a directory", newDir, () => undefined],
		["SQLite", newDatabase, () => SQLITE_SKIP],
		["PostgreSQL", newSchema, pgSkip],
	] as const) {
		test(`${label}: two stores (as two processes) racing on one key lose nothing and store nothing twice`, async (t) => {
			const why = skip();
			if (why) return t.skip(why);
			const where = location();
			const a = treeStore(where);
			const b = treeStore(where);
			await a.append(KEY, [userLine("w0", null, "start")]);
			assert.equal(
				(await b.load(KEY))?.length,
				1,
				"b has read the session: its position is behind after a's next append",
			);
			const fromA = [assistantLine("wa", "w0", "from a")];
			const fromB = [assistantLine("wb", "w0", "from b")];
			await Promise.all([a.append(KEY, fromA), b.append(KEY, [...fromB, ...fromA])]);
			await Promise.all([
				a.append(KEY, [userLine("wc", "wb", "after b")]),
				b.append(KEY, [userLine("wc", "wb", "after b")]),
			]);
			const loaded = (await a.load(KEY)) ?? [];
			assert.deepEqual(await b.load(KEY), loaded);
			assert.deepEqual(loaded.map((line) => line.uuid).sort(), ["w0", "wa", "wb", "wc"]);
			const session = (await a.openSession(KEY)) as Session;
			assert.equal(session.entryCount, 4);
			assert.deepEqual(uuidsOn(session.getBranch(session.getEntries().find((e) => uuidsOn([e])[0] === "wc")?.id)), [
				"w0",
				"wb",
				"wc",
			]);
			assert.equal(session.listBranches().length, 2, "wa and wb are two answers to w0");
			await session.close();
		});
	}

	test("a store that cached a session finds it deleted by another, and starts it again", async () => {
		const where = newDir();
		const a = treeStore(where);
		const b = treeStore(where);
		await a.append(KEY, [E("a", { uuid: "x" })]);
		assert.deepEqual(await b.load(KEY), [E("a", { uuid: "x" })]);
		await a.delete(KEY);
		assert.equal(await b.load(KEY), null);
		await b.append(KEY, [E("b", { uuid: "x" })]);
		assert.deepEqual(await a.load(KEY), [E("b", { uuid: "x" })]);
	});

	test("cacheSize 0 and a small cache read what is stored", async () => {
		const where = newDir();
		const none = treeStore(where, { cacheSize: 0 });
		const small = treeStore(where, { cacheSize: 1 });
		for (let i = 0; i < 4; i++) {
			const key = { projectKey: "p", sessionId: `s${i}` };
			await none.append(key, [E("a", { uuid: `u${i}` })]);
			await small.append(key, [E("a", { uuid: `u${i}` }), E("b", { uuid: `v${i}` })]);
		}
		for (let i = 0; i < 4; i++) {
			const key = { projectKey: "p", sessionId: `s${i}` };
			assert.deepEqual(await none.load(key), [E("a", { uuid: `u${i}` }), E("b", { uuid: `v${i}` })]);
		}
	});
});

// ---- packaging and the example -----------------------------------------------------------------

describe("packaging", () => {
	test("the adapter imports only types from the SDK, and the main entry point does not import it", () => {
		const compiled = new URL("../../src/", import.meta.url);
		for (const file of ["claude-agent-sdk.js", "claude-agent-sdk-entries.js", "claude-agent-sdk-names.js"]) {
			const text = readFileSync(new URL(`adapters/${file}`, compiled), "utf8");
			assert.doesNotMatch(
				text,
				/^(?:import|export)\b[^\n]*["']@anthropic-ai\/claude-agent-sdk["']|\b(?:import|require)\(\s*["']@anthropic-ai/m,
				file,
			);
		}
		assert.doesNotMatch(readFileSync(new URL("index.js", compiled), "utf8"), /adapters\/claude-agent-sdk/);
		const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
			exports: Record<string, { import: string }>;
		};
		assert.equal(pkg.exports["./claude-agent-sdk"]?.import, "./dist/adapters/claude-agent-sdk.js");
	});

	test("examples/claude-agent-sdk.mjs runs and leaves a session the CLI opens", async () => {
		const place = join(dir, "example");
		const result = await runExample("claude-agent-sdk.mjs", [place]);
		assert.equal(result.code, 0, result.stderr);
		for (const line of [
			"load() gives the 9 lines back, deep-equal and in append order",
			"A retried batch changed nothing: still 9 lines",
			"The session keeps 2 branches",
			"  user: And on GitLab CI?",
		]) {
			assert.ok(result.stdout.includes(line), `${line}\n${result.stdout}`);
		}
		const file = /session-tree tree (\S+)/.exec(result.stdout)?.[1];
		assert.ok(file, result.stdout);
		const tree = await cli(["tree", file]);
		assert.equal(tree.code, 0, tree.stderr);
		assert.match(tree.stdout, /user: And which version runs locally\?/);
		assert.match(tree.stdout, /user: And on GitLab CI\?/);
	});
});
