import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { SessionEntry } from "../../src/core/types.js";
import { contentText, describeEntry, describeMessage, oneLine, sanitize } from "../../src/render/preview.js";

test("oneLine collapses whitespace and line breaks of every kind", () => {
	assert.equal(oneLine("  a\n\nb\r\nc\td\u2028e\u2029f\u0085g  "), "a b c d e f g");
});

test("oneLine cuts at the limit with an ellipsis, never inside a grapheme", () => {
	assert.equal(oneLine("abcdef", 6), "abcdef");
	assert.equal(oneLine("abcdefg", 6), "abcdef…");
	assert.equal(oneLine("abc   defg", 4), "abc…");
	const family = "👩‍👩‍👧‍👦";
	assert.equal(oneLine(`${family}${family}${family}`, 2), `${family}${family}…`);
	assert.equal(oneLine("e\u0301e\u0301e\u0301", 2), "e\u0301e\u0301…");
});

test("oneLine is fast on a megabyte and marks the cut", () => {
	const big = "word ".repeat(200_000);
	const started = Date.now();
	const line = oneLine(big, 20);
	assert.ok(Date.now() - started < 100);
	assert.equal(line, "word word word word…");
});

test("sanitize: each of the 65,536 code units between two letters, as its rules say", () => {
	// The rules written out here, apart from the module's expressions: bidi controls and the BOM
	// dropped, C0 and C1 controls, DEL and the line and paragraph separators blanked, a surrogate
	// half alone repaired, anything else kept (printable ASCII among it, which sanitize does not scan three times).
	const bidi = (c: number) =>
		c === 0x061c || c === 0x200e || c === 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
	for (let c = 0; c <= 0xffff; c++) {
		const char = String.fromCharCode(c);
		let expected = char;
		if (bidi(c) || c === 0xfeff) expected = "";
		else if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029) expected = " ";
		else if (c >= 0xd800 && c <= 0xdfff) expected = "\ufffd";
		const got = sanitize(`a${char}b`);
		if (got !== `a${expected}b`) assert.fail(`U+${c.toString(16).padStart(4, "0")}: ${JSON.stringify(got)}`);
	}
	assert.equal(sanitize(" ~ printable ASCII ~ "), " ~ printable ASCII ~ ");
});

test("sanitize drops bidi controls and the BOM, blanks controls, repairs lone surrogates", () => {
	assert.equal(sanitize("a\u202eb\u2066c\u200fd\ufeffe"), "abcde");
	assert.equal(sanitize("a\u0000b\u001b[0mc\u007fd\u009be"), "a b [0mc d e");
	assert.equal(sanitize("x\ud800y\udc00z"), "x\ufffdy\ufffdz");
	assert.equal(sanitize("ok \ud83d\ude00"), "ok \ud83d\ude00");
	assert.equal(sanitize("  spaces kept  "), "  spaces kept  ");
});

test("contentText: strings, text blocks, and tags for other blocks", () => {
	assert.equal(contentText("plain"), "plain");
	assert.equal(
		contentText([
			{ type: "text", text: "look" },
			{ type: "image", data: "", mimeType: "image/png" },
			{ type: "thinking", thinking: "hmm" },
			{ type: "thinking", thinking: "", redacted: true },
			{ type: "toolCall", id: "1", name: "read", arguments: { path: "a.ts" } },
			{ type: "mystery" },
		]),
		'look [image image/png] [thinking] hmm [thinking, redacted] → read({"path":"a.ts"}) [mystery]',
	);
	assert.equal(contentText(undefined), "");
});

