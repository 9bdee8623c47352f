/**
 * Text an agent put in a user message that the person did not type: Claude Code's local-command
 * wrappers and caveats, hook output and system reminders, Codex's AGENTS.md instructions and
 * environment context. Everything that chooses a title or a first message for a listing (`ls`,
 * `search`, Markdown titles) asks here, so that a session is not named "Caveat: The messages
 * below were generated…". One list for every agent: the markers cannot be mistaken for each
 * other, and a session imported from one agent may be continued in pi.
 */

/** How the text of an injected user message starts (after leading white space). */
const INJECTED_PREFIXES: readonly string[] = [
	// Claude Code: slash commands and `!` shell input with their output, the caveat it writes
	// before them, interruptions, hook output and reminders.
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
	// Claude Code's IDE integrations: context blocks beside the typed text of the same message.
	"<ide_opened_file>",
	"<ide_selection>",
	"<ide_diagnostics>",
	// Codex: the instructions and context it sends as user messages.
	"# AGENTS.md instructions",
	"<environment_context>",
	"<user_instructions>",
	"<permissions instructions>",
	"<INSTRUCTIONS>",
	"<user_shell_command>",
	"<turn_aborted>",
	"<collaboration_mode>",
	"<skills_instructions>",
];

/** True when `text` is what an agent injected (see the list above), or blank. */
export function isInjectedText(text: string): boolean {
	const start = text.trimStart();
	return start === "" || INJECTED_PREFIXES.some((prefix) => start.startsWith(prefix));
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
