/**
 * Whether a built context pairs its tool calls and tool results the way providers require.
 *
 * The rule, the strictest of the two APIs session-tree's contexts go to:
 * - Anthropic's Messages API: every `tool_use` block of an assistant message must be answered
 *   by a `tool_result` block in the very next (user) message, and those results must come first
 *   in it ("`tool_use` ids were found without `tool_result` blocks immediately after"); a
 *   `tool_result` whose id is not a `tool_use` of the message just before is refused
 *   ("unexpected `tool_use_id` found in `tool_result` blocks").
 * - OpenAI's Chat Completions API: an assistant message with `tool_calls` must be followed by
 *   `tool` messages answering each `tool_call_id`, and a `tool` message must answer a call of
 *   the assistant message before it.
 *
 * So: after an assistant message with tool calls, the next messages of the context must be
 * `toolResult` messages, one for each of its calls (in any order), before any other message
 * that reaches the model. What reaches the model is decided as pi 0.73.1 sends it:
 * `convertToLlm` turns user, custom, branch and compaction summary messages and bash runs into
 * user messages (a bash run marked `excludeFromContext`, and roles it does not know, are left
 * out, so they separate nothing), and pi-ai's `transformMessages` leaves out assistant messages
 * that stopped with an error or were aborted (so their calls need no result, and results of
 * their calls answer nothing).
 *
 * pi-ai itself patches a call without a result (it sends a synthetic "No result provided"
 * error result), but other clients do not, and the model then never sees the real result; a
 * result without its call, or one separated from it, no client patches.
 *
 * A context that ends with an assistant message whose calls are not all answered yet is what a
 * live session looks like mid-turn (the tools are running), and what an interrupted session
 * leaves: those calls are reported apart, as `pending`, not as problems.
 */

import type { ContextEntry } from "./context.js";
import { isObject } from "./validate.js";

/** The stable codes of what {@link checkToolPairing} finds. */
export type ToolPairingCode =
	/** A tool call that no result answers (and the context goes on after it). */
	| "TOOL_CALL_WITHOUT_RESULT"
	/** A tool result whose call is not in the context (before it). */
	| "TOOL_RESULT_WITHOUT_CALL"
	/** A tool result whose call is in the context, but other messages stand between them. */
	| "TOOL_RESULT_SEPARATED"
	/** A second result for a call that has one already. */
	| "TOOL_RESULT_DUPLICATE"
	/** A call of the context's last assistant message not answered yet (a turn under way, or interrupted). */
	| "TOOL_CALL_PENDING";

/** One thing {@link checkToolPairing} found. */
export interface ToolPairingProblem {
	code: ToolPairingCode;
	/** The tool call's id (`""` for a result that names none). */
	toolCallId: string;
	/** The tool's name, where the call or the result gives it. */
	toolName?: string;
	/** The entry holding the call (a compaction, for a message its `retainedTail` carries). */
	callEntryId?: string;
	/** The entry holding the result. */
	resultEntryId?: string;
	/** The entries involved, call first. */
	entryIds: string[];
	/** The 0-based indexes in the context of the call's and the result's messages. */
	callIndex?: number;
	resultIndex?: number;
	/** For people: what is wrong, naming the entries and the call. */
	message: string;
}

/** What {@link checkToolPairing} returns. */
export interface ToolPairingReport {
	/** What a provider refuses. */
	problems: ToolPairingProblem[];
	/** Calls of the last assistant message still waiting for their results (`TOOL_CALL_PENDING`); not problems. */
	pending: ToolPairingProblem[];
}

/** A tool call of the context. */
interface Call {
	id: string;
	name: string | undefined;
	entryId: string;
	index: number;
	answered: boolean;
}

/** Roles pi turns into a user message (see the module comment): they end a run of results. */
const USER_LIKE = new Set(["user", "custom", "branchSummary", "compactionSummary", "bashExecution"]);

function isSkippedAssistant(message: Record<string, unknown>): boolean {
	return message.stopReason === "error" || message.stopReason === "aborted";
}

/** The tool calls of an assistant message's content. */
function callsOf(message: Record<string, unknown>, entryId: string, index: number): Call[] {
	const content = message.content;
	if (!Array.isArray(content)) return [];
	const calls: Call[] = [];
	for (const block of content) {
		if (!isObject(block) || block.type !== "toolCall" || typeof block.id !== "string") continue;
		const name = typeof block.name === "string" ? block.name : undefined;
		calls.push({ id: block.id, name, entryId, index, answered: false });
	}
	return calls;
}

