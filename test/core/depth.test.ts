/**
 * Records nested deeper than MAX_NESTING (1000) levels of arrays and objects, on real files and
 * real stores: reading them is damage with a defined outcome (strict: INVALID_RECORD naming the
 * file, the line and the path; lenient: the entry kept without its body), writing them is
 * refused before anything is written, and a fork never leaves a session holding only its
 * header. Exactly 1000 levels is an ordinary record everywhere. docs/durability.md, "Nesting".
 */

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { AgentInputItem } from "@openai/agents";
import { createChatStore } from "../../src/adapters/ai-sdk.js";
import { TreeSessionStore } from "../../src/adapters/claude-agent-sdk.js";
import { TreeSession } from "../../src/adapters/openai-agents.js";
import { MAX_NESTING, nestingPath } from "../../src/core/nesting.js";
import { importText, isSessionTreeError, Session, type SessionTreeErrorCode } from "../../src/index.js";
import { postgresServer, testSchema } from "../support/postgres.js";
import { SQLITE_SKIP } from "../support/sqlite.js";

const dirs: string[] = [];
after(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
	const dir = mkdtempSync(join(tmpdir(), "st-depth-"));
	dirs.push(dir);
	return dir;
}

/** JSON text of `n` nested arrays: `[[[…]]]`. Built as text: JSON.stringify could not write it. */
const arrays = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
/** JSON text of `n` nested objects: `{"a":{"a":…1}}`. */
const objects = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
/** A value of `n` nested arrays. */
function deepValue(n: number): unknown {
	let value: unknown = 1;
	for (let i = 0; i < n; i++) value = [value];
	return value;
}

const TS = "2025-01-01T00:00:00.000Z";
const HEADER = JSON.stringify({
	type: "session",
	version: 3,
	id: "0195f3c2-0000-7000-8000-000000000001",
	timestamp: TS,
	cwd: "/p",
});
const parent = (id: string | null) => (id === null ? "null" : `"${id}"`);
/** A message line in pi's exact layout (its body is read lazily). */
const message = (id: string, parentId: string | null, body: string) =>
	`{"type":"message","id":"${id}","parentId":${parent(parentId)},"timestamp":"${TS}","message":${body}}`;
const user = (id: string, parentId: string | null, content: string) =>
	message(id, parentId, `{"role":"user","content":${content},"timestamp":1735689600000}`);
const toolCall = (id: string, parentId: string) =>
	message(
		id,
		parentId,
		'{"role":"assistant","content":[{"type":"toolCall","id":"call1","name":"bash","arguments":{"command":"ls"}}],"api":"x","provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1735689600000}',
	);
const toolResult = (id: string, parentId: string, details: string) =>
	message(
		id,
		parentId,
		`{"role":"toolResult","toolCallId":"call1","toolName":"bash","content":[{"type":"text","text":"ok"}],"details":${details},"isError":false,"timestamp":1735689600000}`,
	);

/** One deep line of a variant, on line 4 of its file, between `a1`/`a2` and `a4`. */
interface Variant {
	name: string;
	line: string;
	path: RegExp;
}

const DEEP = 100_000;
const variants: Variant[] = [
	{
		name: "a tool result's details: 100,000 nested arrays (pi's layout: a lazy body)",
		line: toolResult("a3", "a2", arrays(DEEP)),
		path: /at message\.details\[0\]\[0\]\[0\]/,
	},
	{
		name: "a tool result's details: 100,000 nested objects",
		line: toolResult("a3", "a2", objects(DEEP)),
		path: /at message\.details\.a\.a\.a/,
	},
	{
		name: "a user message's content",
		line: user("a3", "a2", `[{"type":"text","text":"x","extra":${arrays(DEEP)}}]`),
		path: /at message\.content\[0\]\.extra\[0\]\[0\]/,
	},
	{
		name: "a message line not in pi's layout (parsed whole at open)",
		line: `{"id":"a3","type":"message","parentId":"a2","timestamp":"${TS}","message":{"role":"user","content":${arrays(DEEP)}}}`,
		path: /at message\.content\[0\]\[0\]/,
	},
	{
		name: "a custom entry's data",
		line: `{"type":"custom","customType":"x","id":"a3","parentId":"a2","timestamp":"${TS}","data":${objects(DEEP)}}`,
		path: /at data\.a\.a\.a/,
	},
	{
		name: "an entry of a type this version does not know",
		line: `{"type":"weird","id":"a3","parentId":"a2","timestamp":"${TS}","data":${arrays(DEEP)}}`,
		path: /at data\[0\]\[0\]/,
	},
];

