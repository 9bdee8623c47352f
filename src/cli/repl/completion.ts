/**
 * Tab completion for the REPL, as a pure function of the line before the cursor: command
 * names, entry ids of the current session (the prefix under the cursor), roles, option names,
 * and file paths for `load`. The result is what node:readline's `completer` returns:
 * `[candidates, text they replace]`.
 */

import { homedir } from "node:os";
import { resolve } from "node:path";
import { sanitize } from "../../render/sanitize.js";
import { TREE_FILTERS } from "../../render/tree-text.js";
import { findReplSpec, type ReplCommandSpec, replCommandWords } from "../registry.js";
import type { ArgKind } from "../specs/common.js";
import { SEND_ROLES } from "./messages.js";
import { quoteWord, type Token, tokenize } from "./tokenize.js";

/** One directory entry offered by {@link CompletionSource.listDir}. */
export interface DirEntry {
	name: string;
	isDirectory: boolean;
}

/** What completion may look at. */
export interface CompletionSource {
	/** Ids of the current session's entries. */
	ids(): readonly string[];
	/**
	 * A one-line preview of entry `id` (e.g. `user: What is…`), shown next to it when several
	 * ids are offered; at most `columns` wide.
	 */
	preview?(id: string, columns: number): string | undefined;
	/** Columns the list of candidates may take (the terminal's width). */
	columns?: number;
	/** The entries of a directory (may throw; an unreadable directory offers nothing). */
	listDir(dir: string): readonly DirEntry[];
	/** The home directory, for `~/`. */
	home?: string;
	/** The directory relative paths start from. */
	cwd?: string;
}

/** Beyond this many matches, completion offers only their common prefix (no listing). */
export const MAX_CANDIDATES = 200;

/** Completions of the word under the cursor: `[candidates, the text they replace]`. */
export function completeLine(line: string, source: CompletionSource): [string[], string] {
	const { tokens, endsInSpace } = tokenize(line);
	// The word under the cursor: the last one, unless a space follows it.
	const last = endsInSpace ? undefined : tokens.at(-1);
	const current: Token = last ?? { value: "", start: line.length, end: line.length, quoted: false };
	const index = last !== undefined ? tokens.length - 1 : tokens.length;
	const raw = line.slice(current.start);
	const first = tokens[0];
	// Leading spaces before the command are fine; the command is the first word.
	if (index === 0 || first === undefined) return [finish(matching(replCommandWords(), current.value)), raw];
	const command = findReplSpec(first.value);
	if (!command) return [[], raw];
	const kind = kindAt(
		command,
		tokens.slice(1, index).map((token) => token.value),
		current.value,
	);
	switch (kind) {
		case "command":
			return [finish(matching(replCommandWords(), current.value)), raw];
		case "role":
			return [finish(matching(SEND_ROLES, current.value)), raw];
		case "id":
		case "id-or-root": {
			const ids = source.ids().filter(typeable);
			if (kind === "id-or-root") ids.push("root");
			return [withPreviews(finish(matching(ids, current.value)), source), raw];
		}
		case "filter":
			return [finish(matching(TREE_FILTERS, current.value)), raw];
		case "option":
			return [finish(matching(optionWords(command), current.value)), raw];
		case "file":
		case "dir":
			return [completePath(current.value, kind === "dir", source), raw];
		default:
			return [[], raw];
	}
}

/** Columns of the gap between an id and its preview. */
const PREVIEW_GAP = 2;

/**
 * Several ids offered: each with its entry's preview, so that the listing says which is which.
 * What readline inserts is still the ids' common prefix (ids differ before their previews end,
 * and all have one length), and a single id is inserted alone, as it is.
 */
function withPreviews(candidates: string[], source: CompletionSource): string[] {
	const { preview } = source;
	if (candidates.length < 2 || preview === undefined) return candidates;
	// readline pads each candidate by 2 columns; past the width a line would wrap.
	const columns = (source.columns ?? 80) - 2;
	const width = Math.max(...candidates.map((id) => id.length));
	const room = columns - width - PREVIEW_GAP;
	if (room < 8) return candidates;
	return candidates.map((id) => {
		const text = id === "root" ? "before the first entry" : preview(id, room);
		return text === undefined || text === "" ? id : `${id.padEnd(width)}${" ".repeat(PREVIEW_GAP)}${text}`;
	});
}

