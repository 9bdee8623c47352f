/** The read-only commands: ctx, path, leaves, tree, info. None of them writes to the file. */

import { parentSessionOf } from "../../core/migrate.js";
import { checkToolPairing } from "../../core/tool-pairing.js";
import { viewId, viewParentId, viewType } from "../../core/tree-view.js";
import type { SessionEntry } from "../../core/types.js";
import { renderContext } from "../../render/context-text.js";
import { modelLabel, sanitize } from "../../render/preview.js";
import { shouldColor, terminalWidth } from "../../render/terminal.js";
import { renderTree, TREE_FILTERS } from "../../render/tree-text.js";
import type { Session } from "../../session.js";
import {
	CliError,
	type CliIO,
	type CommandHandler,
	type CommandInput,
	requiredPositional,
	stringValue,
	UsageError,
} from "../args.js";
import { jsonLine } from "../json.js";
import { openSession, resolveEntryId } from "../open.js";

/** The value of an option that takes a whole number, at least `min`. */
function integerOption(values: CommandInput["values"], name: string, command: string, min: number): number | undefined {
	const text = stringValue(values, name);
	if (text === undefined) return undefined;
	if (!/^\d+$/.test(text) || Number(text) < min) {
		throw new UsageError(
			`option --${name} needs a whole number of at least ${min}, not ${JSON.stringify(text)}`,
			command,
		);
	}
	return Number(text);
}

/** How text output looks: colours on a terminal (NO_COLOR, FORCE_COLOR), the width to fit. */
function textStyle(values: CommandInput["values"], command: string): { color: boolean; width?: number } {
	const width = integerOption(values, "width", command, 20) ?? terminalWidth(process.stdout);
	return width === undefined ? { color: shouldColor(process.stdout) } : { color: shouldColor(process.stdout), width };
}

/** Runs `session-tree ctx`; its name, options and help are in the registry (src/cli/registry.ts). */
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
		const context = session.buildSessionContext(leaf);
		if (values.json) {
			// A model without an id (an assistant message appended without one) is none, not `{}`.
			io.out(jsonLine(modelLabel(context.model) === undefined ? { ...context, model: null } : context));
			return;
		}
		io.out(
			renderContext(context, { entries: session.buildContextEntries(leaf), full: values.full === true, ...style }),
		);
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

/** Runs `session-tree path`; its name, options and help are in the registry (src/cli/registry.ts). */
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

/** Runs `session-tree leaves`; its name, options and help are in the registry (src/cli/registry.ts). */
export const leavesCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const leaves = session.listBranches();
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
}

/** Options of `tree` that shape the text view, so not `--json`. */
const TREE_VIEW_OPTIONS = ["filter", "depth", "fold", "fold-limit", "leaf", "width"] as const;

/** Runs `session-tree tree`; its name, options and help are in the registry (src/cli/registry.ts). */
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
		const depth = integerOption(values, "depth", "tree", 0);
		const foldLimit = integerOption(values, "fold-limit", "tree", 4);
		const style = values.json ? undefined : textStyle(values, "tree");

		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const fromGiven = stringValue(values, "from");
		const from = fromGiven === undefined ? undefined : resolveEntryId(session, fromGiven);
		if (values.json) {
			// Ids and types are known without parsing a body: none is read.
			const rows = session.flattenTree(from).map((flat) => {
				const row: TreeRow = {
					id: viewId(flat),
					parentId: viewParentId(flat),
					type: viewType(flat),
					depth: flat.depth,
				};
				if (flat.label !== undefined) row.label = flat.label;
				return row;
			});
			io.out(jsonLine(rows));
			return;
		}
		const leafGiven = stringValue(values, "leaf");
		const leafId = leafGiven === undefined ? session.getLeafId() : resolveEntryId(session, leafGiven);
		io.out(
			renderTree(session.getTree(), {
				leafId,
				sessionName: session.getSessionName(),
				...(filter !== undefined ? { filter } : {}),
				...(from !== undefined ? { from } : {}),
				...(depth !== undefined ? { depth } : {}),
				fold: values.fold === true || foldLimit !== undefined,
				...(foldLimit !== undefined ? { foldLimit } : {}),
				...style,
				// Printed once: bodies are read one at a time and not kept (a large session).
				transient: true,
			}),
		);
	},
};

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

/** Runs `session-tree info`; its name, options and help are in the registry (src/cli/registry.ts). */
export const infoCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const header = session.getHeader();
		const info: SessionInfo = {
			id: session.getSessionId(),
			version: session.fileVersion,
			cwd: session.getCwd(),
			parentSession: parentSessionOf(header) ?? null,
			name: session.getSessionName() ?? null,
			entryCount: session.entryCount,
			leafId: session.getLeafId(),
		};
		if (values.json) {
			io.out(jsonLine(info));
			return;
		}
		const lines = [
			`file: ${session.file}`,
			`id: ${info.id}`,
			`version: ${info.version}`,
			`cwd: ${info.cwd}`,
			`parentSession: ${info.parentSession ?? "(none)"}`,
			`name: ${info.name ?? "(none)"}`,
			`entries: ${info.entryCount}`,
			`leaf: ${info.leafId ?? "(before the first entry)"}`,
		];
		io.out(lines.map((line) => `${sanitize(line)}\n`).join(""));
	},
};