/** header, a1 user, a2 tool call, LINE (entry a3, line 4), a4 user under a3. */
function fileWith(line: string): string {
	const file = join(tempDir(), "deep.jsonl");
	writeFileSync(
		file,
		`${[HEADER, user("a1", null, '"hi"'), toolCall("a2", "a1"), line, user("a4", "a3", '"after"')].join("\n")}\n`,
	);
	return file;
}

async function rejectsWith(work: Promise<unknown>, code: SessionTreeErrorCode, message: RegExp): Promise<void> {
	await assert.rejects(work, (error: unknown) => {
		assert.ok(isSessionTreeError(error, code), `expected ${code}, got ${String(error)}`);
		assert.match(error.message, message);
		return true;
	});
}

describe("reading a record nested deeper than the limit", () => {
	for (const variant of variants) {
		describe(variant.name, () => {
			test("strict: INVALID_RECORD naming the file, the line and the path, with or without verify", async () => {
				const file = fileWith(variant.line);
				const before = readFileSync(file);
				const message = new RegExp(`^${file}:4: .*a3 is nested deeper than 1000 levels .*${variant.path.source}`);
				await rejectsWith(Session.open(file), "INVALID_RECORD", message);
				await rejectsWith(Session.open(file, { verify: true }), "INVALID_RECORD", message);
				assert.deepEqual(readFileSync(file), before, "reading never writes");
			});

			test("lenient: reported, the entry kept in the tree without its body; everything after it reads and stringifies", async () => {
				const file = fileWith(variant.line);
				const session = await Session.open(file, { lenient: true });
				const problems = session.problems.filter((problem) => problem.code === "INVALID_RECORD");
				assert.equal(problems.length, 1, JSON.stringify(session.problems));
				assert.equal(problems[0]?.line, 4);
				assert.match(problems[0]?.message ?? "", variant.path);
				assert.match(problems[0]?.message ?? "", /its body is left out of the context$/);
				assert.deepEqual(
					session.getBranch().map((entry) => entry.id),
					["a1", "a2", "a3", "a4"],
					"the tree stays whole",
				);
				assert.equal(session.getLeafId(), "a4");
				// What crashed before: the record reached JSON.stringify and structuredClone.
				const context = JSON.stringify(session.buildSessionContext());
				assert.ok(context.includes('"after"'));
				assert.doesNotThrow(() => JSON.stringify(session.getEntries()));
				assert.doesNotThrow(() => structuredClone(session.getEntries()));
				await session.close();
			});

			test("repair: the entry is left out, its child moved up to its parent; the backup is the original", async () => {
				const file = fileWith(variant.line);
				const before = readFileSync(file);
				const session = await Session.open(file, { lenient: true });
				const backup = await session.repair();
				assert.ok(backup);
				assert.deepEqual(readFileSync(backup), before);
				const repaired = await Session.open(file);
				assert.deepEqual(repaired.problems, []);
				assert.deepEqual(
					repaired.getBranch().map((entry) => [entry.id, entry.parentId]),
					[
						["a1", null],
						["a2", "a1"],
						["a4", "a2"],
					],
				);
				await repaired.close();
			});
		});
	}

	test("the session header nested too deep: INVALID_HEADER strict, a made-up header lenient", async () => {
		const file = join(tempDir(), "deep-header.jsonl");
		const header = `{"type":"session","version":3,"id":"s1","timestamp":"${TS}","cwd":"/p","extra":${arrays(DEEP)}}`;
		writeFileSync(file, `${header}\n${user("a1", null, '"hi"')}\n`);
		await rejectsWith(
			Session.open(file),
			"INVALID_HEADER",
			/the session header is nested deeper than 1000 levels .* at extra\[0\]/,
		);
		const lenient = await Session.open(file, { lenient: true });
		assert.equal(lenient.getHeader().id, "recovered-session");
		assert.deepEqual(
			lenient.getEntries().map((entry) => entry.id),
			["a1"],
		);
		await lenient.close();
	});

	test("a last line without a newline nested too deep is a whole record, not a torn append", async () => {
		const file = join(tempDir(), "deep-last.jsonl");
		writeFileSync(
			file,
			`${HEADER}\n${user("a1", null, '"hi"')}\n${toolCall("a2", "a1")}\n${toolResult("a3", "a2", arrays(DEEP))}`,
		);
		await rejectsWith(Session.open(file), "INVALID_RECORD", /:4: .*nested deeper than 1000 levels/);
		const lenient = await Session.open(file, { lenient: true });
		assert.deepEqual(
			lenient.problems.map((problem) => problem.code),
			["INVALID_RECORD"],
		);
		await lenient.appendMessage({ role: "user", content: "next", timestamp: 2 });
		await lenient.close();
		assert.deepEqual(readdirSync(join(file, "..")), ["deep-last.jsonl"], "no .torn file: the line was whole");
		assert.ok(readFileSync(file, "utf8").includes(arrays(DEEP)), "the deep line is kept as it was");
	});

	test("exactly 1000 levels is an ordinary record: read strictly, stringified, cloned, copied by a fork", async () => {
		const file = fileWith(toolResult("a3", "a2", arrays(MAX_NESTING - 2)));
		const session = await Session.open(file, { verify: true });
		assert.deepEqual(session.problems, []);
		const entry = session.getEntry("a3");
		assert.equal(nestingPath(entry), undefined);
		assert.ok(nestingPath(entry, MAX_NESTING - 1));
		assert.doesNotThrow(() => structuredClone(session.getEntries()));
		assert.doesNotThrow(() => JSON.stringify(session.buildSessionContext()));
		const fork = await session.fork("a4");
		assert.deepEqual(
			fork.getBranch().map((e) => e.id),
			["a1", "a2", "a3", "a4"],
		);
		await fork.close();
		await session.close();
		const over = fileWith(toolResult("a3", "a2", arrays(MAX_NESTING - 1)));
		await rejectsWith(Session.open(over), "INVALID_RECORD", /:4: message entry a3 is nested deeper than 1000 levels/);
	});

	test("another agent's transcript: a line nested too deep is INVALID_RECORD naming the source and the line", async () => {
		const line = JSON.stringify({
			type: "user",
			uuid: "u1",
			parentUuid: null,
			sessionId: "s",
			timestamp: TS,
			message: { role: "user", content: "hi" },
		});
		const deep = `{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s","timestamp":"${TS}","message":{"role":"user","content":${arrays(DEEP)}}}`;
		const text = `${line}\n${deep}\n`;
		await assert.rejects(
			async () => importText(text, "t.jsonl", { from: "claude-code" }),
			(error: unknown) =>
				isSessionTreeError(error, "INVALID_RECORD") &&
				/^t\.jsonl:2: the line is nested deeper than 1000 levels .* at message\.content\[0\]\[0\]/.test(error.message),
		);
		const chatgpt = `[{"id":"c","title":"t","mapping":{"n":{"id":"n","message":null,"parent":null,"children":[],"x":${arrays(DEEP)}}}}]`;
		await assert.rejects(
			async () => importText(chatgpt, "conversations.json", { from: "chatgpt" }),
			(error: unknown) =>
				isSessionTreeError(error, "INVALID_RECORD") &&
				/^conversations\.json: the document is nested deeper than 1000 levels .* at \[0\]\.mapping\.n\.x\[0\]/.test(
					error.message,
				),
		);
	});
});

