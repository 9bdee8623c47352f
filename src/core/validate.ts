/**
 * What makes a parsed record a usable entry. Shared by the loader (every line at open) and by
 * the lazy reading of bodies (a body is checked when it is first parsed).
 */

import { MAX_NESTING, nestingProblem } from "./nesting.js";
import type { EntryRecord, HeaderRecord, RawRecord } from "./records.js";

/** True for a non-null object (arrays included): its fields can be read by name. */
export function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object";
}

/**
 * True when two JSON values are the same value, whatever the order of their keys. The texts
 * are compared first (the usual case: both copies of a record hold the same line); the walk
 * runs only when they differ. Iterative. One implementation for `merge`, `copy --update` and the AI SDK adapter.
 */
export function sameJson(x: unknown, y: unknown): boolean {
	if (JSON.stringify(x) === JSON.stringify(y)) return true;
	const stack: Array<[unknown, unknown]> = [[x, y]];
	for (let pair = stack.pop(); pair !== undefined; pair = stack.pop()) {
		const [p, q] = pair;
		if (p === q) continue;
		if (typeof p !== "object" || typeof q !== "object" || p === null || q === null) return false;
		if (Array.isArray(p) !== Array.isArray(q)) return false;
		if (Array.isArray(p) && Array.isArray(q)) {
			if (p.length !== q.length) return false;
			for (let i = 0; i < p.length; i++) stack.push([p[i], q[i]]);
			continue;
		}
		const left = p as Record<string, unknown>;
		const right = q as Record<string, unknown>;
		const keys = Object.keys(left).filter((key) => left[key] !== undefined);
		const others = Object.keys(right).filter((key) => right[key] !== undefined);
		if (keys.length !== others.length) return false;
		for (const key of keys) {
			if (!Object.hasOwn(right, key)) return false;
			stack.push([left[key], right[key]]);
		}
	}
	return true;
}

/** The `code` of a thrown value (a Node system error's `ENOENT`, `EEXIST`, …), if it has one. */
export function errorCode(error: unknown): unknown {
	return isObject(error) ? error.code : undefined;
}

/** True for what a JSON line must hold to be a record: an object that is not an array. */
export function isRawRecord(value: unknown): value is RawRecord {
	return isObject(value) && !Array.isArray(value);
}

/** Type guard: the record has the fields every entry has ({@link entryShapeError} finds nothing). */
export function isEntryRecord(record: RawRecord): record is EntryRecord {
	return entryShapeError(record) === undefined;
}

/** Why a record is not a usable entry, or undefined when it is. */
export function entryShapeError(record: RawRecord): string | undefined {
	if (typeof record.type !== "string") return "the record has no string type";
	if (record.type === "session") return "a second session header inside the file";
	if (typeof record.id !== "string" || record.id === "") return `the ${record.type} entry has no string id`;
	if (record.parentId !== null && typeof record.parentId !== "string") {
		return `entry ${record.id} has a parentId that is neither a string nor null`;
	}
	if (typeof record.timestamp !== "string") return `entry ${record.id} has no string timestamp`;
	if (record.type === "leaf" && record.targetId !== null && typeof record.targetId !== "string") {
		return `leaf record ${record.id} has a targetId that is neither a string nor null`;
	}
	return undefined;
}

/**
 * Why an entry's type-specific fields are unusable, or undefined. Such an entry stays in the
 * tree (its children need it) but contributes nothing to the context.
 */
export function entryContentError(record: RawRecord): string | undefined {
	switch (record.type) {
		case "message": {
			const message = record.message;
			if (!isRawRecord(message) || typeof message.role !== "string")
				return `message entry ${record.id} holds no message with a string role`;
			return undefined;
		}
		case "compaction":
			// No `firstKeptEntryId` is no damage: pi 0.73.1's v1 migration leaves a compaction
			// without one when its `firstKeptEntryIndex` names an entry after it, and pi's context
			// then keeps nothing from before the compaction (its summary, then what follows it).
			if (typeof record.summary !== "string") return `compaction ${record.id} has no string summary`;
			return undefined;
		case "label":
			return typeof record.targetId === "string" ? undefined : `label entry ${record.id} has no string targetId`;
		default:
			return undefined;
	}
}

/**
 * What happens to an entry whose fields {@link entryContentError} objects to, as the problem
 * says it: a compaction still gives its summary message (pi sends it as it is); a message
 * without a message gives nothing.
 */
export function contentErrorAction(record: RawRecord): string {
	return record.type === "compaction"
		? "kept in the tree and in the context, as pi reads it"
		: "kept in the tree, left out of the context";
}

/** Type guard: the record is a usable session header ({@link headerShapeError} finds nothing). */
export function isHeaderRecord(record: RawRecord): record is HeaderRecord {
	return headerShapeError(record) === undefined;
}

/** Why a first record is not a usable session header, or undefined when it is. */
export function headerShapeError(header: RawRecord): string | undefined {
	if (header.type !== "session") {
		return `the first line is not a session header (its type is ${JSON.stringify(header.type)}, expected "session")`;
	}
	if (typeof header.id !== "string" || header.id === "") return "the session header has no string id";
	if (header.version !== undefined && (typeof header.version !== "number" || !Number.isInteger(header.version))) {
		return `the session header's version ${JSON.stringify(header.version)} is not an integer`;
	}
	return undefined;
}

/** What {@link parseRecord} makes of a line. */
export type ParsedRecord =
	| { record: RawRecord; reason?: undefined; tooDeep?: undefined }
	/**
	 * Not a record: not JSON, not an object (`tooDeep` unset), or an object nested deeper than
	 * {@link MAX_NESTING} (`tooDeep` is the object, for what can be said of it without walking it).
	 */
	| { record?: undefined; reason: string; tooDeep?: RawRecord };

/**
 * Parses one line that must hold a JSON object: the record, or why it is not one. The one
 * parse-an-object of the project: the codec (whole lines) and lazy bodies both use it, so an
 * object nested deeper than {@link MAX_NESTING} levels is refused the same way wherever it is read.
 */
export function parseRecord(text: string): ParsedRecord {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (cause) {
		return { reason: `not valid JSON (${cause instanceof Error ? cause.message : String(cause)})` };
	}
	if (!isRawRecord(value)) {
		const kind = value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
		return { reason: `expected a JSON object, found ${kind}` };
	}
	const deep = nestingProblem(text, value);
	if (deep) return { reason: `${recordName(value)} is ${deep}`, tooDeep: value };
	return { record: value };
}

/** A record as a message names it: `message entry 1a2b3c4d`, `the session header`, `a weird record`. */
export function recordName(record: RawRecord): string {
	const type = typeof record.type === "string" ? record.type : undefined;
	if (type === "session") return "the session header";
	if (typeof record.id === "string" && record.id !== "") return `${type ?? "untyped"} entry ${record.id}`;
	return type === undefined ? "a record without a type" : `a ${type} record`;
}
