/**
 * The plan of a Claude Code import (used by `claude-code.ts`), made from the whole file before
 * any entry: each line's key, the key it hangs below, its time, and an order in which every
 * line comes after the line it hangs below. Claude Code names parents that come later in the
 * file (a 2.1.114 transcript names the uuid of the next line), so links cannot be followed in
 * one pass over the file.
 */

import { isJson, type Json } from "./common.js";
import { fieldError, type JsonLine, lineTimestamp } from "./jsonl.js";
import type { ImportSkip, SourceName } from "./types.js";

/** The fields of a line that the plan, the header and the compaction summaries read. */
const FACT_KEYS = [
	"type",
	"uuid",
	"parentUuid",
	"subtype",
	"logicalParentUuid",
	"timestamp",
	"isSidechain",
	"isCompactSummary",
] as const;

/**
 * What the import keeps of a line until it makes the line's entries: the fields the plan, the
 * header and the compaction summaries read, and of its `message` only that it is an object and
 * its `id` (a transcript of hundreds of megabytes is read line by line, and only this of each
 * line stays in memory).
 */
export function factsOf(record: Json): Json {
	const facts: Json = {};
	for (const key of FACT_KEYS) if (key in record) facts[key] = record[key];
	const message = record.message;
	if (isJson(message)) facts.message = typeof message.id === "string" ? { id: message.id } : {};
	return facts;
}

/** What the importer needs to know about one line before it makes its entry. */
export interface PlannedLine<L extends JsonLine = JsonLine> {
	readonly line: L;
	/** The line's uuid where it is the first line with that uuid, else `#<line>`. */
	readonly key: string;
	/**
	 * The key of the line it hangs below (its `parentUuid` where that is a line of this file, the
	 * line before it in the file for a line without uuid or without `parentUuid`), or null for a
	 * root (`parentUuid: null`, a parent not in the file, or a link broken on a cycle).
	 */
	dependsOn: string | null;
	/** Its `timestamp`, or the time of the line before it when it has none (or, lenient, a bad one). */
	readonly timestamp: string;
}

/** The lines of a transcript in the order their entries are made, and the uuids it holds. */
export interface ImportPlan<L extends JsonLine = JsonLine> {
	/** Parents first; otherwise file order. */
	readonly order: readonly PlannedLine<L>[];
	/** Every uuid of the file (a parent or a summary's `leafUuid` named anywhere in it links). */
	readonly uuids: ReadonlySet<string>;
	/** The key of the last line that is not a sidechain line (else the last line): the leaf. */
	readonly last: string | undefined;
}

/**
 * Plans the import of `lines`. Strict, a problem (a user or assistant line without `parentUuid`,
 * a cycle of parent links, a timestamp that is no date) throws `INVALID_RECORD` naming the line
 * and the field; lenient, it is reported in `skipped` and worked around: the line hangs below the
 * line before it, the cycle is cut at its first line in the file (made a root), the time is the
 * previous line's. Iterative: a chain of any depth in any order.
 */
export function planLines<L extends JsonLine>(
	source: SourceName,
	lines: readonly L[],
	startTime: string,
	skipped: ImportSkip[],
): ImportPlan<L> {
	const uuids = new Set<string>();
	for (const { record } of lines) if (typeof record.uuid === "string") uuids.add(record.uuid);
	const lenient = source.lenient === true;
	const planned: PlannedLine<L>[] = [];
	const owners = new Set<string>();
	let time = startTime;
	let prevMain: string | undefined;
	let prevAny: string | undefined;
	for (const line of lines) {
		const r = line.record;
		const uuid = typeof r.uuid === "string" && !owners.has(r.uuid) ? r.uuid : undefined;
		if (uuid !== undefined) owners.add(uuid);
		const key = uuid ?? `#${line.n}`;
		const previous = prevMain ?? prevAny ?? null;
		let dependsOn: string | null = previous;
		if (uuid !== undefined) {
			const parent =
				r.type === "system" && r.subtype === "compact_boundary" && isIn(uuids, r.logicalParentUuid)
					? r.logicalParentUuid
					: r.parentUuid;
			if (parent === undefined && (r.type === "user" || r.type === "assistant")) {
				const problem = `a ${r.type} line needs one (null for a root)`;
				if (!lenient) throw fieldError(source, line.n, "parentUuid", problem);
				skipped.push({
					source: source.name,
					where: String(line.n),
					reason: `field \`parentUuid\`: ${problem}; hung below the line before it`,
				});
			} else if (parent === null || (typeof parent === "string" && !uuids.has(parent))) {
				dependsOn = null;
			} else if (typeof parent === "string") {
				dependsOn = parent;
			} else if (parent !== undefined) {
				if (!lenient) throw fieldError(source, line.n, "parentUuid", "neither a string nor null");
				skipped.push({
					source: source.name,
					where: String(line.n),
					reason: "field `parentUuid`: neither a string nor null; hung below the line before it",
				});
			}
		}
		time = lineTimestamp(source, line, r.timestamp, "timestamp", skipped) ?? time;
		planned.push({ line, key, dependsOn, timestamp: time });
		prevAny = key;
		if (r.isSidechain !== true) prevMain = key;
	}
	return { order: parentsFirst(source, planned, skipped), uuids, last: prevMain ?? prevAny };
}

