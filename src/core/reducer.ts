/**
 * The one place that interprets a session's record stream. A {@link SessionReducer} applies
 * records one at a time (header, entries, persisted-leaf records, labels, session names, …)
 * to the session state: header checks, migration, entry checks, duplicate ids, parent linking,
 * cycle breaking and the leaf the stream names. Opening a session, catching up with what
 * other writers appended, resuming from the end of a file and the catalog's summaries all
 * feed the same reducer, so they cannot disagree about what a stream means. Pure: stores read
 * the lines, this module decides what they mean.
 *
 * Two steps: the normalize step (normalize.ts) decides what each line becomes, checking it and
 * working around what it must (entries without ids, taken ids, damage); the reducer then
 * applies what comes out, strictly and without changing it, the same for a session opened, for
 * what other writers appended, and for the session's own writes ({@link SessionReducer.applyOwn}
 * skips only the normalize step, its records being built normal).
 *
 * Strict policy (the default) throws a {@link SessionTreeError} naming the line of the first
 * problem. Lenient policy keeps what it can, bridges gaps instead of cutting the tree there,
 * and records every problem it worked around.
 *
 * Parents may come later in the stream than their children (pi accepts that), so linking is a
 * second step: {@link SessionReducer.settle} links everything applied since the last settle, in
 * time linear in what was applied.
 *
 * Entries without `id` and `parentId` under a current header (pi-like files other tools write,
 * see {@link isIdlessEntry}): strict policy rejects them (`INVALID_RECORD`, "the … entry has no
 * string id"); lenient policy chains them as v1 migration chains a v1 file: each gets the id
 * {@link positionalEntryId} derives from the session id and its position among the entries
 * (avoiding every id of the stream), and the previous entry in stream order as parent. Each
 * run of such entries is one `INVALID_RECORD` problem naming its lines (docs/durability.md).
 */

import { SessionTreeError } from "./errors.js";
import { LazyBodies, type LineSource } from "./lazy.js";
import { EntryLinks, resolveAlias } from "./links.js";
import { isIdlessEntry, Migration } from "./migrate.js";
import {
	type LoadProblem,
	NOTHING_RESERVED,
	Normalizer,
	type NormalRecord,
	type Policy,
	type ReservedIds,
	reservedIdsOf,
	type StreamView,
	stripLocation,
} from "./normalize.js";
import type { HeaderRecord, ParsedLine, RawRecord } from "./records.js";
import { SessionTree } from "./tree.js";
import type { TreeNode } from "./tree-node.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader, type SessionRecord } from "./types.js";
import { headerShapeError, isEntryRecord, isHeaderRecord, isRawRecord } from "./validate.js";

export { resolveAlias } from "./links.js";
export type { LoadProblem } from "./normalize.js";
export { stripLocation } from "./normalize.js";
// Public through the core's index (`export *` of this module) as before they moved.
export type { ParsedLine } from "./records.js";

/** How a {@link SessionReducer} treats what it reads. */
export interface ReducerOptions {
	/** Keep going past problems and record them instead of throwing. Default false (strict). */
	lenient?: boolean;
	/**
	 * Record the problems of what follows the header and go on, whatever `lenient` says, as
	 * for lines other writers append ({@link SessionReducer.applyOthers}); the header is still
	 * checked as `lenient` says. For a stream another writer replaced (repaired, migrated)
	 * while this session was open: a write must not fail for damage someone else appended since.
	 */
	tolerant?: boolean;
	/** The stream's location (a file name), for messages. */
	file?: string;
	/**
	 * Where the bodies of lines given as envelopes are read from.
	 * @internal
	 */
	source?: LineSource;
	/**
	 * The records are the last part of a stream, not all of it: a parent before the window is
	 * not a problem. Such entries are left unlinked and listed by {@link SessionReducer.outside}.
	 */
	window?: boolean;
}

/** The last record of the stream that decides the leaf: an entry, or a persisted-leaf record. */
type LeafDecider = { kind: "entry"; id: string } | { kind: "leaf"; id: string; target: string | null };

/**
 * The session state a record stream builds: the tree, the persisted-leaf records, the
 * problems worked around and the version the stream had. Apply every line, then
 * {@link settle}, then read {@link streamLeaf} for the leaf the stream names.
 */
