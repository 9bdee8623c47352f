/**
 * A diff of two paths (core/diff.ts) as text, what `session-tree diff` prints:
 *
 * ```
 * Common ancestor: 5e6f7a8b assistant: A balanced search tree.
 * A: 2 entries after it, to 1c2d3e4f. B: 2 entries after it, to 7e8f9a0b.
 *
 * ~ user 9c0d1e2f → 3a4b5c6d
 *     [-And a trie?-]{+How do B-trees split?+}
 * = assistant 0a1b2c3d = 4e5f6a7b
 * - assistant 8c9d0e1f (only in A)
 *     A prefix tree.
 * ```
 *
 * `~` a pair whose text changed, shown word by word (`[-removed-]{+added+}`, or red and green
 * with colours), `=` a pair with the same text (not repeated), `-` and `+` entries only one side
 * holds. Session text is data: every piece is sanitized before it is printed.
 */

import type { DiffEntry, DiffRow, PathDiff, WordChange } from "../core/diff.js";
import { oneLine, sanitize, sanitizeText } from "./preview.js";
import { painter } from "./terminal.js";

/** Options of {@link renderDiffLines}. */
export interface DiffTextOptions {
	/** The ancestor's line (its kind and text), when there is one. */
	ancestor?: { id: string; kind: string; text: string };
	/** The ends of the two paths. */
	a: string;
	b: string;
	/** Colours (ANSI): removed red, added green. Default false. */
	color?: boolean;
}

/** Text indented under its row, one printed line per line of text. */
function indented(text: string): string[] {
	return sanitizeText(text)
		.split("\n")
		.map((line) => `    ${line}`);
}

/** A word diff, marked with brackets or colours, indented under its row. */
function wordLines(words: readonly WordChange[], color: boolean): string[] {
	const paint = painter(color);
	const text = words
		.map((change) => {
			const piece = sanitizeText(change.text);
			if (change.op === "same") return piece;
			if (color) return paint(piece, change.op === "removed" ? "red" : "green");
			return change.op === "removed" ? `[-${piece}-]` : `{+${piece}+}`;
		})
		.join("");
	return text.split("\n").map((line) => `    ${line}`);
}

function head(mark: string, entry: DiffEntry): string {
	return `${mark} ${sanitize(entry.role)} ${sanitize(entry.id)}`;
}

function rowLines(row: DiffRow, color: boolean): string[] {
	switch (row.kind) {
		case "same":
			return [`= ${sanitize(row.a.role)} ${sanitize(row.a.id)} = ${sanitize(row.b.id)}`];
		case "changed":
			return [
				`~ ${sanitize(row.a.role)} ${sanitize(row.a.id)} → ${sanitize(row.b.id)}`,
				...wordLines(row.words, color),
			];
		case "only-a":
			return [`${head("-", row.a)} (only in A)`, ...indented(row.a.text)];
		case "only-b":
			return [`${head("+", row.b)} (only in B)`, ...indented(row.b.text)];
	}
}

/** The lines of a diff (see the module comment). */
export function renderDiffLines(diff: PathDiff, options: DiffTextOptions): string[] {
	const color = options.color === true;
	const lines: string[] = [];
	const ancestor = options.ancestor;
	lines.push(
		ancestor
			? `Common ancestor: ${sanitize(ancestor.id)} ${sanitize(ancestor.kind)}: ${oneLine(ancestor.text)}`
			: "No common ancestor: the paths share no entry.",
	);
	const count = (n: number) => `${n} ${n === 1 ? "entry" : "entries"}`;
	lines.push(
		`A: ${count(diff.afterA)} after it, to ${sanitize(options.a)}. B: ${count(diff.afterB)} after it, to ${sanitize(options.b)}.`,
	);
	if (diff.rows.length === 0) {
		lines.push("", "No messages differ.");
		return lines;
	}
	lines.push("");
	for (const row of diff.rows) lines.push(...rowLines(row, color));
	return lines;
}