function isIn(uuids: ReadonlySet<string>, value: unknown): value is string {
	return typeof value === "string" && uuids.has(value);
}

/**
 * The lines, each after the line it depends on: file order, except that a line whose parent
 * comes later waits for it (and then comes right after it, with the lines that waited on it).
 * What still waits at the end sits on a cycle of parent links (or below one).
 */
function parentsFirst<L extends JsonLine>(
	source: SourceName,
	planned: PlannedLine<L>[],
	skipped: ImportSkip[],
): PlannedLine<L>[] {
	const order: PlannedLine<L>[] = [];
	const done = new Set<string>();
	const waiting = new Map<string, PlannedLine<L>[]>();
	const place = (first: PlannedLine<L>): void => {
		const queue = [first];
		for (let i = 0; i < queue.length; i++) {
			const next = queue[i] as PlannedLine<L>;
			order.push(next);
			done.add(next.key);
			const waiters = waiting.get(next.key);
			if (waiters) {
				waiting.delete(next.key);
				queue.push(...waiters);
			}
		}
	};
	for (const line of planned) {
		const parent = line.dependsOn;
		if (parent === null || done.has(parent)) place(line);
		else {
			const waiters = waiting.get(parent);
			if (waiters) waiters.push(line);
			else waiting.set(parent, [line]);
		}
	}
	if (waiting.size === 0) return order;
	// Every line still waiting is on a cycle or below one: cut each cycle at its first line in the file.
	const byKey = new Map(planned.map((p) => [p.key, p]));
	for (const line of planned) {
		if (done.has(line.key)) continue;
		// Walk up from this line to a line met twice: that one is on the cycle.
		const seen = new Set<string>();
		let at: PlannedLine<L> | undefined = line;
		while (at && !seen.has(at.key) && at.dependsOn !== null && !done.has(at.dependsOn)) {
			seen.add(at.key);
			at = byKey.get(at.dependsOn);
		}
		if (!at || at.dependsOn === null || done.has(at.dependsOn)) continue;
		const cycle = cycleFrom(at, byKey);
		const cut = cycle.reduce((a, b) => (a.line.n <= b.line.n ? a : b));
		const problem = `${JSON.stringify(cut.line.record.parentUuid)} is on a cycle of parent links (lines ${cycle
			.map((p) => p.line.n)
			.sort((a, b) => a - b)
			.join(", ")})`;
		if (source.lenient !== true) throw fieldError(source, cut.line.n, "parentUuid", problem);
		skipped.push({
			source: source.name,
			where: String(cut.line.n),
			reason: `field \`parentUuid\`: ${problem}; made a root`,
		});
		const parent = cut.dependsOn as string;
		const waiters = waiting.get(parent) ?? [];
		waiting.set(
			parent,
			waiters.filter((w) => w !== cut),
		);
		cut.dependsOn = null;
		place(cut);
	}
	return order;
}

/** The lines of the cycle `start` is on (it depends on one of them, which depends on …, back to it). */
function cycleFrom<L extends JsonLine>(start: PlannedLine<L>, byKey: Map<string, PlannedLine<L>>): PlannedLine<L>[] {
	const cycle = [start];
	for (let at = byKey.get(start.dependsOn as string); at && at !== start; at = byKey.get(at.dependsOn as string)) {
		cycle.push(at);
	}
	return cycle;
}
