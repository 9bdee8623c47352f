/**
 * `session-tree demo`: the tutorial's lifecycle of a branching session, narrated step by step
 * on a real file: new session → three turns → branch back and ask differently → fork turn 3
 * into a new file → compaction → one more turn → edit the last question → reopen from disk.
 */

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { AssistantMessage, UserMessage } from "../../core/types.js";
import { renderContextLines } from "../../render/context-text.js";
import { renderTreeLines } from "../../render/tree-text.js";
import { Session } from "../../session.js";
import { type CliIO, type CommandHandler, stringValue } from "../args.js";

/** claude-sonnet-4-5 prices in dollars per million tokens. */
const PRICE = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

function dollars(tokens: number, perMillion: number): number {
	return Math.round(tokens * perMillion) / 1e6;
}

function user(text: string): UserMessage {
	return { role: "user", content: text, timestamp: Date.now() };
}

/** An assistant reply shaped like pi's. */
function assistant(text: string, input: number, output: number, cacheRead = 0, cacheWrite = 0): AssistantMessage {
	const cost = {
		input: dollars(input, PRICE.input),
		output: dollars(output, PRICE.output),
		cacheRead: dollars(cacheRead, PRICE.cacheRead),
		cacheWrite: dollars(cacheWrite, PRICE.cacheWrite),
		total: 0,
	};
	cost.total = Math.round((cost.input + cost.output + cost.cacheRead + cost.cacheWrite) * 1e6) / 1e6;
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		api: "anthropic-messages",
		provider: "anthropic",
		model: "claude-sonnet-4-5",
		usage: { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost },
		stopReason: "stop",
		timestamp: Date.now(),
	};
}

class Narrator {
	private step = 0;
	constructor(private readonly io: CliIO) {}

	line(text = ""): void {
		this.io.out(`${text}\n`);
	}

	heading(title: string, ...explanation: string[]): void {
		this.step++;
		const head = `── ${this.step}. ${title} `;
		this.line();
		this.line(head.padEnd(72, "─"));
		for (const text of explanation) this.line(text);
	}

	tree(session: Session, title = "tree"): void {
		this.line(`${title}:`);
		const lines = renderTreeLines(session.getTree(), { leafId: session.getLeafId(), previewLength: 48 });
		for (const text of lines) this.line(`  ${text}`);
	}

	context(session: Session, title = "context (what the model is sent)"): void {
		this.line(`${title}:`);
		const lines = renderContextLines(session.buildSessionContext(), {
			entries: session.buildContextEntries(),
			previewLength: 56,
		});
		for (const text of lines) this.line(`  ${text}`);
	}

	both(session: Session): void {
		this.tree(session);
		this.context(session);
	}
}

function lineCount(file: string | undefined): number {
	if (!file) return 0;
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line !== "").length;
}

