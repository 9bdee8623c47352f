/**
 * The entries of a Gemini CLI recording (see `gemini.ts`, which reads the log into items): each
 * message as pi has it, parents first, with what Gemini CLI sends on resume in the context
 * (`gemini-parts.ts` has the content) and every record kept in `source`.
 */

import * as make from "../core/entries.js";
import type { SessionEntry, ToolResultMessage } from "../core/types.js";
import {
	assistantMessage,
	type DerivedIds,
	isJson,
	isoFromMillis,
	type Json,
	stringField,
	textBlock,
	withSource,
} from "./common.js";
import {
	assistantBlocks,
	functionResponseContent,
	geminiUsage,
	isIgnoredUserText,
	partList,
	partsText,
	toolCallResult,
	userPart,
} from "./gemini-parts.js";

/** The `source.format` of entries made from Gemini CLI records. */
export const GEMINI_FORMAT = "gemini";
/** The `api` and `provider` of imported replies (Gemini CLI calls the Gemini API). */
export const GEMINI_API = "google-generative-ai";
export const GEMINI_PROVIDER = "google";

/** Where a record is: its 1-based line, or its place in a document (`messages[3]`, `7:messages[2]`). */
export type At = number | string;

/** One copy of a message record and where it was read. */
export interface Version {
	at: At;
	record: Json;
}

/** A node of the tree being built: a message (all its copies), or a record that is not one (kept as a custom entry). */
export type Item =
	| { kind: "message"; id: string; parent: number | null; versions: Version[] }
	| { kind: "custom"; customType: string; parent: number | null; at: At; data: Json; time: string | undefined }
	| { kind: "name"; parent: number | null; at: At; name: string };

/** Turns the items into entries, parents first (every item's parent is an earlier item). */
export class Converter {
	/** Item index → the entry its children hang under. */
	private readonly own: Array<string | undefined> = [];
	private readonly model: Array<string | undefined> = [];
	private readonly time: number[] = [];
	/** Tool call id → the items whose entries hold a result for it (for telling a result Gemini CLI recorded twice). */
	private readonly answered = new Map<string, Set<number>>();

	constructor(
		private readonly sessionId: string,
		private readonly ids: DerivedIds,
		private readonly items: readonly Item[],
		private readonly problem: (at: At, field: string, message: string, workaround: string) => void,
	) {}

	all(out: SessionEntry[], root: string | null, rootTime: number): Array<string | undefined> {
		this.items.forEach((item, index) => {
			const parentId = item.parent === null ? root : (this.own[item.parent] ?? root);
			const model = item.parent === null ? undefined : this.model[item.parent];
			const time = item.parent === null ? rootTime : (this.time[item.parent] ?? rootTime);
			const entries = this.convert(item, index, parentId, model, time);
			out.push(...entries);
			this.own[index] = entries[entries.length - 1]?.id ?? parentId ?? undefined;
		});
		return this.own;
	}

	/** True when an item at or above `from` holds a result for `callId`. */
	private answeredAbove(from: number | null, callId: string): boolean {
		const holders = this.answered.get(callId);
		if (!holders) return false;
		for (let at = from; at !== null; at = (this.items[at] as Item).parent) if (holders.has(at)) return true;
		return false;
	}

	private markAnswered(index: number, callId: string): void {
		const holders = this.answered.get(callId) ?? new Set<number>();
		holders.add(index);
		this.answered.set(callId, holders);
	}

	private convert(
		item: Item,
		index: number,
		parentId: string | null,
		inherited: string | undefined,
		inheritedTime: number,
	): SessionEntry[] {
		const { ids, sessionId } = this;
		this.model[index] = inherited;
		this.time[index] = inheritedTime;
		if (item.kind === "name") {
			const timestamp = isoFromMillis(inheritedTime);
			return [
				make.sessionInfoEntry({ id: ids.id(`${sessionId}/#${item.at}/summary`), parentId, timestamp }, item.name),
			];
		}
		if (item.kind === "custom") {
			const timestamp = isoFromMillis(inheritedTime);
			const entry = make.customEntry(
				{ id: ids.id(`${sessionId}/#${item.at}`), parentId, timestamp },
				item.customType,
				item.data,
			);
			return [withSource(entry, { format: GEMINI_FORMAT, at: item.at })];
		}
		const latest = item.versions[item.versions.length - 1] as Version;
		const record = latest.record;
		let time = inheritedTime;
		if (record.timestamp !== undefined) {
			const parsed = typeof record.timestamp === "string" ? Date.parse(record.timestamp) : Number.NaN;
			if (Number.isNaN(parsed)) {
				this.problem(
					latest.at,
					"timestamp",
					`${JSON.stringify(record.timestamp)} is not an ISO 8601 date`,
					"the previous record's time is used",
				);
			} else time = parsed;
		}
		this.time[index] = time;
		const timestamp = isoFromMillis(time);
		const base = `${sessionId}/${item.id}`;
		const source: Json = { format: GEMINI_FORMAT, id: item.id, at: item.versions.map((each) => each.at), record };
		const earlier = item.versions.slice(0, -1).map((each) => ({ at: each.at, ...changes(each.record, record) }));
		if (earlier.length > 0) source.earlier = earlier;

		if (record.type === "gemini") return this.reply(item, index, record, source, parentId, time);
		if (record.type === "user") return this.user(item, index, record, source, parentId, time);
		// info, error, warning (and any other type): shown by Gemini CLI, never sent to the model.
		const entry = make.customEntry({ id: ids.id(base), parentId, timestamp }, `gemini:${String(record.type)}`, {
			content: record.content,
		});
		return [withSource(entry, source)];
	}

