/**
 * A session's state and its store: the core reducer's state, how far this session has read
 * the store, and its writes, one after another, each a compare-and-append. The facade
 * (src/session.ts) decides what to write; this module gets it stored without losing what other
 * writers appended meanwhile.
 */

import { type LoadSteps, loadContext } from "./core/context.js";
import * as make from "./core/entries.js";
import { SessionTreeError } from "./core/errors.js";
import { cryptoRandomBytes, newEntryId, type RandomBytes } from "./core/ids.js";
import { loadTree } from "./core/load.js";
import { type LoadProblem, SessionReducer } from "./core/reducer.js";
import { resumeFromTail } from "./core/tail.js";
import type { SessionTree } from "./core/tree.js";
import { TreeNode } from "./core/tree-node.js";
import {
	CURRENT_SESSION_VERSION,
	type PathStep,
	type SessionEntry,
	type SessionHeader,
	type SessionRecord,
} from "./core/types.js";
import { entryContentError, entryShapeError, isHeaderRecord, isRawRecord } from "./core/validate.js";
import type { OpenSessionOptions, SessionEnvironment } from "./session-options.js";
import {
	type AppendOutcome,
	type Awaitable,
	isPending,
	type SessionStore,
	type StorePosition,
	type StoreRead,
	type WriteOutcome,
} from "./storage/store.js";
import { WriteQueue } from "./storage/write-queue.js";

/** How many times a write catches up with other writers before it gives up (WRITE_CONFLICT). */
const MAX_WRITE_ATTEMPTS = 1000;

/** A resume from the end of the store: the leaf and the path from a self-contained compaction to it. */
export interface PartialResume {
	header: SessionHeader;
	leafId: string;
	path: SessionEntry[];
}

/** Tree nodes are path steps: parse their bodies in one pass over the store. */
export const loadSteps: LoadSteps = (steps: readonly PathStep[]) => TreeNode.load(steps);

/** One session's state and its store. */
export class SessionLog {
	readonly store: SessionStore;
	readonly now: () => Date;
	/** The clock the caller gave, if any (else the system's). */
	private readonly clock: (() => Date) | undefined;
	/** The last timestamp {@link stamp} made, and its millisecond. */
	private lastStamp = { ms: Number.NaN, text: "" };
	readonly random: RandomBytes;
	private readonly lenient: boolean;
	/** The session state: tree, persisted-leaf records and problems, kept by the core reducer. */
	private reducer: SessionReducer | undefined;
	/** Set while the session was opened with `load: "context"` and the rest is not read yet. */
	private resumed: PartialResume | undefined;
	/** The version the store holds; below 3 until the first write migrates it. */
	private version = CURRENT_SESSION_VERSION;
	/** How far this session has read the store; what lies beyond was written by others. */
	private position: StorePosition = "";
	/** The writes of this session, one after another. */
	private readonly writes = new WriteQueue();

	private constructor(store: SessionStore, env: SessionEnvironment & { lenient?: boolean }) {
		this.store = store;
		this.clock = env.now;
		this.now = env.now ?? (() => new Date());
		this.random = env.random ?? cryptoRandomBytes;
		this.lenient = env.lenient ?? false;
	}

	/** Creates the session in the store: just the header. */
	static async create(store: SessionStore, header: SessionHeader, env: SessionEnvironment): Promise<SessionLog> {
		const position = await store.create(header);
		const log = new SessionLog(store, env);
		log.reducer = SessionReducer.fresh(header, { file: store.location });
		log.position = position;
		return log;
	}

