/**
 * `session-tree diff`: two paths compared (core/diff.ts, drawn by render/diff-text.ts). Either
 * two entries of one session (`diff SESSION A B`: typically two leaves) or the leaves of two
 * sessions (`diff SESSION_A SESSION_B`: a fork and its source, two copies). Reads only.
 */

import { diffPaths } from "../../core/diff.js";
import { renderDiffLines } from "../../render/diff-text.js";
import { describeEntry } from "../../render/preview.js";
import { shouldColor } from "../../render/terminal.js";
import type { Session } from "../../session.js";
import { type CommandHandler, UsageError } from "../args.js";
import { jsonLine } from "../json.js";
import { openSession, resolveEntryId } from "../open.js";

/** The end of a path: the entry given, else the session's leaf. */
function endOf(session: Session, given: string | undefined): string | null {
	return given === undefined ? session.getLeafId() : resolveEntryId(session, given);
}

/** The two paths' ends (the entries given, else the leaves) and their diff. */
function compare(first: Session, a: string | undefined, b: string | undefined, second: Session) {
	const from = endOf(first, a);
	const to = endOf(second, b);
	const diff = diffPaths(from === null ? [] : first.getBranch(from), to === null ? [] : second.getBranch(to));
	return { a: from, b: to, ...diff };
}

/**
 * The lines of a diff of two paths of one session or two, for both front ends: the REPL's
 * `diff` prints the same lines as the command line's.
 */
export function diffLines(
	first: Session,
	a: string | undefined,
	b: string | undefined,
	color: boolean,
	second = first,
): string[] {
	const diff = compare(first, a, b, second);
	const ancestor = diff.ancestorId === null ? undefined : first.getEntry(diff.ancestorId);
	return renderDiffLines(diff, {
		a: diff.a ?? "(empty)",
		b: diff.b ?? "(empty)",
		color,
		...(ancestor ? { ancestor: { id: ancestor.id, ...describeEntry(ancestor) } } : {}),
	});
}

/** Runs `session-tree diff`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const diffCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		if (positionals.length < 2 || positionals.length > 3)
			throw new UsageError("diff takes SESSION A B (two entries) or SESSION_A SESSION_B (two sessions)", "diff");
		const lenient = values.lenient === true;
		const first = await openSession(positionals[0] as string, io, lenient);
		const second = positionals.length === 2 ? await openSession(positionals[1] as string, io, lenient) : first;
		const a = positionals.length === 3 ? positionals[1] : undefined;
		const b = positionals.length === 3 ? positionals[2] : undefined;
		if (values.json) {
			io.out(jsonLine(compare(first, a, b, second)));
			return;
		}
		io.out(`${diffLines(first, a, b, shouldColor(process.stdout), second).join("\n")}\n`);
	},
};
