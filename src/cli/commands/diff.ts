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

/** Runs `session-tree diff`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const diffCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		if (positionals.length < 2 || positionals.length > 3)
			throw new UsageError("diff takes SESSION A B (two entries) or SESSION_A SESSION_B (two sessions)", "diff");
		const lenient = values.lenient === true;
		const first = await openSession(positionals[0] as string, io, lenient);
		const second = positionals.length === 2 ? await openSession(positionals[1] as string, io, lenient) : first;
		const a = endOf(first, positionals.length === 3 ? positionals[1] : undefined);
		const b = endOf(second, positionals.length === 3 ? positionals[2] : undefined);
		const diff = diffPaths(a === null ? [] : first.getBranch(a), b === null ? [] : second.getBranch(b));
		if (values.json) {
			io.out(jsonLine({ a, b, ...diff }));
			return;
		}
		const ancestor = diff.ancestorId === null ? undefined : first.getEntry(diff.ancestorId);
		const lines = renderDiffLines(diff, {
			a: a ?? "(empty)",
			b: b ?? "(empty)",
			color: shouldColor(process.stdout),
			...(ancestor ? { ancestor: { id: ancestor.id, ...describeEntry(ancestor) } } : {}),
		});
		io.out(`${lines.join("\n")}\n`);
	},
};