	/** Reads a session from the store (see {@link OpenSessionOptions}). */
	static async open(store: SessionStore, options: OpenSessionOptions): Promise<SessionLog> {
		if (!(await store.exists())) {
			throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: store.location });
		}
		const log = new SessionLog(store, options);
		if (options.load === "context" && !options.lenient && !options.verify) {
			log.resumed = await readPartialResume(store);
			if (log.resumed) return log;
		}
		const tree = await log.readStore();
		if (options.verify) {
			tree.getEntries();
		} else {
			// What a resume needs, read now in one pass: the bodies of the leaf's context.
			loadContext(tree.getPath(), loadSteps);
		}
		return log;
	}

	/** The resumed end of the session while only the context was read (`load: "context"`). */
	get partial(): PartialResume | undefined {
		return this.resumed;
	}

	/** The whole session's state; throws NOT_LOADED while only the context was read. */
	get state(): SessionReducer {
		if (this.resumed || !this.reducer) {
			throw new SessionTreeError(
				"NOT_LOADED",
				"opened with load: 'context'; await session.load() before reading beyond the context",
				{ file: this.store.location },
			);
		}
		return this.reducer;
	}

	/** See `Session.problems`. */
	get problems(): readonly LoadProblem[] {
		return this.reducer?.problems ?? [];
	}

	/** The version of the session as it is stored. */
	get storedVersion(): number {
		return this.version;
	}

	/**
	 * Runs `op` after every write called before it (whether that one succeeded or not); at once
	 * when none is pending, so that an `op` that completes at once (an append to a store that
	 * needs no wait, see {@link SessionStore.append}) leaves nothing pending (see {@link WriteQueue}).
	 */
	serialize<T>(op: () => Awaitable<T>): Promise<T> {
		return this.writes.run(op);
	}

	/** True once the whole session is read (not only the context of a resume). */
	get loaded(): boolean {
		return this.resumed === undefined;
	}

	/** Resolves when every write called so far has finished. */
	settled(): Promise<void> {
		return this.writes.settled();
	}

	/** Reads the rest of a session resumed from its end, keeping the leaf it resumed. */
	async ensureLoaded(): Promise<void> {
		const partial = this.resumed;
		if (!partial) return;
		const tree = await this.readStore();
		this.resumed = undefined;
		// Another writer may have appended meanwhile: the leaf stays the one this session resumed.
		if (tree.has(partial.leafId)) tree.setLeaf(partial.leafId);
	}

	/**
	 * Takes in what other writers appended since this session last read or wrote (serialize
	 * it); with `followStream`, the leaf becomes the one the store now names (a fresh open's).
	 */
	async refreshNow(followStream = false): Promise<void> {
		if (this.resumed) return;
		const read = await this.store.readSince(this.position);
		if (!read) {
			// Replaced: read whole again; a fresh read's leaf is the stream's already.
			if (followStream) await this.readStore(true);
			else await this.reload();
			return;
		}
		this.absorb(read);
		if (!followStream) return;
		// Others' records never throw (see absorb): a leaf record naming a missing entry is recorded.
		this.state.tree.setLeaf(this.state.streamLeaf("lenient").leafId);
	}

	/** The current time, for entries. */
	stamp(): string {
		if (this.clock) return this.clock().toISOString();
		// One ISO string per millisecond: appends in a burst share it instead of each making a Date and formatting it.
		const ms = Date.now();
		if (ms !== this.lastStamp.ms) this.lastStamp = { ms, text: new Date(ms).toISOString() };
		return this.lastStamp.text;
	}

	/**
	 * Compare-and-append (call it serialized): builds the entry (a fresh id, the leaf as
	 * parent), appends it at this session's position; if others appended meanwhile, applies
	 * what they wrote and tries again with a fresh id. Then the entry is applied to the state
	 * and becomes the leaf.
	 *
	 * Returns the entry's id itself when the store appended at once (see
	 * {@link SessionStore.append}), else a promise of it: an append to a loaded, current session
	 * of such a store makes no promise and waits for no turn, which matters when an agent
	 * awaits a thousand appends in a row (docs/performance.md).
	 */
	appendNow(build: (stamp: make.EntryStamp) => SessionRecord): Awaitable<string> {
		if (this.needsPreparation()) return this.prepareWrite().then(() => this.appendAttempt(build, 0));
		return this.appendAttempt(build, 0);
	}

	/** One compare-and-append of a freshly built entry; catches up and tries again on a conflict. */
	private appendAttempt(build: (stamp: make.EntryStamp) => SessionRecord, attempt: number): Awaitable<string> {
		const state = this.state;
		const entry = build({ id: this.freshId(), parentId: state.tree.getLeafId(), timestamp: this.stamp() });
		const problem = ownEntryProblem(entry);
		if (problem) {
			// Refused before the write: a record the reader would reject is never stored.
			throw new SessionTreeError("INVALID_ARGUMENT", `cannot append: ${problem} (nothing was written)`, {
				file: this.store.location,
			});
		}
		const outcome = this.store.append([entry], this.position);
		if (isPending(outcome)) return outcome.then((done) => this.afterAttempt(done, entry, build, attempt));
		return this.afterAttempt(outcome, entry, build, attempt);
	}

	/** Applies an entry the store took, or catches up with the writers it lost to and tries again. */
	private afterAttempt(
		outcome: AppendOutcome,
		entry: SessionRecord,
		build: (stamp: make.EntryStamp) => SessionRecord,
		attempt: number,
	): Awaitable<string> {
		if (outcome.status === "ok") {
			this.applyOwn([entry], outcome.position);
			return entry.id;
		}
		// Caught up at once when others only appended: the retry follows without a turn, so two
		// writers of one process alternate entry by entry instead of one overtaking the other.
		const caughtUp = this.catchUp(outcome, attempt);
		const retry = () => (this.holdsOwn([entry]) ? entry.id : this.appendAttempt(build, attempt + 1));
		if (isPending(caughtUp)) return caughtUp.then(retry);
		return retry();
	}

	/** Writes records that already have ids and parents (the copies of a fork; call it serialized). */
	async appendRecords(records: readonly SessionRecord[]): Promise<void> {
		if (records.length === 0) return;
		if (this.needsPreparation()) await this.prepareWrite();
		for (let attempt = 0; ; attempt++) {
			const outcome = await this.store.append(records, this.position);
			if (outcome.status === "ok") {
				this.applyOwn(records, outcome.position);
				return;
			}
			await this.catchUp(outcome, attempt);
			if (this.holdsOwn(records)) return;
		}
	}

	/**
	 * After catching up: true when what others wrote holds `records` themselves, each id with
	 * the same content, so that this write is done and is not made again (a store that lost the
	 * answer to an earlier try and sent it again finds it stored: issue 29). The leaf then moves
	 * as if the write had been answered. A record whose id is there with other content is not
	 * ours: false, and the write is made again (with a fresh id, for an entry built here).
	 */
	private holdsOwn(records: readonly SessionRecord[]): boolean {
		const state = this.state;
		for (const record of records) {
			const stored =
				record.type === "leaf"
					? state.leafRecords.has(record.id) && state.leafRecords.get(record.id) === record.targetId
					: JSON.stringify(state.tree.getEntry(record.id)) === JSON.stringify(record);
			if (!stored) return false;
		}
		const last = records.at(-1);
		if (last) state.tree.setLeaf(last.type === "leaf" ? last.targetId : last.id);
		return true;
	}

	/**
	 * Compare-and-append of an entry built here followed by a persisted-leaf record naming the
	 * leaf it had (call it serialized): one append of two records, so that the entry is stored
	 * and the leaf stays where it was, for this session and for pi (whose leaf is the last
	 * record, whose parent is that leaf). Catches up and builds again on a conflict, as
	 * {@link appendNow} does. Resolves to the entry's id.
	 */
	async appendKeepingLeaf(build: (stamp: make.EntryStamp) => SessionEntry): Promise<string> {
		if (this.needsPreparation()) await this.prepareWrite();
		for (let attempt = 0; ; attempt++) {
			const leafId = this.state.tree.getLeafId();
			const timestamp = this.stamp();
			const entry = build({ id: this.freshId(), parentId: leafId, timestamp });
			const problem = ownEntryProblem(entry);
			if (problem) {
				throw new SessionTreeError("INVALID_ARGUMENT", `cannot append: ${problem} (nothing was written)`, {
					file: this.store.location,
				});
			}
			const leafRecordId = newEntryId((id) => id === entry.id || this.idTaken(id), this.random);
			const records: SessionRecord[] = [entry, make.leafEntry({ id: leafRecordId, timestamp }, leafId)];
			const outcome = await this.store.append(records, this.position);
			if (outcome.status === "ok") {
				this.applyOwn(records, outcome.position);
				return entry.id;
			}
			await this.catchUp(outcome, attempt);
			if (this.holdsOwn(records)) return entry.id;
		}
	}

	/**
	 * Appends a persisted-leaf record moving the leaf, nothing when it is there already (call
	 * it serialized, on a loaded session). Done, or its promise resolved, once the record is stored.
	 */
	moveLeaf(targetId: string | null): Awaitable<void> {
		if (this.state.tree.getLeafId() === targetId) return;
		const appended = this.appendNow((stamp) => make.leafEntry(stamp, targetId));
		if (isPending(appended)) return appended.then(() => undefined);
	}

	/**
	 * Rewrites a v1/v2 session in the current format (call it serialized).
	 * @returns the backup's location, or undefined when the session was already current
	 */
	async migrateNow(): Promise<string | undefined> {
		await this.ensureLoaded();
		if (this.version >= CURRENT_SESSION_VERSION) return undefined;
		if (this.problems.length > 0) {
			throw new SessionTreeError(
				"NOT_WRITABLE",
				"the file has problems (opened leniently); repair it before it is rewritten",
				{ file: this.store.location },
			);
		}
		return this.rewrite();
	}

	/**
	 * Replaces the stored session with the tree as loaded (current format, every parent
	 * present, the leaf kept), atomically, keeping the original as a backup; then reads the
	 * session again from what was written. Used by migrate and repair.
	 */
	async rewrite(omit?: (tree: SessionTree) => ReadonlySet<string>): Promise<string> {
		// Loaded when first needed: reading a session never does.
		const { rewriteRecords } = await import("./core/copy.js");
		for (let attempt = 0; ; attempt++) {
			const tree = this.state.tree;
			const records = rewriteRecords(tree, (taken) => newEntryId(taken, this.random), this.stamp(), omit?.(tree));
			const outcome = await this.store.replace(records, this.position);
			if (outcome.status === "ok") {
				await this.reload();
				return outcome.backup;
			}
			await this.catchUp(outcome, attempt);
			// What others wrote meanwhile is recorded, not thrown (see reload): a strict session
			// (migrate) must not drop their damage in its rewrite; that is for repair to do.
			if (!this.lenient && this.problems.length > 0) {
				throw new SessionTreeError(
					"NOT_WRITABLE",
					"another writer left damage in the file while it was being rewritten; nothing was written: repair it",
					{ file: this.store.location },
				);
			}
		}
	}

	/** An entry id neither the tree nor a persisted-leaf record uses. */
	private freshId(): string {
		return newEntryId(this.idTaken, this.random);
	}

	/** True for an id the tree or a persisted-leaf record uses (one function for every fresh id). */
	private readonly idTaken = (id: string): boolean => {
		const state = this.state;
		return state.tree.has(id) || state.leafRecords.has(id);
	};

	/** Before a write: the whole tree is read, and an older format is rewritten first. */
	private async prepareWrite(): Promise<void> {
		await this.ensureLoaded();
		await this.migrateNow();
	}

	/** False when a write can go ahead at once: the whole tree is read and the format is current. */
	private needsPreparation(): boolean {
		return this.resumed !== undefined || this.version < CURRENT_SESSION_VERSION;
	}

	/**
	 * Reads the whole store into a new state: the session's view of the store starts over.
	 * `tolerant` after a replace by another writer (see {@link reload}).
	 */
	private async readStore(tolerant = false): Promise<SessionTree> {
		const read = await this.store.read();
		const file = this.store.location;
		const result = loadTree(read.lines, { lenient: this.lenient, tolerant, file, source: read.source });
		this.reducer = result.reducer;
		this.version = result.fromVersion;
		this.position = read.position;
		return result.tree;
	}

	/** Applies records this session stored: the last one decides the leaf (an entry, or a leaf record's target). */
	private applyOwn(records: readonly SessionRecord[], position: StorePosition): void {
		this.state.applyOwn(records);
		this.position = position;
	}

	/**
	 * After a write that did not happen: takes in what others wrote, at once, or (the store
	 * was replaced) reads the whole store again.
	 */
	private catchUp(outcome: Exclude<WriteOutcome<object>, { status: "ok" }>, attempt: number): Awaitable<void> {
		if (attempt + 1 >= MAX_WRITE_ATTEMPTS) {
			throw new SessionTreeError(
				"WRITE_CONFLICT",
				`other writers kept appending: gave up after ${MAX_WRITE_ATTEMPTS} attempts`,
				{ file: this.store.location },
			);
		}
		if (outcome.status === "behind") this.absorb(outcome.read);
		else return this.reload();
	}

	/** Applies what other writers appended; this session's leaf stays. */
	private absorb(read: StoreRead): void {
		this.state.applyOthers(read.lines);
		this.position = read.position;
	}

	/**
	 * The store was replaced (migrated or repaired): read it again, keeping our leaf if it still
	 * exists. What others appended after the replace is read as a catch-up reads it: its damage
	 * is recorded in `problems`, never thrown, even by a strict session (only a header that is
	 * not a session's is refused); else a strict writer could not append again until someone
	 * repaired the file once more.
	 */
	private async reload(): Promise<void> {
		const leafId = this.reducer?.tree.getLeafId() ?? null;
		const tree = await this.readStore(true);
		if (leafId === null || tree.has(leafId)) tree.setLeaf(leafId);
	}
}

