/**
 * The Gemini CLI importer on the real recordings in test/fixtures/real/gemini/ (older one-object
 * `.json` files, test/fixtures/real/SOURCES.md), and on JSONL logs made from one of them the way Gemini
 * CLI itself makes them: resuming a `.json` session writes its metadata and every message as
 * lines of a `.jsonl` (ChatRecordingService.initialize), and the records appended after that
 * are the ones its recording service writes (a message written again whole as it changes,
 * `$set` updates, `$rewindTo`, a `$set.messages` checkpoint). Expected counts, prompts and tool
 * results come from test/fixtures/real/derive-newfmt.py (expected.json), an independent Python
 * reader; the rest is derived by hand, each with a line saying how.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionTreeError } from "../../src/core/errors.js";
import { detectFormat, importText, openImported, sniffFormat } from "../../src/import/index.js";
import { openForeignFile, sniffFile } from "../../src/import/open-foreign.js";
import type { ImportedSession } from "../../src/import/types.js";
import { assertCallsAnswered } from "./context-checks.js";
import { briefContext, jsonlOf, kinds, ourContext, piContext, REPO, removeTemps } from "./helpers.js";

after(removeTemps);

const DIR = join(REPO, "test", "fixtures", "real", "gemini");
type Json = Record<string, unknown>;
interface Expected {
	format: string;
	sessions: number;
	toolResults: string[];
	firstPrompt: string | null;
	userPrompts: number;
}
const EXPECTED = JSON.parse(readFileSync(join(DIR, "expected.json"), "utf8")) as Record<string, Expected>;
const text = (name: string) => readFileSync(join(DIR, name), "utf8");

/** Messages of a context that are real prompts (user messages; Gemini's injected ones are custom entries here). */
function userTexts(messages: readonly unknown[]): string[] {
	return (messages as Json[])
		.filter((message) => message.role === "user")
		.map((message) =>
			typeof message.content === "string"
				? message.content
				: (message.content as Json[])
						.filter((block) => block.type === "text")
						.map((block) => String(block.text))
						.join(""),
		);
}

async function importStrict(source: string, name: string): Promise<ImportedSession> {
	const sessions = await importText(source, name);
	assert.equal(sessions.length, 1);
	return sessions[0] as ImportedSession;
}

describe("Gemini CLI: the real recordings", () => {
	for (const [name, expected] of Object.entries(EXPECTED)) {
		test(`${name}: detected, imported, pi reads our context, every recorded result follows its call`, async () => {
			assert.equal(detectFormat(text(name)), "gemini");
			const imported = await importStrict(text(name), join(DIR, name));
			assert.equal(imported.format, expected.format);
			const session = await openImported(imported, name);
			const { messages } = session.buildSessionContext();
			const prompts = userTexts(messages);
			assert.equal(prompts.length, expected.userPrompts);
			assert.equal(prompts[0]?.slice(0, 60), expected.firstPrompt);
			assertCallsAnswered(messages, expected.toolResults);
			assert.equal(imported.skipped.length, 0);
			assert.deepEqual(piContext(imported), await ourContext(imported));
			// Re-import: byte-identical.
			assert.equal(jsonlOf(await importStrict(text(name), join(DIR, name))), jsonlOf(imported));
		});
	}

	test("mgemini-session-2025-12-28…: every message kept, info and error not sent (counted by hand)", async () => {
		const name = "mgemini-session-2025-12-28T04-02-3d0463e2.json";
		const imported = await importStrict(text(name), name);
		// The file: error, info, user, then 6 gemini replies of which the first 5 call
		// run_shell_command once each (status success, a result each); no `summary`.
		assert.deepEqual(kinds(imported), {
			"custom:gemini:error": 1,
			"custom:gemini:info": 1,
			"message:user": 1,
			model_change: 1,
			"message:assistant": 6,
			"message:toolResult": 5,
		});
		assert.equal(imported.header.id, "3d0463e2-5112-49de-9fde-a36e17975bd8");
		assert.equal(imported.header.timestamp, "2025-12-28T04:03:32.120Z");
		const session = await openImported(imported, name);
		// One chain: a single leaf, the last reply.
		assert.equal(session.listBranches().length, 1);
		const context = session.buildSessionContext();
		assert.deepEqual(context.model, { provider: "google", modelId: "gemini-3-flash-preview" });
		assert.equal(briefContext(session)[0], "user: install 1password cli tool");
		assert.equal(context.messages.length, 1 + 6 + 5);
		// Thoughts become thinking blocks before the text, as Gemini CLI sends them back.
		const reply = context.messages[1] as Json;
		const blocks = reply.content as Json[];
		assert.equal(blocks[0]?.type, "thinking");
		assert.match(String(blocks[0]?.thinking), /^\*\*.+\*\* /);
		// tokens → usage: input without the cached part, thoughts counted as output.
		const record = (
			JSON.parse(text(name)) as {
				messages: Array<{ tokens: { input: number; cached: number; output: number; thoughts: number; total: number } }>;
			}
		).messages[3]?.tokens;
		assert.ok(record);
		assert.deepEqual(
			{ ...(reply.usage as Json), cost: undefined },
			{
				input: record.input - record.cached,
				output: record.output + record.thoughts,
				cacheRead: record.cached,
				cacheWrite: 0,
				totalTokens: record.total,
				cost: undefined,
			},
		);
	});

	test("read directly: told from its first 64 KiB too (a lenient open looks only there), opened read-only", async () => {
		// aim-…json is 68,060 bytes, pretty-printed: only its head is looked at.
		const name = "aim-control_pro_run4_abandoned.json";
		assert.ok(text(name).length > 65536);
		assert.equal(sniffFormat(text(name).slice(0, 65536), true), "gemini");
		assert.equal(sniffFile(join(DIR, name)), "gemini");
		const opened = await openForeignFile(join(DIR, name), { lenient: true });
		assert.equal(opened?.format, "gemini");
		assert.equal(opened?.session.getHeader().id, "95ee2bc8-b4a1-47fb-8db8-b0cfe91bee88");
	});

	test("a summary names the session (mgemini-session-2026-01-10…, `summary` field)", async () => {
		const name = "mgemini-session-2026-01-10T01-33-08d1e5f6.json";
		const source = JSON.parse(text(name)) as { summary: string };
		const session = await openImported(await importStrict(text(name), name), name);
		assert.equal(session.getSessionName(), source.summary);
	});
});

