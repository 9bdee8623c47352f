/**
 * The public facade: a session tree backed by a store. Method names follow pi's
 * `SessionManager` where both have them, so pi users feel at home.
 */

import { resolve } from "node:path";
import {
	type ContextEntry,
	contextEntriesOf,
	keptMessages,
	type LoadSteps,
	loadContext,
	type PathStep,
	pathState,
	sessionContextOf,
	stepsOf,
} from "./core/context.js";
import * as make from "./core/entries.js";
import { SessionTreeError } from "./core/errors.js";
import { resolveIdPrefix } from "./core/id-prefix.js";
import { cryptoRandomBytes, newEntryId, newSessionId, type RandomBytes } from "./core/ids.js";
import { isUnreadable } from "./core/lazy.js";
import { applyAppended, type LoadProblem, loadTree } from "./core/load.js";
import { resumeFromTail } from "./core/tail.js";
import { SessionTree, TreeNode } from "./core/tree.js";
import {
	type AgentMessage,
	type CompactionEntry,
	type ContextMessage,
	CURRENT_SESSION_VERSION,
	type CustomMessageEntry,
	type MessageEntry,
	type RetainedState,
	type SessionContext,
	type SessionEntry,
	type SessionHeader,
	type SessionTreeNode,
} from "./core/types.js";
import { FileSessionStore } from "./storage/file-store.js";
import { MemorySessionStore } from "./storage/memory-store.js";
import { defaultAgentDir, defaultSessionDir, sessionFileName } from "./storage/paths.js";
import type { Durability, SessionStore, StoreCursor } from "./storage/store.js";

/** Clock and randomness, replaceable for reproducible sessions (the demo, tests). */
export interface SessionEnvironment {
	/** Current time. Default `() => new Date()`. */
	now?: () => Date;
	/** Random bytes for ids. Default: Web Crypto. */
	random?: RandomBytes;
}

/** Options of {@link Session.create}. */
export interface CreateSessionOptions extends SessionEnvironment {
	/** The agent's working directory, stored in the header. Default `process.cwd()`. */
	cwd?: string;
	/** The exact file to create. Default: `<dir>/<timestamp>_<id>.jsonl`. */
	file?: string;
	/** Directory for the new file. Default: pi's layout, `<agentDir>/sessions/--<cwd>--/`. */
	dir?: string;
	/** pi's agent directory. Default `$PI_CODING_AGENT_DIR` or `~/.pi/agent`. */
	agentDir?: string;
	/** Session id. Default: a fresh UUID v7. */
	id?: string;
	/** Path of the session this one derives from. */
	parentSession?: string;
	/** How durable an acknowledged append is; default "none" (pi's behaviour). See docs/durability.md. */
	durability?: Durability;
}

/** Options of {@link Session.open}. */
export interface OpenSessionOptions extends SessionEnvironment {
	/**
	 * Load what can be loaded and report problems in {@link Session.problems} instead of
	 * throwing. Gaps (missing parents) are bridged to the previous entry in the file.
	 */
	lenient?: boolean;
	/** How durable an acknowledged append is; default "none" (pi's behaviour). See docs/durability.md. */
	durability?: Durability;
	/**
	 * Parse every line now. By default, the bulk of a large file (messages, summaries,
	 * compactions and settings changes in pi's layout; not labels, names or custom entries) is
	 * indexed by envelope at open, and each body is parsed, and checked, on first use; the
	 * active context is read at open. With `verify`, a bad body is found at open (strict:
	 * thrown; lenient: in {@link Session.problems}) instead of when first read.
	 */
	verify?: boolean;
}

/** Options of {@link Session.fork}. */
export interface ForkOptions {
	/** The exact file to create. */
	file?: string;
	/** Directory for the new file. Default: the source file's directory. */
	dir?: string;
}

/** What {@link Session.navigate} did. */
export interface NavigateResult {
	/** The leaf after navigating. */
	leafId: string | null;
	/** For a user or custom message: its text, to edit and send again. */
	editorText?: string;
	/** Id of the branch summary entry, when a summary was given. */
	summaryEntryId?: string;
}

/** Options of {@link Session.navigate}. */
export interface NavigateOptions {
	/** Leave a branch summary at the new position explaining what was left behind. */
	summary?: string;
	details?: unknown;
	fromHook?: boolean;
}

