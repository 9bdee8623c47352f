/**
 * One-line, terminal-safe descriptions of entries and messages, shared by the text renderers.
 *
 * Message text can hold anything: newlines, U+2028, control characters, bidi overrides, lone
 * surrogates, megabytes of tool output. A preview is always one short line that cannot move
 * the cursor or reorder the rest of the terminal line.
 */

import type { SessionRecord, UnknownEntry } from "../core/types.js";
import { isObject } from "../core/validate.js";
import { BIDI_CONTROL_CLASS, sanitize } from "./sanitize.js";
import { JOINS, segmentGraphemes, truncateToWidth } from "./text-width.js";

// What makes text safe for a terminal, in a module of its own (the CLI's error output needs it
// without the rest of this one, see scripts/bundle-cli.mjs); here for the renderers.
export { BIDI_CONTROL_CLASS, sanitize, sanitizeLines, sanitizeText, showBidiControls } from "./sanitize.js";
// Until src/cli/commands/{ls,search}.ts and the tests in test/cli/ import these from terminal.js:
// names, not copies. (From text-width.js, which terminal.js re-exports: this module needs no
// Node module, so that the HTML export's browser code can use it.)
export { displayWidth, truncateToWidth } from "./text-width.js";

/** Default preview length, in user-perceived characters. */
export const DEFAULT_PREVIEW_LENGTH = 60;

const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

/**
 * One line of at most `max` user-perceived characters (grapheme clusters): whitespace runs
 * collapse to one space, the ends are trimmed and a cut is marked with `…`.
 */
export function oneLine(text: string, max: number = DEFAULT_PREVIEW_LENGTH): string {
	// Never scan more than needed: a tool result may be a megabyte long. The start is read first
	// (four characters a cluster), more only when its cleaned text is too short to decide.
	const budget = Math.max(16, max * 16);
	const simple = oneLineSimple(text, max, budget);
	if (simple !== undefined) return simple;
	for (let size = Math.min(budget, Math.max(64, max * 4)); ; size = Math.min(budget, size * 4)) {
		const whole = text.length <= size;
		const clean = sanitize(whole ? text : text.slice(0, size))
			.replace(/\s+/g, " ")
			.trim();
		const cut = cutClusters(clean, max);
		if (cut !== undefined) return cut;
		if (whole) return clean;
		if (size >= budget) return `${clean.trimEnd()}…`;
	}
}

/** What a code unit is to {@link oneLineSimple}; 0: not known yet. */
const VISIBLE = 1;
const SPACE = 2;
const DROPPED = 3;
const JOINING = 4;

/** Each UTF-16 code unit's class, found on first use (ASCII at once). */
const CLASSES = new Uint8Array(0x10000);
for (let c = 0; c < 0x80; c++) CLASSES[c] = c <= 0x20 || c === 0x7f ? SPACE : VISIBLE;
const INVISIBLE_ONE = new RegExp(`^[${BIDI_CONTROL_CLASS}\\ufeff]$`);
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_ONE = /^[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]$/;

function classOf(c: number): number {
	let k = CLASSES[c] as number;
	if (k === 0) {
		const ch = String.fromCharCode(c);
		// As sanitize and the collapse treat it: dropped first, then controls and spaces are one space.
		if (INVISIBLE_ONE.test(ch)) k = DROPPED;
		else if ((c >= 0xd800 && c <= 0xdfff) || JOINS.test(ch)) k = JOINING;
		else if (CONTROL_ONE.test(ch)) k = SPACE;
		else k = VISIBLE;
		CLASSES[c] = k;
	}
	return k;
}

/**
 * {@link oneLine} in one pass without the regular expressions, for a text with no character
 * that joins clusters (see {@link JOINS}) before the decision: there every code unit is a
 * cluster of its own, and is dropped (bidi controls, the BOM), whitespace (controls, spaces of
 * every kind: a run of them is one space) or shown. Undefined when a joining character comes
 * first (the general path then decides); else what the general path gives, which reads at
 * most the first `budget` characters.
 */
