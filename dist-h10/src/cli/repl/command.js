/**
 * What a REPL command is, and the argument checks the commands share. A command's name, usage
 * and help are in the registry (src/cli/registry.ts); the code here and in the `*-commands.ts`
 * modules only runs it.
 */
import { parseArgs } from "node:util";
import { parseArgsFailure } from "../args.js";
import { ReplError } from "./state.js";
/** An error that quotes the command's usage. */
export function usageError(command, problem) {
    return new ReplError(`${problem} (usage: ${command.usage})`);
}
/** Fails unless there are at least `count` arguments; `what` names the first missing one. */
export function requireArgs(command, args, count, what) {
    if (args.length < count)
        throw usageError(command, `missing ${what}`);
}
/** Fails when there are more than `allowed` arguments. */
export function noMoreArgs(command, args, allowed) {
    if (args.length > allowed)
        throw usageError(command, `unexpected argument ${JSON.stringify(args[allowed])}`);
}
/** Splits the arguments into the command's options (from its spec) and the rest. */
export function parseOptions(command, args) {
    const options = {};
    for (const [name, option] of Object.entries(command.options ?? {}))
        options[name] = { type: option.type };
    try {
        const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
        return { values: parsed.values, positionals: parsed.positionals };
    }
    catch (error) {
        const failure = parseArgsFailure(error);
        if (failure?.problem === "unknown option")
            throw usageError(command, `unknown option ${failure.option}`);
        if (failure)
            throw usageError(command, `option ${failure.option} ${failure.problem}`);
        throw usageError(command, error.message);
    }
}
/** The words after the fixed arguments, joined with single spaces. */
export function textOf(args, from) {
    return args.slice(from).join(" ");
}
/** A whole number option's value, at least `min`. */
export function integerOption(command, value, name, min) {
    if (typeof value !== "string")
        return undefined;
    if (!/^\d+$/.test(value) || Number(value) < min) {
        throw usageError(command, `--${name} takes a whole number of at least ${min}, not ${JSON.stringify(value)}`);
    }
    return Number(value);
}
//# sourceMappingURL=command.js.map