/**
 * Where the Claude Agent SDK adapter (`claude-agent-sdk.ts`) keeps the transcript of each SDK
 * session key: one session-tree session per key, named from the key so that no key can leave
 * its place or name another key's session.
 *
 * | place | main transcript | subpath transcript |
 * |---|---|---|
 * | a directory (a path or a `file:` URL) | `DIR/P/S.jsonl` | `DIR/P/S.SUB.jsonl` |
 * | `memory:` / `memory:NAME` | `memory:claude.P.S` / `memory:NAME/claude.P.S` | `….P.S.SUB` |
 * | `sqlite:PATH`, `postgres://…`, another registered scheme | `LOCATION#claude.P.S` | `LOCATION#claude.P.S.SUB` |
 *
 * `P`, `S` and `SUB` are the project key, session id and subpath escaped component by component
 * ({@link escapeComponent}): letters, digits and `-` stay, every other character becomes `_`
 * and the two hex digits of each of its UTF-8 bytes (`/` is `_2f`, `.` is `_2e`). So a component
 * is never empty, never `.` or `..`, never holds `/`, `\`, `.`, `:` or `#`, and decodes back to
 * the key. A component longer than the place allows (database names are at most 128
 * characters) keeps an escaped prefix and ends in `_z` and a SHA-256 prefix of the key: still
 * one name per key, but read back from the session's header instead of its name.
 */

import { createHash } from "node:crypto";
import { type Dirent, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionTreeError } from "../core/errors.js";
import { DirectoryCollection } from "../storage/directory-collection.js";
import { collectionAt, schemeOf } from "../storage/locations.js";
import { maskPassword } from "../storage/sql/urls.js";
import type { SessionCollection } from "../storage/store.js";

/** The escaped (or hashed) components that name one transcript. */
export interface NameParts {
	project: string;
	session: string;
	/** Absent for the main transcript. */
	subpath?: string;
}

/** One transcript a place holds. */
export interface PlacedTranscript {
	location: string;
	parts: NameParts;
	modified: Date | undefined;
}

/** A place of many transcripts. */
export interface TranscriptPlace {
	/** The location as given (a password in it is masked in messages). */
	readonly location: string;
	/** The session location of a transcript. */
	sessionLocation(parts: NameParts): string;
	/** The transcripts of one project (by its escaped component), with their modification times. */
	list(project: string): AsyncIterable<PlacedTranscript>;
	/**
	 * Deletes a transcript's session through the place's collection.
	 * @throws SessionTreeError INVALID_ARGUMENT when the place cannot delete sessions
	 */
	remove(location: string): Promise<void>;
	/** Releases what the place's collection holds open (a database connection). */
	close(): Promise<void>;
}

/** The longest key field accepted (longer ones are refused, not truncated). */
const MAX_KEY_LENGTH = 4096;

/** Length of the hash part of a shortened component (`_z` and 20 hex digits). */
const HASH_PART = 22;

/** How long each component may be, per kind of place. */
interface Budget {
	project: number;
	session: number;
	subpath: number;
}

/** A file name component is at most 255 bytes: `S.SUB.jsonl` stays below. */
const DIRECTORY_BUDGET: Budget = { project: 200, session: 100, subpath: 120 };

/** A database session name is at most 128 characters: `claude.` + 48 + `.` + 40 + `.` + 30 = 127. */
const NAMED_BUDGET: Budget = { project: 48, session: 40, subpath: 30 };

/** The prefix of every name in a memory space or a database. */
const NAME_PREFIX = "claude.";

const COMPONENT = "[A-Za-z0-9_-]+";
const FILE_NAME = new RegExp(`^(${COMPONENT})(?:\\.(${COMPONENT}))?\\.jsonl$`);
const SESSION_NAME = new RegExp(`^claude\\.(${COMPONENT})\\.(${COMPONENT})(?:\\.(${COMPONENT}))?$`);
const PLAIN = /^[A-Za-z0-9-]$/;

