/**
 * `session-tree pick`: carries turns across branches and sessions (issue 27) through
 * `Session.pick`. {@link pickEntries} and {@link pickLines} do the work for both front ends:
 * the REPL's `pick` (src/cli/repl/edit-commands.ts) calls them and prints the lines its way.
 */

import { describeEntry, formatDescription, sanitize } from "../../render/preview.js";
import type { PickResult, Session } from "../../session.js";
import { type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { jsonLine } from "../json.js";
import { openSession, openSessionToWrite } from "../open.js";

/** What a pick did, with where it attached and the session it copied from. */
export interface PickReport extends PickResult {
	/** The entry the copies hang under (null: they start a new root). */
	attachedTo: string | null;
	/** The id of the session the copies came from. */
	sourceSession: string;
}

/**
 * Picks `words` (ids, unique prefixes, `FROM..TO` ranges) of `from` (default: `session`) onto
 * the leaf of `session`, or onto `onto`.
 */
export async function pickEntries(
	session: Session,
	words: readonly string[],
	options: { onto?: string | undefined; from?: Session | undefined } = {},
): Promise<PickReport> {
	const result = await session.pick(words, {
		...(options.onto !== undefined ? { onto: options.onto } : {}),
		...(options.from !== undefined ? { from: options.from } : {}),
	});
	const attachedTo = session.getEntry(result.provenanceId)?.parentId ?? null;
	return { ...result, attachedTo, sourceSession: (options.from ?? session).getSessionId() };
}

/** What a pick prints: a line per copy (`NEW ← SOURCE  kind: text`), the skipped entries, the leaf. */
export function pickLines(report: PickReport, session: Session): string[] {
	const why = {
		picked: "",
		"tool-call": "  (the call of a picked result)",
		"tool-result": "  (a result of a picked call)",
	};
	const under = report.attachedTo === null ? "as a new root" : `under ${sanitize(report.attachedTo)}`;
	const lines = [`provenance: ${sanitize(report.provenanceId)} (session-tree.pick, ${under})`];
	for (const copy of report.copies) {
		const entry = session.getEntry(copy.id);
		const text = entry ? formatDescription(describeEntry(entry), 60) : "";
		lines.push(`${sanitize(copy.id)} ← ${sanitize(copy.sourceId)}  ${text}${why[copy.reason]}`);
	}
	for (const skipped of report.skipped)
		lines.push(`skipped ${sanitize(skipped.id)} (${sanitize(skipped.type)}: not a message)`);
	lines.push(`leaf: ${sanitize(report.leafId)}`);
	return lines;
}

/** Runs `session-tree pick`; its name, options and help are in its spec (src/cli/specs/pick.ts). */
export const pickCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const location = requiredPositional(positionals, 0);
		const fromLocation = stringValue(values, "from");
		// The source first: a missing one fails before the destination is opened to write.
		const from = fromLocation === undefined ? undefined : await openSession(fromLocation, io);
		try {
			const session = await openSessionToWrite(location, io, "pick");
			try {
				const report = await pickEntries(session, positionals.slice(1), { onto: stringValue(values, "onto"), from });
				if (values.json) {
					io.out(jsonLine(report));
					return;
				}
				io.out(
					pickLines(report, session)
						.map((line) => `${line}\n`)
						.join(""),
				);
			} finally {
				await session.close();
			}
		} finally {
			await from?.close();
		}
	},
};
