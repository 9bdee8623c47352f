/**
 * Constructors for new entries. Keys are written in pi 0.73.1's order, so a file written by
 * session-tree reads line by line like one pi wrote.
 */
import { CURRENT_SESSION_VERSION } from "./types.js";
/** A version-3 session header (line 1 of a file). */
export function sessionHeader(id, timestamp, cwd, parentSession) {
    const header = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd };
    if (parentSession !== undefined)
        header.parentSession = parentSession;
    return header;
}
/** A `message` entry holding an agent message. */
export function messageEntry(stamp, message) {
    return { type: "message", ...stamp, message };
}
/** A `model_change` entry. */
export function modelChangeEntry(stamp, provider, modelId) {
    return { type: "model_change", ...stamp, provider, modelId };
}
/** A `thinking_level_change` entry. */
export function thinkingLevelChangeEntry(stamp, thinkingLevel) {
    return { type: "thinking_level_change", ...stamp, thinkingLevel };
}
/** A `compaction` entry; `retainedTail` and `retainedState` are written only when given. */
export function compactionEntry(stamp, summary, firstKeptEntryId, tokensBefore, details, fromHook, retainedTail, retainedState) {
    const entry = {
        type: "compaction",
        ...stamp,
        summary,
        firstKeptEntryId,
        tokensBefore,
        details,
        fromHook,
    };
    if (retainedTail !== undefined)
        entry.retainedTail = retainedTail;
    if (retainedState !== undefined)
        entry.retainedState = retainedState;
    return entry;
}
/** A `branch_summary` entry; `fromId` is the branch point or `"root"`. */
export function branchSummaryEntry(stamp, fromId, summary, details, fromHook) {
    return { type: "branch_summary", ...stamp, fromId, summary, details, fromHook };
}
/** A `custom` entry (extension state, never in the context). */
export function customEntry(stamp, customType, data) {
    return { type: "custom", customType, data, ...stamp };
}
/** A `custom_message` entry (sent to the model as a `custom` message). */
export function customMessageEntry(stamp, customType, content, display, details) {
    return { type: "custom_message", customType, content, display, details, ...stamp };
}
/** A `label` entry; an absent or empty label clears the target's label. */
export function labelEntry(stamp, targetId, label) {
    return { type: "label", ...stamp, targetId, label };
}
/** A `session_info` entry naming the session. */
export function sessionInfoEntry(stamp, name) {
    return { type: "session_info", ...stamp, name };
}
/** The persisted leaf pointer; its parent is its target, so pi's walk from it finds the same path. */
export function leafEntry(stamp, targetId) {
    return { type: "leaf", id: stamp.id, parentId: targetId, timestamp: stamp.timestamp, targetId };
}
//# sourceMappingURL=entries.js.map