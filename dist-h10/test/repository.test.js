/**
 * The repository tests itself: nothing it tracks reaches outside it. The pi fixtures and the
 * import samples live in test/fixtures/ with their provenance; a path into the steering
 * folder beside the checkout would pass here and fail in every other clone.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./support/fixtures.js";
/** Tracked files by git, or (outside a git checkout, e.g. an unpacked tarball) every file but build output. */
function trackedFiles() {
    if (existsSync(join(repoRoot, ".git"))) {
        const out = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" });
        return out.split("\0").filter((name) => name !== "");
    }
    const skip = new Set(["node_modules", "dist", "dist-test", ".git"]);
    const files = [];
    const stack = [repoRoot];
    for (let dir = stack.pop(); dir !== undefined; dir = stack.pop()) {
        for (const name of readdirSync(dir)) {
            if (skip.has(name))
                continue;
            const path = join(dir, name);
            if (statSync(path).isDirectory())
                stack.push(path);
            else
                files.push(relative(repoRoot, path));
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
//# sourceMappingURL=repository.test.js.map