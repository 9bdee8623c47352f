/**
 * `session-tree repl` driven through piped stdin (the scripted mode), as a real process on
 * real files: output, errors and exit codes, abbreviated ids, and the files it leaves, which
 * session-tree and pi's own SessionManager must read to the same model context.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import {
	type AssistantMessage,
	type CustomMessageEntry,
	type MessageEntry,
	Session,
	type UserMessage,
} from "../../src/index.js";
import { asJson } from "../support/fixtures.js";
import { BIN, type CliResult, cli, lines, removeTempDirs, tempDir } from "./helpers.js";

after(removeTempDirs);

const ID = /^[0-9a-f]{8}$/;
const HISTORY = { SESSION_TREE_HISTORY: "" };

/** Runs `session-tree repl ...args` with `script` on stdin. */
function repl(args: readonly string[], script: string): Promise<CliResult> {
	return cli(["repl", ...args], { input: script, env: HISTORY });
}

/** Runs a script that must succeed, returning its stdout lines. */
async function ok(args: readonly string[], script: string): Promise<string[]> {
	const result = await repl(args, script);
	assert.equal(result.stderr, "", `stderr of:\n${script}`);
	assert.equal(result.code, 0);
	return lines(result.stdout);
}

function message(session: Session, id: string): Record<string, unknown> {
	return (session.getEntry(id) as MessageEntry).message as Record<string, unknown>;
}

/** pi's context for a file (opened from a copy: pi may rewrite what it opens). */
function piContext(file: string): unknown {
	const copy = join(tempDir(), "pi-copy.jsonl");
	copyFileSync(file, copy);
	return asJson(SessionManager.open(copy, dirname(copy)).buildSessionContext());
}

async function assertPiAgrees(file: string): Promise<void> {
	const ours = asJson((await Session.open(file)).buildSessionContext());
	assert.deepEqual(piContext(file), ours, `pi builds the same context from ${file}`);
}

/** A new session with four turns; returns the file and the ids. */
async function fourTurns(dir: string): Promise<{ file: string; q1: string; a1: string; q2: string; a2: string }> {
	const out = await ok(
		["--dir", dir],
		[
			"# a comment, then a blank line",
			"",
			"new --cwd /home/dev/project",
			"send user What is a B-tree?",
			'send assistant "A balanced  search tree."',
			"send user And a trie?",
			"send assistant A prefix tree.",
			"",
		].join("\n"),
	);
	assert.equal(out.length, 5, out.join("\n"));
	const [file, q1, a1, q2, a2] = out as [string, string, string, string, string];
	assert.equal(dirname(file), dir);
	assert.match(file, /\.jsonl$/);
	for (const id of [q1, a1, q2, a2]) assert.match(id, ID);
	return { file, q1, a1, q2, a2 };
}

