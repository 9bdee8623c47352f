/**
 * `session-tree browse FILE`: the session tree full-screen (src/cli/browse/). Labels are
 * written as they are set; the entry chosen with Enter moves the leaf after the screen closes
 * (pi's navigate rule), and a user message's text is printed on stdout, to edit and send again
 * (with `--id`, the chosen entry's id). The screen is drawn on the terminal, `/dev/tty` when
 * stdout is not one, so that `text=$(session-tree browse FILE)` takes only the result.
 */

import { basename } from "node:path";
import { sanitize, sanitizeLines } from "../../render/preview.js";
import { shouldColor } from "../../render/terminal.js";
import { firstPrompt } from "../../render/title.js";
import { TREE_FILTERS, type TreeFilter } from "../../render/tree-layout.js";
import type { Session } from "../../session.js";
import type { NavigateResult } from "../../session-options.js";
import { startsAsPiSession } from "../../storage/lines.js";
import { schemeOf } from "../../storage/locations.js";
import { CliError, type CommandHandler, requiredPositional, stringValue, UsageError } from "../args.js";
import { browse } from "../browse/app.js";
import { NoTerminalError, openTerminalDevice, type TerminalDevice } from "../browse/device.js";
import { openSession } from "../open.js";

/**
 * Why the session must not be written, if so: a damaged file opened leniently (repair it
 * first), or another agent's file opened as it is (import it first).
 */
async function readOnlyReason(session: Session, location: string, lenient: boolean): Promise<string | undefined> {
	const problems = session.problems.length;
	if (lenient && problems > 0) {
		return `${problems} problem${problems === 1 ? "" : "s"} in the file (repair it)`;
	}
	if (schemeOf(location) === undefined && !startsAsPiSession(location)) {
		// Only for a file that is not a pi session: the importers are not loaded otherwise.
		const { recordsHeldBy } = await import("../../import/index.js");
		if (recordsHeldBy(session) !== undefined) return "another agent's file (import it)";
	}
	return undefined;
}

function parseFilter(value: string | undefined): TreeFilter {
	if (value === undefined) return "default";
	const filter = TREE_FILTERS.find((name) => name === value);
	if (filter === undefined) {
		throw new UsageError(`unknown filter ${JSON.stringify(value)}: use one of ${TREE_FILTERS.join(", ")}`, "browse");
	}
	return filter;
}

/** How to run the browser on a session. */
export interface BrowseRun {
	readonly filter: TreeFilter;
	/** The session was opened leniently (then a damaged one is browsed read-only). */
	readonly lenient: boolean;
	readonly device: TerminalDevice;
}

/** The entry chosen with Enter, and where the leaf went (written to the session). */
export interface BrowseChoice {
	readonly id: string;
	readonly result: NavigateResult;
}

/**
 * Browses `session` (opened from `location`) on `run.device` and, when an entry is chosen with
 * Enter, moves the leaf as pi's /tree does. Used by the command and by the REPL's `browse`.
 * @returns the choice, or undefined when the user left without one
 */
export async function browseAndChoose(
	session: Session,
	location: string,
	run: BrowseRun,
): Promise<BrowseChoice | undefined> {
	const readOnly = await readOnlyReason(session, location, run.lenient);
	const name = session.getSessionName();
	const outcome = await browse(session, {
		filter: run.filter,
		color: shouldColor(run.device.output),
		// The name, else the first prompt (read up to it), else where the session is.
		title:
			name ?? firstPrompt(session.walkEntries()) ?? (schemeOf(location) === undefined ? basename(location) : location),
		device: run.device,
		...(readOnly !== undefined ? { readOnly } : {}),
	});
	if (outcome.kind !== "choose") return undefined;
	return { id: outcome.id, result: await session.navigate(outcome.id) };
}

/** The terminal to browse on, or the CLI's error when there is none (ending with `hint`). */
export function terminalDevice(hint = "`session-tree tree FILE` prints the tree"): TerminalDevice {
	try {
		return openTerminalDevice();
	} catch (error) {
		if (error instanceof NoTerminalError) throw new CliError(`browse needs a terminal: ${error.message}; ${hint}`);
		throw error;
	}
}

/** Runs `session-tree browse`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const browseCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const location = requiredPositional(positionals, 0);
		const filter = parseFilter(stringValue(values, "filter"));
		const lenient = values.lenient === true;
		// Before the session is opened: without a terminal there is nothing to do.
		const device = terminalDevice();
		try {
			const session = await openSession(location, io, lenient);
			try {
				const choice = await browseAndChoose(session, location, { filter, lenient, device });
				if (choice === undefined) return;
				io.err(`leaf: ${choice.result.leafId ?? "(before the first entry)"}\n`);
				if (values.id === true) io.out(`${sanitize(choice.id)}\n`);
				else if (choice.result.editorText !== undefined) {
					io.out(`${sanitizeLines(choice.result.editorText).join("\n")}\n`);
				}
			} finally {
				await session.close();
			}
		} finally {
			device.close();
		}
	},
};
