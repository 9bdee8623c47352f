/** Git-style abbreviated ids: any unique prefix names an entry. */

import { SessionTreeError, type SourceLocation } from "./errors.js";
import type { SessionTree } from "./tree.js";

/** How many candidates an ambiguity error lists. */
const MAX_LISTED = 10;

/**
 * The full id of the one entry whose id starts with `prefix` (an exact id always wins).
 * @throws SessionTreeError ENTRY_NOT_FOUND when none matches, AMBIGUOUS_ID (listing the
 *   candidates) when several do
 */
export function resolveIdPrefix(tree: SessionTree, prefix: string): string {
	if (tree.has(prefix)) return prefix;
	if (prefix === "") throw new SessionTreeError("INVALID_ARGUMENT", "an entry id may not be empty");
	const matches: string[] = [];
	for (const entry of tree.getEntries()) {
		if (entry.id.startsWith(prefix)) matches.push(entry.id);
	}
	const [only, another] = matches;
	if (only === undefined) throw new SessionTreeError("ENTRY_NOT_FOUND", `no entry id starts with ${prefix}`);
	if (another === undefined) return only;
	throw ambiguousIdError(prefix, matches, (id) => `${id} (${tree.getEntry(id)?.type})`);
}

/**
 * The error for a prefix that starts several ids (entry ids, session ids): the first
 * {@link MAX_LISTED} candidates, each as `describe` gives it, and how many more.
 */
export function ambiguousIdError(
	prefix: string,
	matches: readonly string[],
	describe: (id: string) => string = (id) => id,
	where: SourceLocation = {},
): SessionTreeError {
	const listed = matches.slice(0, MAX_LISTED).map(describe).join(", ");
	const more = matches.length > MAX_LISTED ? `, and ${matches.length - MAX_LISTED} more` : "";
	return new SessionTreeError(
		"AMBIGUOUS_ID",
		`${prefix} is ambiguous: it starts ${matches.length} ids: ${listed}${more}`,
		where,
	);
}
