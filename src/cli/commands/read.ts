/**
 * The commands that show a session: ctx, path, leaves, tree, info. None of them writes to the
 * file. What `tree`, `ctx` and `info` show is built here once for both front ends
 * ({@link treeLines}, {@link contextLines}, {@link infoLines}): the REPL's commands of those
 * names (src/cli/repl/view-commands.ts) print the same lines.
 */

import { resolve } from "node:path";
import { parentSessionOf } from "../../core/migrate.js";
import { checkToolPairing } from "../../core/tool-pairing.js";
import { viewId, viewParentId, viewType } from "../../core/tree-view.js";
import type { SessionEntry } from "../../core/types.js";
import { renderContextLines } from "../../render/context-text.js";
import { modelLabel, sanitize } from "../../render/preview.js";
import { shouldColor, terminalWidth } from "../../render/terminal.js";
import {
	renderTreeBytes,
	renderTreeLines,
	renderTreePieces,
	TREE_FILTERS,
	type TreeFilter,
	type TreePreviews,
	type TreeTextOptions,
} from "../../render/tree-text.js";
import type { Session } from "../../session.js";
import {
	CliError,
	type CliIO,
	type CommandHandler,
	type CommandInput,
	requiredPositional,
	stringValue,
	UsageError,
	wholeNumberOption,
} from "../args.js";
import { jsonLine } from "../json.js";
import { openSession, resolveEntryId } from "../open.js";
import { previewThreadFor, type TreePreviewThread } from "../tree-previews.js";

/** How text output looks: colours on a terminal (NO_COLOR, FORCE_COLOR), the width to fit. */
function textStyle(values: CommandInput["values"], command: string): { color: boolean; width?: number } {
	const width = wholeNumberOption(values, "width", 20, command) ?? terminalWidth(process.stdout);
	return width === undefined ? { color: shouldColor(process.stdout) } : { color: shouldColor(process.stdout), width };
}

/** Lines as printed to stdout: each ends with a newline. */
function printed(lines: readonly string[]): string {
	return `${lines.join("\n")}\n`;
}

/** How `tree` is drawn: what the CLI's and the REPL's `tree` are given. */
export interface TreeView {
	/** The entry marked as the leaf (an id or a unique prefix of one); default: the session's leaf. */
	readonly leaf?: string | undefined;
	readonly filter?: TreeFilter | undefined;
	/** The entry whose subtree alone is shown (an id or a unique prefix of one). */
	readonly from?: string | undefined;
	readonly depth?: number | undefined;
	readonly fold?: boolean;
	/** Longest straight run left unfolded; given, it folds. */
	readonly foldLimit?: number | undefined;
	/** Columns to fit the lines into; none: no cut. */
	readonly width?: number | undefined;
	/** Colour by role (ANSI); default: none. */
	readonly color?: boolean;
	/** Printed once: bodies are read one at a time and not kept (a large session). */
	readonly transient?: boolean;
	/** Previews made elsewhere (the second thread of `session-tree tree`, tree-previews.ts). */
	readonly previews?: TreePreviews | undefined;
}

/**
 * The lines of `tree`, for both front ends: the session's tree as the renderer draws it, its name on top.
 * @throws SessionTreeError ENTRY_NOT_FOUND or AMBIGUOUS_ID for an id of `view` that names no one entry
 */
export function treeLines(session: Session, view: TreeView): string[] {
	return renderTreeLines(session.getTree(), treeTextOptions(session, view));
}

/**
 * {@link treeLines} as the text `session-tree tree` prints, in pieces of whole lines (each
 * ending with a newline) written one after the other.
 * @throws SessionTreeError ENTRY_NOT_FOUND or AMBIGUOUS_ID for an id of `view` that names no one entry
 */
export function treeText(session: Session, view: TreeView): string[] {
	return renderTreePieces(session.getTree(), treeTextOptions(session, view));
}

/** What the renderer is given for `view` of `session`. */
function treeTextOptions(session: Session, view: TreeView): TreeTextOptions {
	const from = view.from === undefined ? undefined : resolveEntryId(session, view.from);
	const leafId = view.leaf === undefined ? session.getLeafId() : resolveEntryId(session, view.leaf);
	const name = session.getSessionName();
	return {
		leafId,
		...(name !== undefined ? { sessionName: name } : {}),
		...(view.filter !== undefined ? { filter: view.filter } : {}),
		...(from !== undefined ? { from } : {}),
		...(view.depth !== undefined ? { depth: view.depth } : {}),
		fold: view.fold === true || view.foldLimit !== undefined,
		...(view.foldLimit !== undefined ? { foldLimit: view.foldLimit } : {}),
		...(view.width !== undefined ? { width: view.width } : {}),
		color: view.color === true,
		...(view.transient === true ? { transient: true } : {}),
		...(view.previews !== undefined ? { previews: view.previews } : {}),
	};
}

