/** The read-only commands: ctx, path, leaves, tree, info. None of them writes to the file. */

import type { MessageEntry, SessionEntry } from "../../core/types.js";
import { renderContext } from "../../render/context-text.js";
import { sanitize } from "../../render/preview.js";
import { renderTree } from "../../render/tree-text.js";
import { type Command, JSON_OPTION, LENIENT_DOC, LENIENT_OPTION, type OptionDoc, stringValue } from "../args.js";
import { openSession, resolveEntryId } from "../open.js";

const LEAF_DOC: OptionDoc = {
	flags: "--leaf ID",
	description: "start from entry ID (or a unique prefix of it) instead of the leaf",
};

function jsonLine(value: unknown): string {
	return `${JSON.stringify(value)}\n`;
}

export const ctxCommand: Command = {
	name: "ctx",
	summary: "print what the model sees at the leaf (the context)",
	synopsis: "ctx FILE [--leaf ID] [--json] [--lenient]",
	description:
		"Builds the model context of the path from the root to the leaf (or to --leaf ID) exactly as pi\n" +
		"does: compactions replace what they summarise, branch summaries are included, and the\n" +
		"model and thinking level are the last ones set on the path.",
	examples: ["session-tree ctx session.jsonl", "session-tree ctx session.jsonl --leaf 1a2b3c4d --json"],
	options: { leaf: { type: "string" }, ...JSON_OPTION, ...LENIENT_OPTION },
	optionDocs: [
		LEAF_DOC,
		{ flags: "--json", description: "print {messages, thinkingLevel, model} as one line of JSON" },
		LENIENT_DOC,
	],
	positionals: ["FILE"],
	run({ values, positionals, io }) {
		const session = openSession(positionals[0] as string, io, values.lenient === true);
		const given = stringValue(values, "leaf");
		const leaf = given === undefined ? undefined : resolveEntryId(session, given);
		const context = session.buildSessionContext(leaf);
		if (values.json) {
			io.out(jsonLine(context));
			return;
		}
		io.out(renderContext(context, { entries: session.buildContextEntries(leaf) }));
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

export const treeCommand: Command = {
	name: "tree",
	summary: "print the whole entry tree",
	synopsis: "tree FILE [--json] [--lenient]",
	description:
		"Prints every entry of the session as a tree: id, role or type, a preview, the label in\n" +
		"brackets and the leaf marked. Indentation grows only where the tree forks.",
	examples: ["session-tree tree session.jsonl", "session-tree tree session.jsonl --json"],
	options: { ...JSON_OPTION, ...LENIENT_OPTION },
	optionDocs: [
		{ flags: "--json", description: "print a flat JSON array of {id, parentId, type, depth, label?} rows" },
		LENIENT_DOC,
	],
	positionals: ["FILE"],
	run({ values, positionals, io }) {
		const session = openSession(positionals[0] as string, io, values.lenient === true);
		if (values.json) {
			const rows = session.flattenTree().map(({ entry, depth, label }) => {
				const row: TreeRow = { id: entry.id, parentId: entry.parentId, type: entry.type, depth };
				if (label !== undefined) row.label = label;
				return row;
			});
			io.out(jsonLine(rows));
			return;
		}
		io.out(renderTree(session.getTree(), { leafId: session.getLeafId(), sessionName: session.getSessionName() }));
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
