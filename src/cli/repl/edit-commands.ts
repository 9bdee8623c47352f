/**
 * The REPL commands that write to the current session: send, branch, compact, summary, nav,
 * label, name, pick. branch, nav and label do their work through the command line's own
 * (src/cli/commands/write.ts, edit.ts); here they are parsed from the REPL's words and printed.
 */

import { estimateContextTokens, sumTokenEstimates } from "../../core/tokens.js";
import type { ContextMessage } from "../../core/types.js";
import { sanitize } from "../../render/preview.js";
import type { NavigateResult } from "../../session-options.js";
import { navigateTo, setLabel } from "../commands/edit.js";
import { pickEntries, pickLines } from "../commands/pick.js";
import { moveLeaf } from "../commands/write.js";
import { noMoreArgs, parseOptions, type ReplHandlers, requireArg, requireArgs, textOf } from "./command.js";
import { openSessionFile } from "./file-commands.js";
import { assistantMessage, parseRole, sessionModel, toolResultMessage, userMessage } from "./messages.js";
import { ReplError, type ReplState } from "./state.js";

/**
 * What a compaction records as `tokensBefore`: as pi does, the estimated size of the context at
 * the leaf, before the compaction replaces it (the last reported usage plus ~characters/4 of
 * what follows it). A usage of 0 tokens is no measurement (a reply typed with `send assistant`
 * reports none): then every message is estimated from its characters.
 */
export function contextTokensBefore(messages: readonly ContextMessage[]): number {
	const estimate = estimateContextTokens(messages);
	return estimate.lastUsageIndex !== null && estimate.usageTokens === 0 ? sumTokenEstimates(messages) : estimate.tokens;
}

/** What `nav` (and `browse`'s Enter) prints: the new leaf, and the text to edit, if any. */
export function printNavigation(state: ReplState, result: NavigateResult): void {
	state.line(`leaf: ${state.id(result.leafId)}`);
	if (result.editorText !== undefined) {
		const [first, ...rest] = result.editorText.split(/\r?\n/);
		const label = state.env.style.dim("edit:");
		state.line(`${label} ${sanitize(first ?? "")}`);
		for (const line of rest) state.line(`      ${sanitize(line)}`);
	}
}

/** The handlers of send, branch, compact, summary, nav, label, name and pick. */
export const EDIT_COMMANDS = {
	async send(state, args, command) {
		const role = parseRole(requireArg(command, args, 0, "<role>"));
		requireArgs(command, args, 2, "<text…>");
		const text = textOf(args, 1);
		const session = state.requireSession();
		let id: string;
		switch (role) {
			case "user":
				id = await session.appendMessage(userMessage(text));
				break;
			case "assistant":
				id = await session.appendMessage(assistantMessage(text, sessionModel(session.getBranch())));
				break;
			case "toolResult":
				id = await session.appendMessage(toolResultMessage(session.getBranch(), text));
				break;
			case "custom":
				id = await session.appendCustomMessageEntry("session-tree", text, true);
				break;
		}
		state.line(state.id(id));
	},

	async branch(state, args, command) {
		const given = requireArg(command, args, 0, "<id>");
		noMoreArgs(command, args, 1);
		const id = await moveLeaf(state.requireSession(), given);
		state.line(`leaf: ${state.id(id)}`);
	},

	async compact(state, args, command) {
		const given = requireArg(command, args, 0, "<firstKeptId>");
		requireArgs(command, args, 2, "<summary…>");
		const session = state.requireSession();
		const firstKept = session.resolveId(given);
		const onPath = session.getBranch().some((entry) => entry.id === firstKept);
		if (!onPath) throw new ReplError(`${firstKept} is not on the active path (see \`ctx\`)`);
		const tokensBefore = contextTokensBefore(session.buildSessionContext().messages);
		const id = await session.appendCompaction(textOf(args, 1), firstKept, tokensBefore, undefined, undefined, true);
		state.line(state.id(id));
	},

	async summary(state, args, command) {
		const given = requireArg(command, args, 0, "<id|root>");
		requireArgs(command, args, 2, "<text…>");
		const session = state.requireSession();
		const target = given === "root" ? null : session.resolveId(given);
		const id = await session.branchWithSummary(target, textOf(args, 1));
		state.line(state.id(id));
	},

	async nav(state, args, command) {
		const given = requireArg(command, args, 0, "<id>");
		noMoreArgs(command, args, 1);
		printNavigation(state, await navigateTo(state.requireSession(), given));
	},

	async label(state, args, command) {
		const given = requireArg(command, args, 0, "<id>");
		const { id, label } = await setLabel(state.requireSession(), given, textOf(args, 1).trim());
		state.line(
			label === undefined ? `label of ${state.id(id)} cleared` : `label of ${state.id(id)}: ${sanitize(label)}`,
		);
	},

	async name(state, args) {
		const session = state.requireSession();
		if (args.length === 0) {
			state.line(`name: ${sanitize(session.getSessionName() ?? "(none)")}`);
			return;
		}
		const text = textOf(args, 0).trim();
		await session.appendSessionInfo(text);
		state.line(text === "" ? "name cleared" : `name: ${sanitize(text)}`);
	},

	async pick(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		requireArg(command, positionals, 0, "<entry…>");
		const session = state.requireSession();
		const onto = typeof values.onto === "string" ? values.onto : undefined;
		const from = typeof values.from === "string" ? await openSessionFile(state, values.from, false) : undefined;
		try {
			const report = await pickEntries(session, positionals, { onto, from });
			for (const line of pickLines(report, session)) state.line(line);
		} finally {
			await from?.close();
		}
	},
} satisfies ReplHandlers;
