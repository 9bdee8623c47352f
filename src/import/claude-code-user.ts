/**
 * Claude Code user lines in pi's shapes (used by `claude-code.ts`): tool results, typed text
 * and images, with what each entry keeps of the line as its `source`.
 */

import type { ToolResultMessage, UserMessage } from "../core/types.js";
import { toolResultContent, userBlocks } from "./claude-code-content.js";
import { isJson, type Json, type UnmappedBlock } from "./common.js";
import { fieldError, type JsonLine } from "./jsonl.js";
import type { SourceName } from "./types.js";

/** The `source.format` of entries made from Claude Code lines. */
export const CLAUDE_CODE_FORMAT = "claude-code";

/** One source line as an entry's `source` keeps it. */
export interface LineMeta {
	/** 1-based line number. */
	line: number;
	uuid?: string;
	/** The line without `message.content` (mapped into the message) and `toolUseResult` (in `details`). */
	record?: Json;
	/** Content blocks pi has no shape for, with their index in the line's content. */
	unmapped?: UnmappedBlock[];
}

/** The `source` of a message entry. */
export interface MessageSource {
	format: typeof CLAUDE_CODE_FORMAT;
	/** The uuid of the (first) line. */
	uuid: string;
	/** The source lines of the message: one, or each line of a response split over several. */
	lines: LineMeta[];
	/** Which entry of a line that gives several (tool results first, then user text): 1, 2, … */
	part?: number;
	/** A tool result block's own fields other than its content. */
	block?: Json;
	/**
	 * How a tool result block held its content where pi's content does not tell (so that an
	 * export writes it back as it was): `"blocks"` a list of one text block (else read as a
	 * string), `"absent"` no `content` key, `"null"` null. Absent for a string or other lists.
	 */
	resultContent?: "blocks" | "absent" | "null";
	/** For the first user line of a subagent run: the tool call that started it. */
	sidechainOf?: { entryId: string; toolCallId: string };
}

/**
 * The messages of a user line: each tool result a toolResult message (named after its call by
 * `toolName`), the other content (text, images) a user message, in the line's order; each with
 * the `source` its entry keeps. The first keeps the line itself (without the mapped content).
 * A `tool_result` block without a string `tool_use_id` throws, unless `report` is given (a
 * lenient import): then it is reported and kept as an unmapped block of the user content (in
 * `source`, so exporting back gives it again); no call can be matched to it.
 */
export function userLineMessages(
	source: SourceName,
	line: JsonLine,
	uuid: string,
	ms: number,
	toolName: (callId: string) => string,
	report?: (field: string, problem: string) => void,
): Array<{ message: UserMessage | ToolResultMessage; source: MessageSource }> {
	const r = line.record;
	const message = r.message;
	if (!isJson(message)) throw fieldError(source, line.n, "message", "a user line needs an object");
	const content = message.content;
	const { content: _content, ...restMessage } = message;
	const { toolUseResult, ...restLine } = r;
	const messages: Array<UserMessage | ToolResultMessage> = [];
	const sources: MessageSource[] = [];
	const sourceOf = (unmapped: UnmappedBlock[], block?: Json): MessageSource => {
		const meta: LineMeta = { line: line.n, uuid };
		if (unmapped.length > 0) meta.unmapped = unmapped;
		const out: MessageSource = { format: CLAUDE_CODE_FORMAT, uuid, lines: [meta] };
		if (block) out.block = block;
		return out;
	};
	if (typeof content === "string") {
		messages.push({ role: "user", content, timestamp: ms });
		sources.push(sourceOf([]));
	} else if (Array.isArray(content)) {
		let run: unknown[] = [];
		let runStart = 0;
		const flush = (): void => {
			if (run.length === 0) return;
			const { content: blocks, unmapped } = userBlocks(run);
			const offset = runStart;
			messages.push({ role: "user", content: blocks, timestamp: ms });
			sources.push(sourceOf(unmapped.map((u) => ({ index: u.index + offset, block: u.block }))));
			run = [];
		};
		content.forEach((block, index) => {
			const orphan = isJson(block) && block.type === "tool_result" && typeof block.tool_use_id !== "string";
			if (orphan) {
				const field = `message.content[${index}].tool_use_id`;
				if (!report) throw fieldError(source, line.n, field, "a tool_result needs a string");
				report(field, "a tool_result needs a string; kept unmapped in the user message's source");
			}
			if (!(isJson(block) && block.type === "tool_result") || orphan) {
				if (run.length === 0) runStart = index;
				run.push(block);
				return;
			}
			flush();
			const callId = block.tool_use_id as string;
			const mapped = toolResultContent(block.content);
			const result: ToolResultMessage = {
				role: "toolResult",
				toolCallId: callId,
				toolName: toolName(callId),
				content: mapped.content,
				isError: block.is_error === true,
				timestamp: ms,
			};
			// The structured copy of the result goes with the line's first tool result.
			if (toolUseResult !== undefined && !messages.some((m) => m.role === "toolResult")) {
				result.details = toolUseResult;
			}
			messages.push(result);
			const { content: _blockContent, ...blockRest } = block;
			const kept = sourceOf(mapped.unmapped, blockRest);
			const shape = resultContentShape(block);
			if (shape !== undefined) kept.resultContent = shape;
			sources.push(kept);
		});
		flush();
	} else {
		throw fieldError(source, line.n, "message.content", "neither a string nor a list of blocks");
	}
	if (messages.length === 0) {
		messages.push({ role: "user", content: [], timestamp: ms });
		sources.push(sourceOf([]));
	}
	const first = sources[0] as MessageSource;
	// `toolUseResult` went to the first tool result's `details`; without one it stays on the line.
	const inDetails = messages.some((m) => m.role === "toolResult");
	(first.lines[0] as LineMeta).record = inDetails
		? { ...restLine, message: restMessage }
		: { ...r, message: restMessage };
	return messages.map((message, part) => {
		const kept = sources[part] as MessageSource;
		if (part > 0) kept.part = part;
		return { message, source: kept };
	});
}

/**
 * The shape of a tool result's content that pi's content leaves ambiguous: a list of exactly
 * one plain text block reads like a string, and a missing or null content like an empty list.
 */
function resultContentShape(block: Json): MessageSource["resultContent"] {
	const content = block.content;
	if (!("content" in block)) return "absent";
	if (content === null) return "null";
	if (!Array.isArray(content) || content.length !== 1) return undefined;
	const [only] = content;
	return isJson(only) && only.type === "text" && Object.keys(only).length === 2 ? "blocks" : undefined;
}
