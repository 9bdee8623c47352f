/**
 * Helpers every importer (ChatGPT, Open WebUI, Claude Code, Codex) and the exporters share:
 * JSON values, derived ids and session ids, times, the pi message shapes and usage records,
 * and errors that name the source, the record and the field. What only the JSONL formats
 * (Claude Code, Codex) share is in `jsonl.ts`.
 */

import { createHash } from "node:crypto";
import { emptyUsage, sessionInfoEntry } from "../core/entries.js";
import { SessionTreeError } from "../core/errors.js";
import { derivedHash, hashHex } from "../core/ids.js";
import { nestingProblem, nestingProblemOf } from "../core/nesting.js";
import type {
	AssistantMessage,
	ImageContent,
	SessionEntry,
	SessionInfoEntry,
	TextContent,
	UsageRecord,
} from "../core/types.js";
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
	// for…in rather than Object.entries: no array of pairs per call (imports call this per node).
	for (const key in value) if (Object.hasOwn(value, key) && !keys.includes(key)) out[key] = value[key];
	return out;
}

/** A JSON object given as itself or as JSON text; undefined for anything else (not JSON, not an object). */
export function jsonObjectOf(value: unknown): Json | undefined {
	if (isJson(value)) return value;
	if (typeof value !== "string") return undefined;
	try {
		const parsed: unknown = JSON.parse(value);
		// Text nested deeper than records may be stays text (a caller keeps it as such): nothing is lost.
		return isJson(parsed) && nestingProblem(value, parsed) === undefined ? parsed : undefined;
	} catch {
		return undefined;
	}
}

/**
 * A tool call's arguments: a JSON object (or its JSON text) as it is, else `{input: value}`
 * (a call such as `search("…")`), `{}` for none.
 */
export function toolArguments(value: unknown): Record<string, unknown> {
	return jsonObjectOf(value) ?? (value === undefined ? {} : { input: value });
}

/** A block of the source that has no pi equivalent, kept with its index in the source content. */
export interface UnmappedBlock {
	index: number;
	block: unknown;
}

/** The source's blocks that `map` gives a pi block for, in order, and the others with their index. */
export function mapBlocks<T>(
	blocks: readonly unknown[],
	map: (block: unknown) => T | undefined,
): { content: T[]; unmapped: UnmappedBlock[] } {
	const content: T[] = [];
	const unmapped: UnmappedBlock[] = [];
	blocks.forEach((block, index) => {
		const mapped = map(block);
		if (mapped !== undefined) content.push(mapped);
		else unmapped.push({ index, block });
	});
	return { content, unmapped };
}

