/**
 * The ChatGPT import a batch at a time (src/import/linked-import.ts) against the whole import
 * (`importChatGPT`), which chatgpt.test.ts checks by hand on every real sample. The expectation
 * here is the whole import itself, an independent path through the same converter: every batch
 * size must give exactly the records `sessionRecords` gives for it, the same leaf, skips, tool
 * pairing and answer to "holds a conversation"; and the CLI, which writes a batch at a time,
 * must write the bytes the whole import is written as.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import type { RawRecord } from "../../src/core/records.js";
import { importChatGPT, importChatGPTInBatches } from "../../src/import/chatgpt.js";
import { toolPairingOfRecords } from "../../src/import/context-check.js";
import { importSources, sessionRecords } from "../../src/import/index.js";
import { LinkedImport } from "../../src/import/linked-import.js";
import { type ImportedSession, isBatchedImport } from "../../src/import/types.js";
import { cli } from "../cli/helpers.js";
import { asJson, jsonlOf, removeTemps, sample, sampleText, tempDir } from "./helpers.js";

after(removeTemps);

type Json = Record<string, unknown>;

const SAMPLES = [
	"librechat-chatgpt-tree.json",
	"librechat-chatgpt-export.json",
	"librechat-chatgpt-citations.json",
	"polylogue-native-conversation-v1.json",
];

/** Every record a batched import writes, header first, taken `size` at a time. */
function batchedRecords(imported: ImportedSession, size: number): RawRecord[] {
	assert.ok(isBatchedImport(imported));
	const out: RawRecord[] = [imported.header as unknown as RawRecord];
	for (const batch of imported.recordsAfterHeader(size)) {
		assert.ok(batch.length > 0 && batch.length <= size, `a batch of ${batch.length} for size ${size}`);
		out.push(...batch);
	}
	return out;
}

/** True when a whole import holds a message a model is sent (what index.ts's `holdsConversation` asks). */
function holdsConversation(imported: ImportedSession): boolean {
	return imported.records.some((r) => r.type === "message" || r.type === "custom_message" || r.type === "compaction");
}

/**
 * Checks the batched import of `text` against the whole import: the same sessions (batched where
 * `current_node` names a node), the same records for each batch size, leaf, skips, probe and pairing.
 */
function sameAsWhole(
	text: string,
	name: string,
	lenient = false,
): { whole: ImportedSession[]; batched: ImportedSession[] } {
	const whole = importChatGPT({ name, text, lenient });
	const batched = importChatGPTInBatches({ name, text, lenient });
	assert.equal(batched.length, whole.length);
	whole.forEach((expected, i) => {
		const got = batched[i] as ImportedSession;
		const records = asJson(sessionRecords(expected));
		if (!isBatchedImport(got)) {
			// Converted whole (no current_node in the mapping): the same session as the whole import's.
			assert.deepEqual(asJson(got), asJson(expected));
			return;
		}
		assert.equal(got.holdsConversation(), holdsConversation(expected), `${name} [${i}] holds a conversation`);
		for (const size of [1, 3, 1000])
			assert.deepEqual(asJson(batchedRecords(got, size)), records, `${name} [${i}] in ${size}s`);
		assert.equal(got.leafId, expected.leafId);
		assert.deepEqual(got.skipped, expected.skipped);
		const pairing = toolPairingOfRecords(
			[expected.header as unknown as RawRecord, ...(expected.records as unknown as RawRecord[])],
			"x",
			expected.leafId,
		);
		// After a batched write (the branch kept as it went), and made whole for a fresh import.
		assert.deepEqual(got.toolPairing("x"), pairing);
		assert.deepEqual(asJson(got.records), asJson(expected.records));
		const fresh = importChatGPTInBatches({ name, text, lenient })[i] as ImportedSession;
		assert.ok(isBatchedImport(fresh));
		assert.deepEqual(fresh.toolPairing("x"), pairing);
		assert.equal(fresh.leafId, expected.leafId);
	});
	return { whole, batched };
}

