/**
 * The shell examples of the documentation, read from the Markdown at test time and run as
 * printed (see docs-examples.test.ts).
 *
 * A ```console block holds commands (lines starting `$ `; a command whose line ends in `\`
 * goes on on the next line) and, after each, the output it prints: stdout and stderr as a
 * terminal shows them, then `[exit N]` when it fails. A block that cannot run here says so in
 * an HTML comment on the line before it: `<!-- not run: why -->`. An id, or a prefix of one,
 * that a command names stands for the id this run printed in its place ({@link withRunIds}).
 *
 * The expected output is compared line by line, with placeholders for what differs on every
 * run: an id (8 hex digits, at least one a-f) stands for any id, the same one wherever it
 * appears again in the document (and two ids for two different ones), and its start cut
 * short (`534b…`) for the start of that one; `…` for any text; a
 * relative time (`1s ago`, `just now`) with the spaces after it for any relative time; a file
 * name's time (`2026-11-30T09-06-56-407Z`) and a date and time (`2026-12-01 13:16:20`) for
 * any. The temporary HOME the examples run in reads as `/home/me`.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { dirname } from "node:path";

/** One command of a block, with the output printed after it. */
export interface DocCommand {
	/** The command as the shell gets it (continuation lines joined by newlines). */
	command: string;
	expected: string[];
	/** 1-based line of the `$ ` in the Markdown file. */
	line: number;
}

/** A ```console block. */
export interface DocBlock {
	/** 1-based line of the opening fence. */
	line: number;
	/** Why it is not run (from `<!-- not run: … -->`), or null. */
	notRun: string | null;
	commands: DocCommand[];
}

