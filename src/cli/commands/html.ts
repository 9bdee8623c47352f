/**
 * `session-tree html`: a whole session as one self-contained, offline HTML file. Never writes
 * to the session; the page is written atomically (a temporary file, then a rename), owner-only,
 * and an existing file is only replaced with --force.
 */

import { basename, resolve } from "node:path";
import { exportSessionHtmlParts } from "../../render/html/export.js";
import { sanitize } from "../../render/preview.js";
import { formatCounts } from "../../render/redact.js";
import { type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { openSession } from "../open.js";
import { checkOutput, outputFile, writeOutput } from "../output.js";

/** The default output file: FILE's name with `.html` for `.jsonl`, in the current directory. */
function defaultOutput(file: string | undefined, sessionId: string): string {
	const name = file === undefined ? sessionId : basename(file).replace(/\.jsonl$/i, "");
	return resolve(`${name}.html`);
}

/** Runs `session-tree html`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const htmlCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const leafGiven = stringValue(values, "leaf");
		// An unknown leaf fails before anything is written.
		const leafId = leafGiven === undefined ? undefined : session.resolveId(leafGiven);
		const output = outputFile(stringValue(values, "out") ?? defaultOutput(session.file, session.getSessionId()));
		const force = values.force === true;
		checkOutput(output, force);
		const keep = values["no-redact"] === true;
		// In pieces, written one after the other: the page of a large session is never one string.
		const page = await exportSessionHtmlParts(session, { ...(leafId !== undefined ? { leafId } : {}), redact: !keep });
		writeOutput(io, output, page.parts, force);
		if (output !== undefined) io.out(`${sanitize(output)}\n`);
		const summary = formatCounts(page.redactions);
		if (summary !== "") io.err(`session-tree: redacted ${summary} (--no-redact keeps them)\n`);
	},
};
