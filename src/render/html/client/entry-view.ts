/**
 * One entry of the conversation pane as DOM nodes, drawn by kind: user and assistant messages
 * (Markdown), thinking (collapsed), tool calls (arguments as JSON), tool results (collapsed
 * past {@link OUTPUT_LINES} lines, edit diffs coloured, images inline), bash executions,
 * custom messages, compaction and branch-summary cards, and small markers for model,
 * thinking-level, label and name changes. Every text is set as text (see dom.ts).
 */

import type { SessionRecord } from "../../../core/types.js";
import { isObject } from "../../../core/validate.js";
import { countOf } from "../../preview.js";
import { reportedUsage } from "../../usage.js";
import { type Child, el } from "./dom.js";
import { formatTime, formatUsage } from "./format.js";
import { plain, renderMarkdown } from "./markdown.js";

/** Lines of a tool result or bash output shown before "Show all". */
export const OUTPUT_LINES = 12;

/** Image types shown inline (as data: URLs); any other image is named, not shown. */
const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** What drawing an entry needs besides the entry. */
export interface EntryViewOptions {
	/** The label in effect for an entry. */
	label(id: string): string | undefined;
	/** Whether thinking blocks start open. */
	thinkingOpen: boolean;
	/** Whether long tool output starts expanded. */
	outputOpen: boolean;
}

/** The `article` of an entry: `data-entry-id`, a head (kind, id, time, label) and the body. */
export function renderEntry(entry: SessionRecord, options: EntryViewOptions): HTMLElement {
	const { kind, title, body, marker } = describe(entry, options);
	const article = el("article", {
		class: `entry k-${kind}${marker ? " marker" : ""}`,
		attrs: { "data-entry-id": entry.id, "data-kind": kind },
	});
	const label = options.label(entry.id);
	const head = el(
		"div",
		{ class: "entry-head", attrs: { title: "Select this entry" } },
		el("span", { class: "entry-kind", text: title }),
		label !== undefined ? el("span", { class: "label-chip", text: label }) : null,
		el("span", { class: "entry-id", text: entry.id }),
		el("span", { class: "entry-time", text: formatTime(entry.timestamp) }),
	);
	article.append(head);
	if (body.length > 0) article.append(el("div", { class: "entry-body" }, ...body));
	return article;
}

interface Described {
	/** A class-safe kind name. */
	kind: string;
	/** The head's text. */
	title: string;
	body: Child[];
	/** A one-line marker rather than a card. */
	marker?: boolean;
}

function describe(entry: SessionRecord, options: EntryViewOptions): Described {
	switch (entry.type) {
		case "message":
			return message(entry.message, options);
		case "compaction": {
			const facts: string[] = [];
			if (typeof entry.tokensBefore === "number") facts.push(`${countOf(entry.tokensBefore, "token")} before`);
			if (typeof entry.firstKeptEntryId === "string") facts.push(`kept from ${entry.firstKeptEntryId}`);
			return {
				kind: "compaction",
				title: `Compaction summary${facts.length > 0 ? ` · ${facts.join(" · ")}` : ""}`,
				body: [markdownOf(entry.summary)],
			};
		}
		case "branch_summary":
			return {
				kind: "branch-summary",
				title: `Branch summary${typeof entry.fromId === "string" ? ` · from ${entry.fromId}` : ""}`,
				body: [markdownOf(entry.summary)],
			};
		case "custom_message":
			return {
				kind: "custom",
				title: `Custom message · ${String(entry.customType)}${entry.display === false ? " · hidden in pi" : ""}`,
				body: contentNodes(entry.content, true),
			};
		case "model_change":
			return {
				kind: "model-change",
				title: `Model: ${String(entry.provider)}/${String(entry.modelId)}`,
				body: [],
				marker: true,
			};
		case "thinking_level_change":
			return {
				kind: "thinking-level",
				title: `Thinking level: ${String(entry.thinkingLevel)}`,
				body: [],
				marker: true,
			};
		case "custom":
			return { kind: "custom-entry", title: `Custom entry · ${String(entry.customType)}`, body: [], marker: true };
		case "label": {
			const text = typeof entry.label === "string" && entry.label !== "" ? `“${entry.label}”` : "(cleared)";
			return { kind: "label", title: `Label on ${String(entry.targetId)}: ${text}`, body: [], marker: true };
		}
		case "session_info": {
			const name = typeof entry.name === "string" && entry.name.trim() !== "" ? entry.name : "(name cleared)";
			return { kind: "session-info", title: `Session name: ${name}`, body: [], marker: true };
		}
		case "leaf":
			return { kind: "leaf-record", title: `Leaf → ${String(entry.targetId)}`, body: [], marker: true };
		default: {
			const other: { type: unknown } = entry;
			return { kind: "unknown", title: `Entry of type ${String(other.type)}`, body: [], marker: true };
		}
	}
}