/**
 * A conversation tree in one append-only session file (or in memory).
 *
 * Every `append*` writes exactly one line at the end of the file and returns the new entry's
 * id; the new entry becomes the leaf. `branch` moves the leaf and persists it with a `leaf`
 * record (see docs/format.md), so a reopened session resumes where it was left.
 */
export class Session {
	private loadedTree: SessionTree | undefined;
	/**
	 * Set while the session was resumed from the end of its file (see `core/tail.ts`) and the
	 * rest is not read yet: the leaf, and the path from a compaction with `retainedTail` and
	 * `retainedState` to it. Anything beyond the leaf's context loads the whole file first.
	 */
	private tail: { header: SessionHeader; leafId: string; path: SessionEntry[] } | undefined;
	private readonly store: SessionStore;
	private readonly now: () => Date;
	private readonly random: RandomBytes;
	/** Persisted-leaf records (id → target): not entries, but their ids are not to be reused. */
	private leafRecords = new Map<string, string | null>();
	/** The version the file has on disk; below 3 until the first write migrates it. */
	private diskVersion: number;
	private loadProblems: LoadProblem[] = [];
	/** How far this session has read the store; what lies beyond was written by others. */
	private cursor: StoreCursor;
	private readonly lenient: boolean;
	/** Releases the write lock this session holds until the current task ends. */
	private lease: (() => void) | undefined;
	/** The store's write generation after this session's last write or catch-up. */
	private seenWrites = -1;

	private constructor(
		store: SessionStore,
		tree: SessionTree | undefined,
		env: SessionEnvironment & { lenient?: boolean },
		diskVersion: number,
		cursor: StoreCursor,
	) {
		this.store = store;
		this.loadedTree = tree;
		this.now = env.now ?? (() => new Date());
		this.random = env.random ?? cryptoRandomBytes;
		this.diskVersion = diskVersion;
		this.cursor = cursor;
		this.lenient = env.lenient ?? false;
	}

	/** The tree; a session resumed from the end of its file reads the whole file now. */
	private get tree(): SessionTree {
		return this.loadedTree ?? this.loadWhole();
	}

	/** Reads the whole store into a new tree: the session's view of the file starts over. */
	private readStore(): SessionTree {
		const read = this.store.readAll();
		const result = loadTree(read.lines, { lenient: this.lenient, file: this.store.location, source: read.source });
		this.loadedTree = result.tree;
		this.leafRecords = result.leafRecords;
		this.loadProblems = result.problems;
		this.diskVersion = result.fromVersion;
		this.cursor = read.cursor;
		return result.tree;
	}

	/** Ends a resume from the tail: the whole file, with the leaf this session resumed. */
	private loadWhole(): SessionTree {
		const leafId = this.tail?.leafId;
		const tree = this.readStore();
		this.tail = undefined;
		// Another writer may have appended meanwhile: the leaf stays the one this session resumed.
		if (leafId !== undefined && tree.has(leafId)) tree.setLeaf(leafId);
		return tree;
	}

	/** Creates a new session file (and its directory) holding just the header. */
	static create(options: CreateSessionOptions = {}): Session {
		const header = newHeader(options);
		const dir = options.dir ?? defaultSessionDir(header.cwd, options.agentDir ?? defaultAgentDir());
		const file = resolve(options.file ?? resolve(dir, sessionFileName(header.timestamp, header.id)));
		return Session.start(new FileSessionStore(file, { durability: options.durability }), header, options);
	}

	/** Creates a session that lives in memory only (same behaviour, no file). */
	static inMemory(options: Omit<CreateSessionOptions, "file" | "dir" | "agentDir" | "durability"> = {}): Session {
		return Session.createIn(new MemorySessionStore(), options);
	}

	/** Creates a new session in any store. */
	static createIn(store: SessionStore, options: Omit<CreateSessionOptions, "file" | "dir" | "agentDir"> = {}): Session {
		return Session.start(store, newHeader(options), options);
	}

	private static start(store: SessionStore, header: SessionHeader, env: SessionEnvironment): Session {
		const cursor = store.create(header);
		return new Session(store, SessionTree.empty(header), env, CURRENT_SESSION_VERSION, cursor);
	}

