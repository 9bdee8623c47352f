/** `session-tree import` and `session-tree export`: other agents' histories in, ChatGPT and Open WebUI out. */

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { EXPORT_FORMATS, exportInputOf, exportValue } from "../../import/export.js";
import { claudeCodeJsonl, claudeCodeResumePoint, claudeCodeTranscript } from "../../import/export-claude-code.js";
import { IMPORT_FORMATS, type ImportReport, importSources, isImportFormat } from "../../import/index.js";
import type { ImportFormat } from "../../import/types.js";
import { countOf, sanitize } from "../../render/preview.js";
import { createProgress } from "../../render/progress.js";
import { formatCounts, type RedactionCounts, redactRecords } from "../../render/redact.js";
import { schemeOf } from "../../storage/locations.js";
import { defaultAgentDir, defaultSessionDir } from "../../storage/paths.js";
import { CliError, type CliIO, type CommandHandler, requiredPositional, stringValue, UsageError } from "../args.js";
import { dirOption } from "../dir-option.js";
import { openSession } from "../open.js";
import { checkOutput, outputFile, STDOUT_NAME, writeOutput } from "../output.js";

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
	const place = dirOption(dir);
	if (schemeOf(place) === undefined) mkdirSync(place, { recursive: true, mode: 0o700 });
	return place;
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
				`session-tree: warning: ${sanitize(session.location)}: ${countOf(problems.length, "tool call/result problem")} a provider would refuse in the context at the leaf: ${sanitize(first)}${more}; \`session-tree ctx --check\` lists them\n`,
			);
		}
		if (pending.length > 0) {
			io.err(
				`session-tree: note: ${sanitize(session.location)}: the source ends in a turn under way (${countOf(pending.length, "tool call")} without a result yet)\n`,
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
		`${count("appended")} appended${appendedRecords > 0 ? ` (${countOf(appendedRecords, "record")})` : ""}`,
		`${count("unchanged")} unchanged`,
	];
	if (report.skipped.length > 0) parts.push(`${report.skipped.length} skipped`);
	if (unpaired > 0) parts.push(`${unpaired} with tool call/result problems`);
	if (report.failures.length > 0) parts.push(`${countOf(report.failures.length, "source")} failed`);
	io.err(`session-tree: ${countOf(report.sessions.length, "session")}: ${parts.join(", ")}\n`);
}

/** Runs `session-tree import`; its name, options and help are in its spec (src/cli/specs/stores.ts). */
export const importCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const from = fromOption(stringValue(values, "from"));
		const dir = stringValue(values, "dir");
		const out = stringValue(values, "out");
		if (dir !== undefined && out !== undefined)
			throw new UsageError("give either --dir DIR or -o OUT, not both", "import");
		// `-o -` prints the session: it is written to a file of its own first, so that stdout
		// gets the very bytes `-o FILE.jsonl` would write.
		const scratch = out === STDOUT_NAME ? mkdtempSync(join(tmpdir(), "session-tree-import-")) : undefined;
		const target = scratch !== undefined ? join(scratch, "session.jsonl") : out;
		let report: ImportReport;
		try {
			const progress = createProgress(process.stderr, { label: "importing" });
			report = await importSources(positionals, {
				...(from !== undefined ? { from } : {}),
				...(dir !== undefined ? { dir: prepareDir(dir) } : {}),
				...(target !== undefined ? { out: schemeOf(target) === undefined ? resolve(target) : target } : {}),
				lenient: values.lenient === true,
				defaultDir: (cwd) => defaultSessionDir(resolve(cwd === "" ? process.cwd() : cwd), defaultAgentDir()),
				onProgress: (done, total) => progress.update(done, total),
			});
			progress.finish();
			if (scratch !== undefined && target !== undefined) {
				if (report.failures.length === 0) io.out(readFileSync(target, "utf8"));
			} else {
				for (const session of report.sessions) io.out(`${sanitize(session.location)}\n`);
			}
		} finally {
			if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
		}
		reportImport(io, report);
		if (report.failures.length > 0) {
			throw new CliError(`${countOf(report.failures.length, "source")} not imported (nothing of them was written)`);
		}
	},
};

/** Runs `session-tree export`; its name, options and help are in its spec (src/cli/specs/stores.ts). */
export const exportCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const to = stringValue(values, "to");
		const format = EXPORT_FORMATS.find((known) => known === to);
		if (format === undefined) {
			throw new UsageError(
				to === undefined
					? `missing --to ${EXPORT_FORMATS.join("|")}`
					: `cannot export to ${JSON.stringify(to)} (use ${EXPORT_FORMATS.join(", ")})`,
				"export",
			);
		}
		const out = outputFile(stringValue(values, "out"));
		const force = values.force === true;
		checkOutput(out, force);
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		try {
			const input = await exportInputOf(session);
			let value: unknown;
			if (format === "claude-code") {
				const transcript = claudeCodeTranscript(input);
				value = transcript.lines;
				const resumes = claudeCodeResumePoint(transcript.lines);
				// Claude Code resumes at the newest end of a branch: a leaf with entries below it cannot be its active point.
				if (transcript.leafUuid !== undefined && resumes !== transcript.leafUuid) {
					io.err(
						`session-tree: note: the leaf has later entries below it; \`claude --resume\` continues at line ${resumes ?? "(none)"}, not at the leaf's line ${transcript.leafUuid}\n`,
					);
				}
			} else value = exportValue(input, format);
			// An export is for another application, often on another machine: secrets are replaced
			// as in `md` and `html` (render/redact.ts) unless --no-redact.
			let counts: RedactionCounts = {};
			let shared = value;
			if (values["no-redact"] !== true && typeof value === "object" && value !== null) {
				const redacted = redactRecords([value]);
				shared = redacted.records[0];
				counts = redacted.counts;
			}
			const text =
				format === "claude-code" ? claudeCodeJsonl(shared as unknown[]) : `${JSON.stringify(shared, null, 2)}\n`;
			writeOutput(io, out, text, force);
			const summary = formatCounts(counts);
			if (summary !== "") io.err(`session-tree: redacted ${summary} (--no-redact keeps them)\n`);
		} finally {
			await session.close();
		}
	},
};
