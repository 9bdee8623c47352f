/**
 * A path of a session (root → leaf) as Markdown, for pasting into a bug report or a chat
 * (`session-tree md`). A pure function of the entries; nothing is read or written.
 *
 * The rules:
 *
 * - Title: `# <session name, else the first user message on the path, else "Session <id>">`,
 *   one line, cut to 80 characters; then a line `Session `ID` · cwd `CWD` · leaf `ID``.
 * - Every entry on the path, in order, separated by blank lines:
 *   - user message: `### User`, then its text blocks as they are (they are Markdown already);
 *   - assistant message: `### Assistant (provider/model)`, then its blocks in order: text as it
 *     is; thinking as `<details><summary>Thinking</summary>` … `</details>`, as Markdown, or
 *     in a fence when it holds something that reads as HTML (redacted thinking as
 *     `*Thinking (redacted)*`); each tool call as `**Tool call** `name`` followed by its
 *     arguments, pretty-printed, in a fenced `json` block; a message that stopped on an error,
 *     an abort or the length limit says so in a `*Stopped (reason):*` line;
 *   - tool result: `### Tool result `name`` (` (error)` when it failed), then its text in a fenced
 *     block without a language, cut to 40 lines with a `… N more lines` line after it;
 *   - bash execution (pi's `!command`): `### Bash` with the exit code (or `cancelled`, `output
 *     truncated`, `not sent to the model`), then `$ command` and the output in a fenced
 *     `console` block, the output cut as a tool result's;
 *   - custom message (entry or message): `### Custom message `customType``, then its content as
 *     a user message's;
 *   - images anywhere: `[image: mime/type]` (the base64 data is never written);
 *   - compaction and branch summary: a blockquote that starts `> **Compaction summary**` (with
 *     the tokens before and the entry kept from) or `> **Branch summary**` (with where it came
 *     from), then the summary, as Markdown, inside the quote;
 *   - model change and thinking level change: one italic line, `*Model: `provider/model`*`,
 *     `*Thinking level: `level`*`; a custom entry (extension state) `*Custom entry `type`*`;
 *     an entry of an unknown type `*Entry of type `type`*`;
 *   - leaf records, `session_info` (the name) and `label` entries are not printed as entries;
 *     the label in effect for an entry follows its heading (or its one line) as ` 🏷 label`.
 * - Fences are safe: every fence (``` or longer) is longer than the longest run of backticks in
 *   what it holds, and every inline code span likewise, so no content can end them early. A
 *   text that leaves a fence of its own open (a reply cut off mid-code), or a raw HTML block
 *   that only a marker ends (`<!--`, `<pre>`, …), gets the closing line added, so the rest of
 *   the document is not swallowed.
 * - Content is data: the only HTML written is the `<details>` wrapper, whose `<summary>` holds
 *   only fixed text and whose body holds nothing that reads as HTML, so nothing can close it.
 *   Text of messages and summaries is written as it is (`<`, `>` included); one-line metadata
 *   (title, labels, model names, custom types) has Markdown's punctuation escaped, so it cannot
 *   become a link, emphasis or markup.
 * - Terminal safety: escape sequences (colours in tool output) are removed, other control
 *   characters become U+FFFD, bidi controls are dropped, line ends become `\n`.
 */

import type { BranchSummaryEntry, CompactionEntry, SessionRecord, UnknownEntry } from "../core/types.js";
import { isObject } from "../core/validate.js";
import { BIDI_CONTROL_CLASS, countOf, oneLine } from "./preview.js";
import { stripAnsi } from "./terminal.js";
import { firstPrompt } from "./title.js";

/** Lines of a tool result or a bash output that are printed; the rest become `… N more lines`. */
export const MARKDOWN_RESULT_LINES = 40;

/** Characters of the title. */
export const MARKDOWN_TITLE_LENGTH = 80;

/** What {@link renderMarkdown} renders. */
export interface MarkdownInput {
	/** The session id (the header's). */
	sessionId: string;
	/** The working directory of the session (the header's). */
	cwd: string;
	/** The session name, if it has one. */
	name?: string | undefined;
	/** The entry the path ends at, or null for a path before the first entry. */
	leafId: string | null;
	/** The entries from the root to the leaf, in order (`getBranch`). */
	entries: readonly SessionRecord[];
	/** The label in effect for an entry, if any (`getLabel`). */
	label?: (id: string) => string | undefined;
	/** Lines of a tool result or bash output to print. Default {@link MARKDOWN_RESULT_LINES}. */
	resultLines?: number;
}

