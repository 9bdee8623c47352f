/**
 * The REPL's commands added for issue 23, on a collecting state and on real files: `ls` and
 * `search` print what the command line's `ls` and `search` print for the same directory (one
 * implementation), `clear` asks the terminal to clear, `browse` without a terminal fails
 * clearly, Tab offers ids with their entries' previews, `send assistant` takes the session's
 * model, and `compact` records pi's token estimate. The expected values are written out from
 * the texts the tests type, or taken from the CLI run as a separate process.
 *
 * The commands both front ends have run one implementation (issue 24): on the same session, the
 * REPL's `tree`, `ctx` and `info` print what `session-tree tree`, `ctx` and `info` print (piped:
 * no colours, no width), and the REPL's `label`, `nav`, `fork` write what the CLI's write. Where
 * the two differed before, the fix shows: `info` names a database's session by its location on
 * the command line too (it printed `file: undefined`), and the REPL's `new --dir FILE` says that
 * FILE is no directory (it printed Node's `EEXIST`).
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { executeLine } from "../../src/cli/repl/commands.js";
import { commonPrefix, completeLine } from "../../src/cli/repl/completion.js";
import { contextTokensBefore } from "../../src/cli/repl/edit-commands.js";
import { sessionModel } from "../../src/cli/repl/messages.js";
import { collectingState } from "../../src/cli/repl/state.js";
import { type AssistantMessage, type MessageEntry, Session } from "../../src/index.js";
import { SQLITE_SKIP } from "../support/sqlite.js";
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

async function errorOf(state: ReturnType<typeof collectingState>, line: string): Promise<string> {
	const outcome = await executeLine(state.state, line);
	return outcome.kind === "error" ? outcome.message : `(${outcome.kind})`;
}

describe("repl: ls and search run the CLI's commands on the REPL's directory", () => {
	test("ls lists the sessions of --dir; search finds in them; both print what the CLI prints", async () => {
		const dir = tempDir();
		const repl = collectingState({ dir });
		const run = runner(repl);
		const first = (await run("new --cwd /p")).trim();
		await run("send user What is a B-tree?");
		await run("send assistant A balanced search tree.");
		const second = (await run("new --cwd /p")).trim();
		await run("send user How do tries work?");

		const listed = await run("ls");
		assert.ok(listed.includes(first) && listed.includes(second), listed);
		assert.match(listed, /"What is a B-tree\?"/);
		const viaCli = await cli(["ls", dir]);
		assert.equal(viaCli.code, 0, viaCli.stderr);
		// Same table; the MODIFIED column says "just now" in both (written seconds ago).
		assert.equal(listed, viaCli.stdout);

		const found = await run("search B-tree");
		const cliFound = await cli(["search", "B-tree", dir]);
		assert.equal(found, cliFound.stdout);
		assert.match(found, new RegExp(`^${first.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"));
		assert.ok(!found.includes(second), "the other session has no B-tree");
		assert.match(await run('search "do TRIES" --ignore-case'), /How do tries work\?/);
		assert.match(await run("search 'B-?tree' --regex --limit 1"), /What is a B-tree\?/);

		// A DIR given wins over --dir; no match and usage problems are the REPL's errors.
		const empty = tempDir();
		assert.equal(await errorOf(repl, `ls ${empty} --all`), "give either DIR or --all, not both");
		assert.equal(await errorOf(repl, "search nowhere-to-be-found"), "no matches");
		assert.match(await errorOf(repl, "search"), /^missing <text> \(usage: search <text>/);
		assert.match(await errorOf(repl, "search x --limit 0"), /--limit takes a whole number of at least 1/);
		await repl.state.close();
	});
});

describe("repl: clear and browse", () => {
	test("clear calls the terminal's clear; in a script it does nothing and prints nothing", async () => {
		const repl = collectingState();
		assert.equal((await executeLine(repl.state, "clear")).kind, "ok");
		assert.equal(repl.output(), "");
		let cleared = 0;
		repl.state.env.clearScreen = () => {
			cleared++;
		};
		assert.equal((await executeLine(repl.state, "clear")).kind, "ok");
		assert.equal(cleared, 1);
		assert.match(await errorOf(repl, "clear now"), /unexpected argument "now"/);
	});

	test("browse without any terminal: the line fails clearly and the script goes on", async () => {
		const dir = tempDir();
		// noTerminal: no controlling terminal, so /dev/tty cannot be opened (as under cron).
		const result = await cli(["repl", "--dir", dir], {
			input: "new\nsend user hi\nbrowse --filter nope\nbrowse\ninfo\n",
			env: { SESSION_TREE_HISTORY: "" },
			noTerminal: true,
		});
		assert.equal(result.code, 1);
		const errors = result.stderr.trimEnd().split("\n");
		assert.match(errors[0] ?? "", /^session-tree: line 3: unknown filter "nope" \(use default, no-tools, /);
		assert.match(
			errors[1] ?? "",
			/^session-tree: line 4: browse needs a terminal: no terminal to draw on: .*\/dev\/tty.*; `tree` prints the tree$/,
		);
		assert.match(result.stdout, /^entries: 1$/m);
	});
});

describe("repl: Tab offers ids with their entries' text", () => {
	const ids = ["1a2b3c4d", "1a9f0000", "7e8f9a0b"];
	const previews: Record<string, string> = {
		"1a2b3c4d": "user: What is a B-tree? It is a question with a long tail of words",
		"1a9f0000": "assistant: A balanced search tree.",
		"7e8f9a0b": "user: And a trie?",
	};
	const source = {
		ids: () => ids,
		listDir: () => [],
		columns: 60,
		preview: (id: string, columns: number) => previews[id]?.slice(0, columns),
	};

	test("several ids: each with its preview, cut to the width; readline inserts only their common id prefix", () => {
		const [candidates, replaced] = completeLine("branch 1a", source);
		assert.equal(replaced, "1a");
		// 60 columns, less readline's 2 of padding, less the id and a gap of 2: 48 for the text.
		assert.deepEqual(candidates, [
			`1a2b3c4d  ${previews["1a2b3c4d"]?.slice(0, 48)}`,
			"1a9f0000  assistant: A balanced search tree.",
		]);
		for (const candidate of candidates) assert.ok(candidate.length <= 58, candidate);
		// What readline inserts: the candidates' common prefix, still an id prefix.
		assert.equal(commonPrefix(candidates), "1a");
		assert.equal(commonPrefix(completeLine("branch ", source)[0]), "");
		// summary takes root too: it says what root is.
		assert.ok(completeLine("summary ", source)[0].includes("root      before the first entry"));
	});

	test("one id: inserted alone, without its preview; without previews the bare ids, as before", () => {
		assert.deepEqual(completeLine("branch 1a2", source), [["1a2b3c4d "], "1a2"]);
		assert.deepEqual(completeLine("branch 1a", { ids: () => ids, listDir: () => [] }), [
			["1a2b3c4d", "1a9f0000"],
			"1a",
		]);
	});

	test("the REPL's previews come from the session's entries", async () => {
		const repl = collectingState({ dir: tempDir() });
		const run = runner(repl);
		await run("new");
		const q = (await run("send user What is a B-tree?")).trim();
		const a = (await run('send assistant "A balanced\nsearch tree."')).trim();
		assert.equal(repl.state.preview(q, 40), "user: What is a B-tree?");
		assert.equal(repl.state.preview(a, 40), "assistant: A balanced search tree.");
		// 20 columns, the ellipsis included.
		assert.equal(repl.state.preview(a, 20), "assistant: A balanc…");
		assert.equal(repl.state.preview("ffffffff", 40), undefined);
		await repl.state.close();
	});
});

describe("repl: send assistant and compact", () => {
	test("send assistant takes the session's model (and the api of its last reply); without one, pi's fields are empty", async () => {
		const dir = tempDir();
		const session = await Session.create({ dir, cwd: "/p" });
		await session.appendMessage({ role: "user", content: "hi", timestamp: 1 });
		await session.appendMessage({
			role: "assistant",
			content: [{ type: "text", text: "hello" }],
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-sonnet-4-5",
			usage: {
				input: 10,
				output: 2,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 12,
				cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
			},
			stopReason: "stop",
			timestamp: 2,
		});
		const file = session.file as string;
		await session.close();

		const repl = collectingState({ dir });
		const run = runner(repl);
		await run(`load ${file}`);
		const typed = (await run("send assistant typed by hand")).trim();
		await run("send user and now?");
		const reopened = await Session.open(file);
		const reply = (reopened.getEntry(typed) as MessageEntry).message as AssistantMessage;
		assert.deepEqual(
			{ api: reply.api, provider: reply.provider, model: reply.model },
			{ api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5" },
		);
		// A model change: its provider and id; no reply of that model yet, so no api.
		await reopened.appendModelChange("openai", "gpt-5");
		await reopened.close();
		await run(`load ${file}`);
		const after = (await run("send assistant on gpt-5")).trim();
		const changed = ((await Session.open(file)).getEntry(after) as MessageEntry).message as AssistantMessage;
		assert.deepEqual(
			{ api: changed.api, provider: changed.provider, model: changed.model },
			{ api: "", provider: "openai", model: "gpt-5" },
		);
		const ctx = await run("ctx");
		assert.match(ctx, /^model: openai\/gpt-5$/m);

		// No model anywhere: empty strings, and nothing prints "undefined".
		await run("new");
		await run("send user hi");
		const bare = (await run("send assistant hello")).trim();
		const bareReply = (repl.state.requireSession().getEntry(bare) as MessageEntry).message as AssistantMessage;
		assert.deepEqual(
			{ api: bareReply.api, provider: bareReply.provider, model: bareReply.model },
			{
				api: "",
				provider: "",
				model: "",
			},
		);
		const bareCtx = await run("ctx");
		assert.match(bareCtx, /^model: \(none\)$/m);
		assert.doesNotMatch(bareCtx + (await run("info")) + (await run("tree")), /undefined/);
		assert.equal(sessionModel([]), undefined);
		await repl.state.close();
	});

	test("compact records tokensBefore as pi estimates it: the last real usage plus ~characters/4 after it", async () => {
		const repl = collectingState({ dir: tempDir() });
		const run = runner(repl);
		const file = (await run("new")).trim();
		const q1 = (await run("send user What is a B-tree?")).trim();
		await run("send assistant A balanced search tree.");
		await run("send user And a trie?");
		const compaction = (await run(`compact ${q1} Talked about trees.`)).trim();
		await repl.state.close();
		const entry = (await Session.open(file)).getEntry(compaction) as unknown as Record<string, unknown>;
		// The typed reply reports a usage of 0 (no measurement): every message by its characters.
		// ceil(17/4) + ceil(23/4) + ceil(11/4) = 5 + 6 + 3.
		assert.equal(entry.tokensBefore, 14);

		// With a real usage on the path, pi's rule: that usage plus the estimate of what follows.
		const usage = { input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1200 };
		const messages = [
			{ role: "user", content: "What is a B-tree?", timestamp: 1 },
			{ role: "assistant", content: [{ type: "text", text: "x" }], provider: "p", model: "m", usage, timestamp: 2 },
			{ role: "user", content: "And a trie?", timestamp: 3 },
		] as const;
		assert.equal(contextTokensBefore(messages as never), 1200 + 3);
	});
});

/** What the CLI prints on stdout for `args`, which must succeed. */
async function cliOut(args: readonly string[]): Promise<string> {
	const result = await cli(args);
	assert.equal(result.code, 0, `${args.join(" ")}: ${result.stderr}`);
	return result.stdout;
}

describe("the CLI and the REPL print one implementation's lines", () => {
	test("tree, ctx, info and diff: the same text for the same session", async () => {
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
		// diff with one id compares its path with the leaf's.
		const leaf = (JSON.parse(await cliOut(["path", file, "--json"])) as string[]).at(-1) as string;
		assert.equal(await run(`diff ${question}`), await cliOut(["diff", file, question, leaf]));
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
	test("info on a database's session names it by its location, on both front ends", { skip: SQLITE_SKIP }, async () => {
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
