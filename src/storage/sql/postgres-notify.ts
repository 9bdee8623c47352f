/**
 * Following a PostgreSQL session's changes without polling: every committed append and
 * replace sends a NOTIFY on {@link NOTIFY_CHANNEL} naming its schema and session (in the
 * append's own statement, and in the replace's transaction: postgres-rows.ts, postgres-store.ts);
 * {@link listenPostgres} holds a connection of its own that LISTENs and calls back for one
 * session. Notifications are sent on commit only, so a callback always finds the change.
 */

import { SessionTreeError } from "../../core/errors.js";
import { storeError } from "./postgres-errors.js";
import { PostgresPool } from "./postgres-pool.js";
import { NOTIFY_CHANNEL, notifyPayload } from "./postgres-rows.js";
import { maskPassword, parsePostgresUrl } from "./urls.js";

/**
 * Calls `changed` after each commit that appended to or replaced the session at `location`
 * (`postgres://…#SESSION_ID`), from any process or host, until the returned function is
 * called; `lost` once if the connection ends first (the server restarted, the network failed):
 * the caller then looks for changes another way (a poll), since notifications sent while no
 * one listened are not delivered later.
 * @throws SessionTreeError INVALID_ARGUMENT for a location without a session, or naming the
 *   server when the connection or the LISTEN fails
 */
export async function listenPostgres(
	location: string,
	changed: () => void,
	lost: (error: unknown) => void,
): Promise<() => Promise<void>> {
	const url = parsePostgresUrl(location);
	const where = maskPassword(location);
	if (url.name === undefined)
		throw new SessionTreeError("INVALID_ARGUMENT", "listen needs a session's location (#SESSION_ID)", {
			file: where,
		});
	const payload = notifyPayload(url.schema, url.name);
	const client = await PostgresPool.shared(url).dedicated(where);
	let ended = false;
	const end = (error: unknown) => {
		if (ended) return;
		ended = true;
		void client.end().catch(() => undefined);
		lost(error);
	};
	client.on("notification", (message) => {
		if (message.channel === NOTIFY_CHANNEL && message.payload === payload) changed();
	});
	client.on("error", end);
	client.on("end", () => end(new Error("the connection ended")));
	try {
		await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
	} catch (error) {
		ended = true;
		await client.end().catch(() => undefined);
		throw storeError(error, where, url);
	}
	return async () => {
		if (ended) return;
		ended = true;
		await client.end().catch(() => undefined);
	};
}