function oneLineSimple(text: string, max: number, budget: number): string | undefined {
	if (!(max >= 0) || max !== Math.floor(max)) return undefined;
	const end = Math.min(text.length, budget);
	// The cleaned text so far is `out` and then text[start, i) as it is (a piece whose only
	// whitespace is single spaces); `count` is its length. `run` is where a whitespace run not
	// written yet starts (-1: none), `plain` whether that run is one space and nothing else.
	let out = "";
	let start = -1;
	let count = 0;
	let run = -1;
	let plain = false;
	const piece = (to: number) => (start === -1 ? "" : text.slice(start, to));
	for (let i = 0; i < end; i++) {
		const c = text.charCodeAt(i);
		const k = classOf(c);
		if (k === JOINING) return undefined;
		if (k === DROPPED) {
			// Gone before the rest is cleaned: it splits a piece, and a run over it is not one space.
			if (run !== -1) plain = false;
			else if (start !== -1) {
				out += text.slice(start, i);
				start = -1;
			}
			continue;
		}
		if (k === SPACE) {
			// Leading whitespace is trimmed.
			if (count === 0) continue;
			if (run === -1) {
				run = i;
				plain = c === 0x20;
			} else plain = false;
			continue;
		}
		if (run !== -1) {
			// The run becomes one space: more than max characters, or one more.
			if (count === max) return `${out}${piece(run)}…`;
			if (!plain || start === -1) {
				out += `${piece(run)} `;
				start = i;
			}
			count++;
			run = -1;
		}
		if (count === max) return `${(out + piece(i)).trimEnd()}…`;
		if (start === -1) start = i;
		count++;
	}
	const clean = out + piece(run === -1 ? end : run);
	if (end === text.length) return clean;
	// Undecided at the budget: cut there.
	return `${clean.trimEnd()}…`;
}

/** The first `max` clusters of `clean` and `…` when it has more; undefined when it has no more than `max`. */
function cutClusters(clean: string, max: number): string | undefined {
	// One grapheme per code unit before the first character that joins (see JOINS): no need for
	// the (slow) segmenter when that is past the cut.
	const firstJoin = PRINTABLE_ASCII.test(clean) ? -1 : clean.search(JOINS);
	if (firstJoin === -1 || firstJoin > max) return clean.length > max ? `${clean.slice(0, max).trimEnd()}…` : undefined;
	// Between two characters that do not join there is always a cluster boundary (see JOINS), so
	// the segmenter is asked only about the stretches around those that do: a character before
	// one, the joining ones, and up to the next two that do not. (Segmenting the whole text was
	// 34 µs a preview, at about half a microsecond a cluster: 1,706 of s100k's 96,840 previews
	// took 58 ms, as long as the other 95,134.)
	const joins = (at: number) => at < clean.length && classOf(clean.charCodeAt(at)) === JOINING;
	let count = Math.max(0, firstJoin - 1);
	for (let at = count; at < clean.length; ) {
		if (!joins(at) && !joins(at + 1)) {
			if (count === max) return `${clean.slice(0, at).trimEnd()}…`;
			count++;
			at++;
			continue;
		}
		let end = at + 1;
		while (end < clean.length && (joins(end - 1) || joins(end))) end++;
		let start = at;
		for (const { segment } of segmentGraphemes(clean.slice(at, end))) {
			if (count === max) return `${clean.slice(0, start).trimEnd()}…`;
			count++;
			start += segment.length;
		}
		at = end;
	}
	return undefined;
}

/** The text of message content: a string, or its blocks in order (non-text blocks as tags). */
export function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return content === undefined || content === null ? "" : String(content);
	const parts: string[] = [];
	for (const b of content) {
		if (!isObject(b)) continue;
		switch (b.type) {
			case "text":
				if (typeof b.text === "string") parts.push(b.text);
				break;
			case "image":
				parts.push(`[image${typeof b.mimeType === "string" ? ` ${b.mimeType}` : ""}]`);
				break;
			case "thinking":
				parts.push(
					b.redacted ? "[thinking, redacted]" : `[thinking] ${typeof b.thinking === "string" ? b.thinking : ""}`,
				);
				break;
			case "toolCall":
				parts.push(`→ ${String(b.name)}(${argsPreview(b.arguments)})`);
				break;
			default:
				parts.push(`[${String(b.type)}]`);
		}
	}
	return parts.join(" ");
}

function argsPreview(args: unknown): string {
	if (args === undefined) return "";
	try {
		const json = JSON.stringify(args);
		return json === undefined ? "" : json.length > 200 ? `${json.slice(0, 200)}…` : json;
	} catch {
		return "…";
	}
}

/** How a message describes itself: a kind (usually the role) and its text. */
export interface Description {
	kind: string;
	text: string;
}

/** Kind and text of an agent or context message. */
export function describeMessage(message: unknown): Description {
	if (!isObject(message)) return { kind: "message", text: "" };
	const m = message;
	const role = typeof m.role === "string" ? m.role : "message";
	switch (role) {
		case "user":
			return { kind: role, text: contentText(m.content) };
		case "assistant": {
			let text = contentText(m.content);
			if (m.stopReason === "error" || m.stopReason === "aborted" || m.stopReason === "length") {
				const reason = typeof m.errorMessage === "string" ? `${m.stopReason}: ${m.errorMessage}` : m.stopReason;
				text = `(${reason}) ${text}`;
			}
			return { kind: role, text };
		}
		case "toolResult":
			return {
				kind: role,
				text: `${String(m.toolName)}${m.isError ? " (error)" : ""}: ${contentText(m.content)}`,
			};
		case "bashExecution": {
			const exit = typeof m.exitCode === "number" ? ` (exit ${m.exitCode})` : m.cancelled ? " (cancelled)" : "";
			return { kind: role, text: `$ ${String(m.command)}${exit}` };
		}
		case "custom":
			return { kind: role, text: `${String(m.customType)}: ${contentText(m.content)}` };
		case "compactionSummary":
			return { kind: "compaction summary", text: String(m.summary) };
		case "branchSummary":
			return { kind: "branch summary", text: String(m.summary) };
		default:
			return { kind: role, text: "content" in m ? contentText(m.content) : "" };
	}
}

