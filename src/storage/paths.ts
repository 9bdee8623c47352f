/** Where session files live by default: pi's directory layout and file naming. */

import { homedir } from "node:os";
import { join } from "node:path";
import { SessionTreeError } from "../core/errors.js";

/** pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function defaultAgentDir(env: NodeJS.ProcessEnv = process.env): string {
	const fromEnv = env.PI_CODING_AGENT_DIR;
	if (fromEnv) return fromEnv.startsWith("~") ? join(homedir(), fromEnv.slice(1)) : fromEnv;
	return join(homedir(), ".pi", "agent");
}

/** `<agentDir>/sessions`: every project's session directory sits below it. */
export function sessionsRoot(agentDir: string = defaultAgentDir()): string {
	return join(agentDir, "sessions");
}

/** The directory of a project's sessions: `<agentDir>/sessions/--<cwd with / \ : as ->--`. */
export function defaultSessionDir(cwd: string, agentDir: string = defaultAgentDir()): string {
	const safe = `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
	return join(sessionsRoot(agentDir), safe);
}

/**
 * The file name of a session: `<ISO timestamp with : and . as ->_<session id>.jsonl`.
 * The id may not contain path separators or dots-only segments: a session id given by a user
 * must not place the file outside its directory. At most 128 characters, as in a database
 * session name: a longer one would make a file name the file system may refuse (255 bytes).
 * @throws SessionTreeError INVALID_ARGUMENT for another id
 */
export function sessionFileName(timestamp: string, sessionId: string): string {
	if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/.test(sessionId)) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`session id ${JSON.stringify(sessionId)} may hold only letters, digits, '-' and '_', at most 128 of them`,
		);
	}
	return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}
