/**
 * One row of `session-tree ls`: what pi's session picker shows about a session (its
 * `buildSessionInfo`), plus the entry and branch counts, from the reducer's tree of the session
 * (see read.ts). Of most messages only the two ends of the line are read.
 */

import type { TreeNode } from "../core/tree.js";
import type { SessionEntry } from "../core/types.js";
import type { SessionCollection, SessionListing, SessionStore } from "../storage/store.js";
import {
	type CatalogSession,
	compareLocations,
	type JsonRecord,
	listSessions,
	readListed,
	readSession,
	SkippedFile,
} from "./read.js";

/** What `ls` knows about one session. */
export interface SessionSummary {
	/** Where the session is: an absolute path for a file, else its location (`memory:NAME`). */
	file: string;
	/** The session id from the header. */
	id: string;
	/** The working directory from the header ("" when it has none). */
	cwd: string;
	/** The latest `session_info` name (trimmed), or null. */
	name: string | null;
	/** Text of the first user message that has text, or null. */
	firstMessage: string | null;
	/** pi's "modified": the last user/assistant message time, else the header time, else the file's mtime (as listed). */
	modified: Date;
	/** The header's timestamp, or null when it is not a date. */
	created: Date | null;
	entries: number;
	branches: number;
	bytes: number;
	/** The session this one was forked from (header), or null. */
	parentSession: string | null;
	/** Problems that did not stop the listing (an incomplete last line). */
	warnings: string[];
}

/** A session that was not listed, and why. */
export interface SkippedSession {
	file: string;
	reason: string;
}

/** pi's `extractTextContent`: a string, or the text blocks joined by a space. */
export function messageText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const parts: string[] = [];
	for (const block of content) {
		if (block && typeof block === "object" && (block as JsonRecord).type === "text") {
			const text = (block as JsonRecord).text;
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
	add(entry: JsonRecord): void {
		const message = entry.message as JsonRecord | undefined;
		if (!message || typeof message !== "object" || !("content" in message)) return;
		if (message.role !== "user" && message.role !== "assistant") return;
		// The message's numeric timestamp, else the entry's.
		if (typeof message.timestamp === "number") this.at(message.timestamp);
		else {
			const parsed = new Date(String(entry.timestamp)).getTime();
			if (!Number.isNaN(parsed)) this.at(parsed);
		}
		if (!this.firstMessage && message.role === "user") this.firstMessage = messageText(message.content);
	}

	at(time: number): void {
		if (time > this.last) this.last = time;
	}
}

/**
 * The activity of a session's messages, as pi's `buildSessionInfo` finds it. Bodies are parsed
 * in stream order until the first user message with text. Of the other user and assistant
 * messages in pi's layout only the end of the line is read, for the message's timestamp; the
 * latest of those counts if its message has `content` (as pi requires), which is checked at
 * the start of its line. Messages in another layout are parsed.
 */
function activityOf(session: CatalogSession): Activity {
	const activity = new Activity();
	const messages = session.nodes.filter((node) => node.type === "message");
	for (const node of messages) {
		if (activity.firstMessage) break;
		if (node.role === undefined || node.role === "user") activity.add(record(session.entries([node])[0]));
	}
	// Messages already added are added again below: that changes neither the first message nor the maximum.
	const peeks: TreeNode[] = [];
	const parses: TreeNode[] = [];
	for (const node of messages) {
		if (node.role !== undefined && node.role !== "user" && node.role !== "assistant") continue;
		if (node.role !== undefined && session.unparsed(node)) peeks.push(node);
		else parses.push(node);
	}
	const tails = session.lineTails(peeks, TAIL_BYTES);
	const times: number[] = [];
	peeks.forEach((node, i) => {
		const time = MESSAGE_TAIL.exec(tails[i] as string)?.[1];
		if (time === undefined) parses.push(node);
		times[i] = time === undefined ? -1 : Number(time);
	});
	for (const entry of session.entries(parses)) activity.add(record(entry));
	// The latest peeked time counts once its message is known to have content (else it is parsed).
	for (let i = latestAbove(times, activity.last); i >= 0; i = latestAbove(times, activity.last)) {
		const node = peeks[i] as TreeNode;
		const [head] = session.lineHeads([node], HEAD_BYTES);
		// The envelope's strings hold no quotes, so the first `"message":{` is the message's.
		if (head?.includes(`"message":{"role":"${node.role}","content":`)) activity.at(times[i] as number);
		else activity.add(record(session.entries([node])[0]));
		times[i] = -1;
	}
	return activity;
}

function record(entry: SessionEntry | undefined): JsonRecord {
	return entry as unknown as JsonRecord;
}

/** The index of the largest time above `floor`, or -1. */
function latestAbove(times: readonly number[], floor: number): number {
	let latest = -1;
	for (let i = 0; i < times.length; i++) {
		const time = times[i] as number;
		if (time > floor && (latest < 0 || time > (times[latest] as number))) latest = i;
	}
	return latest;
}

function dateOrNull(value: unknown): Date | null {
	if (typeof value !== "string") return null;
	const date = new Date(value);
	return Number.isNaN(date.getTime()) ? null : date;
}

/** The summary of a session read by the reducer. */
function summarize(session: CatalogSession): SessionSummary {
	const header = session.header;
	const activity = activityOf(session);
	const created = dateOrNull(header.timestamp);
	let modified: Date;
	if (activity.last > 0) modified = new Date(activity.last);
	else modified = created ?? session.modified;
	if (Number.isNaN(modified.getTime())) modified = session.modified;
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
export async function summarizeSession(
	store: SessionStore,
	listing: Omit<SessionListing, "location"> = {},
): Promise<SessionSummary> {
	return (await readSession(store, listing, summarize)).value;
}

/** Options of {@link summarizeSessions}. */
export interface SummarizeOptions {
	/** Called after each session with the number done so far. */
	onProgress?: (done: number, total: number) => void;
}

/** Summaries of the sessions of a collection, newest first (ties by location), and those that were skipped. */
export async function summarizeSessions(
	collection: SessionCollection,
	options: SummarizeOptions = {},
): Promise<{ sessions: SessionSummary[]; skipped: SkippedSession[] }> {
	const listings = await listSessions(collection);
	const sessions: SessionSummary[] = [];
	const skipped: SkippedSession[] = [];
	let done = 0;
	for (const listing of listings) {
		try {
			sessions.push((await readListed(collection, listing, summarize)).value);
		} catch (error) {
			if (!(error instanceof SkippedFile)) throw error;
			skipped.push({ file: listing.location, reason: error.message });
		}
		options.onProgress?.(++done, listings.length);
	}
	sessions.sort(newestFirst);
	return { sessions, skipped };
}

function newestFirst(a: SessionSummary, b: SessionSummary): number {
	return b.modified.getTime() - a.modified.getTime() || compareLocations(a.file, b.file);
}
