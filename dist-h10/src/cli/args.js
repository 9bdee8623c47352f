/**
 * What a command line command receives and how its arguments are parsed (node:util
 * `parseArgs`, from the command's spec in the registry), plus the two error kinds the CLI
 * distinguishes: usage errors (exit 2) and failures (exit 1).
 */
import { parseArgs } from "node:util";
import { HELP_OPTION } from "./registry.js";
/** Exit code of a failed command. */
export const EXIT_FAILURE = 1;
/** Exit code of a command line that could not be understood. */
export const EXIT_USAGE = 2;
/** The command line was wrong: print the message and a hint, exit 2. */
export class UsageError extends Error {
    command;
    constructor(message, command) {
        super(message);
        this.name = "UsageError";
        this.command = command;
    }
}
/** The command could not do its job: print the message, exit 1. */
export class CliError extends Error {
    constructor(message) {
        super(message);
        this.name = "CliError";
    }
}
/** Parses a command's arguments; returns undefined when `--help` was asked for. */
export function parseCommandArgs(command, argv) {
    let parsed;
    try {
        parsed = parseArgs({
            args: argv,
            options: { ...command.options, ...HELP_OPTION },
            allowPositionals: true,
            strict: true,
        });
    }
    catch (error) {
        const failure = parseArgsFailure(error);
        if (failure)
            throw new UsageError(cliFailureMessage(failure), command.name);
        if (isParseArgsError(error))
            throw new UsageError(error.message, command.name);
        throw error;
    }
    const values = parsed.values;
    if (values.help)
        return undefined;
    const required = command.positionals.filter((name) => !name.endsWith("?")).length;
    const { positionals } = parsed;
    if (positionals.length < required) {
        const missing = command.positionals[positionals.length];
        throw new UsageError(`missing ${missing}`, command.name);
    }
    if (positionals.length > command.positionals.length) {
        const extra = positionals[command.positionals.length];
        throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`, command.name);
    }
    return { values, positionals };
}
/**
 * The option a `parseArgs` error is about and what is wrong with it, read from its code and
 * message (which are long and name the option in quotes), or undefined for any other error.
 */
export function parseArgsFailure(error) {
    if (!isParseArgsError(error))
        return undefined;
    const option = /'(-[^' ]*)/.exec(error.message)?.[1];
    if (option === undefined)
        return undefined;
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
function cliFailureMessage({ problem, option }) {
    return problem === "unknown option" ? `unknown option ${JSON.stringify(option)}` : `option ${option} ${problem}`;
}
function isParseArgsError(error) {
    const code = error instanceof Error ? error.code : undefined;
    return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS_");
}
/** A string option's value, if given. */
export function stringValue(values, name) {
    const value = values[name];
    return typeof value === "string" ? value : undefined;
}
//# sourceMappingURL=args.js.map