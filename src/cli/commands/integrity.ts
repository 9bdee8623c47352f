/** The commands that check and mend session files: validate and repair. */

import type { LoadProblem } from "../../core/load.js";
import { Session } from "../../session.js";
import { CliError, type Command } from "../args.js";

function problemLine(file: string, problem: LoadProblem): string {
	const where = problem.line === undefined ? file : `${file}:${problem.line}`;
	return `${where}: ${problem.code}: ${problem.message}`;
}

export const validateCommand: Command = {
	name: "validate",
	summary: "list every problem of a session file (exit 1 if any)",
	synopsis: "validate FILE [--json]",
	description:
		"Reads the whole file leniently and lists every problem with its line: unreadable or\n" +
		"glued lines, NUL padding, an incomplete last line, missing parents, parent cycles,\n" +
		"duplicate ids, a bad header. Never writes. Exit 0 when the file is clean, 1 when it has\n" +
		"problems (then `session-tree repair FILE` writes a clean copy, keeping a backup).",
	examples: ["session-tree validate session.jsonl", "session-tree validate session.jsonl --json | jq length"],
	options: { json: { type: "boolean" } },
	optionDocs: [
		{ flags: "--json", description: "print the problems as a JSON array of {code, line, message, entryId}" },
	],
	positionals: ["FILE"],
	run({ positionals, values, io }) {
		const file = positionals[0] as string;
		const session = Session.open(file, { lenient: true, verify: true });
		const problems = session.problems;
		const where = session.file ?? file;
		if (values.json) {
			io.out(`${JSON.stringify(problems)}\n`);
		} else if (problems.length === 0) {
			io.out(`${where}: ok (${session.entryCount} entries, ${session.listBranches().length} branches)\n`);
		} else {
			for (const problem of problems) io.out(`${problemLine(where, problem)}\n`);
		}
		if (problems.length > 0) throw new CliError(`${where}: ${problems.length} problem(s)`);
	},
};

export const repairCommand: Command = {
	name: "repair",
	summary: "write a clean copy of a damaged session file (backup kept)",
	synopsis: "repair FILE",
	description:
		"Opens the file leniently and, if it has problems, rewrites it atomically (temporary file,\n" +
		"fsync, rename) with every readable entry: unreadable lines left out, records glued on one\n" +
		"line split, gaps bridged to the previous entry, cycles cut, duplicate ids renamed, an\n" +
		"incomplete last line dropped. The original is kept next to it as FILE.bak (or .bak.N),\n" +
		"whose path is printed. A clean file is left untouched.",
	examples: ["session-tree repair session.jsonl && session-tree validate session.jsonl"],
	options: {},
	optionDocs: [],
	positionals: ["FILE"],
	run({ positionals, io }) {
		const file = positionals[0] as string;
		const session = Session.open(file, { lenient: true, verify: true });
		const where = session.file ?? file;
		for (const problem of session.problems) io.err(`session-tree: repairing ${problemLine(where, problem)}\n`);
		const backup = session.repair();
		session.close();
		io.out(backup === undefined ? "nothing to repair\n" : `${backup}\n`);
	},
};
