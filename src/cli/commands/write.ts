/** The commands that write: new, append, branch, migrate, fork, clone. */

import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { RawRecord } from "../../core/migrate.js";
import type { AgentMessage } from "../../core/types.js";
import { isRawRecord } from "../../core/validate.js";
import { sanitize } from "../../render/preview.js";
import { Session } from "../../session.js";
import { CliError, type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { dirOption } from "../dir-option.js";
import { openSessionToWrite, resolveEntryId } from "../open.js";

/** Runs `session-tree new`; its name, options and help are in the registry (src/cli/registry.ts). */
/** `--dir`: a directory (made absolute) or a store of many sessions (`sqlite:PATH`, `postgres://…`), as given. */
function placeOf(dir: string): string {
	return dirOption(dir);
}

export const newCommand: CommandHandler = {
	async run({ values, io }) {
		const dir = stringValue(values, "dir");
		const cwd = stringValue(values, "cwd");
		const session = await Session.create({
			cwd: resolve(cwd ?? process.cwd()),
			...(dir !== undefined ? { dir: placeOf(dir) } : {}),
		});
		io.out(`${sanitize(session.location)}\n`);
		await session.close();
	},
};

/**
 * Type guard: a message `append` takes, an object with a string `role` (what the loader asks
 * of a message entry's message). Its other fields are appended as they are.
 */
function isAgentMessage(value: RawRecord): value is AgentMessage {
	return typeof value.role === "string";
}

/** A stdin line's message, or why the line holds none. */
function parseMessageLine(line: string): { message: AgentMessage; problem?: undefined } | { problem: string } {
	let value: unknown;
	try {
		value = JSON.parse(line);
	} catch (error) {
		return { problem: `not valid JSON (${error instanceof Error ? error.message : String(error)})` };
	}
	if (!isRawRecord(value)) {
		const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
		return { problem: `expected a JSON object, got ${kind}` };
	}
	if (!isAgentMessage(value)) return { problem: 'the message has no string "role"' };
	return { message: value };
}

/** Runs `session-tree append`; its name, options and help are in the registry (src/cli/registry.ts). */
export const appendCommand: CommandHandler = {
	async run({ positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "append");
		const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
		let lineNumber = 0;
		let appended = 0;
		try {
			for await (const line of lines) {
				lineNumber++;
				if (line.trim() === "") continue;
				const parsed = parseMessageLine(line);
				if (parsed.problem !== undefined) {
					const done = appended === 1 ? "1 message was" : `${appended} messages were`;
					throw new CliError(`stdin line ${lineNumber}: ${parsed.problem}; ${done} appended before it, none after`);
				}
				io.out(`${await session.appendMessage(parsed.message)}\n`);
				appended++;
			}
		} finally {
			lines.close();
			await session.close();
		}
	},
};

/** Runs `session-tree branch`; its name, options and help are in the registry (src/cli/registry.ts). */
export const branchCommand: CommandHandler = {
	async run({ positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "branch");
		try {
			await session.branch(resolveEntryId(session, requiredPositional(positionals, 1)));
		} finally {
			await session.close();
		}
	},
};

/** Runs `session-tree migrate`; its name, options and help are in the registry (src/cli/registry.ts). */
export const migrateCommand: CommandHandler = {
	async run({ positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "migrate");
		try {
			const backup = await session.migrate();
			io.out(backup === undefined ? "already current\n" : `${sanitize(backup)}\n`);
		} finally {
			await session.close();
		}
	},
};

/** Runs `session-tree fork`; its name, options and help are in the registry (src/cli/registry.ts). */
export const forkCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "fork", values.lenient === true);
		const given = positionals[1];
		const id = given === undefined ? undefined : resolveEntryId(session, given);
		const dir = stringValue(values, "dir");
		const forked = await session.fork(id, dir !== undefined ? { dir: placeOf(dir) } : {});
		io.out(`${sanitize(forked.location)}\n`);
		await forked.close();
		await session.close();
	},
};

/** Runs `session-tree clone`; its name, options and help are in the registry (src/cli/registry.ts). */
export const cloneCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "clone", values.lenient === true);
		const dir = stringValue(values, "dir");
		const cloned = await session.clone(dir !== undefined ? { dir: placeOf(dir) } : {});
		io.out(`${sanitize(cloned.location)}\n`);
		await cloned.close();
		await session.close();
	},
};
