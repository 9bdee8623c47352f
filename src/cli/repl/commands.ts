/**
 * The REPL's commands and their dispatch. Everything here is independent of the terminal:
 * a {@link ReplState} holds the current session and writes through the functions it is
 * given, and {@link executeLine} runs one line and says how it went.
 */

import { basename, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isSessionTreeError } from "../../core/errors.js";
import type {
	AgentMessage,
	AssistantMessage,
	MessageEntry,
	SessionEntry,
	ToolResultMessage,
	UserMessage,
} from "../../core/types.js";
import { type ContextTextOptions, renderContextLines } from "../../render/context-text.js";
import { describeEntry, formatDescription, sanitize } from "../../render/preview.js";
import { renderTreeLines, TREE_FILTERS, type TreeFilter, type TreeTextOptions } from "../../render/tree-text.js";
import { Session } from "../../session.js";
import { fitWidth, makeStyle, type Style } from "./style.js";
import { splitWords, TokenizeError } from "./tokenize.js";

/** A command that could not do its job; the message is shown to the user as is. */
export class ReplError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "ReplError";
	}
}

/** What completion offers at an argument position. */
export type ArgKind =
	| "id"
	| "id-or-root"
	| "file"
	| "dir"
	| "role"
	| "command"
	| "filter"
	| "text"
	/** Nothing to offer (for an option: it takes no value). */
	| "none"
	/** An option value with nothing to offer. */
	| "none-value";

/** Where a REPL writes, and the settings that shape its output. */
export interface ReplEnv {
	/** Data (stdout). */
	out(text: string): void;
	/** Warnings (stderr). */
	err(text: string): void;
	/** Colours for the output; plain when off. */
	style: Style;
	/** Columns to cut listings to (a terminal's width), or undefined to leave lines whole. */
	width?: () => number | undefined;
	/** Directory for `new` (default: pi's layout for the working directory). */
	dir?: string;
}

/** One REPL command. */
export interface ReplCommand {
	name: string;
	aliases?: readonly string[];
	/** The synopsis, e.g. `send <role> <text…>`. */
	usage: string;
	/** One line for `help`. */
	summary: string;
	/** More lines for `help COMMAND`. */
	details?: readonly string[];
	/** What each argument position holds (for completion); the last kind repeats. */
	args: readonly ArgKind[];
	/** Options the command takes (for completion and parsing), with what their value is. */
	options?: Readonly<Record<string, ArgKind>>;
	/** Whether it needs a session to be loaded. */
	needsSession: boolean;
	run(state: ReplState, args: string[]): void;
}

/** The roles `send` knows, in the order `help` lists them. */
export const SEND_ROLES = ["user", "assistant", "toolResult", "custom"] as const;

/** The state of one REPL: the current session and where output goes. */
export class ReplState {
	session: Session | undefined;
	readonly env: ReplEnv;
	/** Set by `exit`: no more lines are to be read. */
	exitRequested = false;

	constructor(env: ReplEnv) {
		this.env = env;
	}

	/** The current session, or an error saying how to get one. */
	requireSession(): Session {
		if (!this.session) throw new ReplError("no session: start one with `new` or open one with `load FILE`");
		return this.session;
	}

	/** Makes `session` the current one, closing the previous. */
	switchTo(session: Session): void {
		if (this.session && this.session !== session) this.session.close();
		this.session = session;
	}

	/** Closes the current session's file handle. */
	close(): void {
		this.session?.close();
	}

	/** Ids of the current session's entries (for completion). */
	ids(): string[] {
		return this.session ? this.session.getEntries().map((entry) => entry.id) : [];
	}

	/** The session name (or file name) and the leaf, for the prompt. */
	promptParts(): { title: string; leaf: string } | undefined {
		const session = this.session;
		if (!session) return undefined;
		return { title: sessionTitle(session), leaf: session.getLeafId() ?? "(root)" };
	}

	/** `name 1a2b3c4d`: {@link promptParts} as one string. */
	promptLabel(): string | undefined {
		const parts = this.promptParts();
		return parts && `${parts.title} ${parts.leaf}`;
	}

