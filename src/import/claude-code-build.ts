/**
 * The entries a Claude Code import makes of its lines, as pure functions of the lines and of
 * what the import decided about them (used by `claude-code.ts`): custom entries, user messages
 * and tool results, assistant messages joined from the lines of one response, compactions.
 *
 * What the import decided is kept as a {@link Recipe}: a direct read of a large transcript
 * keeps only each entry's envelope and recipe, and makes the body again from the lines
 * (read back from the file by offset) when it is asked for, with these same functions
 * (claude-code-lazy.ts); an import keeps the entries it made.
 */

import { customEntry, type EntryStamp, messageEntry } from "../core/entries.js";
import { SessionTreeError } from "../core/errors.js";
import type { AssistantMessage, CompactionEntry, SessionEntry, TextContent } from "../core/types.js";
import { anthropicUsage, assistantBlock, contentText, stopReason } from "./claude-code-content.js";
import { CLAUDE_CODE_FORMAT, type LineMeta, type MessageSource, userLineMessages } from "./claude-code-user.js";
import { isJson, type Json, mapBlocks, withSource } from "./common.js";
import { fieldError, type JsonLine } from "./jsonl.js";
import type { SourceName } from "./types.js";

/** Where a line of the transcript is: its number, and its place in the source (see source-lines.ts). */
export interface LineRef {
	readonly n: number;
	readonly offset: number;
	readonly length: number;
}

/**
 * A line read again by place: the object a scan of it read before.
 * @throws SessionTreeError IO_ERROR when it is no JSON object any more (the file was changed in place)
 */
export function lineAgain(source: SourceName, line: LineRef, text: string | undefined): Json {
	let value: unknown;
	try {
		value = text === undefined ? undefined : JSON.parse(text);
	} catch {
		// Reported below.
	}
	if (!isJson(value)) {
		throw new SessionTreeError("IO_ERROR", "the file was changed in place while it was read", {
			file: source.name,
			line: line.n,
		});
	}
	return value;
}

/** The link of a subagent's first prompt to the tool call that started it. */
export interface SidechainLink {
	entryId: string;
	toolCallId: string;
}

/** How an entry is made from its lines, besides its id, parent and time (its envelope). */
export type Recipe =
	/** The line kept whole as a custom entry of this type. */
	| { readonly kind: "custom"; readonly line: LineRef; readonly customType: string }
	/** Part `part` of a user line's messages; `names` the tool names its results were given. */
	| {
			readonly kind: "user";
			readonly line: LineRef;
			readonly part: number;
			readonly names: ReadonlyMap<string, string>;
			readonly sidechainOf: SidechainLink | undefined;
	  }
	/** The assistant message of one response: its lines, in the order they were joined. */
	| { readonly kind: "assistant"; readonly lines: LineRef[] }
	/** A compact boundary, with the line that carries its summary. */
	| { readonly kind: "boundary"; readonly line: LineRef; readonly carrier: LineRef | undefined };

/** The line kept whole as a custom entry (`claude-code:<type>` unless told). */
export function customOf(stamp: EntryStamp, line: JsonLine, customType?: string): SessionEntry {
	return customEntry(stamp, customType ?? customTypeOf(line.record), line.record);
}

/** The custom type of a line kept whole. */
export function customTypeOf(record: Json): string {
	return `claude-code:${String(record.type)}`;
}

/**
 * The messages of a user line with the `source` each entry keeps (see `userLineMessages`), the
 * first linked to the tool call that started its subagent when `sidechainOf` is given.
 */
export function userParts(
	source: SourceName,
	line: JsonLine,
	ms: number,
	toolName: (callId: string) => string,
	report: ((field: string, problem: string) => void) | undefined,
	sidechainOf: SidechainLink | undefined,
): ReturnType<typeof userLineMessages> {
	const parts = userLineMessages(source, line, line.record.uuid as string, ms, toolName, report);
	const first = parts[0]?.source;
	if (first && sidechainOf) first.sidechainOf = sidechainOf;
	return parts;
}

/** One user message of a line as an entry. */
export function userEntry(stamp: EntryStamp, part: ReturnType<typeof userLineMessages>[number]): SessionEntry {
	return withSource(messageEntry(stamp, part.message), part.source);
}

/** What one assistant line gives: its message, its blocks in pi's shapes, and what its entry keeps of it. */
export interface AssistantPart {
	readonly message: Json;
	readonly messageId: string | undefined;
	readonly blocks: AssistantMessage["content"];
	readonly meta: LineMeta;
}

/**
 * An assistant line read as a part of a response.
 * @throws SessionTreeError INVALID_RECORD when it has no message object or no list of blocks
 */
export function assistantPart(source: SourceName, line: JsonLine): AssistantPart {
	const r = line.record;
	const message = r.message;
	if (!isJson(message)) throw fieldError(source, line.n, "message", "an assistant line needs an object");
	const content = message.content;
	if (!Array.isArray(content)) throw fieldError(source, line.n, "message.content", "not a list of blocks");
	const { content: _content, ...restMessage } = message;
	const meta: LineMeta = { line: line.n, uuid: r.uuid as string, record: { ...r, message: restMessage } };
	const { content: blocks, unmapped } = mapBlocks(content, assistantBlock);
	if (unmapped.length > 0) meta.unmapped = unmapped;
	return { message, messageId: typeof message.id === "string" ? message.id : undefined, blocks, meta };
}

