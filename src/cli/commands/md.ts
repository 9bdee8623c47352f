/** `session-tree md`: the path from the root to the leaf as Markdown. Never writes to the file. */

import { renderMarkdown } from "../../render/markdown.js";
import { formatCounts, redactRecords, redactText } from "../../render/redact.js";
import { type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { openSession, resolveEntryId } from "../open.js";

/** The counts of two redactions added up. */
function sum(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): Record<string, number> {
	const out: Record<string, number> = { ...b };
	for (const [kind, n] of Object.entries(a)) out[kind] = (out[kind] ?? 0) + n;
	return out;
}

/** Runs `session-tree md`; its name, options and help are in the registry (src/cli/registry.ts). */
export const mdCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const given = stringValue(values, "leaf");
		const leafId = given === undefined ? session.getLeafId() : resolveEntryId(session, given);
		const path = leafId === null ? [] : session.getBranch(leafId);
		// Secrets are replaced in what is printed unless --no-redact: Markdown is for pasting.
		const keep = values["no-redact"] === true;
		const counts = {};
		const scrub = (text: string | undefined) => (keep || text === undefined ? text : redactText(text, counts));
		const redacted = keep ? { records: path, counts } : redactRecords(path);
		io.out(
			renderMarkdown({
				sessionId: session.getSessionId(),
				cwd: scrub(session.getCwd()) ?? "",
				name: scrub(session.getSessionName()),
				leafId,
				entries: redacted.records,
				label: (id) => scrub(session.getLabel(id)),
			}),
		);
		const summary = formatCounts(keep ? {} : sum(redacted.counts, counts));
		if (summary !== "") io.err(`session-tree: redacted ${summary} (--no-redact keeps them)\n`);
	},
};