const server = await postgresServer();

describe("writing a value nested deeper than the limit", () => {
	/** Stores to write to: a file, memory, SQLite, and PostgreSQL when a server is named. */
	const places: Array<{ name: string; location: () => string | Promise<string>; skip?: string | undefined }> = [
		{ name: "a file", location: () => join(tempDir(), "s.jsonl") },
		{ name: "memory", location: () => `memory:depth-${process.pid}-${Math.random().toString(36).slice(2)}` },
		{ name: "SQLite", location: () => `sqlite:${join(tempDir(), "s.db")}#s1`, skip: SQLITE_SKIP },
	];
	if (!("skip" in server)) {
		const schema = testSchema(server.url, "depth");
		let n = 0;
		places.push({ name: "PostgreSQL", location: () => schema.session(`s${++n}`) });
	}

	for (const place of places) {
		for (const depth of [MAX_NESTING + 1, DEEP]) {
			test(`${place.name}, ${depth} levels: INVALID_ARGUMENT naming the entry and the path; nothing written, the next append works`, {
				skip: place.skip,
			}, async () => {
				const location = await place.location();
				const session = await Session.create({ location, cwd: "/p" });
				await session.appendMessage({ role: "user", content: "q", timestamp: 1 });
				const stored = async () => {
					const read = await Session.open(location);
					const ids = read.getEntries().map((entry) => entry.id);
					await read.close();
					return ids;
				};
				const before = await stored();
				const details = deepValue(depth);
				await rejectsWith(
					session.appendMessage({
						role: "toolResult",
						toolCallId: "c",
						toolName: "t",
						content: [],
						details,
						isError: false,
						timestamp: 2,
					}),
					"INVALID_ARGUMENT",
					/cannot write message entry \w+: it is nested deeper than 1000 levels .* at message\.details\[0\]\[0\].*; nothing was written/,
				);
				await rejectsWith(
					session.appendCustomEntry("x", { deep: details }),
					"INVALID_ARGUMENT",
					/cannot write custom entry \w+: .* at data\.deep\[0\]/,
				);
				assert.equal(session.entryCount, 1);
				assert.deepEqual(await stored(), before);
				await session.appendMessage({ role: "user", content: "after", timestamp: 3 });
				const reopened = await Session.open(location);
				assert.deepEqual(reopened.problems, []);
				assert.equal(reopened.entryCount, 2);
				await reopened.close();
				await session.close();
			});
		}
	}
});