/** Runs the narrated lifecycle in `dir`. */
export async function runDemo(dir: string, io: CliIO): Promise<void> {
	const say = new Narrator(io);
	say.line("session-tree demo: one append-only JSONL file holds a whole conversation tree;");
	say.line("the model is only ever sent one path through it, from the root to the leaf.");

	say.heading(
		"new session",
		"A session file starts with one header line; every later line is an entry with an id and",
		"a parentId. The leaf pointer marks the end of the active branch.",
	);
	const session = await Session.create({ dir, cwd: process.cwd() });
	const file = session.location;
	say.line(`file: ${file}`);
	say.both(session);

	say.heading("three turns", "Each append writes one line whose parentId is the leaf, then moves the leaf to it.");
	await session.appendMessage(user("Our CI fails with 'ReferenceError: structuredClone is not defined'. Why?"));
	await session.appendMessage(
		assistant(
			"structuredClone is a global only since Node 17, and your workflow still runs Node 16.",
			2140,
			48,
			0,
			2048,
		),
	);
	const question2 = await session.appendMessage(user("Then pin the CI to Node 20."));
	const reply2 = await session.appendMessage(
		assistant("Done: .github/workflows/ci.yml now sets node-version: 20 in setup-node.", 2310, 41, 2048),
	);
	await session.appendMessage(user("Also add a polyfill so that Node 16 users don't break."));
	const reply3 = await session.appendMessage(
		assistant("Added core-js/actual/structured-clone, imported first thing in src/index.ts.", 2480, 57, 2304),
	);
	say.line(`file: ${lineCount(file)} lines (1 header + 6 entries)`);
	say.both(session);

	say.heading(
		`branch back to turn 2's reply (${reply2})`,
		"branch only moves the leaf pointer; nothing is rewritten. Turn 3 stays in the file, off",
		"the active path. One small `leaf` record is appended so that the move survives a restart.",
	);
	await session.branch(reply2);
	say.line(`file: ${lineCount(file)} lines (the 6 entries are untouched)`);
	say.both(session);

	say.heading(
		"ask differently",
		"The next append is a child of the leaf, so the tree forks at turn 2's reply: two",
		"branches, one file. History is never edited, only branched.",
	);
	await session.appendMessage(user("Rather than a polyfill, declare that we need Node 20."));
	await session.appendMessage(
		assistant('Added "engines": { "node": ">=20" } to package.json; npm warns on older Node.', 2520, 44, 2304),
	);
	say.both(session);

	say.heading(
		`fork turn 3 (${reply3}) into a new file`,
		"fork copies the path root → turn 3 into a new file whose header names this one as",
		"parentSession, to explore the polyfill idea elsewhere. The original file is not changed.",
	);
	const forked = await session.fork(reply3);
	say.line(`new file: ${forked.file}`);
	say.line(`parentSession: ${forked.getHeader().parentSession}`);
	say.tree(forked, "tree of the new file");
	say.context(forked, "its context");
	await forked.close();

	say.heading(
		"compaction",
		"The context grows with every turn. A compaction summarises turn 1: the model now gets",
		"the summary, then the path from firstKeptEntryId (turn 2's question) on. Turn 1 stays in",
		"the file and in the tree; it is just not sent any more. The kept messages are also stored",
		"in the compaction entry (retainedTail, marked (kept)), so nothing before it must be read.",
	);
	const tokensBefore = 2520 + 44 + 2304;
	const compaction = await session.appendCompaction(
		"The CI failed with 'structuredClone is not defined' because the workflow ran Node 16; the global exists since Node 17.",
		question2,
		tokensBefore,
		undefined,
		false,
		true,
	);
	say.both(session);

	say.heading("one more turn", "New turns follow the compaction: summary, kept messages, then everything after it.");
	const question5 = await session.appendMessage(user("Write a changelog line for this."));
	await session.appendMessage(
		assistant("- Require Node.js 20 or newer (CI and package.json engines).", 1630, 22, 1536),
	);
	say.both(session);

	say.heading(
		"edit the last question (pi's /tree)",
		"Navigating to a user message moves the leaf to its parent and hands its text back to edit",
		"and send again; here the user closes the agent instead, before sending anything.",
	);
	const navigated = await session.navigate(question5);
	say.line(`editor text: ${JSON.stringify(navigated.editorText)}`);
	say.both(session);
	await session.close();

	say.heading(
		"reopen the file from disk",
		"pi keeps the leaf in memory only and resumes at the last entry of the file. session-tree",
		"appended a `leaf` record for the move (its parentId is the target, so pi reading this file",
		"resumes on the same path too), so the leaf survives the restart.",
	);
	const reopened = await Session.open(file);
	const leaf = reopened.getLeafId();
	const verdict = leaf === compaction ? "it survived" : `expected ${compaction}`;
	say.line(`file: ${lineCount(file)} lines; leaf after reopening: ${leaf} (${verdict})`);
	say.context(reopened);
	await reopened.close();

	say.line();
	say.line(`Try: session-tree tree ${file}`);
}

/** Runs `session-tree demo`; its name, options and help are in its spec (src/cli/specs/meta.ts). */
export const demoCommand: CommandHandler = {
	async run({ values, io }) {
		const dir = stringValue(values, "dir");
		await runDemo(dir !== undefined ? resolve(dir) : mkdtempSync(join(tmpdir(), "session-tree-demo-")), io);
	},
};
