/** The small editing commands: label, name, nav. Each appends one or two lines to the file. */

import { sanitize, sanitizeLines } from "../../render/preview.js";
import { type Command, JSON_OPTION, stringValue } from "../args.js";
import { openSession, resolveEntryId } from "../open.js";

export const labelCommand: Command = {
	name: "label",
	summary: "set or clear the label of an entry",
	synopsis: "label FILE ID [TEXT]",
	description:
		"Sets the label of entry ID (or the entry whose id starts with ID) to TEXT, or clears it\n" +
		"when TEXT is left out or empty, as pi's /tree does: one `label` entry is appended (it\n" +
		"becomes the leaf, as in pi). Labels show in brackets in `tree`, and `tree --filter\n" +
		"labeled-only` lists the labeled entries. Prints nothing.",
	examples: ['session-tree label session.jsonl 1a2b "before the refactor"', "session-tree label session.jsonl 1a2b"],
	options: {},
	optionDocs: [],
	positionals: ["FILE", "ID", "TEXT?"],
	run({ positionals, io }) {
		const session = openSession(positionals[0] as string, io);
		try {
			const id = resolveEntryId(session, positionals[1] as string);
			const text = positionals[2];
			session.appendLabelChange(id, text === undefined || text === "" ? undefined : text);
		} finally {
			session.close();
		}
	},
};

export const nameCommand: Command = {
	name: "name",
	summary: "set the session's name",
	synopsis: "name FILE TEXT",
	description:
		"Names the session, as pi's /name does: one `session_info` entry is appended (it becomes\n" +
		'the leaf, as in pi). The name is trimmed; an empty one ("") clears it. The name shows on\n' +
		"top of `tree` and in `info`. Prints nothing.",
	examples: ['session-tree name session.jsonl "fix the CI"', 'session-tree name session.jsonl ""'],
	options: {},
	optionDocs: [],
	positionals: ["FILE", "TEXT"],
	run({ positionals, io }) {
		const session = openSession(positionals[0] as string, io);
		try {
			session.appendSessionInfo(positionals[1] as string);
		} finally {
			session.close();
		}
	},
};

export const navCommand: Command = {
	name: "nav",
	summary: "go to an entry as pi's /tree does; print the new leaf and the text to edit",
	synopsis: "nav FILE ID [--summary TEXT] [--json]",
	description:
		"Navigates to entry ID (or the entry whose id starts with ID) with the semantics of pi's\n" +
		"/tree: for a user message or a custom message, the leaf moves to its parent (before the\n" +
		"first entry, for a root) and its text is printed to be edited and sent again; any other\n" +
		"entry becomes the leaf. Navigating to the leaf itself changes nothing. With --summary, a\n" +
		"branch summary holding TEXT is appended at the new position and becomes the leaf.\n" +
		"\n" +
		"Prints `leaf: ID` (or `leaf: (before the first entry)`), `branch summary: ID` when one was\n" +
		"written, then for a user or custom message `text to edit:` and the text on the lines after.",
	examples: [
		"session-tree nav session.jsonl 1a2b",
		'session-tree nav session.jsonl 1a2b --summary "Tried a polyfill; dropped it."',
		"session-tree nav session.jsonl 1a2b --json",
	],
	options: { summary: { type: "string" }, ...JSON_OPTION },
	optionDocs: [
		{ flags: "--summary TEXT", description: "leave a branch summary at the new position explaining what was left" },
		{ flags: "--json", description: "print {leafId, editorText?, summaryEntryId?} (pi's navigate result)" },
	],
	positionals: ["FILE", "ID"],
	run({ values, positionals, io }) {
		const session = openSession(positionals[0] as string, io);
		try {
			const id = resolveEntryId(session, positionals[1] as string);
			const summary = stringValue(values, "summary");
			const result = session.navigate(id, summary !== undefined && summary !== "" ? { summary } : {});
			if (values.json) {
				io.out(`${JSON.stringify(result)}\n`);
				return;
			}
			const lines = [`leaf: ${result.leafId ?? "(before the first entry)"}`];
			if (result.summaryEntryId !== undefined) lines.push(`branch summary: ${result.summaryEntryId}`);
			if (result.editorText !== undefined) lines.push("text to edit:", ...sanitizeLines(result.editorText));
			io.out(lines.map((line) => `${sanitize(line)}\n`).join(""));
		} finally {
			session.close();
		}
	},
};
