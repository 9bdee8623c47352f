/** The text a search looks at, shared by the catalog and the full-text indexes. */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { searchableTexts } from "../../src/core/search-text.js";

describe("searchableTexts", () => {
	test("messages: text, thinking, tool results, bash; custom messages and summaries", () => {
		assert.deepEqual(
			searchableTexts({
				type: "message",
				message: {
					role: "assistant",
					content: [
						{ type: "thinking", thinking: "hmm" },
						{ type: "text", text: "answer" },
						{ type: "toolCall", id: "t", name: "bash", arguments: { command: "ls" } },
					],
				},
			}),
			{ role: "assistant", texts: ["hmm", "answer"] },
		);
		assert.deepEqual(
			searchableTexts({ type: "message", message: { role: "bashExecution", command: "ls", output: "a b" } }),
			{ role: "bashExecution", texts: ["ls", "a b"] },
		);
		assert.deepEqual(searchableTexts({ type: "custom_message", content: [{ type: "text", text: "c" }] }), {
			role: "custom_message",
			texts: ["c"],
		});
		assert.deepEqual(searchableTexts({ type: "compaction", summary: "s" }), { role: "compaction", texts: ["s"] });
		assert.deepEqual(searchableTexts({ type: "branch_summary", summary: "b" }), {
			role: "branch_summary",
			texts: ["b"],
		});
		assert.equal(searchableTexts({ type: "label", label: "x" }), undefined);
	});
});
