/**
 * The lenient step of reading a stream: what each line turns into before the reducer applies
 * it. A line is checked (shape, content), migrated, and worked around where it must be: an
 * entry without ids is chained under the one before it, an entry whose id is taken is given a
 * fresh one (or left out when it repeats the entry that has it), a damaged line gives what the
 * codec salvaged. Each workaround is a {@link LoadProblem}; under strict policy the first one
 * throws instead. What comes out is a {@link NormalRecord}: well formed, its id free, never the
 * caller's object changed, so the reducer's apply (reducer.ts) has nothing left to decide but
 * where it goes. Links between entries (a parent missing, a cycle) are the reducer's to work
 * around when it settles, since a parent may come later in the stream than its child.
 *
 * Pure, as the reducer: it reads the state through a {@link StreamView} and writes nothing of it.
 */

import { SessionTreeError, type SessionTreeErrorCode } from "./errors.js";
import { derivedEntryId } from "./ids.js";
import { isUnreadable } from "./lazy.js";
import { chainIdlessEntry, isIdlessEntry, type Migration, positionalEntryId } from "./migrate.js";
import type { EntryRecord, ParsedLine, RawRecord } from "./records.js";
import type { SessionEntry, SessionHeader } from "./types.js";
import { contentErrorAction, entryContentError, entryShapeError, isEntryRecord, isRawRecord } from "./validate.js";

/** A problem found while reading, with where it was. */
export interface LoadProblem {
	code: SessionTreeErrorCode;
	message: string;
	/** The (first) line of the problem. */
	line?: number;
	/** The last line, for a problem that spans several lines (a run of entries without ids). */
	endLine?: number;
	entryId?: string;
}

/**
 * How problems are met: `strict` throws the first, `lenient` records each and goes on (what
 * other writers appended is always read leniently: a write must not fail for it).
 */
export type Policy = "strict" | "lenient";

/** What the normalize step reads of the state it feeds (the reducer's). */
export interface StreamView {
	readonly header: SessionHeader;
	readonly migration: Migration;
	/** Entries applied so far. */
	readonly entryCount: number;
	/** The id of the entry at 0-based `index` in stream order. */
	entryIdAt(index: number): string | undefined;
	/** The last entry applied, if any. */
	lastEntry(): { id: string; timestamp: string } | undefined;
	hasEntry(id: string): boolean;
	hasLeafRecord(id: string): boolean;
	/** The entry that has `id` and the line it came from (0 when unknown). */
	original(id: string): { entry: SessionEntry; line: number } | undefined;
}

/** A record ready to apply: an entry whose id is free, or a persisted-leaf record. */
export type NormalRecord =
	| { readonly kind: "entry"; readonly entry: SessionEntry; readonly line: number }
	| { readonly kind: "leaf"; readonly id: string; readonly target: string | null; readonly line: number };

/** A run of consecutive id-less entries chained, and the one problem that reports it. */
interface IdlessRun {
	problem: LoadProblem;
	count: number;
	/** Entries of the run that had no timestamp and were given the one before theirs. */
	untimed: number;
	firstLine: number;
	firstId: string;
}

/** The ids a batch of lines names, collected once, when an id-less entry first needs them. */
export type ReservedIds = () => ReadonlySet<string>;

const NO_IDS: ReadonlySet<string> = new Set();

/** No lines still to come: the reserved ids of a record applied on its own. */
export const NOTHING_RESERVED: ReservedIds = () => NO_IDS;

/** The ids the lines name (entries', envelopes', salvaged records'), for {@link ReservedIds}. */
export function reservedIdsOf(lines: readonly ParsedLine[]): ReservedIds {
	let ids: Set<string> | undefined;
	return () => {
		if (ids === undefined) {
			ids = new Set<string>();
			for (const parsed of lines) {
				if (parsed.envelope) ids.add(parsed.envelope.id);
				for (const record of parsed.record ? [parsed.record] : (parsed.salvaged ?? [])) {
					if (typeof record.id === "string") ids.add(record.id);
				}
			}
		}
		return ids;
	};
}

/**
 * The normalize step of one stream (see the module comment). It keeps what a run of id-less
 * entries needs across lines, and the problems it worked around in `problems`.
 */
export class Normalizer {
	/** The run of id-less entries the last record belongs to, if it was one. */
	private idlessRun: IdlessRun | undefined;

	constructor(
		readonly problems: LoadProblem[],
		private readonly file: string | undefined,
	) {}

