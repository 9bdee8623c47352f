/**
 * How a session the index names is opened for `serve` (the sources themselves, the agents'
 * places and the STOREs given, are the catalog's: src/catalog/catalog-index/sources.ts). A session is
 * only ever reached through the index's key, so a URL never names a path: every location
 * opened here is one a source listed.
 */

import { SessionTreeError } from "../core/errors.js";
import { Session } from "../session.js";
import type { IndexedSession, IndexSource } from "./catalog.js";

export { storeSource } from "../catalog/catalog-index/index.js";

/** Where sessions are opened from: the sources, by name. */
export class SessionOpener {
	constructor(readonly sources: readonly IndexSource[]) {}

	private source(session: IndexedSession): IndexSource {
		const source = this.sources.find((candidate) => candidate.name === session.source);
		if (!source)
			throw new SessionTreeError("FILE_NOT_FOUND", "the session's source is not served", { file: session.location });
		return source;
	}

	/** The session to read, as its source reads it (another agent's file converted in memory; lenient). */
	read(session: IndexedSession): Promise<Session> {
		const store = this.source(session).collection.open(session.location);
		return Session.openStore(store, { lenient: true });
	}

	/**
	 * The session to write (the facade's own store for the location: a pi file, a SQL row).
	 * @throws SessionTreeError NOT_WRITABLE for another agent's file
	 */
	write(session: IndexedSession): Promise<Session> {
		if (!session.writable || !this.source(session).writable(session.location))
			throw new SessionTreeError("NOT_WRITABLE", "this session is another agent's file: it is shown read-only", {
				file: session.location,
			});
		return Session.open(session.location, { lenient: true });
	}
}
