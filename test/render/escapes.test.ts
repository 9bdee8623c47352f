/**
 * `md`'s thinking fold (issue 30, item 7): nothing in a thought can close the `<details>` it is
 * folded in, or put HTML into the document. Checked on what `marked` (a CommonMark and GFM
 * parser, as GitHub's) makes of the Markdown: the only raw HTML is the wrapper, and the HTML
 * has the whole thought inside `<details>` and no element of its own.
 */

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Lexer, marked, type Token } from "marked";
import type { SessionEntry } from "../../src/core/types.js";
import { renderMarkdown } from "../../src/render/markdown.js";

const WRAPPER = ["<details><summary>Thinking</summary>", "</details>"];

/** The Markdown of one assistant message: `thinking`, then a text reply. */
function markdownOf(thinking: string): string {
	const entry = {
		type: "message",
		id: "a0000001",
		parentId: null,
		timestamp: "2026-01-01T00:00:00.000Z",
		message: {
			role: "assistant",
			content: [
				{ type: "thinking", thinking },
				{ type: "text", text: "The reply after the fold." },
			],
			provider: "anthropic",
			model: "claude-x",
			timestamp: 1,
		},
	} as unknown as SessionEntry;
	return renderMarkdown({ sessionId: "s", cwd: "/p", leafId: entry.id, entries: [entry] });
}

/** Every raw HTML token (block or inline) marked finds, trimmed. */
function rawHtml(markdown: string): string[] {
	const found: string[] = [];
	marked.walkTokens(new Lexer({ gfm: true }).lex(markdown), (token: Token) => {
		if (token.type === "html") found.push(token.raw.trim());
	});
	return found;
}

/** Thoughts that end a `<details>` or start HTML in every way CommonMark allows. */
const HOSTILE = [
	"Let me think </details><script>alert(1)</script> and go on.",
	"First step.\n\n</details>\n\n<script>alert(2)</script>\n\nstill thinking",
	"<details><summary>x</summary> an element of its own",
	"An unclosed comment <!-- swallows the rest",
	"<!--\nblock comment without an end",
	"A code span `</details>` and a fence:\n```\n</details><script>alert(3)</script>\n```",
	"A fence left open\n```\n</details>",
	"<img src=x onerror=alert(4)> an image",
	"<?php echo 1; ?> and <![CDATA[ x ]]>",
	"Generics: Array<string> and Map<K, V>",
];

describe("md: the thinking fold holds the whole thought and no HTML", () => {
	for (const thought of HOSTILE) {
		test(JSON.stringify(thought), () => {
			const markdown = markdownOf(thought);
			assert.deepEqual(rawHtml(markdown), WRAPPER, markdown);
			const html = marked.parse(markdown, { async: false, gfm: true });
			assert.doesNotMatch(html, /<script|<img|<!--|<\?/i, html);
			const open = html.indexOf("<details>");
			const close = html.indexOf("</details>");
			assert.ok(open !== -1 && close > open, html);
			const fold = html.slice(open, close);
			// The thought's last word is inside the fold, the reply after it.
			const last =
				thought
					.split(/\s+/)
					.at(-1)
					?.replace(/[<>&"]/g, "") ?? "";
			assert.ok(fold.includes(last), `${JSON.stringify(last)} is not inside the fold: ${html}`);
			assert.ok(html.indexOf("The reply after the fold.") > close, html);
		});
	}

	test("a thought without HTML stays Markdown", () => {
		const markdown = markdownOf("Check **this** first, then `x < y` and &lt;/details&gt;.");
		assert.deepEqual(rawHtml(markdown), WRAPPER);
		assert.match(markdown, /\n\nCheck \*\*this\*\* first, then `x < y` and &lt;\/details&gt;\.\n\n<\/details>/);
		const html = marked.parse(markdown, { async: false, gfm: true });
		assert.match(html, /<details><summary>Thinking<\/summary>\s*<p>Check <strong>this<\/strong>/);
	});
});
