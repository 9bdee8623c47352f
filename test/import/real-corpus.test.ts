/**
 * The real-history corpus (test/fixtures/real/, provenance in its SOURCES.md): every file listed
 * in a folder's expected.json goes through the built CLI as a user would run it, and what it
 * writes is checked against values derived from the source file itself.
 *
 * The expected values come from test/fixtures/real/derive.py, an independent Python script
 * that reads the sources directly (never session-tree's code); its docstring says how each value
 * is derived. Folders added with their own expected.json (by hand or by another script) are
 * picked up as they are. Per file:
 * - `session: false`: `import --lenient FILE` exits 1 with an error line naming the file, no
 *   stack trace, and writes nothing.
 * - `session: true`: `import --lenient FILE --dir TMP` exits 0 and writes `sessions` sessions
 *   (pi files are not imported but read: `ctx --json --lenient FILE` exits 0 and shows the
 *   context the library builds). Every session opened by pi's own SessionManager and by
 *   session-tree gives the same context (for a pi file the CLI warns is damaged: every message of
 *   pi's context is in ours, in order, since lenient reading recovers what pi drops); at the leaf, every expected tool result is there, right after the assistant
 *   message holding its call (or after the other results of that message), and no result is
 *   without its call; the active path holds a user message starting with `firstPrompt`; a Codex
 *   source with prompts has user messages in its context.
 * Every check of a file runs and the test lists all that failed, so one run is a full checklist.
 * Files are imported one CLI call each (about half a second a file).
 */

import assert from "node:assert/strict";
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { after, describe, test } from "node:test";
import { isDeepStrictEqual } from "node:util";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { Session } from "../../src/index.js";
import { cli } from "../cli/helpers.js";
import { asJson, REPO, removeTemps, tempDir } from "./helpers.js";

after(removeTemps);

const REAL = join(REPO, "test", "fixtures", "real");

/** One file's expected values (the schema of test/fixtures/real/derive.py). */
interface Expected {
	session: boolean;
	format: string | null;
	sessions: number;
	toolResults: string[];
	firstPrompt: string | null;
	userPrompts: number;
	notes?: string;
	perSession?: Record<string, Omit<Expected, "session" | "format" | "sessions" | "perSession">>;
}

interface CorpusFile {
	folder: string;
	name: string;
	file: string;
	expected: Expected;
}

/** Every file of every folder that has an expected.json, in folder and file order. */
function corpus(): CorpusFile[] {
	const files: CorpusFile[] = [];
	for (const folder of readdirSync(REAL).sort()) {
		const listing = join(REAL, folder, "expected.json");
		if (!statSync(join(REAL, folder)).isDirectory() || !existsSync(listing)) continue;
		const expected = JSON.parse(readFileSync(listing, "utf8")) as Record<string, Expected>;
		for (const name of Object.keys(expected).sort()) {
			files.push({ folder, name, file: join(REAL, folder, name), expected: expected[name] as Expected });
		}
	}
	return files;
}

type Json = Record<string, unknown>;
type Block = { type?: string; text?: string; id?: string };
interface ContextMessage {
	role?: string;
	content?: string | Block[];
	toolCallId?: string;
}
interface Context {
	messages: ContextMessage[];
}

/** pi's context of a session file, opened from a copy (pi may rewrite what it opens). */
function piContext(file: string): Context {
	const dir = tempDir();
	const copy = join(dir, basename(file));
	copyFileSync(file, copy);
	return asJson(SessionManager.open(copy, dir).buildSessionContext()) as Context;
}

/** The texts of a message's content: the string, or its text blocks. */
function texts(content: ContextMessage["content"]): string[] {
	if (typeof content === "string") return [content];
	if (!Array.isArray(content)) return [];
	return content
		.filter((block) => block?.type === "text" && typeof block.text === "string")
		.map((b) => b.text as string);
}

/** The ids of the tool calls of an assistant message. */
function callIds(message: ContextMessage): string[] {
	if (message.role !== "assistant" || !Array.isArray(message.content)) return [];
	return message.content
		.filter((block) => block?.type === "toolCall" && typeof block.id === "string")
		.map((b) => b.id as string);
}

/**
 * The tool results of a context checked as a provider checks them: each result follows the
 * assistant message holding its call, with only results of that message in between. Returns
 * the ids of the calls whose result is in place; each result out of place is a problem.
 */
function placedResults(context: Context, where: string, problems: string[]): Set<string> {
	const placed = new Set<string>();
	const orphans: string[] = [];
	let calls: string[] = [];
	for (const [index, message] of context.messages.entries()) {
		if (message.role === "assistant") {
			calls = callIds(message);
		} else if (message.role === "toolResult") {
			if (message.toolCallId !== undefined && calls.includes(message.toolCallId)) placed.add(message.toolCallId);
			else orphans.push(`${index} (${message.toolCallId}, after a ${context.messages[index - 1]?.role} message)`);
		} else {
			calls = [];
		}
	}
	if (orphans.length > 0) {
		problems.push(
			`${where}: ${orphans.length} tool results not right after the assistant message calling them, at context messages ${orphans.slice(0, 5).join(", ")}`,
		);
	}
	return placed;
}

/** What one written session shows: its context and its active path's user texts. */
interface Written {
	file: string;
	context: Context;
	userTexts: string[];
}

/**
 * Opens a session file with session-tree and with pi; a difference of their contexts is a
 * problem. In a damaged file (`damaged`) session-tree's lenient reading recovers what pi drops
 * (records glued on one line, say), so pi's context is no reference there: nothing pi keeps may
 * be missing from ours, in pi's order.
 */