// ---- JSONL logs, made from a real recording as Gemini CLI makes them ---------------------------

const BASE = "mgemini-session-2025-12-28T04-02-3d0463e2.json";
const line = (record: unknown) => `${JSON.stringify(record)}\n`;

/** The `.jsonl` Gemini CLI writes when it resumes the `.json` recording: its metadata, then each message. */
function resumedLog(): { log: string; doc: Json; messages: Json[] } {
	const doc = JSON.parse(text(BASE)) as Json;
	const messages = doc.messages as Json[];
	const { sessionId, projectHash, startTime, lastUpdated } = doc;
	let log = line({ sessionId, projectHash, startTime, lastUpdated });
	for (const message of messages) log += line(message);
	log += line({ $set: { sessionId } });
	return { log, doc, messages };
}

const T = (s: number) => `2025-12-28T05:00:${String(s).padStart(2, "0")}.000Z`;
const ask = (id: string, s: number, prompt: string) => ({
	id,
	timestamp: T(s),
	type: "user",
	content: [{ text: prompt }],
});
const call = (id: string, withResult: boolean) => ({
	id,
	name: "run_shell_command",
	args: { command: "op --version" },
	status: withResult ? "success" : "executing",
	timestamp: T(3),
	...(withResult
		? {
				result: [{ functionResponse: { id, name: "run_shell_command", response: { output: "Output: 2.32.0" } } }],
			}
		: {}),
});
const reply = (id: string, s: number, content: string, toolCalls?: unknown[], tokens?: unknown) => ({
	id,
	timestamp: T(s),
	type: "gemini",
	content,
	thoughts: [],
	...(tokens ? { tokens } : {}),
	model: "gemini-3-flash-preview",
	...(toolCalls ? { toolCalls } : {}),
});

