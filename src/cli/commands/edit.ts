/**
 * The small editing commands: label, name, nav. Each appends one or two lines to the file.
 * {@link setLabel} and {@link navigateTo} do the work for both front ends: the REPL's commands
 * of those names (src/cli/repl/edit-commands.ts) call them and print in their own way.
 */

import { sanitize, sanitizeLines } from "../../render/preview.js";
import type { Session } from "../../session.js";
import type { NavigateResult } from "../../session-options.js";
import { type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { jsonLine } from "../json.js";
import { openSessionToWrite, resolveEntryId } from "../open.js";

/**
 * Sets the label of entry `given` (an id or a unique prefix of one) to `text`, or clears it when
 * `text` is undefined or empty, as pi's /tree does.
 * @returns the entry's full id and the label it now has
 */
export async function setLabel(
	session: Session,
	given: string,
	text: string | undefined,
): Promise<{ id: string; label: string | undefined }> {
	const id = resolveEntryId(session, given);
	const label = text === undefined || text === "" ? undefined : text;
	await session.appendLabelChange(id, label);
	return { id, label };
}

/**
 * Goes to entry `given` (an id or a unique prefix of one) as pi's /tree does, leaving a branch
 * summary holding `summary` at the new position when one is given (and not empty).
 */
export function navigateTo(session: Session, given: string, summary?: string): Promise<NavigateResult> {
	const id = resolveEntryId(session, given);
	return session.navigate(id, summary !== undefined && summary !== "" ? { summary } : {});
}

/** Runs `session-tree label`; its name, options and help are in its spec (src/cli/specs/edits.ts). */
export const labelCommand: CommandHandler = {
	async run({ positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "label");
		try {
			await setLabel(session, requiredPositional(positionals, 1), positionals[2]);
		} finally {
			await session.close();
		}
	},
};

/** Runs `session-tree name`; its name, options and help are in its spec (src/cli/specs/edits.ts). */
export const nameCommand: CommandHandler = {
	async run({ positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "name");
		try {
			await session.appendSessionInfo(requiredPositional(positionals, 1));
		} finally {
			await session.close();
		}
	},
};

/** Runs `session-tree nav`; its name, options and help are in its spec (src/cli/specs/edits.ts). */
export const navCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "nav");
		try {
			const result = await navigateTo(session, requiredPositional(positionals, 1), stringValue(values, "summary"));
			if (values.json) {
				io.out(jsonLine(result));
				return;
			}
			const lines = [`leaf: ${result.leafId ?? "(before the first entry)"}`];
			if (result.summaryEntryId !== undefined) lines.push(`branch summary: ${result.summaryEntryId}`);
			if (result.editorText !== undefined) lines.push("text to edit:", ...sanitizeLines(result.editorText));
			io.out(lines.map((line) => `${sanitize(line)}\n`).join(""));
		} finally {
			await session.close();
		}
	},
};