export class SessionReducer {
	/** Problems worked around (lenient policy; strict throws on the first). */
	readonly problems: LoadProblem[] = [];
	/** Persisted-leaf records, id → target: not entries, but their ids are taken. */
	readonly leafRecords = new Map<string, string | null>();
	/** Ids of entries whose parent lies before a window (see {@link ReducerOptions.window}). */
	readonly outside = new Set<string>();
	private readonly options: ReducerOptions;
	private readonly bodies: LazyBodies | undefined;
	private readonly normalizer: Normalizer;
	/** How the lines of this stream's own reader are met (what other writers appended is always read leniently). */
	private readonly policy: Policy;
	private state: { tree: SessionTree; migration: Migration; view: StreamView } | undefined;
	/** Each entry's named parent and line, and how far the entries are linked. */
	private readonly links: EntryLinks;
	private lastRecord: LeafDecider | undefined;
	/** A torn last line was seen (for the message when no header follows). */
	private sawTorn = false;
	/** The persisted-leaf record whose missing target {@link streamLeaf} reported. */
	private reportedLeaf: string | undefined;

	constructor(options: ReducerOptions = {}) {
		this.options = options;
		this.policy = options.lenient === true || options.tolerant === true ? "lenient" : "strict";
		this.normalizer = new Normalizer(this.problems, options.file);
		this.links = new EntryLinks(options.window ? this.outside : undefined);
		this.bodies = options.source
			? new LazyBodies(options.source, {
					lenient: options.lenient ?? false,
					file: options.file,
					problems: this.problems,
				})
			: undefined;
	}

	/** The tree built so far. Throws EMPTY_FILE before a header was applied. */
	get tree(): SessionTree {
		return this.required().tree;
	}

	/** The version the stream had; less than 3 when it was migrated while read. */
	get fromVersion(): number {
		return this.state?.migration.from ?? CURRENT_SESSION_VERSION;
	}

	/** True once a header was applied. */
	get started(): boolean {
		return this.state !== undefined;
	}

	/** Starts the state from a header this session wrote itself (a new session). */
	static fresh(header: SessionHeader, options: ReducerOptions = {}): SessionReducer {
		const reducer = new SessionReducer(options);
		reducer.begin(header);
		return reducer;
	}

	/**
	 * Applies one line: the first whole line is the header, every later one an entry, a
	 * persisted-leaf record, or damage (reported, or under strict policy thrown).
	 */
	apply(parsed: ParsedLine): void {
		this.applyLine(parsed, this.policy, NOTHING_RESERVED);
	}

	/**
	 * Applies lines in order ({@link apply}), knowing them all: an id generated for an entry
	 * without one avoids the ids of the later lines too, so no id of the stream is taken twice.
	 */
	applyLines(lines: readonly ParsedLine[]): void {
		const reserved = reservedIdsOf(lines);
		for (const line of lines) this.applyLine(line, this.policy, reserved);
	}

	/**
	 * Applies lines other writers appended since this state was read, and links them. Their
	 * problems are recorded (see {@link problems}) and never thrown whatever the policy: a
	 * write of this session must not fail for what another process wrote. The tree's leaf does
	 * not move: it is this session's.
	 */
	applyOthers(lines: readonly ParsedLine[]): void {
		const reserved = reservedIdsOf(lines);
		for (const line of lines) this.applyLine(line, "lenient", reserved);
		this.settle("lenient");
	}

	/**
	 * Applies records this session built and has just stored, in order, and moves the leaf to
	 * the last one (an entry, or a persisted-leaf record's target). They are normal as built
	 * (see normalize.ts): each id was checked to be free when it was made, and nothing was
	 * applied since (an append that finds others' records applies those and builds again), and
	 * each passed the reader's checks before the write. So the normalize step is left out, and
	 * an entry whose parent is the leaf or the entry before it is linked at once: the same state
	 * with a third of the map lookups (on a 100,000-entry session they were about 3 µs of each
	 * awaited append, docs/performance.md).
	 */
	applyOwn(records: readonly SessionRecord[]): void {
		const { tree, migration } = this.required();
		this.normalizer.endRun();
		let last: TreeNode | undefined;
		let target: string | null | undefined;
		for (const record of records) {
			if (migration.needed && isRawRecord(record)) migration.record(record);
			if (record.type === "leaf") {
				this.commit({ kind: "leaf", id: record.id, target: record.targetId, line: 0 });
				target = record.targetId;
				continue;
			}
			const parent = record.parentId === null ? undefined : (last ?? tree.getLeafNode());
			const node = this.commit({ kind: "entry", entry: record, line: 0 });
			if (record.parentId === null || parent?.id === record.parentId) this.links.linkAt(tree, node, parent);
			last = node;
			target = undefined;
		}
		this.settle();
		if (target !== undefined) tree.setLeaf(this.resolveParentId(target));
		else if (last) tree.setLeafNode(last);
	}

