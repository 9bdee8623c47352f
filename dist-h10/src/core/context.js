/**
 * Building the model context from a root-to-leaf path, with exactly pi 0.73.1's rules
 * (`buildSessionContext`), plus session-tree's `retainedTail` on compactions.
 */
function isObject(value) {
    return value !== null && typeof value === "object";
}
/** pi turns ISO timestamps into epoch milliseconds with `new Date(..).getTime()`. */
function epochMs(timestamp) {
    return new Date(timestamp).getTime();
}
/** The context message for a compaction entry. */
export function compactionSummaryMessage(entry) {
    return {
        role: "compactionSummary",
        summary: entry.summary,
        tokensBefore: entry.tokensBefore,
        timestamp: epochMs(entry.timestamp),
    };
}
/** The context message for a branch summary entry. */
export function branchSummaryMessage(entry) {
    return { role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: epochMs(entry.timestamp) };
}
/** The context message for a custom message entry (`details` stays undefined when absent, as in pi). */
export function customMessage(entry) {
    return {
        role: "custom",
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        details: entry.details,
        timestamp: epochMs(entry.timestamp),
    };
}
/** The context message an entry contributes on its own, if any. */
export function entryMessage(entry) {
    switch (entry.type) {
        case "message": {
            // A damaged message entry (leniently loaded: no message, or no string role) contributes
            // nothing, as docs/durability.md promises.
            const message = entry.message;
            return isObject(message) && typeof message.role === "string" ? message : undefined;
        }
        case "custom_message":
            return customMessage(entry);
        case "branch_summary": {
            const summary = entry;
            return summary.summary ? branchSummaryMessage(summary) : undefined;
        }
        default:
            return undefined;
    }
}
/** Steps for a path of parsed entries. */
export function stepsOf(path) {
    return path.map((entry) => {
        const message = entry.type === "message" ? entry.message : undefined;
        const role = isObject(message) && typeof message.role === "string" ? message.role : undefined;
        return { id: entry.id, type: entry.type, role, entry };
    });
}
/**
 * The settings that hold at the end of a path: the last thinking level change, the last model
 * (from a model change or an assistant message) and the last compaction. Scans backwards and
 * stops once all three are found, so a long path with recent settings costs little; only the
 * one assistant message that gives the model is parsed. A compaction with `retainedState`
 * gives what is still missing at that point (the values pi finds further back).
 */
export function pathState(path) {
    let thinkingLevel;
    let model;
    let compactionIndex = -1;
    for (let i = path.length - 1; i >= 0; i--) {
        const step = path[i];
        const type = step.type;
        if (type === "message") {
            if (model === undefined && (step.role === undefined || step.role === "assistant")) {
                const message = step.entry.message;
                if (isObject(message) && message.role === "assistant") {
                    model = { provider: message.provider, modelId: message.model };
                }
            }
        }
        else if (type === "thinking_level_change") {
            if (thinkingLevel === undefined)
                thinkingLevel = step.entry.thinkingLevel;
        }
        else if (type === "model_change") {
            const change = step.entry;
            if (model === undefined)
                model = { provider: change.provider, modelId: change.modelId };
        }
        else if (type === "compaction") {
            if (compactionIndex < 0)
                compactionIndex = i;
            const retained = step.entry.retainedState;
            if (isRetainedState(retained)) {
                if (thinkingLevel === undefined)
                    thinkingLevel = retained.thinkingLevel;
                if (model === undefined)
                    model = retained.model;
            }
        }
        if (thinkingLevel !== undefined && model !== undefined && compactionIndex >= 0)
            break;
    }
    return { thinkingLevel: thinkingLevel ?? "off", model: model ?? null, compactionIndex };
}
/** A usable `retainedState`: a string thinking level and a model object or null. */
export function isRetainedState(value) {
    if (!isObject(value) || typeof value.thinkingLevel !== "string")
        return false;
    const model = value.model;
    return model === null || (isObject(model) && typeof model.provider === "string" && typeof model.modelId === "string");
}
/** Entry types that can give a context message on their own. */
function givesMessage(type) {
    return type === "message" || type === "custom_message" || type === "branch_summary";
}
/**
 * The index ranges of the path whose entries give the context messages: everything without a
 * compaction; with one, the kept range before it (unless it carries `retainedTail`) and what
 * follows it.
 */
