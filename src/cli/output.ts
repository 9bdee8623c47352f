/**
 * Files the commands write besides sessions (an HTML page, an export): written atomically (a
 * temporary file beside the target, flushed, then moved into place), owner-only, and an
 * existing file is replaced only when asked.
 */

import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { describeSystemError, SessionTreeError } from "../core/errors.js";
import { moveToNewName } from "../storage/new-file.js";
import type { CliIO } from "./args.js";

/** The error for an output file that exists and may not be replaced. */
export function fileExistsError(file: string): SessionTreeError {
	return new SessionTreeError("FILE_EXISTS", "the file exists (--force replaces it)", { file });
}

/**
 * Writes `text` (or its pieces, one after the other, never joined) to a new file `file` (mode
 * 0600) atomically: a temporary file beside it, flushed, then moved into place. Without `force`
 * an existing file is refused (FILE_EXISTS), also one that appears meanwhile: the temporary
 * file is hard-linked to the name, which fails if the name is taken.
 * @throws SessionTreeError FILE_EXISTS, or IO_ERROR naming `file` (a missing directory, no permission)
 */
export function writeNewFile(file: string, text: string | readonly string[], force: boolean): void {
	try {
		writeAtomically(file, text, force);
	} catch (error) {
		if (error instanceof SessionTreeError) throw error;
		// Named by the file asked for, not by the temporary one Node's message would show.
		throw new SessionTreeError("IO_ERROR", `cannot write: ${describeSystemError(error)}`, { file }, { cause: error });
	}
}

function writeAtomically(file: string, text: string | readonly string[], force: boolean): void {
	if (!force && existsSync(file)) throw fileExistsError(file);
	const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
	const fd = openSync(temp, "wx", 0o600);
	try {
		try {
			for (const part of typeof text === "string" ? [text] : text) {
				const bytes = Buffer.from(part, "utf8");
				for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
			}
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		if (force) renameSync(temp, file);
		else if (!moveToNewName(temp, file)) throw fileExistsError(file);
	} finally {
		if (existsSync(temp)) unlinkSync(temp);
	}
}

/** The name `-o` takes for standard output, in every command that writes a file. */
export const STDOUT_NAME = "-";

/**
 * The file a command's `-o OUT` names, made absolute, or undefined for standard output
 * (`-o -`). Commands whose output has no default file pass undefined for no `-o`: stdout too.
 * The one rule of `-o` for every command that writes a file.
 */
export function outputFile(given: string | undefined): string | undefined {
	return given === undefined || given === STDOUT_NAME ? undefined : resolve(given);
}

/**
 * Refuses an output file that exists (without `force`), before a command does its work: a
 * long export fails at once, not after it. Standard output (undefined) is never refused.
 * @throws SessionTreeError FILE_EXISTS
 */
export function checkOutput(file: string | undefined, force: boolean): void {
	if (file !== undefined && !force && existsSync(file)) throw fileExistsError(file);
}

/**
 * Writes a command's output: to standard output for undefined, else to `file` as
 * {@link writeNewFile} does (atomic, owner-only, an existing file only with `force`).
 */
export function writeOutput(
	io: CliIO,
	file: string | undefined,
	text: string | readonly string[],
	force: boolean,
): void {
	if (file === undefined) for (const part of typeof text === "string" ? [text] : text) io.out(part);
	else writeNewFile(file, text, force);
}