/** The path as a Markdown document, ending with a newline. */
export function renderMarkdown(input: MarkdownInput): string {
	const maxLines = input.resultLines ?? MARKDOWN_RESULT_LINES;
	const blocks: string[] = [`# ${markdownTitle(input)}`, headerLine(input)];
	let printed = 0;
	for (const entry of input.entries) {
		const chunks = entryBlocks(entry, maxLines, input.label);
		if (chunks.length === 0) continue;
		blocks.push(...chunks);
		printed++;
	}
	if (printed === 0) blocks.push("*(no entries)*");
	return `${blocks.join("\n\n")}\n`;
}

/** What {@link writeMarkdown} writes: a {@link MarkdownInput} whose entries are read as they are written. */
export interface MarkdownStreamInput extends Omit<MarkdownInput, "entries"> {
	/** The title ({@link markdownTitle} of the same input). */
	title: string;
	/** The entries from the root to the leaf, in order: each need not be kept once the next is asked for. */
	entries: Iterable<SessionRecord>;
}

/**
 * The document {@link renderMarkdown} makes, the same text, given to `write` piece by piece:
 * the title and the header, then each entry's blocks as soon as the entry is read. With entries
 * read as they are reached (`Session.walkBranch`), a long path of a large session costs one
 * body and its Markdown at a time, not every body and the whole document.
 */
export function writeMarkdown(input: MarkdownStreamInput, write: (text: string) => void): void {
	const maxLines = input.resultLines ?? MARKDOWN_RESULT_LINES;
	write(`# ${input.title}\n\n${headerLine(input)}`);
	let printed = 0;
	for (const entry of input.entries) {
		const chunks = entryBlocks(entry, maxLines, input.label);
		if (chunks.length === 0) continue;
		write(`\n\n${chunks.join("\n\n")}`);
		printed++;
	}
	write(printed === 0 ? "\n\n*(no entries)*\n" : "\n");
}

/** The blocks of one entry with its label after the first line (none: not printed). */
function entryBlocks(entry: SessionRecord, maxLines: number, labelOf: MarkdownInput["label"]): string[] {
	const chunks = renderEntry(entry, maxLines);
	if (chunks.length === 0) return chunks;
	const label = labelOf?.(entry.id);
	if (label !== undefined && label.trim() !== "") {
		const first = chunks[0] as string;
		const end = first.indexOf("\n");
		const tag = ` 🏷 ${escapeInline(label.trim())}`;
		chunks[0] = end < 0 ? `${first}${tag}` : `${first.slice(0, end)}${tag}${first.slice(end)}`;
	}
	return chunks;
}

// ---- the title ----------------------------------------------------------------------------

/**
 * The document's title, without `# `: the session name, else the first user message on the
 * path, else `Session ID`. The entries are read up to that message only.
 */
export function markdownTitle(input: {
	name?: string | undefined;
	sessionId: string;
	entries: Iterable<SessionRecord>;
}): string {
	const name = input.name === undefined ? "" : oneLine(input.name, MARKDOWN_TITLE_LENGTH);
	if (name !== "") return escapeInline(name);
	// What the person typed, not what the agent injected (src/render/title.ts).
	const text = oneLine(clean(firstPrompt(input.entries) ?? ""), MARKDOWN_TITLE_LENGTH);
	if (text !== "") return escapeInline(text);
	return `Session ${escapeInline(input.sessionId)}`;
}

function headerLine(input: Pick<MarkdownInput, "sessionId" | "cwd" | "leafId">): string {
	const leaf = input.leafId === null ? "(before the first entry)" : codeSpan(input.leafId);
	return `Session ${codeSpan(input.sessionId)} · cwd ${codeSpan(input.cwd)} · leaf ${leaf}`;
}

// ---- entries ------------------------------------------------------------------------------

/** The Markdown of one entry, as blocks to be separated by blank lines (none: not printed). */
function renderEntry(entry: SessionRecord, maxLines: number): string[] {
	switch (entry.type) {
		case "message":
			return renderMessage(entry.message, maxLines);
		case "compaction":
			return [compaction(entry)];
		case "branch_summary":
			return [branchSummary(entry)];
		case "custom_message":
			return [`### Custom message ${codeSpan(String(entry.customType))}`, ...contentBlocks(entry.content)];
		case "model_change":
			return [`*Model: ${codeSpan(`${String(entry.provider)}/${String(entry.modelId)}`)}*`];
		case "thinking_level_change":
			return [`*Thinking level: ${codeSpan(String(entry.thinkingLevel))}*`];
		case "custom":
			return [`*Custom entry ${codeSpan(String(entry.customType))}*`];
		case "label":
		case "session_info":
		case "leaf":
			return [];
		default: {
			// A type this version does not know (outside the union, so `entry` is `never` here).
			const unknown: UnknownEntry = entry;
			return [`*Entry of type ${codeSpan(String(unknown.type))}*`];
		}
	}
}

