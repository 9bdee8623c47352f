/** The commands that write: new, append, branch, migrate, fork, clone. */

import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { AgentMessage } from "../../core/types.js";
import { Session } from "../../session.js";
import { CliError, type Command, LENIENT_DOC, LENIENT_OPTION, stringValue } from "../args.js";
import { openSession, resolveEntryId } from "../open.js";

export const newCommand: Command = {
	name: "new",
	summary: "create a session file and print its path",
	synopsis: "new [--dir DIR] [--cwd CWD]",
	description:
		"Creates a session file holding just the header and prints its absolute path. By default\n" +
		"the file goes where pi keeps the sessions of CWD: <agent dir>/sessions/--<cwd>--/, where\n" +
		"the agent dir is $PI_CODING_AGENT_DIR or ~/.pi/agent.",
	examples: ["session-tree new --dir ./sessions", 'FILE=$(session-tree new --cwd "$PWD")'],
	options: { dir: { type: "string" }, cwd: { type: "string" } },
	optionDocs: [
		{ flags: "--dir DIR", description: "create the file in DIR instead of pi's directory layout" },
		{ flags: "--cwd CWD", description: "the working directory stored in the header (default: the current one)" },
	],
	positionals: [],
	run({ values, io }) {
		const dir = stringValue(values, "dir");
		const cwd = stringValue(values, "cwd");
		const session = Session.create({
			cwd: resolve(cwd ?? process.cwd()),
			...(dir !== undefined ? { dir: resolve(dir) } : {}),
		});
		io.out(`${session.file}\n`);
		session.close();
	},
};

/** Why a stdin line is not an agent message, or undefined when it is one. */
function messageProblem(value: unknown): string | undefined {
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		return `expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`;
	}
	if (typeof (value as { role?: unknown }).role !== "string") return 'the message has no string "role"';
	return undefined;
}

export const appendCommand: Command = {
	name: "append",
	summary: "append messages read from stdin (one JSON object per line)",
	synopsis: "append FILE",
	description:
		"Reads agent messages from stdin, one JSON object per line (blank lines are skipped), and\n" +
		"appends each as a child of the current leaf, printing each new entry id on its own line.\n" +
		"A line that is not a JSON object with a string role stops the command (exit 1): the\n" +
		"messages before it stay appended, nothing after it is appended.",
	examples: [`echo '{"role":"user","content":"hello","timestamp":1748768400000}' | session-tree append session.jsonl`],
	options: {},
	optionDocs: [],
	positionals: ["FILE"],
	async run({ positionals, io }) {
		const session = openSession(positionals[0] as string, io);
		const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
		let lineNumber = 0;
		let appended = 0;
		try {
			for await (const line of lines) {
				lineNumber++;
				if (line.trim() === "") continue;
				let value: unknown;
				let problem: string | undefined;
				try {
					value = JSON.parse(line);
					problem = messageProblem(value);
				} catch (error) {
					problem = `not valid JSON (${(error as Error).message})`;
				}
				if (problem !== undefined) {
					const done = appended === 1 ? "1 message was" : `${appended} messages were`;
					throw new CliError(`stdin line ${lineNumber}: ${problem}; ${done} appended before it, none after`);
				}
				io.out(`${session.appendMessage(value as AgentMessage)}\n`);
				appended++;
			}
		} finally {
			lines.close();
			session.close();
		}
	},
};

export const branchCommand: Command = {
	name: "branch",
	summary: "move the leaf to an entry; the next append starts a branch there",
	synopsis: "branch FILE ID",
	description:
		"Moves the session's leaf to entry ID (or the entry whose id starts with ID). Nothing is\n" +
		"rewritten: one small `leaf` record is appended so that the move survives a restart.\n" +
		"The next append becomes a child of ID.",
	examples: ["session-tree branch session.jsonl 1a2b3c4d", "session-tree branch session.jsonl 1a2b"],
	options: {},
	optionDocs: [],
	positionals: ["FILE", "ID"],
	run({ positionals, io }) {
		const session = openSession(positionals[0] as string, io);
		try {
			session.branch(resolveEntryId(session, positionals[1] as string));
		} finally {
			session.close();
		}
	},
};

export const migrateCommand: Command = {
	name: "migrate",
	summary: "rewrite a v1/v2 file in format v3, keeping a backup",
	synopsis: "migrate FILE",
	description:
		"Rewrites an older (v1 or v2) session file in the current format, atomically, and prints\n" +
		'the path of the backup of the original. Prints "already current" for a v3 file.',
	examples: ["session-tree migrate old-session.jsonl"],
	options: {},
	optionDocs: [],
	positionals: ["FILE"],
	run({ positionals, io }) {
		const session = openSession(positionals[0] as string, io);
		try {
			const backup = session.migrate();
			io.out(backup === undefined ? "already current\n" : `${backup}\n`);
		} finally {
			session.close();
		}
	},
};

export const forkCommand: Command = {
	name: "fork",
	summary: "copy the path from the root to an entry into a new file",
	synopsis: "fork FILE [ID] [--dir DIR] [--lenient]",
	description:
		"Copies the path from the root to entry ID (default: the leaf; a unique prefix is enough)\n" +
		"into a new session file whose header names FILE as parentSession, and prints the new\n" +
		"file's path. Labels on the path come along. FILE is not changed.",
	examples: ["session-tree fork session.jsonl 1a2b3c4d", "session-tree fork session.jsonl 1a2b"],
	options: { dir: { type: "string" }, ...LENIENT_OPTION },
	optionDocs: [{ flags: "--dir DIR", description: "create the new file in DIR (default: next to FILE)" }, LENIENT_DOC],
	positionals: ["FILE", "ID?"],
	run({ values, positionals, io }) {
		const session = openSession(positionals[0] as string, io, values.lenient === true);
		const given = positionals[1];
		const id = given === undefined ? undefined : resolveEntryId(session, given);
		const dir = stringValue(values, "dir");
		const forked = session.fork(id, dir !== undefined ? { dir: resolve(dir) } : {});
		io.out(`${forked.file}\n`);
		forked.close();
		session.close();
	},
};

export const cloneCommand: Command = {
	name: "clone",
	summary: "copy the active path into a new file (fork at the leaf)",
	synopsis: "clone FILE [--dir DIR] [--lenient]",
	description:
		"Copies the path from the root to the leaf into a new session file whose header names FILE\n" +
		"as parentSession, and prints the new file's path. Same as `fork FILE` without an ID.",
	examples: ["session-tree clone session.jsonl"],
	options: { dir: { type: "string" }, ...LENIENT_OPTION },
	optionDocs: [{ flags: "--dir DIR", description: "create the new file in DIR (default: next to FILE)" }, LENIENT_DOC],
	positionals: ["FILE"],
	run({ values, positionals, io }) {
		const session = openSession(positionals[0] as string, io, values.lenient === true);
		const dir = stringValue(values, "dir");
		const cloned = session.clone(dir !== undefined ? { dir: resolve(dir) } : {});
		io.out(`${cloned.file}\n`);
		cloned.close();
		session.close();
	},
};
