/**
 * One row of `session-tree ls`: what pi's session picker shows about a session (its
 * `buildSessionInfo`), plus the entry and branch counts, from the reducer's tree of the session
 * (see read.ts). Of most messages only the two ends of the line are read.
 */
import { TreeNode } from "../core/tree.js";
import { compareLocations, listSessions, readListed, readSession, SkippedFile, } from "./read.js";
/** pi's `extractTextContent`: a string, or the text blocks joined by a space. */
export function messageText(content) {
    if (typeof content === "string")
        return content;
    if (!Array.isArray(content))
        return "";
    const parts = [];
    for (const block of content) {
        if (block && typeof block === "object" && block.type === "text") {
            const text = block.text;
            parts.push(typeof text === "string" ? text : String(text));
        }
    }
    return parts.join(" ");
}
/** Bytes at the start of a line that hold pi's envelope, the message's role and `"content":`. */
const HEAD_BYTES = 256;
/** Bytes at the end of a line that hold a message's timestamp and the two closing braces. */
const TAIL_BYTES = 32;
/** The end of a message entry as pi writes it: the message's timestamp, then the message and the entry close. */
const MESSAGE_TAIL = /"timestamp":(\d{1,16})\}\}$/;
/** What pi's `buildSessionInfo` collects from the messages: the first user text and the last activity. */
class Activity {
    firstMessage = "";
    last = 0;
    /** pi's `getLastActivityTime` and first message, from a parsed message entry. */
    add(entry) {
        const message = entry.message;
        if (!message || typeof message !== "object" || !("content" in message))
            return;
        if (message.role !== "user" && message.role !== "assistant")
            return;
        // The message's numeric timestamp, else the entry's.
        if (typeof message.timestamp === "number")
            this.at(message.timestamp);
        else {
            const parsed = new Date(String(entry.timestamp)).getTime();
            if (!Number.isNaN(parsed))
                this.at(parsed);
        }
        if (!this.firstMessage && message.role === "user")
            this.firstMessage = messageText(message.content);
    }
    at(time) {
        if (time > this.last)
            this.last = time;
    }
}
/**
 * The activity of a session's messages, as pi's `buildSessionInfo` finds it. Bodies are parsed
 * in stream order until the first user message with text. Of the other user and assistant
 * messages in pi's layout only the end of the line is read, for the message's timestamp; the
 * latest of those counts if its message has `content` (as pi requires), which is checked at
 * the start of its line. Messages in another layout are parsed.
 */
function activityOf(session) {
    const activity = new Activity();
    const messages = session.nodes.filter((node) => node.type === "message");
    for (const node of messages) {
        if (activity.firstMessage)
            break;
        if (node.role === undefined || node.role === "user")
            activity.add(node.entry);
    }
    // Messages already added are added again below: that changes neither the first message nor the maximum.
    const peeks = [];
    const parses = [];
    for (const node of messages) {
        if (node.role !== undefined && node.role !== "user" && node.role !== "assistant")
            continue;
        if (node.role !== undefined && session.unparsed(node))
            peeks.push(node);
        else
            parses.push(node);
    }
    const tails = session.lineTails(peeks, TAIL_BYTES);
    const times = [];
    peeks.forEach((node, i) => {
        const time = MESSAGE_TAIL.exec(tails[i])?.[1];
        if (time === undefined)
            parses.push(node);
        times[i] = time === undefined ? -1 : Number(time);
    });
    TreeNode.load(parses);
    for (const node of parses)
        activity.add(node.entry);
    // The latest peeked time counts once its message is known to have content (else it is parsed).
    for (let i = latestAbove(times, activity.last); i >= 0; i = latestAbove(times, activity.last)) {
        const node = peeks[i];
        const [head] = session.lineHeads([node], HEAD_BYTES);
        // The envelope's strings hold no quotes, so the first `"message":{` is the message's.
        if (head?.includes(`"message":{"role":"${node.role}","content":`))
            activity.at(times[i]);
        else
            activity.add(node.entry);
        times[i] = -1;
    }
    return activity;
}
/** The index of the largest time above `floor`, or -1. */
function latestAbove(times, floor) {
    let latest = -1;
    for (let i = 0; i < times.length; i++) {
        const time = times[i];
        if (time > floor && (latest < 0 || time > times[latest]))
            latest = i;
    }
    return latest;
}
function dateOrNull(value) {
    if (typeof value !== "string")
        return null;
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? null : date;
}
/** The summary of a session read by the reducer. */
function summarize(session) {
    const header = session.header;
    const activity = activityOf(session);
    const created = dateOrNull(header.timestamp);
    let modified;
    if (activity.last > 0)
        modified = new Date(activity.last);
    else
        modified = created ?? session.modified;
    if (Number.isNaN(modified.getTime()))
        modified = session.modified;
    return {
        file: session.location,
        id: String(header.id),
        cwd: typeof header.cwd === "string" ? header.cwd : "",
        name: session.tree.getSessionName() ?? null,
        firstMessage: activity.firstMessage || null,
        modified,
        created,
        entries: session.tree.size,
        branches: session.branches,
        bytes: session.bytes,
        parentSession: typeof header.parentSession === "string" ? header.parentSession : null,
        warnings: [...session.warnings],
    };
}
/**
 * Summarises one session of a store.
 * @throws SkippedFile for a session that is not one or cannot be read
 */
export async function summarizeSession(store, listing = {}) {
    return (await readSession(store, listing, summarize)).value;
}
/** Summaries of the sessions of a collection, newest first (ties by location), and those that were skipped. */
export async function summarizeSessions(collection, options = {}) {
    const listings = await listSessions(collection);
    const sessions = [];
    const skipped = [];
    let done = 0;
    for (const listing of listings) {
        try {
            sessions.push((await readListed(collection, listing, summarize)).value);
        }
        catch (error) {
            if (!(error instanceof SkippedFile))
                throw error;
            skipped.push({ file: listing.location, reason: error.message });
        }
        options.onProgress?.(++done, listings.length);
    }
    sessions.sort(newestFirst);
    return { sessions, skipped };
}
function newestFirst(a, b) {
    return b.modified.getTime() - a.modified.getTime() || compareLocations(a.file, b.file);
}
//# sourceMappingURL=summary.js.map