/**
 * A key field checked: a non-empty string of at most 4096 characters.
 * @throws SessionTreeError INVALID_ARGUMENT otherwise
 */
export function checkKeyField(value: unknown, field: string): string {
	if (typeof value !== "string" || value === "" || value.length > MAX_KEY_LENGTH) {
		const shown =
			typeof value === "string"
				? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
				: value === null
					? "null"
					: typeof value;
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`not a valid ${field}: ${shown} (a non-empty string of at most ${MAX_KEY_LENGTH} characters)`,
		);
	}
	return value;
}

/** The text with every character but letters, digits and `-` written as `_` and the hex digits of its UTF-8 bytes. */
export function escapeComponent(text: string): string {
	let out = "";
	for (const char of text) {
		if (PLAIN.test(char)) {
			out += char;
			continue;
		}
		for (const byte of Buffer.from(char, "utf8")) out += `_${byte.toString(16).padStart(2, "0")}`;
	}
	return out;
}

/**
 * The text an escaped component stands for, or undefined for a shortened one (`…_z<hash>`)
 * or for anything {@link escapeComponent} does not write.
 */
export function unescapeComponent(component: string): string | undefined {
	if (!/^(?:[A-Za-z0-9-]|_[0-9a-f]{2})+$/.test(component)) return undefined;
	let text: string;
	try {
		text = decodeURIComponent(component.replace(/_([0-9a-f]{2})/g, "%$1"));
	} catch {
		return undefined;
	}
	return escapeComponent(text) === component ? text : undefined;
}

/** The component of `text` in at most `max` characters: escaped, or a prefix and a hash when longer. */
function component(text: string, max: number): string {
	const escaped = escapeComponent(text);
	if (escaped.length <= max) return escaped;
	const hash = createHash("sha256")
		.update(text, "utf8")
		.digest("hex")
		.slice(0, HASH_PART - 2);
	// The prefix may not end inside an escape (`_` or `_x`): the result stays free of `_z` but for the hash.
	const prefix = escaped.slice(0, max - HASH_PART).replace(/_[0-9a-f]?$/, "");
	return `${prefix}_z${hash}`;
}

/** The components of a key in a place with `budget`. */
function partsOf(budget: Budget, projectKey: string, sessionId: string, subpath: string | undefined): NameParts {
	const parts: NameParts = {
		project: component(projectKey, budget.project),
		session: component(sessionId, budget.session),
	};
	if (subpath !== undefined) parts.subpath = component(subpath, budget.subpath);
	return parts;
}

/** A place and how it names the keys' transcripts. */
export interface Place {
	place: TranscriptPlace;
	/** The components of a key in this place. */
	partsOf(projectKey: string, sessionId: string, subpath: string | undefined): NameParts;
	/** The project component of a project key in this place. */
	projectOf(projectKey: string): string;
}

/**
 * The place at `location`: a directory (created on the first write), `memory:` or
 * `memory:NAME`, or a database location without `#SESSION_ID`.
 * @throws SessionTreeError INVALID_ARGUMENT for a location that names one session, or a scheme without collections
 */
export function placeAt(location: string): Place {
	if (typeof location !== "string" || location === "") {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			"a Claude Agent SDK store needs a location (a directory, sqlite:PATH, postgres://…)",
		);
	}
	const scheme = schemeOf(location);
	if (scheme === undefined || scheme === "file") {
		const place = directoryPlace(scheme === "file" ? fileURLToPath(location) : location, location);
		return withBudget(place, DIRECTORY_BUDGET);
	}
	if (scheme === "memory") {
		const name = location.slice("memory:".length);
		return withBudget(namedPlace(location, name === "" ? "memory:" : `memory:${name}/`, "memory:"), NAMED_BUDGET);
	}
	if (location.includes("#")) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			"a Claude Agent SDK store is a place of many sessions: a database location without #SESSION_ID",
			{ file: maskPassword(location) },
		);
	}
	// Checks the location (and that the scheme has collections) now rather than at the first call.
	collectionAt(location);
	return withBudget(namedPlace(location, `${location}#`, location), NAMED_BUDGET);
}

