/**
 * Reading the sessions of a collection for `ls` and `search`. The collection lists them; each
 * session's store reads its lines (a file store hands most entries back as envelopes: type, id,
 * parent, timestamp, role and where the line is, without parsing the line); the core reducer
 * interprets them exactly as an open does; summaries and searches run over the reducer's tree.
 * A body is read only when asked for, through the store's line source: the raw bytes of a line,
 * not decoded, for a pre-filter, or the parsed entry, checked by the core's rules for bodies
 * (`LazyBodies`, which the reducer's tree uses too). There is no second reader of the format
 * here: envelopes come from `storage/envelope.ts`, meaning from the reducer.
 *
 * A session a strict read rejects for damage is read again as a lenient open reads it, with a
 * warning naming the line; one that is not a session at all (no header, a newer format) or
 * that cannot be read is skipped with the reason. Damage in a body nobody reads is not noticed:
 * that line is never parsed.
 */

import { SessionTreeError, type SessionTreeErrorCode } from "../core/errors.js";
import { LazyBodies, type LineSource, type LineVisitor, visitLines } from "../core/lazy.js";
import { loadTree } from "../core/load.js";
import { stripLocation } from "../core/reducer.js";
import type { SessionTree } from "../core/tree.js";
import type { Envelope, TreeNode } from "../core/tree-node.js";
import type { SessionEntry } from "../core/types.js";
import { countOf } from "../render/preview.js";
import type { SessionCollection, SessionListing, SessionStore, StorePosition, StoreRead } from "../storage/store.js";

/** A parsed JSON record. */
export type JsonRecord = Record<string, unknown>;

/** A session that is not listed, and why: not a session at all, or unreadable. */
export class SkippedFile extends Error {
	/** The session's location (a file path for a directory collection). */
	readonly file: string;
	constructor(file: string, reason: string) {
		super(reason);
		this.name = "SkippedFile";
		this.file = file;
	}
}

/** Errors of a strict read that a lenient read works around. */
const DAMAGE = new Set<SessionTreeErrorCode>([
	"INVALID_JSON",
	"NUL_PADDING",
	"GLUED_RECORDS",
	"INVALID_RECORD",
	"MISSING_PARENT",
	"DUPLICATE_ID",
	"PARENT_CYCLE",
	"ENTRY_NOT_FOUND",
]);

/** Errors that mean the stream is no session (or none this library reads). */
const NOT_A_SESSION = new Set<SessionTreeErrorCode>(["INVALID_HEADER", "EMPTY_FILE"]);

/**
 * A line source that keeps the texts of the lines a pre-filter let through: the bodies the
 * reducer parses next (through this source) are then not read and decoded a second time.
 */
class RememberingSource implements LineSource {
	private remembered = new Map<Envelope, string>();

	constructor(
		/** The store's source. */
		readonly source: LineSource,
	) {}

	/** Keeps these texts (and forgets those kept before). */
	remember(texts: Map<Envelope, string>): void {
		this.remembered = texts;
	}

	readLines(spans: readonly Envelope[]): string[] {
		if (this.remembered.size === 0) return this.source.readLines(spans);
		const texts: string[] = new Array(spans.length);
		const missing: Envelope[] = [];
		const at: number[] = [];
		spans.forEach((span, i) => {
			const text = this.remembered.get(span);
			if (text !== undefined) texts[i] = text;
			else {
				missing.push(span);
				at.push(i);
			}
		});
		if (missing.length > 0) {
			const read = this.source.readLines(missing);
			at.forEach((i, k) => {
				texts[i] = read[k] as string;
			});
		}
		return texts;
	}
}

