/**
 * What the index reads, as {@link IndexSource}s: the agents' default places, a directory the
 * user named, a database. One definition for every command and for `serve`: a source's name is
 * the key of its rows, so two definitions of the same directory (one calling its pi files
 * writable, one not) would each rewrite what the other stored.
 */

import { closeSync, openSync, readSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { SessionTreeError } from "../../core/errors.js";
import { maskPassword } from "../../core/mask.js";
import { sniffFormat } from "../../import/detect.js";
import { collectionAt, schemeOf } from "../../storage/locations.js";
import type { SessionCollection } from "../../storage/store.js";
import { AgentsCollection, agentPlaces, TranscriptDirectory } from "../agents.js";
import type { IndexSource } from "./types.js";

/** Bytes of a file's start read to tell whether it is a pi session. */
const SNIFF_BYTES = 64 * 1024;

/** True when the file starts as a pi session does (a header line), not as another agent's transcript. */
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

/** The default sources: the agents' places (`agentPlaces(env)`) as one source named "agents". */
export function agentSources(env: NodeJS.ProcessEnv = process.env): IndexSource[] {
	const collection = new AgentsCollection(agentPlaces(env));
	return [
		{
			name: "agents",
			collection,
			agentOf: (location) => collection.agentOf(location) ?? null,
			writable: (location) => collection.agentOf(location) === "pi",
		},
	];
}

/**
 * A directory the user named (`search TEXT DIR`, `serve DIR`): its files read as `ls DIR` reads
 * them, other agents' transcripts among them included; its pi sessions are writable, the
 * transcripts not. `collection` is the directory as `ls DIR` reads it (a {@link TranscriptDirectory})
 * when the caller has made it already.
 */
export function directorySource(dir: string, collection?: SessionCollection): IndexSource {
	const root = resolve(dir);
	return {
		name: root,
		collection: collection ?? new TranscriptDirectory(collectionAt(root)),
		agentOf: () => null,
		writable: isPiFile,
	};
}

/**
 * A STORE of the command line as a source: a directory ({@link directorySource}), `sqlite:PATH`
 * or `postgres://…` (writable; named with the password masked).
 * @throws SessionTreeError INVALID_ARGUMENT for a directory that is missing
 */
export function storeSource(location: string): IndexSource {
	const scheme = schemeOf(location);
	if (scheme === undefined || scheme === "file") {
		const dir = resolve(location);
		if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
			throw new SessionTreeError("INVALID_ARGUMENT", "a STORE is a directory, sqlite:PATH or postgres://…", {
				file: dir,
			});
		return directorySource(dir);
	}
	return {
		name: maskPassword(location),
		collection: collectionAt(location),
		agentOf: () => null,
		writable: () => true,
	};
}