	/**
	 * Applies one record (an entry or a persisted-leaf record) found on `line`: a record as
	 * parsed, or an entry (or leaf record) this library built. Never changes it: a record the
	 * normalize step has to change (an id-less entry, a taken id) is applied as a copy.
	 */
	applyRecord(record: RawRecord | SessionEntry, line: number): void {
		this.applyNormal(this.normalizer.record(record, line, this.required().view, this.policy));
	}

	/**
	 * Links every entry applied since the last settle to its parent: a parent named through a
	 * persisted-leaf record is that record's target; a missing parent is bridged to the previous
	 * entry of the stream (reported); a cycle is cut (reported). Linear in what was applied.
	 */
	settle(policy: Policy = this.policy): void {
		this.links.settle(this.tree, this.leafRecords, (problem, action) =>
			this.normalizer.report(problem, policy, action),
		);
	}

	/**
	 * The leaf the stream names: the target of a final persisted-leaf record, else the last
	 * entry (`null` before the first). A target that is not in the tree is a problem (lenient:
	 * the last entry instead); in a window it is returned as it is, to be looked for further back.
	 * `policy` is the stream's own by default; `"lenient"` for a leaf other writers named. A
	 * reader that asks again after each refresh gets one problem per such record, not one per ask.
	 */
	streamLeaf(policy: Policy = this.policy): { leafId: string | null; leafRecordId: string | undefined } {
		const nodes = this.tree.nodesInOrder();
		const lastEntryId = nodes.at(-1)?.id ?? null;
		const last = this.lastRecord;
		if (last?.kind !== "leaf") return { leafId: lastEntryId, leafRecordId: undefined };
		const target = last.target === null ? null : resolveAlias(last.target, this.leafRecords);
		if (target === null || this.tree.has(target) || this.options.window) {
			return { leafId: target, leafRecordId: last.id };
		}
		if (this.reportedLeaf === last.id) return { leafId: lastEntryId, leafRecordId: undefined };
		this.reportedLeaf = last.id;
		this.normalizer.report(
			{ code: "ENTRY_NOT_FOUND", message: `the leaf pointer names entry ${last.target}, which is not in the file` },
			policy,
			"the last entry is the leaf instead",
		);
		return { leafId: lastEntryId, leafRecordId: undefined };
	}

	/** The parent an entry's `parentId` really means, through persisted-leaf records. */
	resolveParentId(parentId: string | null): string | null {
		return parentId === null ? null : resolveAlias(parentId, this.leafRecords);
	}

	/** One line under `policy`: the header, an envelope, a record, or damage (see normalize.ts). */
	private applyLine(parsed: ParsedLine, policy: Policy, reserved: ReservedIds): void {
		if (parsed.torn) {
			this.sawTorn = true;
			// An append that never completed was never acknowledged: nothing is lost by leaving it out.
			const error = parsed.error ?? new SessionTreeError("TORN_TAIL", "incomplete last line");
			this.problems.push({
				code: error.code,
				message: `${stripLocation(error)}; left out (an append that never completed)`,
				line: parsed.line,
			});
			return;
		}
		if (!this.state) {
			this.startFrom(parsed, policy);
			return;
		}
		const { view } = this.state;
		const envelope = parsed.envelope;
		if (envelope && this.bodies) {
			if (!this.state.tree.has(envelope.id)) {
				this.normalizer.endRun();
				// Envelopes are only read from well-formed current-version entries: the shape checks hold.
				this.state.tree.addLazyNode(envelope, this.bodies);
				this.noteEntry(envelope.id, envelope.parentId, parsed.line);
				return;
			}
			// A repeated id needs the whole record to tell a copy from a clash.
			for (const entry of this.bodies.load([envelope])) {
				this.applyNormal(this.normalizer.record(entry, parsed.line, view, policy, reserved));
			}
			return;
		}
		const records = parsed.record ? [parsed.record] : this.normalizer.damage(parsed, policy);
		for (const record of records) this.applyNormal(this.normalizer.record(record, parsed.line, view, policy, reserved));
	}

