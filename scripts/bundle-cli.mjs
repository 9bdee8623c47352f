#!/usr/bin/env node
/**
 * Bundles the command line into dist/bin/ (the `bin` of package.json): `session-tree.js` and
 * the chunks its commands load on demand.
 *
 * Why: Node 20 loads an ES module graph file by file, and each file costs a resolution, reads
 * through the thread pool, a compilation and linking. `session-tree ctx` reached about 40
 * modules and started 1.6–1.75× slower than a bare `node -e 0` (issue 9 asks for 1.5×).
 * Commands must stay lazily loaded (the registry imports nothing; a command's code is loaded
 * when it runs), so the bundle is split, and the split is chosen by hand: Rollup's
 * `manualChunks` puts what every command needs into two chunks,
 *
 * - `cli`: dispatch, argument parsing, the registry, the specs, the table of loaders and help
 *   (all that `--version` and `--help` load), and the typed error;
 * - `runtime`: the core, the stores but the databases', the session facade, the CLI's opener and
 *   the text rendering basics (what every command that reads a session loads);
 *
 * and lets Rollup group the rest (each command, the SQL stores, the importers, the HTML page,
 * the terminal browser) by what imports it. `ctx` then reads 6 files instead of 40 (esbuild's
 * automatic splitting made 20, and was 10 ms slower to start). See docs/performance.md.
 *
 * The input is tsc's output (dist/cli/main.js), so the bundle is exactly the checked code.
 * Packages stay external (the dependencies and optional dependencies of package.json, such as
 * the database drivers): npm installs them, they load as they were published, and only the
 * commands that use them load them. The HTML page's client script (and `serve`'s pages' script)
 * is read at run time next to the module that reads it, so it is copied next to the chunks.
 *
 * Usage: node scripts/bundle-cli.mjs [DIST]   (default: dist)
 */

import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { rollup } from "rollup";

const dist = resolve(process.argv[2] ?? "dist");
const out = join(dist, "bin");
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const packages = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.optionalDependencies ?? {})];

/** Modules of the `cli` chunk (paths below DIST, without `.js`). */
const CLI =
	/^[\\/](cli[\\/](args|terminal|run|registry|loaders|help|version|specs[\\/][^\\/]+)|core[\\/](errors|mask|validate|nesting)|render[\\/]sanitize)\.js$/;
/**
 * Modules of the `runtime` chunk: the core, the stores but the SQL ones, the session, the opener, text basics.
 * Not storage/batches (the records of `copy` and `import` in batches) nor storage/line-chunks (the
 * second thread of `tree` and `html`, which loads node:worker_threads): only those commands load them.
 */
const RUNTIME =
	/^[\\/](core[\\/][^\\/]+|storage[\\/](?!batches\.|line-chunks)[^\\/]+|session[^\\/]*|cli[\\/]open|render[\\/](terminal|color|preview|text-width|context-text))\.js$/;

rmSync(out, { recursive: true, force: true });
const bundle = await rollup({
	// The worker of `tree`'s previews (src/cli/tree-previews.ts) is loaded by its URL beside the chunk that starts it.
	input: {
		"session-tree": join(dist, "cli", "main.js"),
		"tree-previews-worker": join(dist, "cli", "tree-previews-worker.js"),
		// And that of `html`'s checks (src/render/html/page-checks.ts).
		"page-checks-worker": join(dist, "render", "html", "page-checks-worker.js"),
	},
	external: (id) => id.startsWith("node:") || packages.some((name) => id === name || id.startsWith(`${name}/`)),
	onwarn(warning, warn) {
		// The core's modules import each other in cycles that ES modules resolve (types and
		// functions only, nothing used at load time); Rollup notes each one.
		if (warning.code !== "CIRCULAR_DEPENDENCY") warn(warning);
	},
});
await bundle.write({
	dir: out,
	format: "es",
	entryFileNames: "[name].js",
	chunkFileNames: "[name]-[hash].js",
	manualChunks: (id) => {
		if (!id.startsWith(dist)) return undefined;
		// Matched below DIST only: `session[^/]*` must take dist/session*.js, not
		// dist/mcp/sessions.js or dist/serve/session-page.js (which pulled the MCP SDK and zod
		// into every command's start).
		const path = id.slice(dist.length);
		if (CLI.test(path)) return "cli";
		return RUNTIME.test(path) ? "runtime" : undefined;
	},
});
await bundle.close();
chmodSync(join(out, "session-tree.js"), 0o755);
const client = join(dist, "render", "html", "client.js");
if (existsSync(client)) copyFileSync(client, join(out, "client.js"));
// The script of `serve`'s sessions and search pages, read the same way (src/serve/client-script.ts).
const serveClient = join(dist, "serve", "serve-client.js");
if (existsSync(serveClient)) copyFileSync(serveClient, join(out, "serve-client.js"));
