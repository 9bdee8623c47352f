/** The spec of `pick`, which carries turns across branches and sessions (metadata only, see common.ts). */

import { defineCommands, JSON_OPTION } from "./common.js";

/** `pick`: copies entries of any branch, or of another session, onto the leaf. */
export const PICK_SPECS = defineCommands([
	{
		name: "pick",
		summary: "copy entries of any branch or session onto the leaf",
		cli: {
			synopsis: "pick SESSION ENTRY... [--onto ID] [--from SESSION2] [--json]",
			description:
				"Copies entries onto the leaf (or onto --onto ID) as new entries, in the order given, and\n" +
				"leaves the leaf at the last copy. Each ENTRY is an id, a unique prefix of one, or FROM..TO:\n" +
				"the path from FROM down to TO (FROM an ancestor of TO). They come from any branch of\n" +
				"SESSION, or from SESSION2 with --from (which is only read).\n" +
				"\n" +
				"Only messages are copied (message, custom_message and branch_summary entries): another\n" +
				"entry named alone is refused, and inside a range it is skipped. A tool call keeps its\n" +
				"results: an assistant message with tool calls brings the results that answer them (from\n" +
				"the source's branch) right after it, and a tool result named alone brings its call and\n" +
				"the call's other results, unless the destination's leaf waits for that very call.\n" +
				"A custom entry (session-tree.pick, never sent to the model) goes first, naming the source\n" +
				"session and the source of each copy. A pick whose copies would give a context a provider\n" +
				"refuses (a tool call without its result, a result apart from its call) writes nothing.\n" +
				"\n" +
				"Prints one line per copy: its new id, the entry it copies and what it says; then the\n" +
				"entries a range skipped and the new leaf.",
			examples: [
				"session-tree pick session.jsonl 1a2b3c4d",
				"session-tree pick session.jsonl 1a2b..5e6f --onto 9c8d",
				"session-tree pick session.jsonl 1a2b --from other.jsonl --json",
			],
			options: { onto: { type: "string" }, from: { type: "string" }, ...JSON_OPTION },
			optionDocs: [
				{ flags: "--onto ID", description: "attach the copies under entry ID instead of the leaf" },
				{ flags: "--from SESSION2", description: "copy from another session (any location; only read)" },
				{ flags: "--json", description: "print {provenanceId, leafId, attachedTo, sourceSession, copies, skipped}" },
			],
			positionals: ["SESSION", "ENTRY", "ENTRY...?"],
		},
		repl: {
			summary: "copy entries onto the leaf",
			usage: "pick <entry…> [--onto ID] [--from FILE]",
			details: [
				"Copies entries (ids, prefixes, FROM..TO ranges) of any branch, or of FILE,",
				"onto the leaf (or --onto ID); tool calls keep their results. Prints each",
				"copy (new id ← source id) and the new leaf.",
			],
			args: ["id"],
			options: { onto: { type: "string", value: "id" }, from: { type: "string", value: "file" } },
			needsSession: true,
		},
	},
]);
