/** Git-style abbreviated ids: any unique prefix names an entry. */
import { SessionTreeError } from "./errors.js";
/** How many candidates an ambiguity error lists. */
const MAX_LISTED = 10;
/**
 * The full id of the one entry whose id starts with `prefix` (an exact id always wins).
 * @throws SessionTreeError ENTRY_NOT_FOUND when none matches, AMBIGUOUS_ID (listing the
 *   candidates) when several do
 */
export function resolveIdPrefix(tree, prefix) {
    if (tree.has(prefix))
        return prefix;
    if (prefix === "")
        throw new SessionTreeError("INVALID_ARGUMENT", "an entry id may not be empty");
    const matches = [];
    for (const entry of tree.getEntries()) {
        if (entry.id.startsWith(prefix))
            matches.push(entry.id);
    }
    if (matches.length === 1)
        return matches[0];
    if (matches.length === 0)
        throw new SessionTreeError("ENTRY_NOT_FOUND", `no entry id starts with ${prefix}`);
    const listed = matches
        .slice(0, MAX_LISTED)
        .map((id) => `${id} (${tree.getEntry(id)?.type})`)
        .join(", ");
    const more = matches.length > MAX_LISTED ? `, and ${matches.length - MAX_LISTED} more` : "";
    throw new SessionTreeError("AMBIGUOUS_ID", `${prefix} is ambiguous: it starts ${matches.length} ids: ${listed}${more}`);
}
//# sourceMappingURL=id-prefix.js.map