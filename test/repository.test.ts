/**
 * The repository tests itself: nothing it tracks reaches outside it. The pi fixtures and the
 * import samples live in test/fixtures/ with their provenance; a path into the steering
 * folder beside the checkout would pass here and fail in every other clone. It also holds the
 * rules of the sources' shape that the type checker and dependency-cruiser cannot state.
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./support/fixtures.js";

/** Tracked files by git, or (outside a git checkout, e.g. an unpacked tarball) every file but build output. */
function trackedFiles(): string[] {
	if (existsSync(join(repoRoot, ".git"))) {
		const out = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" });
		return out.split("\0").filter((name) => name !== "");
	}
	const skip = new Set(["node_modules", "dist", "dist-test", ".git"]);
	const files: string[] = [];
	const stack = [repoRoot];
	for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
		for (const name of readdirSync(dir)) {
			if (skip.has(name)) continue;
			const path = join(dir, name);
			if (statSync(path).isDirectory()) stack.push(path);
			else files.push(relative(repoRoot, path));
		}
	}
	return files;
}

test("no tracked file refers to the shared folder beside the checkout", () => {
	// Split so that this file does not name what it looks for.
	const needle = ["..", "shared"].join("/");
	const files = trackedFiles();
	assert.ok(files.length > 50, `found only ${files.length} files`);
	const offenders = files.filter((name) => {
		const path = join(repoRoot, name);
		return existsSync(path) && readFileSync(path, "latin1").includes(needle);
	});
	assert.deepEqual(offenders, []);
});

test("the fixtures the tests use are in the repository", () => {
	for (const path of ["test/fixtures/pi-v3/README.md", "test/fixtures/import/SOURCES.md"]) {
		assert.ok(existsSync(join(repoRoot, path)), path);
	}
});

/** Every `.ts` file under `dir`, relative to the repository, `/`-separated. */
function sourcesUnder(dir: string): string[] {
	const files: string[] = [];
	const stack = [join(repoRoot, dir)];
	for (let at = stack.pop(); at !== undefined; at = stack.pop()) {
		for (const name of readdirSync(at)) {
			const path = join(at, name);
			if (statSync(path).isDirectory()) stack.push(path);
			else if (name.endsWith(".ts")) files.push(relative(repoRoot, path).split(sep).join("/"));
		}
	}
	return files.sort();
}

test("no module outside src/storage/ asks whether a store or a collection is of a concrete class", () => {
	// Where a session lives and what it can do are asked of the contract (`file`, `capabilities`,
	// src/storage/placement.ts): a test of the class breaks for every store that is not that class.
	const sources = sourcesUnder("src").map((file) => ({ file, text: readFileSync(join(repoRoot, file), "utf8") }));
	const stores = new Set<string>();
	for (let grew = true; grew; ) {
		grew = false;
		for (const { text } of sources) {
			for (const [, name, heritage] of text.matchAll(/\bclass\s+(\w+)(?:<[^{]*>)?([^{]*)\{/g)) {
				if (name === undefined || heritage === undefined || stores.has(name)) continue;
				const parents = heritage.match(/\w+/g) ?? [];
				const implementsContract = /\bimplements\b[^{]*\b(SessionStore|SessionCollection)\b/.test(heritage);
				if (implementsContract || parents.some((parent) => stores.has(parent))) {
					stores.add(name);
					grew = true;
				}
			}
		}
	}
	for (const name of ["FileSessionStore", "DirectoryCollection", "MemorySessionStore", "SqliteSessionStore"]) {
		assert.ok(stores.has(name), `${name} is found as a store or a collection class`);
	}
	const offenders: string[] = [];
	for (const { file, text } of sources) {
		if (file.startsWith("src/storage/")) continue;
		for (const [found, name] of text.matchAll(/\binstanceof\s+(\w+)/g)) {
			if (name !== undefined && stores.has(name)) offenders.push(`${file}: ${found}`);
		}
	}
	assert.deepEqual(offenders, []);
});
