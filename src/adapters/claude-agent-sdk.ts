/**
 * `session-tree/claude-agent-sdk`: session-tree as the `sessionStore` of the Claude Agent SDK
 * (`@anthropic-ai/claude-agent-sdk`). {@link TreeSessionStore} implements the SDK's
 * `SessionStore` (`append`, `load`, `listSessions`, `delete`, `listSubkeys`) on any
 * session-tree place of many sessions: a directory of JSONL files, `sqlite:PATH`,
 * `postgres://…`, `memory:`. Each SDK key (project key, session id, and a subpath for subagent
 * transcripts) is one session-tree session, named from the key (claude-agent-sdk-names.ts).
 *
 * The SDK's contract holds as it documents it: `load` returns the entries appended, deep-equal
 * and in append order; an entry whose `uuid` is stored already is not stored again (retries and
 * `importSessionToStore` replays), entries without one always are; `load` of a key never
 * written is `null`. At the same time each line becomes entries of a session tree
 * (claude-agent-sdk-entries.ts) whose parents follow `parentUuid`: a rewind or an edit in
 * Claude Code (new lines below an earlier one) is a branch, and `session-tree tree`, `ctx`,
 * `html` and `browse` show the transcript with every branch. See docs/adapters.md.
 *
 * Appends of one key run one after another in this process; between processes each append is
 * a compare-and-append that takes in what others wrote and plans again, so an entry is never
 * stored twice and every parent exists.
 *
 * Only types are imported from `@anthropic-ai/claude-agent-sdk`: session-tree never loads the SDK.
 */

import type { SessionStore as SdkSessionStore, SessionKey, SessionStoreEntry } from "@anthropic-ai/claude-agent-sdk";
import { SessionTreeError } from "../core/errors.js";
import { derivedEntryId } from "../core/ids.js";
import { loadTree } from "../core/load.js";
import { stringifyNested } from "../core/nesting.js";
import { SessionReducer } from "../core/reducer.js";
import type { SessionTree } from "../core/tree.js";
import { TreeNode } from "../core/tree-node.js";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "../core/types.js";
import { isJson } from "../import/common.js";
import { Session } from "../session.js";
import { storeAt } from "../storage/locations.js";
import { maskPassword } from "../storage/sql/urls.js";
import type { Durability, SessionStore, StorePosition, StoreRead } from "../storage/store.js";
import { KeyedWriteQueue } from "../storage/write-queue.js";
import {
	entryTime,
	headerKey,
	isTransparentType,
	type LineSource,
	lineEntries,
	type PartSource,
	SDK_FORMAT,
	sameKey,
	type TranscriptKey,
	transcriptHeader,
} from "./claude-agent-sdk-entries.js";
import { checkKeyField, type NameParts, type Place, placeAt, unescapeComponent } from "./claude-agent-sdk-names.js";

export { SDK_FORMAT } from "./claude-agent-sdk-entries.js";

/** Options of {@link TreeSessionStore}. */
export interface TreeSessionStoreOptions {
	/** How durable an acknowledged append is (docs/durability.md). Default: the store's own. */
	durability?: Durability;
	/**
	 * How many transcripts' state (tree, stored uuids) is kept between calls, so that an append
	 * reads only what others wrote since. Default 64; 0 reads every transcript anew on each call.
	 */
	cacheSize?: number;
	/** The clock, for lines without a `timestamp`. Default `() => new Date()`. */
	now?: () => Date;
}

/** How many times an append catches up with other writers before it gives up (WRITE_CONFLICT). */
const MAX_WRITE_ATTEMPTS = 1000;

/**
 * A Claude Agent SDK `SessionStore` backed by session-tree: pass it as `sessionStore` to
 * `query()`, `listSessions()`, `getSessionMessages()`, `importSessionToStore()`, ….
 *
 * ```ts
 * import { query } from "@anthropic-ai/claude-agent-sdk";
 * import { TreeSessionStore } from "session-tree/claude-agent-sdk";
 *
 * const sessionStore = new TreeSessionStore("sqlite:./agents.db"); // or a directory, postgres://…
 * for await (const message of query({ prompt: "Hello", options: { sessionStore } })) { … }
 * ```
 */
export class TreeSessionStore implements SdkSessionStore {
	/** Where the transcripts are: the location given. */
	readonly location: string;
	private readonly place: Place;
	private readonly durability: Durability | undefined;
	private readonly cacheSize: number;
	private readonly now: () => Date;
	/** Transcripts read, by session location, least recently used first. */
	private readonly cache = new Map<string, Transcript>();
	/** The calls on each session location, one after another. */
	private readonly queues = new KeyedWriteQueue();