	line(text: string): void {
		this.env.out(`${text}\n`);
	}

	/** Lines of a listing, each cut to the width when there is one. */
	listing(lines: readonly string[]): void {
		const width = this.env.width?.();
		const fitted = width === undefined ? lines : lines.map((line) => fitWidth(line, width));
		this.env.out(fitted.map((line) => `${line}\n`).join(""));
	}

	id(id: string | null): string {
		return id === null ? "(root)" : this.env.style.yellow(id);
	}
}

/** The session's name, else its file name without `.jsonl` (shortened when long). */
export function sessionTitle(session: Session): string {
	const name = session.getSessionName();
	if (name !== undefined && name.trim() !== "") return shorten(sanitize(name.trim()), 32);
	const file = session.file === undefined ? "(memory)" : basename(session.file).replace(/\.jsonl$/, "");
	// pi's file names are <timestamp>_<uuid v7>: the uuid's random end tells them apart best.
	const pi = /^\d{4}-\d\d-\d\dT[\d-]+Z_[0-9a-f-]*([0-9a-f]{8})$/i.exec(file);
	return pi ? `…${pi[1]}` : shorten(sanitize(file), 32);
}

function shorten(text: string, max: number): string {
	return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

// ---- building messages ----------------------------------------------------------------------

const ZERO_USAGE = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** The role named by `send`'s first argument (case-insensitive; `tool` for toolResult). */
export function parseRole(word: string): (typeof SEND_ROLES)[number] {
	const lower = word.toLowerCase();
	if (lower === "tool" || lower === "toolresult") return "toolResult";
	for (const role of SEND_ROLES) if (role.toLowerCase() === lower) return role;
	throw new ReplError(`unknown role ${JSON.stringify(word)}: use ${SEND_ROLES.join(", ")}`);
}

export function userMessage(text: string, timestamp = Date.now()): UserMessage {
	return { role: "user", content: text, timestamp };
}

export function assistantMessage(text: string, timestamp = Date.now()): AssistantMessage {
	return {
		role: "assistant",
		content: [{ type: "text", text }],
		provider: "session-tree",
		model: "repl",
		api: "manual",
		stopReason: "stop",
		usage: structuredClone(ZERO_USAGE),
		timestamp,
	};
}

/**
 * A tool result answering the first tool call on the path that has no result yet (as an agent
 * would), or a stand-alone one (tool `repl`) when there is none.
 */
export function toolResultMessage(
	path: readonly SessionEntry[],
	text: string,
	timestamp = Date.now(),
): ToolResultMessage {
	const answered = new Set<string>();
	let call: { id: string; name: string } | undefined;
	for (let i = path.length - 1; i >= 0 && !call; i--) {
		const entry = path[i] as SessionEntry;
		if (entry.type !== "message") continue;
		const message = (entry as MessageEntry).message as Record<string, unknown>;
		if (message.role === "toolResult" && typeof message.toolCallId === "string") answered.add(message.toolCallId);
		if (message.role === "user") break;
		if (message.role === "assistant" && Array.isArray(message.content)) {
			for (const block of message.content as Array<Record<string, unknown>>) {
				if (block?.type === "toolCall" && typeof block.id === "string" && !answered.has(block.id)) {
					call = { id: block.id, name: typeof block.name === "string" ? block.name : "repl" };
					break;
				}
			}
			break;
		}
	}
	return {
		role: "toolResult",
		toolCallId: call?.id ?? "repl",
		toolName: call?.name ?? "repl",
		content: [{ type: "text", text }],
		isError: false,
		timestamp,
	};
}

// ---- helpers for the commands ---------------------------------------------------------------

function usageError(command: ReplCommand, problem: string): ReplError {
	return new ReplError(`${problem} (usage: ${command.usage})`);
}

function requireArgs(command: ReplCommand, args: string[], count: number, what: string): void {
	if (args.length < count) throw usageError(command, `missing ${what}`);
}

function noMoreArgs(command: ReplCommand, args: string[], allowed: number): void {
	if (args.length > allowed) throw usageError(command, `unexpected argument ${JSON.stringify(args[allowed])}`);
}

function parseOptions(
	command: ReplCommand,
	args: string[],
	options: Record<string, { type: "string" | "boolean" }>,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
	try {
		const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
		return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
	} catch (error) {
		const option = /'(-[^' ]*)/.exec((error as Error).message)?.[1];
		const code = (error as { code?: string }).code;
		if (option && code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw usageError(command, `unknown option ${option}`);
		if (option && code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
			throw usageError(command, `option ${option} needs a value`);
		}
		throw usageError(command, (error as Error).message);
	}
}

