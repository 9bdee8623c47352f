/**
 * `session-tree html`: a whole session as one self-contained, offline HTML file. Never writes
 * to the session; the page is written atomically (a temporary file, then a rename), owner-only,
 * and an existing file is only replaced with --force.
 */

import { basename, resolve } from "node:path";
import { exportSessionHtmlParts } from "../../render/html/export.js";
import { type PageCheckThread, pageCheckThreadFor } from "../../render/html/page-checks.js";
import { sanitize } from "../../render/preview.js";
import { formatCounts, type RedactionCounts } from "../../render/redact.js";
import { type CommandHandler, type CommandInput, requiredPositional, stringValue } from "../args.js";
import { openSession } from "../open.js";
import { checkOutput, outputFile, writeOutput } from "../output.js";

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
		// An OUT given that exists is refused before the session opens (s1m: seconds); the
		// default one, named after the session, once it is open.
		checkOutput(outputFile(stringValue(values, "out")), values.force === true);
		// A large session's records are checked in a second thread too, which starts reading
		// while the session opens (render/html/page-checks.ts).
		const checks = pageCheckThreadFor(location, redact);
		let page: Page;
		try {
			page = await makePage(input, location, redact, checks);
		} finally {
			checks?.stop();
		}
		writeOutput(io, page.output, page.parts, page.force);
		if (page.output !== undefined) io.out(`${sanitize(page.output)}\n`);
		const summary = formatCounts(page.redactions);
		if (summary !== "") io.err(`session-tree: redacted ${summary} (--no-redact keeps them)\n`);
	},
};

/** The page made, and where it goes. */
interface Page {
	output: string | undefined;
	force: boolean;
	parts: string[];
	redactions: RedactionCounts;
}

/** Opens the session at `location` and makes its page (in pieces: the page of a large session is never one string). */
async function makePage(
	{ values, io }: CommandInput,
	location: string,
	redact: boolean,
	checks: PageCheckThread | undefined,
): Promise<Page> {
	const session = await openSession(location, io, values.lenient === true);
	const leafGiven = stringValue(values, "leaf");
	// An unknown leaf fails before anything is written.
	const leafId = leafGiven === undefined ? undefined : session.resolveId(leafGiven);
	const output = outputFile(stringValue(values, "out") ?? defaultOutput(session.file, session.getSessionId()));
	const force = values.force === true;
	checkOutput(output, force);
	const options = { ...(leafId !== undefined ? { leafId } : {}), redact };
	const page = await exportSessionHtmlParts(session, options, { checks });
	return { output, force, parts: page.parts, redactions: page.redactions };
}
