/**
 * The union of two copies of one session: the same session that grew in two places (a file
 * synced between two machines that both appended, leaving `session (conflict).jsonl`; the same
 * session in a file and in a database). Pure: records in, records and a report out; the catalog
 * (`src/catalog/merge.ts`) reads the copies and writes the union through the store contract.
 *
 * What the union holds, and why:
 *
 * - Every record of both copies, by id: A's records in A's order, then the records of B that A
 *   lacks, in B's order. A record both hold with the same content (the same JSON value; key
 *   order does not matter) is written once, as A has it. So a copy merged with a copy it
 *   contains is that copy, byte for byte.
 * - Every parent before its children: the order above already is one when both copies are
 *   (a session-tree or pi writer always writes so); where a copy has a child before its parent
 *   (pi accepts that), the child is moved to just after its parent, and nothing else moves.
 * - The same id with different content in A and B (an id drawn twice, or a copy rewritten by
 *   hand) is a conflict: A's version keeps the id, B's is written under a new id derived from
 *   it (FNV-1a of the session id, the id and B's record, so merging again gives the same id),
 *   and the records that came from B and name it (as parent, label or leaf target, a
 *   compaction's first kept entry, a branch summary's `fromId`) name the new id. The report
 *   lists each conflict.
 * - Labels and session names are entries: both copies' are kept. Which one is in effect
 *   follows the stream order, as for any session (B's, where both set one after the part they
 *   share); the report lists where the two copies disagreed.
 * - The leaf: each copy's leaf stays an entry of the tree; the union's leaf is A's, B's, or
 *   the newer copy's (the default): the copy whose last record (the record that decides its
 *   leaf: a persisted-leaf record, or its last entry) has the later timestamp, A on a tie. When
 *   the union's own last record names another leaf, a persisted-leaf record is appended,
 *   stamped with the later of the two copies' last timestamps (so the union is as new as its
 *   newer copy, and merging again gives the same record).
 * - A's header. Copies of different sessions (different header ids) are refused unless
 *   `force`.
 *
 * Both copies must be current-version streams that open strictly (migrate or repair first);
 * each is loaded with the core's reducer to be sure, and so is the union. No recursion: a
 * session of any depth merges.
 */

import * as make from "./entries.js";
import { SessionTreeError } from "./errors.js";
import { derivedEntryId } from "./ids.js";
import { type LoadResult, loadTree } from "./load.js";
import { asRawRecord, type RawRecord } from "./records.js";
import { CURRENT_SESSION_VERSION } from "./types.js";
import { isHeaderRecord, sameJson } from "./validate.js";

/** Which leaf the union gets: A's, B's, or the newer copy's (see {@link mergeRecords}). */
export type MergeLeaf = "a" | "b" | "newer";

/** Options of {@link mergeRecords}. */
export interface MergeOptions {
	/** Which copy's leaf becomes the union's leaf. Default `"newer"`. */
	leaf?: MergeLeaf;
	/** Merge copies of different sessions (different header ids); A's header is kept. */
	force?: boolean;
	/** Names of the two copies for messages (their locations). Default `"A"` and `"B"`. */
	names?: { a?: string; b?: string };
}

/** One id that A and B hold with different content. */
export interface MergeConflict {
	/** The id both copies use. A's record keeps it. */
	id: string;
	/** The id B's record has in the union. */
	newId: string;
	/** Records that came from B and named the id, now naming `newId` (children, labels, leaf records, …). */
	renamedReferences: number;
}

/** Where a label in effect differs between the two copies. */
export interface MergeLabelDifference {
	/** The entry labelled (its id in the union). */
	targetId: string;
	/** The label in effect in A (undefined: none). */
	a: string | undefined;
	/** The label in effect in B (undefined: none). */
	b: string | undefined;
	/** The label in effect in the union (undefined: none). */
	merged: string | undefined;
}

/** What {@link mergeRecords} did. */
export interface MergeReport {
	/** The session ids of A's and B's headers (they differ only with `force`). */
	sessionIds: { a: string; b: string };
	/** Records (after the header) A holds; all are in the union. */
	fromA: number;
	/** Records of B that A lacked (conflicts included), added after A's. */
	fromB: number;
	/** Records both held with the same content, written once. */
	shared: number;
	/** Ids with different content in A and B. */
	conflicts: MergeConflict[];
	/** Records written later than their place, after their parent (copies with a child before its parent). */
	moved: number;
	/** The leaves: each copy's (B's as named in the union), the union's, and whose it is. */
	leaf: {
		a: string | null;
		b: string | null;
		merged: string | null;
		from: "a" | "b";
		/** Why that copy's: chosen by the option, or the newer (by the timestamps of the copies' last records). */
		reason: "chosen" | "newer" | "tie";
		/** The id of the persisted-leaf record the union got to name its leaf, if it needed one. */
		recordId?: string;
	};
	/** The session names in effect, when A and B both name the session, differently. */
	names?: { a: string | undefined; b: string | undefined; merged: string | undefined };
	/** Where a label one copy shows is not in effect in the union (the other copy set another, or cleared it). */
	labels: MergeLabelDifference[];
}

