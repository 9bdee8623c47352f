/**
 * One row of `session-tree ls`: what pi's session picker shows about a session (its
 * `buildSessionInfo`), plus the entry and branch counts, from the reducer's tree of the session
 * (see read.ts). Most messages are not even read: their envelope holds their timestamp.
 */

import { parentSessionOf } from "../core/migrate.js";
import type { TreeNode } from "../core/tree-node.js";
import type { SessionEntry } from "../core/types.js";
import { promptOf } from "../import/injected.js";
import type { SessionCollection, SessionListing, SessionStore } from "../storage/store.js";
import {
	type CatalogSession,
	compareLocations,
	type JsonRecord,
	listSessions,
	readListed,
	readSession,
	SkippedFile,
	smallestFirst,
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
	/** Text of the first user message that has typed text (not text the agent injected, src/import/injected.ts), or null. */
	firstMessage: string | null;
	/**
	 * When the session last changed, as its store lists it: a file's mtime, a database row's
	 * `modified` (the time of its last append), a memory session's last write. Only when the
	 * store does not say is it {@link lastActivity}. A message's own timestamp is the agent's
	 * clock (often another machine's, or an import's source): it does not say when the session
	 * was last written.
	 */
	modified: Date;
	/** pi's "modified" (its `buildSessionInfo`): the last user/assistant message time, else the header time, else {@link modified}. */
	lastActivity: Date;
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

/**
 * What pi's `buildSessionInfo` collects from the messages: the first user text (here: the first
 * typed text, skipping what an agent injected) and the last activity. The catalog index feeds
 * it the entries appended to a session, starting from what it kept of the session before.
 */
export class Activity {
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
		// What the person typed: not what the agent injected (a Claude Code caveat, Codex's AGENTS.md).
		if (!this.firstMessage && message.role === "user") this.firstMessage = promptOf(entry) ?? "";
	}

	at(time: number): void {
		if (time > this.last) this.last = time;
	}
}

/**
 * The activity of a session's messages, as pi's `buildSessionInfo` finds it. Bodies are parsed
 * in stream order until the first user message with text. Of the other user and assistant
 * messages in pi's layout, with `content` (as pi requires), the timestamp is the one their
 * envelope read at the end of the line. Messages in another layout are parsed.
 */
export function activityOf(session: CatalogSession): Activity {
	const activity = new Activity();
	const parses: TreeNode[] = [];
	for (const node of session.nodes) {
		if (node.type !== "message" || (node.role !== undefined && node.role !== "user" && node.role !== "assistant")) {
			continue;
		}
		// The message's timestamp as its envelope read it (its message has content, as pi requires), else parsed.
		const time = node.role !== undefined && session.unparsed(node) ? node.envelope?.endTimestamp : undefined;
		if (time === undefined) parses.push(node);
		else activity.at(time);
	}
	for (const node of session.nodes) {
		if (activity.firstMessage) break;
		if (node.type === "message" && (node.role === undefined || node.role === "user")) {
			activity.add(record(session.entries([node])[0]));
		}
	}
	// Messages added above may be added again: that changes neither the first message nor the maximum.
	for (const entry of session.entries(parses)) activity.add(record(entry));
	return activity;
}

function record(entry: SessionEntry | undefined): JsonRecord {
	return entry as unknown as JsonRecord;
}

function dateOrNull(value: unknown): Date | null {
	if (typeof value !== "string") return null;
	const date = new Date(value);
	return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * A session's last activity and modification time: the last message's time, else the header's,
 * else the listed time; the listed time, else the last activity.
 */
export function timesOf(
	activityMs: number,
	created: Date | null,
	listedModified: Date,
): { lastActivity: Date; modified: Date } {
	let lastActivity: Date;
	if (activityMs > 0) lastActivity = new Date(activityMs);
	else lastActivity = created ?? listedModified;
	if (Number.isNaN(lastActivity.getTime())) lastActivity = listedModified;
	// The epoch is what the catalog puts when the store listed no time.
	const listed = listedModified.getTime();
	const modified = listed > 0 && !Number.isNaN(listed) ? listedModified : lastActivity;
	return { lastActivity, modified };
}

/** The summary of a session read by the reducer. */
export function summarize(session: CatalogSession): SessionSummary {
	return summarizeWith(session, activityOf(session));
}

/** The summary of a session read by the reducer, from its activity. */
export function summarizeWith(session: CatalogSession, activity: Activity): SessionSummary {
	const header = session.header;
	const created = dateOrNull(header.timestamp);
	const { lastActivity, modified } = timesOf(activity.last, created, session.modified);
	return {
		file: session.location,
		id: String(header.id),
		cwd: typeof header.cwd === "string" ? header.cwd : "",
		name: session.tree.getSessionName() ?? null,
		firstMessage: activity.firstMessage || null,
		modified,
		lastActivity,
		created,
		entries: session.tree.size,
		branches: session.branches,
		bytes: session.bytes,
		parentSession: parentSessionOf(header) ?? null,
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

/** Summaries of the sessions of a collection, newest first by {@link SessionSummary.modified} (ties by location), and those that were skipped. */
export async function summarizeSessions(
	collection: SessionCollection,
	options: SummarizeOptions = {},
): Promise<{ sessions: SessionSummary[]; skipped: SkippedSession[] }> {
	const listings = await listSessions(collection);
	// Read smallest first; what was skipped is reported in the listing's order.
	const outcomes: Array<SessionSummary | SkippedSession | undefined> = new Array(listings.length);
	let done = 0;
	for (const index of smallestFirst(listings)) {
		const listing = listings[index] as SessionListing;
		try {
			outcomes[index] = (await readListed(collection, listing, summarize)).value;
		} catch (error) {
			if (!(error instanceof SkippedFile)) throw error;
			outcomes[index] = { file: listing.location, reason: error.message };
		}
		options.onProgress?.(++done, listings.length);
	}
	const sessions: SessionSummary[] = [];
	const skipped: SkippedSession[] = [];
	for (const outcome of outcomes) {
		if (outcome && "reason" in outcome) skipped.push(outcome);
		else if (outcome) sessions.push(outcome);
	}
	sessions.sort(newestFirst);
	return { sessions, skipped };
}

function newestFirst(a: SessionSummary, b: SessionSummary): number {
	return b.modified.getTime() - a.modified.getTime() || compareLocations(a.file, b.file);
}