const FENCE = /^(`{3,})console\s*$/;
const NOT_RUN = /^<!--\s*not run:\s*(.+?)\s*-->\s*$/;

/** The console blocks of a Markdown text, in order. */
export function consoleBlocks(markdown: string): DocBlock[] {
	const lines = markdown.split("\n");
	const blocks: DocBlock[] = [];
	for (let i = 0; i < lines.length; i++) {
		const open = FENCE.exec(lines[i] ?? "");
		if (!open) continue;
		const fence = open[1] as string;
		const previous = i > 0 ? (lines[i - 1] ?? "") : "";
		const block: DocBlock = { line: i + 1, notRun: NOT_RUN.exec(previous)?.[1] ?? null, commands: [] };
		let current: DocCommand | undefined;
		let continued = false;
		for (i++; i < lines.length && (lines[i] ?? "").trimEnd() !== fence; i++) {
			const text = lines[i] ?? "";
			if (continued && current) {
				current.command += `\n${text}`;
				continued = text.endsWith("\\");
			} else if (text.startsWith("$ ")) {
				current = { command: text.slice(2), expected: [], line: i + 1 };
				block.commands.push(current);
				continued = text.endsWith("\\");
			} else if (current) current.expected.push(text);
			else throw new Error(`line ${i + 1}: output before the first command of the block at line ${block.line}`);
		}
		blocks.push(block);
	}
	return blocks;
}

/** What a command printed: its lines, and `[exit N]` last when it failed. */
export interface DocRun {
	command: DocCommand;
	actual: string[];
}

const END = "\u001eEND-OF-COMMAND";
const END_LINE = new RegExp(`\\n${END} (\\d+)\\n`);

/**
 * One bash that runs the commands one at a time, in order (variables and `cd` carry over),
 * each with stdin from /dev/null unless it pipes into it and its stderr into its stdout.
 * One at a time because a command may name an id printed before it (see {@link withRunIds}).
 */
export class DocShell {
	private readonly child: ChildProcessWithoutNullStreams;
	private buffer = "";
	private errors = "";
	private waiting: (() => void) | undefined;

	constructor(options: { cwd: string; env: Record<string, string>; prelude?: string }) {
		this.child = spawn("bash", ["--noprofile", "--norc", "-s"], { cwd: options.cwd, env: options.env });
		this.child.stdout.setEncoding("utf8").on("data", (text: string) => {
			this.buffer += text;
			this.waiting?.();
		});
		this.child.stderr.setEncoding("utf8").on("data", (text: string) => {
			this.errors += text;
		});
		this.child.on("close", () => this.waiting?.());
		if (options.prelude) this.child.stdin.write(`${options.prelude}\n`);
	}

	/** Runs one command; its output lines, `[exit N]` last when it failed. */
	async run(command: string, timeoutMs = 120_000): Promise<string[]> {
		this.child.stdin.write(`{ ${command}\n} 2>&1 </dev/null; printf '\\n${END} %d\\n' $?\n`);
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = END_LINE.exec(this.buffer);
			if (found) {
				const text = this.buffer.slice(0, found.index);
				this.buffer = this.buffer.slice(found.index + found[0].length);
				const actual = text === "" ? [] : text.replace(/\n$/, "").split("\n");
				if (found[1] !== "0") actual.push(`[exit ${found[1]}]`);
				return actual;
			}
			if (this.child.exitCode !== null || Date.now() > deadline) {
				throw new Error(`bash stopped or timed out at: ${command}\n${this.errors}${this.buffer}`);
			}
			await new Promise<void>((done) => {
				const timer = setTimeout(done, 1000);
				this.waiting = () => {
					clearTimeout(timer);
					done();
				};
			});
		}
	}

	close(): void {
		this.child.stdin.end();
		this.child.kill();
	}
}

/** Runs commands in one {@link DocShell}, as printed. */
export async function runCommands(
	commands: readonly DocCommand[],
	options: { cwd: string; env: Record<string, string>; prelude?: string },
): Promise<DocRun[]> {
	const shell = new DocShell(options);
	try {
		const runs: DocRun[] = [];
		for (const command of commands) runs.push({ command, actual: await shell.run(command.command) });
		return runs;
	} finally {
		shell.close();
	}
}

/**
 * A command with the ids of this run: an id, or a prefix of 4 or more hex digits of one, that
 * the document printed earlier stands for the id this run printed in its place (whole, so
 * that it cannot be ambiguous here).
 */
export function withRunIds(command: string, ids: ReadonlyMap<string, string>): string {
	return command.replace(/(?<![0-9A-Za-z])[0-9a-f]{4,8}(?![0-9A-Za-z])/g, (token) => {
		const matches = [...ids.keys()].filter((id) => id.startsWith(token));
		return matches.length === 1 ? (ids.get(matches[0] as string) as string) : token;
	});
}

/**
 * An environment with nothing from the developer's: a fresh HOME, UTC, no colours, node on
 * PATH; and NODE_OPTIONS when the tests run with some (test/support/no-sqlite.mjs: the
 * examples then run as on a machine without better-sqlite3).
 */
export function freshEnv(home: string): Record<string, string> {
	const options = process.env.NODE_OPTIONS;
	return {
		HOME: home,
		PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
		TZ: "UTC",
		LANG: "C.UTF-8",
		TERM: "dumb",
		...(options ? { NODE_OPTIONS: options } : {}),
	};
}

const ID = /(?<![0-9A-Za-z])(?=[0-9a-f]{0,7}[a-f])[0-9a-f]{8}(?![0-9A-Za-z])/;
const PLACEHOLDER = new RegExp(
	[
		`(${ID.source})`,
		"(?<![0-9A-Za-z])([0-9a-f]{4,7})(?=…)",
		"(…)",
		"((?:just now|\\d+(?:s|m|h|d|w|mo|y) ago) *)",
		"(\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z)",
		"(\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d)",
	].join("|"),
	"gu",
);
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * Compares what a command printed with what the documentation prints after it; `ids` maps the
 * document's ids to this run's, across commands and blocks. Returns the mismatch described, or null.
 */
export function compareRun(run: DocRun, home: string, ids: Map<string, string>): string | null {
	const { command, actual } = run;
	const got = actual.map((line) => line.split(home).join("/home/me"));
	const bad = (why: string) =>
		`line ${command.line}: $ ${command.command}\n  ${why}\n  expected:\n${indent(command.expected)}\n  actual:\n${indent(got)}`;
	if (got.length !== command.expected.length) return bad(`${got.length} lines instead of ${command.expected.length}`);
	for (let n = 0; n < got.length; n++) {
		const why = matchLine(command.expected[n] as string, got[n] as string, ids);
		if (why) return bad(`line ${n + 1}: ${why}`);
	}
	return null;
}

/**
 * Runs a document's commands in order, each with the ids of this run ({@link withRunIds}), and
 * compares their output; returns the mismatches.
 */
export async function runAndCompare(
	commands: readonly DocCommand[],
	options: { cwd: string; env: Record<string, string>; prelude?: string },
): Promise<string[]> {
	const shell = new DocShell(options);
	const ids = new Map<string, string>();
	const problems: string[] = [];
	try {
		for (const command of commands) {
			const actual = await shell.run(withRunIds(command.command, ids));
			const problem = compareRun({ command, actual }, options.env.HOME ?? options.cwd, ids);
			if (problem) problems.push(problem);
		}
	} finally {
		shell.close();
	}
	return problems;
}

/** Matches one line; on success records the ids it saw. Returns why it does not match, or null. */
export function matchLine(expected: string, actual: string, ids: Map<string, string>): string | null {
	const order: string[] = [];
	let source = "";
	let last = 0;
	for (const match of expected.matchAll(PLACEHOLDER)) {
		source += escapeRegex(expected.slice(last, match.index));
		last = (match.index ?? 0) + match[0].length;
		const [, id, prefix, any, relative, stamp, date] = match;
		// An id cut short (`534b…`) is the start of the id it begins, as this run printed it.
		const whole = prefix === undefined ? undefined : [...ids.keys()].find((known) => known.startsWith(prefix));
		if (prefix !== undefined)
			source += escapeRegex(whole === undefined ? prefix : (ids.get(whole) as string).slice(0, prefix.length));
		else if (id !== undefined) {
			const known = ids.get(id);
			if (known !== undefined) source += escapeRegex(known);
			else {
				source += "([0-9a-f]{8})";
				order.push(id);
			}
		} else if (any !== undefined) source += ".*?";
		else if (relative !== undefined) source += "(?:just now|\\d+(?:s|m|h|d|w|mo|y) ago) *";
		else if (stamp !== undefined) source += "\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-\\d{3}Z";
		else if (date !== undefined) source += "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d";
	}
	source += escapeRegex(expected.slice(last));
	const found = new RegExp(`^${source}$`, "u").exec(actual);
	if (!found) return "differs";
	const seen = new Set(ids.values());
	for (let k = 0; k < order.length; k++) {
		const want = order[k] as string;
		const value = found[k + 1] as string;
		const earlier = ids.get(want);
		if (earlier !== undefined && earlier !== value) return `${want} stands for ${earlier} already, not ${value}`;
		if (earlier === undefined && seen.has(value))
			return `${value} is already the run's value of another id than ${want}`;
		ids.set(want, value);
		seen.add(value);
	}
	return null;
}

function indent(lines: readonly string[]): string {
	return lines.map((line) => `    ${line}`).join("\n");
}
