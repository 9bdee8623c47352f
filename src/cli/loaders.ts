/**
 * Where the code of each command line command is: a loader per command, by name, that imports
 * its module when the command runs (so `--help`, `--version` and each command load no more than
 * they use). Apart from the specs (src/cli/specs/, indexed by src/cli/registry.ts) so that the
 * specs import no command code: the REPL reads them, and a command (the `repl` command itself)
 * may load the REPL, which would otherwise import back the table that loads it.
 */

import type { CommandHandler } from "./args.js";
import type { CliCommandName } from "./registry.js";

/** One loader per command line command of the registry: the type checks that none is missing. */
const LOADERS: Record<CliCommandName, () => Promise<CommandHandler>> = {
	tree: async () => (await import("./commands/read.js")).treeCommand,
	browse: async () => (await import("./commands/browse.js")).browseCommand,
	ctx: async () => (await import("./commands/read.js")).ctxCommand,
	md: async () => (await import("./commands/md.js")).mdCommand,
	html: async () => (await import("./commands/html.js")).htmlCommand,
	path: async () => (await import("./commands/read.js")).pathCommand,
	leaves: async () => (await import("./commands/read.js")).leavesCommand,
	diff: async () => (await import("./commands/diff.js")).diffCommand,
	info: async () => (await import("./commands/read.js")).infoCommand,
	ls: async () => (await import("./commands/ls.js")).lsCommand,
	search: async () => (await import("./commands/search.js")).searchCommand,
	serve: async () => (await import("./commands/serve.js")).serveCommand,
	mcp: async () => (await import("./commands/mcp.js")).mcpCommand,
	new: async () => (await import("./commands/write.js")).newCommand,
	append: async () => (await import("./commands/write.js")).appendCommand,
	branch: async () => (await import("./commands/write.js")).branchCommand,
	fork: async () => (await import("./commands/write.js")).forkCommand,
	clone: async () => (await import("./commands/write.js")).cloneCommand,
	label: async () => (await import("./commands/edit.js")).labelCommand,
	name: async () => (await import("./commands/edit.js")).nameCommand,
	nav: async () => (await import("./commands/edit.js")).navCommand,
	pick: async () => (await import("./commands/pick.js")).pickCommand,
	archive: async () => (await import("./commands/archive.js")).archiveCommandHandler,
	unarchive: async () => (await import("./commands/archive.js")).unarchiveCommandHandler,
	"drop-archived": async () => (await import("./commands/archive.js")).dropArchivedCommand,
	migrate: async () => (await import("./commands/write.js")).migrateCommand,
	validate: async () => (await import("./commands/integrity.js")).validateCommand,
	repair: async () => (await import("./commands/integrity.js")).repairCommand,
	copy: async () => (await import("./commands/transfer.js")).copyCommand,
	prune: async () => (await import("./commands/transfer.js")).pruneCommand,
	merge: async () => (await import("./commands/merge.js")).mergeCommand,
	import: async () => (await import("./commands/import.js")).importCommand,
	export: async () => (await import("./commands/import.js")).exportCommand,
	repl: async () => (await import("./commands/repl.js")).replCommand,
	demo: async () => (await import("./commands/demo.js")).demoCommand,
};

/** Imports the module that runs the command line command `name`. */
export function loadCommand(name: CliCommandName): Promise<CommandHandler> {
	return LOADERS[name]();
}
