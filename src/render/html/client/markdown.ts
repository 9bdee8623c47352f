/**
 * Markdown to DOM nodes, safely. `marked`'s lexer only splits the text into tokens; the nodes
 * are built here with createElement and text, so no HTML of the text is ever parsed:
 *
 * - raw HTML (blocks and inline tags) is shown as text;
 * - a link gets an `href` only for an absolute `http:`, `https:` or `mailto:` URL (with
 *   rel="noopener noreferrer nofollow"); any other destination (`javascript:`, `data:`,
 *   `vbscript:`, relative) is shown as text after the link's text;
 * - images never load: their alt text and URL are shown as text;
 * - character references in text (`&lt;`, `&#60;`) are decoded to the characters they name,
 *   as a browser would show them, and become text too.
 *
 * A text too long, or nested too deep, to lex quickly and safely is shown as plain text.
 */

import { Lexer, type Token, type Tokens } from "marked";
import { el, setAttr, textNode } from "./dom.js";

/** Longer texts are shown as plain text (lexing megabytes would stall the page). */
export const MARKDOWN_MAX_CHARS = 200_000;

/** The URL schemes a link may point to. */
const LINK_SCHEMES: ReadonlySet<string> = new Set(["http:", "https:", "mailto:"]);

/** The absolute URL a link may have as its `href`, or undefined when it may not be a link. */
export function safeHref(href: string): string | undefined {
	let url: URL;
	try {
		// No base: a relative reference throws, and is shown as text.
		url = new URL(href.trim());
	} catch {
		return undefined;
	}
	return LINK_SCHEMES.has(url.protocol) ? url.href : undefined;
}

const NAMED: Readonly<Record<string, string>> = {
	amp: "&",
	lt: "<",
	gt: ">",
	quot: '"',
	apos: "'",
	nbsp: "\u00a0",
	copy: "©",
	reg: "®",
	hellip: "…",
	mdash: "—",
	ndash: "–",
	laquo: "«",
	raquo: "»",
	middot: "·",
	times: "×",
	rarr: "→",
	larr: "←",
};

const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

/** Text with character references decoded (unknown names are left as they are). */
export function decodeReferences(text: string): string {
	if (!text.includes("&")) return text;
	return text.replace(REFERENCE, (whole, decimal: string | undefined, hex: string | undefined, name?: string) => {
		if (name !== undefined) return NAMED[name] ?? whole;
		const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? "", 16);
		if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\ufffd";
		return String.fromCodePoint(code);
	});
}

/** Renders Markdown text into a new `div.md`. */
export function renderMarkdown(text: string): HTMLElement {
	const root = el("div", { class: "md" });
	if (text.length > MARKDOWN_MAX_CHARS) {
		root.append(plain(text));
		return root;
	}
	try {
		const tokens = new Lexer({ gfm: true, breaks: false }).lex(text);
		const fragment = document.createDocumentFragment();
		blocks(tokens, fragment, 0);
		root.append(fragment);
	} catch {
		// Too deep for the lexer or for this renderer (a stack overflow): the text as it is.
		root.replaceChildren(plain(text));
	}
	return root;
}

/** Text as it is, in a block that keeps its line breaks. */
export function plain(text: string): HTMLElement {
	return el("div", { class: "plain", text });
}

/** Deeper nesting than this is shown flat, as text. */
const MAX_DEPTH = 40;

function blocks(tokens: readonly Token[], into: Node, depth: number): void {
	for (const token of tokens) {
		const node = block(token, depth);
		if (node) into.appendChild(node);
	}
}

function inlineInto(tokens: readonly Token[] | undefined, into: Node, depth: number): void {
	for (const token of tokens ?? []) into.appendChild(inline(token, depth));
}

