/**
 * `search` on a real terminal (tmux; see test/catalog/tmux.ts): the match highlighted, hit
 * lines fitted to the terminal's width; no highlighting with NO_COLOR.
 * Without tmux the tests are skipped with a reason, except in CI, where they fail.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { displayWidth } from "../../src/render/preview.js";
import { Session } from "../../src/session.js";
import { buildLayout, PROJECT } from "../catalog/layout.js";
import { runInTerminal, skipWithoutTmux, stopTmux, stripAnsi } from "../catalog/tmux.js";
import { removeTempDirs, tempDir } from "./helpers.js";
const WIDTH = 72;
const ESC = "\u001b";
let layout;
let logDir;
before(async () => {
    layout = await buildLayout(tempDir());
    logDir = tempDir();
    const long = await Session.create({ agentDir: layout.agentDir, cwd: PROJECT });
    await long.appendMessage({
        role: "user",
        content: `${"lorem ipsum ".repeat(30)}radix ${"dolor sit amet ".repeat(30)}`,
        timestamp: Date.now(),
    });
    await long.close();
});
after(() => {
    stopTmux();
    removeTempDirs();
});
describe("search on a terminal", { skip: skipWithoutTmux }, () => {
    test("the match is highlighted and hit lines fit the width", async () => {
        const { screen } = await runInTerminal(["search", "radix", "--cwd", PROJECT], [`PI_CODING_AGENT_DIR=${layout.agentDir}`], { width: WIDTH, height: 40, logDir });
        // Bold red, however tmux spells the attributes.
        const marked = screen.replaceAll(ESC, "<ESC>");
        assert.match(marked, /<ESC>\[(?:\d+;)*1(?:;\d+)*m/, marked);
        assert.match(marked, /<ESC>\[(?:\d+;)*31(?:;\d+)*m(?:<ESC>\[[\d;]*m)*radix/, marked);
        const hits = stripAnsi(screen)
            .split("\n")
            .map((line) => line.trimEnd())
            .filter((line) => /^ {2}[0-9a-f]{8} /.test(line));
        assert.equal(hits.length, 3, stripAnsi(screen));
        for (const hit of hits)
            assert.ok(displayWidth(hit) <= WIDTH, hit);
        const long = hits.find((hit) => hit.includes("lorem"));
        assert.ok(long?.includes("…") && long.includes("radix"), long);
    });
    test("NO_COLOR: no highlighting", async () => {
        const { screen } = await runInTerminal(["search", "radix", "--cwd", PROJECT], [`PI_CODING_AGENT_DIR=${layout.agentDir}`, "NO_COLOR=1"], { width: WIDTH, height: 40, logDir });
        assert.ok(!screen.includes(ESC), screen);
        assert.match(screen, /side {4}And radix trees\?/);
    });
});
//# sourceMappingURL=search-tty.test.js.map