describe("repl (scripted)", () => {
	test("new and send build realistic messages; quoted text is kept as is", async () => {
		const dir = tempDir();
		const { file, q1, a1 } = await fourTurns(dir);
		const session = await Session.open(file);
		assert.equal(session.getCwd(), "/home/dev/project");
		const user = message(session, q1) as UserMessage;
		assert.deepEqual(Object.keys(user).sort(), ["content", "role", "timestamp"]);
		assert.equal(user.content, "What is a B-tree?");
		assert.equal(typeof user.timestamp, "number");
		const assistant = message(session, a1) as AssistantMessage;
		assert.deepEqual(
			{ ...assistant, timestamp: 0 },
			{
				role: "assistant",
				content: [{ type: "text", text: "A balanced  search tree." }],
				// No model in the session: pi's required strings, empty (not a made-up model).
				api: "",
				provider: "",
				model: "",
				stopReason: "stop",
				usage: {
					input: 0,
					output: 0,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 0,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				},
				timestamp: 0,
			},
		);
		assert.ok(Math.abs(assistant.timestamp - Date.now()) < 60_000);

		const [toolId, customId] = await ok([file], "send toolResult 3 files\nsend custom remember the tests\n");
		const again = await Session.open(file);
		assert.deepEqual(
			{ ...message(again, toolId as string), timestamp: 0 },
			{
				role: "toolResult",
				toolCallId: "repl",
				toolName: "repl",
				content: [{ type: "text", text: "3 files" }],
				isError: false,
				timestamp: 0,
			},
		);
		const custom = again.getEntry(customId as string) as CustomMessageEntry;
		assert.equal(custom.type, "custom_message");
		assert.equal(custom.customType, "session-tree");
		assert.equal(custom.content, "remember the tests");
		assert.equal(custom.display, true);
		await assertPiAgrees(file);
	});

	test("branch, label, name, nav, summary, compact, tree, ctx, leaves, info — and pi agrees", async () => {
		const dir = tempDir();
		const { file, q1, a1, q2, a2 } = await fourTurns(dir);
		const p = (id: string) => id.slice(0, 6);
		const out = await ok(
			[file],
			[
				`branch ${p(a1)}`,
				"send user How do B-trees split?",
				`label ${p(q1)} start`,
				"name  B-tree chat ",
				`nav ${p(q2)}`,
				`nav ${p(a2)}`,
				`summary ${p(a1)} "Tried tries; back to B-trees."`,
				"send user What about B+ trees?",
				"send assistant Leaves are linked.",
				"leaves",
				"info",
			].join("\n"),
		);
		let i = 0;
		const next = () => out[i++] as string;
		assert.equal(next(), `leaf: ${a1}`);
		const q3 = next();
		assert.match(q3, ID);
		assert.equal(next(), `label of ${q1}: start`);
		assert.equal(next(), "name: B-tree chat");
		// A user message: the leaf goes to its parent and its text comes back to edit.
		assert.equal(next(), `leaf: ${a1}`);
		assert.equal(next(), "edit: And a trie?");
		// Any other entry becomes the leaf.
		assert.equal(next(), `leaf: ${a2}`);
		const summary = next();
		assert.match(summary, ID);
		const q4 = next();
		const a4 = next();
		const session = await Session.open(file);
		// leaves: every branch tip (sorted) with its last message, the leaf starred. The tip
		// of q3's branch is the name entry, which came after the label entry below q3.
		const leafLines = out.slice(i, i + 3);
		i += 3;
		const tips = session.listBranches();
		assert.equal(tips.length, 3);
		const lastMessage = (tip: string) => {
			const path = session.getBranch(tip).map((entry) => entry.id);
			if (path.includes(a4)) return "assistant: Leaves are linked.";
			if (path.includes(q3)) return "user: How do B-trees split?";
			return "assistant: A prefix tree.";
		};
		assert.deepEqual(
			leafLines,
			tips.map((tip) => `${tip === a4 ? "*" : " "} ${tip} ${lastMessage(tip)}`),
		);
		assert.ok(tips.includes(a2) && tips.includes(a4));
		const info = out.slice(i);
		assert.deepEqual(info.slice(0, 1), [`file: ${file}`]);
		assert.ok(info.includes("name: B-tree chat"));
		assert.ok(info.includes(`leaf: ${a4}`));

		assert.equal(session.getSessionName(), "B-tree chat");
		assert.equal(session.getLabel(q1), "start");
		assert.equal(session.getLeafId(), a4);
		assert.deepEqual(
			session.getBranch().map((entry) => entry.id),
			[q1, a1, summary, q4, a4],
		);
		assert.equal(session.getEntry(summary)?.type, "branch_summary");
		await assertPiAgrees(file);

		// tree and ctx print the shared renderers' output; then a compaction and a clear.
		const views = await ok([file], `tree\nctx\ncompact ${p(summary)} Talked about B-trees.\nlabel ${p(q1)}\nctx\n`);
		const text = views.join("\n");
		assert.match(text, /Session: B-tree chat/);
		assert.ok(views.some((line) => line.includes(q3) && line.includes("How do B-trees split?")));
		assert.ok(views.some((line) => line.includes(a4) && line.includes("← leaf")));
		assert.ok(views.some((line) => line.includes("[start]")));
		assert.ok(views.some((line) => /^1\. .*user: What is a B-tree\?/.test(line)));
		assert.ok(views.some((line) => /branch summary: Tried tries; back to B-trees\./.test(line)));
		assert.ok(
			views.some((line) => /^model: \(none\)$/.test(line)),
			text,
		);
		assert.doesNotMatch(text, /undefined/);
		const compactionId = views.find((line) => ID.test(line)) as string;
		assert.ok(views.includes(`label of ${q1} cleared`));
		assert.ok(
			views.some((line) => line.includes(compactionId) && /compaction summary: Talked about B-trees\./.test(line)),
		);
		const compacted = await Session.open(file);
		const compaction = compacted.getEntry(compactionId) as unknown as Record<string, unknown>;
		assert.equal(compaction.type, "compaction");
		assert.equal(compaction.firstKeptEntryId, summary);
		// pi's estimate of the context at the leaf: the replies typed here report a usage of 0,
		// so each message counts ceil(characters / 4), from the texts typed above (q1, a1, the
		// branch summary, the B+ question and its reply).
		const typed = [
			"What is a B-tree?",
			"A balanced  search tree.",
			"Tried tries; back to B-trees.",
			"What about B+ trees?",
			"Leaves are linked.",
		];
		const expectedTokens = typed.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
		assert.equal(expectedTokens, 29);
		assert.equal(compaction.tokensBefore, expectedTokens);
		assert.ok(Array.isArray(compaction.retainedTail) && compaction.retainedTail.length === 3);
		assert.equal(compacted.getLabel(q1), undefined);
		await assertPiAgrees(file);
	});

	test("tree and ctx take the views' options", async () => {
		const dir = tempDir();
		const { file, q1, a1, q2, a2 } = await fourTurns(dir);
		const userOnly = await ok([file], "tree --filter user-only\n");
		assert.equal(userOnly.length, 2);
		assert.ok(userOnly[0]?.includes(q1) && userOnly[1]?.includes(q2));
		const sub = await ok([file], `tree --from ${q2.slice(0, 6)} --depth 0\n`);
		assert.ok(sub[0]?.includes(q2));
		assert.ok(!sub.join("\n").includes(q1) && !sub.join("\n").includes(`${a2} assistant`));
		const full = await ok([file], "ctx --full\n");
		assert.ok(full.some((line) => line.includes(a1)));
		assert.ok(
			full.some((line) => line.trim() === "A balanced  search tree."),
			full.join("\n"),
		);
		const bad = await repl([file], "tree --filter nope\ntree --depth x\nctx --bogus\n");
		assert.equal(bad.code, 1);
		assert.deepEqual(lines(bad.stderr), [
			'session-tree: line 1: unknown filter "nope" (use default, no-tools, user-only, labeled-only, all) (usage: tree [--filter MODE] [--from ID] [--depth N] [--fold])',
			'session-tree: line 2: --depth takes a whole number of at least 0, not "x" (usage: tree [--filter MODE] [--from ID] [--depth N] [--fold])',
			"session-tree: line 3: unknown option --bogus (usage: ctx [--full])",
			"session-tree: 3 of 3 commands failed",
		]);
	});

	test("exit with stdin still open: the REPL ends at once", async () => {
		const dir = tempDir();
		const started = Date.now();
		const result = await new Promise<{ code: number | null; stdout: string }>((done, fail) => {
			const child = spawn(process.execPath, [BIN, "repl", "--dir", dir], {
				env: { ...process.env, ...HISTORY },
				stdio: ["pipe", "pipe", "inherit"],
			});
			let stdout = "";
			child.stdout.on("data", (chunk: Buffer) => {
				stdout += chunk.toString("utf8");
			});
			child.on("error", fail);
			child.on("close", (code) => done({ code, stdout }));
			// Never closed: the REPL must not wait for the end of its input after `exit`.
			child.stdin.write("new\nexit\n");
			setTimeout(() => child.kill(), 20_000).unref();
		});
		assert.equal(result.code, 0);
		assert.equal(lines(result.stdout).length, 1);
		assert.ok(Date.now() - started < 10_000);
	});

	test("fork and clone switch to the new file", async () => {
		const dir = tempDir();
		const { file, q1, a1 } = await fourTurns(dir);
		const before = readFileSync(file, "utf8");
		const out = await ok(
			[file],
			[`fork ${a1.slice(0, 5)}`, "send user Asked in the fork", "info", "clone", "send user In the clone", "info"].join(
				"\n",
			),
		);
		const forkFile = out[0] as string;
		assert.notEqual(forkFile, file);
		assert.equal(dirname(forkFile), dir);
		// Said, not only shown in the prompt: the REPL edits the fork now.
		assert.equal(out[1], `forked at ${a1}: the REPL now edits this new file (\`load ${file}\` goes back)`);
		const forkQ = out[2] as string;
		assert.ok(out.includes(`parentSession: ${file}`));
		assert.ok(out.includes(`file: ${forkFile}`));
		const cloneFile = out.find((line, index) => index > 2 && line.endsWith(".jsonl") && !line.includes(":")) as string;
		assert.ok(out.includes(`cloned: the REPL now edits this new file (\`load ${forkFile}\` goes back)`));
		assert.ok(out.includes(`parentSession: ${forkFile}`));
		assert.equal(readFileSync(file, "utf8"), before, "the original is untouched");

		const forked = await Session.open(forkFile);
		assert.deepEqual(
			forked.getBranch().map((entry) => entry.id),
			[q1, a1, forkQ],
		);
		const cloned = await Session.open(cloneFile);
		assert.equal(cloned.getHeader().parentSession, forkFile);
		assert.equal(cloned.getBranch().length, 4);
		await assertPiAgrees(forkFile);
		await assertPiAgrees(cloneFile);
	});

	test("an ambiguous prefix lists the candidates", async () => {
		const dir = tempDir();
		const script = ["new", ...Array.from({ length: 40 }, (_, i) => `send user message ${i}`)].join("\n");
		const [file] = await ok(["--dir", dir], script);
		const ids = (await Session.open(file as string)).getEntries().map((entry) => entry.id);
		// 40 ids over 16 first characters: some character starts several.
		const first = [...new Set(ids.map((id) => id[0] as string))].find(
			(char) => ids.filter((id) => id.startsWith(char)).length >= 2,
		) as string;
		const candidates = ids.filter((id) => id.startsWith(first));
		const result = await repl([file as string], `branch ${first}\n`);
		assert.equal(result.code, 1);
		assert.equal(result.stdout, "");
		const [error, summary] = lines(result.stderr);
		assert.match(
			error as string,
			new RegExp(`^session-tree: line 1: ${first} is ambiguous: it starts ${candidates.length} ids: `),
		);
		for (const id of candidates.slice(0, 10)) assert.ok(error?.includes(`${id} (message)`), id);
		assert.equal(summary, "session-tree: 1 of 1 commands failed");
	});

	test("errors: by default the script goes on and exits 1; --strict stops at the first", async () => {
		const dir = tempDir();
		const script = ["new", "send user one", "bogus", "", "send user two", "branch nothere", "send user three"].join(
			"\n",
		);

		const goOn = await repl(["--dir", dir], script);
		assert.equal(goOn.code, 1);
		assert.deepEqual(lines(goOn.stderr), [
			'session-tree: line 3: unknown command "bogus" (try `help`)',
			"session-tree: line 6: no entry id starts with nothere",
			"session-tree: 2 of 6 commands failed",
		]);
		const [file, ...ids] = lines(goOn.stdout);
		assert.equal(ids.length, 3);
		assert.equal((await Session.open(file as string)).entryCount, 3);

		const strict = await repl(["--dir", dir, "--strict"], script);
		assert.equal(strict.code, 1);
		assert.deepEqual(lines(strict.stderr), [
			'session-tree: line 3: unknown command "bogus" (try `help`)',
			"session-tree: stopped at line 3 (--strict)",
		]);
		const [strictFile, ...strictIds] = lines(strict.stdout);
		assert.equal(strictIds.length, 1);
		assert.equal((await Session.open(strictFile as string)).entryCount, 1, "nothing after the failing line ran");

		const fine = await repl(["--dir", dir, "--strict"], "new\nsend user fine\n");
		assert.equal(fine.code, 0);
		assert.equal(fine.stderr, "");
	});

	test("commands that need a session say so; usage problems name the usage", async () => {
		const result = await repl([], 'send user hi\ntree\nnew --bogus\nload\nsend user "open\n');
		assert.equal(result.code, 1);
		assert.deepEqual(lines(result.stderr), [
			"session-tree: line 1: no session: start one with `new` or open one with `load FILE`",
			"session-tree: line 2: no session: start one with `new` or open one with `load FILE`",
			"session-tree: line 3: unknown option --bogus (usage: new [--cwd CWD] [--dir DIR])",
			"session-tree: line 4: missing <file> (usage: load <file> [--lenient])",
			"session-tree: line 5: unterminated double quote",
			"session-tree: 5 of 5 commands failed",
		]);
		assert.equal(result.stdout, "");
	});

	test("load switches sessions; exit stops reading; output is plain", async () => {
		const dir = tempDir();
		const { file: first } = await fourTurns(dir);
		const { file: second } = await fourTurns(dir);
		const result = await cli(["repl", first], {
			input: `load ${second}\nsend user into the second\ntree\nexit\nsend user never\n`,
			env: { ...HISTORY, FORCE_COLOR: "1" },
		});
		assert.equal(result.code, 0, result.stderr);
		const [loaded, id, ...tree] = lines(result.stdout);
		assert.match(
			loaded as string,
			new RegExp(`^${second.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: 4 entries, leaf [0-9a-f]{8}$`),
		);
		assert.equal((await Session.open(second)).getLeafId(), id);
		assert.equal((await Session.open(first)).entryCount, 4);
		assert.equal((await Session.open(second)).entryCount, 5, "nothing after exit ran");
		// Plain output when scripted, even with FORCE_COLOR: no colours, no prompt, no echo.
		assert.equal(tree.length, 5);
		assert.ok(!result.stdout.includes("\u001b["));
		assert.ok(!result.stdout.includes("session-tree ["));
		assert.ok(!result.stdout.includes("send user"));
	});

	test("help lists every command; a missing FILE fails before any command runs", async () => {
		const help = await ok([], "help\nhelp send\n");
		for (const command of [
			"new",
			"load",
			"send",
			"branch",
			"fork",
			"clone",
			"compact",
			"summary",
			"nav",
			"label",
			"name",
			"tree",
			"ctx",
			"leaves",
			"info",
			"help",
			"exit",
		]) {
			assert.ok(
				help.some((line) => line.startsWith(`  ${command}`)),
				command,
			);
		}
		assert.ok(help.includes("usage: send <role> <text…>"));

		const missing = join(tempDir(), "missing.jsonl");
		const result = await repl([missing], "new\n");
		assert.equal(result.code, 1);
		assert.equal(result.stdout, "");
		assert.equal(result.stderr, `session-tree: ${missing}: no such session\n`);
	});

	test("repl --help; a bare session-tree without a terminal prints the help", async () => {
		const help = await cli(["repl", "--help"]);
		assert.equal(help.code, 0);
		assert.match(help.stdout, /^Usage: session-tree repl \[FILE\]/);
		assert.match(help.stdout, /--strict/);
		assert.match(help.stdout, /Examples:/);
		const bare = await cli([]);
		assert.equal(bare.code, 0);
		assert.match(bare.stdout, /^session-tree: /);
		assert.match(bare.stdout, /^ {2}repl /m);
		const usage = await cli(["repl", "a.jsonl", "b.jsonl"]);
		assert.equal(usage.code, 2);
	});
});
