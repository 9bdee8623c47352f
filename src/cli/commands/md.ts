/** `session-tree md`: the path from the root to the leaf as Markdown. Never writes to the file. */

import { renderMarkdown } from "../../render/markdown.js";
import { type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { openSession, resolveEntryId } from "../open.js";

/** Runs `session-tree md`; its name, options and help are in the registry (src/cli/registry.ts). */
export const mdCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const given = stringValue(values, "leaf");
		const leafId = given === undefined ? session.getLeafId() : resolveEntryId(session, given);
		io.out(
			renderMarkdown({
				sessionId: session.getSessionId(),
				cwd: session.getCwd(),
				name: session.getSessionName(),
				leafId,
				entries: leafId === null ? [] : session.getBranch(leafId),
				label: (id) => session.getLabel(id),
			}),
		);
	},
};
