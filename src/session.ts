/**
 * The public facade: a session tree backed by a store. Method names follow pi's
 * `SessionManager` where both have them, so pi users feel at home.
 *
 * Which calls do I/O: opening and creating (`Session.open`, `create`, `openStore`,
 * `createIn`, `inMemory`), every write (`append*`, `branch`, `resetLeaf`, `branchWithSummary`,
 * `navigate`, `fork`, `clone`, `pick`, `migrate`, `repair`), `load`, `refresh`, `flush` and `close`:
 * they return promises. Every other call reads state already in memory and is synchronous;
 * with a store that has lazy bodies (the JSONL file store), reading an entry whose body was
 * not parsed yet reads its line synchronously through the descriptor the open used.
 */

import { type ArchiveState, archiveChangeOf, archiveEntry } from "./core/archive.js";
import {
	type ContextEntry,
	contextEntriesOf,
	keptMessages,
	pathState,
	sessionContextOf,
	stepsOf,
} from "./core/context.js";
import * as make from "./core/entries.js";
import { SessionTreeError } from "./core/errors.js";
import { resolveIdPrefix } from "./core/id-prefix.js";
import { newEntryId, newSessionId } from "./core/ids.js";
import {
	type PickedCopy,
	type PickSkipped,
	parsePickSelection,
	pendingCallsOf,
	pickProblems,
	pickRecords,
	planPick,
} from "./core/pick.js";
import type { LoadProblem } from "./core/reducer.js";
import type {
	EntryLine,
	FlatTreeRow,
	KnownLine,
	ListBranchesOptions,
	ReadonlySessionTree,
	SessionTree,
} from "./core/tree.js";
import type { Envelope } from "./core/tree-node.js";
import {
	type AgentMessage,
	type ContextMessage,
	CURRENT_SESSION_VERSION,
	type CustomMessageEntry,
	type PathStep,
	type RetainedState,
	type SessionContext,
	type SessionEntry,
	type SessionHeader,
	type SessionTreeNode,
} from "./core/types.js";
import { loadSteps, SessionLog } from "./session-log.js";
import type {
	CreateSessionOptions,
	ForkOptions,
	NavigateOptions,
	NavigateResult,
	OpenSessionOptions,
	RefreshOptions,
	SessionEnvironment,
} from "./session-options.js";
import { storeAt } from "./storage/locations.js";
import { MemorySessionStore } from "./storage/memory-store.js";
import { defaultAgentDir, defaultSessionDir } from "./storage/paths.js";
import { discardCreatedSession, sessionStoreFor, targetOf } from "./storage/placement.js";
import type { Awaitable, SessionStore } from "./storage/store.js";

/**
 * A conversation tree in one session store (a JSONL file, memory, or a registered backend).
 *
 * Every `append*` writes one record at the end of the session and resolves to the new entry's
 * id once it is stored; the new entry becomes the leaf. `branch` moves the leaf and persists
 * it with a `leaf` record (see docs/format.md), so a reopened session resumes where it was
 * left. Writes of one session run one after another in the order they were called, so
 * `session.appendMessage(a); session.appendMessage(b)` chains b under a even unawaited.
 * A write shows in the state (`getLeafId`, `getEntry`, …) once it is stored: before the call
 * returns when the store appended at once (the memory store, the file store within a burst of
 * writes), else when its promise resolves. Await a write before reading what it changed.
 * The state and the writes themselves are kept by a {@link SessionLog} (src/session-log.ts).
 */
export class Session {
	private readonly log: SessionLog;

	private constructor(log: SessionLog) {
		this.log = log;
	}

	// ---- opening --------------------------------------------------------------------------

	/**
	 * Creates a new session holding just the header: by default a file under pi's layout
	 * (`~/.pi/agent/sessions/--<cwd>--/`), or in `dir`, at `file`, or at any `location`.
	 */
	static async create(options: CreateSessionOptions = {}): Promise<Session> {
		const header = newHeader(options);
		const target = targetOf(options, () => ({
			dir: defaultSessionDir(header.cwd, options.agentDir ?? defaultAgentDir()),
		}));
		return Session.start(sessionStoreFor(target, header, { durability: options.durability }), header, options);
	}

