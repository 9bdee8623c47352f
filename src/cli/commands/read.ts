/** The read-only commands: ctx, path, leaves, tree, info. None of them writes to the file. */

import type { MessageEntry, SessionEntry } from "../../core/types.js";
import { shouldColor, terminalWidth } from "../../render/color.js";
import { renderContext } from "../../render/context-text.js";
import { sanitize } from "../../render/preview.js";
import { renderTree, TREE_FILTERS, type TreeFilter } from "../../render/tree-text.js";
import {
	type Command,
	type CommandInput,
	JSON_OPTION,
	LENIENT_DOC,
	LENIENT_OPTION,
	type OptionDoc,
	stringValue,
	UsageError,
} from "../args.js";
import { openSession, resolveEntryId } from "../open.js";

const LEAF_DOC: OptionDoc = {
	flags: "--leaf ID",
	description: "start from entry ID (or a unique prefix of it) instead of the leaf",
};

const WIDTH_DOC: OptionDoc = {
	flags: "--width N",
	description: "fit lines into N columns (default: the terminal's width; no cut when piped)",
};

function jsonLine(value: unknown): string {
	return `${JSON.stringify(value)}\n`;
}

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

export const ctxCommand: Command = {
	name: "ctx",
	summary: "print what the model sees at the leaf (the context)",
	synopsis: "ctx FILE [--leaf ID] [--full] [--width N] [--json] [--lenient]",
	description:
		"Builds the model context of the path from the root to the leaf (or to --leaf ID) exactly as pi\n" +
		"does: compactions replace what they summarise, branch summaries are included, and the\n" +
		"model and thinking level are the last ones set on the path.\n" +
		"\n" +
		"Prints the messages numbered, each with the entry it comes from (`(kept)` for messages a\n" +
		"compaction carries itself), its role and a one-line preview; compaction and branch\n" +
		"summaries are marked as such, custom messages show their customType, tool calls show as\n" +
		"`→ name(arguments)`. The model and the thinking level come last. --full prints every\n" +
		"message whole, indented below its line. Colours on a terminal (not with NO_COLOR or when\n" +
		"piped; FORCE_COLOR=1 forces them).",
	examples: [
		"session-tree ctx session.jsonl",
		"session-tree ctx session.jsonl --full | less -R",
		"session-tree ctx session.jsonl --leaf 1a2b3c4d --json",
	],
	options: {
		leaf: { type: "string" },
		full: { type: "boolean" },
		width: { type: "string" },
		...JSON_OPTION,
		...LENIENT_OPTION,
	},
	optionDocs: [
		LEAF_DOC,
		{ flags: "--full", description: "print whole messages (indented) instead of one-line previews" },
		WIDTH_DOC,
		{ flags: "--json", description: "print {messages, thinkingLevel, model} as one line of JSON" },
		LENIENT_DOC,
	],
	positionals: ["FILE"],
	run({ values, positionals, io }) {
		const style = values.json ? undefined : textStyle(values, "ctx");
		const session = openSession(positionals[0] as string, io, values.lenient === true);
		const given = stringValue(values, "leaf");
		const leaf = given === undefined ? undefined : resolveEntryId(session, given);
		const context = session.buildSessionContext(leaf);
		if (values.json) {
			io.out(jsonLine(context));
			return;
		}
		io.out(
			renderContext(context, { entries: session.buildContextEntries(leaf), full: values.full === true, ...style }),
		);
	},
};

function pathLine(entry: SessionEntry): string {
	const role = entry.type === "message" ? (entry as MessageEntry).message?.role : undefined;
	return typeof role === "string" ? `${entry.id} ${entry.type} ${sanitize(role)}` : `${entry.id} ${entry.type}`;
}

