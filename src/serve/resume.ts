/**
 * The command that resumes a session in its own agent, shown on the session page. Each agent
 * resumes by its own id, in the session's project directory (Claude Code, Codex and Gemini CLI
 * look sessions up by the working directory): pi `pi --session FILE`, Claude Code
 * `claude --resume ID`, Codex `codex resume ID`, Gemini CLI `gemini --resume ID`
 * (geminicli.com/docs/cli/session-management: "Resume by ID").
 */

import type { IndexedSession } from "./catalog.js";

/** A word for a POSIX shell: as it is when it is plain, else in single quotes. */
export function shellWord(text: string): string {
	return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The command line that resumes the session in its agent, or undefined (a database's session). */
export function resumeCommand(session: Pick<IndexedSession, "agent" | "id" | "cwd" | "location">): string | undefined {
	const inProject = (command: string) => (session.cwd ? `cd ${shellWord(session.cwd)} && ${command}` : command);
	switch (session.agent) {
		case "pi":
			return `pi --session ${shellWord(session.location)}`;
		case "claude-code":
			return inProject(`claude --resume ${shellWord(session.id)}`);
		case "codex":
			return inProject(`codex resume ${shellWord(session.id)}`);
		case "gemini":
			return inProject(`gemini --resume ${shellWord(session.id)}`);
		default:
			// A STORE's session: pi files resume in pi; a database's session has no agent of its own.
			return /\.jsonl$/.test(session.location) ? `pi --session ${shellWord(session.location)}` : undefined;
	}
}
