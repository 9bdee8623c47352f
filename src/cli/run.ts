/**
 * The command-line interface: dispatch, help, and the mapping of errors to exit codes.
 * Data goes to stdout; errors go to stderr as `session-tree: <message>`, with exit code 1 for
 * a failure and 2 for a command line that could not be understood.
 */

import { isSessionTreeError } from "../core/errors.js";
import {
	CliError,
	type CliIO,
	type Command,
	commandHelp,
	EXIT_FAILURE,
	EXIT_USAGE,
	parseCommandArgs,
	UsageError,
} from "./args.js";
import { demoCommand } from "./commands/demo.js";
import { labelCommand, nameCommand, navCommand } from "./commands/edit.js";
import { repairCommand, validateCommand } from "./commands/integrity.js";
import { lsCommand } from "./commands/ls.js";
import { ctxCommand, infoCommand, leavesCommand, pathCommand, treeCommand } from "./commands/read.js";
import { replCommand } from "./commands/repl.js";
import { searchCommand } from "./commands/search.js";
import {
	appendCommand,
	branchCommand,
	cloneCommand,
	forkCommand,
	migrateCommand,
	newCommand,
} from "./commands/write.js";
import { onTerminal } from "./repl/repl.js";
import { packageVersion } from "./version.js";

/** Every command, in the order of the help listing. */
export const COMMANDS: readonly Command[] = [
	treeCommand,
	ctxCommand,
	pathCommand,
	leavesCommand,
	infoCommand,
	lsCommand,
	searchCommand,
	newCommand,
	appendCommand,
	branchCommand,
	forkCommand,
	cloneCommand,
	labelCommand,
	nameCommand,
	navCommand,
	migrateCommand,
	validateCommand,
	repairCommand,
	replCommand,
	demoCommand,
];

/** The top-level help: every command with one line each. */
export function mainHelp(): string {
	const width = Math.max(...COMMANDS.map((command) => command.name.length));
	const lines = [
		"session-tree: view and edit branching LLM-agent conversations stored as pi session files",
		"(JSONL, format v3).",
		"",
		"Usage: session-tree <command> [arguments] [options]",
		"",
		"Commands:",
		...COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
		"",
		"Options:",
		"  -h, --help     show help (session-tree <command> --help for a command's own)",
		"  -V, --version  print the version",
		"",
		"Examples:",
		"  session-tree demo",
		"  session-tree tree ~/.pi/agent/sessions/--home-me-project--/<file>.jsonl",
	];
	return `${lines.join("\n")}\n`;
}

function findCommand(name: string): Command | undefined {
	return COMMANDS.find((command) => command.name === name);
}

/** Runs one command line; returns the exit code. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
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
		const command = findCommand(topic);
		if (!command) throw new UsageError(`unknown command ${JSON.stringify(topic)}`);
		io.out(commandHelp(command));
		return;
	}
	if (first.startsWith("-")) throw new UsageError(`unknown option ${JSON.stringify(first)}`);
	const command = findCommand(first);
	if (!command) throw new UsageError(`unknown command ${JSON.stringify(first)}`);
	const parsed = parseCommandArgs(command, rest);
	if (!parsed) {
		io.out(commandHelp(command));
		return;
	}
	await command.run({ ...parsed, io });
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
		io.err(`session-tree: ${error.message}\n`);
		return EXIT_FAILURE;
	}
	// A bug: show the stack so that it can be reported.
	const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
	io.err(`session-tree: internal error: ${detail}\n`);
	return EXIT_FAILURE;
}

function isSystemError(error: unknown): error is Error {
	return error instanceof Error && typeof (error as { code?: unknown }).code === "string";
}
