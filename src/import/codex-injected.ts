/**
 * Text that Codex adds to a conversation itself, as user messages: AGENTS.md, the environment
 * context, skills, shell commands, aborted-turn notes (Codex's `is_contextual_user_message_content`
 * in codex-rs). They reach the model, but they are not prompts the user typed: a rollback does
 * not count them as turns, and an `event_msg` `user_message` holding one is not a prompt.
 *
 * TODO(issue 22): the Claude Code importer's helper writes one shared "is this text injected by
 * the agent" module under src/import/ (for title choice); this list should merge into it.
 */

/** Starts of the user messages Codex injects (compared case-insensitively, leading space ignored). */
const CODEX_INJECTED_PREFIXES = [
	"# agents.md instructions for",
	"<user_instructions>",
	"<environment_context>",
	"<skill>",
	"<skills_instructions>",
	"<user_shell_command>",
	"<turn_aborted>",
	"<subagent_notification>",
];

/** True for text that Codex injected as a user message (see the module comment). */
export function isCodexInjectedText(text: string): boolean {
	const start = text.trimStart().toLowerCase();
	return CODEX_INJECTED_PREFIXES.some((prefix) => start.startsWith(prefix));
}
