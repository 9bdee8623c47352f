/** The package version, read from package.json next to the build output. */

import { readFileSync } from "node:fs";
import { isObject } from "../core/validate.js";

/** The `version` field of this package's package.json (`src/cli`, `dist/cli` and the bundled CLI's `dist/bin` all sit two levels below it). */
export function packageVersion(): string {
	const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
	const manifest: unknown = JSON.parse(text);
	const version = isObject(manifest) ? manifest.version : undefined;
	return typeof version === "string" ? version : "unknown";
}
