#!/usr/bin/env node
/**
 * Runs `npm run build` only when dist/ is missing or older than what it is built from, so that
 * `npm run demo` after a build starts at once instead of rebuilding everything (about 20 s).
 *
 * Why the bundled executable is the mark: the build writes dist/bin/session-tree.js last
 * (scripts/bundle-cli.mjs after both tsc runs and the client bundle), so a build that failed
 * halfway leaves it older than the sources and the next run builds again. The inputs are every
 * file under src/ and scripts/, the tsconfig files and package.json (its build script).
 *
 * Usage: node scripts/build-if-stale.mjs
 */

import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const mark = join(root, "dist", "bin", "session-tree.js");

/** The newest mtime (ms) of the files under `dir`, without recursion (a stack of folders). */
function newestUnder(dir) {
	let newest = 0;
	const folders = [dir];
	while (folders.length > 0) {
		const folder = folders.pop();
		for (const entry of readdirSync(folder, { withFileTypes: true })) {
			const path = join(folder, entry.name);
			if (entry.isDirectory()) folders.push(path);
			else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
		}
	}
	return newest;
}

function mtimeOr0(path) {
	try {
		return statSync(path).mtimeMs;
	} catch {
		return 0;
	}
}

const inputs = Math.max(
	newestUnder(join(root, "src")),
	newestUnder(join(root, "scripts")),
	...["package.json", "tsconfig.json", "tsconfig.base.json"].map((name) => mtimeOr0(join(root, name))),
);
const built = mtimeOr0(mark);
if (built === 0 || built < inputs) {
	process.stderr.write(built === 0 ? "building (no dist/ yet)…\n" : "building (src/ changed since the last build)…\n");
	const npm = process.platform === "win32" ? "npm.cmd" : "npm";
	const result = spawnSync(npm, ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
	if (result.error) throw result.error;
	process.exit(result.status ?? 1);
}
