/** Where session files live by default: pi's directory layout and file naming. */
import { homedir } from "node:os";
import { join } from "node:path";
import { SessionTreeError } from "../core/errors.js";
/** pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function defaultAgentDir(env = process.env) {
    const fromEnv = env.PI_CODING_AGENT_DIR;
    if (fromEnv)
        return fromEnv.startsWith("~") ? join(homedir(), fromEnv.slice(1)) : fromEnv;
    return join(homedir(), ".pi", "agent");
}
/** `<agentDir>/sessions`: every project's session directory sits below it. */
export function sessionsRoot(agentDir = defaultAgentDir()) {
    return join(agentDir, "sessions");
}
/** The directory of a project's sessions: `<agentDir>/sessions/--<cwd with / \ : as ->--`. */
export function defaultSessionDir(cwd, agentDir = defaultAgentDir()) {
    const safe = `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
    return join(sessionsRoot(agentDir), safe);
}
/**
 * The file name of a session: `<ISO timestamp with : and . as ->_<session id>.jsonl`.
 * The id may not contain path separators or dots-only segments: a session id given by a user
 * must not place the file outside its directory.
 */
export function sessionFileName(timestamp, sessionId) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(sessionId)) {
        throw new SessionTreeError("INVALID_ARGUMENT", `session id ${JSON.stringify(sessionId)} may hold only letters, digits, '-' and '_'`);
    }
    return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
//# sourceMappingURL=paths.js.map