import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SessionEntry } from "../../src/core/types.js";
import {
	codeSpan,
	escapeInline,
	fence,
	type MarkdownInput,
	openBlockCloser,
	renderMarkdown,
} from "../../src/render/markdown.js";

const T = "2026-01-01T00:00:00.000Z";
let next = 0;

/** An entry with a fresh id, chained to nothing (the renderer does not look at parents). */
function entry(fields: Record<string, unknown>): SessionEntry {
	next++;
	return { id: `e${String(next).padStart(7, "0")}`, parentId: null, timestamp: T, ...fields } as SessionEntry;
}

const user = (content: unknown) => entry({ type: "message", message: { role: "user", content, timestamp: 1 } });
const assistant = (content: unknown[], extra: Record<string, unknown> = {}) =>
	entry({
		type: "message",
		message: { role: "assistant", content, provider: "anthropic", model: "claude-x", timestamp: 1, ...extra },
	});
const toolResult = (text: string, extra: Record<string, unknown> = {}) =>
	entry({
		type: "message",
		message: {
			role: "toolResult",
			toolCallId: "c1",
			toolName: "bash",
			content: [{ type: "text", text }],
			isError: false,
			timestamp: 1,
			...extra,
		},
	});

function md(entries: SessionEntry[], extra: Partial<MarkdownInput> = {}): string {
	return renderMarkdown({
		sessionId: "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000",
		cwd: "/home/me/project",
		leafId: entries.at(-1)?.id ?? null,
		entries,
		...extra,
	});
}

/**
 * The fenced blocks of a Markdown document by CommonMark's rules for the top level: for each,
 * its info string and content. Fails on a fence that is never closed.
 */
function fencedBlocks(doc: string): Array<{ info: string; content: string }> {
	const blocks: Array<{ info: string; content: string }> = [];
	let open: { char: string; length: number; info: string; lines: string[] } | undefined;
	for (const line of doc.split("\n")) {
		const match = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
		if (open) {
			if (match && match[1]?.[0] === open.char && (match[1]?.length ?? 0) >= open.length && match[2]?.trim() === "") {
				blocks.push({ info: open.info, content: open.lines.join("\n") });
				open = undefined;
			} else open.lines.push(line);
		} else if (match && !(match[1]?.[0] === "`" && match[2]?.includes("`"))) {
			open = { char: match[1]?.[0] as string, length: match[1]?.length as number, info: match[2] ?? "", lines: [] };
		}
	}
	assert.equal(open, undefined, "a fence is left open");
	return blocks;
}

