/**
 * The script of the sessions and search pages: `serve-client.js`, the bundle
 * scripts/bundle-serve-client.mjs makes of src/serve/client/ next to the compiled module
 * (dist/serve/, and dist/bin/ for the bundled command line), read once.
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { SessionTreeError } from "../core/errors.js";

let cached: Promise<string> | undefined;

/**
 * The script's text.
 * @throws SessionTreeError IO_ERROR when the bundle is missing (the build did not make it)
 */
export function loadServeScript(): Promise<string> {
	const url = new URL("./serve-client.js", import.meta.url);
	cached ??= readFile(url, "utf8").catch((cause: unknown) => {
		cached = undefined;
		throw new SessionTreeError(
			"IO_ERROR",
			"the pages' script is missing (build it: `npm run build` runs scripts/bundle-serve-client.mjs)",
			{ file: fileURLToPath(url) },
			{ cause },
		);
	});
	return cached;
}
