/**
 * What a REPL command is, and the argument checks the commands share. A command's name, usage
 * and help are in its spec (src/cli/specs/); the code here and in the `*-commands.ts`
 * modules only runs it.
 */

import { parseArgs } from "node:util";
import { parseArgsFailure, wholeNumber } from "../args.js";
import type { ReplCommandName, ReplCommandSpec } from "../registry.js";
import { ReplError, type ReplState } from "./state.js";

/**
 * The code of a REPL command: given the state, the words after the command's name, and the
 * command's spec (for its usage in error messages). May be asynchronous (the session's writes are).
 */
export type ReplHandler = (state: ReplState, args: string[], command: ReplCommandSpec) => void | Promise<void>;

/** Handlers of a group of commands, by command name. */
export type ReplHandlers = Partial<Record<ReplCommandName, ReplHandler>>;

/** A REPL command: its spec (src/cli/specs/, through the registry) with the code that runs it. */
export interface ReplCommand extends ReplCommandSpec {
	run(state: ReplState, args: string[]): void | Promise<void>;
}

/** An error that quotes the command's usage. */
export function usageError(command: ReplCommandSpec, problem: string): ReplError {
	return new ReplError(`${problem} (usage: ${command.usage})`);
}

/** Fails unless there are at least `count` arguments; `what` names the first missing one. */
export function requireArgs(command: ReplCommandSpec, args: string[], count: number, what: string): void {
	if (args.length < count) throw usageError(command, `missing ${what}`);
}

/** The argument at `index`; fails as {@link requireArgs} does when there is none, `what` naming it. */
export function requireArg(command: ReplCommandSpec, args: readonly string[], index: number, what: string): string {
	const arg = args[index];
	if (arg === undefined) throw usageError(command, `missing ${what}`);
	return arg;
}

/** Fails when there are more than `allowed` arguments. */
export function noMoreArgs(command: ReplCommandSpec, args: string[], allowed: number): void {
	if (args.length > allowed) throw usageError(command, `unexpected argument ${JSON.stringify(args[allowed])}`);
}

/** Splits the arguments into the command's options (from its spec) and the rest. */
export function parseOptions(
	command: ReplCommandSpec,
	args: string[],
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
	const options: Record<string, { type: "string" | "boolean" }> = {};
	for (const [name, option] of Object.entries(command.options ?? {})) options[name] = { type: option.type };
	try {
		const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
		return { values: parsed.values, positionals: parsed.positionals };
	} catch (error) {
		const failure = parseArgsFailure(error);
		if (failure?.problem === "unknown option") throw usageError(command, `unknown option ${failure.option}`);
		if (failure) throw usageError(command, `option ${failure.option} ${failure.problem}`);
		throw usageError(command, error instanceof Error ? error.message : String(error));
	}
}

/** The words after the fixed arguments, joined with single spaces. */
export function textOf(args: string[], from: number): string {
	return args.slice(from).join(" ");
}

/** A whole number option's value, at least `min`. */
export function integerOption(
	command: ReplCommandSpec,
	value: string | boolean | undefined,
	name: string,
	min: number,
): number | undefined {
	if (typeof value !== "string") return undefined;
	const number = wholeNumber(value, min);
	if (number === undefined) {
		throw usageError(command, `--${name} takes a whole number of at least ${min}, not ${JSON.stringify(value)}`);
	}
	return number;
}
