/**
 * The Claude.ai importer: the `conversations.json` of a claude.ai data export (an array of
 * conversations `{uuid, name, created_at, updated_at, chat_messages, …}`) or one conversation
 * object, each conversation a pi session.
 *
 * Where the messages carry `parent_message_uuid` (newer exports), they form the tree the
 * claude.ai interface has: an edited prompt or a retried answer is a branch, and
 * `current_leaf_message_uuid` names the leaf (without it, the last leaf in file order). Older
 * exports have no links: the messages are one chain, in file order. A message's `content`
 * blocks become pi blocks (text, thinking, tool use) and each `tool_result` block a tool result
 * right after the call, as the Messages API has them; the message's `text` stands in when it
 * has no blocks. Attachments (their extracted text, which claude.ai puts in the prompt) and
 * uploaded files (not in the export) become text blocks naming them. Every message is kept on
 * its first entry as `source`, the conversation's fields as the import's `state`.
 * docs/import.md has the mapping table.
 */

import * as make from "../core/entries.js";
import type { SessionEntry, TextContent, ThinkingContent, ToolCall, ToolResultMessage } from "../core/types.js";
import { assistantBlock, toolResultContent } from "./claude-code-content.js";
import {
	assistantMessage,
	DerivedIds,
	describeConversation,
	importError,
	isJson,
	isoFromMillis,
	type Json,
	lastLeaf,
	omit,
	parseJsonSource,
	stringField,
	textBlock,
	titleEntry,
	type UnmappedBlock,
	uuidFromName,
	withSource,
} from "./common.js";
import { childrenInOrder, positionsOf, ROOT, walkLinkedNodes } from "./linked-nodes.js";
import type { ImportedSession, Importer, ImportSkip, ImportSource } from "./types.js";

/** The `source.format` of entries made from Claude.ai messages. */
export const CLAUDE_AI_FORMAT = "claude-ai";
/** The `api` and `provider` of imported replies. */
export const CLAUDE_AI_API = "anthropic-messages";
export const CLAUDE_AI_PROVIDER = "anthropic";
/** The parent claude.ai gives the first message of a conversation (no such message exists). */
const ROOT_PARENT = "00000000-0000-4000-8000-000000000000";

/**
 * The Claude.ai importer (see the module comment): one session per conversation.
 * @throws SessionTreeError INVALID_JSON for text that is not JSON; INVALID_RECORD naming the
 *   conversation, the message and the field for a conversation that is broken (unless lenient)
 */
export const importClaudeAi: Importer = (source) => {
	const value = parseJsonSource(source);
	if (isJson(value)) return [importConversation(source, value, "", [])];
	if (!Array.isArray(value)) {
		throw importError(source, "", "not a Claude.ai export: expected an array of conversations or one conversation");
	}
	const sessions: ImportedSession[] = [];
	const pending: ImportSkip[] = [];
	value.forEach((conversation, index) => {
		const where = `[${index}]`;
		const leftOut = (field: string, message: string) => {
			const prefix = `${where} conversation${isJson(conversation) ? describeConversation(stringField(conversation, "uuid"), conversation.name) : ""}`;
			if (!source.lenient) throw importError(source, `${prefix}${field}`, `${message} (--lenient: left out)`);
			pending.push({ source: source.name, where: `${prefix}${field}`, reason: `${message}: conversation left out` });
		};
		if (!isJson(conversation)) leftOut("", "not a conversation object");
		else if (!Array.isArray(conversation.chat_messages)) leftOut(", chat_messages", "missing or not a list");
		else sessions.push(importConversation(source, conversation, where, pending.splice(0)));
	});
	if (pending.length > 0) {
		const last = sessions.at(-1);
		if (last) sessions[sessions.length - 1] = { ...last, skipped: [...last.skipped, ...pending] };
	}
	return sessions;
};

/** What the conversion of one conversation keeps track of. */
interface Context {
	readonly conversationId: string;
	readonly ids: DerivedIds;
	readonly model: string;
}

