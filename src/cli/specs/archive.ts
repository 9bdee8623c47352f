/** The specs of archive, unarchive and drop-archived (metadata only, see common.ts). */

import { defineCommands, JSON_OPTION } from "./common.js";

/**
 * Putting branches away (issue 27): archive and unarchive append a record and keep the leaf;
 * drop-archived removes the archived branches from the session for good, with a backup.
 */
export const ARCHIVE_SPECS = defineCommands([
	{
		name: "archive",
		summary: "put away the branch that starts at an entry (nothing deleted)",
		cli: {
			synopsis: "archive FILE ID [--json]",
			description:
				"Puts away the branch that starts at entry ID (the entry and its descendants): `tree`,\n" +
				"`leaves`, `browse` and the HTML page leave it out (`--filter all` shows it). Nothing is\n" +
				"deleted: one archive record (a `custom` entry, which pi leaves out of the context) and a\n" +
				"`leaf` record are appended, so the leaf and the model context stay what they were, in\n" +
				"session-tree and in pi. The branch that holds the leaf cannot be archived: move the leaf\n" +
				"first (`branch`). Prints the entry and how many entries the branch holds;\n" +
				"`unarchive` brings it back, `drop-archived` removes archived branches for good.",
			examples: ["session-tree archive session.jsonl 1a2b", "session-tree archive sqlite:./agents.db#ID 1a2b"],
			options: { ...JSON_OPTION },
			optionDocs: [{ flags: "--json", description: "print {id, archived, recordId, entries}" }],
			positionals: ["FILE", "ID"],
		},
		repl: {
			summary: "put a branch away (nothing is deleted)",
			usage: "archive <id>",
			details: ["Hides the branch from tree and leaves (tree --filter all shows it); the leaf stays."],
			args: ["id"],
			needsSession: true,
		},
	},
	{
		name: "unarchive",
		summary: "bring back a branch put away by archive",
		cli: {
			synopsis: "unarchive FILE ID [--json]",
			description:
				"Brings back the branch `archive` put away at entry ID: one archive record (archived:\n" +
				"false) and a `leaf` record are appended; the leaf and the context stay. A branch archived\n" +
				"inside it stays archived. An entry that lies in a branch archived at an ancestor is refused,\n" +
				"naming that ancestor.",
			examples: ["session-tree unarchive session.jsonl 1a2b"],
			options: { ...JSON_OPTION },
			optionDocs: [{ flags: "--json", description: "print {id, archived, recordId, entries}" }],
			positionals: ["FILE", "ID"],
		},
		repl: { usage: "unarchive <id>", args: ["id"], needsSession: true },
	},
	{
		name: "drop-archived",
		summary: "remove archived branches for good (atomic rewrite, backup kept)",
		cli: {
			synopsis: "drop-archived FILE [--json]",
			description:
				"Rewrites the session without its archived branches and their archive records, atomically,\n" +
				"as `repair` does: a file is written to a temporary file, fsynced and renamed over the\n" +
				"original, which is kept as FILE.bak (or .bak.N); a database session keeps its old rows\n" +
				"in the store's backup. Everything else is written as it was, so the session opens with\n" +
				"the same leaf and context. Prints how many entries were dropped and the backup's\n" +
				"location. Refused when the leaf lies in an archived branch or the session has problems.",
			examples: ["session-tree drop-archived session.jsonl"],
			options: { ...JSON_OPTION },
			optionDocs: [{ flags: "--json", description: "print {dropped, branches, backup}" }],
			positionals: ["FILE"],
		},
	},
]);