	/** Ends a run of id-less entries: whatever comes next starts a new one. */
	endRun(): void {
		this.idlessRun = undefined;
	}

	/**
	 * What one record found on `line` becomes: a record to apply, or nothing (left out, with its
	 * problem recorded; under strict policy the problem throws). `reserved` gives the ids of the
	 * lines still to come, which an id made for an id-less entry avoids.
	 * @throws SessionTreeError under strict policy, for the first problem
	 */
	record(
		record: unknown,
		line: number,
		view: StreamView,
		policy: Policy,
		reserved: ReservedIds = NOTHING_RESERVED,
	): NormalRecord | undefined {
		if (!isRawRecord(record)) {
			this.report({ code: "INVALID_RECORD", message: "the record is not an object", line }, policy);
			return undefined;
		}
		if (view.migration.needed) view.migration.record(record);
		// Strict policy rejects an entry without ids below, as any entry without an id.
		const chained = policy === "lenient" && isIdlessEntry(record) ? this.chain(record, view, reserved) : undefined;
		const untimed = chained !== undefined && typeof record.timestamp !== "string";
		const checked = chained ?? record;
		if (chained === undefined) this.endRun();
		if (!isEntryRecord(checked)) {
			this.endRun();
			this.report({ code: "INVALID_RECORD", message: entryShapeError(checked) ?? "not an entry", line }, policy);
			return undefined;
		}
		const contentError = entryContentError(checked);
		// An entry kept without its body (its line was reported already) has no content to check.
		if (contentError && !isUnreadable(checked)) {
			this.report({ code: "INVALID_RECORD", message: contentError, line }, policy, contentErrorAction(checked));
		}
		const normal = this.freeId(checked, line, view, policy);
		if (normal !== undefined && chained !== undefined) {
			this.noteIdless(normal.kind === "entry" ? normal.entry.id : normal.id, line, untimed);
		}
		return normal;
	}

	/**
	 * Reports a line that is no record (or holds records the codec salvaged, returned to be
	 * applied): under lenient policy it is skipped, or its records kept.
	 * @throws SessionTreeError under strict policy
	 */
	damage(parsed: ParsedLine, policy: Policy): readonly RawRecord[] {
		this.endRun();
		const error = parsed.error ?? new SessionTreeError("INVALID_JSON", "unreadable line");
		const salvaged = parsed.salvaged;
		this.report(
			{ code: error.code, message: stripLocation(error), line: parsed.line },
			policy,
			salvagedAction(salvaged),
		);
		return salvaged ?? [];
	}

	/**
	 * Records a problem: `action` says what lenient policy did about it; strict policy throws
	 * instead, naming the stream's file and the problem's line.
	 * @throws SessionTreeError under strict policy
	 */
	report(problem: LoadProblem, policy: Policy, action?: string): void {
		if (policy === "strict") {
			throw new SessionTreeError(problem.code, problem.message, { file: this.file, line: problem.line });
		}
		this.problems.push(action ? { ...problem, message: `${problem.message}; ${action}` } : problem);
	}

	/**
	 * The entry or leaf record with a free id: an entry whose id another entry or a leaf record
	 * has is given a fresh one (a copy of it, never the record given), or left out when it
	 * repeats that entry exactly; a leaf record whose id is taken is left out.
	 */
	private freeId(entry: EntryRecord, line: number, view: StreamView, policy: Policy): NormalRecord | undefined {
		if (entry.type === "leaf") {
			if (view.hasEntry(entry.id) || view.hasLeafRecord(entry.id)) {
				const what = view.hasEntry(entry.id) ? "an entry" : "another leaf record";
				this.report(
					{ code: "DUPLICATE_ID", message: `leaf record ${entry.id} has the id of ${what}`, line, entryId: entry.id },
					policy,
					"the leaf record is skipped",
				);
				return undefined;
			}
			const target = typeof entry.targetId === "string" ? entry.targetId : null;
			return { kind: "leaf", id: entry.id, target, line };
		}
		const original = view.original(entry.id);
		if (!original && !view.hasLeafRecord(entry.id)) return { kind: "entry", entry, line };
		const fresh = () =>
			derivedEntryId(`${view.header.id}:dup:${line}`, (id) => view.hasEntry(id) || view.hasLeafRecord(id));
		if (!original) {
			const id = fresh();
			this.report(
				{
					code: "DUPLICATE_ID",
					message: `entry id ${entry.id} is already used by a leaf record`,
					line,
					entryId: entry.id,
				},
				policy,
				`this entry is given id ${id}`,
			);
			return { kind: "entry", entry: { ...entry, id }, line };
		}
		if (JSON.stringify(original.entry) === JSON.stringify(entry)) {
			this.report(
				{ code: "DUPLICATE_ID", message: `entry ${entry.id} repeats line ${original.line}`, line, entryId: entry.id },
				policy,
				"the copy is skipped",
			);
			return undefined;
		}
		const id = fresh();
		this.report(
			{
				code: "DUPLICATE_ID",
				message: `entry id ${entry.id} is already used on line ${original.line}`,
				line,
				entryId: entry.id,
			},
			policy,
			`this entry is given id ${id}`,
		);
		return { kind: "entry", entry: { ...entry, id }, line };
	}

