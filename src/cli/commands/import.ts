/** `session-tree import` and `session-tree export`: other agents' histories in, ChatGPT and Open WebUI out. */

import { existsSync, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { exportInputOf, exportValue } from "../../import/export.js";
import { IMPORT_FORMATS, type ImportReport, importSources, isImportFormat } from "../../import/index.js";
import type { ImportFormat } from "../../import/types.js";
import { sanitize } from "../../render/preview.js";
import { createProgress } from "../../render/progress.js";
import { formatCounts, type RedactionCounts, redactRecords } from "../../render/redact.js";
import { schemeOf } from "../../storage/locations.js";
import { defaultAgentDir, defaultSessionDir } from "../../storage/paths.js";
import { CliError, type CliIO, type CommandHandler, requiredPositional, stringValue, UsageError } from "../args.js";
import { openSession } from "../open.js";
import { writeNewFile } from "../output.js";

/** The format `--from` names, checked. */
function fromOption(value: string | undefined): ImportFormat | undefined {
	if (value === undefined) return undefined;
	if (!isImportFormat(value)) {
		throw new UsageError(`unknown format ${JSON.stringify(value)} (use one of ${IMPORT_FORMATS.join(", ")})`, "import");
	}
	return value;
}

/** `--dir`: a directory (made absolute, and made if missing) or a store of many sessions, as given. */
function prepareDir(dir: string): string {
	if (schemeOf(dir) !== undefined) return dir;
	const path = resolve(dir);
	const stats = statSync(path, { throwIfNoEntry: false });
	if (stats && !stats.isDirectory())
		throw new CliError(`${path}: not a directory (--dir takes a directory or a store)`);
	if (!stats) mkdirSync(path, { recursive: true, mode: 0o700 });
	return path;
}

function plural(count: number, word: string): string {
	return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** The summary on stderr: every skip and failure, then the counts. */
export function reportImport(io: CliIO, report: ImportReport): void {
	for (const skip of report.skipped) {
		const where = skip.where === "" ? "" : `${skip.where}: `;
		io.err(`session-tree: skipped: ${sanitize(skip.source)}: ${sanitize(where + skip.reason)}\n`);
	}
	let unpaired = 0;
	for (const session of report.sessions) {
		const { problems, pending } = session.toolPairing;
		if (problems.length > 0) {
			unpaired++;
			const first = problems[0]?.message ?? "";
			const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
			io.err(
				`session-tree: warning: ${sanitize(session.location)}: ${plural(problems.length, "tool call/result problem")} a provider would refuse in the context at the leaf: ${sanitize(first)}${more}; \`session-tree ctx --check\` lists them\n`,
			);
		}
		if (pending.length > 0) {
			io.err(
				`session-tree: note: ${sanitize(session.location)}: the source ends in a turn under way (${plural(pending.length, "tool call")} without a result yet)\n`,
			);
		}
	}
	for (const failure of report.failures) {
		const message = failure.error.message;
		// Errors of the import layer name the source already.
		const text = message.includes(failure.source) ? message : `${failure.source}: ${message}`;
		io.err(`session-tree: ${sanitize(text)}\n`);
	}
	const count = (status: string) => report.sessions.filter((session) => session.status === status).length;
	const appendedRecords = report.sessions
		.filter((session) => session.status === "appended")
		.reduce((sum, session) => sum + session.records, 0);
	const parts = [
		`${count("written")} written`,
		`${count("appended")} appended${appendedRecords > 0 ? ` (${plural(appendedRecords, "record")})` : ""}`,
		`${count("unchanged")} unchanged`,
	];
	if (report.skipped.length > 0) parts.push(`${report.skipped.length} skipped`);
	if (unpaired > 0) parts.push(`${unpaired} with tool call/result problems`);
	if (report.failures.length > 0) parts.push(`${plural(report.failures.length, "source")} failed`);
	io.err(`session-tree: ${plural(report.sessions.length, "session")}: ${parts.join(", ")}\n`);
}

/** Runs `session-tree import`; its name, options and help are in the registry (src/cli/registry.ts). */
export const importCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const from = fromOption(stringValue(values, "from"));
		const dir = stringValue(values, "dir");
		const out = stringValue(values, "out");
		if (dir !== undefined && out !== undefined)
			throw new UsageError("give either --dir DIR or -o OUT, not both", "import");
		const progress = createProgress(process.stderr, { label: "importing" });
		const report = await importSources(positionals, {
			...(from !== undefined ? { from } : {}),
			...(dir !== undefined ? { dir: prepareDir(dir) } : {}),
			...(out !== undefined ? { out: schemeOf(out) === undefined ? resolve(out) : out } : {}),
			lenient: values.lenient === true,
			defaultDir: (cwd) => defaultSessionDir(resolve(cwd === "" ? process.cwd() : cwd), defaultAgentDir()),
			onProgress: (done, total) => progress.update(done, total),
		});
		progress.finish();
		for (const session of report.sessions) io.out(`${session.location}\n`);
		reportImport(io, report);
		if (report.failures.length > 0) {
			throw new CliError(`${plural(report.failures.length, "source")} not imported (nothing of them was written)`);
		}
	},
};

/** Runs `session-tree export`; its name, options and help are in the registry (src/cli/registry.ts). */
export const exportCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const to = stringValue(values, "to");
		if (to !== "chatgpt" && to !== "openwebui") {
			throw new UsageError(
				to === undefined
					? "missing --to chatgpt|openwebui"
					: `cannot export to ${JSON.stringify(to)} (use chatgpt or openwebui)`,
				"export",
			);
		}
		const out = stringValue(values, "out");
		if (out !== undefined && existsSync(out) && values.force !== true) {
			throw new CliError(`${out}: exists already (--force replaces it)`);
		}
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		try {
			const value = exportValue(await exportInputOf(session), to);
			// An export is for another application, often on another machine: secrets are replaced
			// as in `md` and `html` (render/redact.ts) unless --no-redact.
			let counts: RedactionCounts = {};
			let shared = value;
			if (values["no-redact"] !== true && typeof value === "object" && value !== null) {
				const redacted = redactRecords([value]);
				shared = redacted.records[0];
				counts = redacted.counts;
			}
			const text = `${JSON.stringify(shared, null, 2)}\n`;
			if (out === undefined) io.out(text);
			else writeNewFile(out, text, values.force === true);
			const summary = formatCounts(counts);
			if (summary !== "") io.err(`session-tree: redacted ${summary} (--no-redact keeps them)\n`);
		} finally {
			await session.close();
		}
	},
};