	/**
	 * @param location a directory (created on the first append), `sqlite:PATH`, `postgres://…`,
	 *   another registered scheme's database location, or `memory:` / `memory:NAME`
	 * @throws SessionTreeError INVALID_ARGUMENT for a location naming one session (`…#ID`) or an unknown scheme
	 */
	constructor(location: string, options: TreeSessionStoreOptions = {}) {
		this.place = placeAt(location);
		this.location = location;
		this.durability = options.durability;
		this.cacheSize = Math.max(0, Math.trunc(options.cacheSize ?? 64));
		this.now = options.now ?? (() => new Date());
	}

	/**
	 * Stores a batch of transcript lines in order, each as its session-tree entries. A line whose
	 * `uuid` is stored already (or earlier in the batch) is skipped; lines without one are always
	 * stored. An empty batch writes nothing (a key's session is created by its first line).
	 * @throws SessionTreeError INVALID_ARGUMENT for a bad key or a line that is not a JSON object
	 */
	async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
		const canonical = transcriptKey(key);
		if (!Array.isArray(entries)) throw new SessionTreeError("INVALID_ARGUMENT", "append takes a list of entries");
		if (entries.length === 0) return;
		const lines = entries.map(jsonLine);
		const location = this.locationOf(canonical);
		await this.serialize(location, async () => {
			let transcript = await this.transcript(location, canonical);
			if (!transcript) {
				const parent =
					canonical.subpath === undefined ? undefined : this.locationOf({ ...canonical, subpath: undefined });
				const header = transcriptHeader(canonical, lines, this.now, parent);
				transcript = await Transcript.create(this.open(location), header, canonical);
				this.remember(location, transcript);
			}
			await transcript.append(lines, this.now);
		});
	}

	/**
	 * The lines appended for a key, in append order, deep-equal to what was appended (copies);
	 * `null` for a key never written (or deleted).
	 */
	async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
		const canonical = transcriptKey(key);
		const location = this.locationOf(canonical);
		return this.serialize(location, async () => {
			const transcript = await this.transcript(location, canonical);
			return transcript ? transcript.lines() : null;
		});
	}

	/** The main transcripts of a project: session ids and modification times (epoch milliseconds), in no order. */
	async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
		const project = this.place.projectOf(checkKeyField(projectKey, "projectKey"));
		const out: Array<{ sessionId: string; mtime: number }> = [];
		for await (const found of this.place.place.list(project)) {
			if (found.parts.subpath !== undefined) continue;
			const sessionId = unescapeComponent(found.parts.session) ?? (await this.keyAt(found.location))?.sessionId;
			if (sessionId === undefined) continue;
			out.push({ sessionId, mtime: Math.floor(found.modified?.getTime() ?? 0) });
		}
		return out;
	}

	/** The subpaths stored under a session (subagent transcripts, …), in no order. */
	async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
		const canonical = transcriptKey({ projectKey: key?.projectKey, sessionId: key?.sessionId });
		return (await this.subkeys(canonical)).map(({ subpath }) => subpath);
	}

	/**
	 * Deletes a key's session through the collection's `remove`; the main transcript's key takes
	 * its subpath transcripts with it. A key never written is no error.
	 * @throws SessionTreeError INVALID_ARGUMENT when the place cannot delete sessions
	 */
	async delete(key: SessionKey): Promise<void> {
		const canonical = transcriptKey(key);
		if (canonical.subpath === undefined) {
			// The subpaths first: a delete that fails part way leaves the main transcript, and a retry finishes.
			for (const { location } of await this.subkeys(canonical)) await this.removeAt(location);
		}
		await this.removeAt(this.locationOf(canonical));
	}

	/** The session-tree location of a key's transcript: a file, `sqlite:PATH#NAME`, …, for `Session.open` and the CLI. */
	sessionLocation(key: SessionKey): string {
		return this.locationOf(transcriptKey(key));
	}

	/** A key's transcript opened as a session-tree session (to read its tree), or undefined when it was never written. */
	async openSession(key: SessionKey): Promise<Session | undefined> {
		const location = this.sessionLocation(key);
		const store = this.open(location);
		if (!(await store.exists())) return undefined;
		return Session.openStore(store);
	}

	/** Forgets what is cached and releases the stores' handles and the collection's connection. */
	async close(): Promise<void> {
		const open = [...this.cache.values()];
		this.cache.clear();
		for (const transcript of open) await transcript.store.close();
		await this.place.place.close();
	}

	// ---- internals ----------------------------------------------------------------------------

	private locationOf(key: TranscriptKey): string {
		return this.place.place.sessionLocation(this.partsOf(key));
	}

	private partsOf(key: TranscriptKey): NameParts {
		return this.place.partsOf(key.projectKey, key.sessionId, key.subpath);
	}

	private open(location: string): SessionStore {
		return storeAt(location, { durability: this.durability });
	}

	/** Runs `op` after every call on the same session location that came before it. */
	private serialize<T>(location: string, op: () => Promise<T>): Promise<T> {
		return this.queues.run(location, op);
	}

	/** The transcript at `location`, caught up with what others wrote, or undefined when there is none. */
	private async transcript(location: string, key: TranscriptKey): Promise<Transcript | undefined> {
		const cached = this.cache.get(location);
		if (cached) {
			this.cache.delete(location);
			if (await cached.catchUp()) {
				this.remember(location, cached);
				return cached;
			}
			await cached.store.close();
			return undefined;
		}
		const transcript = await Transcript.open(this.open(location), key);
		if (transcript) this.remember(location, transcript);
		return transcript;
	}

	/** Keeps a transcript as the most recently used, forgetting the least recently used beyond the cache size. */
	private remember(location: string, transcript: Transcript): void {
		this.cache.delete(location);
		this.cache.set(location, transcript);
		while (this.cache.size > this.cacheSize) {
			const [oldest, evicted] = this.cache.entries().next().value as [string, Transcript];
			this.cache.delete(oldest);
			void evicted.store.close();
		}
	}

	/** The subpath transcripts of a main key, with their locations. */
	private async subkeys(key: TranscriptKey): Promise<Array<{ subpath: string; location: string }>> {
		const parts = this.partsOf(key);
		const out: Array<{ subpath: string; location: string }> = [];
		for await (const found of this.place.place.list(parts.project)) {
			if (found.parts.session !== parts.session || found.parts.subpath === undefined) continue;
			const plain = unescapeComponent(found.parts.subpath);
			const stored = plain === undefined ? await this.keyAt(found.location) : undefined;
			const subpath = plain ?? stored?.subpath;
			// A shortened name is checked against the header: it must be a subpath of this very key.
			if (subpath === undefined || (stored && !sameKey({ ...stored, subpath: undefined }, key))) continue;
			out.push({ subpath, location: found.location });
		}
		return out;
	}

	/** The key a stored transcript's header names (for names shortened with a hash). */
	private async keyAt(location: string): Promise<TranscriptKey | undefined> {
		const store = this.open(location);
		try {
			const first = (await store.read()).lines[0]?.record;
			return first?.type === "session" ? headerKey(first as SessionHeader) : undefined;
		} catch {
			return undefined;
		} finally {
			await store.close();
		}
	}

	/** Deletes the session at `location` (after the calls on it before), if there is one. */
	private async removeAt(location: string): Promise<void> {
		await this.serialize(location, async () => {
			const cached = this.cache.get(location);
			this.cache.delete(location);
			await cached?.store.close();
			const store = this.open(location);
			try {
				if (!(await store.exists())) return;
			} finally {
				await store.close();
			}
			await this.place.place.remove(location);
		});
	}
}