describe("fork and clone", () => {
	/** header, a1, a2 (deep, off the active path: not read at open), a3 under a2; b1 under a1 is the leaf. */
	function branched(): string {
		const file = join(tempDir(), "branched.jsonl");
		const lines = [
			HEADER,
			user("a1", null, '"hi"'),
			user("a2", "a1", `[{"type":"text","text":"x","extra":${arrays(DEEP)}}]`),
			user("a3", "a2", '"deep branch"'),
			user("b1", "a1", '"other branch"'),
		];
		writeFileSync(file, `${lines.join("\n")}\n`);
		return file;
	}

	test("a fork whose path holds a body nested too deep (not read at open) fails before it creates anything", async () => {
		const file = branched();
		const dir = join(file, "..");
		const session = await Session.open(file);
		assert.equal(session.getLeafId(), "b1");
		await rejectsWith(session.fork("a3"), "INVALID_RECORD", /:3: message entry a2 is nested deeper than 1000 levels/);
		assert.deepEqual(readdirSync(dir), ["branched.jsonl"], "no new session file, not even a header");
		const clone = await session.clone();
		assert.deepEqual(
			clone.getBranch().map((entry) => entry.id),
			["a1", "b1"],
		);
		await clone.close();
		await session.close();
	});

	test("a lenient fork leaves the entry out and re-chains its child, so the new session opens strictly", async () => {
		const file = branched();
		const session = await Session.open(file, { lenient: true });
		const fork = await session.fork("a3");
		await fork.close();
		const reopened = await Session.open(fork.location);
		assert.deepEqual(reopened.problems, []);
		assert.deepEqual(
			reopened.getBranch().map((entry) => [entry.id, entry.parentId]),
			[
				["a1", null],
				["a3", "a1"],
			],
		);
		await reopened.close();
		await session.close();
	});
});

