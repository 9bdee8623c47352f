/**
 * The catalog index's first build on a real terminal (tmux; see test/catalog/tmux.ts): `ls
 * --agents` over 1,500 sessions draws "indexing sessions" on stderr and erases it; the second
 * run, with nothing changed, reads no session and draws nothing (it ends before the bar's
 * delay). Without tmux or better-sqlite3 (no index: `ls` scans) the tests are skipped with a
 * reason, except in CI, where they fail.
 */

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { runInTerminal, skipWithoutTmux, stopTmux, stripAnsi } from "../catalog/tmux.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
import { removeTempDirs, tempDir } from "./helpers.js";

after(() => {
	stopTmux();
	removeTempDirs();
});

describe("the index's first build on a terminal", { skip: skipWithoutTmux || SQLITE_SKIP }, () => {
	test("a progress bar on the first build, erased; none when nothing changed", async () => {
		const home = tempDir();
		const dir = join(home, ".pi", "agent", "sessions", "--m--");
		mkdirSync(dir, { recursive: true });
		for (let i = 0; i < 1500; i++) {
			const stamp = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
			const id = `a${String(i).padStart(7, "0")}`;
			const message = (n: number, parentId: string | null) =>
				JSON.stringify({
					type: "message",
					id: `0000000${n}`,
					parentId,
					timestamp: stamp,
					message: { role: "user", content: `question ${i} number ${n}`, timestamp: 1 },
				});
			writeFileSync(
				join(dir, `${i}.jsonl`),
				`${JSON.stringify({ type: "session", version: 3, id, timestamp: stamp, cwd: "/m" })}\n${message(1, null)}\n${message(2, "00000001")}\n`,
			);
		}
		const vars = [`HOME=${home}`, `XDG_CACHE_HOME=${join(home, ".cache")}`, "PI_CODING_AGENT_DIR="];
		const logDir = tempDir();
		const first = await runInTerminal(["ls", "--agents"], vars, { width: 80, height: 10, logDir });
		const drawn = first.raw.lastIndexOf("indexing sessions [");
		assert.ok(drawn >= 0, "the first build drew its progress bar");
		assert.ok(first.raw.indexOf("\r\u001b[K", drawn) > drawn, "erased after the last draw");
		assert.doesNotMatch(stripAnsi(first.screen), /indexing sessions/);
		assert.match(stripAnsi(first.screen), /pi/);
		const second = await runInTerminal(["ls", "--agents"], vars, { width: 80, height: 10, logDir });
		assert.ok(!second.raw.includes("indexing sessions"), "nothing to read: no bar");
	});
});
