/**
 * The REPL's pure parts: the tokenizer, completion, the history file, width fitting, and
 * command dispatch on a state that collects its output (real session files in a temp dir).
 */

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { COMMAND_SPECS, REPL_COMMAND_SPECS, TREE_FILTER_NAMES } from "../../src/cli/registry.js";
import { executeLine, REPL_COMMANDS } from "../../src/cli/repl/commands.js";
import { commonPrefix, completeLine, type DirEntry, MAX_CANDIDATES } from "../../src/cli/repl/completion.js";
import { History, historyFile, parseHistory } from "../../src/cli/repl/history.js";
import { toolResultMessage } from "../../src/cli/repl/messages.js";
import { collectingState } from "../../src/cli/repl/state.js";
import { makeStyle } from "../../src/cli/repl/style.js";
import { quoteWord, splitWords, TokenizeError, tokenize } from "../../src/cli/repl/tokenize.js";
import { type AssistantMessage, type MessageEntry, Session } from "../../src/index.js";
import { displayWidth, shouldColor, truncateToWidth } from "../../src/render/terminal.js";
import { TREE_FILTERS } from "../../src/render/tree-text.js";
import { removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

describe("tokenizer", () => {
	test("words, quotes and escapes", () => {
		assert.deepEqual(splitWords("send user hello world"), ["send", "user", "hello", "world"]);
		assert.deepEqual(splitWords('  send   user  "a  b"  '), ["send", "user", "a  b"]);
		assert.deepEqual(splitWords("label x 'it''s'"), ["label", "x", "its"]);
		assert.deepEqual(splitWords(`name 'say "hi"'`), ["name", 'say "hi"']);
		assert.deepEqual(splitWords('send user "line1\\nline2\\t\\"q\\" \\\\ \\x"'), [
			"send",
			"user",
			'line1\nline2\t"q" \\ \\x',
		]);
		assert.deepEqual(splitWords("load my\\ file.jsonl"), ["load", "my file.jsonl"]);
		assert.deepEqual(splitWords('new --cwd="/a b"'), ["new", "--cwd=/a b"]);
		assert.deepEqual(splitWords('label 1a ""'), ["label", "1a", ""]);
		assert.deepEqual(splitWords("\tbranch\t1a2b"), ["branch", "1a2b"]);
		assert.deepEqual(splitWords("ends with \\"), ["ends", "with", "\\"]);
		assert.deepEqual(splitWords(""), []);
	});

	test("an unterminated quote is an error for a whole line, a state while typing", () => {
		assert.throws(() => splitWords('send user "open'), TokenizeError);
		assert.throws(() => splitWords("send user 'open"), /unterminated single quote/);
		const typing = tokenize('load "my dir/fi');
		assert.equal(typing.openQuote, '"');
		assert.deepEqual(
			typing.tokens.map((token) => [token.value, token.start, token.quoted]),
			[
				["load", 0, false],
				["my dir/fi", 5, true],
			],
		);
		assert.equal(typing.endsInSpace, false);
		assert.equal(tokenize("branch ").endsInSpace, true);
		assert.equal(tokenize("branch\\ ").endsInSpace, false);
		assert.equal(tokenize("").endsInSpace, false);
	});

	test("quoteWord round-trips through the tokenizer", () => {
		for (const word of ["plain", "a b", 'q"uote', "back\\slash", "tab\there", "new\nline", "", "it's"]) {
			assert.deepEqual(splitWords(quoteWord(word)), [word], JSON.stringify(word));
		}
		assert.equal(quoteWord("plain"), "plain");
		assert.equal(quoteWord("a b", { close: false }), '"a b');
		assert.equal(quoteWord("ab", { force: true }), '"ab"');
	});
});

describe("completion", () => {
	const ids = ["1a2b3c4d", "1a9f0000", "7e8f9a0b"];
	const tree: Record<string, DirEntry[]> = {
		"/w": [
			{ name: "sessions", isDirectory: true },
			{ name: "s1.jsonl", isDirectory: false },
			{ name: "notes.txt", isDirectory: false },
			{ name: ".hidden.jsonl", isDirectory: false },
			{ name: "my dir", isDirectory: true },
		],
		"/w/sessions": [
			{ name: "a.jsonl", isDirectory: false },
			{ name: "b.jsonl", isDirectory: false },
		],
		"/w/my dir": [{ name: "x.jsonl", isDirectory: false }],
		"/home/me": [{ name: "h.jsonl", isDirectory: false }],
	};
	const source = {
		ids: () => ids,
		listDir: (dir: string) => {
			const entries = tree[dir];
			if (!entries) throw new Error(`ENOENT ${dir}`);
			return entries;
		},
		cwd: "/w",
		home: "/home/me",
	};
	const complete = (line: string) => completeLine(line, source);

	test("command names", () => {
		assert.deepEqual(complete("bra"), [["branch "], "bra"]);
		assert.deepEqual(complete("  bra"), [["branch "], "bra"]);
		assert.deepEqual(complete("c"), [["clear", "clone", "compact", "ctx"], "c"]);
		assert.deepEqual(complete("zzz"), [[], "zzz"]);
		const all = complete("")[0];
		for (const command of REPL_COMMANDS) assert.ok(all.includes(command.name), command.name);
		assert.deepEqual(complete("help na"), [["name", "nav"], "na"]);
	});

	test("entry ids: the prefix under the cursor", () => {
		assert.deepEqual(complete("branch 1a"), [["1a2b3c4d", "1a9f0000"], "1a"]);
		assert.deepEqual(complete("branch 1a2"), [["1a2b3c4d "], "1a2"]);
		assert.deepEqual(complete("branch "), [ids, ""]);
		assert.deepEqual(complete("nav 7"), [["7e8f9a0b "], "7"]);
		assert.deepEqual(complete("label 7e"), [["7e8f9a0b "], "7e"]);
		assert.deepEqual(complete("fork 1a9"), [["1a9f0000 "], "1a9"]);
		assert.deepEqual(complete("compact 1a2"), [["1a2b3c4d "], "1a2"]);
		// `summary` also takes `root`.
		assert.deepEqual(complete("summary r"), [["root "], "r"]);
		// Text positions offer nothing.
		assert.deepEqual(complete("label 7e8f9a0b 1a"), [[], "1a"]);
		assert.deepEqual(complete("send user 1a"), [[], "1a"]);
		assert.deepEqual(complete("bogus 1a"), [[], "1a"]);
	});

	test("roles and options", () => {
		assert.deepEqual(complete("send a"), [["assistant "], "a"]);
		assert.deepEqual(complete("send "), [["assistant", "custom", "toolResult", "user"], ""]);
		assert.deepEqual(complete("new --c"), [["--cwd "], "--c"]);
		assert.deepEqual(complete("new --cwd s"), [["sessions/"], "s"]);
		assert.deepEqual(complete("load --l"), [["--lenient "], "--l"]);
		assert.deepEqual(complete("tree --f"), [["--filter", "--fold", "--from"], "--f"]);
		assert.deepEqual(complete("tree --filter u"), [["user-only "], "u"]);
		assert.deepEqual(complete("tree --from 7"), [["7e8f9a0b "], "7"]);
		assert.deepEqual(complete("tree --depth 1"), [[], "1"]);
		assert.deepEqual(complete("tree --fold --from 1a2"), [["1a2b3c4d "], "1a2"]);
	});

	test("file paths for load", () => {
		// Directories and .jsonl files; no dot files; files get a space, directories a slash.
		assert.deepEqual(complete("load "), [['"my dir/', '"s1.jsonl"', '"sessions/'], ""]);
		assert.deepEqual(complete("load s"), [["s1.jsonl", "sessions/"], "s"]);
		assert.deepEqual(complete("load se"), [["sessions/"], "se"]);
		assert.deepEqual(complete("load sessions/"), [["sessions/a.jsonl", "sessions/b.jsonl"], "sessions/"]);
		assert.deepEqual(complete("load sessions/a"), [["sessions/a.jsonl "], "sessions/a"]);
		assert.deepEqual(complete("load ."), [[".hidden.jsonl "], "."]);
		// No .jsonl file matches: any file.
		assert.deepEqual(complete("load n"), [["notes.txt "], "n"]);
		// Names with spaces are quoted; the quote stays open for a directory.
		assert.deepEqual(complete("load my"), [['"my dir/'], "my"]);
		assert.deepEqual(complete('load "my dir/'), [['"my dir/x.jsonl" '], '"my dir/']);
		assert.deepEqual(complete("load ~/"), [["~/h.jsonl "], "~/"]);
		assert.deepEqual(complete("load /nowhere/x"), [[], "/nowhere/x"]);
	});

	test("too many ids: only their common prefix", () => {
		const many = Array.from({ length: MAX_CANDIDATES + 1 }, (_, i) => `ab${i.toString(16).padStart(6, "0")}`);
		assert.deepEqual(completeLine("branch a", { ids: () => many, listDir: () => [] }), [["ab0000"], "a"]);
		assert.equal(commonPrefix(["abc", "abd", "ab"]), "ab");
		assert.equal(commonPrefix([]), "");
	});
});

describe("history", () => {
	test("where the file is", () => {
		assert.equal(historyFile({ SESSION_TREE_HISTORY: "/x/h" }, "/home/me"), "/x/h");
		assert.equal(historyFile({ SESSION_TREE_HISTORY: "" }, "/home/me"), undefined);
		assert.equal(historyFile({ XDG_STATE_HOME: "/state" }, "/home/me"), "/state/session-tree/history");
		assert.equal(historyFile({ XDG_STATE_HOME: "relative" }, "/home/me"), "/home/me/.local/state/session-tree/history");
		assert.equal(historyFile({}, "/home/me"), "/home/me/.local/state/session-tree/history");
	});

	test("appends as commands come, keeps the last N, private to the user", () => {
		const dir = tempDir();
		const file = join(dir, "state", "session-tree", "history");
		const history = new History(file, { size: 5 });
		assert.deepEqual(history.load(), []);
		for (const line of ["new", "", "   ", " secret", "send user hi", "send user hi", "tree"]) history.add(line);
		assert.equal(readFileSync(file, "utf8"), "new\nsend user hi\ntree\n");
		assert.equal(statSync(file).mode & 0o777, 0o600);
		for (let i = 0; i < 6; i++) history.add(`send user ${i}`);
		history.trim();
		assert.deepEqual(
			parseHistory(readFileSync(file, "utf8")),
			[1, 2, 3, 4, 5].map((i) => `send user ${i}`),
		);
		assert.equal(statSync(file).mode & 0o777, 0o600);

		// Too long a file is cut on load too.
		writeFileSync(file, Array.from({ length: 9 }, (_, i) => `c${i}\n`).join(""));
		const again = new History(file, { size: 5 });
		assert.deepEqual(again.load(), ["c4", "c5", "c6", "c7", "c8"]);
		assert.equal(readFileSync(file, "utf8"), "c4\nc5\nc6\nc7\nc8\n");
	});

	test("an unwritable history warns once and does not stop the REPL", () => {
		const dir = tempDir();
		const blocker = join(dir, "file");
		writeFileSync(blocker, "");
		const warnings: string[] = [];
		const history = new History(join(blocker, "history"), { warn: (message) => warnings.push(message) });
		assert.deepEqual(history.load(), []);
		history.add("a");
		history.add("b");
		assert.equal(warnings.length, 1);
		assert.match(warnings[0] as string, /^history not saved/);
	});

	test("turned off", () => {
		const history = new History(undefined);
		history.add("new");
		assert.deepEqual(history.load(), []);
	});
});

describe("style", () => {
	test("colour only on a terminal, never with NO_COLOR; FORCE_COLOR wins", () => {
		assert.equal(shouldColor({ isTTY: true }, {}), true);
		assert.equal(shouldColor({ isTTY: false }, {}), false);
		assert.equal(shouldColor({}, {}), false);
		assert.equal(shouldColor({ isTTY: true }, { NO_COLOR: "1" }), false);
		assert.equal(shouldColor({ isTTY: true }, { NO_COLOR: "" }), true);
		assert.equal(shouldColor({ isTTY: true }, { TERM: "dumb" }), false);
		assert.equal(shouldColor({ isTTY: false }, { FORCE_COLOR: "1" }), true);
		assert.equal(shouldColor({ isTTY: true }, { FORCE_COLOR: "0" }), false);
		assert.equal(makeStyle(false).yellow("x"), "x");
		assert.equal(makeStyle(true).yellow("x"), "\x1b[33mx\x1b[39m");
	});

	test("fitting lines to a width: escapes take no room, wide characters two columns", () => {
		assert.equal(truncateToWidth("abcdef", 6), "abcdef");
		assert.equal(truncateToWidth("abcdefg", 6), "abcde…");
		assert.equal(displayWidth("\x1b[31mabc\x1b[39m"), 3);
		assert.equal(truncateToWidth("\x1b[31mabcdefg\x1b[39m", 4), "\x1b[31mabc…\x1b[0m");
		assert.equal(displayWidth("日本語"), 6);
		assert.equal(truncateToWidth("日本語です", 7), "日本語…");
		assert.equal(displayWidth("e\u0301"), 1);
		assert.equal(displayWidth("👍🏽"), 2);
		assert.equal(truncateToWidth("abc", 0), "");
	});
});

describe("the command registry", () => {
	test("each REPL command of the registry runs, in the registry's order", () => {
		assert.deepEqual(
			REPL_COMMANDS.map((command) => command.name),
			REPL_COMMAND_SPECS.map((spec) => spec.name),
		);
		for (const command of REPL_COMMANDS) assert.equal(typeof command.run, "function", command.name);
	});

	test("names and aliases are unique; every command has a front end", () => {
		const words = COMMAND_SPECS.flatMap((spec) => [spec.name, ...(spec.repl?.aliases ?? [])]);
		assert.equal(new Set(words).size, words.length);
		for (const spec of COMMAND_SPECS) assert.ok(spec.cli || spec.repl, spec.name);
	});

	test("the REPL's help lines fit 80 columns: usage column 34, summary 42", () => {
		for (const spec of REPL_COMMAND_SPECS) assert.ok(spec.summary.length <= 42, `${spec.name}: ${spec.summary}`);
	});

	test("the filter names written out in the registry are the renderer's", () => {
		assert.deepEqual(TREE_FILTER_NAMES, TREE_FILTERS);
	});

	test("the CLI's `repl` help lists every REPL command", () => {
		const description = COMMAND_SPECS.find((spec) => spec.name === "repl")?.cli?.description ?? "";
		const listed = /reads commands: ([^(]*)\(/.exec(description.replace(/\n/g, " "))?.[1];
		assert.deepEqual(
			listed?.split(",").map((word) => word.trim()),
			REPL_COMMAND_SPECS.map((spec) => spec.name),
		);
	});
});

describe("commands on a collecting state", () => {
	test("a session from new to fork, with plain output", async () => {
		const dir = tempDir();
		const { state, output, errors } = collectingState({ dir });
		const run = async (line: string) => {
			const outcome = await executeLine(state, line);
			assert.notEqual(outcome.kind, "error", `${line}: ${outcome.kind === "error" ? outcome.message : ""}`);
			return output();
		};
		const file = (await run("new --cwd /p")).trim();
		assert.ok(file.startsWith(dir));
		const q1 = (await run("send user hello")).trim();
		const a1 = (await run("send assistant hi there")).trim();
		assert.match(q1, /^[0-9a-f]{8}$/);
		assert.equal(await run(`branch ${q1.slice(0, 6)}`), `leaf: ${q1}\n`);
		assert.equal(await run(`nav ${a1}`), `leaf: ${a1}\n`);
		assert.equal(await run(`nav ${q1}`), "leaf: (root)\nedit: hello\n");
		assert.equal(await run("name  demo "), "name: demo\n");
		assert.equal(await run("name"), "name: demo\n");
		assert.match(state.promptLabel() as string, /^demo [0-9a-f]{8}$/);
		assert.equal(await run("# a comment"), "");
		assert.equal((await executeLine(state, "   ")).kind, "empty");
		// fork and clone switch to the new file, and say so: its path, then that the REPL edits it.
		const [forked, forkNote, ...forkRest] = (await run(`fork ${q1}`)).split("\n");
		assert.notEqual(forked, file);
		assert.equal(state.session?.file, forked);
		assert.equal(forkNote, `forked at ${q1}: the REPL now edits this new file (\`load ${file}\` goes back)`);
		assert.deepEqual(forkRest, [""]);
		assert.equal(state.session?.entryCount, 1);
		const [cloned, cloneNote] = (await run("clone")).split("\n");
		assert.equal(state.session?.file, cloned);
		assert.equal(cloneNote, `cloned: the REPL now edits this new file (\`load ${forked}\` goes back)`);
		assert.match(await run(`load ${file}`), /: \d+ entries, leaf [0-9a-f]{8}\n$/);
		assert.equal(state.session?.file, file);
		assert.equal((await executeLine(state, "quit")).kind, "exit");
		assert.equal(errors(), "");
		await state.close();
	});

	test("errors say what is wrong", async () => {
		const { state } = collectingState({ dir: tempDir() });
		const message = async (line: string) => {
			const outcome = await executeLine(state, line);
			return outcome.kind === "error" ? outcome.message : `(${outcome.kind})`;
		};
		assert.match(await message("send user hi"), /^no session: start one with `new` or open one with `load FILE`$/);
		assert.match(await message("tree"), /^no session/);
		assert.match(await message("frobnicate"), /unknown command "frobnicate"/);
		assert.match(await message("new --bogus"), /unknown option --bogus \(usage: new/);
		assert.match(await message("load"), /missing <file>/);
		assert.equal(await message("new"), "(ok)");
		assert.match(await message("send"), /missing <role>/);
		assert.match(await message("send robot hi"), /unknown role "robot": use user, assistant, toolResult, custom/);
		assert.match(await message("send user"), /missing <text…> \(usage: send <role> <text…>\)/);
		assert.match(await message('send user "open'), /unterminated double quote/);
		// The current file is not repeated in id errors.
		assert.equal(await message("branch ffffffff"), "no entry id starts with ffffffff");
		assert.match(await message("load /no/such/file.jsonl"), /no such session/);
		assert.match(await message("help bogus"), /unknown command "bogus"/);
		assert.match(await message("ctx --full=yes"), /option --full takes no value \(usage: ctx/);
		await state.close();
	});

	test("toolResult answers the open tool call on the path", async () => {
		const session = await Session.inMemory();
		await session.appendMessage({ role: "user", content: "list files", timestamp: 1 });
		const call: AssistantMessage = {
			role: "assistant",
			content: [
				{ type: "toolCall", id: "call_1", name: "ls", arguments: {} },
				{ type: "toolCall", id: "call_2", name: "cat", arguments: {} },
			],
			provider: "p",
			model: "m",
			timestamp: 2,
		};
		await session.appendMessage(call);
		const first = toolResultMessage(session.getBranch(), "a b", 3);
		assert.deepEqual(first, {
			role: "toolResult",
			toolCallId: "call_1",
			toolName: "ls",
			content: [{ type: "text", text: "a b" }],
			isError: false,
			timestamp: 3,
		});
		const id = await session.appendMessage(first);
		assert.equal(((session.getEntry(id) as MessageEntry).message as { toolCallId: string }).toolCallId, "call_1");
		assert.equal(toolResultMessage(session.getBranch(), "x", 4).toolCallId, "call_2");
		await session.appendMessage(toolResultMessage(session.getBranch(), "x", 4));
		assert.equal(toolResultMessage(session.getBranch(), "y", 5).toolCallId, "repl");
	});

	test("listings are cut to the width", async () => {
		const dir = tempDir();
		mkdirSync(dir, { recursive: true });
		const { state, output } = collectingState({ dir, width: 40 });
		await executeLine(state, "new");
		await executeLine(state, `send user ${"long words ".repeat(20)}`);
		output();
		for (const command of ["tree", "ctx", "leaves", "info"]) {
			await executeLine(state, command);
			for (const line of output().split("\n")) assert.ok(displayWidth(line) <= 40, `${command}: ${line}`);
		}
		await state.close();
	});
});
