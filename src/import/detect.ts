/**
 * Which format a text holds, told from its content (never from a file name): a ChatGPT export
 * (`mapping`), an Open WebUI chat (`history.messages`), a Claude Code transcript (lines with
 * `sessionId` and `uuid`), a Codex rollout (`session_meta`, `response_item`, …), a Gemini CLI
 * recording (`sessionId` with `projectHash`, `$set`/`$rewindTo` records), a Claude.ai export
 * (`chat_messages`), or a pi session. Only the first lines, or the first 64 KiB of a pretty-printed document, are looked at.
 */

import { SessionTreeError } from "../core/errors.js";
import { isJson, type Json } from "./common.js";
import type { ImportFormat } from "./types.js";

/** The formats, in the order the CLI lists them. */
export const IMPORT_FORMATS: readonly ImportFormat[] = [
	"claude-code",
	"codex",
	"gemini",
	"chatgpt",
	"claude-ai",
	"openwebui",
];

/** How messages name a file of each format ("a Claude Code session, opened read-only, …"). */
export const FORMAT_NAMES: Readonly<Record<ImportFormat, string>> = {
	chatgpt: "a ChatGPT export",
	openwebui: "an Open WebUI chat",
	"claude-code": "a Claude Code session",
	codex: "a Codex session",
	gemini: "a Gemini CLI session",
	"claude-ai": "a Claude.ai export",
};

/** True for the name of a format this layer imports. */
export function isImportFormat(name: string): name is ImportFormat {
	return (IMPORT_FORMATS as readonly string[]).includes(name);
}

/** What a text holds: a foreign format, a pi session, or (undefined) neither that can be told. */
export type SourceKind = ImportFormat | "pi";

/** Claude Code record types that have no uuid but only appear in its transcripts. */
const CLAUDE_ONLY_TYPES = new Set(["summary", "file-history-snapshot"]);
/** Codex rollout line types. */
const CODEX_TYPES = new Set(["session_meta", "response_item", "turn_context", "event_msg", "compacted"]);
/** The bare ResponseItems of a legacy Codex rollout (after its `{id, timestamp}` first line). */
const CODEX_ITEMS = new Set([
	"message",
	"reasoning",
	"function_call",
	"function_call_output",
	"custom_tool_call",
	"custom_tool_call_output",
	"local_shell_call",
	"web_search_call",
]);

/** How many JSONL lines the detection looks at. */
const DETECT_LINES = 20;
/** How much of a pretty-printed JSON document the detection searches for its keys. */
const DETECT_HEAD = 65536;
/** A first line longer than this is not parsed to tell the format (its keys are searched instead). */
const DETECT_LINE = 1 << 20;
/**
 * The bytes a first line of {@link DETECT_LINE} characters takes at most in UTF-8 (3 per UTF-16
 * unit): a file whose first line is longer is no JSONL to {@link sniffFirstLines}.
 */
export const DETECT_LINE_BYTES = 3 * DETECT_LINE;

