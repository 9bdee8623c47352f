/**
 * Types of the pi session format, version 3.
 *
 * A session file is one JSON object per line: a {@link SessionHeader} first, then
 * {@link SessionEntry} records that form a tree through `id`/`parentId`. The shapes follow
 * pi 0.73.1 (`@mariozechner/pi-coding-agent`) field by field, so files round-trip between the
 * two tools. Unknown fields are kept: every type is open (`[key: string]: unknown` where pi's
 * own types are open, and records are never rebuilt field by field when they are written back).
 *
 * @packageDocumentation
 */
/** The session format version this library writes. */
export const CURRENT_SESSION_VERSION = 3;
/** The entry type names of the format. */
export const ENTRY_TYPES = [
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "leaf",
];
/** Type guard for {@link MessageEntry}. */
export function isMessageEntry(entry) {
    return entry.type === "message";
}
//# sourceMappingURL=types.js.map