/**
 * The bundled command line (scripts/bundle-cli.mjs): what every command loads at start-up
 * (the entry, the `cli` chunk and the `runtime` chunk) imports no package, only Node's own
 * modules and other chunks. A package there is loaded by every command: the MCP SDK and zod
 * once were (a `session[^/]*` pattern took dist/mcp/sessions.js into the runtime), and
 * `session-tree ctx` started in 3× the time of `node -e 0` instead of 1.6×. And every module a
 * chunk loads by its URL (the workers of `tree` and `html`, the pages' clients) is beside it:
 * a worker that is not there is not an error, its command only runs on one thread. And
 * `browse` draws its first frame before pi-tui's screen modules are loaded (80 ms of its start:
 * src/cli/browse/first-frame.ts): no chunk it loads before that imports them.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { BIN } from "./helpers.js";

/** The specifiers of a chunk's static imports (`import … from "x"` and `import "x"`). */
function staticImports(code: string): string[] {
	const found: string[] = [];
	for (const match of code.matchAll(/^import\s+(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
		if (match[1]) found.push(match[1]);
	}
	return found;
}

test("the chunks every command loads import no package, only node: modules and chunks", () => {
	const bin = dirname(BIN);
	const chunks = readdirSync(bin).filter((name) => /^(session-tree|cli-[\w-]+|runtime-[\w-]+)\.js$/.test(name));
	assert.ok(
		chunks.some((name) => name.startsWith("runtime-")),
		`a runtime chunk in ${bin}: ${chunks.join(", ")}`,
	);
	assert.ok(
		chunks.some((name) => name.startsWith("cli-")),
		`a cli chunk in ${bin}`,
	);
	for (const name of chunks) {
		const imports = staticImports(readFileSync(join(bin, name), "utf8"));
		const packages = imports.filter((specifier) => !specifier.startsWith("node:") && !specifier.startsWith("./"));
		assert.deepEqual(packages, [], `${name} imports packages at start-up`);
	}
});

test("staticImports finds both forms of import", () => {
	const code =
		"import { a as b } from './runtime-x.js';\nimport 'node:fs';\nimport '@scope/pkg/types.js';\nconst x = 1;\n";
	assert.deepEqual(staticImports(code), ["./runtime-x.js", "node:fs", "@scope/pkg/types.js"]);
});

test("every module a chunk loads by its URL beside it (the workers, the page's clients) is there", () => {
	const bin = dirname(BIN);
	const beside = new Set<string>();
	for (const name of readdirSync(bin).filter((file) => file.endsWith(".js"))) {
		const code = readFileSync(join(bin, name), "utf8");
		for (const match of code.matchAll(/new URL\("\.\/([^"/]+\.js)", import\.meta\.url\)/g))
			beside.add(match[1] as string);
	}
	// The two workers (tree's previews, html's checks) at least.
	for (const worker of ["tree-previews-worker.js", "page-checks-worker.js"]) {
		assert.ok(beside.has(worker), `a chunk starts ${worker}`);
	}
	const present = new Set(readdirSync(bin));
	for (const file of beside) assert.ok(present.has(file), `${file} is in ${bin}`);
});

test("browse's chunk, and what it imports, leave pi-tui's screen modules (tui.js, utils.js) to after the first frame", () => {
	const bin = dirname(BIN);
	const names = readdirSync(bin);
	const browse = names.find((name) => /^browse-[\w-]+\.js$/.test(name));
	assert.ok(browse, `a browse chunk in ${bin}`);
	// Every chunk loaded with it (static imports, followed), and every package they import.
	const loaded = new Set<string>([browse]);
	const packages = new Set<string>();
	for (const name of loaded) {
		for (const specifier of staticImports(readFileSync(join(bin, name), "utf8"))) {
			if (specifier.startsWith("./")) loaded.add(specifier.slice(2));
			else if (!specifier.startsWith("node:")) packages.add(specifier);
		}
	}
	const screen = [...packages].filter((specifier) => /^@mariozechner\/pi-tui\/dist\/(tui|utils)\.js$/.test(specifier));
	assert.deepEqual(screen, [], `loaded with ${browse}: ${[...loaded].join(", ")}`);
	// The screen itself is loaded later, by the browse chunk, and does import them.
	const later = [...(readFileSync(join(bin, browse), "utf8").matchAll(/import\('\.\/([^']+\.js)'\)/g) ?? [])].map(
		(match) => match[1] as string,
	);
	assert.ok(
		later.some((name) =>
			staticImports(readFileSync(join(bin, name), "utf8")).includes("@mariozechner/pi-tui/dist/tui.js"),
		),
		`a chunk ${browse} loads later imports pi-tui's tui.js: ${later.join(", ")}`,
	);
});