/** One line's place in the tree: its first entry, and the last, below which its children hang. */
interface StoredLine {
	line: SessionStoreEntry;
	first: string;
	tail: string;
}

/**
 * The state of one transcript's session: the session's tree as the core reducer builds it from
 * the store, the position read up to, and the lines stored (by uuid, for deduplication and
 * parents). Writes are compare-and-append, planned again after taking in what others wrote.
 */
class Transcript {
	private reducer: SessionReducer;
	private position: StorePosition;
	private stored: StoredLine[] = [];
	private readonly byUuid = new Map<string, StoredLine>();
	private readonly byFirst = new Map<string, StoredLine>();
	private readonly toolNames = new Map<string, string>();
	/** Tree entries looked at so far (in file order). */
	private indexed = 0;

	private constructor(
		readonly store: SessionStore,
		reducer: SessionReducer,
		position: StorePosition,
		private readonly key: TranscriptKey,
	) {
		this.reducer = reducer;
		this.position = position;
	}

	/** Reads a transcript's session, or undefined when the store holds none. */
	static async open(store: SessionStore, key: TranscriptKey): Promise<Transcript | undefined> {
		if (!(await store.exists())) return undefined;
		const transcript = new Transcript(store, SessionReducer.fresh(placeholderHeader()), "", key);
		return (await transcript.reload()) ? transcript : undefined;
	}

