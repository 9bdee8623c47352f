/** The commands that check and mend session files: validate and repair. */

import type { LoadProblem } from "../../core/load.js";
import { checkToolPairing, type ToolPairingProblem, type ToolPairingReport } from "../../core/tool-pairing.js";
import { countOf, sanitize } from "../../render/preview.js";
import { Session } from "../../session.js";
import { schemeOf } from "../../storage/locations.js";
import { CliError, type CliIO, type CommandHandler, requiredPositional } from "../args.js";
import { jsonLine } from "../json.js";
import { refuseForeign } from "../open.js";

/** One line of `validate`'s output (and one item of its `--json` array). */
interface ValidateProblem {
	code: string;
	message: string;
	line?: number;
	entryId?: string;
	/** The session, for a foreign file that holds several (`FILE#ID`). */
	location?: string;
	/** For the problems of the context at the leaf: the entries involved and the tool call. */
	entryIds?: string[];
	toolCallId?: string;
}

function problemLine(file: string, problem: ValidateProblem): string {
	const shown = problem.location ?? file;
	const where = problem.line === undefined ? shown : `${shown}:${problem.line}`;
	// Messages quote the file's content (ids, values) and the file's name: data, sanitized.
	return sanitize(`${where}: ${problem.code}: ${problem.message}`);
}

function fromLoad(problem: LoadProblem): ValidateProblem {
	return { ...problem };
}

/** A tool pairing problem as validate lists it (the code is the problem's own, e.g. TOOL_CALL_WITHOUT_RESULT). */
export function fromPairing(problem: ToolPairingProblem, location?: string): ValidateProblem {
	return {
		code: problem.code,
		message: `context at the leaf: ${problem.message}`,
		entryId: problem.resultEntryId ?? problem.callEntryId ?? problem.entryIds[0] ?? "",
		entryIds: problem.entryIds,
		toolCallId: problem.toolCallId,
		...(location !== undefined ? { location } : {}),
	};
}

/** Prints the pending calls of a context (not problems: a turn under way or interrupted) as notes on stderr. */
export function printPending(io: CliIO, where: string, report: ToolPairingReport): void {
	for (const item of report.pending) io.err(`session-tree: note: ${where}: ${item.code}: ${item.message}\n`);
}

/** What `validate` found in one file: the problems, and what to say when there are none. */
interface Validation {
	where: string;
	problems: ValidateProblem[];
	ok: string;
}

/** Validates a pi session: every problem of the file, then those of the context at its leaf. */
async function validatePi(file: string, io: CliIO): Promise<Validation> {
	const session = await Session.open(file, { lenient: true, verify: true });
	const where = session.file ?? file;
	try {
		const pairing = checkToolPairing(session.buildContextEntries());
		printPending(io, where, pairing);
		const problems = [...session.problems.map(fromLoad), ...pairing.problems.map((p) => fromPairing(p))];
		const ok = `${where}: ok (${countOf(session.entryCount, "entry")}, ${countOf(session.listBranches().length, "branch")})`;
		return { where, problems, ok };
	} finally {
		await session.close();
	}
}

/**
 * Validates another agent's file as `tree` and `ctx` read it: imported in memory (leniently,
 * never written); what the import left out or worked around is a problem (IMPORT_SKIPPED),
 * and so is what a provider would refuse in the context at each session's leaf.
 */
async function validateForeign(file: string, io: CliIO): Promise<Validation | undefined> {
	const { chooseSession, openImported } = await import("../../import/index.js");
	const { foreignLocation, importForeignFile } = await import("../../import/open-foreign.js");
	const found = await importForeignFile(file, { lenient: true });
	if (!found) return undefined;
	const chosen = found.selector === undefined ? found.sessions : [chooseSession(found.sessions, found.selector, file)];
	const several = chosen.length > 1;
	const problems: ValidateProblem[] = [];
	let entries = 0;
	for (const imported of chosen) {
		const location = foreignLocation(found, imported);
		const shown = several ? location : undefined;
		for (const skip of imported.skipped) {
			const where = skip.where === "" ? "" : `${skip.where}: `;
			problems.push({
				code: "IMPORT_SKIPPED",
				message: `${where}${skip.reason}`,
				...(shown !== undefined ? { location: shown } : {}),
			});
		}
		const session = await openImported(imported, location, { lenient: true, file: found.path });
		try {
			entries += session.entryCount;
			const pairing = checkToolPairing(session.buildContextEntries());
			printPending(io, location, pairing);
			problems.push(...pairing.problems.map((p) => fromPairing(p, shown)));
		} finally {
			await session.close();
		}
	}
	const what = `${countOf(chosen.length, `${found.format} session`)}, ${countOf(entries, "entry")}, read as an import`;
	return { where: file, problems, ok: `${file}: ok (${what})` };
}

/** Runs `session-tree validate`; its name, options and help are in its spec (src/cli/specs/stores.ts). */
export const validateCommand: CommandHandler = {
	async run({ positionals, values, io }) {
		const file = requiredPositional(positionals, 0);
		const foreign = schemeOf(file) === undefined ? await foreignFormat(file) : undefined;
		const { where, problems, ok } =
			(foreign ? await validateForeign(file, io) : undefined) ?? (await validatePi(file, io));
		if (values.json) {
			io.out(jsonLine(problems));
		} else if (problems.length === 0) {
			io.out(`${sanitize(ok)}\n`);
		} else {
			for (const problem of problems) io.out(`${problemLine(where, problem)}\n`);
		}
		if (problems.length > 0) throw new CliError(`${where}: ${countOf(problems.length, "problem")}`);
	},
};

/** The foreign format of a file, by the one test every command uses (src/import/open-foreign.ts). */
async function foreignFormat(file: string): Promise<string | undefined> {
	const { foreignFormatOf } = await import("../../import/open-foreign.js");
	return foreignFormatOf(file);
}

/** Runs `session-tree repair`; its name, options and help are in its spec (src/cli/specs/stores.ts). */
export const repairCommand: CommandHandler = {
	async run({ positionals, io }) {
		const file = requiredPositional(positionals, 0);
		// Read leniently, another agent's file would look like a damaged pi session and be rewritten as one.
		await refuseForeign(file, "repair");
		const session = await Session.open(file, { lenient: true, verify: true });
		const where = session.file ?? file;
		for (const problem of session.problems) io.err(`session-tree: repairing ${problemLine(where, problem)}\n`);
		const backup = await session.repair();
		await session.close();
		io.out(backup === undefined ? "nothing to repair\n" : `${sanitize(backup)}\n`);
	},
};
