/** The spec of `merge` (metadata only, see common.ts): two copies of one session joined into a new one. */

import { defineCommands, JSON_OPTION } from "./common.js";

/** `merge`, listed after the commands on whole files and stores. */
export const MERGE_SPECS = defineCommands([
	{
		name: "merge",
		summary: "join two copies of one session that both grew into a new session",
		cli: {
			synopsis: "merge A B -o OUT [--leaf a|b|newer] [--force] [--json]",
			description:
				"A and B are two copies of one session (the same session id) that grew apart: a file synced\n" +
				'between two machines (the sync tool left "session (conflict).jsonl"), or the same session\n' +
				"in a file and in a database. Writes their union to OUT, a new session: every record of\n" +
				"both by id, A's in A's order, then those of B that A lacks in B's order (a record is moved\n" +
				"after its parent only where a copy had it before). Labels and session names of both are\n" +
				"kept (where the copies disagree, B's is in effect, being later; stderr says so). An id\n" +
				"that A and B hold with different content is reported (stderr, or --json) and B's version\n" +
				"is written under a new id, with B's records under it or naming it following it.\n" +
				"\n" +
				"Both leaves stay in the tree; the union's leaf is chosen by --leaf: a, b, or newer (the\n" +
				"default): the copy whose last record (its leaf record, or its last entry) has the later\n" +
				"timestamp, A on a tie. A leaf record is appended when the union's last record names\n" +
				"another leaf. A's header is kept. Copies of different sessions are refused unless --force.\n" +
				"\n" +
				"Never writes to A or B: OUT (a .jsonl file, a session URL such as sqlite:PATH#NAME, or a\n" +
				"store such as a directory or sqlite:PATH, where the session is named by its id) must not\n" +
				"hold a session yet, and may not be A or B; `-o -` prints the union's JSONL on stdout. The\n" +
				"union is written as `copy` writes, read back and compared. Prints OUT's location. A and B\n" +
				"must open strictly (repair them first); an older version is merged as its migration.",
			examples: [
				'session-tree merge session.jsonl "session (conflict).jsonl" -o merged.jsonl',
				"session-tree merge session.jsonl 'sqlite:./agents.db#0195f3c2-…' -o 'sqlite:./agents.db#merged' --leaf a",
				"session-tree merge a.jsonl b.jsonl -o merged.jsonl --json | jq .conflicts",
			],
			options: {
				out: { type: "string", short: "o" },
				leaf: { type: "string" },
				force: { type: "boolean" },
				...JSON_OPTION,
			},
			optionDocs: [
				{
					flags: "-o, --out OUT",
					description: "the new session: a file, a session URL, or a store (`-o -`: print the JSONL)",
				},
				{ flags: "--leaf a|b|newer", description: "whose leaf the union gets (default: the newer copy's)" },
				{ flags: "--force", description: "merge copies of different sessions (A's header is kept)" },
				{
					flags: "--json",
					description: "print {location, outcome, a, b, fromA, fromB, shared, conflicts, leaf, …} instead",
				},
			],
			positionals: ["A", "B"],
		},
	},
]);