describe("Gemini CLI: JSONL logs", () => {
	test("a resumed log gives the same conversation as the .json it came from", async () => {
		const { log } = resumedLog();
		assert.equal(detectFormat(log), "gemini");
		const fromLog = await importStrict(log, "session.jsonl");
		const fromJson = await importStrict(text(BASE), BASE);
		const a = await openImported(fromLog, "log");
		const b = await openImported(fromJson, "json");
		assert.deepEqual(briefContext(a), briefContext(b));
		assert.equal(fromLog.header.id, fromJson.header.id);
	});

	test("a message written again updates its entry; a rewind becomes a branch; nothing is lost", async () => {
		const { log: start, messages } = resumedLog();
		const last = messages[messages.length - 1] as Json;
		let log = start;
		log += line(ask("u-1", 1, "check the version"));
		log += line({ $set: { lastUpdated: T(1) } });
		// recordToolCalls: the reply with its call, not run yet; then the same id again once it ran, with tokens.
		log += line(reply("g-1", 2, "", [call("call-1", false)]));
		log += line(
			reply("g-1", 2, "", [call("call-1", true)], { input: 10, output: 2, cached: 0, thoughts: 0, tool: 0, total: 12 }),
		);
		// The newest Gemini CLI also records the response as a user message of functionResponse parts.
		log += line({
			id: "u-resp",
			timestamp: T(4),
			type: "user",
			content: [
				{ functionResponse: { id: "call-1", name: "run_shell_command", response: { output: "Output: 2.32.0" } } },
			],
		});
		log += line(reply("g-2", 5, "Version 2.32.0 is installed."));
		// The user rewinds to before "check the version" and asks something else.
		log += line({ $rewindTo: "u-1" });
		log += line(ask("u-2", 10, "thanks, that is all"));
		log += line(reply("g-3", 11, "You're welcome."));
		log += line({ $set: { summary: "Install the 1Password CLI" } });

		const imported = await importStrict(log, "session-2025-12-28T05-00-3d0463e2.jsonl");
		const session = await openImported(imported, "log");
		// Two leaves: the rewound turn (its reply g-2) and the new one; the leaf is the new path's end.
		assert.equal(session.listBranches().length, 2);
		const entryOf = (id: string) =>
			imported.records.find(
				(record) =>
					(record as unknown as { source?: Json }).source?.id === id &&
					!("toolCall" in ((record as unknown as { source: Json }).source ?? {})) &&
					(record as unknown as { source: Json }).source.response === undefined,
			);
		const lastEntry = imported.records.find(
			(record) => (record as unknown as { source?: Json }).source?.id === last.id,
		);
		const rewind = imported.records.find((record) => record.type === "custom" && record.customType === "gemini:rewind");
		assert.ok(rewind && lastEntry);
		// The rewind hangs where the rewound message did (under the last message of the resumed log),
		// and the next prompt under it.
		assert.equal(entryOf("u-1")?.parentId, rewind.parentId);
		assert.equal(entryOf("u-2")?.parentId, rewind.id);
		const context = session.buildSessionContext().messages;
		const tail = briefContext(session).slice(-2);
		assert.deepEqual(tail, ["user: thanks, that is all", "assistant: You're welcome."]);
		assert.ok(!briefContext(session).some((each) => each.includes("check the version")));
		// The summary names the session; pi reads the same context.
		assert.equal(session.getSessionName(), "Install the 1Password CLI");
		assertCallsAnswered(context);
		assert.deepEqual(piContext(imported), await ourContext(imported));

		// The side branch: the updated reply (one entry, both copies in its source) with its result,
		// once, though the source records it twice.
		const g1 = entryOf("g-1") as unknown as { id: string; source: Json };
		assert.deepEqual((g1.source.at as number[]).length, 2);
		assert.deepEqual((g1.source.earlier as Json[])[0]?.changed, { toolCalls: [call("call-1", false)] });
		const branch = session.getBranch(session.listBranches().find((leaf) => leaf !== session.getLeafId()) as string);
		const onBranch = branch
			.filter((entry) => entry.type === "message")
			.map((entry) => (entry as { message: Json }).message);
		assert.equal(onBranch.filter((message) => message.role === "toolResult").length, 5 + 1);
		assertCallsAnswered(onBranch);
		assert.ok(branch.some((entry) => entry.type === "custom" && entry.customType === "gemini:tool-response"));
		// Re-import: byte-identical.
		assert.equal(jsonlOf(await importStrict(log, "session-2025-12-28T05-00-3d0463e2.jsonl")), jsonlOf(imported));
	});

	test("a `$set.messages` checkpoint that changes the conversation continues beside it", async () => {
		const { log: start, messages } = resumedLog();
		// Gemini CLI's updateMessagesFromHistory after the history was cut to its first three messages.
		const kept = messages.slice(0, 3);
		const log = `${start}${line({ $set: { messages: kept, lastUpdated: T(20) } })}${line(ask("u-9", 21, "start over"))}`;
		const imported = await importStrict(log, "session.jsonl");
		const session = await openImported(imported, "log");
		assert.equal(session.listBranches().length, 2);
		// The file's first three messages are error, info, and the prompt: the leaf's context is the prompt, then "start over".
		assert.deepEqual(briefContext(session), ["user: install 1password cli tool", "user: start over"]);
		assert.ok(imported.records.some((record) => record.type === "custom" && record.customType === "gemini:checkpoint"));
		assert.deepEqual(piContext(imported), await ourContext(imported));
	});

	test("a subagent's recording names its parent session (chats/<parent>/<id>.jsonl)", async () => {
		const log = `${line({ sessionId: "sub-1", projectHash: "h", startTime: T(0), lastUpdated: T(0), kind: "subagent" })}${line(ask("s-1", 1, "look around"))}`;
		const [imported] = await importText(
			log,
			"/home/me/.gemini/tmp/proj/chats/3d0463e2-5112-49de-9fde-a36e17975bd8/sub-1.jsonl",
		);
		assert.equal(imported?.header.parentSession, "3d0463e2-5112-49de-9fde-a36e17975bd8");
	});

	test("bad records: strict names the file, the line and the field; lenient keeps them and reports", async () => {
		const { log: start } = resumedLog();
		const lines = start.split("\n").length;
		const log = `${start}${line({ id: "x-1", timestamp: T(1), content: "no type" })}`;
		await assert.rejects(importText(log, "broken.jsonl"), (error: unknown) => {
			assert.ok(error instanceof SessionTreeError);
			assert.equal(error.code, "INVALID_RECORD");
			assert.equal(error.file, "broken.jsonl");
			assert.equal(error.line, lines);
			assert.match(error.message, /`type`/);
			return true;
		});
		const [lenient] = await importText(log, "broken.jsonl", { lenient: true });
		assert.equal(lenient?.skipped.length, 1);
		assert.ok(lenient?.records.some((record) => record.type === "custom" && record.customType === "gemini:record"));
		await assert.rejects(importText(`${line(ask("a", 1, "hi"))}`, "no-meta.jsonl", { from: "gemini" }), /sessionId/);
	});
});
