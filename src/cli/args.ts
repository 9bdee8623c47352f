/**
 * Command definitions and argument parsing (node:util `parseArgs`), plus the two error kinds
 * the CLI distinguishes: usage errors (exit 2) and failures (exit 1).
 */

import { type ParseArgsConfig, parseArgs } from "node:util";

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

/** Where a command reads and writes. */
export interface CliIO {
	stdin: NodeJS.ReadableStream;
	out(text: string): void;
	err(text: string): void;
}

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

/** One documented option of a command. */
export interface OptionDoc {
	flags: string;
	description: string;
}

/** What a command receives once its arguments are parsed. */
export interface CommandInput {
	values: Record<string, string | boolean | undefined>;
	positionals: string[];
	io: CliIO;
}

/** A sub-command of `session-tree`. */
export interface Command {
	name: string;
	/** One line for the command listing. */
	summary: string;
	/** The synopsis after `session-tree `. */
	synopsis: string;
	/** A few sentences for `--help`. */
	description: string;
	/** Command lines for `--help`. */
	examples: string[];
	options: OptionsConfig;
	optionDocs: OptionDoc[];
	/** Names of the positional arguments; those ending in `?` are optional. */
	positionals: string[];
	run(input: CommandInput): void | Promise<void>;
}

/** Options every command has. */
export const HELP_OPTION: OptionsConfig = { help: { type: "boolean", short: "h" } };
export const HELP_DOC: OptionDoc = { flags: "-h, --help", description: "show this help" };

/** Parses a command's arguments; returns undefined when `--help` was asked for. */
export function parseCommandArgs(command: Command, argv: string[]): Omit<CommandInput, "io"> | undefined {
	let parsed: ReturnType<typeof parseArgs>;
	try {
		parsed = parseArgs({
			args: argv,
			options: { ...command.options, ...HELP_OPTION },
			allowPositionals: true,
			strict: true,
		});
	} catch (error) {
		if (isParseArgsError(error)) throw new UsageError(parseArgsMessage(error), command.name);
		throw error;
	}
	const values = parsed.values as Record<string, string | boolean | undefined>;
	if (values.help) return undefined;
	const required = command.positionals.filter((name) => !name.endsWith("?")).length;
	const { positionals } = parsed;
	if (positionals.length < required) {
		const missing = command.positionals[positionals.length] as string;
		throw new UsageError(`missing ${missing}`, command.name);
	}
	if (positionals.length > command.positionals.length) {
		const extra = positionals[command.positionals.length] as string;
		throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`, command.name);
	}
	return { values, positionals };
}

/** parseArgs's messages, shortened to the point. */
function parseArgsMessage(error: Error & { code: string }): string {
	const option = /'(-[^' ]*)/.exec(error.message)?.[1];
	if (option === undefined) return error.message;
	switch (error.code) {
		case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
			return `unknown option ${JSON.stringify(option)}`;
		case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
			return /argument missing/.test(error.message)
				? `option ${option} needs a value`
				: `option ${option} takes no value`;
		default:
			return error.message;
	}
}

function isParseArgsError(error: unknown): error is Error & { code: string } {
	const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
	return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}

/** The `--help` text of a command. */
export function commandHelp(command: Command): string {
	const docs = [...command.optionDocs, HELP_DOC];
	const width = Math.max(...docs.map((doc) => doc.flags.length));
	const lines = [
		`Usage: session-tree ${command.synopsis}`,
		"",
		command.description,
		"",
		"Options:",
		...docs.map((doc) => `  ${doc.flags.padEnd(width)}  ${doc.description}`),
		"",
		command.examples.length > 1 ? "Examples:" : "Example:",
		...command.examples.map((example) => `  ${example}`),
	];
	return `${lines.join("\n")}\n`;
}

/** A string option's value, if given. */
export function stringValue(values: CommandInput["values"], name: string): string | undefined {
	const value = values[name];
	return typeof value === "string" ? value : undefined;
}

/** Common option: `--json`. */
export const JSON_OPTION: OptionsConfig = { json: { type: "boolean" } };
/** Common option: `--lenient`. */
export const LENIENT_OPTION: OptionsConfig = { lenient: { type: "boolean" } };
export const LENIENT_DOC: OptionDoc = {
	flags: "--lenient",
	description: "load a damaged file as far as possible; the problems are printed to stderr",
};
