/**
 * What a command line command receives and how its arguments are parsed (node:util
 * `parseArgs`, from the command's spec, src/cli/specs/), plus the two error kinds the CLI
 * distinguishes: usage errors (exit 2) and failures (exit 1).
 */

import { parseArgs } from "node:util";
import { errorCode } from "../core/validate.js";
import { type CliFacet, HELP_OPTION, type OptionsConfig } from "./specs/common.js";

/** Exit code of a failed command. */
export const EXIT_FAILURE = 1;
/** Exit code of a command line that could not be understood. */
export const EXIT_USAGE = 2;

/** The command line was wrong: print the message and a hint, exit 2. */
export class UsageError extends Error {
	readonly command: string | undefined;
	constructor(message: string, command?: string) {
		super(message);
		this.name = "UsageError";
		this.command = command;
	}
}

/** The command could not do its job: print the message, exit 1. */
export class CliError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "CliError";
	}
}

/**
 * The input a command reads: a readable stream that may be a terminal, as `process.stdin`
 * is, and that can be let go of (a `stream.Readable` can).
 */
export interface CliInput extends NodeJS.ReadableStream {
	/** True when the stream is a terminal. */
	readonly isTTY?: boolean;
	/** Releases the stream, so that an open pipe no longer keeps the process waiting. */
	destroy?(): void;
}

/** Where a command reads and writes. */
export interface CliIO {
	stdin: CliInput;
	out(text: string): void;
	/**
	 * Writes bytes (UTF-8 text) to the same output as {@link out}, where the front end can: a
	 * command with megabytes to print holds them as bytes rather than as strings (see
	 * `renderTreeBytes`). Without it, the command writes text through {@link out}.
	 */
	outBytes?(bytes: Uint8Array): void;
	err(text: string): void;
}

/** What a command receives once its arguments are parsed. */
export interface CommandInput {
	values: Record<string, string | boolean | undefined>;
	positionals: string[];
	io: CliIO;
}

/**
 * The code of a command line command: what its module exports and its loader
 * (src/cli/loaders.ts) returns. Its name, help and options are in its spec (src/cli/specs/).
 */
export interface CommandHandler {
	run(input: CommandInput): void | Promise<void>;
}

/** What node:util `parseArgs` returns for a command's options: no option is `multiple`. */
type ParsedArgs = ReturnType<typeof parseArgs<{ options: OptionsConfig; allowPositionals: true; strict: true }>>;

/** Parses a command's arguments; returns undefined when `--help` was asked for. */
export function parseCommandArgs(
	command: { readonly name: string } & Pick<CliFacet, "options" | "positionals">,
	argv: string[],
): Omit<CommandInput, "io"> | undefined {
	let parsed: ParsedArgs;
	try {
		parsed = parseArgs({
			args: argv,
			options: { ...command.options, ...HELP_OPTION },
			allowPositionals: true,
			strict: true,
		});
	} catch (error) {
		const failure = parseArgsFailure(error);
		if (failure) throw new UsageError(cliFailureMessage(failure), command.name);
		if (isParseArgsError(error)) throw new UsageError(error.message, command.name);
		throw error;
	}
	const { values, positionals } = parsed;
	if (values.help) return undefined;
	// The first required positional not given, if any (optional ones, `NAME?`, come last).
	const missing = command.positionals.slice(positionals.length).find((name) => !name.endsWith("?"));
	if (missing !== undefined) throw new UsageError(`missing ${missing}`, command.name);
	const extra = positionals[command.positionals.length];
	// A last positional named `NAME...?` takes any number of arguments (`serve [STORE…]`).
	const rest = command.positionals[command.positionals.length - 1]?.endsWith("...?") === true;
	if (extra !== undefined && !rest) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`, command.name);
	return { values, positionals };
}

/** What node:util `parseArgs` objected to, for an objection about one option. */
export interface ParseArgsFailure {
	problem: "unknown option" | "needs a value" | "takes no value";
	/** The option as written, e.g. `--leaf`. */
	option: string;
}

/**
 * The option a `parseArgs` error is about and what is wrong with it, read from its code and
 * message (which are long and name the option in quotes), or undefined for any other error.
 */
export function parseArgsFailure(error: unknown): ParseArgsFailure | undefined {
	if (!isParseArgsError(error)) return undefined;
	const option = /'(-[^' ]*)/.exec(error.message)?.[1];
	if (option === undefined) return undefined;
	switch (error.code) {
		case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
			return { problem: "unknown option", option };
		case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
			return { problem: /argument missing/.test(error.message) ? "needs a value" : "takes no value", option };
		default:
			return undefined;
	}
}

/** A failure in the CLI's words: the option quoted as in its other messages. */
function cliFailureMessage({ problem, option }: ParseArgsFailure): string {
	return problem === "unknown option" ? `unknown option ${JSON.stringify(option)}` : `option ${option} ${problem}`;
}

function isParseArgsError(error: unknown): error is Error & { code: string } {
	const code = error instanceof Error ? errorCode(error) : undefined;
	return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

/**
 * The positional argument at `index`, one the command's spec requires: {@link parseCommandArgs}
 * has checked that it is there.
 */
export function requiredPositional(positionals: readonly string[], index: number): string {
	const value = positionals[index];
	if (value === undefined) {
		throw new Error(`positional argument ${index + 1} is missing, though the command requires it`);
	}
	return value;
}

/** A string option's value, if given. */
export function stringValue(values: CommandInput["values"], name: string): string | undefined {
	const value = values[name];
	return typeof value === "string" ? value : undefined;
}

/**
 * `text` as a whole number of at least `min`, or undefined when it is none (digits only: no
 * sign, no fraction, no exponent). The CLI and the REPL each say so in their own words.
 */
export function wholeNumber(text: string, min: number): number | undefined {
	return /^\d+$/.test(text) && Number(text) >= min ? Number(text) : undefined;
}

/**
 * The value of option `--name`, which takes a whole number of at least `min`, if given.
 * @throws UsageError (naming `command`) when it is not one
 */
export function wholeNumberOption(
	values: CommandInput["values"],
	name: string,
	min: number,
	command: string,
): number | undefined {
	const text = stringValue(values, name);
	if (text === undefined) return undefined;
	const value = wholeNumber(text, min);
	if (value === undefined) {
		throw new UsageError(
			`option --${name} needs a whole number of at least ${min}, not ${JSON.stringify(text)}`,
			command,
		);
	}
	return value;
}
