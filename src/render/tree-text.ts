/**
 * The session tree as box-drawing text, one line per entry:
 *
 * ```
 * Session: fix the CI
 * 1a2b3c4d user: Our CI fails on Node 16…
 * 5e6f7a8b assistant: structuredClone became a global in Node 17…
 * ├── 9c0d1e2f user: Also add a polyfill
 * │   3a4b5c6d assistant: Added core-js… [polyfill]
 * └── 7e8f9a0b user: Instead, declare engines.node >= 20
 *     1c2d3e4f assistant: Added "engines"…  ← leaf
 * ```
 *
 * Indentation grows only where the tree forks: an only child is printed at its parent's
 * indentation, so a 5,000-entry chain stays 5,000 short lines. Siblings get `├──`/`└──`.
 * The walk is iterative: no depth can overflow the stack.
 */

import type { SessionTreeNode } from "../core/types.js";
import { DEFAULT_PREVIEW_LENGTH, describeEntry, formatDescription, sanitize } from "./preview.js";

/** Options of {@link renderTree}. */
export interface TreeTextOptions {
	/** The entry to mark as the leaf. */
	leafId?: string | null;
	/** Printed on the first line when set. */
	sessionName?: string;
	/** Preview length in characters. Default 60. */
	previewLength?: number;
	/**
	 * Widest indentation in characters (a multiple of 4). Deeper levels are cut off on the left
	 * and marked with `… `. Default 64 (16 nested forks).
	 */
	maxIndent?: number;
	/** Marker after the leaf's line. Default `← leaf`. */
	leafMarker?: string;
	/** Text for a tree without entries. Default `(empty)`. */
	emptyText?: string;
}

interface Pending {
	node: SessionTreeNode;
	/** Printed before the entry: the indentation and the connector. */
	linePrefix: string;
	/** Indentation of the lines below this entry. */
	childPrefix: string;
}

const BRANCH = "├── ";
const LAST = "└── ";
const PIPE = "│   ";
const SPACE = "    ";

/** Renders a tree (as {@link SessionTree.getTree} returns it) as lines of text. */
export function renderTreeLines(roots: readonly SessionTreeNode[], options: TreeTextOptions = {}): string[] {
	const previewLength = options.previewLength ?? DEFAULT_PREVIEW_LENGTH;
	const maxIndent = Math.max(4, Math.floor((options.maxIndent ?? 64) / 4) * 4);
	const leafMarker = options.leafMarker ?? "← leaf";
	const lines: string[] = [];
	if (options.sessionName !== undefined) lines.push(`Session: ${sanitize(options.sessionName)}`);
	if (roots.length === 0) {
		lines.push(options.emptyText ?? "(empty)");
		return lines;
	}

	const stack: Pending[] = [];
	const pushChildren = (children: readonly SessionTreeNode[], prefix: string) => {
		if (children.length === 1) {
			stack.push({ node: children[0] as SessionTreeNode, linePrefix: prefix, childPrefix: prefix });
			return;
		}
		for (let i = children.length - 1; i >= 0; i--) {
			const last = i === children.length - 1;
			stack.push({
				node: children[i] as SessionTreeNode,
				linePrefix: prefix + (last ? LAST : BRANCH),
				childPrefix: prefix + (last ? SPACE : PIPE),
			});
		}
	};
	pushChildren(roots, "");

	for (let item = stack.pop(); item; item = stack.pop()) {
		const { node, linePrefix, childPrefix } = item;
		const { entry } = node;
		let line = `${clip(linePrefix, maxIndent)}${entry.id} ${formatDescription(describeEntry(entry), previewLength)}`;
		if (node.label !== undefined) line += ` [${sanitize(node.label)}]`;
		if (options.leafId != null && entry.id === options.leafId) line += `  ${leafMarker}`;
		lines.push(line);
		if (node.children.length > 0) pushChildren(node.children, childPrefix);
	}
	return lines;
}

/** {@link renderTreeLines} joined, with a final newline. */
export function renderTree(roots: readonly SessionTreeNode[], options: TreeTextOptions = {}): string {
	return `${renderTreeLines(roots, options).join("\n")}\n`;
}

/** Keeps the rightmost `max` characters of an over-deep indentation. */
function clip(prefix: string, max: number): string {
	return prefix.length <= max ? prefix : `… ${prefix.slice(prefix.length - max)}`;
}
