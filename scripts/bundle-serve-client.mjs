#!/usr/bin/env node
/**
 * Bundles the script of `session-tree serve`'s sessions and search pages
 * (src/serve/client/main.ts) into one IIFE, OUTDIR/serve-client.js, which src/serve/pages.ts
 * inlines (allowed by its hash). As scripts/bundle-client.mjs does for the export's page: it
 * fails when the output names a `node:` module or holds text that would end the inline script.
 *
 *   node scripts/bundle-serve-client.mjs OUTDIR
 *
 * OUTDIR is where the compiled src/serve/ lives: dist/serve (npm run build),
 * dist-test/src/serve (npm run build:test), bench/data/.build/src/serve (npm run bench).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const outDir = process.argv[2];
if (!outDir) {
	console.error("usage: node scripts/bundle-serve-client.mjs OUTDIR");
	process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(resolve(outDir), "serve-client.js");
mkdirSync(dirname(outfile), { recursive: true });
const result = await build({
	entryPoints: [join(root, "src/serve/client/main.ts")],
	bundle: true,
	platform: "browser",
	format: "iife",
	target: "chrome110",
	minify: true,
	charset: "ascii",
	legalComments: "none",
	write: false,
	logLevel: "warning",
});
const code = result.outputFiles[0]?.text;
if (code === undefined) throw new Error("esbuild wrote nothing");
if (/["'`]node:/.test(code) || /<\/script/i.test(code) || (code.includes("<!--") && /<script[\s/>]/i.test(code))) {
	console.error("bundle-serve-client: the bundle cannot be inlined (a node: module, </script, or <!-- with <script)");
	process.exit(1);
}
writeFileSync(outfile, code);