/** An assistant message being assembled from the lines of one response. */
export interface Response {
	readonly message: AssistantMessage;
	readonly source: MessageSource;
	/** The last stop reason a line gave. */
	stop: unknown;
}

/** The response that begins with `part` (the line `record`, at `ms`). */
export function startResponse(part: AssistantPart, record: Json, ms: number): Response {
	const { message } = part;
	const built: AssistantMessage = {
		role: "assistant",
		content: part.blocks,
		api: "anthropic-messages",
		provider: "anthropic",
		model: typeof message.model === "string" ? message.model : "",
		usage: anthropicUsage(message.usage),
		stopReason: "stop",
		timestamp: ms,
	};
	built.stopReason = stopOf(built, message.stop_reason, record);
	const source: MessageSource = { format: CLAUDE_CODE_FORMAT, uuid: part.meta.uuid as string, lines: [part.meta] };
	return { message: built, source, stop: message.stop_reason };
}

/** Another line of a response already begun: its blocks join that message. */
export function joinResponse(response: Response, part: AssistantPart, record: Json): void {
	const { message } = part;
	response.message.content.push(...part.blocks);
	response.source.lines.push(part.meta);
	// Usage is counted once per response, from its last line. Every line of a split response
	// repeats a usage snapshot, so summing the lines counts it several times (ccusage #389), and
	// the first snapshot is often partial while the last has the final output tokens (ccusage #797).
	if (message.usage !== undefined) response.message.usage = anthropicUsage(message.usage);
	if (message.stop_reason !== null && message.stop_reason !== undefined) response.stop = message.stop_reason;
	response.message.stopReason = stopOf(response.message, response.stop, record);
}

/** The entry of a response. */
export function responseEntry(stamp: EntryStamp, response: Response): SessionEntry {
	return withSource(messageEntry(stamp, response.message), response.source);
}

function stopOf(message: AssistantMessage, stop: unknown, r: Json): string {
	if (r.isApiErrorMessage === true) {
		message.errorMessage = message.content
			.filter((b): b is TextContent => b.type === "text")
			.map((b) => b.text)
			.join("\n");
		return "error";
	}
	return stopReason(
		stop,
		message.content.some((b) => b.type === "toolCall"),
	);
}

/**
 * A compact boundary as a compaction entry: its summary the text of the line that carries it
 * (else the boundary's own `content`); `firstKeptEntryId` is the compaction's own id (see
 * claude-code.ts).
 */
export function boundaryEntry(stamp: EntryStamp, line: JsonLine, carrier: JsonLine | undefined): CompactionEntry {
	const r = line.record;
	let summary = typeof r.content === "string" ? r.content : "";
	if (carrier) {
		const message = carrier.record.message;
		summary = contentText(isJson(message) ? message.content : undefined);
	}
	const metadata = r.compactMetadata;
	const preTokens = isJson(metadata) ? metadata.preTokens : undefined;
	const entry: CompactionEntry = {
		type: "compaction",
		id: stamp.id,
		parentId: stamp.parentId,
		timestamp: stamp.timestamp,
		summary,
		firstKeptEntryId: stamp.id,
		tokensBefore: typeof preTokens === "number" ? preTokens : 0,
	};
	return withSource(entry, { format: CLAUDE_CODE_FORMAT, uuid: r.uuid as string, line: line.n, record: r });
}

/**
 * The entry a recipe makes, `line(ref)` giving each line it names (parsed). What the import
 * reported about the lines it reported then; nothing is reported again.
 */
export function entryOf(
	source: SourceName,
	stamp: EntryStamp,
	recipe: Recipe,
	line: (ref: LineRef) => JsonLine,
): SessionEntry {
	switch (recipe.kind) {
		case "custom":
			return customOf(stamp, line(recipe.line), recipe.customType);
		case "user": {
			const report = source.lenient === true ? () => {} : undefined;
			const names = recipe.names;
			const parts = userParts(
				source,
				line(recipe.line),
				Date.parse(stamp.timestamp),
				(id) => names.get(id) ?? "",
				report,
				recipe.sidechainOf,
			);
			const part = parts[recipe.part];
			if (!part) throw new Error(`session-tree: line ${recipe.line.n} no longer gives part ${recipe.part}`);
			return userEntry(stamp, part);
		}
		case "assistant": {
			const [first, ...rest] = recipe.lines.map(line);
			if (!first) throw new Error("session-tree: an assistant recipe without lines");
			const response = startResponse(assistantPart(source, first), first.record, Date.parse(stamp.timestamp));
			for (const next of rest) joinResponse(response, assistantPart(source, next), next.record);
			return responseEntry(stamp, response);
		}
		case "boundary":
			return boundaryEntry(stamp, line(recipe.line), recipe.carrier && line(recipe.carrier));
	}
}