function tryParse(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/** What one JSON object says it is: a whole ChatGPT conversation or Open WebUI chat, or a line of a transcript. */
function kindOfObject(value: Json): SourceKind | undefined {
	if (value.type === "session") return "pi";
	if (isJson(value.mapping)) return "chatgpt";
	if (isJson(value.history) && isJson(value.history.messages)) return "openwebui";
	if (isJson(value.chat) && isJson(value.chat.history)) return "openwebui";
	if (Array.isArray(value.chat_messages)) return "claude-ai";
	// A Gemini CLI recording's metadata line, or the whole of an older `.json` recording.
	if (typeof value.sessionId === "string" && typeof value.projectHash === "string" && !("uuid" in value)) {
		return "gemini";
	}
	return undefined;
}

function kindOfLine(value: Json): SourceKind | "codex-legacy-header" | undefined {
	if (typeof value.sessionId === "string" && (typeof value.uuid === "string" || "parentUuid" in value)) {
		return "claude-code";
	}
	// Gemini CLI's log records: a metadata update, a rewind, a reply (when the metadata line is missing).
	if (isJson(value.$set) || typeof value.$rewindTo === "string") return "gemini";
	if (value.type === "gemini" && typeof value.id === "string") return "gemini";
	if (typeof value.type === "string") {
		if (CLAUDE_ONLY_TYPES.has(value.type)) return "claude-code";
		if (CODEX_TYPES.has(value.type) && "payload" in value) return "codex";
	}
	if (value.type === undefined && typeof value.id === "string" && typeof value.timestamp === "string") {
		return "codex-legacy-header";
	}
	return undefined;
}

/** The lines of a JSONL text, at most `count` of them. */
function firstLines(text: string, start: number, count: number): string[] {
	const lines: string[] = [];
	let at = start;
	while (lines.length < count && at < text.length) {
		const end = text.indexOf("\n", at);
		const line = text.slice(at, end < 0 ? text.length : end);
		if (line.trim() !== "") lines.push(line);
		if (end < 0) break;
		at = end + 1;
	}
	return lines;
}

/**
 * What a text holds, from its content: a pi session (its first line a `session` header), a
 * ChatGPT export (JSON with `mapping`), an Open WebUI chat (`history.messages`, or rows with
 * `chat.history`), a Claude Code transcript (JSONL lines with `sessionId` and `uuid`, or its
 * `summary` and `file-history-snapshot` lines), or a Codex rollout (JSONL `session_meta`,
 * `response_item`, … lines, or the legacy `{id, timestamp}` line followed by bare items), a
 * Gemini CLI recording (a metadata line or object with `sessionId` and `projectHash`, or its
 * `$set`, `$rewindTo` and `gemini` records) or a Claude.ai export (conversations with
 * `chat_messages`). Only the first lines, or the first 64 KiB of a pretty-printed document, are looked at;
 * `partial` says the text is only the start of the file (then nothing is parsed whole).
 */
export function sniffFormat(text: string, partial = false): SourceKind | undefined {
	let start = 0;
	if (text.charCodeAt(0) === 0xfeff) start = 1;
	while (start < text.length && /\s/.test(text[start] as string)) start++;
	const first = text[start];
	if (first !== "{" && first !== "[") return undefined;
	const lines = firstLines(text, start, DETECT_LINES);
	// A one-line export of many megabytes is recognised by its keys, not parsed twice.
	if ((lines[0]?.length ?? 0) > DETECT_LINE) return sniffHead(text.slice(start, start + DETECT_HEAD));
	const firstValue = lines[0] === undefined ? undefined : tryParse(lines[0]);
	if (Array.isArray(firstValue)) {
		const item = firstValue.find(isJson);
		return item ? kindOfObject(item) : undefined;
	}
	if (isJson(firstValue)) {
		const whole = kindOfObject(firstValue);
		if (whole) return whole;
		let legacyHeader = false;
		for (const [index, line] of lines.entries()) {
			const value = index === 0 ? firstValue : tryParse(line);
			if (!isJson(value)) continue;
			const kind = kindOfLine(value);
			if (kind === "codex-legacy-header") legacyHeader ||= index === 0;
			else if (kind) return kind;
			else if (legacyHeader && typeof value.type === "string" && CODEX_ITEMS.has(value.type)) return "codex";
		}
		return undefined;
	}
	// A pretty-printed document: its keys near the start say what it is.
	const head = sniffHead(text.slice(start, start + DETECT_HEAD));
	if (head !== undefined) return head;
	if (partial || text.length - start <= DETECT_HEAD) return undefined;
	const value = tryParse(text.slice(start));
	if (isJson(value)) return kindOfObject(value);
	if (Array.isArray(value)) {
		const item = value.find(isJson);
		return item ? kindOfObject(item) : undefined;
	}
	return undefined;
}

/**
 * What a JSONL file holds, as {@link sniffFormat} tells it from the whole text, told from its
 * first lines (read one by one, so a large file is not read whole to be told): the lines up to
 * the 20th that is not blank. Undefined when the first lines do not decide it as they decide
 * it for the whole text: the first line that is not blank is no JSON object (a document, not
 * JSONL), or longer than 1 MiB.
 */
export function sniffFirstLines(lines: Iterable<{ readonly text: string }>): SourceKind | undefined {
	const texts: string[] = [];
	let counted = 0;
	let first: unknown;
	for (const { text } of lines) {
		texts.push(text);
		if (text.trim() === "") continue;
		if (counted++ === 0) {
			if (text.length > DETECT_LINE) return undefined;
			first = tryParse(text);
			if (!isJson(first)) return undefined;
		}
		if (counted === DETECT_LINES) break;
	}
	return counted === 0 ? undefined : sniffFormat(texts.join("\n"));
}

/** What the start of a document says it is, by its keys (for documents too long to parse just to look). */
function sniffHead(head: string): SourceKind | undefined {
	if (/^\{\s*"type"\s*:\s*"session"/.test(head)) return "pi";
	// Gemini CLI writes `sessionId` first, then `projectHash`, in its metadata line and its older `.json` files:
	// anchored at the start, so checked before the keys that may appear anywhere in the head.
	if (/^\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"projectHash"\s*:/.test(head)) return "gemini";
	if (/"mapping"\s*:\s*\{/.test(head)) return "chatgpt";
	if (/"history"\s*:\s*\{/.test(head) && /"messages"\s*:/.test(head)) return "openwebui";
	if (/"chat_messages"\s*:\s*\[/.test(head)) return "claude-ai";
	if (/^\{[^\n]*"sessionId"\s*:/.test(head) && /"uuid"\s*:/.test(head)) return "claude-code";
	if (/^\{[^\n]*"type"\s*:\s*"(session_meta|response_item|turn_context|event_msg|compacted)"/.test(head))
		return "codex";
	return undefined;
}

/** The foreign format a text holds (see {@link sniffFormat}), or undefined (a pi session, or unknown). */
export function detectFormat(text: string): ImportFormat | undefined {
	const kind = sniffFormat(text);
	return kind === "pi" ? undefined : kind;
}

/**
 * The error an import of `name` as `format` fails with: the importer's own, saying what the
 * source looks like (`kind`) when the format was given (`from`) and differs; any other error
 * as INVALID_RECORD naming the source.
 */
export function importFailure(
	error: unknown,
	format: ImportFormat,
	name: string,
	from?: ImportFormat,
	kind?: SourceKind,
): SessionTreeError {
	if (error instanceof SessionTreeError && from !== undefined && kind !== undefined && kind !== from) {
		const looks = kind === "pi" ? "a pi session" : `${FORMAT_NAMES[kind]} (--from ${kind})`;
		const prefix = error.file === undefined ? "" : `${error.file}: `;
		const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
		return new SessionTreeError(
			error.code,
			`${message} (it looks like ${looks}, not ${FORMAT_NAMES[from]})`,
			{ file: error.file ?? name },
			{ cause: error },
		);
	}
	if (error instanceof SessionTreeError) return error;
	return new SessionTreeError(
		"INVALID_RECORD",
		`the ${format} importer failed: ${error instanceof Error ? error.message : String(error)}`,
		{ file: name },
		{ cause: error },
	);
}