	/** Creates a session that lives in this process's memory only (same behaviour, no file). */
	static async inMemory(
		options: Omit<CreateSessionOptions, "location" | "file" | "dir" | "agentDir" | "durability"> = {},
	): Promise<Session> {
		return Session.createIn(new MemorySessionStore(), options);
	}

	/** Creates a new session in any store. */
	static async createIn(
		store: SessionStore,
		options: Omit<CreateSessionOptions, "location" | "file" | "dir" | "agentDir"> = {},
	): Promise<Session> {
		return Session.start(store, newHeader(options), options);
	}

	private static async start(store: SessionStore, header: SessionHeader, env: SessionEnvironment): Promise<Session> {
		return new Session(await SessionLog.create(store, header, env));
	}

	/**
	 * Opens a session by location: a path, a `file:` URL, `memory:NAME`, or a location of a
	 * registered store scheme. Reading never writes: v1/v2 files are migrated in memory and
	 * rewritten (atomically, with a backup) only on the first write or by {@link migrate}.
	 * @throws SessionTreeError naming the file and line of the first problem (unless lenient)
	 */
	static async open(location: string, options: OpenSessionOptions = {}): Promise<Session> {
		return Session.openStore(storeAt(location, { durability: options.durability }), options);
	}

	/** Opens a session from any store. */
	static async openStore(store: SessionStore, options: OpenSessionOptions = {}): Promise<Session> {
		return new Session(await SessionLog.open(store, options));
	}

	/**
	 * Reads the whole session if it was opened with `load: "context"`, keeping the leaf it
	 * resumed; afterwards every read works. Does nothing for a session already read whole.
	 */
	async load(): Promise<void> {
		await this.log.ensureLoaded();
	}

	/**
	 * Reads what other writers appended since this session last read or wrote: only that
	 * (the store's `readSince`), not the whole session. By default their leaf moves do not move
	 * this session's leaf; with `{ leaf: "stream" }` the leaf becomes the one the store now
	 * names, as a fresh open would choose it (for a reader that follows the session). A session
	 * replaced meanwhile (migrated or repaired elsewhere) is read again whole.
	 */
	async refresh(options: RefreshOptions = {}): Promise<void> {
		await this.log.serialize(() => this.log.refreshNow(options.leaf === "stream"));
	}

	// ---- where it lives -------------------------------------------------------------------

	/** The session file, or undefined for a session in another kind of store. */
	get file(): string | undefined {
		// Asked of the store contract: any store held in one file says so (no test of its class).
		return this.log.store.file;
	}

	/** Where the session is: a file path, `memory:NAME`, or a URL of a registered store. */
	get location(): string {
		return this.log.store.location;
	}

	/**
	 * Problems found when the session was read: everything a lenient open worked around, what
	 * other writers appended that could not be used, and for any open an incomplete last line
	 * (an append that never finished, left out).
	 */
	get problems(): readonly LoadProblem[] {
		return this.log.problems;
	}

	/** The version of the session as it is stored (below 3 until it is migrated). */
	get fileVersion(): number {
		return this.log.storedVersion;
	}

	/** Makes every acknowledged append durable now (for the "group" durability mode). */
	async flush(): Promise<void> {
		await this.log.settled();
		await this.log.store.flush();
	}

	/**
	 * Waits for pending writes, flushes and releases what the store holds open (the write lock,
	 * file handles). The session can still be read, and written (the store reopens). A body not
	 * parsed yet is read from the path again; if the file was replaced meanwhile (migrated or
	 * repaired elsewhere), that read throws IO_ERROR: `await session.refresh()` reads it anew.
	 */
	async close(): Promise<void> {
		await this.log.settled();
		await this.log.store.close();
	}

	// ---- reading --------------------------------------------------------------------------

	/** The tree; throws NOT_LOADED while only the context was read (`load: "context"`). */
	private get tree(): SessionTree {
		return this.log.state.tree;
	}

	getHeader(): SessionHeader {
		return this.log.partial ? this.log.partial.header : this.tree.header;
	}

	getSessionId(): string {
		return this.getHeader().id;
	}

	getCwd(): string {
		return this.getHeader().cwd;
	}

	getLeafId(): string | null {
		return this.log.partial ? this.log.partial.leafId : this.tree.getLeafId();
	}

