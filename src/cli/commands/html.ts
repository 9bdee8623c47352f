/**
 * `session-tree html`: a whole session as one self-contained, offline HTML file. Never writes
 * to the session; the page is written atomically (a temporary file, then a rename), owner-only,
 * and an existing file is only replaced with --force.
 */

import { basename, resolve } from "node:path";
import { exportSessionHtmlParts, writeSessionHtml } from "../../render/html/export.js";
import { type PageCheckThread, pageCheckThreadFor } from "../../render/html/page-checks.js";
import { sanitize } from "../../render/preview.js";
import { formatCounts, type RedactionCounts } from "../../render/redact.js";
import { type CommandHandler, type CommandInput, requiredPositional, stringValue } from "../args.js";
import { openSession } from "../open.js";
import { checkOutput, outputFile, writeNewFileFrom, writeOutput } from "../output.js";

/** The default output file: FILE's name with `.html` for `.jsonl`, in the current directory. */
function defaultOutput(file: string | undefined, sessionId: string): string {
	const name = file === undefined ? sessionId : basename(file).replace(/\.jsonl$/i, "");
	return resolve(`${name}.html`);
}

/** Runs `session-tree html`; its name, options and help are in its spec (src/cli/specs/views.ts). */
export const htmlCommand: CommandHandler = {
	async run(input) {
		const { values, positionals, io } = input;
		const location = requiredPositional(positionals, 0);
		const redact = values["no-redact"] !== true;
		const force = values.force === true;
		// An OUT given that exists is refused before the session opens (s1m: seconds); the
		// default one, named after the session, once it is open.
		checkOutput(outputFile(stringValue(values, "out")), force);
		// A large session's records are checked in a second thread too, which starts reading
		// while the session opens (render/html/page-checks.ts).
		const checks = pageCheckThreadFor(location, redact);
		let page: Page;
		try {
			page = await writePage(input, location, redact, force, checks);
		} finally {
			checks?.stop();
		}
		if (page.output !== undefined) io.out(`${sanitize(page.output)}\n`);
		const summary = formatCounts(page.redactions);
		if (summary !== "") io.err(`session-tree: redacted ${summary} (--no-redact keeps them)\n`);
	},
};

/** Where the page went, and what was redacted. */
interface Page {
	output: string | undefined;
	redactions: RedactionCounts;
}

/**
 * Opens the session at `location` and writes its page: to a file as it is made (the page of a
 * large session is never held whole), or to standard output once it is whole (a failure then
 * writes nothing there).
 */
async function writePage(
	{ values, io }: CommandInput,
	location: string,
	redact: boolean,
	force: boolean,
	checks: PageCheckThread | undefined,
): Promise<Page> {
	const session = await openSession(location, io, values.lenient === true);
	const leafGiven = stringValue(values, "leaf");
	// An unknown leaf fails before anything is written.
	const leafId = leafGiven === undefined ? undefined : session.resolveId(leafGiven);
	const output = outputFile(stringValue(values, "out") ?? defaultOutput(session.file, session.getSessionId()));
	checkOutput(output, force);
	const options = { ...(leafId !== undefined ? { leafId } : {}), redact };
	if (output === undefined) {
		const page = await exportSessionHtmlParts(session, options, { checks });
		writeOutput(io, output, page.parts, force);
		return { output, redactions: page.redactions };
	}
	let redactions: RedactionCounts = {};
	await writeNewFileFrom(output, force, async (write) => {
		redactions = (await writeSessionHtml(session, write, options, { checks })).redactions;
	});
	return { output, redactions };
}