describe("renderMarkdown: title and header line", () => {
	test("the session name, else the first user message (one line, 80 characters), else the id", () => {
		const q = user("What is a B-tree?\nAnd a trie?");
		assert.ok(md([q], { name: "ci setup" }).startsWith("# ci setup\n\n"));
		assert.ok(md([q]).startsWith("# What is a B-tree? And a trie?\n\n"));
		const long = md([user([{ type: "text", text: "x".repeat(200) }])]);
		assert.ok(long.startsWith(`# ${"x".repeat(80)}…\n`));
		assert.ok(md([]).startsWith("# Session 0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000\n"));
		// An image-only first message gives no title; the next user message does.
		assert.ok(
			md([user([{ type: "image", data: "AAAA", mimeType: "image/png" }]), user("second")]).startsWith("# second\n"),
		);
	});

	test("the title is literal text: markup and HTML escaped", () => {
		const out = md([user("<script>alert(1)</script> *bold* [x](http://e) #")]);
		assert.equal(out.split("\n")[0], "# \\<script\\>alert(1)\\</script\\> \\*bold\\* \\[x\\](http://e) \\#");
	});

	test("then the session id, the cwd and the leaf; an empty path says so", () => {
		const q = user("hi");
		assert.equal(
			md([q]).split("\n")[2],
			`Session \`0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000\` · cwd \`/home/me/project\` · leaf \`${q.id}\``,
		);
		const empty = md([]);
		assert.match(empty, /· leaf \(before the first entry\)\n/);
		assert.ok(empty.endsWith("\n\n*(no entries)*\n"));
		assert.match(md([], { cwd: "/a`b" }), /cwd ``\/a`b`` /);
	});
});

describe("renderMarkdown: entries", () => {
	test("user and assistant: headings, text as it is, with <, > and Markdown kept", () => {
		const out = md([
			user("Why does `a < b` fail?\n\n- one\n- two"),
			assistant([{ type: "text", text: "Because **<T>** is generic.\n\n" }]),
		]);
		assert.match(
			out,
			/\n### User\n\nWhy does `a < b` fail\?\n\n- one\n- two\n\n### Assistant \(anthropic\/claude-x\)\n\n/,
		);
		assert.ok(out.endsWith("\n\nBecause **<T>** is generic.\n"));
	});

	test("thinking in <details> with a fixed summary; redacted thinking as one line", () => {
		const out = md([
			assistant([
				{ type: "thinking", thinking: "Plain **Markdown** step 1" },
				{ type: "thinking", thinking: "</summary><b>pwned</b> step 2" },
				{ type: "thinking", thinking: "", redacted: true },
				{ type: "thinking", thinking: "  " },
				{ type: "text", text: "Done." },
			]),
		]);
		// Markdown as it is; a thought that reads as HTML in a fence (test/render/escapes.test.ts).
		assert.match(
			out,
			/\n<details><summary>Thinking<\/summary>\n\nPlain \*\*Markdown\*\* step 1\n\n<\/details>\n\n<details><summary>Thinking<\/summary>\n\n```\n<\/summary><b>pwned<\/b> step 2\n```\n\n<\/details>\n\n\*Thinking \(redacted\)\*\n\nDone\.\n$/,
		);
		// The only HTML written is the wrapper, and its summary is fixed text.
		assert.deepEqual(
			out.split("\n").filter((line) => line.startsWith("<details>")),
			["<details><summary>Thinking</summary>", "<details><summary>Thinking</summary>"],
		);
	});

	test("tool calls: the name, then the arguments as a json fence", () => {
		const out = md([
			assistant([{ type: "toolCall", id: "c1", name: "read", arguments: { path: "src/a.ts", limit: 80 } }]),
		]);
		assert.ok(out.includes('\n\n**Tool call** `read`\n```json\n{\n  "path": "src/a.ts",\n  "limit": 80\n}\n```\n'));
	});

	test("tool results: a fence without a language; (error); cut to 40 lines with a note", () => {
		const short = md([toolResult("ok\n", { isError: true, toolName: "edit" })]);
		assert.ok(short.includes("### Tool result `edit` (error)\n\n```\nok\n```\n"));

		const lines = Array.from({ length: 45 }, (_, i) => `line ${i + 1}`);
		const cut = md([toolResult(lines.join("\n"))]);
		assert.ok(cut.includes(`\`\`\`\n${lines.slice(0, 40).join("\n")}\n\`\`\`\n\n… 5 more lines\n`));
		assert.doesNotMatch(cut, /line 41/);
		const one = md([toolResult(Array.from({ length: 41 }, () => "x").join("\n"))]);
		assert.match(one, /\n… 1 more line\n$/);
		assert.doesNotMatch(md([toolResult("x\n".repeat(40))]), /more line/);
		assert.match(md([toolResult("")]), /### Tool result `bash`\n\n\*\(no output\)\*\n$/);
		assert.match(md([toolResult("a", { isError: false })], { resultLines: 0 }), /… 1 more line/);
	});

	test("bash executions: a console fence with the command; exit code and flags in the heading", () => {
		const bash = (fields: Record<string, unknown>) =>
			entry({ type: "message", message: { role: "bashExecution", timestamp: 1, ...fields } });
		const out = md([
			bash({ command: "git status --short", output: " M a.ts\n", exitCode: 0, cancelled: false }),
			bash({ command: "cat ~/.netrc", output: "", exitCode: 1, excludeFromContext: true }),
			bash({ command: "sleep 100", output: "", cancelled: true, truncated: true }),
		]);
		assert.ok(out.includes("### Bash (exit 0)\n\n```console\n$ git status --short\n M a.ts\n```\n"));
		assert.ok(out.includes("### Bash (exit 1, not sent to the model)\n\n```console\n$ cat ~/.netrc\n```\n"));
		assert.ok(out.includes("### Bash (cancelled, output truncated)\n\n```console\n$ sleep 100\n```\n"));
	});

	test("images as [image: mime/type], never their data", () => {
		const data = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB";
		const out = md([
			user([
				{ type: "text", text: "Look:" },
				{ type: "image", data, mimeType: "image/png" },
			]),
			entry({
				type: "message",
				message: {
					role: "toolResult",
					toolCallId: "c",
					toolName: "screenshot",
					content: [{ type: "image", data, mimeType: "image/jpeg" }],
					isError: false,
					timestamp: 1,
				},
			}),
			user([{ type: "image", data, mimeType: "x](javascript:alert(1))" }]),
		]);
		assert.ok(out.includes("### User\n\nLook:\n\n[image: image/png]\n"));
		assert.ok(out.includes("### Tool result `screenshot`\n\n[image: image/jpeg]\n"));
		assert.ok(out.includes("[image: x\\](javascript:alert(1))]"));
		assert.ok(!out.includes(data));
	});

	test("compaction and branch summaries as blockquotes", () => {
		const out = md([
			entry({
				type: "compaction",
				summary: "## Goal\nFix the loader.\n\n```\ncode\n",
				firstKeptEntryId: "abcd1234",
				tokensBefore: 48213,
			}),
			entry({ type: "branch_summary", fromId: "root", summary: "Started over." }),
			entry({ type: "branch_summary", fromId: "ffff0000", summary: "" }),
		]);
		assert.ok(
			out.includes(
				"\n> **Compaction summary** (48,213 tokens before; kept from `abcd1234`)\n>\n> ## Goal\n> Fix the loader.\n>\n> ```\n> code\n\n",
			),
		);
		assert.ok(out.includes("\n> **Branch summary** (from `root`)\n>\n> Started over.\n\n"));
		assert.ok(out.endsWith("\n> **Branch summary** (from `ffff0000`)\n>\n> *(empty)*\n"));
	});

	test("custom messages like user text with their customType; changes and custom entries as one line", () => {
		const out = md([
			entry({ type: "custom_message", customType: "reminder", content: "Run the *tests*.", display: true }),
			entry({ type: "message", message: { role: "custom", customType: "direct", content: "x", display: true } }),
			entry({ type: "model_change", provider: "openai", modelId: "gpt-5" }),
			entry({ type: "thinking_level_change", thinkingLevel: "high" }),
			entry({ type: "custom", customType: "todo-ext", data: { secret: 1 } }),
			entry({ type: "future_kind" }),
		]);
		assert.ok(out.includes("\n### Custom message `reminder`\n\nRun the *tests*.\n\n"));
		assert.ok(out.includes("\n### Custom message `direct`\n\nx\n\n"));
		assert.ok(
			out.endsWith(
				"\n*Model: `openai/gpt-5`*\n\n*Thinking level: `high`*\n\n*Custom entry `todo-ext`*\n\n*Entry of type `future_kind`*\n",
			),
		);
		assert.doesNotMatch(out, /secret/);
	});

	test("assistant stops, empty messages and unknown roles", () => {
		const out = md([
			assistant([{ type: "text", text: "" }], { stopReason: "error", errorMessage: "overloaded\nretry" }),
			assistant([], { stopReason: "aborted" }),
			user(""),
			entry({ type: "message", message: { role: "note", content: "hello" } }),
		]);
		assert.ok(out.includes("### Assistant (anthropic/claude-x)\n\n*Stopped (error):* overloaded retry\n\n"));
		assert.ok(out.includes("### Assistant (anthropic/claude-x)\n\n*Stopped (aborted):*\n\n"));
		assert.ok(out.includes("### User\n\n*(empty)*\n\n"));
		assert.ok(out.endsWith("### Message `note`\n\nhello\n"));
	});

	test("labels after the heading (escaped); label, session_info and leaf entries are not printed", () => {
		const q = user("question");
		const a = assistant([{ type: "text", text: "answer" }]);
		const m = entry({ type: "model_change", provider: "p", modelId: "m" });
		const c = entry({ type: "compaction", summary: "s", firstKeptEntryId: q.id, tokensBefore: 1 });
		const labels = new Map([
			[q.id, "start"],
			[a.id, "  good *answer*  "],
			[m.id, "switch"],
			[c.id, "compacted"],
		]);
		const out = md(
			[
				q,
				a,
				m,
				entry({ type: "label", targetId: q.id, label: "start" }),
				entry({ type: "session_info", name: "the name" }),
				c,
				entry({ type: "leaf", targetId: c.id }),
			],
			{ label: (id) => labels.get(id) },
		);
		assert.ok(out.includes("\n### User 🏷 start\n\nquestion\n"));
		assert.ok(out.includes("\n### Assistant (anthropic/claude-x) 🏷 good \\*answer\\*\n\nanswer\n"));
		assert.ok(out.includes("\n*Model: `p/m`* 🏷 switch\n"));
		assert.ok(out.includes("\n> **Compaction summary** (1 token before; kept from "));
		assert.match(out, /`\) 🏷 compacted\n>\n> s\n$/);
		assert.doesNotMatch(out, /the name|Entry of type/);
		assert.equal(out.match(/^### /gm)?.length, 2);
	});
});

describe("fences are safe", () => {
	test("content holding ``` and ```` gets a longer fence, and cannot break out", () => {
		const three = "before\n```\nrm -rf /\n```\nafter";
		const four = "x ```` y\n````";
		const out = md([
			assistant([{ type: "toolCall", id: "c", name: "write", arguments: { content: three } }]),
			toolResult(three),
			toolResult(four),
			entry({ type: "message", message: { role: "bashExecution", command: "echo '```'", output: four, exitCode: 0 } }),
		]);
		assert.ok(out.includes(`\n\`\`\`\`\n${three}\n\`\`\`\`\n`));
		assert.ok(out.includes(`\n\`\`\`\`\`\n${four}\n\`\`\`\`\`\n`));
		assert.ok(out.includes(`\n\`\`\`\`\`console\n$ echo '\`\`\`'\n${four}\n\`\`\`\`\`\n`));
		const blocks = fencedBlocks(out);
		assert.deepEqual(
			blocks.map((block) => block.content),
			[JSON.stringify({ content: three }, null, 2), three, four, `$ echo '\`\`\`'\n${four}`],
		);
		assert.deepEqual(
			blocks.map((block) => block.info),
			["json", "", "", "console"],
		);
	});

	test("fence(): any mix of backticks stays inside", () => {
		const pieces = ["`", "``", "```", "````", "`````", "\n", "a", " ", "~~~", "\n```\n", "\n````json\n"];
		for (let i = 0; i < 400; i++) {
			let content = "";
			let seed = i * 7919 + 13;
			for (let j = 0; j < 8; j++) {
				seed = (seed * 1103515245 + 12345) % 2147483648;
				content += pieces[seed % pieces.length];
			}
			const blocks = fencedBlocks(`${fence(content, "")}\n`);
			assert.equal(blocks.length, 1, JSON.stringify(content));
			assert.equal(blocks[0]?.content, content.replace(/\n$/, ""), JSON.stringify(content));
		}
	});

	test("a text that leaves a fence or a raw HTML block open gets it closed", () => {
		const out = md([
			assistant([{ type: "text", text: "Here:\n````ts\nconst a = 1;\n```\n" }], { stopReason: "length" }),
			user("<!-- draft\nnot shown"),
			user("<pre>\nraw"),
			user("### Next"),
		]);
		assert.ok(out.includes("Here:\n````ts\nconst a = 1;\n```\n````\n\n*Stopped (length):*\n"));
		assert.ok(out.includes("<!-- draft\nnot shown\n-->\n\n"));
		assert.ok(out.includes("<pre>\nraw\n</pre>\n\n"));
		assert.equal(fencedBlocks(out).length, 1);
		assert.match(out, /\n### User\n\n### Next\n$/);
	});

	test("openBlockCloser follows CommonMark's fences and HTML blocks", () => {
		assert.equal(openBlockCloser("a\n```\nb\n```"), undefined);
		assert.equal(openBlockCloser("```\nb"), "```");
		assert.equal(openBlockCloser("~~~~\n~~~\nb"), "~~~~");
		assert.equal(openBlockCloser("````\n```\n"), "````");
		assert.equal(openBlockCloser("```\n```` \nb"), undefined);
		assert.equal(openBlockCloser("``` not `a fence`"), undefined);
		assert.equal(openBlockCloser("    ```\nindented code"), undefined);
		assert.equal(openBlockCloser("```\n<!-- in code\n```"), undefined);
		assert.equal(openBlockCloser("<!-- x -->\ntext"), undefined);
		assert.equal(openBlockCloser("<!--\nx"), "-->");
		assert.equal(openBlockCloser("<SCRIPT>\nx"), "</script>");
		assert.equal(openBlockCloser("<pre>x</pre>"), undefined);
		assert.equal(openBlockCloser("<?php\nx"), "?>");
		assert.equal(openBlockCloser("<![CDATA[\nx"), "]]>");
		assert.equal(openBlockCloser("<!DOCTYPE\nx"), ">");
		assert.equal(openBlockCloser("<div>\nx"), undefined);
	});

	test("inline code spans and escapes", () => {
		assert.equal(codeSpan("a"), "`a`");
		assert.equal(codeSpan("a`b"), "``a`b``");
		assert.equal(codeSpan("`x``"), "``` `x`` ```");
		assert.equal(codeSpan("line\nbreak"), "`line break`");
		assert.equal(codeSpan(""), "` `");
		assert.equal(escapeInline("a_b *c* [d](e) <f> #1 & ~g\n"), "a\\_b \\*c\\* \\[d\\](e) \\<f\\> \\#1 \\& \\~g ");
	});
});

test("terminal safety: escape sequences removed, controls replaced, line ends normalised", () => {
	const out = md([toolResult("\u001b[31mFAIL\u001b[0m\r\nbell\u0007\rend\u202e")]);
	assert.ok(out.includes("```\nFAIL\nbell\ufffd\nend\n```\n"));
	assert.ok(!out.includes("\u001b"));
});
