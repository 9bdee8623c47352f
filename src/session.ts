/**
 * The public facade: a session tree backed by a store. Method names follow pi's
 * `SessionManager` where both have them, so pi users feel at home.
 *
 * Which calls do I/O: opening and creating (`Session.open`, `create`, `openStore`,
 * `createIn`, `inMemory`), every write (`append*`, `branch`, `resetLeaf`, `branchWithSummary`,
 * `navigate`, `fork`, `clone`, `migrate`, `repair`), `load`, `refresh`, `flush` and `close`:
 * they return promises. Every other call reads state already in memory and is synchronous;
 * with a store that has lazy bodies (the JSONL file store), reading an entry whose body was
 * not parsed yet reads its line synchronously through the descriptor the open used.
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
import { loadTree } from "./core/load.js";
import { type LoadProblem, SessionReducer } from "./core/reducer.js";
import { resumeFromTail } from "./core/tail.js";
import { type FlatTreeRow, type ReadonlySessionTree, type SessionTree, TreeNode } from "./core/tree.js";
import {
	type AgentMessage,
	type ContextMessage,
	CURRENT_SESSION_VERSION,
	type CustomMessageEntry,
	type RetainedState,
	type SessionContext,
	type SessionEntry,
	type SessionHeader,
	type SessionTreeNode,
} from "./core/types.js";
import { isHeaderRecord } from "./core/validate.js";
import { FileSessionStore } from "./storage/file-store.js";
import { storeAt } from "./storage/locations.js";
import { MemorySessionStore } from "./storage/memory-store.js";
import { defaultAgentDir, defaultSessionDir, sessionFileName } from "./storage/paths.js";
import type { Durability, SessionStore, StorePosition, StoreRead, WriteOutcome } from "./storage/store.js";

/** Clock and randomness, replaceable for reproducible sessions (the demo, tests). */
export interface SessionEnvironment {
	/** Current time. Default `() => new Date()`. */
	now?: () => Date;
	/** Random bytes for ids. Default: Web Crypto. */
	random?: RandomBytes;
}

/** Options of {@link Session.create}. */
export interface CreateSessionOptions extends SessionEnvironment {
	/**
	 * Where to create it: a path, a `file:` URL, `memory:NAME`, or a location of a registered
	 * store scheme (see `registerStoreScheme`). Takes precedence over `file` and `dir`.
	 */
	location?: string;
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
	/** Location of the session this one derives from. */
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
	/**
	 * `"all"` (the default) reads the whole tree. `"context"` reads only what the leaf's context
	 * needs when the store can (a file whose active path meets a compaction with `retainedTail`
	 * near its end, read from the end alone): what an agent resuming a session needs. Then the
	 * header, the leaf and its context are at hand, any write reads the rest first, and other
	 * reads throw NOT_LOADED until `await session.load()`. Ignored with `lenient` or `verify`.
	 */
	load?: "all" | "context";
}

/** Options of {@link Session.fork}. */
export interface ForkOptions {
	/** Where to create the copy (any location). Default: beside this session, in the same kind of store. */
	location?: string;
	/** The exact file to create (file sessions). */
	file?: string;
	/** Directory for the new file (file sessions). Default: the source file's directory. */
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

/** A resume from the end of the store: the leaf and the path from a self-contained compaction to it. */
interface PartialResume {
	header: SessionHeader;
	leafId: string;
	path: SessionEntry[];
}

/** How many times a write catches up with other writers before it gives up (WRITE_CONFLICT). */
const MAX_WRITE_ATTEMPTS = 1000;

/**
 * A conversation tree in one session store (a JSONL file, memory, or a registered backend).
 *
 * Every `append*` writes one record at the end of the session and resolves to the new entry's
 * id once it is stored; the new entry becomes the leaf. `branch` moves the leaf and persists
 * it with a `leaf` record (see docs/format.md), so a reopened session resumes where it was
 * left. Writes of one session run one after another in the order they were called, so
 * `session.appendMessage(a); session.appendMessage(b)` chains b under a even unawaited.
 */
export class Session {
	private readonly store: SessionStore;
	private readonly now: () => Date;
	private readonly random: RandomBytes;
	private readonly lenient: boolean;
	/** The session state: tree, persisted-leaf records and problems, kept by the core reducer. */
	private reducer: SessionReducer | undefined;
	/** Set while the session was opened with `load: "context"` and the rest is not read yet. */
	private partial: PartialResume | undefined;
	/** The version the store holds; below 3 until the first write migrates it. */
	private diskVersion = CURRENT_SESSION_VERSION;
	/** How far this session has read the store; what lies beyond was written by others. */
	private position: StorePosition = "";
	/** The writes of this session, one after another. */
	private queue: Promise<unknown> = Promise.resolve();

