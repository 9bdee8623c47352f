/**
 * One save of a chat, for `session-tree/ai-sdk` (src/adapters/ai-sdk.ts): the incoming
 * UIMessages against the session tree, by the branching rules of docs/adapters.md. Private to
 * that adapter.
 */

import type { UIMessage } from "ai";
import type { AgentMessage } from "../core/types.js";
import type { Session } from "../session.js";
import {
	MARK_FIELD,
	type Mark,
	type ModelNames,
	modelView,
	piMessagesOf,
	REVISION_TYPE,
	sameJson,
} from "./ai-sdk-messages.js";
import { ActivePath, type Run, runsUnder } from "./ai-sdk-tree.js";

/** What a save did. */
export interface SaveChatResult {
	/** Records written: entries and leaf moves. 0 when the session already held exactly this chat. */
	written: number;
	/** The ids of the messages stored now, as new messages or as new versions. */
	stored: string[];
	/** The session's leaf afterwards. */
	leafId: string | null;
}

/** One save (see `ChatStore.saveChat` and docs/adapters.md): the session holds the chat afterwards. */
export async function save(
	session: Session,
	incoming: UIMessage[],
	trigger: string | undefined,
	now: () => number,
	names: ModelNames,
): Promise<SaveChatResult> {
	const tree = session.getTreeIndex();
	const path = new ActivePath(tree);
	const { runs } = path;
	const result: SaveChatResult = { written: 0, stored: [], leafId: session.getLeafId() };

	// The messages that match the active path, by id and content.
	let at = 0;
	while (at < incoming.length && at < runs.length && sameJson(incoming[at], runs[at]?.message)) at++;
	let cursor = path.before(at);

	const moveTo = async (target: string | null) => {
		if (session.getLeafId() === target) return;
		if (target === null) await session.resetLeaf();
		else await session.branch(target);
		result.written++;
	};
	const append = async (message: UIMessage, pi: AgentMessage[]) => {
		await moveTo(cursor);
		if (pi.length === 0) {
			cursor = await session.appendCustomEntry(REVISION_TYPE, {
				messageId: message.id,
				uiMessage: message,
			} satisfies Mark);
		}
		for (const [index, each] of pi.entries()) {
			const mark: Mark =
				index === pi.length - 1 ? { messageId: message.id, uiMessage: message } : { messageId: message.id };
			cursor = await session.appendMessage({ ...each, [MARK_FIELD]: mark } as AgentMessage);
		}
		result.written += Math.max(1, pi.length);
		result.stored.push(message.id);
	};

	const next = incoming[at];
	const stored = runs[at];
	if (next && stored && next.id === stored.messageId && continues(stored, next, trigger, names)) {
		// An answer that grew: its run goes on from where it ended.
		cursor = path.before(at + 1);
		const pi = piMessagesOf(next, now(), names);
		await append(next, pi.slice(stored.pi.length));
		at++;
	} else {
		// Off the active path: alternatives already stored that equal the messages are followed, not written again.
		for (; at < incoming.length; at++) {
			const message = incoming[at];
			const equal = runsUnder(tree, cursor).filter((run) => sameJson(run.message, message));
			const found = equal[equal.length - 1];
			if (!found) break;
			cursor = found.end.id;
		}
	}
	for (; at < incoming.length; at++) {
		const message = incoming[at] as UIMessage;
		await append(message, piMessagesOf(message, now(), names));
	}
	await moveTo(cursor);
	result.leafId = session.getLeafId();
	return result;
}

/**
 * True when `next` continues the stored answer: same id, an assistant message, not a
 * regeneration, and the pi messages stored for it are the first of those `next` gives (a tool
 * result arrived, an approval was answered, the model went on).
 */
function continues(stored: Run, next: UIMessage, trigger: string | undefined, names: ModelNames): boolean {
	if (trigger === "regenerate-message" || next.role !== "assistant" || stored.message.role !== "assistant")
		return false;
	const now = piMessagesOf(next, 0, names).map(modelView);
	const before = stored.pi.map(modelView);
	return before.length <= now.length && before.every((message, index) => sameJson(message, now[index]));
}
