/**
 * The live tail of a session page: `GET /api/sessions/KEY/events?since=N` answers with
 * server-sent events. The page holds the session's first N records (after the header, in
 * file order, as the export embeds them); whenever the session may have changed (watch.ts)
 * the session is read again and what follows those N records is sent, redacted as the export
 * redacts, with the leaf the session now names:
 *
 *   event: records   data: {"from": N, "records": [...], "leafId": "…"}
 *   event: reset     data: {}   (the session was replaced or reordered: reload the page)
 */

import { isAbsolute } from "node:path";
import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { redactRecords, redactText } from "../render/redact.js";
import type { Session } from "../session.js";
import type { IndexedSession } from "./catalog.js";
import type { SessionOpener } from "./sources.js";
import { watchFile, watchStore } from "./watch.js";

/** A comment line sent this often keeps proxies and the browser from closing an idle stream. */
const KEEPALIVE_MS = 15_000;

/** The records after the first `from`, redacted; undefined when the session no longer starts with what was sent. */
function recordsAfter(session: Session, from: number, lastId: string | undefined): object[] | undefined {
	const out: object[] = [];
	let index = 0;
	for (const entry of session.walkEntries()) {
		if (index === from - 1 && lastId !== undefined && entry.id !== lastId) return undefined;
		if (index >= from) out.push(redactRecords([entry]).records[0] as object);
		index++;
	}
	return index < from ? undefined : out;
}

/** The id of the record at `index` (file order), for checking that the page's records are still a prefix. */
function idAt(session: Session, index: number): string | undefined {
	let i = 0;
	for (const entry of session.walkEntries()) if (i++ === index) return entry.id;
	return undefined;
}

/** Streams the session's new records to one page until it goes away. */
export function liveTail(c: Context, row: IndexedSession, opener: SessionOpener, since: number): Response {
	return streamSSE(c, async (stream: SSEStreamingApi) => {
		// Listened for first: a page that goes away during the first read still ends the stream.
		const gone = new Promise<void>((resolve) => {
			if (stream.aborted) resolve();
			else stream.onAbort(resolve);
		});
		let sent = since;
		let lastId: string | undefined;
		let leaf: string | null | undefined;
		let running: Promise<void> = Promise.resolve();
		const send = async () => {
			const session = await opener.read(row);
			try {
				if (lastId === undefined && sent > 0) lastId = idAt(session, sent - 1);
				const records = recordsAfter(session, sent, lastId);
				if (records === undefined) {
					await stream.writeSSE({ event: "reset", data: "{}" });
					return;
				}
				const raw = session.getLeafId();
				const leafId = raw === null ? null : redactText(raw);
				if (records.length === 0 && leafId === leaf) return;
				await stream.writeSSE({ event: "records", data: JSON.stringify({ from: sent, records, leafId }) });
				sent += records.length;
				leaf = leafId;
				const last = records[records.length - 1] as { id?: unknown } | undefined;
				if (typeof last?.id === "string") lastId = last.id;
			} finally {
				await session.close();
			}
		};
		// One read at a time; the changes during a read are read once, after it.
		let queued = false;
		const changed = () => {
			if (queued) return;
			queued = true;
			running = running
				.then(() => {
					queued = false;
					return send();
				})
				.catch(() => undefined);
		};
		changed();
		await running;
		const stop = isAbsolute(row.location)
			? watchFile(row.location, changed)
			: watchStore(await opener.read(row), changed);
		const keepalive = setInterval(() => void stream.write(": keepalive\n\n").catch(() => undefined), KEEPALIVE_MS);
		await gone;
		clearInterval(keepalive);
		stop();
	});
}
