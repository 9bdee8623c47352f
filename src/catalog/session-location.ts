/**
 * Session URLs as people type them: `sqlite:PATH#ID`, `postgres://…#ID` and `memory:ID` with
 * any unique prefix of the session id (as entry ids take any unique prefix), and a store URL
 * without `#ID` answered with the sessions it holds instead of "no such session".
 */

import { isSessionTreeError, SessionTreeError } from "../core/errors.js";
import { ambiguousIdError } from "../core/id-prefix.js";
import { countOf } from "../render/preview.js";
import { collectionAt } from "../storage/locations.js";
import { collectionOfSession, keyedLocation } from "../storage/placement.js";
import { maskPassword } from "../storage/sql/urls.js";
import type { SessionListing } from "../storage/store.js";
import { localDate } from "./format.js";
import { listSessions } from "./read.js";

/** How many sessions the error for a store URL without `#ID` lists. */
const LISTED = 10;

/** A location split into the store (the part before the session's name) and the name. */
interface Named {
	/** The collection's location: the database URL, or `memory:`. */
	store: string;
	/** The session's name as given (the part after `#`, or after `memory:`), "" for none. */
	name: string;
	/** The location for another name in the same store (a key, as keyed places name sessions). */
	with(name: string): string;
}

/** Splits a location of a store of many sessions; undefined for a path or a `file:` URL. */
function named(location: string): Named | undefined {
	const held = collectionOfSession(location);
	if (held === undefined) return undefined;
	return { store: held.collection, name: held.name ?? "", with: (name) => keyedLocation(held.collection, name) };
}

/** The session name of a listed location of the store (see {@link named}). */
function nameOfListed(listing: SessionListing): string {
	return named(listing.location)?.name ?? listing.location;
}

/** One line of a listing in an error: the location (no password) and when it changed. */
function describe(listing: SessionListing): string {
	const when = listing.modified ? `  (${localDate(listing.modified)})` : "";
	return `  ${maskPassword(listing.location)}${when}`;
}

/**
 * The location of the one session that `location` names when it was not found as given: the
 * session whose id starts with the name after `#` (`memory:` + a prefix for the memory
 * store). Called after an open failed with FILE_NOT_FOUND, so a full id costs nothing more.
 * Undefined when the location is not of a store that lists its sessions (a file path), or
 * when nothing but the exact name could match (the caller then reports its own error).
 * @throws SessionTreeError INVALID_ARGUMENT for a store URL without `#ID` (listing the sessions
 *   it holds), FILE_NOT_FOUND when no session id starts with the name, AMBIGUOUS_ID (listing
 *   the candidates) when several do
 */
export async function resolveSessionPrefix(location: string): Promise<string | undefined> {
	const parts = named(location);
	if (parts === undefined) return undefined;
	let collection: ReturnType<typeof collectionAt>;
	try {
		collection = collectionAt(parts.store);
	} catch {
		// A registered scheme without a collection: nothing to match against.
		return undefined;
	}
	if (!collection.capabilities.listing) return undefined;
	let listings: SessionListing[];
	try {
		listings = await listSessions(collection);
	} finally {
		await collection.close?.();
	}
	const where = maskPassword(parts.store);
	if (parts.name === "") throw noSessionNamed(where, listings, parts.with("ID"));
	const matches = listings.filter((listing) => nameOfListed(listing).startsWith(parts.name));
	const [only, another] = matches;
	// An empty store (or a database file that is not there): the open's own error says enough.
	if (listings.length === 0) return undefined;
	if (only === undefined) {
		const held = countOf(listings.length, "session");
		throw new SessionTreeError(
			"FILE_NOT_FOUND",
			`no session id starts with ${parts.name} (the store holds ${held}: session-tree ls ${where} lists them)`,
			{ file: where },
		);
	}
	if (another === undefined) return only.location;
	throw ambiguousIdError(parts.name, matches.map(nameOfListed), undefined, { file: where });
}

/** The error for a store URL that names no session: what the store holds, and how to name one. */
function noSessionNamed(where: string, listings: readonly SessionListing[], form: string): SessionTreeError {
	if (listings.length === 0) {
		return new SessionTreeError("INVALID_ARGUMENT", "names no session, and the store holds none", { file: where });
	}
	const newest = [...listings].sort((a, b) => (b.modified?.getTime() ?? 0) - (a.modified?.getTime() ?? 0));
	const lines = newest.slice(0, LISTED).map(describe);
	if (listings.length > LISTED) {
		lines.push(`  … and ${listings.length - LISTED} more (session-tree ls ${where} lists them all)`);
	}
	const held = countOf(listings.length, "session");
	return new SessionTreeError(
		"INVALID_ARGUMENT",
		`names no session; name one as ${maskPassword(form)} (a unique prefix of the id is enough). It holds ${held}:\n${lines.join("\n")}`,
		{ file: where },
	);
}

/**
 * `open(location)`, and when that fails with FILE_NOT_FOUND, `open` of the session that
 * {@link resolveSessionPrefix} finds (a unique prefix of its id), or the error it gives (what
 * the store holds, the candidates). A full id costs one open, as before.
 */
export async function openByPrefix<T>(location: string, open: (location: string) => Promise<T>): Promise<T> {
	try {
		return await open(location);
	} catch (error) {
		if (!isSessionTreeError(error, "FILE_NOT_FOUND")) throw error;
		const full = await resolveSessionPrefix(location);
		if (full === undefined || full === location) throw error;
		return open(full);
	}
}
