/** Opening session files for the commands, and checks on entry ids given by users. */
import { Session } from "../session.js";
/**
 * Opens a session (a path or any store location). With `lenient`, problems the loader worked around are printed to stderr
 * as warnings (`session-tree: warning: FILE:LINE: message`).
 */
export async function openSession(location, io, lenient = false, load = "all") {
    // A lenient open is for a damaged file: check every body now, so all problems show up front.
    const session = await Session.open(location, { lenient, verify: lenient, load });
    const where = session.location;
    for (const problem of session.problems) {
        const location = problem.line === undefined ? where : `${where}:${problem.line}`;
        io.err(`session-tree: warning: ${location}: ${problem.message}\n`);
    }
    return session;
}
/**
 * The full id for an id given on the command line, which may be abbreviated to any unique
 * prefix (as git accepts abbreviated hashes).
 * @throws SessionTreeError ENTRY_NOT_FOUND or AMBIGUOUS_ID (listing the candidates), naming the file
 */
export function resolveEntryId(session, idOrPrefix) {
    return session.resolveId(idOrPrefix);
}
//# sourceMappingURL=open.js.map