/** The words after the fixed arguments, joined with single spaces. */
function textOf(args: string[], from: number): string {
	return args.slice(from).join(" ");
}

/** The last message (or summary) on the path to `id`, described in one line. */
function lastMessagePreview(session: Session, id: string, length: number): string {
	const tree = session.getTreeIndex();
	// The tree's parents, not the entries' own: a lenient open may have bridged a gap.
	for (let entry = session.getEntry(id); entry; ) {
		if (
			entry.type === "message" ||
			entry.type === "custom_message" ||
			entry.type === "branch_summary" ||
			entry.type === "compaction"
		) {
			return formatDescription(describeEntry(entry), length);
		}
		const parentId = tree.getParentId(entry.id);
		entry = parentId ? session.getEntry(parentId) : undefined;
	}
	return "(no messages)";
}

/** Opens a session file, printing what a lenient open worked around as warnings. */
export function openSessionFile(state: ReplState, file: string, lenient: boolean): Session {
	const session = Session.open(resolve(file), { lenient, verify: lenient });
	for (const problem of session.problems) {
		const where = problem.line === undefined ? session.file : `${session.file}:${problem.line}`;
		state.env.err(`session-tree: warning: ${where}: ${problem.message}\n`);
	}
	return session;
}

// ---- the commands ---------------------------------------------------------------------------

const newCmd: ReplCommand = {
	name: "new",
	usage: "new [--cwd CWD] [--dir DIR]",
	summary: "start a session file and switch to it",
	details: [
		"The file goes into --dir (default: the REPL's --dir, else pi's directory",
		"for CWD). CWD (default: the current directory) is stored in the header.",
		"Prints the path.",
	],
	args: ["none"],
	options: { "--cwd": "dir", "--dir": "dir" },
	needsSession: false,
	run(state, args) {
		const { values, positionals } = parseOptions(this, args, { cwd: { type: "string" }, dir: { type: "string" } });
		noMoreArgs(this, positionals, 0);
		const dir = typeof values.dir === "string" ? values.dir : state.env.dir;
		const cwd = resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
		const session = Session.create({ cwd, ...(dir !== undefined ? { dir: resolve(dir) } : {}) });
		state.switchTo(session);
		state.line(session.file as string);
	},
};

const loadCmd: ReplCommand = {
	name: "load",
	aliases: ["open"],
	usage: "load <file> [--lenient]",
	summary: "open a session file and switch to it",
	details: [
		"Prints FILE: N entries, leaf ID.",
		"--lenient opens a damaged file (the problems are printed as warnings).",
	],
	args: ["file"],
	options: { "--lenient": "none" },
	needsSession: false,
	run(state, args) {
		const { values, positionals } = parseOptions(this, args, { lenient: { type: "boolean" } });
		requireArgs(this, positionals, 1, "<file>");
		noMoreArgs(this, positionals, 1);
		const session = openSessionFile(state, positionals[0] as string, values.lenient === true);
		state.switchTo(session);
		state.line(loadedLine(state, session));
	},
};

/** `FILE: N entries, leaf ID`: what `load` prints. */
export function loadedLine(state: ReplState, session: Session): string {
	const count = session.entryCount;
	return `${session.file}: ${count} ${count === 1 ? "entry" : "entries"}, leaf ${state.id(session.getLeafId())}`;
}

