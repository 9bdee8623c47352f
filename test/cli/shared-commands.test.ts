/**
 * The commands the command line and the REPL both have run one implementation (issue 24): on
 * the same session, the REPL's `tree`, `ctx` and `info` print what `session-tree tree`, `ctx`
 * and `info` print (the CLI run as a separate process, piped: no colours, no width), and the
 * REPL's `new --dir`, `label`, `nav`, `fork` write what the CLI's write. Where the two differed
 * before, the fix shows: `info` names a database's session by its location on the command line
 * too (it printed `file: undefined`), and the REPL's `new --dir FILE` says that FILE is no
 * directory (it printed Node's `EEXIST`).
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { executeLine } from "../../src/cli/repl/commands.js";
import { collectingState } from "../../src/cli/repl/state.js";
import { Session } from "../../src/index.js";
import { cli, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

/** Runs lines that must succeed on a state; returns their output. */
function runner(state: ReturnType<typeof collectingState>) {
	return async (line: string): Promise<string> => {
		const outcome = await executeLine(state.state, line);
		assert.notEqual(outcome.kind, "error", `${line}: ${outcome.kind === "error" ? outcome.message : ""}`);
		assert.equal(state.errors(), "", line);
		return state.output();
	};
}

/** What the CLI prints on stdout for `args`, which must succeed. */
async function cliOut(args: readonly string[]): Promise<string> {
	const result = await cli(args);
	assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
	return result.stdout;
}

describe("the CLI and the REPL print one implementation's lines", () => {
	test("tree, ctx and info: the same text for the same session", async () => {
		const repl = collectingState({ dir: tempDir() });
		const run = runner(repl);
		const file = (await run("new --cwd /p")).trim();
		const question = (await run("send user What is a B-tree?")).trim();
		await run("send assistant A balanced search tree.");
		await run("send user And a trie?");
		await run(`label ${question} start`);
		await run("name  Trees ");
		const views: Array<[string, string[]]> = [
			["tree", []],
			["tree --filter user-only --fold", ["--filter", "user-only", "--fold"]],
			[`tree --from ${question.slice(0, 6)} --depth 1`, ["--from", question.slice(0, 6), "--depth", "1"]],
			["ctx", []],
			["ctx --full", ["--full"]],
			["info", []],
		];
		for (const [line, options] of views) {
			const [command = ""] = line.split(" ");
			assert.equal(await run(line), await cliOut([command, file, ...options]), line);
		}
		await repl.state.close();
	});

	test("label, nav and fork write what the CLI's write", async () => {
		const repl = collectingState({ dir: tempDir() });
		const run = runner(repl);
		const viaRepl = (await run("new --cwd /p")).trim();
		const viaCli = (await cliOut(["new", "--dir", tempDir(), "--cwd", "/p"])).trim();
		const viaCliSession = await Session.open(viaCli);
		const first = await viaCliSession.appendMessage({ role: "user", content: "hi", timestamp: 1 });
		await viaCliSession.close();
		const replFirst = (await run("send user hi")).trim();
		await cliOut(["label", viaCli, first, "  spaced  "]);
		await run(`label ${replFirst}   spaced  `);
		await cliOut(["nav", viaCli, first]);
		await run(`nav ${replFirst}`);
		const fromCli = await Session.open(viaCli);
		const fromRepl = await Session.open(viaRepl);
		// The CLI keeps a label as given; the REPL joins and trims its words first.
		assert.equal(fromCli.getLabel(first), "  spaced  ");
		assert.equal(fromRepl.getLabel(replFirst), "spaced");
		assert.equal(fromCli.getLeafId(), null);
		assert.equal(fromRepl.getLeafId(), null);
		await fromCli.close();
		await fromRepl.close();

		// A fork of each at its first message: the path to it, naming the original as its parent.
		const cliFork = (await cliOut(["fork", viaCli, first.slice(0, 6)])).trim();
		const replFork = (await run(`fork ${replFirst.slice(0, 6)}`)).split("\n")[0] ?? "";
		for (const [fork, parent, at] of [
			[cliFork, viaCli, first],
			[replFork, viaRepl, replFirst],
		] as const) {
			const info = JSON.parse(await cliOut(["info", fork, "--json"])) as { parentSession: string; leafId: string };
			assert.equal(info.parentSession, parent, fork);
			assert.equal(info.leafId, at, fork);
		}
		await repl.state.close();
	});
});

describe("where the CLI and the REPL differed", () => {
	test("info on a database's session names it by its location, on both front ends", async () => {
		const store = `sqlite:${join(tempDir(), "sessions.db")}`;
		const repl = collectingState();
		const run = runner(repl);
		const location = (await run(`new --cwd /p --dir ${store}`)).trim();
		await run("send user hello");
		const shown = await run("info");
		assert.match(shown, new RegExp(`^file: ${location.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"));
		await repl.state.close();
		assert.equal(await cliOut(["info", location]), shown);
	});

	test("the REPL's new --dir FILE says FILE is no directory", async () => {
		const file = join(tempDir(), "not-a-dir");
		writeFileSync(file, "");
		const repl = collectingState();
		const outcome = await executeLine(repl.state, `new --dir ${file}`);
		assert.deepEqual(outcome, {
			kind: "error",
			message: `${file}: not a directory (--dir takes a directory or a store)`,
		});
		const viaCli = await cli(["new", "--dir", file]);
		assert.equal(viaCli.stderr, `session-tree: ${file}: not a directory (--dir takes a directory or a store)\n`);
	});
});
