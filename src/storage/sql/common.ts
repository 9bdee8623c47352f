/**
 * What the SQLite and PostgreSQL stores share: session URLs (`LOCATION#SESSION_ID`), session
 * names, positions, and the columns a record is indexed by. A database store keeps each
 * record's JSON text exactly as the codec encoded it (so a copy back to JSONL gives the same
 * lines) and, beside it, a few columns read from it for indexes: type, id, parent id, and the
 * text a search looks at. Those columns serve queries only; the core reducer still interprets
 * the text.
 */

import { SessionTreeError } from "../../core/errors.js";
import type { ParsedLine } from "../../core/records.js";
import { searchableTexts } from "../../core/search-text.js";
import { isObject } from "../../core/validate.js";
import { encodeRecord, parseLine } from "../codec.js";
import type { StorePosition } from "../store.js";

/**
 * A position of a database store: the session's generation (bumped by every replace) and how
 * many records it held (header included).
 */
export function encodePosition(generation: number, count: number): StorePosition {
	return `${generation}:${count}`;
}

/**
 * Reads a position {@link encodePosition} made.
 * @throws SessionTreeError INVALID_ARGUMENT for anything else
 */
export function decodePosition(position: StorePosition, location: string): { generation: number; count: number } {
	const match = /^(\d{1,15}):(\d{1,15})$/.exec(position);
	if (!match) {
		throw new SessionTreeError("INVALID_ARGUMENT", `not a position of this store: ${JSON.stringify(position)}`, {
			file: location,
		});
	}
	return { generation: Number(match[1]), count: Number(match[2]) };
}

/** One record as a database row stores it. */
export interface IndexedRecord {
	/** The JSON text, exactly as the codec encodes it, without the newline. */
	line: string;
	/** `type`, when it is a string. */
	type: string | null;
	/** `id`, when it is a string (entries and persisted-leaf records). */
	id: string | null;
	/** `parentId`, when it is a string (a leaf record's is its target). */
	parentId: string | null;
	/** The text a search looks at (see `searchableTexts`), lines joined by `\n`; null when there is none. */
	text: string | null;
}

/**
 * The row of a record.
 * @param location the session's, for the error
 * @throws SessionTreeError INVALID_ARGUMENT for a record the codec refuses (nested too deep)
 */
export function indexRecord(record: object, location?: string): IndexedRecord {
	const line = encodeRecord(record, location).slice(0, -1);
	if (!isObject(record)) return { line, type: null, id: null, parentId: null, text: null };
	const texts = searchableTexts(record)?.texts ?? [];
	return {
		line,
		type: typeof record.type === "string" ? record.type : null,
		id: typeof record.id === "string" ? record.id : null,
		parentId: typeof record.parentId === "string" ? record.parentId : null,
		text: texts.length > 0 ? texts.join("\n") : null,
	};
}

/**
 * Parses the stored text of the record at `seq` (the header is 0): its line number is the one
 * it has in a JSONL copy of the session, so errors name the same line either way.
 */
export function parseStoredLine(text: string, seq: number, location: string): ParsedLine {
	return parseLine(text, seq + 1, location);
}