const sendCmd: ReplCommand = {
	name: "send",
	usage: "send <role> <text…>",
	summary: "append a message; prints its id",
	details: [
		"role: user, assistant, toolResult (answers the open tool call, if any) or",
		"custom (a custom_message entry). The text's words are joined by single",
		'spaces; quote it to keep it exactly: send user "a  b\\nc".',
	],
	args: ["role", "text"],
	needsSession: true,
	run(state, args) {
		requireArgs(this, args, 1, "<role>");
		const role = parseRole(args[0] as string);
		requireArgs(this, args, 2, "<text…>");
		const text = textOf(args, 1);
		const session = state.requireSession();
		let id: string;
		switch (role) {
			case "user":
				id = session.appendMessage(userMessage(text));
				break;
			case "assistant":
				id = session.appendMessage(assistantMessage(text));
				break;
			case "toolResult":
				id = session.appendMessage(toolResultMessage(session.getBranch(), text) as AgentMessage);
				break;
			case "custom":
				id = session.appendCustomMessageEntry("session-tree", text, true);
				break;
		}
		state.line(state.id(id));
	},
};

const branchCmd: ReplCommand = {
	name: "branch",
	usage: "branch <id>",
	summary: "move the leaf; the next message forks off",
	details: ["The move is persisted (a leaf record): it survives a restart.", "Prints leaf: ID."],
	args: ["id"],
	needsSession: true,
	run(state, args) {
		requireArgs(this, args, 1, "<id>");
		noMoreArgs(this, args, 1);
		const session = state.requireSession();
		const id = session.resolveId(args[0] as string);
		session.branch(id);
		state.line(`leaf: ${state.id(id)}`);
	},
};

const forkCmd: ReplCommand = {
	name: "fork",
	usage: "fork [id]",
	summary: "copy root→id to a new file, switch to it",
	details: ["The new file sits next to this one and names it as parentSession.", "Prints its path."],
	args: ["id"],
	needsSession: true,
	run(state, args) {
		noMoreArgs(this, args, 1);
		const session = state.requireSession();
		const id = args[0] === undefined ? undefined : session.resolveId(args[0]);
		switchToCopy(state, session.fork(id));
	},
};

const cloneCmd: ReplCommand = {
	name: "clone",
	usage: "clone",
	summary: "fork at the leaf (new file, switch to it)",
	args: ["none"],
	needsSession: true,
	run(state, args) {
		noMoreArgs(this, args, 0);
		switchToCopy(state, state.requireSession().clone());
	},
};

/** Makes a forked or cloned session the current one and prints its file. */
function switchToCopy(state: ReplState, copy: Session): void {
	state.switchTo(copy);
	state.line(copy.file as string);
}

const compactCmd: ReplCommand = {
	name: "compact",
	usage: "compact <firstKeptId> <summary…>",
	summary: "compact the context before firstKeptId",
	details: [
		"From now on the model sees the summary, then the path from firstKeptId on.",
		"The kept messages are stored in the entry (retainedTail); tokensBefore is 0.",
		"Prints the id.",
	],
	args: ["id", "text"],
	needsSession: true,
	run(state, args) {
		requireArgs(this, args, 1, "<firstKeptId>");
		requireArgs(this, args, 2, "<summary…>");
		const session = state.requireSession();
		const firstKept = session.resolveId(args[0] as string);
		const onPath = session.getBranch().some((entry) => entry.id === firstKept);
		if (!onPath) throw new ReplError(`${firstKept} is not on the active path (see \`ctx\`)`);
		const id = session.appendCompaction(textOf(args, 1), firstKept, 0, undefined, undefined, true);
		state.line(state.id(id));
	},
};

/** A whole number option's value, at least `min`. */
function integerOption(command: ReplCommand, value: string | boolean | undefined, name: string, min: number) {
	if (typeof value !== "string") return undefined;
	if (!/^\d+$/.test(value) || Number(value) < min) {
		throw usageError(command, `--${name} takes a whole number of at least ${min}, not ${JSON.stringify(value)}`);
	}
	return Number(value);
}