function importConversation(
	source: ImportSource,
	conversation: Json,
	where: string,
	carried: ImportSkip[],
): ImportedSession {
	const conversationId = stringField(conversation, "uuid");
	const prefix = `${where === "" ? "" : `${where} `}conversation${describeConversation(conversationId, conversation.name)}`;
	const fail = (field: string, message: string) => importError(source, `${prefix}, ${field}`, message);
	const skipped: ImportSkip[] = [...carried];
	const problem = (field: string, message: string, workaround: string) => {
		if (!source.lenient) throw fail(field, `${message} (--lenient: ${workaround})`);
		skipped.push({ source: source.name, where: `${prefix}, ${field}`, reason: `${message}: ${workaround}` });
	};
	const list = conversation.chat_messages;
	if (!Array.isArray(list)) throw fail("chat_messages", "missing or not a list");

	const keys: string[] = [];
	const nodes = new Map<string, Json>();
	list.forEach((message, index) => {
		if (!isJson(message)) {
			problem(`chat_messages[${index}]`, "not a message object", "left out");
			return;
		}
		let key = stringField(message, "uuid");
		if (key === undefined || nodes.has(key)) {
			problem(
				`chat_messages[${index}]/uuid`,
				key === undefined ? "missing" : `repeats ${key}`,
				"the message's position names it",
			);
			key = `#${index}`;
		}
		keys.push(key);
		nodes.set(key, message);
	});

	// Linked when the messages say who their parent is; else one chain in file order (older exports).
	const linked = [...nodes.values()].some((message) => typeof message.parent_message_uuid === "string");
	const parentOf = new Map<string, string | null>();
	keys.forEach((key, index) => {
		const message = nodes.get(key) as Json;
		const before = index > 0 ? (keys[index - 1] as string) : null;
		if (!linked) {
			parentOf.set(key, before);
			return;
		}
		const parent = message.parent_message_uuid;
		if (parent === ROOT_PARENT || parent === null) parentOf.set(key, null);
		else if (typeof parent === "string" && nodes.has(parent) && parent !== key) parentOf.set(key, parent);
		else if (typeof parent === "string") {
			problem(
				`chat_messages/${key}/parent_message_uuid`,
				`names message ${parent}, which is not in the conversation`,
				"imported as a root",
			);
			parentOf.set(key, null);
		} else {
			problem(`chat_messages/${key}/parent_message_uuid`, "missing", "hung under the message before it");
			parentOf.set(key, before);
		}
	});
	const positions = positionsOf(keys);
	const parent = Int32Array.from(keys, (key) => {
		const up = parentOf.get(key);
		return up === null || up === undefined ? ROOT : (positions.get(up) as number);
	});

	const id = conversationId ?? `messages:${keys[0] ?? ""}`;
	const sessionId = uuidFromName(`claude-ai:${id}`);
	const created = timeOf(conversation.created_at) ?? timeOf(nodes.get(keys[0] ?? "")?.created_at) ?? 0;
	const header = make.sessionHeader(sessionId, isoFromMillis(created), "");
	const context: Context = {
		conversationId: id,
		ids: new DerivedIds(),
		model: stringField(conversation, "model") ?? "unknown",
	};
	const { records, entryOf } = walkLinkedNodes(
		{ keys, parent, children: childrenInOrder(parent) },
		{ title: titleEntry(context.ids, id, conversation.name, header.timestamp), time: created },
		(at, place) => convertMessage(context, keys[at] as string, nodes.get(keys[at] as string) as Json, place),
		(at) =>
			problem(
				`chat_messages/${keys[at]}/parent_message_uuid`,
				"is part of a cycle of parent links",
				"imported as a root",
			),
	);

	let leafId: string | null = lastLeaf(records);
	const current = conversation.current_leaf_message_uuid;
	if (typeof current === "string" && current !== "") {
		const named = entryOf[positions.get(current) ?? -1];
		if (named) leafId = named;
		else
			problem(
				"current_leaf_message_uuid",
				`names message ${current}, which is not in the conversation`,
				"the last leaf is the leaf",
			);
	}
	const state: Json = { format: CLAUDE_AI_FORMAT, conversation: omit(conversation, ["chat_messages"]) };
	return { format: "claude-ai", header, records, leafId, skipped, state };
}

/** Epoch milliseconds of an ISO time, or undefined. */
function timeOf(value: unknown): number | undefined {
	if (typeof value !== "string") return undefined;
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? undefined : ms;
}

/** The text blocks that stand for a message's attachments (their extracted text) and uploaded files. */
function attachmentBlocks(message: Json): TextContent[] {
	const blocks: TextContent[] = [];
	for (const attachment of Array.isArray(message.attachments) ? message.attachments : []) {
		if (!isJson(attachment)) continue;
		const name = stringField(attachment, "file_name") ?? "attachment";
		const details = [
			stringField(attachment, "file_type"),
			typeof attachment.file_size === "number" ? `${attachment.file_size} bytes` : undefined,
		]
			.filter((each) => each !== undefined && each !== "")
			.join(", ");
		const head = `[attachment: ${name}${details === "" ? "" : ` (${details})`}]`;
		const text = stringField(attachment, "extracted_content");
		blocks.push(textBlock(text === undefined ? head : `${head}\n${text}`));
	}
	for (const file of Array.isArray(message.files) ? message.files : []) {
		if (!isJson(file)) continue;
		blocks.push(textBlock(`[file: ${stringField(file, "file_name") || stringField(file, "file_uuid") || "unnamed"}]`));
	}
	return blocks;
}

/** One step of a reply: an assistant turn's blocks, or the result of one of its calls. */
type Step =
	| { kind: "assistant"; blocks: Array<TextContent | ThinkingContent | ToolCall> }
	| { kind: "toolResult"; message: Omit<ToolResultMessage, "timestamp"> };

/**
 * The steps of an assistant message's blocks: a `tool_result` block ends the turn that called
 * the tool (claude.ai runs its tools server-side and records both in one message).
 */