function message(value: unknown, options: EntryViewOptions): Described {
	if (!isObject(value)) return { kind: "damaged", title: "Message (unreadable)", body: [] };
	const role = typeof value.role === "string" ? value.role : "";
	switch (role) {
		case "user":
			return { kind: "user", title: "User", body: orEmpty(contentNodes(value.content, true)) };
		case "assistant":
			return assistant(value, options);
		case "toolResult": {
			const error = value.isError === true;
			const body = toolResult(value, options);
			return {
				kind: error ? "tool-result error" : "tool-result",
				title: `Tool result · ${String(value.toolName)}${error ? " · error" : ""}`,
				body,
			};
		}
		case "bashExecution":
			return bash(value, options);
		case "custom":
			return {
				kind: "custom",
				title: `Custom message · ${String(value.customType)}`,
				body: orEmpty(contentNodes(value.content, true)),
			};
		default:
			return {
				kind: "other",
				title: `Message · ${role === "" ? "(no role)" : role}`,
				body: orEmpty(contentNodes(value.content, true)),
			};
	}
}

function orEmpty(body: Child[]): Child[] {
	return body.length > 0 ? body : [el("p", { class: "empty", text: "(empty)" })];
}

function markdownOf(text: unknown): HTMLElement {
	return typeof text === "string" && text.trim() !== ""
		? renderMarkdown(text)
		: el("p", { class: "empty", text: "(empty)" });
}

function assistant(value: Record<string, unknown>, options: EntryViewOptions): Described {
	const provider = typeof value.provider === "string" ? value.provider : "";
	const model = typeof value.model === "string" ? value.model : "";
	const which = [provider, model].filter((part) => part !== "").join("/");
	const body: Child[] = [];
	const content = value.content;
	if (typeof content === "string") {
		if (content.trim() !== "") body.push(renderMarkdown(content));
	} else if (Array.isArray(content)) {
		for (const block of content) body.push(assistantBlock(block, options));
	}
	const reason = value.stopReason;
	if (reason === "error" || reason === "aborted" || reason === "length") {
		const detail = typeof value.errorMessage === "string" ? `: ${value.errorMessage}` : "";
		body.push(el("p", { class: "stopped", text: `Stopped (${reason})${detail}` }));
	}
	// A reply whose usage is all zeros reported none: nothing is shown (render/usage.ts).
	const usage = reportedUsage(value);
	if (usage) body.push(el("div", { class: "usage", text: formatUsage(usage) }));
	return { kind: "assistant", title: which ? `Assistant · ${which}` : "Assistant", body: orEmpty(body) };
}

function assistantBlock(block: unknown, options: EntryViewOptions): Child {
	if (!isObject(block)) return null;
	switch (block.type) {
		case "text":
			return typeof block.text === "string" && block.text.trim() !== "" ? renderMarkdown(block.text) : null;
		case "thinking": {
			if (block.redacted === true) return el("p", { class: "thinking-redacted", text: "Thinking (redacted)" });
			const thought = typeof block.thinking === "string" ? block.thinking : "";
			if (thought.trim() === "") return null;
			const details = el("details", { class: "thinking" }, el("summary", { text: "Thinking" }));
			details.open = options.thinkingOpen;
			details.append(renderMarkdown(thought));
			return details;
		}
		case "toolCall":
			return el(
				"div",
				{ class: "tool-call" },
				el("div", { class: "tool-call-head", text: `Tool call · ${String(block.name)}` }),
				el("pre", { class: "json", text: prettyJson(block.arguments) }),
			);
		case "image":
			return image(block);
		default:
			return el("p", { class: "block-other", text: `Block of type ${String(block.type)}` });
	}
}

function prettyJson(value: unknown): string {
	try {
		return JSON.stringify(value ?? {}, null, 2) ?? "null";
	} catch {
		return "(arguments that are not JSON)";
	}
}

