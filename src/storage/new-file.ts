/**
 * Files that appear under their name only when they are complete: written under a hidden
 * temporary name beside it, then given the name, never over a file that holds it.
 */

import { existsSync, linkSync, renameSync, unlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { errorCode } from "../core/validate.js";

/** Error codes of a file system that has no hard links. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK"]);

/**
 * The name a copy of the session file `file` is written under until it is complete:
 * `.NAME.partial` beside it. A dot file that does not end in `.jsonl`, so neither `ls`, nor a
 * directory collection, nor pi lists it; in the same directory, so the move to its name is
 * one link on the same file system.
 */
export function partialName(file: string): string {
	return join(dirname(file), `.${basename(file)}.partial`);
}

/**
 * Gives the complete file `temp` the name `file`, never over a file there: a hard link to the
 * name (which fails if the name is taken, also by a file that appeared a moment ago), then the
 * temporary name removed. On a file system without hard links, a rename after a check.
 * @returns false, with nothing moved, when `file` exists
 * @throws the file system's error (no permission, `temp` missing)
 */
export function moveToNewName(temp: string, file: string): boolean {
	try {
		linkSync(temp, file);
	} catch (error) {
		const code = errorCode(error);
		if (code === "EEXIST") return false;
		if (typeof code !== "string" || !NO_LINKS.has(code)) throw error;
		if (existsSync(file)) return false;
		renameSync(temp, file);
		return true;
	}
	unlinkSync(temp);
	return true;
}
