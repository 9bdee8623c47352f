/**
 * The Claude.ai importer on the real export in test/fixtures/real/claude-ai/
 * (test/fixtures/real/SOURCES.md): a `conversations.json` of three conversations, one with the message
 * tree (`parent_message_uuid`, a retried answer with a server-side tool call and its result),
 * one of the older linear kind, and one without `chat_messages`. Expected prompts and counts
 * come from test/fixtures/real/derive-newfmt.py (expected.json), an independent Python reader;
 * the rest is derived by hand from the file, each with a line saying how.
 */

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionTreeError } from "../../src/core/errors.js";
import { detectFormat, importSources, importText, openImported, sniffFormat } from "../../src/import/index.js";
import { openForeignFile } from "../../src/import/open-foreign.js";
import type { ImportedSession } from "../../src/import/types.js";
import { assertCallsAnswered } from "./context-checks.js";
import {
	briefContext,
	entryOfNode,
	jsonlOf,
	kinds,
	ourContext,
	piContext,
	REPO,
	removeTemps,
	tempDir,
} from "./helpers.js";

after(removeTemps);

const FILE = join(REPO, "test", "fixtures", "real", "claude-ai", "chatlore-conversations.json");
const TEXT = readFileSync(FILE, "utf8");
type Json = Record<string, unknown>;
interface PerSession {
	toolResults: string[];
	firstPrompt: string | null;
	userPrompts: number;
	activeMessages: number;
}
const EXPECTED = (
	JSON.parse(readFileSync(join(REPO, "test", "fixtures", "real", "claude-ai", "expected.json"), "utf8")) as Record<
		string,
		{ sessions: number; perSession: Record<string, PerSession> }
	>
)["chatlore-conversations.json"] as { sessions: number; perSession: Record<string, PerSession> };

async function lenient(): Promise<ImportedSession[]> {
	return importText(TEXT, FILE, { lenient: true });
}