function renderMessage(message: unknown, maxLines: number): string[] {
	if (!isObject(message)) return ["### Message", "*(unreadable)*"];
	const role = typeof message.role === "string" ? message.role : "";
	switch (role) {
		case "user":
			return orEmpty(["### User", ...contentBlocks(message.content)]);
		case "assistant":
			return orEmpty(assistant(message));
		case "toolResult": {
			const error = message.isError === true ? " (error)" : "";
			return [
				`### Tool result ${codeSpan(String(message.toolName))}${error}`,
				...toolResult(message.content, maxLines),
			];
		}
		case "bashExecution":
			return bash(message, maxLines);
		case "custom":
			return orEmpty([`### Custom message ${codeSpan(String(message.customType))}`, ...contentBlocks(message.content)]);
		default:
			return orEmpty([`### Message ${codeSpan(role === "" ? "(no role)" : role)}`, ...contentBlocks(message.content)]);
	}
}

/** A heading alone gets `*(empty)*` below it. */
function orEmpty(blocks: string[]): string[] {
	return blocks.length === 1 ? [...blocks, "*(empty)*"] : blocks;
}

function assistant(message: Record<string, unknown>): string[] {
	const provider = typeof message.provider === "string" ? message.provider : "";
	const model = typeof message.model === "string" ? message.model : "";
	const which =
		provider || model ? ` (${escapeInline([provider, model].filter((part) => part !== "").join("/"))})` : "";
	const blocks = [`### Assistant${which}`];
	const content: unknown = message.content;
	if (typeof content === "string") {
		if (content.trim() !== "") blocks.push(markdownText(content));
	} else if (Array.isArray(content)) {
		for (const block of content) blocks.push(...assistantBlock(block));
	}
	const reason = message.stopReason;
	if (reason === "error" || reason === "aborted" || reason === "length") {
		const detail =
			typeof message.errorMessage === "string" && message.errorMessage.trim() !== ""
				? ` ${escapeInline(oneLine(clean(message.errorMessage), 300))}`
				: "";
		blocks.push(`*Stopped (${reason}):*${detail}`);
	}
	return blocks;
}

function assistantBlock(block: unknown): string[] {
	if (!isObject(block)) return [];
	switch (block.type) {
		case "text":
			return typeof block.text === "string" && block.text.trim() !== "" ? [markdownText(block.text)] : [];
		case "thinking": {
			if (block.redacted === true) return ["*Thinking (redacted)*"];
			const thought = typeof block.thinking === "string" ? block.thinking : "";
			if (thought.trim() === "") return [];
			return [`<details><summary>Thinking</summary>\n\n${foldedText(thought)}\n\n</details>`];
		}
		case "toolCall":
			return [`**Tool call** ${codeSpan(String(block.name))}\n${fence(argumentsJson(block.arguments), "json")}`];
		default:
			return [otherBlock(block)];
	}
}

function argumentsJson(args: unknown): string {
	try {
		return clean(JSON.stringify(args ?? {}, null, 2) ?? "null");
	} catch {
		return "(arguments that are not JSON)";
	}
}

/** User-like content: text blocks as they are, images as `[image: mime/type]`. */
function contentBlocks(content: unknown): string[] {
	if (typeof content === "string") return content.trim() === "" ? [] : [markdownText(content)];
	if (!Array.isArray(content)) return [];
	const blocks: string[] = [];
	for (const block of content) {
		if (!isObject(block)) continue;
		if (block.type === "text") {
			if (typeof block.text === "string" && block.text.trim() !== "") blocks.push(markdownText(block.text));
		} else if (block.type === "image") blocks.push(image(block));
		else blocks.push(otherBlock(block));
	}
	return blocks;
}

function image(block: Record<string, unknown>): string {
	const mime = typeof block.mimeType === "string" && block.mimeType !== "" ? block.mimeType : "unknown type";
	return `[image: ${escapeInline(oneLine(mime, 100))}]`;
}

function otherBlock(block: Record<string, unknown>): string {
	return `*Block of type ${codeSpan(String(block.type))}*`;
}