/** Kind and text of an entry: the role for messages, else the entry type. */
export function describeEntry(entry: SessionRecord): Description {
	switch (entry.type) {
		case "message":
			return describeMessage(entry.message);
		case "compaction":
			return {
				kind: "compaction",
				text: `${entry.summary} (${typeof entry.firstKeptEntryId === "string" ? `kept from ${entry.firstKeptEntryId}` : "keeps nothing before it"})`,
			};
		case "branch_summary": {
			const { summary, fromId } = entry;
			return { kind: "branch_summary", text: summary ? `${summary} (from ${fromId})` : `(from ${fromId})` };
		}
		case "model_change":
			return { kind: "model_change", text: `${entry.provider}/${entry.modelId}` };
		case "thinking_level_change":
			return { kind: "thinking_level_change", text: String(entry.thinkingLevel) };
		case "custom":
			return { kind: "custom", text: String(entry.customType) };
		case "custom_message":
			return { kind: "custom_message", text: `${entry.customType}: ${contentText(entry.content)}` };
		case "label":
			return {
				kind: "label",
				text: entry.label ? `${entry.targetId} "${entry.label}"` : `${entry.targetId} (cleared)`,
			};
		case "session_info": {
			const name = entry.name;
			return { kind: "session_info", text: typeof name === "string" && name.trim() ? name : "(name cleared)" };
		}
		case "leaf":
			return { kind: "leaf", text: `→ ${entry.targetId ?? "(before the first entry)"}` };
		default: {
			// A type this version does not know: kept verbatim, outside the union (so `entry` is `never` here).
			const unknown: UnknownEntry = entry;
			return { kind: String(unknown.type), text: "" };
		}
	}
}

/** `kind: preview` for one line, or just the kind when there is no text. */
export function formatDescription(description: Description, max: number = DEFAULT_PREVIEW_LENGTH): string {
	const text = oneLine(description.text, max);
	return text ? `${sanitize(description.kind)}: ${text}` : sanitize(description.kind);
}

/**
 * Like {@link oneLine}, but cut to a number of terminal columns (the `…` included) instead of
 * a number of characters.
 */
export function oneLineToWidth(text: string, columns: number): string {
	if (columns <= 0) return "";
	// Columns ≥ characters, so oneLine with `columns` characters holds everything needed.
	const line = oneLine(text, columns);
	return truncateToWidth(line, columns);
}

/**
 * An integer with commas between groups of three digits (`12,345`), as `toLocaleString("en-US")`
 * writes it, without the cost of loading the locale data (about 20 ms at the first call).
 */
export function groupDigits(value: number): string {
	if (!Number.isSafeInteger(value)) return String(value);
	const digits = String(Math.abs(value));
	const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ",");
	return value < 0 ? `-${grouped}` : grouped;
}

/**
 * A count and its noun, singular for 1 (`1 branch`, `2 branches`, `12,345 entries`): the one
 * place the CLI and the renderers make counted phrases. `plural` defaults to the noun with
 * `es` after s, x, z, ch, sh, `ies` for a consonant and y, else `s`.
 */
export function countOf(count: number, noun: string, plural?: string): string {
	return `${groupDigits(count)} ${count === 1 ? noun : (plural ?? pluralOf(noun))}`;
}

function pluralOf(noun: string): string {
	if (/(s|x|z|ch|sh)$/.test(noun)) return `${noun}es`;
	if (/[^aeiou]y$/.test(noun)) return `${noun.slice(0, -1)}ies`;
	return `${noun}s`;
}

/** A model as a context or an entry names it; either part may be missing from a hand-made record. */
export interface NamedModel {
	provider?: unknown;
	modelId?: unknown;
}

/**
 * `provider/modelId` for display, or the model id alone when the provider is missing, or
 * undefined when there is no model id (an assistant message appended without `provider` and
 * `model` gives a model of two undefined parts: it is shown as none, never as "undefined").
 */
export function modelLabel(model: NamedModel | null | undefined): string | undefined {
	if (!model || typeof model.modelId !== "string" || model.modelId === "") return undefined;
	return typeof model.provider === "string" && model.provider !== ""
		? `${model.provider}/${model.modelId}`
		: model.modelId;
}