	/** Creates a transcript's session (or reads it, when another writer created it first). */
	static async create(store: SessionStore, header: SessionHeader, key: TranscriptKey): Promise<Transcript> {
		try {
			const position = await store.create(header);
			return new Transcript(store, SessionReducer.fresh(header, { file: store.location }), position, key);
		} catch (error) {
			if (!(error instanceof SessionTreeError && error.code === "FILE_EXISTS")) throw error;
			const transcript = await Transcript.open(store, key);
			if (!transcript) throw error;
			return transcript;
		}
	}

	private get tree(): SessionTree {
		return this.reducer.tree;
	}

	/** Copies of the stored lines, in append order. */
	lines(): SessionStoreEntry[] {
		return this.stored.map((stored) => structuredClone(stored.line));
	}

	/** Takes in what other writers appended since; false when the session is gone. */
	async catchUp(): Promise<boolean> {
		let read: StoreRead | undefined;
		try {
			read = await this.store.readSince(this.position);
		} catch (error) {
			if (!(error instanceof SessionTreeError && error.code === "FILE_NOT_FOUND")) throw error;
		}
		if (!read) return (await this.store.exists()) && this.reload();
		this.absorb(read);
		return true;
	}

	/** Stores the lines not stored yet, each below its parent (see {@link plan}). */
	async append(lines: readonly SessionStoreEntry[], now: () => Date): Promise<void> {
		for (let attempt = 0; ; attempt++) {
			const records = this.plan(lines, now);
			if (records.length === 0) return;
			const outcome = await this.store.append(records, this.position);
			if (outcome.status === "ok") {
				const state = this.reducer;
				for (const record of records) state.applyRecord(record, 0);
				state.settle();
				this.tree.setLeaf((records.at(-1) as SessionEntry).id);
				this.position = outcome.position;
				this.index();
				return;
			}
			if (attempt + 1 >= MAX_WRITE_ATTEMPTS) {
				throw new SessionTreeError(
					"WRITE_CONFLICT",
					`other writers kept appending: gave up after ${MAX_WRITE_ATTEMPTS} attempts`,
					{ file: maskPassword(this.store.location) },
				);
			}
			if (outcome.status === "behind") this.absorb(outcome.read);
			else if (!(await this.reload()))
				throw new SessionTreeError("FILE_NOT_FOUND", "the session was deleted meanwhile");
		}
	}

	/** Reads the whole session again; false when it is gone. */
	private async reload(): Promise<boolean> {
		let read: StoreRead;
		try {
			read = await this.store.read();
		} catch (error) {
			if (error instanceof SessionTreeError && error.code === "FILE_NOT_FOUND") return false;
			throw error;
		}
		const location = maskPassword(this.store.location);
		const result = loadTree(read.lines, { file: location, source: read.source });
		const stored = headerKey(result.tree.header);
		if (!stored || !sameKey(stored, this.key) || result.fromVersion < CURRENT_SESSION_VERSION) {
			throw new SessionTreeError(
				"INVALID_ARGUMENT",
				`holds another session than the Claude Agent SDK transcript ${JSON.stringify(this.key)}`,
				{ file: location },
			);
		}
		this.reducer = result.reducer;
		this.position = read.position;
		this.stored = [];
		this.byUuid.clear();
		this.byFirst.clear();
		this.toolNames.clear();
		this.indexed = 0;
		this.index();
		return true;
	}

	/** Applies what other writers appended (their leaf moves do not move ours). */
	private absorb(read: StoreRead): void {
		if (read.lines.length > 0) this.reducer.applyOthers(read.lines);
		this.position = read.position;
		this.index();
	}

	/** Notes the entries added to the tree since the last call: the lines they hold, tool names. */
	private index(): void {
		const nodes = this.tree.nodesInOrder();
		if (this.indexed >= nodes.length) return;
		const fresh = nodes.slice(this.indexed);
		this.indexed = nodes.length;
		TreeNode.load(fresh);
		for (const node of fresh) this.note(node.entry);
	}

