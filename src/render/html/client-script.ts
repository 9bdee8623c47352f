/**
 * The HTML export's client script: `client.js`, the bundle scripts/bundle-client.mjs writes
 * next to the compiled page.js (dist/render/html/ after `npm run build`), read once.
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { SessionTreeError } from "../../core/errors.js";

let cached: Promise<string> | undefined;

/**
 * The client script's text.
 * @throws SessionTreeError IO_ERROR when the bundle is missing (the build did not make it) or unreadable
 */
export function loadClientScript(): Promise<string> {
	cached ??= read().catch((error: unknown) => {
		cached = undefined;
		throw error;
	});
	return cached;
}

async function read(): Promise<string> {
	const url = new URL("./client.js", import.meta.url);
	try {
		return await readFile(url, "utf8");
	} catch (cause) {
		const file = fileURLToPath(url);
		const missing = (cause as NodeJS.ErrnoException).code === "ENOENT";
		const message = missing
			? "the HTML export's client script is missing (build it: `npm run build` runs scripts/bundle-client.mjs)"
			: "the HTML export's client script cannot be read";
		throw new SessionTreeError("IO_ERROR", message, { file }, { cause });
	}
}