async function readWritten(file: string, problems: string[], damaged = false): Promise<Written> {
	const session = await Session.open(file, { lenient: true });
	const ours = asJson(session.buildSessionContext()) as Context;
	const pi = piContext(file);
	if (damaged) {
		let next = 0;
		for (const message of pi.messages) {
			while (next < ours.messages.length && !isDeepStrictEqual(ours.messages[next], message)) next++;
			if (next++ >= ours.messages.length) {
				problems.push(`${basename(file)}: a message of pi's context is missing from session-tree's (damaged file)`);
				break;
			}
		}
	} else if (!isDeepStrictEqual(pi, ours)) {
		const at = ours.messages.findIndex((message, index) => !isDeepStrictEqual(message, pi.messages[index]));
		problems.push(
			`${basename(file)}: pi's SessionManager builds another context than session-tree (${pi.messages.length} vs ${ours.messages.length} messages, first difference at ${at})`,
		);
	}
	const userTexts: string[] = [];
	for (const entry of session.getBranch()) {
		const message = (entry as unknown as Json).message as ContextMessage | undefined;
		if (entry.type === "message" && message?.role === "user") userTexts.push(...texts(message.content));
	}
	return { file, context: ours, userTexts };
}

/** The written session files of an import into `dir`. */
function sessionFiles(dir: string): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((name) => name.endsWith(".jsonl"))
		.sort()
		.map((name) => join(dir, name));
}

async function checkNotSession(entry: CorpusFile): Promise<void> {
	const out = join(tempDir(), "out");
	const result = await cli(["import", "--lenient", entry.file, "--dir", out]);
	const problems: string[] = [];
	if (result.code !== 1) problems.push(`exit ${result.code}, not 1, for a file that is no session`);
	if (!result.stderr.split("\n").some((line) => line.includes(entry.file)))
		problems.push("no error line names the file");
	if (/^ {4}at /m.test(result.stderr)) problems.push("a stack trace on stderr");
	const files = sessionFiles(out);
	if (files.length > 0) problems.push(`${files.length} session(s) written`);
	assert.deepEqual(problems, [], `stdout: ${result.stdout}\nstderr: ${result.stderr}`);
}

/** The sessions of a source: imported by the CLI into a fresh directory, or, for a pi file, the file itself. */
async function sessionsOf(entry: CorpusFile, problems: string[]): Promise<Written[]> {
	if (entry.expected.format === "pi") {
		// A pi file is not imported (it is one already): read as it is, by the CLI, by the library
		// and by pi. A warning on stderr says the file is damaged (see readWritten).
		const result = await cli(["ctx", "--json", "--lenient", entry.file]);
		assert.equal(result.code, 0, `ctx --json --lenient exits 0: ${result.stderr}`);
		if (/^ {4}at /m.test(result.stderr)) problems.push("a stack trace on stderr");
		const written = await readWritten(entry.file, problems, /warning:/.test(result.stderr));
		if (!isDeepStrictEqual(JSON.parse(result.stdout), written.context)) {
			problems.push("ctx --json shows another context than Session.buildSessionContext");
		}
		return [written];
	}
	const out = join(tempDir(), "out");
	const result = await cli(["import", "--lenient", entry.file, "--dir", out]);
	assert.equal(result.code, 0, `import --lenient exits 0: ${result.stderr}`);
	if (/^ {4}at /m.test(result.stderr)) problems.push("a stack trace on stderr");
	const files = sessionFiles(out);
	if (files.length !== entry.expected.sessions) {
		problems.push(`${files.length} sessions written, the source holds ${entry.expected.sessions}`);
	}
	const written: Written[] = [];
	for (const file of files) written.push(await readWritten(file, problems));
	return written;
}

async function checkSession(entry: CorpusFile): Promise<void> {
	const { expected } = entry;
	// Every check runs and adds what fails, so that one run lists all that is wrong with a file.
	const problems: string[] = [];
	const written = await sessionsOf(entry, problems);
	const placed = new Set<string>();
	for (const session of written) {
		for (const id of placedResults(session.context, basename(session.file), problems)) placed.add(id);
	}
	const conversations = [expected, ...Object.values(expected.perSession ?? {})];
	const wanted = [...new Set(conversations.flatMap((c) => c.toolResults ?? []))];
	const missing = wanted.filter((id) => !placed.has(id));
	if (missing.length > 0) {
		problems.push(
			`${missing.length} of the ${wanted.length} tool results the source holds are not in the leaf context right after their call (first: ${missing.slice(0, 3).join(", ")})`,
		);
	}
	for (const conversation of conversations) {
		const prompt = conversation.firstPrompt;
		if (typeof prompt !== "string") continue;
		const found = written.some((session) =>
			session.userTexts.some((text) => text.trimStart().startsWith(prompt.trimStart())),
		);
		if (!found) problems.push(`the active path lacks the source's first prompt ${JSON.stringify(prompt)}`);
	}
	if (expected.format === "codex" && expected.userPrompts > 0) {
		for (const session of written) {
			if (!session.context.messages.some((message) => message.role === "user")) {
				problems.push(`the context holds no user message, the source has ${expected.userPrompts} prompts`);
			}
		}
	}
	assert.deepEqual(problems, [], `${entry.folder}/${entry.name} (${expected.notes ?? ""})`);
}

describe("the real-history corpus (test/fixtures/real)", () => {
	const files = corpus();
	test("the corpus is there: at least 30 files, each listed file present", () => {
		assert.ok(files.length >= 30, `${files.length} files`);
		for (const entry of files) assert.ok(existsSync(entry.file), `${entry.folder}/${entry.name} exists`);
	});
	for (const entry of files) {
		const what = entry.expected.session ? `${entry.expected.sessions} session(s)` : "not a session";
		test(`${entry.folder}/${entry.name}: ${what}`, async () => {
			if (entry.expected.session) await checkSession(entry);
			else await checkNotSession(entry);
		});
	}
});