describe("Claude.ai export", () => {
	test("detected from its content (the whole file, and its start alone)", () => {
		assert.equal(detectFormat(TEXT), "claude-ai");
		assert.equal(sniffFormat(TEXT.slice(0, 400), true), "claude-ai");
	});

	test("strict: the conversation without chat_messages fails, naming it and the field", async () => {
		await assert.rejects(importText(TEXT, FILE), (error: unknown) => {
			assert.ok(error instanceof SessionTreeError);
			assert.equal(error.code, "INVALID_RECORD");
			assert.match(
				error.message,
				/\[2\] conversation \(aaaaaaaa-1111-4222-8333-000000000003 "Broken record"\), chat_messages/,
			);
			return true;
		});
	});

	test("lenient: the others imported, the broken one reported; pi reads each with our context", async () => {
		const sessions = await lenient();
		assert.equal(sessions.length, EXPECTED.sessions);
		assert.equal(sessions.flatMap((session) => session.skipped).length, 1);
		for (const imported of sessions) {
			const conversation = imported.state?.conversation as Json;
			const id = conversation.uuid as string;
			const expected = EXPECTED.perSession[id] as PerSession;
			const session = await openImported(imported, id);
			const { messages } = session.buildSessionContext();
			const prompts = (messages as Json[]).filter((message) => message.role === "user");
			assert.equal(prompts.length, expected.userPrompts);
			const first = prompts[0]?.content;
			const text = typeof first === "string" ? first : String(((first as Json[])[0] as Json).text);
			assert.equal(text.slice(0, 60), expected.firstPrompt);
			assertCallsAnswered(messages, expected.toolResults);
			assert.deepEqual(piContext(imported), await ourContext(imported));
		}
	});

	test("the message tree: a retried answer is a branch; the last leaf in file order is the leaf", async () => {
		const [tree] = (await lenient()) as [ImportedSession];
		// m1 (human) → m2 (assistant: thinking, text) | m3 (assistant: text, tool_use, tool_result) → m4 (human).
		// title + m1 + (model_change + m2) + (model_change + m3's call + its result) + m4 = 8.
		assert.equal(tree.records.length, 8);
		assert.deepEqual(kinds(tree), {
			session_info: 1,
			"message:user": 2,
			model_change: 2,
			"message:assistant": 2,
			"message:toolResult": 1,
		});
		const session = await openImported(tree, "tree");
		assert.equal(session.getSessionName(), "Rust lifetimes");
		assert.equal(session.listBranches().length, 2);
		// No current_leaf_message_uuid: the last message that has no child (m4) is the leaf.
		assert.equal(tree.leafId, entryOfNode(tree, "m4"));
		assert.deepEqual(briefContext(session), [
			"user: Why does this not",
			"assistant: Retried answer: move x",
			"toolResult(repl): Finished dev profile",
			"user: That worked, thanks.",
		]);
		const prompt = session.buildSessionContext().messages[0] as Json;
		// The attachment's extracted text and the uploaded file (not in the export) are named.
		assert.deepEqual(prompt.content, [
			{ type: "text", text: "Why does this not compile?" },
			{
				type: "text",
				text: "[attachment: main.rs (text/x-rust, 42 bytes)]\nfn main() { let r; { let x = 5; r = &x; } }",
			},
			{ type: "text", text: "[file: screenshot.png]" },
		]);
		// The other answer keeps its thinking.
		const m2 = tree.records.find((record) => record.id === entryOfNode(tree, "m2")) as unknown as { message: Json };
		assert.equal(((m2.message.content as Json[])[0] as Json).type, "thinking");
	});

	test("current_leaf_message_uuid names the leaf (the same file with it set to m2)", async () => {
		const doc = JSON.parse(TEXT) as Json[];
		(doc[0] as Json).current_leaf_message_uuid = "m2";
		const [tree] = await importText(JSON.stringify([doc[0]]), "one.json");
		assert.ok(tree);
		assert.equal(tree.leafId, entryOfNode(tree, "m2"));
		const session = await openImported(tree, "one");
		assert.deepEqual(briefContext(session), ["user: Why does this not", "assistant: x does not live"]);
	});

	test("the linear conversation: one chain in file order; an empty answer is kept but not sent", async () => {
		const [, linear] = (await lenient()) as [ImportedSession, ImportedSession];
		// title + o1 + model_change + o2 + o3 (text "   ": a custom entry) = 5, one chain.
		assert.deepEqual(kinds(linear), {
			session_info: 1,
			"message:user": 1,
			model_change: 1,
			"message:assistant": 1,
			"custom:claude-ai:empty-reply": 1,
		});
		const session = await openImported(linear, "linear");
		assert.equal(session.listBranches().length, 1);
		assert.deepEqual(briefContext(session), ["user: Give me a name", "assistant: Biscuit."]);
	});

	test("re-import is byte-identical; importing into the same place again changes nothing", async () => {
		const first = await lenient();
		const again = await lenient();
		assert.deepEqual(first.map(jsonlOf), again.map(jsonlOf));
		const dir = tempDir();
		const input = join(dir, "conversations.json");
		writeFileSync(input, TEXT);
		const out = join(dir, "sessions");
		const one = await importSources([input], { dir: out, lenient: true });
		assert.deepEqual(
			one.sessions.map((each) => each.status),
			["written", "written"],
		);
		const two = await importSources([input], { dir: out, lenient: true });
		assert.deepEqual(
			two.sessions.map((each) => each.status),
			["unchanged", "unchanged"],
		);
	});

	test("read directly: FILE#uuid opens one conversation read-only", async () => {
		const opened = await openForeignFile(`${FILE}#aaaaaaaa-1111-4222-8333-000000000002`, { lenient: true });
		assert.ok(opened);
		assert.equal(opened.format, "claude-ai");
		assert.equal(opened.session.getSessionName(), "Old style export");
		await assert.rejects(openForeignFile(FILE, { lenient: true }), /holds 2 sessions/);
	});
});
