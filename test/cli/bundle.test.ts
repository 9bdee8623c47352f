/**
 * The bundled command line (scripts/bundle-cli.mjs): what every command loads at start-up
 * (the entry, the `cli` chunk and the `runtime` chunk) imports no package, only Node's own
 * modules and other chunks. A package there is loaded by every command: the MCP SDK and zod
 * once were (a `session[^/]*` pattern took dist/mcp/sessions.js into the runtime), and
 * `session-tree ctx` started in 3× the time of `node -e 0` instead of 1.6×.
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