describe("the adapters take no value nested deeper than the limit", () => {
	const refused = /nested deeper than 1000 levels/;

	test("OpenAI Agents: an item nested 100,000 deep is INVALID_ARGUMENT; arguments text that deep stay text", async () => {
		const file = join(tempDir(), "agents.jsonl");
		const tree = await TreeSession.open(file);
		const deepItem = {
			role: "user",
			content: "hi",
			providerData: { deep: deepValue(DEEP) },
		} as unknown as AgentInputItem;
		await rejectsWith(tree.addItems([deepItem]), "INVALID_ARGUMENT", refused);
		const call = {
			type: "function_call",
			callId: "c1",
			name: "f",
			arguments: objects(DEEP),
		} as unknown as AgentInputItem;
		await tree.addItems([{ role: "user", content: "q" } as AgentInputItem, call]);
		const reopened = await Session.open(file);
		const block = (reopened.getLeafEntry() as { message?: { content?: Array<{ arguments?: unknown }> } }).message
			?.content?.[0];
		assert.deepEqual(block?.arguments, { raw: objects(DEEP) });
		await reopened.close();
	});

	test("AI SDK: saveChat of messages nested 100,000 deep is INVALID_ARGUMENT", async () => {
		const chats = createChatStore({ location: tempDir(), provider: "p", model: "m" });
		const chatId = await chats.createChat();
		const messages = [
			{ id: "m1", role: "user", parts: [{ type: "text", text: "hi", providerMetadata: { x: deepValue(DEEP) } }] },
		];
		await rejectsWith(chats.saveChat({ chatId, messages: messages as never }), "INVALID_ARGUMENT", refused);
	});

	test("Claude Agent SDK: an entry nested 100,000 deep is INVALID_ARGUMENT", async () => {
		const store = new TreeSessionStore(tempDir());
		const key = { projectKey: "proj", sessionId: "sess" };
		await rejectsWith(store.append(key, [{ type: "user", deep: deepValue(DEEP) }]), "INVALID_ARGUMENT", refused);
		await store.close();
	});
});

describe("the text scan agrees with the walk of the value", () => {
	// The scan (textNestsDeeper) decides for large documents whether the value is walked at all;
	// the walk (nestingPath) is the definition. Each text below is parsed and both are asked.
	const texts: Array<[string, string]> = [
		["exactly the limit", arrays(MAX_NESTING)],
		["one past the limit", arrays(MAX_NESTING + 1)],
		["objects one past", objects(MAX_NESTING + 1)],
		["brackets inside strings do not count", `[${JSON.stringify("[".repeat(5000))},${arrays(10)}]`],
		[
			"an escaped quote does not end a string",
			`{"a":${JSON.stringify(`\\"${"{".repeat(3000)}\\\\`)},"b":${arrays(MAX_NESTING - 1)}}`,
		],
		["a string ending in a backslash", `[${JSON.stringify("x\\")},${arrays(MAX_NESTING)}]`],
		[
			"runs of backslashes of both parities before quotes",
			`[${JSON.stringify('\\"[\\\\"[[\\\\\\"')},${JSON.stringify("\\\\")},${arrays(MAX_NESTING)}]`,
		],
		["a long wide text", `[${Array.from({ length: 2000 }, (_, i) => `{"k":[${i},"]]]"]}`).join(",")}]`],
	];
	for (const [name, text] of texts) {
		test(name, async () => {
			const { textNestsDeeper } = await import("../../src/core/nesting.js");
			const value: unknown = JSON.parse(text);
			assert.equal(textNestsDeeper(text), nestingPath(value) !== undefined);
		});
	}
	test("an import of a document one level too deep is refused, one level less is read", async () => {
		const conversation = (depth: number) =>
			`[{"title":"t","mapping":{"r":{"id":"r","parent":null,"children":[],"message":null,"x":${arrays(depth - 4)}}}}]`;
		await assert.rejects(importText(conversation(MAX_NESTING + 1), "deep.json"), /nested deeper than 1000 levels/);
		const sessions = await importText(conversation(MAX_NESTING), "ok.json");
		assert.equal(sessions.length, 1);
	});
});
