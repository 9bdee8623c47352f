/**
 * The command-line interface: dispatch, help, and the mapping of errors to exit codes.
 * Data goes to stdout; errors go to stderr as `session-tree: <message>`, with exit code 1 for
 * a failure and 2 for a command line that could not be understood.
 *
 * Only the registry's metadata is loaded up front; a command's module is imported when that
 * command runs, so `--version`, `--help` and each command load no more than they use.
 */

import { describeSystemError, isSessionTreeError } from "../core/errors.js";
import { maskPasswords } from "../core/mask.js";
import { errorCode } from "../core/validate.js";
import { sanitizeText } from "../render/sanitize.js";
import { CliError, type CliIO, EXIT_FAILURE, EXIT_USAGE, parseCommandArgs, UsageError } from "./args.js";
import { commandHelp, mainHelp } from "./help.js";
import { loadCommand } from "./loaders.js";
import { CLI_COMMANDS, type CliCommand, findCliCommand } from "./registry.js";
import { nearestName } from "./suggest.js";
import { onTerminal } from "./terminal.js";
import { packageVersion } from "./version.js";

/** Every command, in the order of the help listing (metadata; `loadCommand` brings in its code). */
export const COMMANDS: readonly CliCommand[] = CLI_COMMANDS;

/** Runs one command line; returns the exit code. */
export async function run(argv: readonly string[], given: CliIO): Promise<number> {
	const io = guarded(given);
	try {
		await dispatch([...argv], io);
		return 0;
	} catch (error) {
		return report(error, io);
	}
}

async function dispatch(argv: string[], io: CliIO): Promise<void> {
	const [first, ...rest] = argv;
	// A bare `session-tree` on a terminal starts the REPL; elsewhere it prints the help.
	if (first === undefined && onTerminal(io)) return dispatch(["repl"], io);
	if (first === undefined || first === "-h" || first === "--help") {
		io.out(mainHelp());
		return;
	}
	if (first === "-V" || first === "--version") {
		io.out(`${packageVersion()}\n`);
		return;
	}
	if (first === "help") {
		const topic = rest[0];
		if (topic === undefined) {
			io.out(mainHelp());
			return;
		}
		const command = findCliCommand(topic);
		if (!command) throw unknownCommand(topic);
		io.out(commandHelp(command));
		return;
	}
	if (first.startsWith("-")) throw new UsageError(`unknown option ${JSON.stringify(first)}`);
	const command = findCliCommand(first);
	if (!command) throw unknownCommand(first);
	// Parsed before the command's code is loaded: a usage error costs no import.
	const parsed = parseCommandArgs(command, rest);
	if (!parsed) {
		io.out(commandHelp(command));
		return;
	}
	const handler = await loadCommand(command.name);
	await handler.run({ ...parsed, io });
}

/** The error for a word that names no command, suggesting the nearest name when it looks like a typo. */
function unknownCommand(word: string): UsageError {
	const near = nearestName(
		word,
		COMMANDS.map((command) => command.name),
	);
	return new UsageError(
		`unknown command ${JSON.stringify(word)}${near === undefined ? "" : ` (did you mean ${near}?)`}`,
	);
}

function report(error: unknown, io: CliIO): number {
	if (error instanceof UsageError) {
		const hint = error.command ? `session-tree ${error.command} --help` : "session-tree --help";
		io.err(`session-tree: ${error.message}\nTry '${hint}'.\n`);
		return EXIT_USAGE;
	}
	if (error instanceof CliError || isSessionTreeError(error)) {
		io.err(`session-tree: ${error.message}\n`);
		return EXIT_FAILURE;
	}
	if (isSystemError(error)) {
		// Node's own wording (`EACCES: permission denied, open '…'`) in plain words, with the path.
		const path = (error as NodeJS.ErrnoException).path;
		const text = describeSystemError(error);
		const where = typeof path === "string" && !text.includes(path) ? `${path}: ` : "";
		io.err(`session-tree: ${where}${text}\n`);
		return EXIT_FAILURE;
	}
	// A bug: show the stack so that it can be reported.
	const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
	io.err(`session-tree: internal error: ${detail}\n`);
	return EXIT_FAILURE;
}

/**
 * `io` whose error output masks the password of every URL in it and is safe for a terminal:
 * the last line of defence for docs/backends.md's promise and for the rule that session
 * content never reaches the terminal raw, whatever message (a driver's, a warning quoting a
 * file's name, an id, a value) reached it. Controls (escape sequences among them) become
 * spaces and bidi controls go, as in every view ({@link sanitizeText}); so nothing on stderr
 * is coloured. Standard output is data and each command makes its own safe.
 */
function guarded(io: CliIO): CliIO {
	return Object.create(io, { err: { value: (text: string) => io.err(sanitizeText(maskPasswords(text))) } });
}

function isSystemError(error: unknown): error is Error {
	return error instanceof Error && typeof errorCode(error) === "string";
}