/** A tool result's text in a fence (cut), its images after it. */
function toolResult(content: unknown, maxLines: number): string[] {
	const texts: string[] = [];
	const images: string[] = [];
	if (typeof content === "string") texts.push(content);
	else if (Array.isArray(content)) {
		for (const block of content) {
			if (!isObject(block)) continue;
			if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
			else if (block.type === "image") images.push(image(block));
			else images.push(otherBlock(block));
		}
	}
	const text = texts.join("\n");
	if (text.trim() === "") return images.length > 0 ? images : ["*(no output)*"];
	return [cutFence(text, "", maxLines, ""), ...images];
}

function bash(message: Record<string, unknown>, maxLines: number): string[] {
	const facts: string[] = [];
	if (typeof message.exitCode === "number") facts.push(`exit ${message.exitCode}`);
	if (message.cancelled === true) facts.push("cancelled");
	if (message.truncated === true) facts.push("output truncated");
	if (message.excludeFromContext === true) facts.push("not sent to the model");
	const heading = facts.length > 0 ? `### Bash (${facts.join(", ")})` : "### Bash";
	const command = clean(String(message.command ?? ""));
	const output = typeof message.output === "string" ? message.output : "";
	return [heading, cutFence(output, "console", maxLines, `$ ${command}\n`)];
}

/** `text` cut to `maxLines` lines in a fence after `prefix`, and `… N more lines` if cut. */
function cutFence(text: string, info: string, maxLines: number, prefix: string): string {
	const lines = clean(text).replace(/\n$/, "").split("\n");
	const body = lines.length > maxLines ? lines.slice(0, maxLines) : lines;
	const rest = lines.length - body.length;
	const block = fence(`${prefix}${body.join("\n")}`, info);
	return rest > 0 ? `${block}\n\n… ${countOf(rest, "more line")}` : block;
}

function compaction(entry: CompactionEntry): string {
	const facts: string[] = [];
	if (typeof entry.tokensBefore === "number") facts.push(`${countOf(entry.tokensBefore, "token")} before`);
	if (typeof entry.firstKeptEntryId === "string") facts.push(`kept from ${codeSpan(entry.firstKeptEntryId)}`);
	const head = `**Compaction summary**${facts.length > 0 ? ` (${facts.join("; ")})` : ""}`;
	return quote(head, entry.summary);
}

function branchSummary(entry: BranchSummaryEntry): string {
	const from = typeof entry.fromId === "string" ? ` (from ${codeSpan(entry.fromId)})` : "";
	return quote(`**Branch summary**${from}`, entry.summary);
}

/** A blockquote: the head line, then the text (Markdown) inside the quote. */
function quote(head: string, text: unknown): string {
	const body = typeof text === "string" && text.trim() !== "" ? clean(text).replace(/\n+$/, "") : "*(empty)*";
	const lines = [head, "", ...body.split("\n")];
	return lines.map((line) => (line === "" ? ">" : `> ${line}`)).join("\n");
}

// ---- Markdown safety ----------------------------------------------------------------------

/** A line that opens or closes a fence: up to 3 spaces, 3+ backticks or tildes, the rest. */
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/**
 * The HTML blocks of CommonMark (kinds 1 to 5) that only end at a closing marker, not at a
 * blank line: how each starts (at the start of a line, after up to 3 spaces) and ends.
 */
const HTML_BLOCKS: ReadonlyArray<{ start: RegExp; end: (tag: string) => RegExp; closer: (tag: string) => string }> = [
	{
		start: /^ {0,3}<(script|pre|style|textarea)(?=[\s>]|$)/i,
		end: (tag) => new RegExp(`</${tag}>`, "i"),
		closer: (tag) => `</${tag.toLowerCase()}>`,
	},
	{ start: /^ {0,3}<!--/, end: () => /-->/, closer: () => "-->" },
	{ start: /^ {0,3}<\?/, end: () => /\?>/, closer: () => "?>" },
	{ start: /^ {0,3}<![A-Za-z]/, end: () => />/, closer: () => ">" },
	{ start: /^ {0,3}<!\[CDATA\[/, end: () => /\]\]>/, closer: () => "]]>" },
];

/**
 * Message text (Markdown) as it is, cleaned for the terminal, without trailing blank lines, and
 * with a fence or an HTML block it leaves open closed, so it cannot swallow what follows.
 */
function markdownText(text: string): string {
	const body = clean(text).replace(/\s+$/, "");
	const closer = openBlockCloser(body);
	return closer === undefined ? body : `${body}\n${closer}`;
}