/** Raw bytes of a line as a Buffer (the store's own, or a view of other bytes), to search or decode. */
export function asBuffer(bytes: Uint8Array): Buffer {
	return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** One session as the reducer read it, with its raw lines at hand. */
export class CatalogSession {
	private readonly bodies: LazyBodies | undefined;

	constructor(
		/** Where the session is (a file path for a directory collection). */
		readonly location: string,
		/** The settled tree, its leaf where the stream puts it. */
		readonly tree: SessionTree,
		private readonly source: LineSource | undefined,
		/** The size the collection listed (0 when it does not know). */
		readonly bytes: number,
		/** When the session last changed, as the collection listed it (the epoch when it does not know). */
		readonly modified: Date,
		/** Problems that did not stop the session from being read. */
		readonly warnings: readonly string[],
		/** Read as a lenient open reads it (bodies that do not parse become stubs instead of errors). */
		lenient = false,
	) {
		this.bodies = source && new LazyBodies(source, { lenient, file: location, problems: [] });
	}

	/** The header, as read (migrated to the current version). */
	get header(): JsonRecord {
		return this.tree.header as unknown as JsonRecord;
	}

	/** The entries (persisted-leaf records excluded), in stream order. */
	get nodes(): readonly TreeNode[] {
		return this.tree.nodesInOrder();
	}

	/** The number of leaves, as `Session.listBranches().length`. */
	get branches(): number {
		let leaves = 0;
		for (const node of this.tree.nodesInOrder()) if (!node.firstChild) leaves++;
		return leaves;
	}

	/**
	 * The entries of these nodes; unparsed bodies are parsed in one pass over the store, by the
	 * core's rules (a strict read throws for a body that does not parse). They are not kept in
	 * the tree: a summary or search looks at each once, and keeping every entry would hold the
	 * whole session in memory.
	 */
	entries(nodes: readonly TreeNode[]): SessionEntry[] {
		const unparsed = nodes.filter((node) => this.unparsed(node));
		const parsed = this.bodies?.load(unparsed.map((node) => node.envelope as Envelope)) ?? [];
		let next = 0;
		return nodes.map((node) => (this.unparsed(node) ? (parsed[next++] as SessionEntry) : node.entry));
	}

	/** True when the store left the node's body unparsed: its raw line can be read. */
	unparsed(node: TreeNode): boolean {
		return this.source !== undefined && node.envelope !== undefined && !node.loaded;
	}

	/**
	 * Visits the raw lines of unparsed nodes (see {@link unparsed}) in one pass over the store,
	 * without decoding them; `index` is the node's in `nodes` (see `LineSource.visitLines`).
	 */
	visitLines(nodes: readonly TreeNode[], visit: LineVisitor): void {
		if (nodes.length === 0) return;
		visitLines(
			this.storeSource(),
			nodes.map((node) => node.envelope as Envelope),
			visit,
		);
	}

	/**
	 * The unparsed nodes whose raw line `keep` accepts, in the order given, read in one pass
	 * over the store. The lines kept are decoded and remembered until the next call, so parsing
	 * those nodes next does not read them again.
	 */
	filterLines(
		nodes: readonly TreeNode[],
		keep: (bytes: Uint8Array, start: number, end: number) => boolean,
	): TreeNode[] {
		const kept = new Array<boolean>(nodes.length).fill(false);
		const texts = new Map<Envelope, string>();
		this.visitLines(nodes, (index, bytes, start, end) => {
			if (!keep(bytes, start, end)) return;
			kept[index] = true;
			texts.set((nodes[index] as TreeNode).envelope as Envelope, asBuffer(bytes).toString("utf8", start, end));
		});
		if (this.source instanceof RememberingSource) this.source.remember(texts);
		return nodes.filter((_, i) => kept[i]);
	}

	/** The store's own source (not the one that remembers texts). */
	private storeSource(): LineSource {
		if (!this.source) throw new Error("this session's store returned no unparsed lines");
		return this.source instanceof RememberingSource ? this.source.source : this.source;
	}
}

/** The sessions a collection lists, by location. */
export async function listSessions(collection: SessionCollection): Promise<SessionListing[]> {
	const listings: SessionListing[] = [];
	for await (const listing of collection.list()) listings.push(listing);
	return listings.sort((a, b) => compareLocations(a.location, b.location));
}

/**
 * The positions of the listings, smallest session first (ties in the order given): the order a
 * catalog reads sessions in when it reads them all. The largest then come when the code is warm
 * and the heap has grown: their trees cost the garbage collector less than when read first
 * (and the newest session, which a search would read first, is often the largest).
 */
export function smallestFirst(listings: readonly SessionListing[]): number[] {
	const bytes = (i: number) => listings[i]?.bytes ?? 0;
	return listings.map((_, i) => i).sort((a, b) => bytes(a) - bytes(b) || a - b);
}

/** Orders locations by code unit. */
export function compareLocations(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * What {@link readSession} gives back: the session, what `use` made of it, and where the read
 * ended (the store's position after the last complete line: the catalog index reads what is
 * appended after it with `readSince`) and the version the stream had (below 3: migrated).
 */
export interface SessionRead<T> {
	session: CatalogSession;
	value: T;
	position: StorePosition;
	fromVersion: number;
}

/**
 * Reads one listed session of a collection and runs `use` over it (see {@link readSession}),
 * then closes its store.
 * @throws SkippedFile for a session that is not one or cannot be read
 */
export async function readListed<T>(
	collection: SessionCollection,
	listing: SessionListing,
	use: (session: CatalogSession) => T | Promise<T>,
): Promise<SessionRead<T>> {
	let store: SessionStore;
	try {
		store = collection.open(listing.location);
	} catch (error) {
		throw skipped(listing.location, error);
	}
	try {
		return await readSession(store, listing, use);
	} finally {
		await store.close();
	}
}

/**
 * Reads a session through its store and the reducer (strict), and runs `use` over it (it may
 * be asynchronous: a large session's read then lets the event loop turn). If the
 * reducer, or `use` parsing a body, finds damage, the session is read again as a lenient open
 * reads it and `use` runs again from the start on that (so `use` must not keep state between
 * calls), with one warning naming the first problem.
 * @throws SkippedFile for a session that is not one or cannot be read
 */
export async function readSession<T>(
	store: SessionStore,
	listing: Omit<SessionListing, "location">,
	use: (session: CatalogSession) => T | Promise<T>,
): Promise<SessionRead<T>> {
	const location = store.location;
	let read: StoreRead;
	try {
		read = await store.read();
	} catch (error) {
		throw skipped(location, error);
	}
	const source = read.source && new RememberingSource(read.source);
	let strictError: SessionTreeError;
	try {
		const { tree, problems, fromVersion } = loadTree(read.lines, { file: location, source });
		// A strict read throws on every problem but an incomplete last line, which it leaves out.
		const warnings = problems.map((problem) => withLine(problem.message, problem.line));
		const session = new CatalogSession(location, tree, source, listing.bytes ?? 0, modifiedOf(listing), warnings);
		return { session, value: (await use(session)) as T, position: read.position, fromVersion };
	} catch (error) {
		if (!(error instanceof SessionTreeError) || !DAMAGE.has(error.code)) throw skipped(location, error);
		strictError = error;
	}
	try {
		const { tree, problems, fromVersion } = loadTree(read.lines, { lenient: true, file: location, source });
		// Every body, so the warning counts every problem, as `Session.open(…, { lenient, verify })` does.
		tree.getEntries();
		const more = problems.length > 1 ? ` (and ${countOf(problems.length - 1, "more problem")})` : "";
		const warning = `damaged: ${reasonOf(strictError)}${more}; read as a lenient open reads it`;
		const session = new CatalogSession(
			location,
			tree,
			source,
			listing.bytes ?? 0,
			modifiedOf(listing),
			[warning],
			true,
		);
		return { session, value: (await use(session)) as T, position: read.position, fromVersion };
	} catch (error) {
		throw skipped(location, error instanceof SessionTreeError && DAMAGE.has(error.code) ? strictError : error);
	}
}

function modifiedOf(listing: Omit<SessionListing, "location">): Date {
	return listing.modified ?? new Date(0);
}

/** A SkippedFile for a read that failed with `error`; errors that are not the session's are thrown on. */
function skipped(location: string, error: unknown): SkippedFile {
	if (!(error instanceof SessionTreeError)) throw error;
	const reason = reasonOf(error);
	return new SkippedFile(location, NOT_A_SESSION.has(error.code) ? `not a session file: ${reason}` : reason);
}

/** An error's message without the file its constructor put in front (the warning names it). */
function reasonOf(error: SessionTreeError): string {
	if (error.line !== undefined) return withLine(stripLocation(error), error.line);
	const prefix = error.file === undefined ? "" : `${error.file}: `;
	return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

function withLine(message: string, line: number | undefined): string {
	return line === undefined || line === 0 ? message : `line ${line}: ${message}`;
}