const treeCmd: ReplCommand = {
	name: "tree",
	usage: "tree [--filter MODE] [--from ID] [--depth N] [--fold]",
	summary: "the entry tree (filters as pi's /tree)",
	details: [
		`MODE: ${TREE_FILTERS.join(", ")}.`,
		"--from ID shows a subtree, --depth N limits it, --fold folds long runs.",
	],
	args: ["none"],
	options: { "--filter": "filter", "--from": "id", "--depth": "none-value", "--fold": "none" },
	needsSession: true,
	run(state, args) {
		const { values, positionals } = parseOptions(this, args, {
			filter: { type: "string" },
			from: { type: "string" },
			depth: { type: "string" },
			fold: { type: "boolean" },
		});
		noMoreArgs(this, positionals, 0);
		const session = state.requireSession();
		const options: TreeTextOptions = { leafId: session.getLeafId(), color: state.env.style.enabled };
		const name = session.getSessionName();
		if (name !== undefined) options.sessionName = name;
		const filter = values.filter;
		if (typeof filter === "string") {
			if (!TREE_FILTERS.includes(filter as TreeFilter)) {
				throw usageError(this, `unknown filter ${JSON.stringify(filter)} (use ${TREE_FILTERS.join(", ")})`);
			}
			options.filter = filter as TreeFilter;
		}
		if (typeof values.from === "string") options.from = session.resolveId(values.from);
		const depth = integerOption(this, values.depth, "depth", 0);
		if (depth !== undefined) options.depth = depth;
		if (values.fold === true) options.fold = true;
		const width = state.env.width?.();
		if (width !== undefined) options.width = width;
		state.listing(renderTreeLines(session.getTree(), options));
	},
};

const ctxCmd: ReplCommand = {
	name: "ctx",
	usage: "ctx [--full]",
	summary: "what the model sees (--full: all text)",
	args: ["none"],
	options: { "--full": "none" },
	needsSession: true,
	run(state, args) {
		const { values, positionals } = parseOptions(this, args, { full: { type: "boolean" } });
		noMoreArgs(this, positionals, 0);
		const session = state.requireSession();
		const context = session.buildSessionContext();
		const options: ContextTextOptions = { entries: session.buildContextEntries(), color: state.env.style.enabled };
		if (values.full === true) options.full = true;
		const width = state.env.width?.();
		if (width !== undefined) options.width = width;
		state.listing(renderContextLines(context, options));
	},
};

const leavesCmd: ReplCommand = {
	name: "leaves",
	usage: "leaves",
	summary: "branch tips with their last message",
	details: ["One line per entry without children, sorted; * marks the leaf."],
	args: ["none"],
	needsSession: true,
	run(state, args) {
		noMoreArgs(this, args, 0);
		const session = state.requireSession();
		const leaf = session.getLeafId();
		const leaves = session.listBranches();
		if (leaves.length === 0) {
			state.line("(no entries)");
			return;
		}
		const { style } = state.env;
		state.listing(
			leaves.map((id) => {
				const mark = id === leaf ? style.green("*") : " ";
				return `${mark} ${state.id(id)} ${lastMessagePreview(session, id, state.env.width?.() ?? 72)}`;
			}),
		);
	},
};

const summaryCmd: ReplCommand = {
	name: "summary",
	usage: "summary <id|root> <text…>",
	summary: "move the leaf, leaving a branch summary",
	details: ["root: before the first entry. The summary tells the model what was left.", "Prints its id."],
	args: ["id-or-root", "text"],
	needsSession: true,
	run(state, args) {
		requireArgs(this, args, 1, "<id|root>");
		requireArgs(this, args, 2, "<text…>");
		const session = state.requireSession();
		const target = args[0] === "root" ? null : session.resolveId(args[0] as string);
		const id = session.branchWithSummary(target, textOf(args, 1));
		state.line(state.id(id));
	},
};