	private reply(
		item: Extract<Item, { kind: "message" }>,
		index: number,
		record: Json,
		source: Json,
		parentId: string | null,
		time: number,
	): SessionEntry[] {
		const { ids, sessionId } = this;
		const base = `${sessionId}/${item.id}`;
		const timestamp = isoFromMillis(time);
		const { blocks, unmapped } = assistantBlocks(record);
		if (unmapped.length > 0) source.unmapped = unmapped;
		if (blocks.length === 0) {
			// Gemini CLI sends no turn for a reply with nothing in it.
			return [withSource(make.customEntry({ id: ids.id(base), parentId, timestamp }, "gemini:empty-reply"), source)];
		}
		const entries: SessionEntry[] = [];
		let parent = parentId;
		const model = stringField(record, "model") ?? this.model[index] ?? "unknown";
		if (model !== this.model[index]) {
			const change = make.modelChangeEntry(
				{ id: ids.id(`${base}/model`), parentId: parent, timestamp },
				GEMINI_PROVIDER,
				model,
			);
			entries.push(change);
			parent = change.id;
		}
		this.model[index] = model;
		const callsTool = blocks.some((block) => block.type === "toolCall");
		const reply = make.messageEntry(
			{ id: ids.id(base), parentId: parent, timestamp },
			assistantMessage({
				content: blocks,
				api: GEMINI_API,
				provider: GEMINI_PROVIDER,
				model,
				usage: geminiUsage(record.tokens),
				stopReason: callsTool ? "toolUse" : "stop",
				timestamp: time,
			}),
		);
		entries.push(withSource(reply, source));
		parent = reply.id;
		// Each call's recorded result, right after the reply: the turn Gemini CLI sends as `<id>_response`.
		const calls = Array.isArray(record.toolCalls) ? record.toolCalls : [];
		for (const call of calls) {
			if (!isJson(call) || typeof call.id !== "string") continue;
			const result = toolCallResult(call.result, call.status);
			if (!result) continue;
			const callId = result.callId ?? call.id;
			const message: ToolResultMessage = {
				role: "toolResult",
				toolCallId: callId,
				toolName: stringField(call, "name") ?? "tool",
				content: result.content.length > 0 ? result.content : [textBlock("")],
				isError: result.isError,
				timestamp: time,
			};
			const entry = make.messageEntry(
				{ id: ids.id(`${base}/result/${call.id}`), parentId: parent, timestamp },
				message,
			);
			entries.push(withSource(entry, { format: GEMINI_FORMAT, id: item.id, toolCall: call.id }));
			this.markAnswered(index, callId);
			parent = entry.id;
		}
		return entries;
	}

	private user(
		item: Extract<Item, { kind: "message" }>,
		index: number,
		record: Json,
		source: Json,
		parentId: string | null,
		time: number,
	): SessionEntry[] {
		const { ids, sessionId } = this;
		const base = `${sessionId}/${item.id}`;
		const timestamp = isoFromMillis(time);
		const parts = partList(record.content);
		const responses = parts.filter((part): part is Json => isJson(part) && isJson(part.functionResponse));
		if (responses.length === 0 && isIgnoredUserText(partsText(record.content))) {
			// A slash command, an empty prompt, injected context: recorded, but not sent again on resume.
			return [withSource(make.customEntry({ id: ids.id(base), parentId, timestamp }, "gemini:user"), source)];
		}
		const entries: SessionEntry[] = [];
		let parent = parentId;
		const fresh: Json[] = [];
		for (const part of responses) {
			const callId = stringField(part.functionResponse as Json, "id");
			// Newer Gemini CLI records a call's response twice: in the call's `result` and as a user message.
			if (callId !== undefined && this.answeredAbove(item.parent, callId)) continue;
			fresh.push(part);
		}
		fresh.forEach((part, n) => {
			const response = part.functionResponse as Json;
			const callId = stringField(response, "id") ?? `call_${item.id}_${n}`;
			const content = functionResponseContent(part);
			const entry = make.messageEntry(
				{ id: ids.id(`${base}/response/${n}`), parentId: parent, timestamp },
				{
					role: "toolResult",
					toolCallId: callId,
					toolName: stringField(response, "name") ?? "tool",
					content: content.content,
					isError: content.isError,
					timestamp: time,
				},
			);
			entries.push(withSource(entry, { format: GEMINI_FORMAT, id: item.id, response: n }));
			this.markAnswered(index, callId);
			parent = entry.id;
		});
		const rest = parts.filter((part) => !(isJson(part) && isJson(part.functionResponse)));
		const blocks = rest.map(userPart).filter((block) => block !== undefined);
		if (blocks.length < rest.length) source.unmapped = rest.filter((part) => userPart(part) === undefined);
		if (blocks.length === 0) {
			const kind = entries.length > 0 || responses.length === 0 ? "gemini:user" : "gemini:tool-response";
			entries.push(withSource(make.customEntry({ id: ids.id(base), parentId: parent, timestamp }, kind), source));
			return entries;
		}
		const content = typeof record.content === "string" ? record.content : blocks;
		const entry = make.messageEntry(
			{ id: ids.id(base), parentId: parent, timestamp },
			{ role: "user", content, timestamp: time },
		);
		entries.push(withSource(entry, source));
		return entries;
	}
}

/** How an earlier copy of a message differs from its last one: its fields that changed (or were absent) there. */
function changes(before: Json, after: Json): Json {
	const changed: Json = {};
	const missing: string[] = [];
	for (const key of Object.keys(after)) {
		if (!(key in before)) missing.push(key);
		else if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key];
	}
	for (const key of Object.keys(before)) if (!(key in after)) changed[key] = before[key];
	const out: Json = {};
	if (Object.keys(changed).length > 0) out.changed = changed;
	if (missing.length > 0) out.missing = missing;
	return out;
}
