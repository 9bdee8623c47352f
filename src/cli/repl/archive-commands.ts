/**
 * The REPL's archive and unarchive: parsed from the REPL's words, done by the command line's
 * own (src/cli/commands/archive.ts), printed here.
 */

import { sanitize } from "../../render/preview.js";
import { archiveLine, changeArchive } from "../commands/archive.js";
import { noMoreArgs, type ReplHandlers, requireArg } from "./command.js";

/** The handlers of archive and unarchive. */
export const ARCHIVE_COMMANDS = {
	async archive(state, args, command) {
		const given = requireArg(command, args, 0, "<id>");
		noMoreArgs(command, args, 1);
		state.line(sanitize(archiveLine(await changeArchive(state.requireSession(), given, true))));
	},

	async unarchive(state, args, command) {
		const given = requireArg(command, args, 0, "<id>");
		noMoreArgs(command, args, 1);
		state.line(sanitize(archiveLine(await changeArchive(state.requireSession(), given, false))));
	},
} satisfies ReplHandlers;