/** How `ctx` is drawn: what the CLI's and the REPL's `ctx` are given. */
export interface ContextView {
	/** The entry whose context is shown (a full id); default: the leaf's. */
	readonly leaf?: string | undefined;
	/** Every message whole, instead of one line each. */
	readonly full?: boolean;
	/** Columns to fit the numbered lines into; none: no cut. */
	readonly width?: number | undefined;
	/** Colour by role (ANSI); default: none. */
	readonly color?: boolean;
}

/** The lines of `ctx`, for both front ends: the messages the model receives at the leaf, then model and thinking level. */
export function contextLines(session: Session, view: ContextView): string[] {
	const context = session.buildSessionContext(view.leaf);
	return renderContextLines(context, {
		entries: session.buildContextEntries(view.leaf),
		full: view.full === true,
		color: view.color === true,
		...(view.width !== undefined ? { width: view.width } : {}),
	});
}

/** Runs `session-tree ctx`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const ctxCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const style = values.json ? undefined : textStyle(values, "ctx");
		const given = stringValue(values, "leaf");
		// The leaf's context alone needs only the end of a large file (see docs/performance.md).
		const load = given === undefined ? "context" : "all";
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true, load);
		const leaf = given === undefined ? undefined : resolveEntryId(session, given);
		if (values.check) {
			checkContext(session, leaf, values.json === true, io);
			return;
		}
		if (values.json) {
			const context = session.buildSessionContext(leaf);
			// A model without an id (an assistant message appended without one) is none, not `{}`.
			io.out(jsonLine(modelLabel(context.model) === undefined ? { ...context, model: null } : context));
			return;
		}
		io.out(printed(contextLines(session, { leaf, full: values.full === true, ...style })));
	},
};

/**
 * `ctx --check`: what a provider would refuse in the context (see `checkToolPairing`), one line
 * each, then the calls still pending as notes; `--json` prints the report. Exit 1 when there are problems.
 */
function checkContext(session: Session, leaf: string | undefined, json: boolean, io: CliIO): void {
	const entries = session.buildContextEntries(leaf);
	const report = checkToolPairing(entries);
	const where = session.location;
	if (json) io.out(jsonLine(report));
	else {
		const lines = [
			...report.problems.map((problem) => `${where}: ${problem.code}: ${problem.message}`),
			...report.pending.map((item) => `${where}: note: ${item.code}: ${item.message}`),
		];
		if (report.problems.length === 0) lines.unshift(`${where}: ok (${entries.length} messages)`);
		io.out(lines.map((line) => `${sanitize(line)}\n`).join(""));
	}
	if (report.problems.length > 0) {
		throw new CliError(`${where}: ${report.problems.length} problem(s) in the context a provider would refuse`);
	}
}

function pathLine(entry: SessionEntry): string {
	const role = entry.type === "message" ? entry.message?.role : undefined;
	return sanitize(typeof role === "string" ? `${entry.id} ${entry.type} ${role}` : `${entry.id} ${entry.type}`);
}

/** Runs `session-tree path`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const pathCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const given = stringValue(values, "leaf");
		const leaf = given === undefined ? undefined : resolveEntryId(session, given);
		const path = session.getBranch(leaf);
		if (values.json) {
			io.out(jsonLine(path.map((entry) => entry.id)));
			return;
		}
		io.out(path.map((entry) => `${pathLine(entry)}\n`).join(""));
	},
};

/** Runs `session-tree leaves`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const leavesCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		// Archived branches are put away (session-tree archive): listed only with --all.
		const leaves = session.listBranches(values.all === true ? {} : { archived: false });
		io.out(values.json ? jsonLine(leaves) : leaves.map((id) => `${sanitize(id)}\n`).join(""));
	},
};

/** A row of `tree --json`. */
export interface TreeRow {
	id: string;
	parentId: string | null;
	type: string;
	depth: number;
	label?: string;
	/** True for an entry of an archived branch (`session-tree archive`); absent otherwise. */
	archived?: true;
}

/** Options of `tree` that shape the text view, so not `--json`. */
const TREE_VIEW_OPTIONS = ["filter", "depth", "fold", "fold-limit", "leaf", "width"] as const;