	private applyNormal(normal: NormalRecord | undefined): void {
		if (normal !== undefined) this.commit(normal);
	}

	/**
	 * The one strict apply: a normal record into the state, nothing decided and nothing changed
	 * (the entry becomes a tree node as it is). Returns the entry's node (undefined for a leaf record).
	 * @throws SessionTreeError DUPLICATE_ID when the id is taken after all (a record built wrong)
	 */
	private commit(normal: NormalRecord & { kind: "entry" }): TreeNode;
	private commit(normal: NormalRecord): TreeNode | undefined;
	private commit(normal: NormalRecord): TreeNode | undefined {
		if (normal.kind === "leaf") {
			this.leafRecords.set(normal.id, normal.target);
			this.lastRecord = { kind: "leaf", id: normal.id, target: normal.target };
			return undefined;
		}
		const { entry } = normal;
		const node = this.required().tree.addNode(entry);
		this.noteEntry(entry.id, entry.parentId, normal.line);
		return node;
	}

	private required(): { tree: SessionTree; migration: Migration; view: StreamView } {
		if (this.state) return this.state;
		const torn = this.sawTorn ? " (only an incomplete line)" : "";
		throw new SessionTreeError("EMPTY_FILE", `the file holds no session header${torn}`, { file: this.options.file });
	}

	/** The line of the entry at this order in the tree (0 if unknown, as for a store without lines). */
	private lineOf(order: number): number {
		return this.links.lineOf(order);
	}

	private noteEntry(id: string, parentId: string | null, line: number): void {
		this.links.note(parentId, line);
		this.lastRecord = { kind: "entry", id };
	}

	/** The state from its header: the tree, the migration, and the view the normalize step reads it through. */
	private begin(header: HeaderRecord | SessionHeader, migration = new Migration(header as HeaderRecord)): void {
		const tree = SessionTree.empty(header);
		const view: StreamView = {
			header: tree.header,
			migration,
			get entryCount() {
				return tree.nodesInOrder().length;
			},
			entryIdAt: (index) => tree.nodesInOrder()[index]?.id,
			lastEntry: () => tree.nodesInOrder().at(-1),
			hasEntry: (id) => tree.has(id),
			hasLeafRecord: (id) => this.leafRecords.has(id),
			original: (id) => {
				const node = tree.getNode(id);
				return node ? { entry: node.entry, line: this.lineOf(node.order) } : undefined;
			},
		};
		this.state = { tree, migration, view };
	}

	private startFrom(first: ParsedLine, policy: Policy): void {
		const record = first.record;
		let header: HeaderRecord;
		let headerIsEntry = false;
		if (record !== undefined && isHeaderRecord(record)) {
			header = record;
		} else {
			const reason = headerProblem(first) ?? "the first line is not a session header";
			if (!this.options.lenient) {
				throw new SessionTreeError("INVALID_HEADER", reason, { file: this.options.file, line: first.line });
			}
			// Lenient: the header is made up, and a first line that is an entry stays an entry.
			headerIsEntry = record !== undefined && (isEntryRecord(record) || isIdlessEntry(record));
			header = {
				type: "session",
				version: CURRENT_SESSION_VERSION,
				id: "recovered-session",
				timestamp: headerIsEntry ? String(record?.timestamp) : new Date(0).toISOString(),
				cwd: "",
			};
			this.normalizer.report(
				{ code: "INVALID_HEADER", message: reason, line: first.line },
				policy,
				"a header was made up (id recovered-session, empty cwd)",
			);
		}
		const migration = new Migration(header);
		if (migration.from > CURRENT_SESSION_VERSION) {
			throw new SessionTreeError(
				"UNSUPPORTED_VERSION",
				`session format version ${migration.from} is newer than this library supports (${CURRENT_SESSION_VERSION})`,
				{ file: this.options.file, line: first.line },
			);
		}
		this.begin(header, migration);
		if (headerIsEntry) this.applyLine(first, policy, NOTHING_RESERVED);
	}
}

/** Why the first line is not a usable session header, or undefined when it is. */
export function headerProblem(first: ParsedLine): string | undefined {
	if (!first.record) {
		const reason = first.error ? stripLocation(first.error) : "unreadable";
		return `the first line is not a session header (${reason})`;
	}
	return headerShapeError(first.record);
}
