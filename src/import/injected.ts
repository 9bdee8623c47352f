/**
 * Text an agent put in a user message that the person did not type: Claude Code's local-command
 * wrappers and caveats, hook output and system reminders, Codex's AGENTS.md instructions and
 * environment context. Everything that chooses a title or a first message for a listing (`ls`,
 * `search`, Markdown titles) asks here, so that a session is not named "Caveat: The messages
 * below were generated…". One list for every agent: the markers cannot be mistaken for each
 * other, and a session imported from one agent may be continued in pi.
 */

/** Claude Code: how the text of a user message it injected starts (after leading white space). */
const CLAUDE_CODE_PREFIXES: readonly string[] = [
	// Slash commands and `!` shell input with their output, the caveat it writes before them,
	// interruptions, hook output and reminders.
	"<command-name>",
	"<command-message>",
	"<command-args>",
	"<local-command-stdout>",
	"<local-command-stderr>",
	"<local-command-caveat>",
	"Caveat: The messages below were generated",
	"[Request interrupted",
	"<bash-input>",
	"<bash-stdout>",
	"<bash-stderr>",
	"<user-prompt-submit-hook>",
	"<system-reminder>",
	// Its IDE integrations: context blocks beside the typed text of the same message.
	"<ide_opened_file>",
	"<ide_selection>",
	"<ide_diagnostics>",
];

/**
 * Codex: the instructions and context it sends as user messages (its
 * `is_contextual_user_message_content` in codex-rs), compared case-insensitively. They reach the
 * model but are not prompts: a rollback does not count them as turns, and a `user_message` event
 * holding one is not a prompt (src/import/codex-prompts.ts).
 */
const CODEX_PREFIXES: readonly string[] = [
	"# agents.md instructions",
	"<environment_context>",
	"<user_instructions>",
	"<skill>",
	"<skills_instructions>",
	"<user_shell_command>",
	"<turn_aborted>",
	"<subagent_notification>",
	"<collaboration_mode>",
];

/** Codex wrappers that a listing skips too, though Codex itself does not count them as context. */
const CODEX_LISTING_PREFIXES: readonly string[] = ["<permissions instructions>", "<instructions>"];

function startsWithAny(text: string, prefixes: readonly string[]): boolean {
	return prefixes.some((prefix) => text.startsWith(prefix));
}

/** True when `text` is what an agent injected (see the lists above), or blank. */
export function isInjectedText(text: string): boolean {
	const start = text.trimStart();
	if (start === "" || startsWithAny(start, CLAUDE_CODE_PREFIXES)) return true;
	const lower = start.slice(0, 64).toLowerCase();
	return startsWithAny(lower, CODEX_PREFIXES) || startsWithAny(lower, CODEX_LISTING_PREFIXES);
}

/** True for text that Codex injected as a user message (its own rule; blank text is not). */
export function isCodexInjectedText(text: string): boolean {
	return startsWithAny(text.trimStart().slice(0, 64).toLowerCase(), CODEX_PREFIXES);
}

/**
 * What the person typed in a user message's content: the string, or its text blocks that are
 * not injected joined by a space (an IDE's context block shares a message with the typed text);
 * undefined when there is none.
 */
export function typedText(content: unknown): string | undefined {
	if (typeof content === "string") return isInjectedText(content) ? undefined : content;
	if (!Array.isArray(content)) return undefined;
	const parts: string[] = [];
	for (const block of content) {
		if (block === null || typeof block !== "object") continue;
		const { type, text } = block as { type?: unknown; text?: unknown };
		if (type === "text" && typeof text === "string" && !isInjectedText(text)) parts.push(text);
	}
	return parts.length === 0 ? undefined : parts.join(" ");
}

/**
 * True for an entry imported from a line the agent marks as its own (Claude Code's `isMeta`,
 * `isCompactSummary`, `isVisibleInTranscriptOnly`), whatever its text: the line is kept in the
 * entry's `source` (src/import/claude-code-user.ts).
 */
export function isInjectedEntry(entry: unknown): boolean {
	if (entry === null || typeof entry !== "object") return false;
	const source = (entry as { source?: unknown }).source;
	if (source === null || typeof source !== "object") return false;
	const lines = (source as { lines?: unknown }).lines;
	const first: unknown = Array.isArray(lines) ? lines[0] : undefined;
	const record =
		first !== null && typeof first === "object"
			? (first as { record?: unknown }).record
			: (source as { record?: unknown }).record;
	if (record === null || typeof record !== "object") return false;
	const r = record as Record<string, unknown>;
	return r.isMeta === true || r.isCompactSummary === true || r.isVisibleInTranscriptOnly === true;
}

/** The typed text of a user message entry (not injected, not blank), or undefined. */
export function promptOf(entry: unknown): string | undefined {
	if (entry === null || typeof entry !== "object" || isInjectedEntry(entry)) return undefined;
	const message = (entry as { message?: unknown }).message;
	if (message === null || typeof message !== "object") return undefined;
	const { role, content } = message as { role?: unknown; content?: unknown };
	return role === "user" ? typedText(content) : undefined;
}