/** What CommonMark can read as HTML: `<` and a letter (a tag), `/` (an end tag), `!` or `?`. */
const HTML_START = /<[A-Za-z/!?]/;

/**
 * Text inside the `<details>` fold: Markdown, like a message's, unless it holds something that
 * reads as HTML; then as it is, in a fence. A `</details>` in it would close the fold (a
 * browser ends the element at any end tag, inline or not) and what follows it would be the
 * document's, a `<script>` included; in a fence it is text.
 */
function foldedText(text: string): string {
	const body = markdownText(text);
	return HTML_START.test(body) ? fence(body) : body;
}

/**
 * The line that closes the fence or the raw HTML block (a comment, `<pre>`, …) a Markdown text
 * leaves open at its end, if any, by CommonMark's rules for the top level (an approximation
 * inside lists and quotes, where the end of the container closes them anyway).
 */
export function openBlockCloser(text: string): string | undefined {
	let fenceOpen: { char: string; length: number } | undefined;
	let html: { end: RegExp; closer: string } | undefined;
	for (const line of text.split("\n")) {
		if (html !== undefined) {
			if (html.end.test(line)) html = undefined;
			continue;
		}
		const match = FENCE_LINE.exec(line);
		if (fenceOpen !== undefined) {
			if (!match) continue;
			const marker = match[1] as string;
			if (marker[0] === fenceOpen.char && marker.length >= fenceOpen.length && (match[2] as string).trim() === "") {
				fenceOpen = undefined;
			}
			continue;
		}
		if (match) {
			const marker = match[1] as string;
			// An info string of a backtick fence must not hold backticks (else it is inline code).
			if (!(marker[0] === "`" && (match[2] as string).includes("`"))) {
				fenceOpen = { char: marker[0] as string, length: marker.length };
			}
			continue;
		}
		for (const kind of HTML_BLOCKS) {
			const start = kind.start.exec(line);
			if (!start) continue;
			const tag = start[1] ?? "";
			const end = kind.end(tag);
			// The end may be on the starting line itself (after the start).
			if (!end.test(line.slice(start[0].length))) html = { end, closer: kind.closer(tag) };
			break;
		}
	}
	if (html !== undefined) return html.closer;
	return fenceOpen === undefined ? undefined : fenceOpen.char.repeat(fenceOpen.length);
}

/** The longest run of `char` in `text`. */
function longestRun(text: string, char: string): number {
	let longest = 0;
	let run = 0;
	for (const c of text) {
		run = c === char ? run + 1 : 0;
		if (run > longest) longest = run;
	}
	return longest;
}

/** A fenced code block holding `content`: its fence is longer than any backtick run inside. */
export function fence(content: string, info = ""): string {
	const ticks = "`".repeat(Math.max(3, longestRun(content, "`") + 1));
	const body = content === "" || content.endsWith("\n") ? content : `${content}\n`;
	return `${ticks}${info}\n${body}${ticks}`;
}

/** An inline code span holding `text` (made one line): its backtick string is longer than any run inside. */
export function codeSpan(text: string): string {
	const line = clean(text).replace(/[\n\t]/g, " ");
	if (line.trim() === "") return "` `";
	const ticks = "`".repeat(longestRun(line, "`") + 1);
	const pad = line.startsWith("`") || line.endsWith("`") || (line.startsWith(" ") && line.endsWith(" ")) ? " " : "";
	return `${ticks}${pad}${line}${pad}${ticks}`;
}

/** Markdown punctuation that can start markup inline: escaped in one-line metadata. */
const INLINE_PUNCTUATION = /[\\`*_[\]<>&#~]/g;

/** One-line metadata (a label, a name) as literal text: Markdown's punctuation escaped. */
export function escapeInline(text: string): string {
	return clean(text).replace(/\s+/g, " ").replace(INLINE_PUNCTUATION, "\\$&");
}

// ---- terminal safety ----------------------------------------------------------------------

/** Bidi controls (embeddings, overrides, isolates, marks) and the BOM: dropped. */
const INVISIBLE = new RegExp(`[${BIDI_CONTROL_CLASS}\\ufeff]`, "g");
/** Control characters but tab and newline. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/** A surrogate half without its partner. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text safe to print: escape sequences removed, line ends as `\n`, other controls as U+FFFD,
 * bidi controls dropped, lone surrogates as U+FFFD.
 */
function clean(text: string): string {
	return stripAnsi(text)
		.replace(/\r\n?/g, "\n")
		.replace(CONTROL, "\ufffd")
		.replace(INVISIBLE, "")
		.replace(LONE_SURROGATE, "\ufffd");
}