export const pathCommand: Command = {
	name: "path",
	summary: "print the ids from the root to the leaf",
	synopsis: "path FILE [--leaf ID] [--json] [--lenient]",
	description:
		"Prints the active path: the entries from the root down to the leaf (or to --leaf ID).\n" +
		"Without --json, one entry per line: its id, its type and, for messages, the role.",
	examples: ["session-tree path session.jsonl --json"],
	options: { leaf: { type: "string" }, ...JSON_OPTION, ...LENIENT_OPTION },
	optionDocs: [LEAF_DOC, { flags: "--json", description: "print a JSON array of ids, root first" }, LENIENT_DOC],
	positionals: ["FILE"],
	run({ values, positionals, io }) {
		const session = openSession(positionals[0] as string, io, values.lenient === true);
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

export const leavesCommand: Command = {
	name: "leaves",
	summary: "print the ids of all leaves (the tips of all branches)",
	synopsis: "leaves FILE [--json] [--lenient]",
	description: "Prints the ids of all entries that have no children, sorted: one per branch of the tree.",
	examples: ["session-tree leaves session.jsonl --json"],
	options: { ...JSON_OPTION, ...LENIENT_OPTION },
	optionDocs: [{ flags: "--json", description: "print a JSON array of ids" }, LENIENT_DOC],
	positionals: ["FILE"],
	run({ values, positionals, io }) {
		const session = openSession(positionals[0] as string, io, values.lenient === true);
		const leaves = session.listBranches();
		io.out(values.json ? jsonLine(leaves) : leaves.map((id) => `${id}\n`).join(""));
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

export const treeCommand: Command = {
	name: "tree",
	summary: "print the entry tree, the active path marked",
	synopsis:
		"tree FILE [--filter MODE] [--from ID] [--leaf ID] [--depth N] [--fold] [--fold-limit N] [--width N] [--json] [--lenient]",
	description:
		"Prints the entries of the session as a tree: id, role or type, a one-line preview, the\n" +
		"label in brackets, the session name on top and `← leaf` after the leaf. Indentation grows\n" +
		"only where the tree forks, so a long chain stays short lines; below a fork, `•` marks the\n" +
		"entries of the active path (root → leaf). On a terminal, lines are cut to its width and\n" +
		"coloured by role (not with NO_COLOR or when piped; FORCE_COLOR=1 forces colours).\n" +
		"\n" +
		"Without --filter every entry is shown. --filter applies the rules of pi's /tree view:\n" +
		"  default       everything but settings entries (label, custom, model_change,\n" +
		"                thinking_level_change, session_info)\n" +
		"  no-tools      default without tool results\n" +
		"  user-only     user messages only\n" +
		"  labeled-only  labeled entries only\n" +
		"  all           everything\n" +
		"In every mode, as in pi, assistant messages holding only tool calls are left out (unless\n" +
		"aborted, failed or the leaf). Children of a hidden entry move up to the nearest shown one.",
	examples: [
		"session-tree tree session.jsonl",
		"session-tree tree session.jsonl --filter user-only --fold",
		"session-tree tree session.jsonl --from 1a2b --depth 3",
		"session-tree tree session.jsonl --json",
	],
	options: {
		filter: { type: "string" },
		from: { type: "string" },
		leaf: { type: "string" },
		depth: { type: "string" },
		fold: { type: "boolean" },
		"fold-limit": { type: "string" },
		width: { type: "string" },
		...JSON_OPTION,
		...LENIENT_OPTION,
	},
	optionDocs: [
		{ flags: "--filter MODE", description: `show what pi's /tree filter shows: ${TREE_FILTERS.join(", ")}` },
		{ flags: "--from ID", description: "show only the subtree of entry ID (with --json too)" },
		{ flags: "--leaf ID", description: "mark entry ID as the leaf (and the path to it as active)" },
		{ flags: "--depth N", description: "show N levels below the start; deeper entries become `… N more`" },
		{ flags: "--fold", description: "fold straight runs of more than 6 entries to their first and last two" },
		{ flags: "--fold-limit N", description: "fold runs longer than N entries (implies --fold)" },
		WIDTH_DOC,
		{
			flags: "--json",
			description: "print a flat JSON array of {id, parentId, type, depth, label?} rows (all entries)",
		},
		LENIENT_DOC,
	],
	positionals: ["FILE"],
	run({ values, positionals, io }) {
		const filterName = stringValue(values, "filter");
		if (filterName !== undefined && !TREE_FILTERS.includes(filterName as TreeFilter)) {
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

		const session = openSession(positionals[0] as string, io, values.lenient === true);
		const fromGiven = stringValue(values, "from");
		const from = fromGiven === undefined ? undefined : resolveEntryId(session, fromGiven);
		if (values.json) {
			const rows = session.flattenTree(from).map(({ entry, depth, label }) => {
				const row: TreeRow = { id: entry.id, parentId: entry.parentId, type: entry.type, depth };
				if (label !== undefined) row.label = label;
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
				...(filterName !== undefined ? { filter: filterName as TreeFilter } : {}),
				...(from !== undefined ? { from } : {}),
				...(depth !== undefined ? { depth } : {}),
				fold: values.fold === true || foldLimit !== undefined,
				...(foldLimit !== undefined ? { foldLimit } : {}),
				...style,
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

export const infoCommand: Command = {
	name: "info",
	summary: "print the header facts, the name, the entry count and the leaf",
	synopsis: "info FILE [--json] [--lenient]",
	description:
		"Prints the session id, the format version of the file as it is on disk, the working\n" +
		"directory, the parent session (for forks), the name, the number of entries and the leaf.",
	examples: ["session-tree info session.jsonl --json"],
	options: { ...JSON_OPTION, ...LENIENT_OPTION },
	optionDocs: [
		{ flags: "--json", description: "print {id, version, cwd, parentSession, name, entryCount, leafId}" },
		LENIENT_DOC,
	],
	positionals: ["FILE"],
	run({ values, positionals, io }) {
		const session = openSession(positionals[0] as string, io, values.lenient === true);
		const header = session.getHeader();
		const info: SessionInfo = {
			id: session.getSessionId(),
			version: session.fileVersion,
			cwd: session.getCwd(),
			parentSession: typeof header.parentSession === "string" ? header.parentSession : null,
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