test("describeMessage knows every role", () => {
	assert.deepEqual(describeMessage({ role: "user", content: "hi" }), { kind: "user", text: "hi" });
	assert.deepEqual(describeMessage({ role: "toolResult", toolName: "bash", isError: true, content: "boom" }), {
		kind: "toolResult",
		text: "bash (error): boom",
	});
	assert.deepEqual(describeMessage({ role: "bashExecution", command: "ls", exitCode: 2 }), {
		kind: "bashExecution",
		text: "$ ls (exit 2)",
	});
	assert.deepEqual(describeMessage({ role: "custom", customType: "note", content: "x" }), {
		kind: "custom",
		text: "note: x",
	});
	assert.deepEqual(describeMessage({ role: "compactionSummary", summary: "s", tokensBefore: 1 }), {
		kind: "compaction summary",
		text: "s",
	});
	assert.deepEqual(describeMessage({ role: "branchSummary", summary: "s", fromId: "root" }), {
		kind: "branch summary",
		text: "s",
	});
	assert.deepEqual(describeMessage({ role: "assistant", content: [], stopReason: "aborted" }), {
		kind: "assistant",
		text: "(aborted) ",
	});
	assert.deepEqual(describeMessage({ role: "weird" }), { kind: "weird", text: "" });
	assert.deepEqual(describeMessage(null), { kind: "message", text: "" });
});

test("describeEntry knows every entry type", () => {
	const base = { id: "00000001", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };
	const cases: Array<[Record<string, unknown>, string, string]> = [
		[{ type: "message", message: { role: "user", content: "q" } }, "user", "q"],
		[
			{ type: "compaction", summary: "sum", firstKeptEntryId: "abcd0001", tokensBefore: 5 },
			"compaction",
			"sum (kept from abcd0001)",
		],
		[{ type: "branch_summary", summary: "why", fromId: "root" }, "branch_summary", "why (from root)"],
		[{ type: "branch_summary", summary: "", fromId: "abcd0001" }, "branch_summary", "(from abcd0001)"],
		[{ type: "model_change", provider: "openai", modelId: "gpt-5" }, "model_change", "openai/gpt-5"],
		[{ type: "thinking_level_change", thinkingLevel: "high" }, "thinking_level_change", "high"],
		[{ type: "custom", customType: "ext" }, "custom", "ext"],
		[{ type: "custom_message", customType: "ext", content: "hi", display: true }, "custom_message", "ext: hi"],
		[{ type: "label", targetId: "abcd0001", label: "x" }, "label", 'abcd0001 "x"'],
		[{ type: "label", targetId: "abcd0001" }, "label", "abcd0001 (cleared)"],
		[{ type: "session_info", name: "n" }, "session_info", "n"],
		[{ type: "session_info", name: "" }, "session_info", "(name cleared)"],
		[{ type: "leaf", targetId: "abcd0001" }, "leaf", "→ abcd0001"],
		[{ type: "future_type" }, "future_type", ""],
	];
	for (const [fields, kind, text] of cases) {
		assert.deepEqual(describeEntry({ ...base, ...fields } as unknown as SessionEntry), { kind, text });
	}
});

test("oneLine cuts as the grapheme segmenter does, on any text (property, against Intl.Segmenter)", () => {
	// The reference: every text through the segmenter, as oneLine did before its fast path.
	const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
	const reference = (text: string, max: number): string => {
		const clean = sanitize(text).replace(/\s+/g, " ").trim();
		const clusters = [...segmenter.segment(clean)].map((part) => part.segment);
		return clusters.length > max ? `${clusters.slice(0, max).join("").trimEnd()}…` : clean;
	};
	// Letters, marks, jamo, Thai and Lao AM, ZWJ, emoji, flags, spaces: what joins clusters and what does not.
	const pieces = fc.constantFrom(
		"a",
		"é",
		"e\u0301",
		"\u0915\u094d\u0937",
		"\u1100\u1161\u11a8",
		"\uac00\u11a8",
		"\u0e01\u0e33",
		"\u0eb3",
		"\u0600\u0661",
		"👩\u200d👩",
		"🇫🇷",
		"👍🏽",
		"ｶﾞ",
		"\u200c",
		" ",
		"\n",
		"“",
		"中",
		// Since the segmenter is asked only about the stretches around joining characters
		// (preview.ts, cutClusters): what joins across a stretch's edge, or does not.
		"❤\u200d🔥",
		"👩\u200d❤",
		"🇫",
		"\uac00",
		"\u0301",
		"✅",
		"\ud83d",
	);
	fc.assert(
		fc.property(fc.array(pieces, { maxLength: 60 }), fc.integer({ min: 1, max: 30 }), (parts, max) => {
			const text = parts.join("");
			assert.equal(oneLine(text, max), reference(text, max));
		}),
		{ numRuns: 2000 },
	);
});