	private note(entry: SessionEntry): void {
		for (const [callId, name] of toolCallsOf(entry)) this.toolNames.set(callId, name);
		const source = (entry as { source?: unknown }).source;
		if (!isJson(source) || source.format !== SDK_FORMAT) return;
		if (isJson(source.entry)) {
			const line = source.entry as SessionStoreEntry;
			const uuid = typeof line.uuid === "string" ? line.uuid : undefined;
			// A copy of a stored uuid (two writers that never saw each other) is not a line twice.
			if (uuid !== undefined && this.byUuid.has(uuid)) return;
			const stored: StoredLine = { line, first: entry.id, tail: entry.id };
			this.stored.push(stored);
			this.byFirst.set(entry.id, stored);
			if (uuid !== undefined) this.byUuid.set(uuid, stored);
		} else if (typeof source.of === "string") {
			const stored = this.byFirst.get(source.of);
			if (stored && this.tree.getParentId(entry.id) === stored.tail) stored.tail = entry.id;
		}
	}

	/**
	 * The records that store `lines` now: for each line not stored yet (by uuid), its entries
	 * (chained) below the point it names (see `namedPoint`); a line that names none hangs where
	 * the next line of the batch that names one hangs, else below the previous line. Transparent
	 * entries (not conversation: progress, hooks, snapshots, …) take the place of the point
	 * they hang at until a conversation entry hangs below them, so the next line naming that
	 * point goes below them instead of beside them; after that, a line naming the point again
	 * (a rewind) branches at the point itself.
	 */
	private plan(lines: readonly SessionStoreEntry[], now: () => Date): SessionEntry[] {
		const tree = this.tree;
		const records: SessionEntry[] = [];
		const taken = new Set<string>();
		const isTaken = (id: string): boolean => taken.has(id) || tree.has(id) || this.reducer.leafRecords.has(id);
		/** Uuid → tail of the lines of this batch. */
		const batchTails = new Map<string, string>();
		const batchTools = new Map<string, string>();
		/** Children this batch adds, by parent (null: roots). */
		const added = new Map<string | null, Array<{ id: string; type: string }>>();
		const tailOf = (uuid: string): string | undefined => batchTails.get(uuid) ?? this.byUuid.get(uuid)?.tail;
		const childrenOf = (id: string | null): Array<{ id: string; type: string }> => {
			const existing =
				id === null
					? tree.getChildren(null).map((entry) => ({ id: entry.id, type: entry.type }))
					: (tree.getNode(id)?.childNodes() ?? []).map((node) => ({ id: node.id, type: node.type }));
			return [...existing, ...(added.get(id) ?? [])];
		};
		/** The end of the run of transparent entries below `id`, or undefined once a conversation entry hangs in it. */
		const freeEnd = (id: string): string | undefined => {
			for (let at = id; ; ) {
				const children = childrenOf(at);
				if (children.some((child) => !isTransparentType(child.type))) return undefined;
				const last = children.at(-1);
				if (!last) return at;
				at = last.id;
			}
		};
		const redirect = (point: string | null): string | null => {
			const last = childrenOf(point).at(-1);
			if (!last || !isTransparentType(last.type)) return point;
			return freeEnd(last.id) ?? point;
		};
		const context = {
			toolName: (callId: string) => batchTools.get(callId) ?? this.toolNames.get(callId) ?? "",
			knows: (uuid: string) => batchTails.has(uuid) || this.byUuid.has(uuid),
		};
		/**
		 * Where a line hangs by the parent it names: below its parent line (`parentUuid`; a compact
		 * boundary below its `logicalParentUuid`), a root for a parent not stored (or `null`: a
		 * subagent's first line is a root of its own, another line follows the roots' transparent
		 * lines); undefined for a line that names none.
		 */
		const namedPoint = (line: SessionStoreEntry): string | null | undefined => {
			if (line.type === "system" && line.subtype === "compact_boundary" && typeof line.logicalParentUuid === "string") {
				const logical = tailOf(line.logicalParentUuid);
				if (logical !== undefined) return redirect(logical);
			}
			const parent = line.parentUuid;
			if (typeof parent === "string") {
				const tail = tailOf(parent);
				return tail === undefined ? null : redirect(tail);
			}
			if (parent === null) return line.isSidechain === true ? null : redirect(null);
			return undefined;
		};
		const seedBase = tree.header.id;
		let leaf = tree.getLeafId();
		let ordinal = this.stored.length;
		const fresh: SessionStoreEntry[] = [];
		const uuids = new Set<string>();
		for (const line of lines) {
			const uuid = typeof line.uuid === "string" ? line.uuid : undefined;
			if (uuid !== undefined && (this.byUuid.has(uuid) || uuids.has(uuid))) continue;
			if (uuid !== undefined) uuids.add(uuid);
			fresh.push(line);
		}
		for (const [index, line] of fresh.entries()) {
			const uuid = typeof line.uuid === "string" ? line.uuid : undefined;
			const builds = lineEntries(line, context);
			const seed = `${seedBase}:${uuid ?? `#${ordinal}`}`;
			const timestamp = entryTime(line, now);
			// A line that names no parent hangs where the next line of the batch that names one
			// hangs (Claude Code writes a prompt's file-history snapshot just before the prompt),
			// else below the previous line.
			let named = namedPoint(line);
			for (let next = index + 1; named === undefined && next < fresh.length; next++) {
				named = namedPoint(fresh[next] as SessionStoreEntry);
			}
			let parent = named === undefined ? redirect(leaf) : named;
			let first: string | undefined;
			builds.forEach((build, part) => {
				const id = derivedEntryId(part === 0 ? seed : `${seed}:${part}`, isTaken);
				taken.add(id);
				const entry = build({ id, parentId: parent, timestamp });
				const source: LineSource | PartSource =
					first === undefined ? { format: SDK_FORMAT, entry: line } : { format: SDK_FORMAT, of: first, part };
				Object.assign(entry, { source });
				records.push(entry);
				const siblings = added.get(parent) ?? [];
				siblings.push({ id, type: entry.type });
				added.set(parent, siblings);
				for (const [callId, name] of toolCallsOf(entry)) batchTools.set(callId, name);
				parent = id;
				first ??= id;
			});
			leaf = parent;
			if (uuid !== undefined && parent !== null) batchTails.set(uuid, parent);
			ordinal++;
		}
		return records;
	}
}

