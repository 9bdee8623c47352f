/**
 * `tree --filter` shows what pi's own `/tree` selector shows (pi-coding-agent's
 * TreeSelectorComponent, a dev dependency): the same entries under every filter, each hanging
 * from the same shown ancestor.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { initTheme, SessionManager, TreeSelectorComponent } from "@mariozechner/pi-coding-agent";
import { filterTree, TREE_FILTERS } from "../../src/render/tree-text.js";
import { Session } from "../../src/session.js";
import { fixtureDir, fixtureNames } from "../support/fixtures.js";
import { say, toolRound } from "./helpers.js";
const dir = mkdtempSync(join(tmpdir(), "st-tree-filter-"));
after(() => rmSync(dir, { recursive: true, force: true }));
initTheme("dark");
/** Shown id → shown parent id, as pi's selector computes it for a tree and a leaf. */
function piView(tree, leafId, filter) {
    const noop = () => { };
    const selector = new TreeSelectorComponent(tree, leafId, 40, noop, noop, noop, undefined, filter);
    const list = selector.getTreeList();
    const view = new Map();
    for (const { node } of list.filteredNodes)
        view.set(node.entry.id, list.visibleParentMap.get(node.entry.id) ?? null);
    return view;
}
/** pi's view of a file, loaded by pi's SessionManager (from a copy: pi may rewrite what it opens). */
function piFileView(file, filter) {
    const copy = join(dir, `pi-${Math.random().toString(16).slice(2)}.jsonl`);
    copyFileSync(file, copy);
    const manager = SessionManager.open(copy, dir);
    return piView(manager.getTree(), manager.getLeafId(), filter);
}
/** Shown id → shown parent id, as {@link filterTree} computes it. */
function ourView(session, filter) {
    const view = new Map();
    const stack = filterTree(session.getTree(), filter, {
        leafId: session.getLeafId(),
    }).map((node) => [node, null]);
    for (let item = stack.pop(); item; item = stack.pop()) {
        const [node, parent] = item;
        view.set(node.entry.id, parent);
        for (const child of node.children)
            stack.push([child, node.entry.id]);
    }
    return view;
}
function assertSameView(session, pi, name) {
    for (const filter of TREE_FILTERS) {
        const ours = ourView(session, filter);
        const pis = pi(filter);
        assert.deepEqual([...ours.keys()].sort(), [...pis.keys()].sort(), `${name} ${filter}: the shown entries`);
        for (const [id, parent] of pis)
            assert.equal(ours.get(id), parent, `${name} ${filter}: parent of ${id}`);
    }
}
test("every fixture that both open: the same entries and parents under every filter", async () => {
    let compared = 0;
    for (const name of fixtureNames()) {
        const file = join(fixtureDir, `${name}.jsonl`);
        try {
            await Session.open(file);
        }
        catch {
            continue; // damaged on purpose: not a question of filters
        }
        if (name.startsWith("legacy-"))
            continue; // pi migrates these in place; compared after migration elsewhere
        assertSameView(await Session.open(file), (filter) => piFileView(file, filter), name);
        compared++;
    }
    assert.ok(compared >= 15, `${compared} fixtures compared`);
});
test("a session with settings entries at forks, tool rounds, labels and errors", async () => {
    const s = await Session.inMemory({ cwd: "/p" });
    const q = await say(s, "user", "q");
    await s.appendModelChange("openai", "gpt-5");
    const fork = await s.appendThinkingLevelChange("high");
    await toolRound(s, "read", { path: "a" }, "x");
    await say(s, "assistant", "done");
    await s.branch(fork);
    await s.appendMessage({
        role: "assistant",
        content: [],
        provider: "anthropic",
        model: "m",
        stopReason: "error",
        errorMessage: "overloaded",
        timestamp: 1,
    });
    await s.appendCustomEntry("state", { n: 1 });
    await s.appendCustomMessageEntry("note", "remember", true);
    await s.appendLabelChange(q, "first");
    await s.branch(q);
    await s.appendSessionInfo("named");
    const [call] = await toolRound(s, "bash", { command: "ls" }, "a b");
    await s.branch(call);
    // Our tree (without the persisted-leaf records pi would take for entries) through pi's selector.
    assertSameView(s, (filter) => piView(s.getTree(), s.getLeafId(), filter), "generated");
    await s.close();
});
//# sourceMappingURL=tree-filter-pi.test.js.map