/**
 * The REPL commands that show the current session: tree, ctx, leaves, diff, info. They write nothing.
 * `tree`, `ctx` and `info` print the lines the command line's commands of those names build
 * (src/cli/commands/read.ts); here they are parsed from the REPL's words and fitted to its width.
 */

import { describeEntry, formatDescription } from "../../render/preview.js";
import { TREE_FILTERS } from "../../render/tree-text.js";
import type { Session } from "../../session.js";
import { diffLines } from "../commands/diff.js";
import { contextLines, infoLines, treeLines } from "../commands/read.js";
import { integerOption, noMoreArgs, parseOptions, type ReplHandlers, usageError } from "./command.js";

/** The last message (or summary) on the path to `id`, described in one line. */
function lastMessagePreview(session: Session, id: string, length: number): string {
	const tree = session.getTreeIndex();
	// The tree's parents, not the entries' own: a lenient open may have bridged a gap.
	for (let entry = session.getEntry(id); entry; ) {
		if (
			entry.type === "message" ||
			entry.type === "custom_message" ||
			entry.type === "branch_summary" ||
			entry.type === "compaction"
		) {
			return formatDescription(describeEntry(entry), length);
		}
		const parentId = tree.getParentId(entry.id);
		entry = parentId ? session.getEntry(parentId) : undefined;
	}
	return "(no messages)";
}

/** The handlers of tree, ctx, leaves, diff and info. */
export const VIEW_COMMANDS = {
	tree(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		noMoreArgs(command, positionals, 0);
		const session = state.requireSession();
		const filter = values.filter === undefined ? undefined : TREE_FILTERS.find((name) => name === values.filter);
		if (values.filter !== undefined && filter === undefined) {
			throw usageError(command, `unknown filter ${JSON.stringify(values.filter)} (use ${TREE_FILTERS.join(", ")})`);
		}
		const from = typeof values.from === "string" ? values.from : undefined;
		const depth = integerOption(command, values.depth, "depth", 0);
		const fold = values.fold === true;
		const width = state.env.width?.();
		state.listing(treeLines(session, { filter, from, depth, fold, width, color: state.env.style.enabled }));
	},

	ctx(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		noMoreArgs(command, positionals, 0);
		const session = state.requireSession();
		const width = state.env.width?.();
		state.listing(contextLines(session, { full: values.full === true, width, color: state.env.style.enabled }));
	},

	leaves(state, args, command) {
		noMoreArgs(command, args, 0);
		const session = state.requireSession();
		const leaf = session.getLeafId();
		// Archived branches are put away (archive): left out, as `session-tree leaves` leaves them out.
		const leaves = session.listBranches({ archived: false });
		if (leaves.length === 0) {
			state.line("(no entries)");
			return;
		}
		const { style } = state.env;
		state.listing(
			leaves.map((id) => {
				const mark = id === leaf ? style.green("*") : " ";
				return `${mark} ${state.id(id)} ${lastMessagePreview(session, id, state.env.width?.() ?? 72)}`;
			}),
		);
	},

	diff(state, args, command) {
		if (args.length < 1 || args.length > 2) throw usageError(command, "diff takes one or two entry ids");
		const session = state.requireSession();
		state.listing(diffLines(session, args[0] as string, args[1], state.env.style.enabled));
	},

	info(state, args, command) {
		noMoreArgs(command, args, 0);
		state.listing(infoLines(state.requireSession()));
	},
} satisfies ReplHandlers;
