/**
 * An agent loop over `session-tree mcp`: a scripted model that decides each step from the tool
 * results it has read (and from nothing else) answers a question whose answer only a side branch
 * of an older session holds. The loop is the usual one: the model gets the transcript, asks for
 * a tool or answers; a tool call goes through the SDK's `Client` to the real server over stdio and
 * its text is appended to the transcript.
 *
 * The HOME: an older pi session where the port of the staging database was settled on a branch
 * the user then left (the active branch postponed the decision), newer sessions that talk about
 * staging without a port, and the usual files of other agents. The expected answer (6543) is
 * written here, in the session the test builds; the model never sees it but through the tools.
 */

import assert from "node:assert/strict";
import { rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Session } from "../../src/session.js";
import { assistantMessage, userMessage } from "../support/messages.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { buildMcpHome, type Connected, connectStdio, type McpHome, PROJECT } from "./support.js";

/** A step of the model: a tool call, or the final answer. */
type Step =
	| { tool: string; args: Record<string, unknown> }
	| { answer: string; source: { session: string; entry: string } };

/** What the loop keeps: the question, then each call and the text it returned. */
type Transcript = Array<{ role: "user"; text: string } | { role: "tool"; tool: string; text: string }>;

interface Hit {
	session: string;
	entry: string;
	role: string;
	branch: string;
}

/**
 * The scripted model. Its policy, from the transcript alone: search the question's key words
 * (longest first); read, whole, every assistant hit not read yet, newest session first; answer
 * with the first port number an answer states; give up after its words run out.
 */
class ScriptedModel {
	/** `branch` is passed to every search (an agent that sees only active branches, as flat transcripts give). */
	constructor(private readonly branch?: "active") {}

	next(transcript: Transcript): Step {
		const question = (transcript[0] as { text: string }).text;
		const words = question
			.toLowerCase()
			.split(/[^a-z]+/)
			.filter((word) => word.length > 4 && !["which", "where", "there", "about"].includes(word))
			.sort((a, b) => b.length - a.length);
		const results = transcript.filter((item) => item.role === "tool") as Array<{ tool: string; text: string }>;
		// An entry read: does it state a port?
		for (const item of results.filter((result) => result.tool === "get_entries")) {
			const body = JSON.parse(item.text) as {
				result: { session: string; entries: Array<{ entry: { id: string; message?: { content?: unknown } } }> };
			};
			for (const { entry } of body.result.entries) {
				const port = /\bport (\d{2,5})\b/i.exec(JSON.stringify(entry.message?.content ?? ""));
				if (port) return { answer: port[1] as string, source: { session: body.result.session, entry: entry.id } };
			}
		}
		const read = new Set(
			results
				.filter((result) => result.tool === "get_entries")
				.flatMap(
					(result) =>
						(JSON.parse(result.text) as { result: { entries: Array<{ entry: { id: string } }> } }).result.entries,
				)
				.map((item) => item.entry.id),
		);
		const hits = results
			.filter((result) => result.tool === "search")
			.flatMap((result) => (JSON.parse(result.text) as { result: { hits: Hit[] } }).result.hits);
		const unread = hits.find((hit) => hit.role === "assistant" && !read.has(hit.entry));
		if (unread) return { tool: "get_entries", args: { session: unread.session, ids: [unread.entry] } };
		const searched = results.filter((result) => result.tool === "search").length;
		const word = words[searched];
		if (word !== undefined)
			return {
				tool: "search",
				args: { query: word, ignoreCase: true, limit: 10, ...(this.branch ? { branch: this.branch } : {}) },
			};
		return { answer: "I could not find it", source: { session: "", entry: "" } };
	}
}