/** User-like content: text blocks as Markdown (or as text), images inline. */
function contentNodes(content: unknown, markdown: boolean): Child[] {
	const show = (text: string) => (markdown ? renderMarkdown(text) : plain(text));
	if (typeof content === "string") return content.trim() === "" ? [] : [show(content)];
	if (!Array.isArray(content)) return [];
	const nodes: Child[] = [];
	for (const block of content) {
		if (!isObject(block)) continue;
		if (block.type === "text") {
			if (typeof block.text === "string" && block.text.trim() !== "") nodes.push(show(block.text));
		} else if (block.type === "image") nodes.push(image(block));
		else nodes.push(el("p", { class: "block-other", text: `Block of type ${String(block.type)}` }));
	}
	return nodes;
}

/** An image block: shown when it is base64 of an allowed type, else named. */
function image(block: Record<string, unknown>): HTMLElement {
	const mime = typeof block.mimeType === "string" ? block.mimeType.toLowerCase() : "";
	const data = typeof block.data === "string" ? block.data.replace(/\s+/g, "") : "";
	if (!IMAGE_TYPES.has(mime) || data === "" || !BASE64.test(data)) {
		return el("p", { class: "image-missing", text: `[image: ${mime || "unknown type"}]` });
	}
	return el(
		"figure",
		{ class: "image" },
		el("img", { attrs: { src: `data:${mime};base64,${data}`, alt: `image (${mime})`, loading: "lazy" } }),
	);
}

/** Text cut to {@link OUTPUT_LINES} lines until expanded: a `pre` and a toggle. */
function output(text: string, className: string, options: EntryViewOptions, prefix?: Child): HTMLElement {
	const lineCount = text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
	const pre = el("pre", { class: className }, prefix, text);
	const wrap = el("div", { class: "output" }, pre);
	if (lineCount > OUTPUT_LINES) {
		wrap.classList.add("clampable");
		if (!options.outputOpen) wrap.classList.add("clamped");
		const toggle = el("button", {
			class: "output-toggle",
			attrs: { type: "button", "data-lines": String(lineCount) },
		});
		wrap.append(toggle);
		syncOutputToggle(wrap);
	}
	return wrap;
}

/** Sets a long output's toggle text to what clicking it does. */
export function syncOutputToggle(wrap: Element): void {
	const toggle = wrap.querySelector(":scope > .output-toggle");
	if (!toggle) return;
	const lines = toggle.getAttribute("data-lines") ?? "";
	toggle.textContent = wrap.classList.contains("clamped") ? `Show all ${lines} lines` : "Show less";
}

function toolResult(value: Record<string, unknown>, options: EntryViewOptions): Child[] {
	const texts: string[] = [];
	const extra: Child[] = [];
	const content = value.content;
	if (typeof content === "string") texts.push(content);
	else if (Array.isArray(content)) {
		for (const block of content) {
			if (!isObject(block)) continue;
			if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
			else if (block.type === "image") extra.push(image(block));
			else extra.push(el("p", { class: "block-other", text: `Block of type ${String(block.type)}` }));
		}
	}
	const body: Child[] = [];
	const text = texts.join("\n");
	if (text.trim() !== "") body.push(output(text, "tool-output", options));
	const details = value.details;
	if (isObject(details) && typeof details.diff === "string" && details.diff !== "") body.push(diff(details.diff));
	body.push(...extra);
	return orEmpty(body);
}

/** An edit's diff, each line coloured by its first character (`+`, `-`, `@@`). */
function diff(text: string): HTMLElement {
	const pre = el("pre", { class: "diff" });
	for (const line of text.split("\n")) {
		const kind = line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "ctx";
		pre.append(el("span", { class: `diff-${kind}`, text: `${line}\n` }));
	}
	return el("div", { class: "diff-wrap" }, el("div", { class: "diff-head", text: "Diff" }), pre);
}

function bash(value: Record<string, unknown>, options: EntryViewOptions): Described {
	const facts: string[] = [];
	if (typeof value.exitCode === "number") facts.push(`exit ${value.exitCode}`);
	if (value.cancelled === true) facts.push("cancelled");
	if (value.truncated === true) facts.push("output truncated");
	if (value.excludeFromContext === true) facts.push("not sent to the model");
	const command = typeof value.command === "string" ? value.command : "";
	const out = typeof value.output === "string" ? value.output : "";
	const prefix = el("span", { class: "command", text: `$ ${command}\n` });
	return {
		kind: "bash",
		title: `Bash${facts.length > 0 ? ` · ${facts.join(" · ")}` : ""}`,
		body: [output(out, "bash-output", options, prefix)],
	};
}
