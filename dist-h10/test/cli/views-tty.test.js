/**
 * `tree` and `ctx` on a real terminal: tmux (Debian package `tmux`) runs them in a 72-column
 * pane on a private server socket and `capture-pane -e` shows the screen with its attributes.
 * Checked: lines fitted to the pane's width, colours on a terminal, none with NO_COLOR.
 * Without tmux the tests are skipped with a reason, except in CI (CI set), where they fail.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { displayWidth, stripAnsi } from "../../src/render/terminal.js";
import { ensureServer, quote, skipWithoutTmux, stopTmux, tmux } from "../catalog/tmux.js";
import { BIN, fixture } from "./helpers.js";
const ESC = "\u001b[";
const WIDTH = 72;
const HEIGHT = 60;
let panes = 0;
/** Runs a command line in a fresh pane and returns the screen (with escapes) once `done` shows. */
async function screen(args, vars, done) {
    const name = `v${panes++}`;
    const command = `env -u FORCE_COLOR -u NO_COLOR TERM=xterm-256color ${vars} ${quote(process.execPath)} ${quote(BIN)} ${args.map(quote).join(" ")}; sleep 60`;
    ensureServer();
    tmux("new-session", "-d", "-s", name, "-x", String(WIDTH), "-y", String(HEIGHT), command);
    const started = Date.now();
    try {
        for (;;) {
            const text = tmux("capture-pane", "-p", "-e", "-t", name);
            if (done.test(stripAnsi(text)))
                return text;
            if (Date.now() - started > 10_000)
                throw new Error(`timed out; the screen:\n${text}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
        }
    }
    finally {
        tmux("kill-session", "-t", name);
    }
}
after(stopTmux);
describe("on a terminal", { skip: skipWithoutTmux }, () => {
    test("tree: fitted to the terminal's width, coloured", async () => {
        const text = await screen(["tree", fixture("labels")], "", /← leaf/);
        assert.ok(text.includes(ESC), "colours");
        const rows = stripAnsi(text)
            .split("\n")
            .filter((line) => line.trim() !== "");
        assert.equal(rows.length, 20);
        for (const row of rows)
            assert.ok(displayWidth(row.trimEnd()) <= WIDTH, row);
        assert.ok(rows.some((row) => row.trimEnd().endsWith("…")), "long lines are cut");
        assert.ok(rows.some((row) => row.includes("└── • b5ec523e user: ")));
    });
    test("tree with NO_COLOR: the same text, no colours", async () => {
        const text = await screen(["tree", fixture("labels")], "NO_COLOR=1", /← leaf/);
        assert.ok(!text.includes(ESC));
        assert.ok(text.split("\n").every((line) => displayWidth(line.trimEnd()) <= WIDTH));
    });
    test("ctx: fitted and coloured", async () => {
        const text = await screen(["ctx", fixture("tool-calls")], "", /thinking level: high/);
        assert.ok(text.includes(ESC));
        for (const row of stripAnsi(text).split("\n"))
            assert.ok(displayWidth(row.trimEnd()) <= WIDTH, row);
    });
});
//# sourceMappingURL=views-tty.test.js.map