/**
 * Why an entry a caller had this session build cannot be stored, by the reader's own checks
 * (a message without a role, a label without a target, …), or undefined.
 */
function ownEntryProblem(entry: SessionRecord): string | undefined {
	if (!isRawRecord(entry)) return "the entry is not an object";
	return entryShapeError(entry) ?? entryContentError(entry);
}

/**
 * Tries to resume from part of the store: the records on the active path (a database reads
 * them by index), else the last records of the stream. It asks for 1,000, 4,000 and 16,000
 * records (the store gives fewer, or declines, when more is not worth reading: a small file,
 * more than an eighth of a large one), until the walk from the leaf meets a compaction with
 * `retainedTail` and `retainedState`, or the root.
 */
async function readPartialResume(store: SessionStore): Promise<PartialResume | undefined> {
	const read = store.capabilities.pathReads
		? store.readPath?.bind(store)
		: store.capabilities.tailReads
			? store.readTail?.bind(store)
			: undefined;
	if (!read) return undefined;
	for (const count of [1000, 4000, 16000]) {
		const part = await read(count);
		if (!part || part.whole) return undefined;
		// A header a full open would reject is left to the full open, which reports it.
		if (!isHeaderRecord(part.header)) return undefined;
		const found = resumeFromTail(part.records);
		if (found.kind === "found") return { header: part.header, leafId: found.leafId, path: found.path };
		// Fewer records than asked for: the store gave all it finds worth reading.
		if (found.kind === "no" || part.records.length < count) return undefined;
	}
	return undefined;
}