function block(token: Token, depth: number): Node | undefined {
	if (depth > MAX_DEPTH) return el("p", { text: token.raw });
	const t = token as Tokens.Generic;
	switch (t.type) {
		case "space":
		case "def":
			return undefined;
		case "paragraph": {
			const p = el("p");
			inlineInto((t as Tokens.Paragraph).tokens, p, depth + 1);
			return p;
		}
		case "heading": {
			const heading = t as Tokens.Heading;
			const level = Math.min(6, Math.max(1, heading.depth));
			const node = el(`h${level}` as "h1", { class: "md-h" });
			inlineInto(heading.tokens, node, depth + 1);
			return node;
		}
		case "code": {
			const code = t as Tokens.Code;
			const pre = el("pre", { class: "code" });
			if (code.lang) pre.setAttribute("data-lang", code.lang);
			pre.append(el("code", { text: code.text }));
			return pre;
		}
		case "blockquote": {
			const quote = el("blockquote");
			blocks((t as Tokens.Blockquote).tokens, quote, depth + 1);
			return quote;
		}
		case "list":
			return list(t as Tokens.List, depth);
		case "table":
			return table(t as Tokens.Table, depth);
		case "hr":
			return el("hr");
		case "html":
			// Raw HTML is shown, never interpreted.
			return el("pre", { class: "raw-html", text: (t as Tokens.HTML).text });
		case "text": {
			// A list item's text: inline tokens, if any.
			const text = t as Tokens.Text;
			const span = el("span");
			if (text.tokens) inlineInto(text.tokens, span, depth + 1);
			else span.append(decodeReferences(text.text));
			return span;
		}
		default:
			return el("p", { text: t.raw });
	}
}

function list(token: Tokens.List, depth: number): HTMLElement {
	const node = token.ordered ? el("ol") : el("ul");
	if (token.ordered && typeof token.start === "number" && token.start !== 1) {
		node.setAttribute("start", String(token.start));
	}
	for (const item of token.items) {
		const li = el("li");
		if (item.task) li.className = "task";
		for (const child of item.tokens) {
			if (child.type === "checkbox") {
				li.append(el("span", { class: "checkbox", text: (child as Tokens.Checkbox).checked ? "☑ " : "☐ " }));
				continue;
			}
			const node = block(child, depth + 1);
			if (node) li.appendChild(node);
		}
		node.append(li);
	}
	return node;
}

function table(token: Tokens.Table, depth: number): HTMLElement {
	const head = el("tr");
	for (const cell of token.header) {
		const th = el("th");
		inlineInto(cell.tokens, th, depth + 1);
		head.append(th);
	}
	const body = el("tbody");
	for (const row of token.rows) {
		const tr = el("tr");
		for (const cell of row) {
			const td = el("td");
			inlineInto(cell.tokens, td, depth + 1);
			tr.append(td);
		}
		body.append(tr);
	}
	return el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, head), body));
}

function inline(token: Token, depth: number): Node {
	if (depth > MAX_DEPTH) return textNode(token.raw);
	const t = token as Tokens.Generic;
	switch (t.type) {
		case "text": {
			const text = t as Tokens.Text;
			if (text.tokens && text.tokens.length > 0) {
				const span = el("span");
				inlineInto(text.tokens, span, depth + 1);
				return span;
			}
			return textNode(decodeReferences(text.text));
		}
		case "escape":
			return textNode((t as Tokens.Escape).text);
		case "codespan":
			return el("code", { text: (t as Tokens.Codespan).text });
		case "strong": {
			const node = el("strong");
			inlineInto((t as Tokens.Strong).tokens, node, depth + 1);
			return node;
		}
		case "em": {
			const node = el("em");
			inlineInto((t as Tokens.Em).tokens, node, depth + 1);
			return node;
		}
		case "del": {
			const node = el("del");
			inlineInto((t as Tokens.Del).tokens, node, depth + 1);
			return node;
		}
		case "br":
			return el("br");
		case "link":
			return link(t as Tokens.Link, depth);
		case "image": {
			// Never loaded: the alt text and the URL, as text.
			const image = t as Tokens.Image;
			return el("span", { class: "md-image", text: `[image: ${image.text}] (${image.href})` });
		}
		case "html":
			return el("span", { class: "raw-html", text: (t as Tokens.Tag).text });
		default:
			return textNode(t.raw);
	}
}

function link(token: Tokens.Link, depth: number): Node {
	// A destination's character references mean their characters (CommonMark); an autolink's
	// are literal. The scheme is checked on the decoded URL.
	const href = safeHref(token.autolink === true ? token.href : decodeReferences(token.href));
	if (href === undefined) {
		const span = el("span", { class: "unsafe-link" });
		inlineInto(token.tokens, span, depth + 1);
		if (token.text !== token.href) span.append(el("span", { class: "link-url", text: ` (${token.href})` }));
		return span;
	}
	const a = el("a", { attrs: { href, rel: "noopener noreferrer nofollow", target: "_blank" } });
	if (typeof token.title === "string" && token.title !== "") setAttr(a, "title", token.title);
	inlineInto(token.tokens, a, depth + 1);
	return a;
}
