/**
 * Helpers the importers of JSON exports (ChatGPT, Open WebUI) and the exporters share: derived
 * ids and session ids, times, the pi message shapes, and errors that name the source, the
 * record and the field.
 */

import { createHash } from "node:crypto";
import { SessionTreeError } from "../core/errors.js";
import { derivedEntryId } from "../core/ids.js";
import type { AssistantMessage, ImageContent, SessionEntry, TextContent } from "../core/types.js";
import type { ImportSource } from "./types.js";

/** A JSON object. */
export type Json = Record<string, unknown>;

/** True for a JSON object (not an array, not null). */
export function isJson(value: unknown): value is Json {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A string field, or undefined. */
export function stringField(value: Json, key: string): string | undefined {
	const field = value[key];
	return typeof field === "string" ? field : undefined;
}

/** A finite number field, or undefined. */
export function numberField(value: Json, key: string): number | undefined {
	const field = value[key];
	return typeof field === "number" && Number.isFinite(field) ? field : undefined;
}

/** The object without the given keys (a shallow copy, key order kept). */
export function omit(value: Json, keys: readonly string[]): Json {
	const out: Json = {};
	for (const [key, field] of Object.entries(value)) if (!keys.includes(key)) out[key] = field;
	return out;
}

/**
 * A UUID derived from a name: the layout of a version-5 UUID (SHA-1 of the name), so that the
 * same conversation always gets the same session id.
 */
export function uuidFromName(name: string): string {
	const bytes = createHash("sha1").update(`session-tree:${name}`).digest().subarray(0, 16);
	bytes[6] = 0x50 | ((bytes[6] ?? 0) & 0x0f);
	bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
	const hex = bytes.toString("hex");
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A short stable hash of a JSON value (for ids of records that change with the content). */
export function contentHash(value: unknown): string {
	return createHash("sha1")
		.update(JSON.stringify(value) ?? "")
		.digest("hex")
		.slice(0, 12);
}

/** Entry ids derived from seeds (the source's own ids), unique within one session. */
export class DerivedIds {
	private readonly taken = new Set<string>();

	/** The id for `seed`: the same seed gives the same id as long as the ids taken before are the same. */
	id(seed: string): string {
		const id = derivedEntryId(seed, (candidate) => this.taken.has(candidate));
		this.taken.add(id);
		return id;
	}
}

/** An ISO 8601 time (ms precision) from epoch milliseconds; the epoch for a value that is no time. */
export function isoFromMillis(ms: number): string {
	const date = new Date(Math.round(ms));
	return Number.isNaN(date.getTime()) ? new Date(0).toISOString() : date.toISOString();
}

/** Epoch seconds (possibly fractional) as epoch milliseconds, rounded. */
export function millisFromSeconds(seconds: number): number {
	return Math.round(seconds * 1000);
}

/** A text block. */
export function textBlock(text: string): TextContent {
	return { type: "text", text };
}

/** An image block from a `data:` URL, or undefined when it is not one with base64 data. */
export function imageFromDataUrl(url: string): ImageContent | undefined {
	const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
	if (!match) return undefined;
	return { type: "image", data: match[2] as string, mimeType: match[1] as string };
}

/** pi's usage record with nothing counted (the source did not say). */
export function zeroUsage(): Json {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

/** pi's usage record from OpenAI-style counts (`prompt_tokens`, `completion_tokens`, `total_tokens`). */
export function usageFromOpenAI(usage: unknown): Json {
	const out = zeroUsage();
	if (!isJson(usage)) return out;
	const input = numberField(usage, "prompt_tokens") ?? numberField(usage, "input_tokens") ?? 0;
	const output = numberField(usage, "completion_tokens") ?? numberField(usage, "output_tokens") ?? 0;
	out.input = input;
	out.output = output;
	out.totalTokens = numberField(usage, "total_tokens") ?? input + output;
	return out;
}

/** An assistant message in pi's shape and key order. */
export function assistantMessage(fields: {
	content: AssistantMessage["content"];
	api: string;
	provider: string;
	model: string;
	usage: Json;
	stopReason: string;
	timestamp: number;
}): AssistantMessage {
	return {
		role: "assistant",
		content: fields.content,
		api: fields.api,
		provider: fields.provider,
		model: fields.model,
		usage: fields.usage,
		stopReason: fields.stopReason,
		timestamp: fields.timestamp,
	};
}

/** An entry with the source's own fields kept on it (`source`), which pi ignores and exports read. */
export function withSource<T extends SessionEntry>(entry: T, source: Json): T {
	return Object.assign(entry, { source });
}

/**
 * The error an importer throws for a broken source: `INVALID_RECORD`, naming the source (as
 * the file), the record and the field (`where`, e.g. `[0] mapping/abc/parent`).
 */
export function importError(source: ImportSource, where: string, message: string): SessionTreeError {
	return new SessionTreeError("INVALID_RECORD", where === "" ? message : `${where}: ${message}`, {
		file: source.name,
	});
}

/**
 * The source's text parsed as JSON (or the value the caller parsed already).
 * @throws SessionTreeError INVALID_JSON naming the source, and the line and column where the text stops being JSON
 */
export function parseJsonSource(source: ImportSource): unknown {
	if (source.json !== undefined) return source.json;
	const text = source.text.charCodeAt(0) === 0xfeff ? source.text.slice(1) : source.text;
	try {
		return JSON.parse(text);
	} catch (cause) {
		const reason = cause instanceof Error ? cause.message : String(cause);
		const at = /position (\d+)/.exec(reason);
		let where = "";
		if (at) {
			const offset = Number(at[1]);
			const before = text.slice(0, offset);
			const line = before.split("\n").length;
			where = ` at line ${line}, column ${offset - before.lastIndexOf("\n")}`;
		} else if (/end of JSON input|Unterminated/i.test(reason)) {
			where = ` (it ends after ${text.length} characters, before the JSON value is complete: a truncated file?)`;
		}
		throw new SessionTreeError("INVALID_JSON", `not valid JSON${where}: ${reason}`, { file: source.name });
	}
}

/** A short description of a conversation for error messages: its id and title. */
export function describeConversation(id: string | undefined, title: unknown): string {
	const parts: string[] = [];
	if (id) parts.push(id);
	if (typeof title === "string" && title !== "") parts.push(JSON.stringify(title));
	return parts.length === 0 ? "" : ` (${parts.join(" ")})`;
}
