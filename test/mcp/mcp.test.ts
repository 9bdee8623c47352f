/**
 * `session-tree mcp` as a client meets it: the real CLI started as a child process, spoken to
 * by the MCP SDK's own `Client` over stdio, on a temporary HOME holding pi, Claude Code, Codex
 * and Gemini CLI sessions (test/mcp/support.ts). The expectations come from outside the
 * server: `ctx --json` of the CLI for contexts, the session files' own lines (parsed here) for
 * entries and labels, the way the HOME was built for ids and branches.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Session } from "../../src/session.js";
import { cliJson } from "../cli/helpers.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import {
	allPages,
	buildMcpHome,
	type Connected,
	call,
	connectStdio,
	DEEP_LEVELS,
	type McpHome,
	ok,
	SECRETS,
	SIDE_TEXT,
} from "./support.js";

let home: McpHome;
let server: Connected;
/** Keys of the sessions, by file. */
const keys = new Map<string, string>();

interface Listed {
	session: string;
	id: string;
	agent: string;
	title: string;
	entries: number;
	branches: number;
}

/** The lines of a JSONL file, parsed. */
function records(file: string): Array<Record<string, unknown>> {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The session id of a pi file: its header's. */
function headerId(file: string): string {
	return records(file)[0]?.id as string;
}

// `session-tree mcp` opens the catalog index (SQLite).
before(async () => {
	if (SQLITE_SKIP) return;
	home = await buildMcpHome();
	server = await connectStdio(home.home);
	const listed = await allPages<Listed>(server.client, "list_sessions", { limit: 200 }, (r) => r.sessions as Listed[]);
	for (const file of [home.branched, home.newer, home.deep, home.secrets, home.hostile])
		keys.set(file, listed.items.find((item) => item.id === headerId(file))?.session as string);
});

after(async () => {
	await server?.close();
	if (home) rmSync(home.home, { recursive: true, force: true });
});

describe("session-tree mcp over stdio", { skip: SQLITE_SKIP }, () => {
	test("lists its tools with their input schemas, and no write tool without --write", async () => {
		const { tools } = await server.client.listTools();
		const names = tools.map((tool) => tool.name).sort();
		assert.deepEqual(names, ["compare_branches", "get_context", "get_entries", "get_tree", "list_sessions", "search"]);
		const search = tools.find((tool) => tool.name === "search");
		assert.equal(search?.inputSchema.type, "object");
		assert.deepEqual(search?.inputSchema.required, ["query"]);
		for (const name of ["query", "regex", "branch", "limit", "cursor"])
			assert.ok(search?.inputSchema.properties?.[name], `search takes ${name}`);
		const tree = tools.find((tool) => tool.name === "get_tree");
		assert.deepEqual(tree?.inputSchema.required, ["session"]);
		for (const name of ["filter", "depth", "from", "limit", "cursor", "maxChars"])
			assert.ok(tree?.inputSchema.properties?.[name], `get_tree takes ${name}`);
		for (const tool of tools) {
			assert.ok(tool.description && tool.description.length > 40, `${tool.name} is described`);
			assert.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
		}
	});

	test("lists every agent's sessions, newest first, with keys the other tools take", async () => {
		const all = await allPages<Listed>(server.client, "list_sessions", { limit: 3 }, (r) => r.sessions as Listed[]);
		assert.ok(all.pages >= 3, "3 a page: several pages");
		assert.equal(all.largest, 3);
		const agents = new Set(all.items.map((item) => item.agent));
		for (const agent of ["pi", "claude-code", "codex", "gemini"]) assert.ok(agents.has(agent), `${agent} is listed`);
		// The HOME: 6 pi sessions (branched, hostile, newer, deep, secrets... and the claude, codex, gemini files).
		assert.equal(all.items.length, 8);
		assert.equal(new Set(all.items.map((item) => item.session)).size, 8, "no session twice across pages");
		const branched = all.items.find((item) => item.session === keys.get(home.branched));
		assert.equal(branched?.branches, 2);
		assert.equal(branched?.entries, 6);
		const onlyPi = await ok<{ sessions: Listed[] }>(server.client, "list_sessions", { agent: "codex" });
		assert.deepEqual(
			onlyPi.result.sessions.map((item) => item.agent),
			["codex"],
		);
		const heap = await ok<{ sessions: Listed[] }>(server.client, "list_sessions", { query: "HEAP" });
		assert.deepEqual(
			heap.result.sessions.map((item) => item.session),
			[keys.get(home.newer)],
		);
		const since = await ok<{ sessions: Listed[] }>(server.client, "list_sessions", { since: "2025-07-01" });
		assert.ok(!since.result.sessions.some((item) => item.session === keys.get(home.branched)), "older left out");
	});

	test("search finds a text only a side branch of an older session holds, and says it is on a side branch", async () => {
		const body = await ok<{ hits: Array<Record<string, string>> }>(server.client, "search", { query: SIDE_TEXT });
		assert.equal(body.result.hits.length, 1);
		const [hit] = body.result.hits;
		assert.equal(hit?.session, keys.get(home.branched));
		assert.equal(hit?.entry, home.ids.a2);
		assert.equal(hit?.branch, "side");
		assert.equal(hit?.role, "assistant");
		assert.match(hit?.snippet ?? "", new RegExp(SIDE_TEXT));
		const active = await ok<{ hits: unknown[] }>(server.client, "search", { query: SIDE_TEXT, branch: "active" });
		assert.equal(active.result.hits.length, 0);
		// A text of an older session's active branch is also found, and marked so.
		const split = await ok<{ hits: Array<Record<string, string>> }>(server.client, "search", { query: "median" });
		assert.deepEqual(
			split.result.hits.map((item) => [item.entry, item.branch]),
			[[home.ids.a3, "active"]],
		);
		// Other agents' files are searched too.
		const codex = await ok<{ hits: Array<Record<string, string>> }>(server.client, "search", {
			query: "a",
			agent: "codex",
			limit: 2,
		});
		assert.equal(codex.result.hits.length, 2);
		assert.ok(codex.nextCursor, "more hits than the limit: a cursor");
		assert.ok(codex.result.hits.every((item) => item.agent === "codex"));
	});

	test("get_context returns the messages `ctx --json` prints, page after page, for pi, Claude Code and Codex", async () => {
		const listed = await ok<{ sessions: Listed[] }>(server.client, "list_sessions", { limit: 200 });
		const keyOfAgent = (agent: string) => listed.result.sessions.find((item) => item.agent === agent)?.session;
		const cases: Array<[string, string | undefined, string]> = [
			[home.branched, keys.get(home.branched), "pi"],
			[home.claude, keyOfAgent("claude-code"), "claude-code"],
			[home.codex, keyOfAgent("codex"), "codex"],
		];
		// The Claude Code file holds a gist URL whose hex id the redaction takes for a secret: the
		// messages are compared with a server that returns them as they are, and the default one
		// gives as many messages with that id redacted.
		const raw = await connectStdio(home.home, ["--no-redact"]);
		try {
			for (const [file, key, agent] of cases) {
				assert.ok(key, `${agent} is listed`);
				const ctx = await cliJson<{ messages: unknown[] }>(["ctx", file, "--json", "--lenient"]);
				const paged = async (client: Connected["client"]) =>
					await allPages<{ entryId: string; message: unknown }>(
						client,
						"get_context",
						{ session: key, limit: 2 },
						(r) => r.messages as Array<{ entryId: string; message: unknown }>,
					);
				const exact = await paged(raw.client);
				assert.ok(ctx.messages.length > 0, `${agent}: a context`);
				assert.deepEqual(
					exact.items.map((item) => item.message),
					ctx.messages,
					`${agent}: the same messages as ctx --json`,
				);
				assert.ok(exact.largest <= 2);
				const redacted = await paged(server.client);
				assert.equal(redacted.items.length, ctx.messages.length);
				const text = JSON.stringify(redacted.items);
				if (agent === "claude-code") {
					assert.ok(JSON.stringify(ctx.messages).includes("e0f34aac66caf890a332f7b6f9e2ba8f"));
					assert.ok(!text.includes("e0f34aac66caf890a332f7b6f9e2ba8f"), "redacted by default");
					assert.match(text, /\[REDACTED:hex-secret\]/);
				} else
					assert.deepEqual(
						redacted.items.map((item) => item.message),
						ctx.messages,
					);
			}
		} finally {
			await raw.close();
		}
		// At an entry of the side branch: the path to it, not the leaf's.
		const side = await ok<{ messages: Array<{ entryId: string; message: unknown }>; entry: string }>(
			server.client,
			"get_context",
			{
				session: keys.get(home.branched),
				entry: home.ids.a2,
			},
		);
		assert.deepEqual(
			side.result.messages.map((item) => item.entryId),
			[home.ids.q1, home.ids.a1, home.ids.q2, home.ids.a2],
		);
		const ctxSide = await cliJson<{ messages: unknown[] }>(["ctx", home.branched, "--json", "--leaf", home.ids.a2]);
		assert.deepEqual(
			side.result.messages.map((item) => item.message),
			ctxSide.messages,
		);
	});

	test("get_entries returns entries as the file holds them, by id and along a path", async () => {
		const lines = records(home.branched);
		const byId = new Map(lines.map((line) => [line.id, line]));
		const key = keys.get(home.branched);
		const some = await ok<{ entries: Array<{ entry: Record<string, unknown> }> }>(server.client, "get_entries", {
			session: key,
			ids: [home.ids.a2, home.ids.q1.slice(0, 6)],
		});
		assert.deepEqual(
			some.result.entries.map((item) => item.entry),
			[byId.get(home.ids.a2), byId.get(home.ids.q1)],
		);
		const path = await allPages<{ entry: Record<string, unknown> }>(
			server.client,
			"get_entries",
			{ session: key, from: home.ids.a1, to: home.ids.a3, limit: 1 },
			(r) => r.entries as Array<{ entry: Record<string, unknown> }>,
		);
		assert.equal(path.pages, 3);
		assert.deepEqual(
			path.items.map((item) => item.entry),
			[home.ids.a1, home.ids.q3, home.ids.a3].map((id) => byId.get(id)),
		);
	});

	test("compare_branches gives the common ancestor and each side's entries", async () => {
		const body = await ok<{
			ancestor: { id: string };
			onlyA: Array<{ id: string; text: string }>;
			onlyB: Array<{ id: string }>;
		}>(server.client, "compare_branches", { session: keys.get(home.branched), a: home.ids.a2, b: home.ids.a3 });
		assert.equal(body.result.ancestor.id, home.ids.a1);
		assert.deepEqual(
			body.result.onlyA.map((item) => item.id),
			[home.ids.q2, home.ids.a2],
		);
		assert.deepEqual(
			body.result.onlyB.map((item) => item.id),
			[home.ids.q3, home.ids.a3],
		);
		assert.match(body.result.onlyA[1]?.text ?? "", new RegExp(SIDE_TEXT));
	});

	test("get_tree of a large session keeps to its limit and its cursor pages through the rest", async () => {
		const key = keys.get(home.deep);
		const first = await ok<{ rowsTotal: number; rows: unknown[]; entries: number; leaves: number }>(
			server.client,
			"get_tree",
			{ session: key, limit: 40 },
		);
		assert.equal(first.result.rows.length, 40);
		assert.ok(first.nextCursor);
		// deepSession: a hello, then at each level a dead end and the path going on (a question and its answer each).
		assert.equal(first.result.leaves, DEEP_LEVELS + 1);
		const all = await allPages<Record<string, unknown>>(
			server.client,
			"get_tree",
			{ session: key, limit: 40 },
			(r) => r.rows as Array<Record<string, unknown>>,
		);
		assert.equal(all.largest, 40);
		assert.equal(all.items.length, first.result.rowsTotal);
		const ids = all.items.filter((row) => typeof row.id === "string").map((row) => row.id as string);
		assert.equal(new Set(ids).size, ids.length, "no row twice");
		const branchPoints = all.items.filter((row) => (row.children as number) > 1);
		assert.equal(branchPoints.length, DEEP_LEVELS, "every fork is a branch point");
		const leaf = all.items.filter((row) => row.leaf === true);
		assert.equal(leaf.length, 1);
		assert.equal(leaf[0]?.label, "deepest");
		// The depth argument cuts deeper levels into counted rows.
		const shallow = await ok<{ rows: Array<Record<string, unknown>> }>(server.client, "get_tree", {
			session: key,
			depth: 2,
			limit: 1000,
		});
		assert.ok(shallow.result.rows.some((row) => typeof row.more === "number" && (row.more as number) > 100));
		// A cursor of another listing is refused, naming it.
		const wrong = await call(server.client, "get_tree", {
			session: keys.get(home.branched),
			cursor: first.nextCursor,
		});
		assert.equal(wrong.isError, true);
		assert.match(wrong.text, /argument "cursor"/);
	});

	test("the sessions are resources: Markdown of the path and JSONL of the records", async () => {
		const { resourceTemplates } = await server.client.listResourceTemplates();
		assert.deepEqual(resourceTemplates.map((template) => template.uriTemplate).sort(), [
			"session-tree://session/{key}/path.md",
			"session-tree://session/{key}/session.jsonl",
		]);
		const { resources } = await server.client.listResources();
		assert.equal(resources.length, 16, "8 sessions, 2 resources each");
		const key = keys.get(home.branched);
		const md = await server.client.readResource({ uri: `session-tree://session/${key}/path.md` });
		const text = (md.contents[0] as { text: string }).text;
		assert.match(text, /How do B-trees split\?/);
		assert.doesNotMatch(text, new RegExp(SIDE_TEXT), "the active path only");
		const jsonl = await server.client.readResource({ uri: `session-tree://session/${key}/session.jsonl` });
		const lines = (jsonl.contents[0] as { text: string }).text.trim().split("\n");
		// The header and the entries, as the file holds them (a `leaf` record marks a position, not an entry).
		assert.deepEqual(
			lines.map((line) => JSON.parse(line)),
			records(home.branched).filter((record) => record.type !== "leaf"),
		);
	});

	test("a planted secret never comes out of any tool or resource", async () => {
		const key = keys.get(home.secrets);
		const outputs: string[] = [];
		const texts = async (name: string, args: Record<string, unknown>) => {
			const answer = await call(server.client, name, args);
			assert.equal(answer.isError, false, `${name}: ${answer.text}`);
			outputs.push(answer.text);
			return answer.body.result;
		};
		await texts("list_sessions", { limit: 200 });
		await texts("search", { query: "deploy", ignoreCase: true });
		await texts("search", { query: "sk-ant-api03" });
		// The secret is found (the index holds the text) but its snippet shows the redaction, not the secret.
		const found = await texts("search", { query: SECRETS.aws });
		assert.equal((found.hits as unknown[]).length, 1);
		await texts("search", { query: "AKIA[0-9A-Z]+", regex: true });
		await texts("get_tree", { session: key, filter: "all" });
		await texts("get_context", { session: key });
		await texts("get_entries", { session: key, to: await leafOf(key) });
		for (const uri of [`session-tree://session/${key}/path.md`, `session-tree://session/${key}/session.jsonl`]) {
			const read = await server.client.readResource({ uri });
			outputs.push((read.contents[0] as { text: string }).text);
		}
		const all = outputs.join("\n");
		assert.match(all, /deploy the sitemap/, "the session's text is there");
		for (const secret of Object.values(SECRETS)) {
			assert.ok(!all.includes(secret), `${secret.slice(0, 8)}… is redacted`);
			// Not even its middle: a snippet or a one-line cut must not leave a piece of it.
			assert.ok(!all.includes(secret.slice(4, 16)), `no piece of ${secret.slice(0, 8)}…`);
		}
	});

	test("a session written after it was read is answered as it is now", async () => {
		const key = keys.get(home.newer);
		const before = await ok<{ messagesTotal: number }>(server.client, "get_context", { session: key });
		assert.equal(before.result.messagesTotal, 2);
		// Another writer (an agent) appends to the pi file.
		const writer = await Session.open(home.newer);
		const question = await writer.appendMessage({ role: "user", content: "And a treap?", timestamp: Date.now() });
		await writer.close();
		const after = await ok<{ messagesTotal: number; messages: Array<{ entryId: string }> }>(
			server.client,
			"get_context",
			{ session: key },
		);
		assert.equal(after.result.messagesTotal, 3);
		assert.equal(after.result.messages.at(-1)?.entryId, question);
		// Another agent's file replaced by that agent: converted again.
		const codexKey = (await ok<{ sessions: Listed[] }>(server.client, "list_sessions", { agent: "codex" })).result
			.sessions[0]?.session;
		const codexBefore = await ok<{ messagesTotal: number }>(server.client, "get_context", { session: codexKey });
		const original = readFileSync(home.codex, "utf8");
		const lines = original.trimEnd().split("\n");
		try {
			// The same transcript without its last turn's lines, as if read earlier.
			writeFileSync(home.codex, `${lines.slice(0, Math.max(3, lines.length - 6)).join("\n")}\n`);
			utimesSync(home.codex, new Date(), new Date(Date.now() + 5_000));
			const shorter = await ok<{ messagesTotal: number }>(server.client, "get_context", { session: codexKey });
			assert.ok(shorter.result.messagesTotal < codexBefore.result.messagesTotal, "read again");
		} finally {
			writeFileSync(home.codex, original);
		}
	});

	test("a server of a STORE answers for it alone, though the shared index holds the agents' sessions", async () => {
		const store = mkdtempSync(join(tmpdir(), "st-mcp-store-"));
		try {
			const own = await Session.create({ dir: store, cwd: "/elsewhere" });
			await own.appendMessage({ role: "user", content: "Only in the store", timestamp: 1 });
			await own.close();
			const scoped = await connectStdio(home.home, [store]);
			try {
				const listed = await ok<{ sessions: Listed[] }>(scoped.client, "list_sessions", { limit: 200 });
				assert.deepEqual(
					listed.result.sessions.map((item) => [item.agent, item.title]),
					[["store", "Only in the store"]],
				);
				const hits = await ok<{ hits: unknown[] }>(scoped.client, "search", { query: SIDE_TEXT });
				assert.deepEqual(hits.result.hits, []);
				const other = await call(scoped.client, "get_tree", { session: keys.get(home.branched) });
				assert.equal(other.isError, true);
				assert.match(other.text, /argument "session": no session has key/);
				assert.ok(!other.text.includes(home.home), "no path of a place not given");
				const { resources } = await scoped.client.listResources();
				assert.equal(resources.length, 2);
			} finally {
				await scoped.close();
			}
		} finally {
			rmSync(store, { recursive: true, force: true });
		}
	});

	test("bad arguments get MCP errors that name the argument", async () => {
		const key = keys.get(home.branched);
		const cases: Array<[string, Record<string, unknown>, RegExp]> = [
			["list_sessions", { limit: 0 }, /limit/],
			["list_sessions", { agent: "vim" }, /agent/],
			["search", {}, /query/],
			["search", { query: "(", regex: true }, /argument "query"/],
			["get_tree", { session: "0000000000000000" }, /argument "session"/],
			["get_tree", { session: key, from: "zzzz" }, /argument "from"/],
			["get_context", { session: key, entry: "nope" }, /argument "entry"/],
			["get_entries", { session: key }, /argument "ids"/],
			["get_entries", { session: key, ids: [home.ids.a1], to: home.ids.a3 }, /argument "to"/],
			["get_entries", { session: key, from: home.ids.a2, to: home.ids.a3 }, /argument "from"/],
			["get_entries", { session: key, ids: [home.ids.a1, "nothing"] }, /argument "ids\[1\]"/],
			["compare_branches", { session: key, a: home.ids.a1 }, /\bb\b/],
			["get_context", { session: key, cursor: "not a cursor" }, /argument "cursor"/],
		];
		for (const [name, args, pattern] of cases) {
			const answer = await call(server.client, name, args);
			assert.equal(answer.isError, true, `${name} ${JSON.stringify(args)} fails`);
			assert.match(answer.text, /MCP error -32602/, `${name}: an invalid-params error`);
			assert.match(answer.text, pattern, `${name} ${JSON.stringify(args)}: ${answer.text}`);
		}
		// A write tool without --write is not there at all.
		const label = await call(server.client, "label", { session: key, entry: home.ids.a1, label: "x" });
		assert.equal(label.isError, true);
		assert.match(label.text, /label not found/);
	});
});

/** The leaf of a session, by get_tree's summary. */
async function leafOf(key: string | undefined): Promise<string> {
	const body = await ok<{ leafId: string }>(server.client, "get_tree", { session: key, limit: 1 });
	return body.result.leafId;
}