	private constructor(store: SessionStore, env: SessionEnvironment & { lenient?: boolean }) {
		this.store = store;
		this.now = env.now ?? (() => new Date());
		this.random = env.random ?? cryptoRandomBytes;
		this.lenient = env.lenient ?? false;
	}

	// ---- opening --------------------------------------------------------------------------

	/**
	 * Creates a new session holding just the header: by default a file under pi's layout
	 * (`~/.pi/agent/sessions/--<cwd>--/`), or in `dir`, at `file`, or at any `location`.
	 */
	static async create(options: CreateSessionOptions = {}): Promise<Session> {
		const header = newHeader(options);
		let store: SessionStore;
		if (options.location !== undefined) {
			store = storeAt(options.location, { durability: options.durability });
		} else {
			const dir = options.dir ?? defaultSessionDir(header.cwd, options.agentDir ?? defaultAgentDir());
			const file = resolve(options.file ?? resolve(dir, sessionFileName(header.timestamp, header.id)));
			store = new FileSessionStore(file, { durability: options.durability });
		}
		return Session.start(store, header, options);
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
		const position = await store.create(header);
		const session = new Session(store, env);
		session.reducer = SessionReducer.fresh(header, { file: store.location });
		session.position = position;
		return session;
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
		if (!(await store.exists()))
			throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: store.location });
		const session = new Session(store, options);
		if (options.load === "context" && !options.lenient && !options.verify) {
			session.partial = await readPartialResume(store);
			if (session.partial) return session;
		}
		const tree = await session.readStore();
		if (options.verify) {
			tree.getEntries();
		} else {
			// What a resume needs, read now in one pass: the bodies of the leaf's context.
			loadContext(tree.getPath(), loadSteps);
		}
		return session;
	}

	/** Reads the whole store into a new state: the session's view of the store starts over. */
	private async readStore(): Promise<SessionTree> {
		const read = await this.store.read();
		const result = loadTree(read.lines, { lenient: this.lenient, file: this.store.location, source: read.source });
		this.reducer = result.reducer;
		this.diskVersion = result.fromVersion;
		this.position = read.position;
		return result.tree;
	}

	/**
	 * Reads the whole session if it was opened with `load: "context"`, keeping the leaf it
	 * resumed; afterwards every read works. Does nothing for a session already read whole.
	 */
	async load(): Promise<void> {
		await this.ensureLoaded();
	}

	private async ensureLoaded(): Promise<void> {
		const partial = this.partial;
		if (!partial) return;
		const tree = await this.readStore();
		this.partial = undefined;
		// Another writer may have appended meanwhile: the leaf stays the one this session resumed.
		if (tree.has(partial.leafId)) tree.setLeaf(partial.leafId);
	}

	/**
	 * Reads what other writers appended since this session last read or wrote (their leaf
	 * moves do not move this session's leaf). A session replaced meanwhile (migrated or
	 * repaired elsewhere) is read again whole.
	 */
	async refresh(): Promise<void> {
		await this.serialize(async () => {
			if (this.partial) return;
			const read = await this.store.readSince(this.position);
			if (read) this.absorb(read);
			else await this.reload();
		});
	}

	// ---- where it lives -------------------------------------------------------------------

	/** The session file, or undefined for a session in another kind of store. */
	get file(): string | undefined {
		return this.store instanceof FileSessionStore ? this.store.file : undefined;
	}

	/** Where the session is: a file path, `memory:NAME`, or a URL of a registered store. */
	get location(): string {
		return this.store.location;
	}

	/**
	 * Problems found when the session was read: everything a lenient open worked around, what
	 * other writers appended that could not be used, and for any open an incomplete last line
	 * (an append that never finished, left out).
	 */
	get problems(): readonly LoadProblem[] {
		return this.reducer?.problems ?? [];
	}

	/** The version of the session as it is stored (below 3 until it is migrated). */
	get fileVersion(): number {
		return this.diskVersion;
	}

	/** Makes every acknowledged append durable now (for the "group" durability mode). */
	async flush(): Promise<void> {
		await this.queue;
		await this.store.flush();
	}

	/**
	 * Waits for pending writes, flushes and releases what the store holds open (the write lock,
	 * file handles). The session can still be read, and written (the store reopens). A body not
	 * parsed yet is read from the path again; if the file was replaced meanwhile (migrated or
	 * repaired elsewhere), that read throws IO_ERROR: `await session.refresh()` reads it anew.
	 */
	async close(): Promise<void> {
		await this.queue;
		await this.store.close();
	}

	// ---- reading --------------------------------------------------------------------------

	/** The tree; throws NOT_LOADED while only the context was read (`load: "context"`). */
	private get tree(): SessionTree {
		return this.state.tree;
	}

	/** The whole session's state; throws NOT_LOADED while only the context was read (`load: "context"`). */
	private get state(): SessionReducer {
		if (this.partial || !this.reducer) {
			throw new SessionTreeError(
				"NOT_LOADED",
				"opened with load: 'context'; await session.load() before reading beyond the context",
				{ file: this.store.location },
			);
		}
		return this.reducer;
	}

	getHeader(): SessionHeader {
		return this.partial ? this.partial.header : this.tree.header;
	}

	getSessionId(): string {
		return this.getHeader().id;
	}

	getCwd(): string {
		return this.getHeader().cwd;
	}

	getLeafId(): string | null {
		return this.partial ? this.partial.leafId : this.tree.getLeafId();
	}

	getLeafEntry(): SessionEntry | undefined {
		if (this.partial) return this.partial.path[this.partial.path.length - 1];
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
	flattenTree(rootId?: string): FlatTreeRow[] {
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

	/** The path whose context is asked for: from the resumed end when it covers it. */
	private contextPath(leafId: string | null | undefined): readonly PathStep[] {
		const partial = this.partial;
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
			this.requireEntry(targetId);
			return make.labelEntry(stamp, targetId, label);
		});
	}

	/**
	 * Moves the leaf to an earlier entry; the next append starts a new branch there. Nothing is
	 * rewritten: one `leaf` record is appended so that the move survives a restart.
	 */
	branch(entryId: string): Promise<void> {
		return this.serialize(async () => {
			this.requireEntry(entryId);
			await this.moveLeaf(entryId);
		});
	}

	/** Moves the leaf before the first entry: the next append starts a new root. */
	resetLeaf(): Promise<void> {
		return this.serialize(() => this.moveLeaf(null));
	}

	/**
	 * Moves the leaf to `entryId` (or before the first entry, for `null`) and appends a
	 * `branch_summary` there that tells the model what was left behind.
	 */
	branchWithSummary(entryId: string | null, summary: string, details?: unknown, fromHook?: boolean): Promise<string> {
		return this.append((stamp) => {
			if (entryId !== null) this.requireEntry(entryId);
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
		return this.serialize(async () => {
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
				result.summaryEntryId = await this.appendNow((stamp) =>
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
				await this.moveLeaf(leafId);
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
		return this.serialize(async () => {
			await this.ensureLoaded();
			const from = entryId ?? this.tree.getLeafId();
			if (from === null) {
				throw new SessionTreeError("INVALID_ARGUMENT", "nothing to fork: the leaf is before the first entry");
			}
			this.requireEntry(from);
			const env = { now: this.now, random: this.random };
			const header = newHeader({ ...env, cwd: this.getCwd(), parentSession: this.store.location });
			const target = await Session.start(this.storeForCopy(header, options), header, env);
			// Loaded when first needed: reading a session never does.
			const { forkRecords } = await import("./core/copy.js");
			const records = forkRecords(this.tree, from, (taken) => newEntryId(taken, this.random), this.stamp());
			await target.appendRecords(records);
			return target;
		});
	}

	/** Forks at the leaf: a new session holding the active path. */
	clone(options: ForkOptions = {}): Promise<Session> {
		return this.fork(undefined, options);
	}

	private storeForCopy(header: SessionHeader, options: ForkOptions): SessionStore {
		const location = options.location ?? options.file;
		if (location !== undefined) return storeAt(location);
		if (options.dir === undefined) return this.store.derive(header);
		if (!(this.store instanceof FileSessionStore)) {
			throw new SessionTreeError("INVALID_ARGUMENT", "`dir` is for file sessions; give a `location` instead", {
				file: this.store.location,
			});
		}
		return new FileSessionStore(resolve(options.dir, sessionFileName(header.timestamp, header.id)));
	}

	/**
	 * Rewrites a v1/v2 session in the current format, atomically, keeping the original beside it.
	 * @returns the backup's location, or undefined when the session was already current
	 */
	migrate(): Promise<string | undefined> {
		return this.serialize(() => this.migrateNow());
	}

	private async migrateNow(): Promise<string | undefined> {
		await this.ensureLoaded();
		if (this.diskVersion >= CURRENT_SESSION_VERSION) return undefined;
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
	 * Writes a clean copy of a session opened leniently: entries skipped as unreadable stay out,
	 * gaps stay bridged (parents rewritten), duplicates keep their new ids, the header is
	 * current. Atomic; the original is kept as a backup beside it.
	 * @returns the backup's location, or undefined when there was nothing to repair
	 */
	repair(): Promise<string | undefined> {
		return this.serialize(async () => {
			await this.ensureLoaded();
			// Read every body first: a lenient session learns of damaged ones only when it reads them.
			this.tree.getEntries();
			if (this.problems.length === 0 && this.diskVersion >= CURRENT_SESSION_VERSION) return undefined;
			return this.rewrite();
		});
	}

	/**
	 * Replaces the stored session with the tree as loaded (current format, every parent
	 * present, the leaf kept), atomically, keeping the original as a backup; then reads the
	 * session again from what was written. Used by migrate and repair.
	 */
	private async rewrite(): Promise<string> {
		const { rewriteRecords } = await import("./core/copy.js");
		for (let attempt = 0; ; attempt++) {
			const records = rewriteRecords(this.tree, (taken) => newEntryId(taken, this.random), this.stamp());
			const outcome = await this.store.replace(records, this.position);
			if (outcome.status === "ok") {
				await this.reload();
				return outcome.backup;
			}
			await this.catchUp(outcome, attempt);
		}
	}

	// ---- internals ------------------------------------------------------------------------

	/** Runs `op` after every write called before it (whether that one succeeded or not). */
	private serialize<T>(op: () => Promise<T>): Promise<T> {
		const run = this.queue.then(op, op);
		this.queue = run.then(
			() => undefined,
			() => undefined,
		);
		return run;
	}

	private stamp(): string {
		return this.now().toISOString();
	}

	private freshId(): string {
		const reducer = this.state;
		return newEntryId((id) => reducer.tree.has(id) || reducer.leafRecords.has(id), this.random);
	}

	private requireEntry(id: string): SessionEntry {
		const entry = this.tree.getEntry(id);
		if (!entry) throw new SessionTreeError("ENTRY_NOT_FOUND", `no entry with id ${id}`, { file: this.store.location });
		return entry;
	}

	/** Builds an entry as a child of the leaf, stores it, then applies it: one serialized write. */
	private append(build: (stamp: make.EntryStamp) => SessionEntry): Promise<string> {
		return this.serialize(() => this.appendNow(build));
	}

	/**
	 * Compare-and-append: builds the entry (a fresh id, the leaf as parent), appends it at this
	 * session's position; if others appended meanwhile, applies what they wrote and tries again
	 * with a fresh id. Then the entry is applied to the state and becomes the leaf.
	 */
	private async appendNow(build: (stamp: make.EntryStamp) => SessionEntry): Promise<string> {
		await this.prepareWrite();
		for (let attempt = 0; ; attempt++) {
			const entry = build({ id: this.freshId(), parentId: this.tree.getLeafId(), timestamp: this.stamp() });
			const outcome = await this.store.append([entry], this.position);
			if (outcome.status === "ok") {
				this.applyOwn([entry], outcome.position);
				return entry.id;
			}
			await this.catchUp(outcome, attempt);
		}
	}

	/** Writes records that already have ids and parents (the copies of a fork). */
	private appendRecords(records: readonly SessionEntry[]): Promise<void> {
		return this.serialize(async () => {
			if (records.length === 0) return;
			await this.prepareWrite();
			for (let attempt = 0; ; attempt++) {
				const outcome = await this.store.append(records, this.position);
				if (outcome.status === "ok") {
					this.applyOwn(records, outcome.position);
					return;
				}
				await this.catchUp(outcome, attempt);
			}
		});
	}

	private async moveLeaf(targetId: string | null): Promise<void> {
		if (this.tree.getLeafId() === targetId) return;
		await this.appendNow((stamp) => make.leafEntry(stamp, targetId));
	}

	/** Before a write: the whole tree is read, and an older format is rewritten first. */
	private async prepareWrite(): Promise<void> {
		await this.ensureLoaded();
		await this.migrateNow();
	}

	/** Applies records this session stored: the last one decides the leaf (an entry, or a leaf record's target). */
	private applyOwn(records: readonly SessionEntry[], position: StorePosition): void {
		const reducer = this.state;
		for (const record of records) reducer.applyRecord(record, 0);
		reducer.settle();
		this.position = position;
		const last = records.at(-1);
		if (last) reducer.tree.setLeaf(last.type === "leaf" ? reducer.resolveParentId(last.targetId) : last.id);
	}

	/** After a write that did not happen: takes in what others wrote (or the whole store, if replaced). */
	private async catchUp(outcome: Exclude<WriteOutcome<object>, { status: "ok" }>, attempt: number): Promise<void> {
		if (attempt + 1 >= MAX_WRITE_ATTEMPTS) {
			throw new SessionTreeError(
				"WRITE_CONFLICT",
				`other writers kept appending: gave up after ${MAX_WRITE_ATTEMPTS} attempts`,
				{ file: this.store.location },
			);
		}
		if (outcome.status === "behind") this.absorb(outcome.read);
		else await this.reload();
	}

	/** Applies what other writers appended; this session's leaf stays. */
	private absorb(read: StoreRead): void {
		this.state.applyOthers(read.lines);
		this.position = read.position;
	}

	/** The store was replaced (migrated or repaired): read it again, keeping our leaf if it still exists. */
	private async reload(): Promise<void> {
		const leafId = this.reducer?.tree.getLeafId() ?? null;
		const tree = await this.readStore();
		if (leafId === null || tree.has(leafId)) tree.setLeaf(leafId);
	}
}

/**
 * Tries to resume from the end of the store: the last 1,000, 4,000 and 16,000 records (the
 * store gives fewer, or declines, when more is not worth reading from the end: a small file,
 * more than an eighth of a large one), until the active path meets a compaction with
 * `retainedTail` and `retainedState`.
 */
async function readPartialResume(store: SessionStore): Promise<PartialResume | undefined> {
	if (!store.capabilities.tailReads || !store.readTail) return undefined;
	for (const count of [1000, 4000, 16000]) {
		const read = await store.readTail(count);
		if (!read || read.whole) return undefined;
		// A header a full open would reject is left to the full open, which reports it.
		if (!isHeaderRecord(read.header)) return undefined;
		const found = resumeFromTail(read.records);
		if (found.kind === "found") return { header: read.header, leafId: found.leafId, path: found.path };
		// Fewer records than asked for: the store gave all it finds worth reading from the end.
		if (found.kind === "no" || read.records.length < count) return undefined;
	}
	return undefined;
}

/** Tree nodes are path steps: parse their bodies in one pass over the store. */
const loadSteps: LoadSteps = (steps: readonly PathStep[]) => TreeNode.load(steps);

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
