/**
 * The live tail of a session page: `GET /api/sessions/KEY/events?since=N` answers with
 * server-sent events. The page holds the session's first N records (after the header, in
 * file order, as the export embeds them); whenever the session may have changed (watch.ts)
 * what was appended is read (follow.ts: one reader per session, shared by its pages) and what
 * follows those N records is sent, redacted as the export redacts, with the leaf the session
 * now names:
 *
 *   event: records   data: {"from": N, "records": [...], "leafId": "…"}
 *   event: reset     data: {}   (the session was replaced or reordered: reload the page)
 */

import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { redactRecords, redactText } from "../render/redact.js";
import type { Session } from "../session.js";
import type { IndexedSession } from "./catalog.js";
import type { SessionFollowers } from "./follow.js";

/** A comment line sent this often keeps proxies and the browser from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

/**
 * The redacted records after the first `from` (read from there: the walk starts at the last
 * record the page holds), or undefined when the session no longer starts with what was sent:
 * shorter, or another record where the page's last one was (`lastId`, when known).
 */
function recordsAfter(session: Session, from: number, lastId: string | undefined): object[] | undefined {
	if (session.entryCount < from) return undefined;
	const out: object[] = [];
	let index = Math.max(0, from - 1);
	for (const entry of session.walkEntries(index)) {
		if (index === from - 1) {
			if (lastId !== undefined && entry.id !== lastId) return undefined;
		} else out.push(redactRecords([entry]).records[0] as object);
		index++;
	}
	return out;
}

/** Streams the session's new records to one page until it goes away. */
export function liveTail(c: Context, row: IndexedSession, followers: SessionFollowers, since: number): Response {
	return streamSSE(c, async (stream: SSEStreamingApi) => {
		// Listened for first: a page that goes away during the first read still ends the stream.
		const gone = new Promise<void>((resolve) => {
			if (stream.aborted) resolve();
			else stream.onAbort(resolve);
		});
		let sent = since;
		let lastId: string | undefined;
		let leaf: string | null | undefined;
		let ended = false;
		// The events in the order they were made; each made from the session at once (it changes on the next look).
		let writing: Promise<unknown> = Promise.resolve();
		const write = (event: string, data: string) => {
			writing = writing.then(() => stream.writeSSE({ event, data })).catch(() => undefined);
		};
		const follower = (session: Session) => {
			if (ended) return;
			// The page's last record, as the session had it when first looked at (the page sent only its count).
			if (lastId === undefined && sent > 0) lastId = idAt(session, sent - 1);
			const records = recordsAfter(session, sent, lastId);
			if (records === undefined) {
				ended = true;
				write("reset", "{}");
				return;
			}
			const raw = session.getLeafId();
			const leafId = raw === null ? null : redactText(raw);
			if (records.length === 0 && leafId === leaf) return;
			write("records", JSON.stringify({ from: sent, records, leafId }));
			sent += records.length;
			leaf = leafId;
			const last = records[records.length - 1] as { id?: unknown } | undefined;
			if (typeof last?.id === "string") lastId = last.id;
		};
		const stop = followers.follow(row, follower);
		const keepalive = setInterval(() => void stream.write(": keepalive\n\n").catch(() => undefined), KEEPALIVE_MS);
		await gone;
		clearInterval(keepalive);
		await stop();
	});
}

/** The id of the record at `index` (file order), for checking that the page's records are still a prefix. */
function idAt(session: Session, index: number): string | undefined {
	for (const entry of session.walkEntries(index)) return entry.id;
	return undefined;
}
