/**
 * `session-tree html`: a whole session as one self-contained, offline HTML file. Never writes
 * to the session; the page is written atomically (a temporary file, then a rename), owner-only,
 * and an existing file is only replaced with --force.
 */

import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { SessionTreeError } from "../../core/errors.js";
import { exportSessionHtml } from "../../render/html/export.js";
import { formatCounts } from "../../render/redact.js";
import { type CommandHandler, requiredPositional, stringValue } from "../args.js";
import { openSession } from "../open.js";

/** The default output file: FILE's name with `.html` for `.jsonl`, in the current directory. */
function defaultOutput(file: string | undefined, sessionId: string): string {
	const name = file === undefined ? sessionId : basename(file).replace(/\.jsonl$/i, "");
	return resolve(`${name}.html`);
}

function exists(file: string): SessionTreeError {
	return new SessionTreeError("FILE_EXISTS", "the file exists (--force replaces it)", { file });
}

/** Error codes of a file system that has no hard links. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK"]);

/**
 * Writes `text` to a new file `file` (mode 0600) atomically: a temporary file beside it,
 * flushed, then moved into place. Without `force` an existing file is refused (FILE_EXISTS),
 * also one that appears meanwhile: the temporary file is hard-linked to the name, which fails
 * if the name is taken.
 */
export function writeNewFile(file: string, text: string, force: boolean): void {
	if (!force && existsSync(file)) throw exists(file);
	const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
	const fd = openSync(temp, "wx", 0o600);
	try {
		try {
			const bytes = Buffer.from(text, "utf8");
			for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		if (force) {
			renameSync(temp, file);
			return;
		}
		try {
			linkSync(temp, file);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			if (code === "EEXIST") throw exists(file);
			if (code === undefined || !NO_LINKS.has(code)) throw error;
			if (existsSync(file)) throw exists(file);
			renameSync(temp, file);
		}
	} finally {
		if (existsSync(temp)) unlinkSync(temp);
	}
}

/** Runs `session-tree html`; its name, options and help are in the registry (src/cli/registry.ts). */
export const htmlCommand: CommandHandler = {
	async run({ values, positionals, io }) {
		const session = await openSession(requiredPositional(positionals, 0), io, values.lenient === true);
		const leafGiven = stringValue(values, "leaf");
		// An unknown leaf fails before anything is written.
		const leafId = leafGiven === undefined ? undefined : session.resolveId(leafGiven);
		const given = stringValue(values, "out");
		const toStdout = given === "-";
		const output = toStdout
			? undefined
			: given === undefined
				? defaultOutput(session.file, session.getSessionId())
				: resolve(given);
		const force = values.force === true;
		if (output !== undefined && !force && existsSync(output)) throw exists(output);
		const keep = values["no-redact"] === true;
		const page = await exportSessionHtml(session, { ...(leafId !== undefined ? { leafId } : {}), redact: !keep });
		if (output === undefined) io.out(page.html);
		else {
			writeNewFile(output, page.html, force);
			io.out(`${output}\n`);
		}
		const summary = formatCounts(page.redactions);
		if (summary !== "") io.err(`session-tree: redacted ${summary} (--no-redact keeps them)\n`);
	},
};
