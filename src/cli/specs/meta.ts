/** The specs of the demo and of the REPL's own commands (metadata only, see common.ts). */

import { defineCommands } from "./common.js";

/**
 * The demo and the REPL's commands about itself: demo, clear, help, exit (the `repl` command's
 * spec is the registry's own: its help lists the REPL's commands).
 */
export const META_SPECS = defineCommands([
	{
		name: "demo",
		summary: "narrate a branching session's lifecycle on a real file",
		cli: {
			synopsis: "demo [--dir DIR]",
			description:
				"Runs the tutorial's lifecycle, non-interactively, printing the tree and the model context\n" +
				"after every step: new session, three turns, branch back and ask differently, fork into a\n" +
				"new file, compaction, and a reopen from disk. The files stay in DIR (default: a fresh\n" +
				"temporary directory) for you to look at.",
			examples: ["session-tree demo", "session-tree demo --dir ./demo-sessions"],
			options: { dir: { type: "string" } },
			optionDocs: [{ flags: "--dir DIR", description: "write the session files to DIR (default: a new temp dir)" }],
			positionals: [],
		},
	},
	{
		name: "clear",
		summary: "clear the screen",
		repl: {
			usage: "clear",
			details: ["As Ctrl-L. Without a terminal (a script) it does nothing."],
			args: ["none"],
			needsSession: false,
		},
	},
	{
		name: "help",
		summary: "this list, or one command's usage",
		repl: { aliases: ["?"], usage: "help [command]", args: ["command"], needsSession: false },
	},
	{
		name: "exit",
		summary: "leave (also quit, or Ctrl-D)",
		repl: { aliases: ["quit"], usage: "exit", args: ["none"], needsSession: false },
	},
]);
