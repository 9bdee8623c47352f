/**
 * What `serve` shows: the agents' default places and the STOREs given on the command line,
 * each as an {@link IndexSource}, and how a session the index names is opened. A session is
 * only ever reached through the index's key, so a URL never names a path: every location
 * opened here is one a source listed.
 */

import { closeSync, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { TranscriptDirectory } from "../catalog/agents.js";
import { SessionTreeError } from "../core/errors.js";
import { maskPassword } from "../core/mask.js";
import { sniffFormat } from "../import/detect.js";
import { Session } from "../session.js";
import { collectionAt, schemeOf } from "../storage/locations.js";
import type { IndexedSession, IndexSource } from "./catalog.js";

/** Bytes of a file's start read to tell whether it is a pi session. */
const SNIFF_BYTES = 64 * 1024;

/** True when the file starts as a pi session does (a header line), not another agent's transcript. */
function isPiFile(path: string): boolean {
	let fd: number | undefined;
	try {
		fd = openSync(path, "r");
		const buffer = Buffer.alloc(SNIFF_BYTES);
		const n = readSync(fd, buffer, 0, SNIFF_BYTES, 0);
		return sniffFormat(buffer.toString("utf8", 0, n), true) === "pi";
	} catch {
		return false;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/**
 * A STORE of the command line as a source: a directory (its pi sessions writable, other
 * agents' transcripts in it read-only), `sqlite:PATH` or `postgres://…` (writable).
 * @throws SessionTreeError for a directory that is missing or a scheme without a collection
 */
export function storeSource(location: string): IndexSource {
	const scheme = schemeOf(location);
	if (scheme === undefined || scheme === "file") {
		const dir = resolve(location);
		if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
			throw new SessionTreeError("INVALID_ARGUMENT", "a STORE is a directory, sqlite:PATH or postgres://…", {
				file: dir,
			});
		return {
			name: dir,
			collection: new TranscriptDirectory(collectionAt(dir)),
			agentOf: () => null,
			writable: isPiFile,
		};
	}
	return {
		name: maskPassword(location),
		collection: collectionAt(location),
		agentOf: () => null,
		writable: () => true,
	};
}

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