	/**
	 * Opens a session file. Reading never writes: v1/v2 files are migrated in memory and
	 * rewritten (atomically, with a backup) only on the first write or by {@link migrate}.
	 * @throws SessionTreeError naming the file and line of the first problem (unless lenient)
	 */
	static open(file: string, options: OpenSessionOptions = {}): Session {
		return Session.openStore(new FileSessionStore(resolve(file), { durability: options.durability }), options);
	}

	/** Opens a session from any store. */
	static openStore(store: SessionStore, options: OpenSessionOptions = {}): Session {
		if (!store.exists()) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: store.location });
		const session = new Session(store, undefined, options, CURRENT_SESSION_VERSION, UNREAD);
		const tail = options.lenient || options.verify ? undefined : readTailResume(store);
		if (tail) {
			session.tail = tail;
			return session;
		}
		const tree = session.readStore();
		if (options.verify) {
			tree.getEntries();
		} else {
			// What a resume needs, read now in one pass: the bodies of the leaf's context.
			loadContext(tree.getPath(), loadSteps);
		}
		return session;
	}

	// ---- where it lives -------------------------------------------------------------------

	/** The session file, or undefined for an in-memory session. */
	get file(): string | undefined {
		return this.store.file;
	}

	/**
	 * Problems found when the session was read: everything a lenient open worked around, and
	 * for any open an incomplete last line (an append that never finished, left out).
	 */
	get problems(): readonly LoadProblem[] {
		return this.loadProblems;
	}

	/** The version of the file as it is on disk (below 3 until it is migrated). */
	get fileVersion(): number {
		return this.diskVersion;
	}

	/** Makes every acknowledged append durable now (for the "group" durability mode). */
	flush(): void {
		this.store.flush();
	}

	/**
	 * Flushes, releases the write lock and the file handle. The session can still be read, and
	 * written (it reopens).
	 */
	close(): void {
		this.endLease();
		this.store.close();
	}

	// ---- reading --------------------------------------------------------------------------

	getHeader(): SessionHeader {
		return this.tail ? this.tail.header : this.tree.header;
	}

	getSessionId(): string {
		return this.getHeader().id;
	}

	getCwd(): string {
		return this.getHeader().cwd;
	}

	getLeafId(): string | null {
		return this.tail ? this.tail.leafId : this.tree.getLeafId();
	}

	getLeafEntry(): SessionEntry | undefined {
		return this.tree.getLeafEntry();
	}

	getEntry(id: string): SessionEntry | undefined {
		return this.tree.getEntry(id);
	}

	/**
	 * The full id for an id or a unique prefix of one, as git accepts abbreviated hashes.
	 * @throws SessionTreeError ENTRY_NOT_FOUND or AMBIGUOUS_ID (listing the candidates)
	 */
	resolveId(idOrPrefix: string): string {
		try {
			return resolveIdPrefix(this.tree, idOrPrefix);
		} catch (error) {
			if (error instanceof SessionTreeError) {
				throw new SessionTreeError(error.code, error.message, { file: this.store.location });
			}
			throw error;
		}
	}

	/** Direct children of an entry in file order, in O(children). */
	getChildren(id: string): SessionEntry[] {
		return this.tree.getChildren(id);
	}

	/** All entries in file order (persisted-leaf records excluded). */
	getEntries(): SessionEntry[] {
		return this.tree.getEntries();
	}

	/** Number of entries. */
	get entryCount(): number {
		return this.tree.size;
	}

	getLabel(id: string): string | undefined {
		return this.tree.getLabel(id);
	}

	getSessionName(): string | undefined {
		return this.tree.getSessionName();
	}

	/** Entries from the root to `fromId` (default: the leaf), linear in the depth. */
	getBranch(fromId?: string): SessionEntry[] {
		return this.tree.getBranch(fromId);
	}

	/** The whole tree: roots in file order, children oldest first, labels attached. */
	getTree(): SessionTreeNode[] {
		return this.tree.getTree();
	}

	/** The tree in display order as flat rows with depths (see {@link SessionTree.flatten}). */
	flattenTree(rootId?: string): ReturnType<SessionTree["flatten"]> {
		return this.tree.flatten(rootId);
	}

	/** Ids of every entry without children: the tips of all branches, sorted. */
	listBranches(): string[] {
		return this.tree.listBranches();
	}

	/** The context messages with the entries they come from, for the leaf (or `leafId`). */
	buildContextEntries(leafId?: string | null): ContextEntry[] {
		return contextEntriesOf(this.contextPath(leafId), loadSteps);
	}

	/**
	 * What the model sees at the leaf (or at `leafId`), exactly as pi computes it. Parses only
	 * the entries that give the context.
	 */
	buildSessionContext(leafId?: string | null): SessionContext {
		return sessionContextOf(this.contextPath(leafId), loadSteps);
	}

	/** The path whose context is asked for: from the resumed tail when it covers it. */
	private contextPath(leafId: string | null | undefined): readonly PathStep[] {
		if (this.tail && (leafId === undefined || leafId === this.tail.leafId)) return stepsOf(this.tail.path);
		return this.tree.getPath(leafId);
	}

	/** The underlying tree (read it; write through the session). */
	getTreeIndex(): SessionTree {
		return this.tree;
	}

	// ---- writing --------------------------------------------------------------------------

	/** Appends an agent message as a child of the leaf. */
	appendMessage(message: AgentMessage): string {
		return this.append((stamp) => make.messageEntry(stamp, message));
	}

	appendModelChange(provider: string, modelId: string): string {
		return this.append((stamp) => make.modelChangeEntry(stamp, provider, modelId));
	}

	appendThinkingLevelChange(thinkingLevel: string): string {
		return this.append((stamp) => make.thinkingLevelChangeEntry(stamp, thinkingLevel));
	}

	/**
	 * Appends a compaction: from now on the model sees `summary`, then the path from
	 * `firstKeptEntryId`, then what follows.
	 * @param retainedTail the kept messages to store in the entry, or `true` to compute them
	 *   from the path (then pi, which ignores the field, builds the same context). With either,
	 *   the path's thinking level and model are stored too (`retainedState`), so that a later
	 *   resume reads only what follows the compaction.
	 */
	appendCompaction(
		summary: string,
		firstKeptEntryId: string,
		tokensBefore: number,
		details?: unknown,
		fromHook?: boolean,
		retainedTail?: ContextMessage[] | true,
	): string {
		let tail: ContextMessage[] | undefined;
		let state: RetainedState | undefined;
		if (retainedTail !== undefined) {
			const path = this.tree.getPath();
			tail = retainedTail === true ? keptMessages(path, firstKeptEntryId, loadSteps) : retainedTail;
			// With the settings of the path stored too, a resume reads nothing before the compaction.
			const { thinkingLevel, model } = pathState(path);
			state = { thinkingLevel, model };
		}
		return this.append((stamp) =>
			make.compactionEntry(stamp, summary, firstKeptEntryId, tokensBefore, details, fromHook, tail, state),
		);
	}

	/** Appends extension state (never in the context). */
	appendCustomEntry(customType: string, data?: unknown): string {
		return this.append((stamp) => make.customEntry(stamp, customType, data));
	}

	/** Appends an extension message that the model sees as a `custom` message. */
	appendCustomMessageEntry(
		customType: string,
		content: CustomMessageEntry["content"],
		display: boolean,
		details?: unknown,
	): string {
		return this.append((stamp) => make.customMessageEntry(stamp, customType, content, display, details));
	}

	/** Names the session (trimmed; an empty name clears it). */
	appendSessionInfo(name: string): string {
		return this.append((stamp) => make.sessionInfoEntry(stamp, name.trim()));
	}

	/** Sets, or with `undefined`/`""` clears, the label of an entry. */
	appendLabelChange(targetId: string, label?: string): string {
		this.requireEntry(targetId);
		return this.append((stamp) => make.labelEntry(stamp, targetId, label));
	}

	/**
	 * Moves the leaf to an earlier entry; the next append starts a new branch there. Nothing is
	 * rewritten: one `leaf` record is appended so that the move survives a restart.
	 */
	branch(entryId: string): void {
		this.requireEntry(entryId);
		this.moveLeaf(entryId);
	}

	/** Moves the leaf before the first entry: the next append starts a new root. */
	resetLeaf(): void {
		this.moveLeaf(null);
	}

	/**
	 * Moves the leaf to `entryId` (or before the first entry, for `null`) and appends a
	 * `branch_summary` there that tells the model what was left behind.
	 */
	branchWithSummary(entryId: string | null, summary: string, details?: unknown, fromHook?: boolean): string {
		if (entryId !== null) this.requireEntry(entryId);
		this.tree.setLeaf(entryId);
		return this.append((stamp) => make.branchSummaryEntry(stamp, entryId ?? "root", summary, details, fromHook));
	}

	/**
	 * pi's tree navigation: selecting a user or custom message moves the leaf to its parent
	 * (the root one resets the leaf) and returns its text to edit; any other entry becomes the
	 * leaf. With `summary`, a branch summary is left at the new position instead. Navigating to
	 * the current leaf changes nothing.
	 */
	navigate(targetId: string, options: NavigateOptions = {}): NavigateResult {
		const target = this.requireEntry(targetId);
		// As pi: navigating to the entry that already is the leaf changes nothing.
		if (targetId === this.tree.getLeafId()) return { leafId: targetId };
		let leafId: string | null = targetId;
		let editorText: string | undefined;
		if (target.type === "message" && (target as MessageEntry).message?.role === "user") {
			leafId = this.tree.getParentId(targetId) ?? null;
			editorText = textOf((target as MessageEntry).message.content);
		} else if (target.type === "custom_message") {
			leafId = this.tree.getParentId(targetId) ?? null;
			editorText = textOf((target as CustomMessageEntry).content);
		}
		const result: NavigateResult = { leafId };
		if (editorText !== undefined) result.editorText = editorText;
		if (options.summary) {
			result.summaryEntryId = this.branchWithSummary(leafId, options.summary, options.details, options.fromHook);
			result.leafId = result.summaryEntryId;
		} else if (leafId === null) {
			this.resetLeaf();
		} else {
			this.branch(leafId);
		}
		return result;
	}

	/**
	 * Copies the path from the root to `entryId` (default: the leaf) into a new session file
	 * whose header names this one as `parentSession`. Labels in effect on that path come along.
	 * Label entries on the path are not copied as such: they are re-created after the path, and
	 * the entries around them are re-chained so that no parent goes missing.
	 */
	fork(entryId?: string, options: ForkOptions = {}): Session {
		const from = entryId ?? this.tree.getLeafId();
		if (from === null)
			throw new SessionTreeError("INVALID_ARGUMENT", "nothing to fork: the leaf is before the first entry");
		const path = this.tree.getBranch(from);
		const cwd = this.getCwd();
		const createOptions = { cwd, now: this.now, random: this.random };
		let target: Session;
		if (this.store.file) {
			const dir = options.dir ?? resolve(this.store.file, "..");
			target = Session.create({ ...createOptions, parentSession: this.store.file, file: options.file, dir });
		} else {
			target = Session.createIn(new MemorySessionStore(), { ...createOptions, parentSession: this.store.location });
		}
		const copies = copyPathWithoutLabels(path);
		target.appendEntries(copies);
		const onPath = new Set(copies.map((entry) => entry.id));
		for (const [targetId, state] of this.tree.getLabels()) {
			if (!onPath.has(targetId)) continue;
			const stamp = { id: target.freshId(), parentId: target.getLeafId(), timestamp: state.timestamp };
			target.appendEntries([make.labelEntry(stamp, targetId, state.label)]);
		}
		// Forking at a label entry forks at the nearest entry above it that was copied.
		const leafId = copies.length > 0 ? (copies[copies.length - 1] as SessionEntry).id : null;
		if (target.getLeafId() !== leafId) {
			if (leafId === null) target.resetLeaf();
			else target.branch(leafId);
		}
		return target;
	}

	/** Forks at the leaf: a new file holding the active path. */
	clone(options: ForkOptions = {}): Session {
		return this.fork(undefined, options);
	}

	/**
	 * Rewrites a v1/v2 file in the current format, atomically, keeping the original next to it.
	 * @returns the backup's location, or undefined when the file was already current
	 */
	migrate(): string | undefined {
		return this.transact(() => this.migrateLocked());
	}

	private migrateLocked(): string | undefined {
		if (this.diskVersion >= CURRENT_SESSION_VERSION) return undefined;
		if (this.loadProblems.length > 0) {
			throw new SessionTreeError(
				"NOT_WRITABLE",
				"the file has problems (opened leniently); repair it before it is rewritten",
				{ file: this.store.location },
			);
		}
		const { backup } = this.rewriteLocked();
		this.diskVersion = CURRENT_SESSION_VERSION;
		return backup;
	}

	/**
	 * Rewrites the file from the tree as loaded (current format, every parent present, the leaf
	 * kept), atomically, keeping the original as a backup. Used by migrate and repair.
	 */
	private rewriteLocked(): { backup: string } {
		const all = this.tree.getEntries();
		// Entries whose body could not be read (lenient) are left out; their children move up.
		const kept = (id: string | null): string | null => {
			let at = id;
			while (at !== null && isUnreadable(this.tree.getEntry(at) as SessionEntry))
				at = this.tree.getParentId(at) ?? null;
			return at;
		};
		const leafId = kept(this.tree.getLeafId());
		const entries = all
			.filter((entry) => !isUnreadable(entry))
			.map((entry) => {
				const parentId = kept(this.tree.getParentId(entry.id) ?? null);
				return entry.parentId === parentId ? entry : { ...entry, parentId };
			});
		const records: object[] = [this.tree.header, ...entries];
		const lastId = entries.length > 0 ? (entries[entries.length - 1] as SessionEntry).id : null;
		this.leafRecords = new Map();
		if (leafId !== lastId) {
			const id = this.freshId();
			records.push(make.leafEntry({ id, timestamp: this.stamp() }, leafId));
			this.leafRecords.set(id, leafId);
		}
		const { backup, cursor } = this.store.replace(records);
		this.cursor = cursor;
		return { backup };
	}

	/**
	 * Writes a clean copy of a session opened leniently: entries skipped as unreadable stay out,
	 * gaps stay bridged (parents rewritten), duplicates keep their new ids, the header is
	 * current. Atomic; the original is kept as a backup next to the file.
	 * @returns the backup's location, or undefined when there was nothing to repair
	 */
	repair(): string | undefined {
		return this.transact(() => {
			// Read every body first: a lenient session learns of damaged ones only when it reads them.
			this.tree.getEntries();
			if (this.loadProblems.length === 0 && this.diskVersion >= CURRENT_SESSION_VERSION) return undefined;
			const { backup } = this.rewriteLocked();
			// The file no longer holds what could not be read: take the tree from it again.
			this.reload();
			return backup;
		});
	}

	// ---- internals ------------------------------------------------------------------------

	private stamp(): string {
		return this.now().toISOString();
	}

	private freshId(): string {
		return newEntryId((id) => this.tree.has(id) || this.leafRecords.has(id), this.random);
	}

	private requireEntry(id: string): SessionEntry {
		const entry = this.tree.getEntry(id);
		if (!entry) throw new SessionTreeError("ENTRY_NOT_FOUND", `no entry with id ${id}`, { file: this.store.location });
		return entry;
	}

	/**
	 * Runs a write under the store's lock. Taking the lock reads first what other writers
	 * appended since this session last read (so ids stay unique and parents present; the leaf
	 * stays this session's). The lock is then kept as a lease until the current task ends (or
	 * {@link close}), so a burst of appends pays for one lock, and other processes wait at most
	 * for the end of the burst.
	 */
	private transact<T>(write: () => T): T {
		if (!this.loadedTree) this.loadWhole();
		if (!this.lease) {
			const release = this.store.lock();
			try {
				this.catchUp();
			} catch (error) {
				release();
				throw error;
			}
			this.lease = release;
			setTimeout(() => this.endLease(), 0).unref();
		} else if (this.store.writeGeneration() !== this.seenWrites) {
			// Another session of this process wrote while we held the lease.
			this.catchUp();
		}
		try {
			return write();
		} finally {
			this.seenWrites = this.store.writeGeneration();
		}
	}

	private endLease(): void {
		const release = this.lease;
		this.lease = undefined;
		release?.();
	}

	private catchUp(): void {
		const read = this.store.readSince(this.cursor);
		if (!read) {
			this.reload();
			return;
		}
		if (read.lines.length > 0) {
			this.loadProblems.push(...applyAppended(this.tree, read.lines, this.leafRecords, this.store.location));
		}
		this.cursor = read.cursor;
	}

	/** The store was replaced (migrated or repaired elsewhere): load it again, keeping our leaf if it still exists. */
	private reload(): void {
		const leafId = this.tree.getLeafId();
		const tree = this.readStore();
		if (leafId === null || tree.has(leafId)) tree.setLeaf(leafId);
	}

	/** Builds an entry as a child of the leaf, writes its line, then indexes it. */
	private append(build: (stamp: make.EntryStamp) => SessionEntry): string {
		return this.transact(() => {
			this.migrateLocked();
			const entry = build({ id: this.freshId(), parentId: this.tree.getLeafId(), timestamp: this.stamp() });
			this.cursor = this.store.append([entry]);
			this.tree.insert(entry);
			return entry.id;
		});
	}

	/** Writes entries that already have ids and parents (fork copies). */
	private appendEntries(entries: readonly SessionEntry[]): void {
		if (entries.length === 0) return;
		this.transact(() => {
			this.migrateLocked();
			this.cursor = this.store.append(entries);
			for (const entry of entries) this.tree.insert(entry);
		});
	}

	private moveLeaf(targetId: string | null): void {
		if (this.tree.getLeafId() === targetId) return;
		this.transact(() => {
			this.migrateLocked();
			const id = this.freshId();
			this.cursor = this.store.append([make.leafEntry({ id, timestamp: this.stamp() }, targetId)]);
			this.leafRecords.set(id, targetId);
			this.tree.setLeaf(targetId);
		});
	}
}

