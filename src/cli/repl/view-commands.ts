/** The REPL commands that show the current session: tree, ctx, leaves, info. They write nothing. */

import { parentSessionOf } from "../../core/migrate.js";
import { type ContextTextOptions, renderContextLines } from "../../render/context-text.js";
import { describeEntry, formatDescription, sanitize } from "../../render/preview.js";
import { renderTreeLines, TREE_FILTERS, type TreeTextOptions } from "../../render/tree-text.js";
import type { Session } from "../../session.js";
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

/** The handlers of tree, ctx, leaves and info. */
export const VIEW_COMMANDS = {
	tree(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		noMoreArgs(command, positionals, 0);
		const session = state.requireSession();
		const options: TreeTextOptions = { leafId: session.getLeafId(), color: state.env.style.enabled };
		const name = session.getSessionName();
		if (name !== undefined) options.sessionName = name;
		const filter = values.filter;
		if (typeof filter === "string") {
			const mode = TREE_FILTERS.find((name) => name === filter);
			if (mode === undefined) {
				throw usageError(command, `unknown filter ${JSON.stringify(filter)} (use ${TREE_FILTERS.join(", ")})`);
			}
			options.filter = mode;
		}
		if (typeof values.from === "string") options.from = session.resolveId(values.from);
		const depth = integerOption(command, values.depth, "depth", 0);
		if (depth !== undefined) options.depth = depth;
		if (values.fold === true) options.fold = true;
		const width = state.env.width?.();
		if (width !== undefined) options.width = width;
		state.listing(renderTreeLines(session.getTree(), options));
	},

	ctx(state, args, command) {
		const { values, positionals } = parseOptions(command, args);
		noMoreArgs(command, positionals, 0);
		const session = state.requireSession();
		const context = session.buildSessionContext();
		const options: ContextTextOptions = { entries: session.buildContextEntries(), color: state.env.style.enabled };
		if (values.full === true) options.full = true;
		const width = state.env.width?.();
		if (width !== undefined) options.width = width;
		state.listing(renderContextLines(context, options));
	},

	leaves(state, args, command) {
		noMoreArgs(command, args, 0);
		const session = state.requireSession();
		const leaf = session.getLeafId();
		const leaves = session.listBranches();
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

	info(state, args, command) {
		noMoreArgs(command, args, 0);
		const session = state.requireSession();
		const header = session.getHeader();
		const leaf = session.getLeafId();
		const lines = [
			`file: ${session.location}`,
			`id: ${session.getSessionId()}`,
			`version: ${session.fileVersion}`,
			`cwd: ${session.getCwd()}`,
			`parentSession: ${parentSessionOf(header) ?? "(none)"}`,
			`name: ${session.getSessionName() ?? "(none)"}`,
			`entries: ${session.entryCount}`,
			`leaf: ${leaf ?? "(before the first entry)"}`,
		];
		state.listing(lines.map(sanitize));
	},
} satisfies ReplHandlers;