function stepsOf(blocks: readonly unknown[], key: string): { steps: Step[]; unmapped: UnmappedBlock[] } {
	const steps: Step[] = [];
	const unmapped: UnmappedBlock[] = [];
	let turn: Array<TextContent | ThinkingContent | ToolCall> = [];
	const open: ToolCall[] = [];
	const flush = () => {
		if (turn.length > 0) steps.push({ kind: "assistant", blocks: turn });
		turn = [];
	};
	blocks.forEach((block, index) => {
		if (isJson(block) && block.type === "tool_use" && typeof block.name === "string") {
			const id = stringField(block, "id") ?? `toolu_${key}_${index}`;
			const call: ToolCall = {
				type: "toolCall",
				id,
				name: block.name,
				arguments: isJson(block.input) ? block.input : {},
			};
			turn.push(call);
			open.push(call);
			return;
		}
		if (isJson(block) && block.type === "tool_result") {
			flush();
			const named = stringField(block, "tool_use_id");
			const call = (named === undefined ? open[0] : open.find((each) => each.id === named)) ?? undefined;
			if (call) open.splice(open.indexOf(call), 1);
			const content = toolResultContent(block.content);
			for (const each of content.unmapped) unmapped.push({ index, block: each.block });
			steps.push({
				kind: "toolResult",
				message: {
					role: "toolResult",
					toolCallId: named ?? call?.id ?? `toolu_${key}_${index}`,
					toolName: stringField(block, "name") ?? call?.name ?? "tool",
					content: content.content.length > 0 ? content.content : [textBlock("")],
					isError: block.is_error === true,
				},
			});
			return;
		}
		const mapped = assistantBlock(block);
		// An empty text block (claude.ai leaves one after a cancelled call) says nothing.
		if (mapped && !(mapped.type === "text" && mapped.text === "")) turn.push(mapped);
		else if (!mapped) unmapped.push({ index, block });
	});
	flush();
	return { steps, unmapped };
}

function convertMessage(
	context: Context,
	key: string,
	message: Json,
	at: { parentId: string | null; model: string | undefined; time: number },
): { entries: SessionEntry[]; model: string | undefined; time: number } {
	const { ids, conversationId } = context;
	const time = timeOf(message.created_at) ?? at.time;
	const timestamp = isoFromMillis(time);
	const id = ids.id(`${conversationId}/${key}`);
	const source: Json = { format: CLAUDE_AI_FORMAT, id: key, message };
	const blocks = Array.isArray(message.content) ? message.content : [];
	const text = typeof message.text === "string" ? message.text : "";

	if (message.sender === "human") {
		const content: TextContent[] = [];
		const unmapped: UnmappedBlock[] = [];
		blocks.forEach((block, index) => {
			if (isJson(block) && block.type === "text" && typeof block.text === "string") content.push(textBlock(block.text));
			else unmapped.push({ index, block });
		});
		if (content.length === 0 && text !== "") content.push(textBlock(text));
		if (unmapped.length > 0) source.unmapped = unmapped;
		const all = [...content, ...attachmentBlocks(message)];
		const entry = make.messageEntry(
			{ id, parentId: at.parentId, timestamp },
			{ role: "user", content: all.length === 1 ? (all[0] as TextContent).text : all, timestamp: time },
		);
		return { entries: [withSource(entry, source)], model: at.model, time };
	}
	if (message.sender !== "assistant") {
		const entry = make.customEntry({ id, parentId: at.parentId, timestamp }, `claude-ai:${String(message.sender)}`);
		return { entries: [withSource(entry, source)], model: at.model, time };
	}

	const found = stepsOf(blocks, key);
	if (found.steps.length === 0 && text.trim() === "") {
		// A reply with nothing in it (a cancelled or failed answer): kept, never sent.
		if (found.unmapped.length > 0) source.unmapped = found.unmapped;
		const entry = make.customEntry({ id, parentId: at.parentId, timestamp }, "claude-ai:empty-reply");
		return { entries: [withSource(entry, source)], model: at.model, time };
	}
	const steps: Step[] = found.steps.length > 0 ? found.steps : [{ kind: "assistant", blocks: [textBlock(text)] }];
	if (found.unmapped.length > 0) source.unmapped = found.unmapped;
	const entries: SessionEntry[] = [];
	let parentId = at.parentId;
	const model = context.model;
	if (model !== at.model) {
		const change = make.modelChangeEntry(
			{ id: ids.id(`${conversationId}/${key}/model`), parentId, timestamp },
			CLAUDE_AI_PROVIDER,
			model,
		);
		entries.push(change);
		parentId = change.id;
	}
	steps.forEach((step, n) => {
		const stepId = n === 0 ? id : ids.id(`${conversationId}/${key}#${n}`);
		const stamp = { id: stepId, parentId, timestamp };
		const entry =
			step.kind === "assistant"
				? make.messageEntry(
						stamp,
						assistantMessage({
							content: step.blocks,
							api: CLAUDE_AI_API,
							provider: CLAUDE_AI_PROVIDER,
							model,
							usage: make.emptyUsage(),
							stopReason: step.blocks.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
							timestamp: time,
						}),
					)
				: make.messageEntry(stamp, { ...step.message, timestamp: time } as ToolResultMessage);
		entries.push(withSource(entry, n === 0 ? source : { format: CLAUDE_AI_FORMAT, id: key, part: n }));
		parentId = stepId;
	});
	return { entries, model, time };
}
