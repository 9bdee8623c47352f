#!/usr/bin/env node
/**
 * Bundles the HTML export's browser code (src/render/html/client/main.ts and what it imports
 * of the core and the renderers) into one IIFE script, OUTDIR/client.js, which
 * src/render/html/page.ts inlines into every exported page.
 *
 *   node scripts/bundle-client.mjs OUTDIR
 *
 * OUTDIR is where the compiled page.js lives: dist/render/html (npm run build),
 * dist-test/src/render/html (npm run build:test), bench/data/.build/src/render/html (npm run
 * bench). The bundle must be inlinable and offline: it fails when the output names a `node:`
 * module, or holds text that would end an inline <script> early: `</script`, or `<!--` with a
 * `<script` after it (which would make the HTML parser skip the next `</script>`).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const outDir = process.argv[2];
if (!outDir) {
	console.error("usage: node scripts/bundle-client.mjs OUTDIR");
	process.exit(2);
}
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(resolve(outDir), "client.js");
mkdirSync(dirname(outfile), { recursive: true });

const result = await build({
	entryPoints: [join(root, "src/render/html/client/main.ts")],
	bundle: true,
	platform: "browser",
	format: "iife",
	target: "chrome110",
	minify: true,
	sourcemap: false,
	charset: "ascii",
	legalComments: "none",
	write: false,
	logLevel: "warning",
});
const file = result.outputFiles[0];
if (!file) throw new Error("esbuild wrote nothing");
const code = file.text;
const problems = [];
if (/["'`]node:/.test(code)) problems.push('it imports a "node:" module');
if (/<\/script/i.test(code)) problems.push("it holds </script, which would end the inline script");
if (code.includes("<!--") && /<script[\s/>]/i.test(code)) problems.push("it holds <!-- and <script");
if (problems.length > 0) {
	console.error(`bundle-client: the client bundle cannot be inlined: ${problems.join("; ")}`);
	process.exit(1);
}
writeFileSync(outfile, code);