/** A ChatGPT message node. */
function node(
	id: string,
	parent: string | null,
	children: string[],
	message: { role: string; text?: string; recipient?: string; model?: string; time?: number; name?: string } | null,
): Json {
	return {
		id,
		parent,
		children,
		message:
			message === null
				? null
				: {
						id,
						author: { role: message.role, ...(message.name ? { name: message.name } : {}) },
						create_time: message.time ?? 1_700_000_000,
						content: { content_type: "text", parts: [message.text ?? ""] },
						...(message.recipient ? { recipient: message.recipient } : {}),
						metadata: message.model ? { model_slug: message.model } : {},
					},
	};
}

/** A conversation of `nodes` (each made by {@link node}). */
function conversation(nodes: Json[], extra: Json = {}): Json {
	const mapping: Json = {};
	for (const each of nodes) mapping[each.id as string] = each;
	return { title: "made", create_time: 1_700_000_000, conversation_id: "c-1", mapping, ...extra };
}

describe("ChatGPT import a batch at a time", () => {
	for (const name of SAMPLES) {
		test(`${name}: every batch size gives the whole import's records`, () => {
			const text = sampleText("chatgpt", name);
			const file = sample("chatgpt", name);
			let strictError: unknown;
			try {
				importChatGPT({ name: file, text });
			} catch (error) {
				strictError = error;
			}
			if (strictError === undefined) sameAsWhole(text, file);
			// A sample the strict import refuses (citations: a parent not in the mapping) is refused alike.
			else
				assert.throws(() => importChatGPTInBatches({ name: file, text }), { message: (strictError as Error).message });
			const { batched } = sameAsWhole(text, file, true);
			// Batched where current_node names a node of the mapping (counted by hand in each file:
			// the citations sample's names none, every other sample's does).
			const named = name === "librechat-chatgpt-citations.json" ? 0 : batched.length;
			assert.equal(batched.filter(isBatchedImport).length, named);
		});
	}

	test("model changes, a tool call and its result, a branch: the same records", () => {
		const text = JSON.stringify(
			conversation(
				[
					node("root", null, ["u1"], null),
					node("u1", "root", ["a1", "a2"], { role: "user", text: "search" }),
					node("a1", "u1", ["t1"], { role: "assistant", text: "q", recipient: "browser.search", model: "gpt-4o" }),
					node("t1", "a1", ["a3"], { role: "tool", text: "found", name: "browser" }),
					node("a3", "t1", [], { role: "assistant", text: "answer", model: "o3" }),
					node("a2", "u1", [], { role: "assistant", text: "other", model: "gpt-4o" }),
				],
				{ current_node: "a3" },
			),
		);
		const { whole } = sameAsWhole(text, "made.json");
		// By hand: 1 title + 6 nodes + 3 model changes (gpt-4o on a1, o3 on a3, gpt-4o on a2) = 10.
		assert.equal(whole[0]?.records.length, 10);
	});

	test("a tool call the leaf leaves under way: reported pending, as the whole import reports it", () => {
		const text = JSON.stringify(
			conversation(
				[
					node("root", null, ["u1"], null),
					node("u1", "root", ["a1"], { role: "user", text: "run it" }),
					node("a1", "u1", [], { role: "assistant", text: "{}", recipient: "python", model: "gpt-4o" }),
				],
				{ current_node: "a1" },
			),
		);
		const { batched } = sameAsWhole(text, "made.json");
		const imported = batched[0] as ImportedSession;
		assert.ok(isBatchedImport(imported));
		// By hand: a1 calls python and nothing answers it: one call pending, no problem.
		assert.equal(imported.toolPairing("x").pending.length, 1);
	});

	test("a leaf that is not the last node and no title: a persisted-leaf record ends the batches", () => {
		const text = JSON.stringify(
			conversation(
				[
					node("root", null, ["u1"], null),
					node("u1", "root", ["a1", "a2"], { role: "user", text: "hi" }),
					node("a1", "u1", [], { role: "assistant", text: "one", model: "m" }),
					node("a2", "u1", [], { role: "assistant", text: "two", model: "m" }),
				],
				{ current_node: "a1", title: null },
			),
		);
		const { batched } = sameAsWhole(text, "made.json");
		const records = batchedRecords(batched[0] as ImportedSession, 2);
		const last = records[records.length - 1] as RawRecord;
		assert.equal(last.type, "leaf");
		assert.equal(records.filter((record) => record.type === "session_info").length, 0);
	});

	test("lenient: a cycle of parent links is cut, reported before anything is converted", () => {
		const text = JSON.stringify(
			conversation(
				[
					node("root", null, ["u1"], null),
					node("u1", "root", [], { role: "user", text: "hi" }),
					node("x", "y", ["y"], { role: "user", text: "x" }),
					node("y", "x", ["x"], { role: "assistant", text: "y", model: "m" }),
				],
				{ current_node: "u1" },
			),
		);
		const { batched } = sameAsWhole(text, "made.json", true);
		assert.match(String(batched[0]?.skipped.map((skip) => skip.reason)), /cycle of parent links/);
		assert.throws(() => importChatGPTInBatches({ name: "made.json", text }), /cycle of parent links/);
	});

	test("lenient: a current_node that names no node is imported whole, its last leaf the leaf", () => {
		const text = JSON.stringify(
			conversation([node("root", null, ["u1"], null), node("u1", "root", [], { role: "user", text: "hi" })], {
				current_node: "gone",
			}),
		);
		const { batched } = sameAsWhole(text, "made.json", true);
		assert.equal(isBatchedImport(batched[0] as ImportedSession), false);
		assert.match(String(batched[0]?.skipped.map((skip) => skip.reason)), /names node gone/);
	});

	test("lenient: what other conversations of the file left out comes first in a batched one's skips", () => {
		const good = conversation([node("root", null, ["u1"], null), node("u1", "root", [], { role: "user" })], {
			current_node: "u1",
		});
		const text = JSON.stringify([42, good]);
		const { batched } = sameAsWhole(text, "made.json", true);
		assert.ok(batched[0] instanceof LinkedImport);
		assert.equal(batched[0]?.skipped[0]?.where, "[0]");
	});

	test("a conversation of system nodes only holds no conversation", () => {
		const text = JSON.stringify(
			conversation([node("root", null, ["s1"], null), node("s1", "root", [], { role: "system", text: "" })], {
				current_node: "s1",
			}),
		);
		const { batched } = sameAsWhole(text, "made.json");
		const imported = batched[0] as ImportedSession;
		assert.ok(isBatchedImport(imported));
		assert.equal(imported.holdsConversation(), false);
	});

	test("session-tree import writes a batch at a time the bytes the whole import is written as", async () => {
		const text = sampleText("chatgpt", "librechat-chatgpt-export.json");
		const input = join(tempDir(), "conversations.json");
		writeFileSync(input, text);
		const dir = join(tempDir(), "out");
		const result = await cli(["import", input, "--dir", dir]);
		assert.equal(result.code, 0, result.stderr);
		const whole = importChatGPT({ name: input, text });
		const files = readdirSync(dir).sort();
		assert.equal(files.length, whole.length);
		for (const imported of whole) {
			const file = files.find((each) => each.includes(imported.header.id));
			assert.ok(file, `a file for ${imported.header.id}`);
			assert.equal(readFileSync(join(dir, file), "utf8"), jsonlOf(imported));
		}
		// The report counts what was written: the header, the entries, a leaf record if any.
		const report = await importSources([input], { dir: join(tempDir(), "again") });
		assert.deepEqual(
			report.sessions.map((session) => session.records),
			whole.map((imported) => sessionRecords(imported).length),
		);
	});
});