const navCmd: ReplCommand = {
	name: "nav",
	usage: "nav <id>",
	summary: "go to an entry as pi's /tree does",
	details: [
		"A user or custom message: the leaf moves to its parent and its text is shown",
		"to edit (edit: TEXT). Any other entry becomes the leaf. Prints leaf: ID.",
	],
	args: ["id"],
	needsSession: true,
	run(state, args) {
		requireArgs(this, args, 1, "<id>");
		noMoreArgs(this, args, 1);
		const session = state.requireSession();
		const result = session.navigate(session.resolveId(args[0] as string));
		state.line(`leaf: ${state.id(result.leafId)}`);
		if (result.editorText !== undefined) {
			const [first, ...rest] = result.editorText.split(/\r?\n/);
			const label = state.env.style.dim("edit:");
			state.line(`${label} ${sanitize(first ?? "")}`);
			for (const line of rest) state.line(`      ${sanitize(line)}`);
		}
	},
};

const labelCmd: ReplCommand = {
	name: "label",
	usage: "label <id> [text…]",
	summary: "set or (without text) clear a label",
	args: ["id", "text"],
	needsSession: true,
	run(state, args) {
		requireArgs(this, args, 1, "<id>");
		const session = state.requireSession();
		const target = session.resolveId(args[0] as string);
		const text = textOf(args, 1).trim();
		session.appendLabelChange(target, text === "" ? undefined : text);
		state.line(
			text === "" ? `label of ${state.id(target)} cleared` : `label of ${state.id(target)}: ${sanitize(text)}`,
		);
	},
};

const nameCmd: ReplCommand = {
	name: "name",
	usage: "name [text…]",
	summary: "name the session, or show its name",
	details: ['name "" clears the name.'],
	args: ["text"],
	needsSession: true,
	run(state, args) {
		const session = state.requireSession();
		if (args.length === 0) {
			state.line(`name: ${sanitize(session.getSessionName() ?? "(none)")}`);
			return;
		}
		const text = textOf(args, 0).trim();
		session.appendSessionInfo(text);
		state.line(text === "" ? "name cleared" : `name: ${sanitize(text)}`);
	},
};

const infoCmd: ReplCommand = {
	name: "info",
	usage: "info",
	summary: "file, header, name, entries, leaf",
	args: ["none"],
	needsSession: true,
	run(state, args) {
		noMoreArgs(this, args, 0);
		const session = state.requireSession();
		const header = session.getHeader();
		const leaf = session.getLeafId();
		const lines = [
			`file: ${session.file}`,
			`id: ${session.getSessionId()}`,
			`version: ${session.fileVersion}`,
			`cwd: ${session.getCwd()}`,
			`parentSession: ${typeof header.parentSession === "string" ? header.parentSession : "(none)"}`,
			`name: ${session.getSessionName() ?? "(none)"}`,
			`entries: ${session.entryCount}`,
			`leaf: ${leaf ?? "(before the first entry)"}`,
		];
		state.listing(lines.map(sanitize));
	},
};

/** Width of the usage column of `help`. */
const HELP_COLUMN = 34;

const helpCmd: ReplCommand = {
	name: "help",
	aliases: ["?"],
	usage: "help [command]",
	summary: "this list, or one command's usage",
	args: ["command"],
	needsSession: false,
	run(state, args) {
		noMoreArgs(this, args, 1);
		const { style } = state.env;
		if (args[0] !== undefined) {
			const command = findReplCommand(args[0]);
			if (!command) throw new ReplError(`unknown command ${JSON.stringify(args[0])} (try \`help\`)`);
			state.line(`usage: ${command.usage}`);
			state.line(`  ${command.summary}`);
			for (const line of command.details ?? []) state.line(`  ${line}`);
			if (command.aliases?.length) state.line(`  also: ${command.aliases.join(", ")}`);
			return;
		}
		// A usage wider than the column gets a line of its own, the summary below it.
		const width = Math.min(HELP_COLUMN, Math.max(...REPL_COMMANDS.map((command) => command.usage.length)));
		const lines: string[] = [];
		for (const command of REPL_COMMANDS) {
			const usage = style.bold(command.usage);
			if (command.usage.length > width) {
				lines.push(`  ${usage}`, `  ${" ".repeat(width)}  ${command.summary}`);
			} else {
				lines.push(`  ${usage}${" ".repeat(width - command.usage.length)}  ${command.summary}`);
			}
		}
		lines.push(
			"",
			'Ids may be abbreviated to any unique prefix. Quote text to keep spaces: "a  b".',
			"Tab completes commands, ids and files; Up/Down: history; help COMMAND: more.",
		);
		state.listing(lines);
	},
};

