/** `session-tree md`: the path from the root to the leaf as Markdown. Never writes to the file. */

import type { SessionEntry } from "../../core/types.js";
import { markdownTitle, writeMarkdown } from "../../render/markdown.js";
import { formatCounts, type RedactionCounts, redactRecords, redactText } from "../../render/redact.js";
import { type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { openSession, resolveEntryId } from "../open.js";

/** Adds the counts of a redaction to `total`. */
function add(total: RedactionCounts, counts: Readonly<RedactionCounts>): void {
	for (const [kind, n] of Object.entries(counts)) total[kind] = (total[kind] ?? 0) + n;
}

/** Runs `session-tree md`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const mdCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const given = stringValue(values, "leaf");
		const leafId = given === undefined ? session.getLeafId() : resolveEntryId(session, given);
		// Secrets are replaced in what is printed unless --no-redact: Markdown is for pasting.
		const keep = values["no-redact"] === true;
		const counts: RedactionCounts = {};
		const scrub = (text: string | undefined) => (keep || text === undefined ? text : redactText(text, counts));
		// The path is read entry by entry as it is written, each body redacted alone and let go:
		// a long path of a large session (a Claude Code transcript read directly) never holds
		// every body, nor the whole document. `into` gets the counts (none for the title's look ahead).
		const path = (into: RedactionCounts | undefined): Iterable<SessionEntry> => ({
			*[Symbol.iterator]() {
				if (leafId === null) return;
				for (const entry of session.walkBranch(leafId)) {
					if (keep) {
						yield entry;
						continue;
					}
					const redacted = redactRecords([entry]);
					if (into) add(into, redacted.counts);
					yield redacted.records[0] as SessionEntry;
				}
			},
		});
		const name = scrub(session.getSessionName());
		const input = {
			sessionId: session.getSessionId(),
			cwd: scrub(session.getCwd()) ?? "",
			name,
			leafId,
			label: (id: string) => scrub(session.getLabel(id)),
		};
		const title = markdownTitle({ ...input, entries: path(undefined) });
		writeMarkdown({ ...input, title, entries: path(counts) }, io.out);
		const summary = formatCounts(counts);
		if (summary !== "") io.err(`session-tree: redacted ${summary} (--no-redact keeps them)\n`);
	},
};