/** The command's options as typed: `--name`. */
function optionWords(command: ReplCommandSpec): string[] {
	return Object.keys(command.options ?? {}).map((name) => `--${name}`);
}

/** What the word at the cursor is, given the arguments before it. */
function kindAt(command: ReplCommandSpec, before: readonly string[], word: string): ArgKind | "option" {
	const options = command.options ?? {};
	// An option as typed (`--name`), if it is one of the command's.
	const optionOf = (arg: string | undefined) =>
		arg?.startsWith("--") && Object.hasOwn(options, arg.slice(2)) ? options[arg.slice(2)] : undefined;
	const previous = optionOf(before[before.length - 1]);
	if (previous?.type === "string") return previous.value;
	if (word.startsWith("-") && Object.keys(options).length > 0) return "option";
	let position = 0;
	for (let i = 0; i < before.length; i++) {
		const option = optionOf(before[i]);
		if (option !== undefined) {
			if (option.type === "string") i++; // skip the option's value
			continue;
		}
		position++;
	}
	const kinds = command.args;
	return kinds[Math.min(position, kinds.length - 1)] ?? "none";
}

/**
 * Whether a word can be offered: readline lists the candidates and writes the one it inserts on
 * the terminal as they are, so an id or a file name holding controls (a session's content, a
 * directory's) is left out; it could not be typed anyway.
 */
function typeable(word: string): boolean {
	return sanitize(word) === word;
}

/** The words that start with `prefix`, sorted and without repeats. */
function matching(words: readonly string[], prefix: string): string[] {
	return [...new Set(words.filter((word) => word.startsWith(prefix)))].sort();
}

/** A single candidate gets a space after it; too many are cut to their common prefix. */
function finish(candidates: string[]): string[] {
	if (candidates.length === 1) return [`${candidates[0]} `];
	if (candidates.length > MAX_CANDIDATES) return [commonPrefix(candidates)];
	return candidates;
}

/** The longest prefix all strings share. */
export function commonPrefix(words: readonly string[]): string {
	const [first] = words;
	if (first === undefined) return "";
	let prefix = first;
	for (const word of words) {
		while (!word.startsWith(prefix)) prefix = prefix.slice(0, -1);
	}
	return prefix;
}

/**
 * Paths that continue `partial`: directories (with a `/`), and for files `.jsonl` files (any
 * file when no `.jsonl` file matches). Dot files only when the partial name starts with a dot.
 */
function completePath(partial: string, directoriesOnly: boolean, source: CompletionSource): string[] {
	const slash = partial.lastIndexOf("/");
	const dirPart = slash === -1 ? "" : partial.slice(0, slash + 1);
	const base = slash === -1 ? partial : partial.slice(slash + 1);
	const home = source.home ?? homedir();
	const expanded = dirPart.startsWith("~/") ? home + dirPart.slice(1) : dirPart;
	let entries: readonly DirEntry[];
	try {
		entries = source.listDir(resolve(source.cwd ?? process.cwd(), expanded === "" ? "." : expanded));
	} catch {
		return [];
	}
	const visible = entries.filter(
		(entry) =>
			entry.name.startsWith(base) && (base.startsWith(".") || !entry.name.startsWith(".")) && typeable(entry.name),
	);
	const dirs = visible.filter((entry) => entry.isDirectory);
	const files = directoriesOnly ? [] : visible.filter((entry) => !entry.isDirectory);
	const sessions = files.filter((entry) => entry.name.endsWith(".jsonl"));
	const chosen = [...dirs, ...(sessions.length > 0 ? sessions : files)].sort((a, b) => (a.name < b.name ? -1 : 1));
	if (chosen.length > MAX_CANDIDATES) {
		return [quoteWord(commonPrefix(chosen.map((entry) => dirPart + entry.name)), { close: false })];
	}
	const values = chosen.map((entry) => ({ value: dirPart + entry.name, isDirectory: entry.isDirectory }));
	const anyNeedsQuotes = values.some(({ value }) => quoteWord(value) !== value);
	const single = values.length === 1;
	return values.map(({ value, isDirectory }) => {
		if (isDirectory) return quoteWord(`${value}/`, { close: false, force: anyNeedsQuotes });
		const quoted = quoteWord(value, { force: anyNeedsQuotes });
		return single ? `${quoted} ` : quoted;
	});
}