const exitCmd: ReplCommand = {
	name: "exit",
	aliases: ["quit"],
	usage: "exit",
	summary: "leave (also quit, or Ctrl-D)",
	args: ["none"],
	needsSession: false,
	run(state) {
		state.exitRequested = true;
	},
};

/** Every REPL command, in the order `help` lists them. */
export const REPL_COMMANDS: readonly ReplCommand[] = [
	newCmd,
	loadCmd,
	sendCmd,
	branchCmd,
	forkCmd,
	cloneCmd,
	compactCmd,
	summaryCmd,
	navCmd,
	labelCmd,
	nameCmd,
	treeCmd,
	ctxCmd,
	leavesCmd,
	infoCmd,
	helpCmd,
	exitCmd,
];

/** Every name a command can be called by (names and aliases), sorted. */
export function commandWords(): string[] {
	return REPL_COMMANDS.flatMap((command) => [command.name, ...(command.aliases ?? [])]).sort();
}

/** The command called `word` (by name or alias), if any. */
export function findReplCommand(word: string): ReplCommand | undefined {
	return REPL_COMMANDS.find((command) => command.name === word || command.aliases?.includes(word));
}

/** How running a line went. */
export type LineOutcome =
	| { kind: "empty" }
	| { kind: "ok" }
	| { kind: "exit" }
	| { kind: "error"; message: string; internal?: boolean };

/**
 * Runs one line: blank lines and lines starting with `#` do nothing, anything else is a
 * command and its arguments. Errors are caught and returned as messages.
 */
export function executeLine(state: ReplState, line: string): LineOutcome {
	const trimmed = line.trim();
	if (trimmed === "" || trimmed.startsWith("#")) return { kind: "empty" };
	try {
		const [word, ...args] = splitWords(trimmed);
		if (word === undefined) return { kind: "empty" };
		const command = findReplCommand(word);
		if (!command) throw new ReplError(`unknown command ${JSON.stringify(word)} (try \`help\`)`);
		if (command.needsSession) state.requireSession();
		command.run(state, args);
		return state.exitRequested ? { kind: "exit" } : { kind: "ok" };
	} catch (error) {
		return { kind: "error", ...errorMessage(state, error) };
	}
}

/** A message for an error: the file is left out when it is the current session's own. */
export function errorMessage(state: ReplState, error: unknown): { message: string; internal?: boolean } {
	if (error instanceof ReplError || error instanceof TokenizeError) return { message: error.message };
	if (isSessionTreeError(error)) {
		const file = state.session?.file;
		const prefix = file === undefined ? undefined : `${file}: `;
		const message =
			prefix !== undefined && error.file === file && error.message.startsWith(prefix)
				? error.message.slice(prefix.length)
				: error.message;
		return { message };
	}
	if (error instanceof Error && typeof (error as { code?: unknown }).code === "string") {
		return { message: error.message };
	}
	const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
	return { message: `internal error: ${detail}`, internal: true };
}

/** A state for tests and scripts: plain output collected in strings. */
export function collectingState(options: { dir?: string; width?: number } = {}): {
	state: ReplState;
	output: () => string;
	errors: () => string;
} {
	let out = "";
	let err = "";
	const state = new ReplState({
		out: (text) => {
			out += text;
		},
		err: (text) => {
			err += text;
		},
		style: makeStyle(false),
		...(options.width !== undefined ? { width: () => options.width } : {}),
		...(options.dir !== undefined ? { dir: options.dir } : {}),
	});
	return {
		state,
		output: () => {
			const text = out;
			out = "";
			return text;
		},
		errors: () => {
			const text = err;
			err = "";
			return text;
		},
	};
}
