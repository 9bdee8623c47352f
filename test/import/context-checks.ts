/** Checks on the model context an import gives, shared by the import tests. */

import assert from "node:assert/strict";

type Json = Record<string, unknown>;

/**
 * Checks that every tool call of the context has its result among the tool results right after
 * its assistant message, and that every result follows its call: what a provider accepts.
 */
export function assertCallsAnswered(messages: readonly unknown[], mustHave: readonly string[] = []): void {
	const list = messages as Json[];
	const answered = new Set<string>();
	list.forEach((message, index) => {
		if (message.role === "toolResult") {
			answered.add(String(message.toolCallId));
			let back = index - 1;
			while (back >= 0 && list[back]?.role === "toolResult") back--;
			const calls = ((list[back]?.content ?? []) as Json[]).filter((block) => block.type === "toolCall");
			assert.ok(
				calls.some((call) => call.id === message.toolCallId),
				`result ${String(message.toolCallId)} does not follow its call`,
			);
		}
		if (message.role !== "assistant") return;
		for (const call of (message.content as Json[]).filter((block) => block.type === "toolCall")) {
			let ahead = index + 1;
			let found = false;
			while (list[ahead]?.role === "toolResult") {
				if (list[ahead]?.toolCallId === call.id) found = true;
				ahead++;
			}
			assert.ok(found, `call ${String(call.id)} has no result right after it`);
		}
	});
	for (const id of mustHave) assert.ok(answered.has(id), `the source's result ${id} is not in the context`);
}