/** The union of two copies and what it took. */
export interface MergeResult {
	/** The header (A's), then every record, each parent before its children. */
	records: RawRecord[];
	/** What the union took: conflicts, disagreements, the leaf. */
	report: MergeReport;
}

/** The fields of a record that name another record by id (see the module's comment). */
const REFERENCE_FIELDS = ["parentId", "targetId", "firstKeptEntryId", "fromId"] as const;

/**
 * The union of two copies of one session, A and B (each its header, then its records in
 * stream order). See the module's comment for what it holds.
 * @throws SessionTreeError INVALID_ARGUMENT for copies of different sessions without `force`;
 *   a copy's first problem (INVALID_HEADER, UNSUPPORTED_VERSION for an older version, MISSING_PARENT, …)
 */
export function mergeRecords(
	a: readonly RawRecord[],
	b: readonly RawRecord[],
	options: MergeOptions = {},
): MergeResult {
	const nameA = options.names?.a ?? "A";
	const nameB = options.names?.b ?? "B";
	const headerA = headerOf(a, nameA);
	const headerB = headerOf(b, nameB);
	if (headerA.id !== headerB.id && options.force !== true) {
		throw new SessionTreeError(
			"INVALID_ARGUMENT",
			`not copies of one session: ${nameA} is session ${headerA.id}, ${nameB} is session ${headerB.id} (--force merges them anyway, keeping the first's header)`,
		);
	}
	const loadA = load(a, nameA);
	const loadB = load(b, nameB);

	const inA = new Map<string, RawRecord>();
	const taken = new Set<string>();
	for (let i = 1; i < a.length; i++) {
		const record = a[i] as RawRecord;
		inA.set(record.id as string, record);
		taken.add(record.id as string);
	}
	for (let i = 1; i < b.length; i++) taken.add((b[i] as RawRecord).id as string);

	// B's records A lacks, and B's ids whose record A holds differently.
	const added: RawRecord[] = [];
	const renamed = new Map<string, string>();
	let shared = 0;
	for (let i = 1; i < b.length; i++) {
		const record = b[i] as RawRecord;
		const id = record.id as string;
		const held = inA.get(id);
		if (held !== undefined) {
			if (sameJson(held, record)) {
				shared++;
				continue;
			}
			const newId = derivedEntryId(`merge\n${headerA.id}\n${id}\n${JSON.stringify(record)}`, (c) => taken.has(c));
			taken.add(newId);
			renamed.set(id, newId);
		}
		added.push(record);
	}
	const conflicts = new Map<string, MergeConflict>();
	for (const [id, newId] of renamed) conflicts.set(id, { id, newId, renamedReferences: 0 });
	const fromB = added.map((record) => renameIn(record, renamed, conflicts));

	const { records: ordered, moved } = parentsFirst([...a.slice(1), ...fromB], nameA, nameB);
	const records: RawRecord[] = [headerA, ...ordered];

	// The leaf: whose, and a persisted-leaf record when the union's last record names another.
	const rename = (id: string | null) => (id === null ? null : (renamed.get(id) ?? id));
	const leafA = loadA.tree.getLeafId();
	const leafB = rename(loadB.tree.getLeafId());
	const timeA = timeOf(a);
	const timeB = timeOf(b);
	const choice = options.leaf ?? "newer";
	const from: "a" | "b" = choice === "newer" ? (timeB > timeA ? "b" : "a") : choice;
	const reason = choice !== "newer" ? "chosen" : timeA === timeB ? "tie" : "newer";
	const wanted = from === "a" ? leafA : leafB;
	let merged = loadTree(linesOf(records), { file: "the union" });
	const leaf: MergeReport["leaf"] = { a: leafA, b: leafB, merged: wanted, from, reason };
	if (merged.tree.getLeafId() !== wanted) {
		const id = derivedEntryId(`merge-leaf\n${headerA.id}\n${wanted}\n${records.length}`, (c) => taken.has(c));
		const stamp = latestStamp(a, b);
		records.push(asRawRecord(make.leafEntry({ id, timestamp: stamp }, wanted)));
		leaf.recordId = id;
		merged = loadTree(linesOf(records), { file: "the union" });
	}

	const report: MergeReport = {
		sessionIds: { a: headerA.id, b: headerB.id },
		fromA: a.length - 1,
		fromB: added.length,
		shared,
		conflicts: [...conflicts.values()],
		moved,
		leaf,
		labels: labelDifferences(loadA, loadB, merged, renamed),
	};
	const names = { a: loadA.tree.getSessionName(), b: loadB.tree.getSessionName() };
	if (names.a !== undefined && names.b !== undefined && names.a !== names.b) {
		report.names = { ...names, merged: merged.tree.getSessionName() };
	}
	return { records, report };
}

/** The header of a copy, checked: a session header of the current version. */
function headerOf(records: readonly RawRecord[], name: string): RawRecord & { id: string } {
	const header = records[0];
	if (header === undefined || !isHeaderRecord(header)) {
		throw new SessionTreeError("INVALID_HEADER", "the first record is not a session header", { file: name, line: 1 });
	}
	if (header.version !== CURRENT_SESSION_VERSION) {
		throw new SessionTreeError(
			"UNSUPPORTED_VERSION",
			`version ${header.version ?? 1}: only version ${CURRENT_SESSION_VERSION} copies are merged (migrate it first)`,
			{ file: name, line: 1 },
		);
	}
	return header;
}