function contextRanges(path, compactionIndex) {
    if (compactionIndex < 0)
        return [[0, path.length]];
    const compaction = path[compactionIndex].entry;
    const ranges = [];
    if (!Array.isArray(compaction.retainedTail)) {
        let first = -1;
        for (let i = 0; i < compactionIndex && first < 0; i++) {
            if (path[i].id === compaction.firstKeptEntryId)
                first = i;
        }
        if (first >= 0)
            ranges.push([first, compactionIndex]);
    }
    ranges.push([compactionIndex + 1, path.length]);
    return ranges;
}
/**
 * Calls `visit` for each context message of a root-to-leaf path, in order, with the entry it
 * comes from. Without a compaction: every message, custom message and non-empty branch
 * summary. With compactions, the last one wins: its summary, then either its `retainedTail`
 * or the path entries from `firstKeptEntryId` up to the compaction, then everything after it.
 */
function visitContext(path, compactionIndex, visit, load) {
    const ranges = contextRanges(path, compactionIndex);
    if (compactionIndex >= 0) {
        const compaction = path[compactionIndex].entry;
        visit(compaction, compactionSummaryMessage(compaction));
        if (Array.isArray(compaction.retainedTail)) {
            for (const message of compaction.retainedTail)
                visit(compaction, message);
        }
    }
    // One pass; at the first step not parsed yet, every unparsed step still to come is parsed at once.
    let pending = load !== undefined;
    for (let r = 0; r < ranges.length; r++) {
        const [from, to] = ranges[r];
        for (let i = from; i < to; i++) {
            const step = path[i];
            if (!givesMessage(step.type))
                continue;
            if (pending && step.loaded === false) {
                load(unparsedFrom(path, ranges, r, i));
                pending = false;
            }
            const message = entryMessage(step.entry);
            if (message)
                visit(step.entry, message);
        }
    }
}
/** The steps giving messages, not parsed yet, from range `r` at index `at` on. */
function unparsedFrom(path, ranges, r, at) {
    const out = [];
    for (let k = r; k < ranges.length; k++) {
        const [from, to] = ranges[k];
        for (let i = k === r ? at : from; i < to; i++) {
            const step = path[i];
            if (step.loaded === false && givesMessage(step.type))
                out.push(step);
        }
    }
    return out;
}
/** Parses, in one `load`, every entry the context of `path` will read (and nothing else). */
export function loadContext(path, load) {
    const ranges = contextRanges(path, pathState(path).compactionIndex);
    load(unparsedFrom(path, ranges, 0, ranges[0][0]));
}
/**
 * The context messages of a root-to-leaf path, each with its source entry (see
 * {@link buildSessionContext}).
 */
export function buildContextEntries(path) {
    return contextEntriesOf(stepsOf(path));
}
/** {@link buildContextEntries} for path steps; `load` batches the parsing of their entries. */
export function contextEntriesOf(path, load) {
    const out = [];
    visitContext(path, pathState(path).compactionIndex, (entry, message) => out.push({ entry, message }), load);
    return out;
}
/** What pi's `buildSessionContext` returns for a root-to-leaf path. */
export function buildSessionContext(path) {
    return sessionContextOf(stepsOf(path));
}
/** {@link buildSessionContext} for path steps; `load` batches the parsing of their entries. */
export function sessionContextOf(path, load) {
    const state = pathState(path);
    const messages = [];
    visitContext(path, state.compactionIndex, (_entry, message) => messages.push(message), load);
    return { messages, thinkingLevel: state.thinkingLevel, model: state.model };
}
/**
 * The messages a compaction at the end of `path` would keep from `firstKeptEntryId` on: the
 * value to store as its `retainedTail` so that session-tree and pi build the same context.
 */
export function keptMessages(path, firstKeptEntryId, load) {
    const start = path.findIndex((step) => step.id === firstKeptEntryId);
    if (start < 0)
        return [];
    const steps = path.slice(start).filter((step) => givesMessage(step.type));
    load?.(steps);
    const kept = [];
    // Earlier compactions in this range are not messages; pi skips them too.
    for (const step of steps) {
        const message = entryMessage(step.entry);
        if (message)
            kept.push(message);
    }
    return kept;
}
//# sourceMappingURL=context.js.map