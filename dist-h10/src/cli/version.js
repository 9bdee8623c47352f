/** The package version, read from package.json next to the build output. */
import { readFileSync } from "node:fs";
/** The `version` field of this package's package.json (`src/cli` and `dist/cli` sit two levels below it). */
export function packageVersion() {
    const text = readFileSync(new URL("../../package.json", import.meta.url), "utf8");
    const version = JSON.parse(text).version;
    return typeof version === "string" ? version : "unknown";
}
//# sourceMappingURL=version.js.map