/** The text without a leading byte order mark (U+FEFF). */
export function withoutBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * A UUID derived from a name: the layout of a version-5 UUID (SHA-1 of the name), so that the
 * same source (a conversation, a subagent's transcript, an exported entry) always gets the
 * same id. Every importer and exporter derives its UUIDs with this one function.
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

/** Entry ids derived from seeds (the source's own ids), unique within one session (see `derivedEntryId` in core/ids.ts). */
export class DerivedIds {
	/** The hashes of the ids given (see `derivedHash`): numbers, not texts, so a wide import's lookups stay cheap. */
	private readonly taken = new Set<number>();

	/**
	 * The id for `seed`: the same seed gives the same id as long as the ids taken before are the
	 * same, so seeds are given in source order (a grown source keeps its old ids). The same id
	 * as `derivedEntryId(seed, taken)` with the ids given before taken.
	 */
	id(seed: string): string {
		for (let attempt = 0; ; attempt++) {
			const hash = derivedHash(seed, attempt);
			if (this.taken.has(hash)) continue;
			this.taken.add(hash);
			return hashHex(hash);
		}
	}

	/** True when `id` was given (the test `leafRecordFor` needs, without a set of the ids' texts). */
	has(id: string): boolean {
		return /^[0-9a-f]{8}$/.test(id) && this.taken.has(Number.parseInt(id, 16) | 0);
	}
}

/**
 * The `session_info` entry that names an imported conversation after its title, the first root
 * of the import (its id derived from `scope`); undefined when the title is missing or blank.
 */
export function titleEntry(
	ids: DerivedIds,
	scope: string,
	title: unknown,
	timestamp: string,
): SessionInfoEntry | undefined {
	if (typeof title !== "string" || title.trim() === "") return undefined;
	return sessionInfoEntry({ id: ids.id(`${scope}/title`), parentId: null, timestamp }, title);
}

/** An ISO 8601 time (ms precision) from epoch milliseconds; the epoch for a value that is no time. */
export function isoFromMillis(ms: number): string {
	const time = Math.round(ms);
	const day = Math.floor(time / DAY_MS);
	// A time outside what Date holds (or NaN) is the epoch, as `new Date(…)` would make it invalid.
	if (!(Math.abs(time) <= MAX_DATE_MS)) return EPOCH_ISO;
	if (day !== isoDay.day) isoDay = { day, prefix: new Date(day * DAY_MS).toISOString().slice(0, -13) };
	// The day's date once per day, the time of day by hand: an import makes one such string per
	// entry, and `new Date(ms).toISOString()` costs a Date and its formatting each time.
	let rest = time - day * DAY_MS;
	const hours = Math.floor(rest / 3_600_000);
	rest -= hours * 3_600_000;
	const minutes = Math.floor(rest / 60_000);
	rest -= minutes * 60_000;
	const seconds = Math.floor(rest / 1000);
	const millis = rest - seconds * 1000;
	return `${isoDay.prefix}${two(hours)}:${two(minutes)}:${two(seconds)}.${millis < 10 ? "00" : millis < 100 ? "0" : ""}${millis}Z`;
}

const DAY_MS = 86_400_000;
/** The largest time a Date holds, either side of the epoch (ECMA-262 §21.4.1.22). */
const MAX_DATE_MS = 8.64e15;
const EPOCH_ISO = new Date(0).toISOString();
/** The date part (`2026-12-02T`) of the day {@link isoFromMillis} formatted last. */
let isoDay = { day: Number.NaN, prefix: "" };

function two(value: number): string {
	return value < 10 ? `0${value}` : `${value}`;
}

/** Epoch seconds (possibly fractional) as epoch milliseconds, rounded. */
export function millisFromSeconds(seconds: number): number {
	return Math.round(seconds * 1000);
}

/** A text block. */
export function textBlock(text: string): TextContent {
	return { type: "text", text };
}

/** An image block from a `data:` URL, or undefined when it is not one with base64 data (or no string). */
export function imageFromDataUrl(url: unknown): ImageContent | undefined {
	if (typeof url !== "string") return undefined;
	const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
	if (!match) return undefined;
	return { type: "image", data: match[2] as string, mimeType: match[1] as string };
}

/**
 * pi's usage record from OpenAI counts, in either API's shape: Chat Completions (`prompt_tokens`,
 * `completion_tokens`, `total_tokens`, `prompt_tokens_details.cached_tokens`) or Responses
 * (`input_tokens`, `output_tokens`, `total_tokens`, and `cached_input_tokens` as Codex writes it
 * or `input_tokens_details.cached_tokens`). As pi's OpenAI providers do, cached input is counted
 * apart from plain input (OpenAI includes it in the input count); the total is the one given,
 * else the sum; cost 0 (pi computes cost from its model table, which an import does not have).
 * Anything else (no object, no counts) gives {@link emptyUsage}.
 */
export function usageFromOpenAI(usage: unknown): UsageRecord {
	const out = emptyUsage();
	if (!isJson(usage)) return out;
	const cachedOf = (details: unknown): number | undefined =>
		isJson(details) ? numberField(details, "cached_tokens") : undefined;
	const cached =
		cachedOf(usage.prompt_tokens_details) ??
		numberField(usage, "cached_input_tokens") ??
		cachedOf(usage.input_tokens_details) ??
		0;
	const input = numberField(usage, "prompt_tokens") ?? numberField(usage, "input_tokens") ?? 0;
	out.input = Math.max(0, input - cached);
	out.output = numberField(usage, "completion_tokens") ?? numberField(usage, "output_tokens") ?? 0;
	out.cacheRead = cached;
	out.totalTokens = numberField(usage, "total_tokens") ?? out.input + out.cacheRead + out.output;
	return out;
}

/**
 * The `model` of an imported assistant message whose source names no model: pi's message needs
 * a string, and an empty one would show as a provider alone (`openai/`).
 */
export const UNKNOWN_MODEL = "unknown";

/** An assistant message in pi's shape and key order. */
export function assistantMessage(fields: {
	content: AssistantMessage["content"];
	api: string;
	provider: string;
	model: string;
	usage: UsageRecord;
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
export function withSource<T extends SessionEntry>(entry: T, source: object): T {
	return Object.assign(entry, { source });
}

/** The last entry in file order that has no children: the leaf when the source names none. */
export function lastLeaf(records: readonly SessionEntry[]): string | null {
	const parents = new Set(records.map((entry) => entry.parentId));
	for (let i = records.length - 1; i >= 0; i--) {
		const entry = records[i] as SessionEntry;
		if (!parents.has(entry.id)) return entry.id;
	}
	return null;
}

/**
 * The earliest of the nodes' times (`timeOf`: epoch seconds, undefined for none) in epoch
 * milliseconds, else 0: the time of a conversation that gives none of its own.
 */
export function earliestTime<T>(nodes: Iterable<T>, timeOf: (node: T) => number | undefined): number {
	let earliest = Number.POSITIVE_INFINITY;
	for (const node of nodes) {
		const time = timeOf(node);
		if (time !== undefined && time < earliest) earliest = time;
	}
	return Number.isFinite(earliest) ? millisFromSeconds(earliest) : 0;
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
 * @throws SessionTreeError INVALID_JSON naming the source, and the line and column where the text stops being JSON;
 *   INVALID_RECORD naming the source and the path where the document nests deeper than `MAX_NESTING`
 */
export function parseJsonSource(source: ImportSource): unknown {
	if (source.json !== undefined) return checkedNesting(source, source.json);
	const text = withoutBom(source.text);
	let value: unknown;
	try {
		value = JSON.parse(text);
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
	return nestingProblem(text, value) === undefined ? value : checkedNesting(source, value);
}

/**
 * A whole JSON document of a source, refused when it nests deeper than `MAX_NESTING` levels:
 * the records made of it would nest as deep, and the limit is the same for every record read.
 * @throws SessionTreeError INVALID_RECORD naming the source and the path
 */
export function checkedNesting(source: ImportSource, value: unknown): unknown {
	const problem = nestingProblemOf(value);
	if (problem) throw new SessionTreeError("INVALID_RECORD", `the document is ${problem}`, { file: source.name });
	return value;
}

/** A short description of a conversation for error messages: its id and title. */
export function describeConversation(id: string | undefined, title: unknown): string {
	const parts: string[] = [];
	if (id) parts.push(id);
	if (typeof title === "string" && title !== "") parts.push(JSON.stringify(title));
	return parts.length === 0 ? "" : ` (${parts.join(" ")})`;
}
