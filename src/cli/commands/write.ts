/**
 * The commands that write: new, append, branch, migrate, fork, clone. {@link createSession},
 * {@link moveLeaf}, {@link forkSession} and {@link cloneSession} do the work for both front
 * ends: the REPL's new, branch, fork and clone (src/cli/repl/) call them and print in their own way.
 */

import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { RawRecord } from "../../core/migrate.js";
import type { AgentMessage } from "../../core/types.js";
import { isRawRecord } from "../../core/validate.js";
import { sanitize } from "../../render/preview.js";
import { Session } from "../../session.js";
import type { ForkOptions } from "../../session-options.js";
import { CliError, type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { dirOption } from "../dir-option.js";
import { openSessionToWrite, resolveEntryId } from "../open.js";

/** Where a new session goes: `--dir` (a directory made absolute, or a store as given), else beside the session copied. */
function placeOf(dir: string | undefined): ForkOptions {
	return dir === undefined ? {} : { dir: dirOption(dir) };
}

/**
 * Creates a session whose header holds `cwd` (default: the current directory), in `dir` (a
 * directory or a store; default: pi's directory for `cwd`).
 * @throws CliError when `dir` is a path to something that is not a directory
 */
export function createSession(dir: string | undefined, cwd: string | undefined): Promise<Session> {
	return Session.create({ cwd: resolve(cwd ?? process.cwd()), ...placeOf(dir) });
}

/**
 * Moves the leaf to entry `given` (an id or a unique prefix of one), persisted as a leaf record.
 * @returns the entry's full id
 */
export async function moveLeaf(session: Session, given: string): Promise<string> {
	const id = resolveEntryId(session, given);
	await session.branch(id);
	return id;
}

/**
 * Copies the path from the root to entry `given` (an id or a unique prefix; default: the leaf)
 * into a new session, in `dir` (default: next to the session).
 * @returns the new session, and the entry it was forked at (null: before the first entry)
 */
export async function forkSession(
	session: Session,
	given: string | undefined,
	dir?: string,
): Promise<{ fork: Session; at: string | null }> {
	const id = given === undefined ? undefined : resolveEntryId(session, given);
	const at = id ?? session.getLeafId();
	return { fork: await session.fork(id, placeOf(dir)), at };
}

/** Copies the active path into a new session, in `dir` (default: next to the session). */
export function cloneSession(session: Session, dir?: string): Promise<Session> {
	return session.clone(placeOf(dir));
}

/** Runs `session-tree new`; its name, options and help are in its spec (src/cli/specs/edits.ts). */
export const newCommand: CommandHandler = {
	async run({ values, io }) {
		const session = await createSession(stringValue(values, "dir"), stringValue(values, "cwd"));
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

/** Runs `session-tree append`; its name, options and help are in its spec (src/cli/specs/edits.ts). */
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

/** Runs `session-tree branch`; its name, options and help are in its spec (src/cli/specs/edits.ts). */
export const branchCommand: CommandHandler = {
	async run({ positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "branch");
		try {
			await moveLeaf(session, requiredPositional(positionals, 1));
		} finally {
			await session.close();
		}
	},
};

/** Runs `session-tree migrate`; its name, options and help are in its spec (src/cli/specs/stores.ts). */
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

/** Runs `session-tree fork`; its name, options and help are in its spec (src/cli/specs/edits.ts). */
export const forkCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "fork", values.lenient === true);
		const { fork } = await forkSession(session, positionals[1], stringValue(values, "dir"));
		io.out(`${sanitize(fork.location)}\n`);
		await fork.close();
		await session.close();
	},
};

/** Runs `session-tree clone`; its name, options and help are in its spec (src/cli/specs/edits.ts). */
export const cloneCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSessionToWrite(requiredPositional(positionals, 0), io, "clone", values.lenient === true);
		const cloned = await cloneSession(session, stringValue(values, "dir"));
		io.out(`${sanitize(cloned.location)}\n`);
		await cloned.close();
		await session.close();
	},
};