function label(id: string, name: string | undefined): string {
	return name === undefined ? `tool call ${id}` : `tool call ${id} (${name})`;
}

/**
 * Lists what a provider would refuse in a built context (the messages with their entries, as
 * `buildContextEntries` returns them): calls without a result, results without a call, results
 * separated from their call, and second results; and, apart, the calls of the last assistant
 * message that are still pending. Pure; one pass over the messages.
 */
export function checkToolPairing(context: readonly ContextEntry[]): ToolPairingReport {
	const problems: ToolPairingProblem[] = [];
	/** Every call so far, in order, and by id (a later call with the same id takes the id). */
	const all: Call[] = [];
	const calls = new Map<string, Call>();
	/** Calls of assistant messages pi does not send (error, aborted), by id: for the message of a result of one. */
	const unsent = new Map<string, string>();
	/** The calls of the assistant message whose run of results is still going on. */
	let open: Call[] = [];
	for (const [index, { entry, message }] of context.entries()) {
		if (!isObject(message)) continue;
		const role = message.role;
		if (role === "assistant") {
			open = [];
			if (isSkippedAssistant(message)) {
				for (const call of callsOf(message, entry.id, index)) unsent.set(call.id, entry.id);
				continue;
			}
			open = callsOf(message, entry.id, index);
			for (const call of open) {
				all.push(call);
				calls.set(call.id, call);
				unsent.delete(call.id);
			}
		} else if (role === "toolResult") {
			const id = typeof message.toolCallId === "string" ? message.toolCallId : "";
			const resultName = typeof message.toolName === "string" ? message.toolName : undefined;
			const call = calls.get(id);
			if (!call) {
				const from = unsent.get(id);
				const why =
					id === ""
						? "no tool call (it names none)"
						: from === undefined
							? `${label(id, resultName)}, which is not in the context before it`
							: `${label(id, resultName)} of entry ${from}, an assistant message that stopped with an error or was aborted, which pi does not send`;
				problems.push({
					code: "TOOL_RESULT_WITHOUT_CALL",
					toolCallId: id,
					...(resultName !== undefined ? { toolName: resultName } : {}),
					resultEntryId: entry.id,
					entryIds: [entry.id],
					resultIndex: index,
					message: `the result in entry ${entry.id} answers ${why}`,
				});
				continue;
			}
			const base = {
				toolCallId: id,
				...(call.name !== undefined ? { toolName: call.name } : {}),
				callEntryId: call.entryId,
				resultEntryId: entry.id,
				entryIds: [call.entryId, entry.id],
				callIndex: call.index,
				resultIndex: index,
			};
			if (call.answered) {
				problems.push({
					...base,
					code: "TOOL_RESULT_DUPLICATE",
					message: `the result in entry ${entry.id} answers ${label(id, call.name)} of entry ${call.entryId} a second time`,
				});
			} else if (!open.includes(call)) {
				call.answered = true;
				const between = index - call.index - 1;
				problems.push({
					...base,
					code: "TOOL_RESULT_SEPARATED",
					message: `the result in entry ${entry.id} of ${label(id, call.name)} is separated from its call in entry ${call.entryId} by ${between} message(s); results must follow their call's assistant message directly`,
				});
			} else {
				call.answered = true;
			}
		} else if (typeof role === "string" && USER_LIKE.has(role)) {
			if (role === "bashExecution" && message.excludeFromContext === true) continue;
			open = [];
		}
	}
	const pending: ToolPairingProblem[] = [];
	// Calls of the last run still open wait for their results; every other unanswered call has none.
	const waiting = new Set(open);
	const unanswered = all.filter((call) => !call.answered);
	for (const call of unanswered) {
		const item = {
			toolCallId: call.id,
			...(call.name !== undefined ? { toolName: call.name } : {}),
			callEntryId: call.entryId,
			entryIds: [call.entryId],
			callIndex: call.index,
		};
		if (waiting.has(call)) {
			pending.push({
				...item,
				code: "TOOL_CALL_PENDING",
				message: `${label(call.id, call.name)} in entry ${call.entryId} has no result yet (the context ends in its turn)`,
			});
		} else {
			problems.push({
				...item,
				code: "TOOL_CALL_WITHOUT_RESULT",
				message: `${label(call.id, call.name)} in entry ${call.entryId} has no result in the context`,
			});
		}
	}
	problems.sort((a, b) => firstIndex(a) - firstIndex(b));
	return { problems, pending };
}

/** Where in the context a problem shows first: its result, or its call when it has none. */
function firstIndex(problem: ToolPairingProblem): number {
	return problem.resultIndex ?? problem.callIndex ?? 0;
}
