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
	const out = named(file, () => NewFile.open(file, force));
	try {
		named(file, () => {
			for (const part of typeof text === "string" ? [text] : text) out.write(part);
			out.commit();
		});
	} finally {
		out.discard();
	}
}

/**
 * {@link writeNewFile} of the parts `produce` writes as it makes them (a large page is never
 * held whole): the file appears, whole, once `produce` resolved; when it rejects, its error is
 * thrown and nothing is left behind.
 * @throws SessionTreeError as {@link writeNewFile}; or what `produce` throws
 */
export async function writeNewFileFrom(
	file: string,
	force: boolean,
	produce: (write: (part: string) => void) => Promise<void>,
): Promise<void> {
	const out = named(file, () => NewFile.open(file, force));
	try {
		await produce((part) => named(file, () => out.write(part)));
		named(file, () => out.commit());
	} finally {
		out.discard();
	}
}

/** `run`, its system errors named by the file asked for, not by the temporary one Node's message would show. */
function named<T>(file: string, run: () => T): T {
	try {
		return run();
	} catch (error) {
		if (error instanceof SessionTreeError) throw error;
		throw new SessionTreeError("IO_ERROR", `cannot write: ${describeSystemError(error)}`, { file }, { cause: error });
	}
}

/** A new file being written: a temporary file beside `file` until {@link NewFile.commit} moves it there. */
class NewFile {
	private open = true;

	private constructor(
		private readonly file: string,
		private readonly force: boolean,
		private readonly temp: string,
		private readonly fd: number,
	) {}

	static open(file: string, force: boolean): NewFile {
		if (!force && existsSync(file)) throw fileExistsError(file);
		const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
		return new NewFile(file, force, temp, openSync(temp, "wx", 0o600));
	}

	write(part: string): void {
		const bytes = Buffer.from(part, "utf8");
		for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at, bytes.length - at);
	}

	/** Flushes the file and moves it to its name (without `force`, only if the name is free). */
	commit(): void {
		fsyncSync(this.fd);
		this.close();
		if (this.force) renameSync(this.temp, this.file);
		else if (!moveToNewName(this.temp, this.file)) throw fileExistsError(this.file);
	}

	/** Closes the file if it is open and removes the temporary file if it is still there. */
	discard(): void {
		this.close();
		if (existsSync(this.temp)) unlinkSync(this.temp);
	}

	private close(): void {
		if (!this.open) return;
		this.open = false;
		closeSync(this.fd);
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
