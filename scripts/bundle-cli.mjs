#!/usr/bin/env node
/**
 * Bundles the command line into dist/bin/ (the `bin` of package.json): `session-tree.js` and
 * the chunks its commands load on demand.
 *
 * Why: Node 20 loads an ES module graph file by file. `session-tree ctx` reached about 40
 * modules, and resolving, reading and linking them cost more than the command's own work: it
 * started 1.6–1.75× slower than a bare `node -e 0` (issue 9 asks for 1.5×). esbuild's code
 * splitting keeps every command lazily loaded (the registry imports nothing, a command's code
 * is a chunk loaded when it runs) but turns the graph into a handful of files. The library
 * (`dist/index.js` and the subpath exports) stays tsc's output, module by module.
 *
 * The input is tsc's output (dist/cli/main.js), so the bundle is exactly the checked code.
 * Packages stay external (the dependencies and optional dependencies of package.json, such as
 * the database drivers): npm installs them, they load as they were published (some find files
 * next to their own modules), and only the commands that use them load them. The HTML page's
 * client script is read at run time next to the module that reads it, so it is copied next to
 * the chunks.
 *
 * Usage: node scripts/bundle-cli.mjs [DIST]   (default: dist)
 */

import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const dist = process.argv[2] ?? "dist";
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const packages = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})];
const out = join(dist, "bin");
rmSync(out, { recursive: true, force: true });
await build({
	entryPoints: { "session-tree": join(dist, "cli", "main.js") },
	outdir: out,
	bundle: true,
	splitting: true,
	format: "esm",
	platform: "node",
	target: "node20",
	chunkNames: "chunk-[hash]",
	external: packages,
	// tsc's output already has the shebang; esbuild keeps it on the entry.
	logLevel: "warning",
});
chmodSync(join(out, "session-tree.js"), 0o755);
const client = join(dist, "render", "html", "client.js");
if (existsSync(client)) copyFileSync(client, join(out, "client.js"));
