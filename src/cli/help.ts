/** The command line's help texts, built from the registry alone (no command code is loaded). */

import { CLI_COMMANDS, type CliCommand } from "./registry.js";
import { HELP_DOC } from "./specs/common.js";

/** The top-level help: every command with one line each. */
export function mainHelp(): string {
	const width = Math.max(...CLI_COMMANDS.map((command) => command.name.length));
	const lines = [
		"session-tree: view and edit branching LLM-agent conversations stored as pi session files",
		"(JSONL, format v3).",
		"",
		"Usage: session-tree <command> [arguments] [options]",
		"",
		"Commands:",
		...CLI_COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
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

/** The `--help` text of a command. */
export function commandHelp(command: CliCommand): string {
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
