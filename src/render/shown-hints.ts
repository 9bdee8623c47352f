/**
 * What pi's filters say of each message of an exported session, written by the export beside
 * its records and read by the page, which then needs no look at the bodies of its messages to
 * lay out its tree under a filter.
 *
 * The page reads its records as envelopes and decides the filters' rule for each message from
 * its bytes (core/shown-bytes.ts), 0.45–0.65 s of a 125 MB session's start in Chromium (docs/
 * performance.md, "Issue 28, sixth round"). The export has parsed every record already: it
 * writes one character per entry, in the order of the page's lines, from its parse of the very
 * line the page holds. The page takes a character only for a node whose envelope says the
 * same role; any other node is decided from its bytes as before, so a hint that does not match
 * (a page edited by hand) can cost time but never change a row.
 *
 * The characters: `S` and `H` an assistant message the rule shows or hides; one letter per other
 * role the envelope reads ({@link ROLE_LETTERS}); `.` anything else (not a message, a body that
 * was unreadable, a role the envelope does not read).
 */

import { isUnreadable } from "../core/lazy.js";
import { HIDDEN, OTHER_ROLE, SHOWN } from "../core/shown-bytes.js";
import type { TreeNode } from "../core/tree-node.js";
import type { SessionEntry } from "../core/types.js";
import { isObject } from "../core/validate.js";
import { assistantShownByRule } from "./tree-layout.js";

/**
 * The letter of each role besides "assistant" that an envelope reads (`ROLES` of
 * core/envelope.ts). A role missing here only costs the page a look at the bytes.
 */
const ROLE_LETTERS: Readonly<Record<string, string>> = {
	user: "u",
	toolResult: "t",
	bashExecution: "b",
	custom: "c",
	branchSummary: "s",
	compactionSummary: "m",
};
const LETTER_ROLES = new Map(Object.entries(ROLE_LETTERS).map(([role, letter]) => [letter, role]));

/** The hint of one parsed entry (see the module's documentation). */
export function shownHint(entry: SessionEntry): string {
	if (entry.type !== "message" || isUnreadable(entry)) return ".";
	const message: unknown = entry.message;
	if (!isObject(message) || typeof message.role !== "string") return ".";
	if (message.role === "assistant") return assistantShownByRule(message) ? "S" : "H";
	return ROLE_LETTERS[message.role] ?? ".";
}

/**
 * Gives the nodes read from a page's lines the answers its hints hold: `hints[i]` is the entry
 * on line `i + 2` (the header is line 1). Only unparsed messages not decided yet take one, and
 * only when their envelope's role is the hint's.
 */
export function takeShownHints(nodes: Iterable<TreeNode>, hints: string): void {
	for (const node of nodes) {
		const line = node.envelope?.line;
		if (line === undefined || node.type !== "message" || node.loaded) continue;
		const hint = hints[line - 2];
		if (hint === "S" || hint === "H") {
			if (node.role === "assistant") node.knowShown(hint === "S" ? SHOWN : HIDDEN);
		} else if (hint !== undefined && node.role !== undefined && LETTER_ROLES.get(hint) === node.role) {
			node.knowShown(OTHER_ROLE);
		}
	}
}
