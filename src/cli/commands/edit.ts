/** The small editing commands: label, name, nav. Each appends one or two lines to the file. */

import { sanitize, sanitizeLines } from "../../render/preview.js";
import { type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { jsonLine } from "../json.js";
import { openSessionToWrite, resolveEntryId } from "../open.js";

/** Runs `session-tree label`; its name, options and help are in the registry (src/cli/registry.ts). */
export const labelCommand: CommandHandler = {
	async run({ positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "label");
		try {
			const id = resolveEntryId(session, requiredPositional(positionals, 1));
			const text = positionals[2];
			await session.appendLabelChange(id, text === undefined || text === "" ? undefined : text);
		} finally {
			await session.close();
		}
	},
};

/** Runs `session-tree name`; its name, options and help are in the registry (src/cli/registry.ts). */
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

/** Runs `session-tree nav`; its name, options and help are in the registry (src/cli/registry.ts). */
export const navCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "nav");
		try {
			const id = resolveEntryId(session, requiredPositional(positionals, 1));
			const summary = stringValue(values, "summary");
			const result = await session.navigate(id, summary !== undefined && summary !== "" ? { summary } : {});
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