/** Runs the loop: at most `steps` tool calls. */
async function runLoop(
	server: Connected,
	question: string,
	model = new ScriptedModel(),
	steps = 12,
): Promise<{ final: Step; transcript: Transcript }> {
	const transcript: Transcript = [{ role: "user", text: question }];
	for (let step = 0; step < steps; step++) {
		const next = model.next(transcript);
		if ("answer" in next) return { final: next, transcript };
		const result = (await server.client.callTool({ name: next.tool, arguments: next.args })) as {
			isError?: boolean;
			content: Array<{ text: string }>;
		};
		assert.notEqual(result.isError, true, `${next.tool}: ${result.content[0]?.text}`);
		transcript.push({ role: "tool", tool: next.tool, text: result.content.map((part) => part.text).join("") });
	}
	throw new Error("the loop did not end");
}

let home: McpHome;
let server: Connected;
let answerEntry: string;
let older: string;

const say = (s: Session, role: "user" | "assistant", text: string) =>
	s.appendMessage(role === "user" ? userMessage(text, Date.now()) : assistantMessage(text, Date.now()));

// `session-tree mcp` opens the catalog index (SQLite).
before(async () => {
	if (SQLITE_SKIP) return;
	home = await buildMcpHome();
	const dir = join(home.branched, "..");
	const s = await Session.create({ dir, cwd: PROJECT });
	const q = await say(s, "user", "The staging database clashes with the CI runner on 5432. Pick another one.");
	answerEntry = await say(s, "assistant", "Then staging listens on port 6543; I changed docker-compose.staging.yml.");
	await say(s, "user", "Good, commit it.");
	// The user went back and asked for something else: the port stays on the branch left behind.
	await s.branch(q);
	await say(s, "assistant", "Let us postpone the staging database change until the CI migration.");
	older = s.file as string;
	await s.close();
	const then = new Date("2025-04-01T09:00:00.000Z");
	utimesSync(older, then, then);
	const newer = await Session.create({ dir, cwd: PROJECT });
	await say(newer, "user", "Is the staging deploy green?");
	await say(newer, "assistant", "Yes, the staging deploy passed; the database migration ran.");
	await newer.close();
	server = await connectStdio(home.home);
});

after(async () => {
	await server?.close();
	if (home) rmSync(home.home, { recursive: true, force: true });
});

describe("an agent loop over session-tree mcp", { skip: SQLITE_SKIP }, () => {
	test("answers from a side branch of an older session, found and read through the tools", async () => {
		const { final, transcript } = await runLoop(server, "Which port did we choose for the staging database?");
		assert.ok("answer" in final, "the model answered");
		assert.equal(final.answer, "6543");
		assert.equal(final.source.entry, answerEntry);
		const tools = transcript.filter((item) => item.role === "tool").map((item) => (item as { tool: string }).tool);
		assert.ok(tools.includes("search") && tools.includes("get_entries"), tools.join(", "));
		// Every result the model read was marked as quoted session content.
		for (const item of transcript.filter((entry) => entry.role === "tool"))
			assert.match((item as { text: string }).text, /"notice":"Quoted session content/);
	});

	test("the answer is on no active branch: the same loop confined to active branches does not find it", async () => {
		const { final } = await runLoop(
			server,
			"Which port did we choose for the staging database?",
			new ScriptedModel("active"),
		);
		assert.ok("answer" in final);
		assert.equal(final.answer, "I could not find it");
		const hits = (await server.client.callTool({
			name: "search",
			arguments: { query: "6543", branch: "active" },
		})) as { content: Array<{ text: string }> };
		assert.deepEqual((JSON.parse(hits.content[0]?.text as string) as { result: { hits: unknown[] } }).result.hits, []);
		const side = (await server.client.callTool({ name: "search", arguments: { query: "6543" } })) as {
			content: Array<{ text: string }>;
		};
		const found = (JSON.parse(side.content[0]?.text as string) as { result: { hits: Hit[] } }).result.hits;
		assert.deepEqual(
			found.map((hit) => [hit.entry, hit.branch]),
			[[answerEntry, "side"]],
		);
		assert.ok(older);
	});
});
