/**
 * The basic types of a record stream, in one place: a record as parsed from a line, the header
 * and entry records it may turn out to be, and a line as a store hands it to the reducer (a
 * record, an envelope of one, or damage). Types only: the codec (storage/codec.ts) makes them,
 * the reducer reads them, and the modules that check or migrate records share them without
 * importing each other for them.
 */

import type { SessionTreeError } from "./errors.js";
import type { Envelope } from "./tree-node.js";
import type { SessionHeader, SessionRecord } from "./types.js";

/** A record as parsed from a line, before it is known to be valid. */
export type RawRecord = Record<string, unknown>;

/**
 * A record that passed `entryShapeError` (validate.ts): it has a string `type`, a non-empty
 * string `id`, a string or null `parentId` and a string `timestamp`. Its type-specific fields
 * are taken as the line has them (see `entryContentError`); an unknown `type` is kept too.
 */
export type EntryRecord = SessionRecord & RawRecord;

/**
 * A record that passed `headerShapeError` (validate.ts): `type` is `"session"`, `id` a
 * non-empty string and `version` absent or an integer. The other fields are taken as the line
 * has them.
 */
export type HeaderRecord = SessionHeader & RawRecord;

/** One line of a stream: the parsed record, or why it could not be parsed. */
export interface ParsedLine {
	/** 1-based line number (0 when the store has no lines, e.g. a window or a database row). */
	line: number;
	record?: RawRecord;
	/** Why the line is not one record. */
	error?: SessionTreeError;
	/** Records recovered from a damaged line (see the codec). */
	salvaged?: RawRecord[];
	/** The line is an incomplete last line: reported, never fatal, left out of the tree. */
	torn?: boolean;
	/**
	 * Instead of `record`: the envelope of an entry whose body was not parsed (see `lazy.ts`);
	 * the reducer's `source` reads it when needed.
	 * @internal
	 */
	envelope?: Envelope;
}

/**
 * A record this library built (the header, an entry, a persisted-leaf record) as the plain
 * object a stream holds: the same object, seen as what a store writes and the reducer reads.
 * The one place that says so: the record types are interfaces, which TypeScript does not let
 * stand for a `Record<string, unknown>` without an index signature they must not have (it
 * would let any misspelt field through).
 */
export function asRawRecord(record: SessionHeader | SessionRecord): RawRecord {
	return record as unknown as RawRecord;
}

/** {@link asRawRecord} of every record of a list (the same array, not a copy). */
export function asRawRecords(records: readonly SessionRecord[]): readonly RawRecord[] {
	return records as unknown as readonly RawRecord[];
}