	getLeafEntry(): SessionEntry | undefined {
		if (this.log.partial) return this.log.partial.path[this.log.partial.path.length - 1];
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
				throw new SessionTreeError(error.code, error.message, { file: this.log.store.location });
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

	/**
	 * The entries of {@link getBranch}, each read from the store when the iteration reaches it
	 * and not kept: a walk over a long path of a large session holds one body at a time (see
	 * `ReadonlySessionTree.walkBranch`). An unknown id throws ENTRY_NOT_FOUND at once.
	 */
	walkBranch(fromId?: string): Iterable<SessionEntry> {
		return this.tree.walkBranch(fromId);
	}

	/**
	 * The entries of {@link getEntries}, each read when it is reached and not kept (see
	 * {@link walkBranch}); from the `start`th one (0-based, file order) when given, so that a
	 * reader that held the first `start` entries reads only what {@link refresh} added.
	 */
	walkEntries(start = 0): Iterable<SessionEntry> {
		return this.tree.walkEntries(start);
	}

	/**
	 * {@link walkEntries} with the stored bytes of each entry's line where the entry is their
	 * parse as it is (see `SessionTree.walkEntryLines`): what an export copies.
	 * @internal
	 */
	walkEntryLines(start = 0): Iterable<EntryLine> {
		return this.tree.walkEntryLines(start);
	}

	/**
	 * {@link walkEntryLines}, but what `known` gives for an unparsed entry's line (its place and
	 * envelope) is given instead of the entry, whose body is then not read (see
	 * `SessionTree.walkEntryLinesKnowing`): for a caller that had another thread read the file.
	 * @internal
	 */
	walkEntryLinesKnowing<K>(known: (line: Envelope) => K | undefined, start = 0): Iterable<EntryLine | KnownLine<K>> {
		return this.tree.walkEntryLinesKnowing(known, start);
	}

	/**
	 * The whole tree: roots in file order, children oldest first, labels attached; with `rootId`,
	 * the subtree of that entry only (see {@link SessionTree.getTree}).
	 */
	getTree(rootId?: string): SessionTreeNode[] {
		return this.tree.getTree(rootId);
	}

	/** The tree in display order as flat rows with depths (see {@link SessionTree.flatten}). */
	flattenTree(rootId?: string): FlatTreeRow[] {
		return this.tree.flatten(rootId);
	}

	/**
	 * Ids of every entry without children: the tips of all branches, sorted. With
	 * `{ archived: false }`, the tips of the tree without its archived branches (see
	 * {@link archive}).
	 */
	listBranches(options?: ListBranchesOptions): string[] {
		return this.tree.listBranches(options);
	}

	/**
	 * The archived branches in effect, by the id of their first entry, in the order they were
	 * archived (see {@link archive}).
	 */
	getArchived(): ReadonlyMap<string, ArchiveState> {
		return new Map(this.tree.getArchived());
	}

	/** True when the entry lies in an archived branch: it or an ancestor is archived (see {@link archive}). */
	isArchived(id: string): boolean {
		return this.tree.isArchived(id);
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

	/** The path whose context is asked for: from the resumed end when it covers it. */
	private contextPath(leafId: string | null | undefined): readonly PathStep[] {
		const partial = this.log.partial;
		if (partial && (leafId === undefined || leafId === partial.leafId)) return stepsOf(partial.path);
		return this.tree.getPath(leafId);
	}

	/**
	 * The underlying tree, to read: a read-only view (write through the session). It reads the
	 * current state until the session reads its store whole again (`load`, or a reload after the
	 * store was replaced); ask again then.
	 */
	getTreeIndex(): ReadonlySessionTree {
		return this.tree.asReadonly();
	}

	// ---- writing --------------------------------------------------------------------------

	/** Appends an agent message as a child of the leaf. */
	appendMessage(message: AgentMessage): Promise<string> {
		return this.append((stamp) => make.messageEntry(stamp, message));
	}

	appendModelChange(provider: string, modelId: string): Promise<string> {
		return this.append((stamp) => make.modelChangeEntry(stamp, provider, modelId));
	}

	appendThinkingLevelChange(thinkingLevel: string): Promise<string> {
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
	): Promise<string> {
		return this.append((stamp) => {
			let tail: ContextMessage[] | undefined;
			let state: RetainedState | undefined;
			if (retainedTail !== undefined) {
				const path = this.tree.getPath();
				tail = retainedTail === true ? keptMessages(path, firstKeptEntryId, loadSteps) : retainedTail;
				// With the settings of the path stored too, a resume reads nothing before the compaction.
				const { thinkingLevel, model } = pathState(path);
				state = { thinkingLevel, model };
			}
			return make.compactionEntry(stamp, summary, firstKeptEntryId, tokensBefore, details, fromHook, tail, state);
		});
	}

	/** Appends extension state (never in the context). */
	appendCustomEntry(customType: string, data?: unknown): Promise<string> {
		return this.append((stamp) => make.customEntry(stamp, customType, data));
	}

	/** Appends an extension message that the model sees as a `custom` message. */
	appendCustomMessageEntry(
		customType: string,
		content: CustomMessageEntry["content"],
		display: boolean,
		details?: unknown,
	): Promise<string> {
		return this.append((stamp) => make.customMessageEntry(stamp, customType, content, display, details));
	}

	/** Names the session (trimmed; an empty name clears it). */
	appendSessionInfo(name: string): Promise<string> {
		return this.append((stamp) => make.sessionInfoEntry(stamp, name.trim()));
	}

	/** Sets, or with `undefined`/`""` clears, the label of an entry. */
	appendLabelChange(targetId: string, label?: string): Promise<string> {
		return this.append((stamp) => {
			this.requireId(targetId);
			return make.labelEntry(stamp, targetId, label);
		});
	}

	/**
	 * Puts away the branch that starts at `entryId` (the entry and its descendants): views hide
	 * it (`session-tree tree`, `leaves`, `browse`, the HTML page) unless asked for everything,
	 * and nothing is deleted. Appends one archive record (a `custom` entry of type
	 * `session-tree/archive` under the entry, which pi leaves out of the context) and a `leaf`
	 * record naming the leaf, so that the leaf stays where it was, here and for pi (see
	 * docs/format.md).
	 * @returns the archive record's id, or undefined when the branch was archived already (nothing is written)
	 * @throws SessionTreeError INVALID_ARGUMENT when the branch holds the leaf (move the leaf first);
	 *   ENTRY_NOT_FOUND for an unknown id
	 */
	archive(entryId: string): Promise<string | undefined> {
		return this.changeArchive(entryId, true);
	}

	/**
	 * Brings back the branch {@link archive} put away, with one archive record (`archived:
	 * false`) and a `leaf` record, as `archive` writes them. A branch archived inside it stays
	 * archived.
	 * @returns the record's id, or undefined when the entry was not archived (nothing is written)
	 * @throws SessionTreeError INVALID_ARGUMENT when the entry is not archived itself but lies in
	 *   a branch archived at an ancestor (naming it); ENTRY_NOT_FOUND for an unknown id
	 */
	unarchive(entryId: string): Promise<string | undefined> {
		return this.changeArchive(entryId, false);
	}

	/**
	 * Removes the archived branches from the store for good: their entries, and archive records
	 * naming them, are left out of an atomic rewrite that keeps the original as a backup (as
	 * {@link repair} does; in a database, the store's backup copy). Everything else is written as
	 * it was, the leaf too, so the context is the same.
	 * @returns the backup's location, or undefined when nothing is archived (nothing is written)
	 * @throws SessionTreeError INVALID_ARGUMENT when the leaf lies in an archived branch;
	 *   NOT_WRITABLE when the session was read with problems (repair it first)
	 */
	dropArchived(): Promise<string | undefined> {
		return this.log.serialize(async () => {
			await this.log.ensureLoaded();
			if (this.tree.getArchived().size === 0) return undefined;
			const leafId = this.tree.getLeafId();
			if (leafId !== null && this.tree.isArchived(leafId)) {
				throw new SessionTreeError(
					"INVALID_ARGUMENT",
					`the leaf ${leafId} lies in an archived branch: unarchive it or move the leaf first; nothing was written`,
					{ file: this.location },
				);
			}
			if (this.problems.length > 0) {
				throw new SessionTreeError(
					"NOT_WRITABLE",
					"the session was read with problems: repair it before dropping archived branches; nothing was written",
					{ file: this.location },
				);
			}
			return this.log.rewrite(droppedIds);
		});
	}

	/** One archive record and a leaf record, unless the entry is in that state already. */
	private changeArchive(entryId: string, archived: boolean): Promise<string | undefined> {
		return this.log.serialize(async () => {
			await this.log.ensureLoaded();
			this.requireId(entryId);
			const tree = this.tree;
			if (archived) {
				if (tree.getArchived().has(entryId)) return undefined;
				const leafId = tree.getLeafId();
				if (leafId !== null && tree.getPath(leafId).some((node) => node.id === entryId)) {
					throw new SessionTreeError(
						"INVALID_ARGUMENT",
						`the branch at ${entryId} holds the leaf ${leafId}: move the leaf first (branch); nothing was written`,
						{ file: this.location },
					);
				}
			} else if (!tree.getArchived().has(entryId)) {
				if (!tree.isArchived(entryId)) return undefined;
				const at = tree.getPath(entryId).find((node) => tree.getArchived().has(node.id));
				throw new SessionTreeError(
					"INVALID_ARGUMENT",
					`${entryId} is not archived itself: it lies in the branch archived at ${at?.id}; unarchive that one; nothing was written`,
					{ file: this.location },
				);
			}
			return this.log.appendKeepingLeaf((stamp) => archiveEntry(stamp, entryId, archived));
		});
	}

	/**
	 * Moves the leaf to an earlier entry; the next append starts a new branch there. Nothing is
	 * rewritten: one `leaf` record is appended so that the move survives a restart.
	 */
	branch(entryId: string): Promise<void> {
		return this.log.serialize(() => {
			if (!this.log.loaded) return this.log.ensureLoaded().then(() => this.moveLeafTo(entryId));
			return this.moveLeafTo(entryId);
		});
	}

	/** The leaf move of {@link branch} on a loaded session: only the entry's id is looked up, no body is read. */
	private moveLeafTo(entryId: string): Awaitable<void> {
		this.requireId(entryId);
		return this.log.moveLeaf(entryId);
	}

	/** Moves the leaf before the first entry: the next append starts a new root. */
	resetLeaf(): Promise<void> {
		return this.log.serialize(() => {
			if (!this.log.loaded) return this.log.ensureLoaded().then(() => this.log.moveLeaf(null));
			return this.log.moveLeaf(null);
		});
	}

	/**
	 * Moves the leaf to `entryId` (or before the first entry, for `null`) and appends a
	 * `branch_summary` there that tells the model what was left behind.
	 */
	branchWithSummary(entryId: string | null, summary: string, details?: unknown, fromHook?: boolean): Promise<string> {
		return this.append((stamp) => {
			if (entryId !== null) this.requireId(entryId);
			return make.branchSummaryEntry({ ...stamp, parentId: entryId }, entryId ?? "root", summary, details, fromHook);
		});
	}

	/**
	 * pi's tree navigation: selecting a user or custom message moves the leaf to its parent
	 * (the root one resets the leaf) and returns its text to edit; any other entry becomes the
	 * leaf. With `summary`, a branch summary is left at the new position instead. Navigating to
	 * the current leaf changes nothing.
	 */
	navigate(targetId: string, options: NavigateOptions = {}): Promise<NavigateResult> {
		return this.log.serialize(async () => {
			await this.log.ensureLoaded();
			const target = this.requireEntry(targetId);
			// As pi: navigating to the entry that already is the leaf changes nothing.
			if (targetId === this.tree.getLeafId()) return { leafId: targetId };
			let leafId: string | null = targetId;
			let editorText: string | undefined;
			if (target.type === "message" && target.message?.role === "user") {
				leafId = this.tree.getParentId(targetId) ?? null;
				editorText = textOf(target.message.content);
			} else if (target.type === "custom_message") {
				leafId = this.tree.getParentId(targetId) ?? null;
				editorText = textOf(target.content);
			}
			const result: NavigateResult = { leafId };
			if (editorText !== undefined) result.editorText = editorText;
			if (options.summary) {
				const summary = options.summary;
				result.summaryEntryId = await this.log.appendNow((stamp) =>
					make.branchSummaryEntry(
						{ ...stamp, parentId: leafId },
						leafId ?? "root",
						summary,
						options.details,
						options.fromHook,
					),
				);
				result.leafId = result.summaryEntryId;
			} else {
				await this.log.moveLeaf(leafId);
			}
			return result;
		});
	}

	/**
	 * Copies the path from the root to `entryId` (default: the leaf) into a new session whose
	 * header names this one as `parentSession`: beside this one in the same kind of store
	 * (a file in the same directory, a memory session, …) unless `options` say where.
	 * Labels in effect on that path come along. Label entries on the path are not copied as
	 * such: they are re-created after the path, and the entries around them are re-chained so
	 * that no parent goes missing.
	 */
	fork(entryId?: string, options: ForkOptions = {}): Promise<Session> {
		return this.log.serialize(async () => {
			await this.log.ensureLoaded();
			const from = entryId ?? this.tree.getLeafId();
			if (from === null) {
				throw new SessionTreeError("INVALID_ARGUMENT", "nothing to fork: the leaf is before the first entry");
			}
			this.requireId(from);
			const env = { now: this.log.now, random: this.log.random };
			const header = newHeader({ ...env, cwd: this.getCwd(), parentSession: this.log.store.location });
			// Loaded when first needed: reading a session never does.
			const { forkRecords } = await import("./core/copy.js");
			// The path's bodies are read before the new session exists: a damaged one creates nothing.
			const records = forkRecords(this.tree, from, (taken) => newEntryId(taken, this.log.random), this.log.stamp());
			const store = sessionStoreFor(
				targetOf(options, () => ({ beside: this.log.store })),
				header,
			);
			const target = await Session.start(store, header, env);
			try {
				await target.log.serialize(() => target.log.appendRecords(records));
			} catch (error) {
				// A fork that could not be written whole leaves no session holding only its header.
				await target.close().catch(() => {});
				await discardCreatedSession(store.location);
				throw error;
			}
			return target;
		});
	}

	/**
	 * Carries turns across: copies entries of any branch of this session, or of `options.from`,
	 * onto the leaf (or onto `options.onto`) as new entries, in the order given, and leaves the
	 * leaf at the last copy. Each word is an id, a unique prefix of one, or `FROM..TO`: the path
	 * from FROM down to TO (FROM an ancestor of TO).
	 *
	 * Only messages are copied (`message`, `custom_message`, `branch_summary` entries): any other
	 * entry named alone is refused, and inside a range it is skipped (listed in `skipped`). A
	 * tool call keeps its results: an assistant message with tool calls brings the results that
	 * answer them in the source (from the branch towards the source's leaf or the range's end
	 * first), right after it; a result named alone brings its call's assistant message and that
	 * message's other results, unless the destination waits for that very call at the attach
	 * point. Each source entry is copied once, at its first place. A `custom` entry of type
	 * `session-tree.pick` goes first, under the attach point, naming the source session and the
	 * source of each copy (the model never sees it; pi reads it as any extension's entry).
	 * Labels of the sources are not copied. The copies are stamped with the time of the pick;
	 * their bodies are their sources'.
	 *
	 * Nothing is written when the copies would give a context a provider refuses (a tool call
	 * without its result, a result without its call or apart from it, a second result; see
	 * `checkToolPairing`): problems the destination had before are not the pick's and do not
	 * refuse it. Goes through the session's appends, so every store takes it.
	 * @throws SessionTreeError INVALID_ARGUMENT naming the entry (a refused pick: nothing is
	 *   written), ENTRY_NOT_FOUND or AMBIGUOUS_ID for a word that names no single entry
	 */
	pick(entries: readonly string[], options: PickOptions = {}): Promise<PickResult> {
		return this.log.serialize(async () => {
			await this.log.ensureLoaded();
			const from = options.from ?? this;
			if (from !== this) await from.load();
			const source = from.tree;
			const selections = entries.map((word) =>
				parsePickSelection(
					word,
					(id) => source.has(id),
					(given) => from.resolveId(given),
				),
			);
			const attachId = options.onto === undefined ? this.tree.getLeafId() : this.resolveId(options.onto);
			const path = this.tree.getPath(attachId);
			const refused = (error: unknown, where: string) =>
				error instanceof SessionTreeError ? new SessionTreeError(error.code, error.message, { file: where }) : error;
			let plan: ReturnType<typeof planPick>;
			try {
				plan = planPick(source, selections, {
					sourceLeaf: source.getLeafId(),
					pendingCalls: pendingCallsOf(path, loadSteps),
				});
			} catch (error) {
				throw refused(error, from.location);
			}
			const state = this.log.state;
			const newId = (taken: (id: string) => boolean) =>
				newEntryId((id) => taken(id) || state.tree.has(id) || state.leafRecords.has(id), this.log.random);
			const { records, copies } = pickRecords(source, plan, attachId, newId, this.log.stamp());
			const problems = pickProblems(path, records, copies, loadSteps);
			const [first] = problems;
			if (first) {
				const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s))` : "";
				throw new SessionTreeError(
					"INVALID_ARGUMENT",
					`cannot pick: ${first.message}${more}; a provider would refuse that context (nothing was written)`,
					{ file: this.location },
				);
			}
			await this.log.appendRecords(records);
			return {
				provenanceId: records[0].id,
				copies,
				skipped: plan.skipped,
				leafId: copies.at(-1)?.id ?? records[0].id,
			};
		});
	}

	/** Forks at the leaf: a new session holding the active path. */
	clone(options: ForkOptions = {}): Promise<Session> {
		return this.fork(undefined, options);
	}

	/**
	 * Rewrites a v1/v2 session in the current format, atomically, keeping the original beside it.
	 * @returns the backup's location, or undefined when the session was already current
	 */
	migrate(): Promise<string | undefined> {
		return this.log.serialize(() => this.log.migrateNow());
	}

	/**
	 * Writes a clean copy of a session opened leniently: entries skipped as unreadable stay out,
	 * gaps stay bridged (parents rewritten), duplicates keep their new ids, the header is
	 * current. Atomic; the original is kept as a backup beside it.
	 * @returns the backup's location, or undefined when there was nothing to repair
	 */
	repair(): Promise<string | undefined> {
		return this.log.serialize(async () => {
			await this.log.ensureLoaded();
			// Read every body first: a lenient session learns of damaged ones only when it reads them.
			this.tree.getEntries();
			if (this.problems.length === 0 && this.log.storedVersion >= CURRENT_SESSION_VERSION) return undefined;
			this.refuseNonSession();
			return this.log.rewrite();
		});
	}

	// ---- internals ------------------------------------------------------------------------

	/**
	 * Throws INVALID_HEADER when the file read leniently is no session at all: no valid header
	 * and not one line that is a pi record. Rewriting it would replace someone's text with an
	 * invented empty session (id recovered-session).
	 */
	private refuseNonSession(): void {
		if (this.entryCount > 0 || !this.problems.some((problem) => problem.code === "INVALID_HEADER")) return;
		throw new SessionTreeError(
			"INVALID_HEADER",
			"not a session: no valid session header and no line is a pi record; nothing was written",
			{ file: this.location },
		);
	}

	private requireEntry(id: string): SessionEntry {
		const entry = this.tree.getEntry(id);
		if (!entry) throw this.entryNotFound(id);
		return entry;
	}

	/** Throws ENTRY_NOT_FOUND unless the tree has the entry; its body is not read. */
	private requireId(id: string): void {
		if (!this.tree.has(id)) throw this.entryNotFound(id);
	}

	private entryNotFound(id: string): SessionTreeError {
		return new SessionTreeError("ENTRY_NOT_FOUND", `no entry with id ${id}`, { file: this.location });
	}

	/** Builds an entry as a child of the leaf, stores it, then applies it: one serialized write. */
	private append(build: (stamp: make.EntryStamp) => SessionEntry): Promise<string> {
		return this.log.serialize(() => this.log.appendNow(build));
	}
}

/** Options of {@link Session.pick}. */
export interface PickOptions {
	/** Where the copies attach (an id or a unique prefix; default: the leaf). */
	onto?: string;
	/** The session to copy from (default: this one); it is read whole, never written. */
	from?: Session;
}

/** What {@link Session.pick} wrote. */
export interface PickResult {
	/** The `custom` entry (`session-tree.pick`) naming the source of each copy. */
	provenanceId: string;
	/** The copies in order: new id, source entry, and why each was copied. */
	copies: PickedCopy[];
	/** Entries of the ranges that were not copied (not messages). */
	skipped: PickSkipped[];
	/** The new leaf: the last copy. */
	leafId: string;
}

/** What {@link Session.dropArchived} leaves out: the archived branches, and archive records naming an entry of them. */
function droppedIds(tree: SessionTree): ReadonlySet<string> {
	const dropped = tree.archivedIds();
	for (const node of tree.nodesInOrder()) {
		if (node.type !== "custom") continue;
		const change = archiveChangeOf(node.entry);
		if (change && dropped.has(change.targetId)) dropped.add(node.id);
	}
	return dropped;
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
