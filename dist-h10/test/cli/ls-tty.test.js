/**
 * `ls` on a real terminal (tmux; see test/catalog/tmux.ts): colours, the name or first message
 * cut to the terminal's width, and a progress bar on stderr that leaves nothing behind.
 * Without tmux the tests are skipped with a reason, except in CI, where they fail.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
        content: `A long question ${"about many things ".repeat(20)}end`,
        timestamp: Date.now(),
    });
    await long.close();
});
after(() => {
    stopTmux();
    removeTempDirs();
});
const terminal = { width: WIDTH, height: 40 };
describe("ls on a terminal", { skip: skipWithoutTmux }, () => {
    test("coloured, and every session row fits the terminal's width", async () => {
        const { screen } = await runInTerminal(["ls", "--cwd", PROJECT], [`PI_CODING_AGENT_DIR=${layout.agentDir}`], {
            ...terminal,
            logDir,
        });
        assert.ok(screen.includes(`${ESC}[1m`), screen);
        const rows = stripAnsi(screen)
            .split("\n")
            .map((line) => line.trimEnd())
            .filter((line) => /^(?:just now|\d+[a-z]+ ago)\b/.test(line));
        assert.equal(rows.length, 5, stripAnsi(screen));
        for (const row of rows)
            assert.ok(displayWidth(row) <= WIDTH, row);
        const cut = rows.find((row) => row.includes('"A long question'));
        assert.ok(cut?.endsWith('…"'), cut);
        assert.ok(rows.some((row) => row.endsWith("B-tree notes")));
    });
    test("NO_COLOR: the same table without colours", async () => {
        const { screen } = await runInTerminal(["ls", "--cwd", PROJECT], [`PI_CODING_AGENT_DIR=${layout.agentDir}`, "NO_COLOR=1"], { ...terminal, logDir });
        assert.ok(!screen.includes(ESC), screen);
        assert.match(screen, /^MODIFIED +ENTRIES/m);
    });
    test("a progress bar, if drawn, is erased: the screen holds only the table", async (t) => {
        const dir = join(tempDir(), "many");
        mkdirSync(dir);
        for (let i = 0; i < 1500; i++) {
            const stamp = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
            const id = `a${String(i).padStart(7, "0")}`;
            writeFileSync(join(dir, `${i}.jsonl`), `${JSON.stringify({ type: "session", version: 3, id, timestamp: stamp, cwd: "/m" })}\n` +
                `${JSON.stringify({ type: "message", id: "00000001", parentId: null, timestamp: stamp, message: { role: "user", content: `q${i}`, timestamp: 1 } })}\n`);
        }
        const { screen, raw } = await runInTerminal(["ls", dir], [], { width: WIDTH, height: 10, logDir });
        assert.doesNotMatch(stripAnsi(screen), /reading sessions/);
        const drawn = raw.lastIndexOf("reading sessions [");
        if (drawn >= 0) {
            assert.ok(raw.indexOf("\r\u001b[K", drawn) > drawn, "erased after the last draw");
            assert.ok(raw.slice(0, drawn).includes("\r"), "drawn on one line with \\r");
        }
        t.diagnostic(drawn >= 0 ? "the progress bar was drawn and erased" : "listing was quicker than the bar's delay");
    });
});
//# sourceMappingURL=ls-tty.test.js.map