function withBudget(place: TranscriptPlace, budget: Budget): Place {
	return {
		place,
		partsOf: (projectKey, sessionId, subpath) => partsOf(budget, projectKey, sessionId, subpath),
		projectOf: (projectKey) => component(projectKey, budget.project),
	};
}

/** The removing collection of a place, or the error that it has none. */
function removing(collection: SessionCollection, where: string): NonNullable<SessionCollection["remove"]> {
	if (!collection.capabilities.remove || !collection.remove) {
		throw new SessionTreeError("INVALID_ARGUMENT", "this store cannot delete sessions (its collection has no remove)", {
			file: where,
		});
	}
	return collection.remove.bind(collection);
}

function directoryPlace(path: string, location: string): TranscriptPlace {
	const root = resolve(path);
	const fileOf = (parts: NameParts): string => {
		const name = parts.subpath === undefined ? parts.session : `${parts.session}.${parts.subpath}`;
		const file = join(root, parts.project, `${name}.jsonl`);
		// Defence in depth: the components were escaped, and the file is two levels below the root.
		const inside = relative(root, file).split(sep);
		if (inside.length !== 2 || inside.includes("..") || !file.startsWith(`${root}${sep}`)) {
			throw new SessionTreeError("INVALID_ARGUMENT", "a Claude Agent SDK key that leaves its directory", {
				file: location,
			});
		}
		return file;
	};
	return {
		location,
		sessionLocation: fileOf,
		async *list(project) {
			const dir = join(root, project);
			let items: Dirent[];
			try {
				items = readdirSync(dir, { withFileTypes: true });
			} catch {
				return;
			}
			for (const item of items.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
				const match = FILE_NAME.exec(item.name);
				if (!match?.[1]) continue;
				const file = join(dir, item.name);
				let modified: Date;
				try {
					const stats = statSync(file);
					if (!stats.isFile()) continue;
					modified = stats.mtime;
				} catch {
					continue;
				}
				const parts: NameParts = { project, session: match[1] };
				if (match[2] !== undefined) parts.subpath = match[2];
				yield { location: file, parts, modified };
			}
		},
		async remove(file) {
			// The collection of the root holds the files of its direct subdirectories: every project's.
			const collection = new DirectoryCollection(root);
			if (dirname(dirname(file)) !== root || !FILE_NAME.test(basename(file))) {
				throw new SessionTreeError("INVALID_ARGUMENT", "not a transcript of this store", { file });
			}
			await removing(collection, location)(file);
		},
		async close() {},
	};
}

/**
 * A memory space or a database: sessions named `PREFIXclaude.P.S[.SUB]`, listed and removed
 * through the collection at `collectionLocation`.
 */
function namedPlace(location: string, prefix: string, collectionLocation: string): TranscriptPlace {
	const where = maskPassword(location);
	// One collection for the place's life: closing a database's collection closes the process's shared connection.
	let collection: SessionCollection | undefined;
	const opened = (): SessionCollection => {
		collection ??= collectionAt(collectionLocation);
		return collection;
	};
	const nameOf = (parts: NameParts): string =>
		`${prefix}${NAME_PREFIX}${parts.project}.${parts.session}${parts.subpath === undefined ? "" : `.${parts.subpath}`}`;
	return {
		location,
		sessionLocation: nameOf,
		async *list(project) {
			for await (const listing of opened().list()) {
				if (!listing.location.startsWith(prefix)) continue;
				const match = SESSION_NAME.exec(listing.location.slice(prefix.length));
				if (!match?.[1] || !match[2] || match[1] !== project) continue;
				const parts: NameParts = { project, session: match[2] };
				if (match[3] !== undefined) parts.subpath = match[3];
				yield { location: listing.location, parts, modified: listing.modified };
			}
		},
		async remove(session) {
			await removing(opened(), where)(session);
		},
		async close() {
			const open = collection;
			collection = undefined;
			await open?.close?.();
		},
	};
}