/** The tool calls of an assistant message entry: call id → tool name (for the names of their results). */
function toolCallsOf(entry: SessionEntry): Array<[string, string]> {
	if (entry.type !== "message" || entry.message.role !== "assistant" || !Array.isArray(entry.message.content))
		return [];
	const calls: Array<[string, string]> = [];
	for (const block of entry.message.content as unknown[]) {
		if (isJson(block) && block.type === "toolCall" && typeof block.id === "string" && typeof block.name === "string") {
			calls.push([block.id, block.name]);
		}
	}
	return calls;
}

/** A header for the reducer of a transcript before its session is read (replaced by the read). */
function placeholderHeader(): SessionHeader {
	return {
		type: "session",
		version: CURRENT_SESSION_VERSION,
		id: "unread",
		timestamp: new Date(0).toISOString(),
		cwd: "",
	};
}

/**
 * An SDK key checked and normalised: a non-empty project key and session id; a subpath that is
 * absent or empty is the main transcript (as the SDK's `InMemorySessionStore` treats it).
 * @throws SessionTreeError INVALID_ARGUMENT otherwise
 */
function transcriptKey(
	key: SessionKey | { projectKey?: unknown; sessionId?: unknown; subpath?: unknown },
): TranscriptKey {
	if (!isJson(key))
		throw new SessionTreeError("INVALID_ARGUMENT", "a session key is an object { projectKey, sessionId, subpath? }");
	const out: TranscriptKey = {
		projectKey: checkKeyField(key.projectKey, "projectKey"),
		sessionId: checkKeyField(key.sessionId, "sessionId"),
	};
	if (key.subpath !== undefined && key.subpath !== "") out.subpath = checkKeyField(key.subpath, "subpath");
	return out;
}

/**
 * A line as it is stored: a JSON copy (so that what `load` returns is what JSON keeps, and the
 * caller's object may change afterwards).
 * @throws SessionTreeError INVALID_ARGUMENT for a line that is not a JSON object
 */
function jsonLine(entry: unknown, index: number): SessionStoreEntry {
	let copy: unknown;
	try {
		// Nested deeper than a record may be (core/nesting.ts): refused, not left to overflow the stack.
		const encoded = stringifyNested(entry);
		if (encoded.problem !== undefined) {
			throw new SessionTreeError("INVALID_ARGUMENT", `entry ${index} is ${encoded.problem}`);
		}
		copy = JSON.parse(encoded.json ?? "null");
	} catch (cause) {
		if (cause instanceof SessionTreeError) throw cause;
		throw new SessionTreeError("INVALID_ARGUMENT", `entry ${index} is not JSON: ${String(cause)}`);
	}
	if (!isJson(copy)) throw new SessionTreeError("INVALID_ARGUMENT", `entry ${index} is not a JSON object`);
	return copy as SessionStoreEntry;
}