/** Runs `session-tree tree`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const treeCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const filterName = stringValue(values, "filter");
		const filter = TREE_FILTERS.find((mode) => mode === filterName);
		if (filterName !== undefined && filter === undefined) {
			throw new UsageError(
				`unknown filter ${JSON.stringify(filterName)} (use one of ${TREE_FILTERS.join(", ")})`,
				"tree",
			);
		}
		if (values.json) {
			const extra = TREE_VIEW_OPTIONS.find((name) => values[name] !== undefined);
			if (extra) throw new UsageError(`--${extra} does not apply to --json`, "tree");
		}
		const depth = wholeNumberOption(values, "depth", 0, "tree");
		const foldLimit = wholeNumberOption(values, "fold-limit", 4, "tree");
		const style = values.json ? undefined : textStyle(values, "tree");

		const location = requiredPositional(positionals, 0);
		const from = stringValue(values, "from");
		// The whole tree as plain text: most of its previews made in a second thread, which
		// starts reading while the session opens (tree-previews.ts).
		const whole = from === undefined && depth === undefined && values.fold !== true && foldLimit === undefined;
		const plain = style !== undefined && style.width === undefined && !style.color;
		const previews = whole && plain && values.lenient !== true ? previewThreadFor(location) : undefined;
		try {
			await printTree(location, { values, io, from, filter, depth, foldLimit, style, previews });
		} finally {
			previews?.stop();
		}
	},
};

/** What {@link treeCommand} has made of its arguments. */
interface TreeRun {
	values: CommandInput["values"];
	io: CommandInput["io"];
	from: string | undefined;
	filter: TreeFilter | undefined;
	depth: number | undefined;
	foldLimit: number | undefined;
	style: ReturnType<typeof textStyle> | undefined;
	previews: TreePreviewThread | undefined;
}

/** Opens the session at `location` and prints its tree as `run` says. */
async function printTree(location: string, run: TreeRun): Promise<void> {
	const { values, io, from, filter, depth, foldLimit, style } = run;
	const session = await openSession(location, io, values.lenient === true);
	// Only for the file the worker reads (not another agent's transcript found at the path).
	const previews =
		run.previews && session.file !== undefined && resolve(session.file) === resolve(location)
			? run.previews
			: undefined;
	if (values.json) {
		const start = from === undefined ? undefined : resolveEntryId(session, from);
		// Ids and types are known without parsing a body: none is read.
		const rows = session.flattenTree(start).map((flat) => {
			const row: TreeRow = {
				id: viewId(flat),
				parentId: viewParentId(flat),
				type: viewType(flat),
				depth: flat.depth,
			};
			if (flat.label !== undefined) row.label = flat.label;
			if (flat.archived === true) row.archived = true;
			return row;
		});
		io.out(jsonLine(rows));
		return;
	}
	const view: TreeView = {
		leaf: stringValue(values, "leaf"),
		filter,
		from,
		depth,
		fold: values.fold === true,
		foldLimit,
		...style,
		transient: true,
		previews,
	};
	// Written a piece at a time once all are made: an error (a body that cannot be read)
	// still prints nothing. Held as bytes where the output takes them (see renderTreeBytes).
	if (io.outBytes) {
		for (const piece of renderTreeBytes(session.getTree(), treeTextOptions(session, view))) io.outBytes(piece);
	} else {
		for (const piece of treeText(session, view)) io.out(piece);
	}
}

/** The object `info --json` prints. */
export interface SessionInfo {
	id: string;
	version: number;
	cwd: string;
	parentSession: string | null;
	name: string | null;
	entryCount: number;
	leafId: string | null;
}

/** What `info` shows: the session's header facts, name, entry count and leaf (the object `info --json` prints). */
export function sessionInfo(session: Session): SessionInfo {
	return {
		id: session.getSessionId(),
		version: session.fileVersion,
		cwd: session.getCwd(),
		parentSession: parentSessionOf(session.getHeader()) ?? null,
		name: session.getSessionName() ?? null,
		entryCount: session.entryCount,
		leafId: session.getLeafId(),
	};
}

/** The lines of `info`, for both front ends: where the session is, then {@link sessionInfo}, sanitized. */
export function infoLines(session: Session, info: SessionInfo = sessionInfo(session)): string[] {
	const lines = [
		`file: ${session.location}`,
		`id: ${info.id}`,
		`version: ${info.version}`,
		`cwd: ${info.cwd}`,
		`parentSession: ${info.parentSession ?? "(none)"}`,
		`name: ${info.name ?? "(none)"}`,
		`entries: ${info.entryCount}`,
		`leaf: ${info.leafId ?? "(before the first entry)"}`,
	];
	return lines.map(sanitize);
}

/** Runs `session-tree info`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const infoCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const info = sessionInfo(session);
		io.out(values.json ? jsonLine(info) : printed(infoLines(session, info)));
	},
};