	/**
	 * An id-less entry (lenient policy) as a copy with the id its position derives and the
	 * previous entry in stream order as parent; see {@link chainIdlessEntry}. Its id is neither
	 * an entry's, nor a persisted-leaf record's, nor on a line still to be applied.
	 */
	private chain(record: RawRecord, view: StreamView, reserved: ReservedIds): RawRecord {
		const count = view.entryCount;
		const position = count + 1;
		const ids = reserved();
		const taken = (id: string) => view.hasEntry(id) || view.hasLeafRecord(id) || ids.has(id);
		const sessionId = view.header.id;
		// A leaf record is not an entry: it does not take the position of the entry after it.
		const id =
			record.type === "leaf"
				? derivedEntryId(`${sessionId}:leaf:${position}`, taken)
				: positionalEntryId(sessionId, position, taken);
		const last = view.lastEntry();
		// An entry without a time takes the one before it (the header's for the first): see chainIdlessEntry.
		const headerTime = view.header.timestamp;
		const time = last?.timestamp ?? (typeof headerTime === "string" ? headerTime : new Date(0).toISOString());
		const copy: RawRecord = { ...record };
		chainIdlessEntry(copy, id, last?.id ?? null, (index) => (index === count ? id : view.entryIdAt(index)), time);
		return copy;
	}

	/** Counts a chained id-less entry into its run: one problem per run, naming its lines. */
	private noteIdless(id: string, line: number, untimed: boolean): void {
		let run = this.idlessRun;
		if (!run) {
			const problem: LoadProblem = { code: "INVALID_RECORD", message: "", line, endLine: line, entryId: id };
			this.problems.push(problem);
			run = { problem, count: 0, untimed: 0, firstLine: line, firstId: id };
			this.idlessRun = run;
		}
		run.count++;
		if (untimed) run.untimed++;
		run.problem.endLine = line;
		run.problem.message = idlessMessage(run, line, id, this.file);
	}
}

/** The problem message of a run of id-less entries, as far as it goes (`lastLine`, `lastId`). */
function idlessMessage(run: IdlessRun, lastLine: number, lastId: string, file: string | undefined): string {
	const entries = run.count === 1 ? "1 entry" : `${run.count} entries`;
	const lines =
		run.firstLine === 0
			? ""
			: run.firstLine === lastLine
				? ` on line ${run.firstLine}`
				: ` on lines ${run.firstLine}-${lastLine}`;
	const of = file === undefined ? "" : ` of ${file}`;
	const ids = run.count === 1 ? `id ${run.firstId}` : `ids ${run.firstId} to ${lastId}`;
	const times =
		run.untimed === 0
			? ""
			: `; ${run.untimed === 1 ? "1 of them had" : `${run.untimed} of them had`} no timestamp and got the time of the entry before it (or the header's)`;
	return `${entries} without id and parentId${lines}${of}; chained in file order, each under the entry before it, with generated ${ids}${times}`;
}

/** What lenient policy did with a damaged line, given what the codec recovered from it. */
function salvagedAction(salvaged: readonly RawRecord[] | undefined): string {
	if (!salvaged?.length) return "skipped";
	// A record nested too deep: the codec kept the entry's envelope, as a lazy read keeps an unreadable body.
	if (salvaged.every(isUnreadable)) return "its body is left out of the context";
	return `kept ${salvaged.length} whole record(s)`;
}

/** The message of an error without the `file:line: ` its constructor put in front. */
export function stripLocation(error: SessionTreeError): string {
	const prefix = error.message.match(/^(?:.*?:\d+: |line \d+: )/);
	return prefix ? error.message.slice(prefix[0].length) : error.message;
}
