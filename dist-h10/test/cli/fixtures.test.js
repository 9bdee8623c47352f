/**
 * The machine-readable outputs (`--json`) on pi's golden fixtures must be exactly what pi
 * computed for them.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { cli, cliJson, expected, FIXTURES, fixture } from "./helpers.js";
const ALL = readdirSync(FIXTURES)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => name.slice(0, -".jsonl".length))
    .sort();
/** pi 0.73.1 keeps entries whose parent is missing as extra roots; session-tree refuses them (or bridges them). */
const BROKEN = new Set(["branched-session"]);
/** v1 entries get fresh ids on migration, so only id-free results can be compared. */
const RANDOM_IDS = new Set(["legacy-v1"]);
test("the fixtures are there", () => {
    assert.ok(ALL.length >= 20, `expected pi's fixtures in ${FIXTURES}`);
    assert.ok(ALL.includes("deep-chain") && ALL.includes("wide-node"));
});
test("--json outputs agree with pi on every fixture", { concurrency: 4 }, async (t) => {
    for (const name of ALL.filter((n) => !BROKEN.has(n))) {
        await t.test(name, async () => {
            const file = fixture(name);
            const want = expected(name);
            const [ctx, info] = await Promise.all([
                cliJson(["ctx", file, "--json"]),
                cliJson(["info", file, "--json"]),
            ]);
            assert.deepEqual(ctx, want.context, "ctx --json");
            assert.equal(info.name, want.sessionName, "info name");
            assert.equal(info.entryCount, want.entryCount, "info entryCount");
            if (RANDOM_IDS.has(name))
                return;
            assert.equal(info.leafId, want.leafId, "info leafId");
            const [path, leaves, tree] = await Promise.all([
                cliJson(["path", file, "--json"]),
                cliJson(["leaves", file, "--json"]),
                cliJson(["tree", file, "--json"]),
            ]);
            assert.deepEqual(path, want.path, "path --json");
            assert.deepEqual(leaves, want.leaves, "leaves --json");
            assert.deepEqual(tree, want.tree, "tree --json");
        });
    }
});
test("ctx --json is exactly JSON.stringify of the context: one line, undefined fields dropped", async () => {
    const result = await cli(["ctx", fixture("custom-and-custom-message"), "--json"]);
    assert.equal(result.code, 0);
    assert.equal(result.stderr, "");
    assert.ok(result.stdout.endsWith("}\n"));
    assert.equal(result.stdout.indexOf("\n"), result.stdout.length - 1);
    assert.equal(result.stdout, `${JSON.stringify(JSON.parse(result.stdout))}\n`);
    // pi's custom messages have `details: undefined` when absent: the key must not appear.
    const messages = JSON.parse(result.stdout).messages;
    for (const message of messages) {
        if (message.role === "custom" && !("details" in message))
            return;
    }
    assert.fail("expected a custom message without details");
});
test("lone surrogates survive ctx --json as escapes", async () => {
    const result = await cli(["ctx", fixture("lone-surrogate"), "--json"]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /\\ud[89ab][0-9a-f]{2}/i);
    assert.deepEqual(JSON.parse(result.stdout), expected("lone-surrogate").context);
});
test("info --json has exactly the documented keys", async () => {
    const info = await cliJson(["info", fixture("branched-session-clean"), "--json"]);
    assert.deepEqual(Object.keys(info), ["id", "version", "cwd", "parentSession", "name", "entryCount", "leafId"]);
    const header = JSON.parse(readFileSync(fixture("branched-session-clean"), "utf8").split("\n")[0]);
    assert.equal(info.id, header.id);
    assert.equal(info.version, 3);
    assert.equal(info.cwd, header.cwd);
    assert.equal(info.parentSession, header.parentSession);
});
test("info --json: parentSession and name are null when absent; version is the file's", async () => {
    const v3 = await cliJson(["info", fixture("linear-chat"), "--json"]);
    assert.equal(v3.parentSession, null);
    assert.equal(v3.name, null);
    assert.equal(v3.version, 3);
    const v1 = await cliJson(["info", fixture("legacy-v1"), "--json"]);
    assert.equal(v1.version, 1);
    const v2 = await cliJson(["info", fixture("legacy-v2"), "--json"]);
    assert.equal(v2.version, 2);
    const empty = await cliJson(["info", fixture("empty-session"), "--json"]);
    assert.equal(empty.entryCount, 0);
    assert.equal(empty.leafId, null);
});
test("path --leaf and ctx --leaf start from another entry", async () => {
    const want = expected("branch-in-place");
    const tree = want.tree;
    const leaves = want.leaves;
    const other = leaves.find((id) => id !== want.leafId);
    const path = await cliJson(["path", fixture("branch-in-place"), "--leaf", other, "--json"]);
    assert.equal(path[path.length - 1], other);
    assert.equal(path[0], tree[0]?.id);
    for (let i = 1; i < path.length; i++) {
        assert.equal(tree.find((row) => row.id === path[i])?.parentId, path[i - 1]);
    }
    const ctx = await cliJson(["ctx", fixture("branch-in-place"), "--leaf", other, "--json"]);
    assert.ok(Array.isArray(ctx.messages));
    const atLeaf = await cliJson(["ctx", fixture("branch-in-place"), "--leaf", want.leafId, "--json"]);
    assert.deepEqual(atLeaf, want.context);
});
test("a file with missing parents: strict fails naming file and line, --lenient warns and goes on", async () => {
    const file = fixture("branched-session");
    const strict = await cli(["ctx", file, "--json"]);
    assert.equal(strict.code, 1);
    assert.equal(strict.stdout, "");
    assert.ok(strict.stderr.startsWith(`session-tree: ${file}:6: `), strict.stderr);
    for (const command of ["ctx", "path", "leaves", "tree", "info"]) {
        const lenient = await cli([command, file, "--json", "--lenient"]);
        assert.equal(lenient.code, 0, `${command}: ${lenient.stderr}`);
        JSON.parse(lenient.stdout);
        const warnings = lenient.stderr.split("\n").filter(Boolean);
        assert.equal(warnings.length, 2, lenient.stderr);
        for (const warning of warnings)
            assert.ok(warning.startsWith(`session-tree: warning: ${file}:`), warning);
    }
});
//# sourceMappingURL=fixtures.test.js.map