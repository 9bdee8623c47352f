/** `--dir DIR`: a directory of sessions (made when missing) or a store of many sessions. */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { schemeOf } from "../storage/locations.js";
import { CliError } from "./args.js";

/**
 * The place `--dir` names: a store location as given, or the path made absolute; refused when
 * it is a file (else making the directory fails with Node's `EEXIST`, which says nothing).
 * @throws CliError for a path that exists and is not a directory
 */
export function dirOption(dir: string): string {
	if (schemeOf(dir) !== undefined) return dir;
	const path = resolve(dir);
	const stats = statSync(path, { throwIfNoEntry: false });
	if (stats && !stats.isDirectory())
		throw new CliError(`${path}: not a directory (--dir takes a directory or a store)`);
	return path;
}