/** The cursor of a session whose store is not read yet: replaced by the read, which comes before any write. */
const UNREAD: StoreCursor = { lines: 0, offset: 0, identity: "" };

/**
 * Tries to resume from the end of the store: windows of 1, 4 and 16 MiB from the end (the store
 * declines windows over an eighth of the file: a small file is simply read whole), until the active path meets a compaction with `retainedTail` and
 * `retainedState`.
 */
function readTailResume(
	store: SessionStore,
): { header: SessionHeader; leafId: string; path: SessionEntry[] } | undefined {
	if (!store.readTail) return undefined;
	for (const window of [1, 4, 16].map((mib) => mib * 1024 * 1024)) {
		const read = store.readTail(window);
		if (!read || read.whole) return undefined;
		const found = resumeFromTail(read.records);
		if (found.kind === "found") {
			return { header: read.header as unknown as SessionHeader, leafId: found.leafId, path: found.path };
		}
		if (found.kind === "no") return undefined;
	}
	return undefined;
}

/** Tree nodes are path steps: parse their bodies in one pass over the store. */
const loadSteps: LoadSteps = (steps: readonly PathStep[]) => TreeNode.load(steps as readonly TreeNode[]);

function copyPathWithoutLabels(path: readonly SessionEntry[]): SessionEntry[] {
	const copies: SessionEntry[] = [];
	const droppedLabels: string[] = [];
	const replacement = new Map<string, string>();
	let parentId: string | null = null;
	for (const entry of path) {
		if (entry.type === "label") {
			droppedLabels.push(entry.id);
			continue;
		}
		for (const label of droppedLabels.splice(0)) replacement.set(label, entry.id);
		let copy: SessionEntry = entry.parentId === parentId ? entry : { ...entry, parentId };
		if (copy.type === "compaction") {
			const firstKept = replacement.get((copy as CompactionEntry).firstKeptEntryId);
			if (firstKept !== undefined) copy = { ...copy, firstKeptEntryId: firstKept } as CompactionEntry;
		}
		copies.push(copy);
		parentId = entry.id;
	}
	return copies;
}

function newHeader(options: CreateSessionOptions): SessionHeader {
	const timestamp = (options.now ?? (() => new Date()))().toISOString();
	const id = options.id ?? newSessionId(Date.parse(timestamp), options.random);
	return make.sessionHeader(id, timestamp, options.cwd ?? process.cwd(), options.parentSession);
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((block): block is { type: "text"; text: string } => block?.type === "text")
		.map((block) => block.text)
		.join("");
}
