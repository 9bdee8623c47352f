/** The commands that check and mend session files: validate and repair. */

import type { LoadProblem } from "../../core/load.js";
import { countOf } from "../../render/preview.js";
import { Session } from "../../session.js";
import { CliError, type CommandHandler, requiredPositional } from "../args.js";

function problemLine(file: string, problem: LoadProblem): string {
	const where = problem.line === undefined ? file : `${file}:${problem.line}`;
	return `${where}: ${problem.code}: ${problem.message}`;
}

/** Runs `session-tree validate`; its name, options and help are in the registry (src/cli/registry.ts). */
export const validateCommand: CommandHandler = {
	async run({ positionals, values, io }) {
		const file = requiredPositional(positionals, 0);
		const session = await Session.open(file, { lenient: true, verify: true });
		const problems = session.problems;
		const where = session.file ?? file;
		if (values.json) {
			io.out(`${JSON.stringify(problems)}\n`);
		} else if (problems.length === 0) {
			io.out(
				`${where}: ok (${countOf(session.entryCount, "entry")}, ${countOf(session.listBranches().length, "branch")})\n`,
			);
		} else {
			for (const problem of problems) io.out(`${problemLine(where, problem)}\n`);
		}
		if (problems.length > 0) throw new CliError(`${where}: ${countOf(problems.length, "problem")}`);
	},
};

/** Runs `session-tree repair`; its name, options and help are in the registry (src/cli/registry.ts). */
export const repairCommand: CommandHandler = {
	async run({ positionals, io }) {
		const file = requiredPositional(positionals, 0);
		const session = await Session.open(file, { lenient: true, verify: true });
		const where = session.file ?? file;
		for (const problem of session.problems) io.err(`session-tree: repairing ${problemLine(where, problem)}\n`);
		const backup = await session.repair();
		await session.close();
		io.out(backup === undefined ? "nothing to repair\n" : `${backup}\n`);
	},
};