/** A copy loaded strictly: its first problem is thrown, naming the copy. */
function load(records: readonly RawRecord[], name: string): LoadResult {
	return loadTree(linesOf(records), { file: name });
}

/** Records as the lines the reducer reads (numbered from 1, the header). */
function linesOf(records: readonly RawRecord[]): Array<{ line: number; record: RawRecord }> {
	return records.map((record, i) => ({ line: i + 1, record }));
}

/** A record of B with its renamed ids replaced (the same object when it names none), counting the references. */
function renameIn(
	record: RawRecord,
	renamed: ReadonlyMap<string, string>,
	conflicts: Map<string, MergeConflict>,
): RawRecord {
	if (renamed.size === 0) return record;
	let copy: RawRecord | undefined;
	const id = renamed.get(record.id as string);
	if (id !== undefined) copy = { ...record, id };
	let counted = false;
	for (const field of REFERENCE_FIELDS) {
		const value = record[field];
		if (typeof value !== "string") continue;
		const to = renamed.get(value);
		if (to === undefined) continue;
		copy ??= { ...record };
		copy[field] = to;
		const conflict = conflicts.get(value);
		if (conflict && !counted) {
			conflict.renamedReferences++;
			counted = true;
		}
	}
	return copy ?? record;
}

/**
 * The records in their order, except that a record whose parent comes later is moved to just
 * after it (after the parent's own moved children). Iterative.
 * @throws SessionTreeError MISSING_PARENT for a parent neither copy holds (a strict load has already refused it)
 */
function parentsFirst(
	records: readonly RawRecord[],
	nameA: string,
	nameB: string,
): { records: RawRecord[]; moved: number } {
	const out: RawRecord[] = [];
	const placed = new Set<string>();
	const waiting = new Map<string, RawRecord[]>();
	let moved = 0;
	for (const record of records) {
		const parent = record.parentId as string | null;
		if (parent !== null && !placed.has(parent)) {
			const list = waiting.get(parent);
			if (list) list.push(record);
			else waiting.set(parent, [record]);
			moved++;
			continue;
		}
		const queue = [record];
		for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
			out.push(next);
			const id = next.id as string;
			placed.add(id);
			const children = waiting.get(id);
			if (children) {
				waiting.delete(id);
				// Reversed onto the stack: the children come out in their own order.
				for (let i = children.length - 1; i >= 0; i--) queue.push(children[i] as RawRecord);
			}
		}
	}
	const [missing] = waiting.keys();
	if (missing !== undefined) {
		throw new SessionTreeError("MISSING_PARENT", `the union of ${nameA} and ${nameB} has no entry ${missing}`);
	}
	return { records: out, moved };
}

/** When a copy was last written to: the timestamp of its last record (its header's when it has none), in ms; -Infinity when unreadable. */
function timeOf(records: readonly RawRecord[]): number {
	const stamp = records.at(-1)?.timestamp;
	const ms = typeof stamp === "string" ? Date.parse(stamp) : Number.NaN;
	return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/** The later of the two copies' last timestamps, as written (A's on a tie or when neither reads as a time). */
function latestStamp(a: readonly RawRecord[], b: readonly RawRecord[]): string {
	const stampA = a.at(-1)?.timestamp;
	const stampB = b.at(-1)?.timestamp;
	if (timeOf(b) > timeOf(a) && typeof stampB === "string") return stampB;
	return typeof stampA === "string" ? stampA : new Date(0).toISOString();
}

/**
 * The labels in effect where A and B disagree, by target id in the union: entries both copies
 * hold (the same record) where a label one copy shows is not the union's (the other copy set
 * another later, or cleared it). A label on an entry only one copy holds, or set by one copy
 * alone, is no disagreement.
 */
function labelDifferences(
	a: LoadResult,
	b: LoadResult,
	merged: LoadResult,
	renamed: ReadonlyMap<string, string>,
): MergeLabelDifference[] {
	const differences: MergeLabelDifference[] = [];
	const labelsA = a.tree.getLabels();
	const labelsB = b.tree.getLabels();
	const targets = new Set<string>([...labelsA.keys(), ...labelsB.keys()]);
	for (const targetId of targets) {
		// An id B holds differently names another entry in each copy.
		if (renamed.has(targetId) || !a.tree.has(targetId) || !b.tree.has(targetId)) continue;
		const labelA = labelsA.get(targetId)?.label;
		const labelB = labelsB.get(targetId)?.label;
		const inUnion = merged.tree.getLabel(targetId);
		// A label one copy shows and the union does not (the other copy set another, or cleared it).
		const lost = (label: string | undefined) => label !== undefined && label !== inUnion;
		if (lost(labelA) || lost(labelB)) differences.push({ targetId, a: labelA, b: labelB, merged: inUnion });
	}
	return differences;
}
