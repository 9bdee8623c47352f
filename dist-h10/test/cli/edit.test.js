/** label, name and nav as real processes on real files; the files then agree with Session.open and pi. */
import assert from "node:assert/strict";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { COMMANDS } from "../../src/cli/run.js";
import { Session } from "../../src/session.js";
import { assistantLine, cli, cliJson, fixture, lines, removeTempDirs, tempDir, userLine, } from "./helpers.js";
delete process.env.FORCE_COLOR;
after(removeTempDirs);
const user = (text) => userLine(text);
const assistant = (text) => assistantLine(text);
/** A session q1 a1 q2 a2 made through the CLI; returns the file and the ids. */
async function conversation() {
    const created = await cli(["new", "--dir", tempDir(), "--cwd", "/home/dev/p"]);
    assert.equal(created.code, 0, created.stderr);
    const file = created.stdout.trim();
    const appended = await cli(["append", file], {
        input: `${[user("What is a B-tree?"), assistant("A balanced tree."), user("And a trie?\nWith keys."), assistant("A prefix tree.")].join("\n")}\n`,
    });
    assert.equal(appended.code, 0, appended.stderr);
    return { file, ids: lines(appended.stdout) };
}
async function ok(args) {
    const result = await cli(args);
    assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
    return result;
}
/** pi's SessionManager on a copy of the file. */
function pi(file) {
    const dir = tempDir();
    const copy = join(dir, "copy.jsonl");
    copyFileSync(file, copy);
    return SessionManager.open(copy, dir);
}
describe("label", () => {
    test("sets, shows in tree, clears; prefixes work; Session.open and pi agree", async () => {
        const { file, ids } = await conversation();
        const [q1, a1] = ids;
        assert.equal((await ok(["label", file, q1.slice(0, 4), "the start"])).stdout, "");
        await ok(["label", file, a1, "answer"]);
        let session = await Session.open(file);
        assert.equal(session.getLabel(q1), "the start");
        assert.equal(session.getLabel(a1), "answer");
        assert.equal(pi(file).getLabel(q1), "the start");
        const tree = lines((await ok(["tree", file])).stdout);
        assert.ok(tree[0]?.endsWith(" [the start]"));
        await ok(["label", file, q1]);
        await ok(["label", file, a1, ""]);
        session = await Session.open(file);
        assert.equal(session.getLabel(q1), undefined);
        assert.equal(session.getLabel(a1), undefined);
        assert.equal(pi(file).getLabel(q1), undefined);
        assert.deepEqual(lines((await ok(["tree", file, "--filter", "labeled-only"])).stdout), [
            "(no entries shown by the labeled-only filter)",
        ]);
    });
});
describe("name", () => {
    test("names the session (trimmed), an empty name clears it", async () => {
        const { file } = await conversation();
        await ok(["name", file, "  B-trees and tries  "]);
        assert.equal((await Session.open(file)).getSessionName(), "B-trees and tries");
        assert.equal(pi(file).getSessionName(), "B-trees and tries");
        assert.equal(lines((await ok(["tree", file])).stdout)[0], "Session: B-trees and tries");
        await ok(["name", file, ""]);
        assert.equal((await Session.open(file)).getSessionName(), undefined);
    });
});
describe("nav", () => {
    test("to a user message: the leaf goes to its parent and the text comes back to edit", async () => {
        const { file, ids } = await conversation();
        const [, a1, q2] = ids;
        const result = await ok(["nav", file, q2.slice(0, 5)]);
        assert.equal(result.stdout, `leaf: ${a1}\ntext to edit:\nAnd a trie?\nWith keys.\n`);
        assert.equal((await Session.open(file)).getLeafId(), a1);
        assert.deepEqual(pi(file)
            .buildSessionContext()
            .messages.map((m) => m.role), ["user", "assistant"]);
    });
    test("to the root user message: before the first entry", async () => {
        const { file, ids } = await conversation();
        const result = await ok(["nav", file, ids[0]]);
        assert.equal(result.stdout, "leaf: (before the first entry)\ntext to edit:\nWhat is a B-tree?\n");
        assert.equal((await Session.open(file)).getLeafId(), null);
    });
    test("to an assistant message: it becomes the leaf; --json prints the NavigateResult", async () => {
        const { file, ids } = await conversation();
        const a1 = ids[1];
        assert.deepEqual(await cliJson(["nav", file, a1, "--json"]), { leafId: a1 });
        assert.equal((await Session.open(file)).getLeafId(), a1);
        // The leaf itself: nothing changes.
        assert.deepEqual(await cliJson(["nav", file, a1, "--json"]), { leafId: a1 });
    });
    test("--summary leaves a branch summary at the new position", async () => {
        const { file, ids } = await conversation();
        const [, a1, q2] = ids;
        const result = await cliJson([
            "nav",
            file,
            q2,
            "--summary",
            "Asked about tries; going back.",
            "--json",
        ]);
        assert.equal(result.editorText, "And a trie?\nWith keys.");
        assert.equal(result.leafId, result.summaryEntryId);
        const session = await Session.open(file);
        assert.equal(session.getLeafId(), result.summaryEntryId);
        const summary = session.getEntry(result.summaryEntryId);
        assert.equal(summary.type, "branch_summary");
        assert.equal(summary.parentId, a1);
        assert.equal(summary.summary, "Asked about tries; going back.");
        assert.equal(pi(file).getLeafId(), result.summaryEntryId);
        const text = await ok(["nav", file, a1, "--summary", "back again"]);
        assert.match(text.stdout, /^leaf: ([0-9a-f]{8})\nbranch summary: \1\n$/);
    });
});
describe("errors", () => {
    test("unknown ids, ambiguous prefixes, missing files: exit 1 with the reason", async () => {
        const { file } = await conversation();
        for (const args of [
            ["label", file, "zzzz", "x"],
            ["nav", file, "zzzz"],
        ]) {
            const result = await cli(args);
            assert.equal(result.code, 1);
            assert.equal(result.stderr, `session-tree: ${file}: no entry id starts with zzzz\n`);
        }
        const dir = tempDir();
        const wide = join(dir, "wide.jsonl");
        copyFileSync(fixture("wide-node"), wide);
        const ambiguous = await cli(["label", wide, "1", "x"]);
        assert.equal(ambiguous.code, 1);
        assert.match(ambiguous.stderr, /: 1 is ambiguous: it starts \d+ ids: [0-9a-f]{8} \(message\), /);
        const missing = join(dir, "missing.jsonl");
        for (const args of [
            ["label", missing, "1"],
            ["name", missing, "x"],
            ["nav", missing, "1"],
        ]) {
            const result = await cli(args);
            assert.equal(result.code, 1);
            assert.equal(result.stderr, `session-tree: ${missing}: no such session\n`);
        }
    });
    test("usage errors exit 2", async () => {
        for (const args of [
            ["label", "f.jsonl"],
            ["name", "f.jsonl"],
            ["nav", "f.jsonl"],
            ["nav", "f", "id", "extra"],
        ]) {
            const result = await cli(args);
            assert.equal(result.code, 2, args.join(" "));
            assert.match(result.stderr, new RegExp(`Try 'session-tree ${args[0]} --help'\\.\\n$`));
        }
    });
});
describe("help everywhere", () => {
    test("every command in the registry: --help exits 0 with a description and an example", async () => {
        const results = await Promise.all(COMMANDS.map((command) => cli([command.name, "--help"])));
        results.forEach((result, i) => {
            const command = COMMANDS[i];
            assert.equal(result.code, 0, command.name);
            assert.equal(result.stderr, "", command.name);
            assert.ok(result.stdout.startsWith(`Usage: session-tree ${command.name}`), command.name);
            assert.ok(command.description.length > 20, `${command.name} has a description`);
            assert.ok(result.stdout.includes(command.description.split("\n")[0]), command.name);
            assert.match(result.stdout, /^Examples?:\n {2}(?:\S.*)?session-tree /m, command.name);
            assert.ok(command.examples.every((example) => example.includes("session-tree")), command.name);
        });
    });
    test("--version and -V print the version, exit 0", async () => {
        for (const flag of ["--version", "-V"]) {
            const result = await cli([flag]);
            assert.equal(result.code, 0);
            assert.match(result.stdout, /^\d+\.\d+\.\d+/);
        }
    });
});
//# sourceMappingURL=edit.test.js.map