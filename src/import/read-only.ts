/**
 * Another agent's history opened as a session without converting it: the session an import
 * makes, held in a memory store, behind a store that reads and never writes. Its location is
 * the source file, so commands and errors name the file the user gave; every write (append,
 * branch, label, fork, migrate, …) fails with NOT_WRITABLE, saying to `session-tree import` it.
 */

import { SessionTreeError } from "../core/errors.js";
import type { SessionHeader } from "../core/types.js";
import { MemorySessionStore } from "../storage/memory-store.js";
import type {
	AppendOutcome,
	ReplaceOutcome,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
	TailRead,
} from "../storage/store.js";
import { FORMAT_NAMES } from "./detect.js";
import type { ImportFormat } from "./types.js";

const CAPABILITIES: StoreCapabilities = Object.freeze({
	lazyBodies: false,
	tailReads: false,
	pathReads: false,
	durability: Object.freeze(["none"] as const),
});

/** The capabilities of a view of a transcript read in a stream: its entries come as envelopes. */
const STREAMED_CAPABILITIES: StoreCapabilities = Object.freeze({ ...CAPABILITIES, lazyBodies: true });

let counter = 0;

/** What a view reads from: the import's records in a memory store, or a transcript read in a stream. */
type Held = { memory: MemorySessionStore } | { streamed: StoreRead; release: () => void };

/**
 * A read-only view of an imported session: its `file` is the source file (so that
 * `Session.file` names it), and every operation reads the records from a memory store, or the
 * envelopes of a transcript read in a stream (claude-code-lazy.ts).
 */
export class ImportedSessionStore implements SessionStore {
	readonly capabilities: StoreCapabilities;
	/** The file the session was read from (`FILE#SESSION` for one of several in it, as before: what `Session.file` gives). */
	readonly file: string;
	private readonly held: Held;
	private readonly format: ImportFormat;
	/** The file to give `session-tree import` (the location may add `#SESSION` to it). */
	private readonly source: string;

	/** Use {@link ImportedSessionStore.hold} or {@link ImportedSessionStore.view}. */
	private constructor(file: string, format: ImportFormat, source: string, held: Held) {
		this.file = file;
		this.format = format;
		this.source = source;
		this.held = held;
		this.capabilities = "streamed" in held ? STREAMED_CAPABILITIES : CAPABILITIES;
	}

	/**
	 * A read-only store holding `records` (the header first), shown as `location` (the source
	 * file, or `FILE#SESSION` for one of several sessions in it); `source` is the file itself.
	 */
	static async hold(
		location: string,
		format: ImportFormat,
		records: readonly object[],
		source = location,
	): Promise<ImportedSessionStore> {
		const memory = new MemorySessionStore(`import-view-${process.pid}-${++counter}`);
		const store = new ImportedSessionStore(location, format, source, { memory });
		const [header, ...rest] = records;
		const position = await memory.create(header as SessionHeader);
		const outcome = await memory.append(rest, position);
		if (outcome.status !== "ok") throw new Error("a fresh memory session refused an append");
		return store;
	}

	/**
	 * A read-only store whose every read gives `read` (envelopes whose bodies its `source`
	 * makes), shown as `location` (the file); `release` frees what the read holds open.
	 */
	static view(location: string, format: ImportFormat, read: StoreRead, release: () => void): ImportedSessionStore {
		return new ImportedSessionStore(location, format, location, { streamed: read, release });
	}

	get location(): string {
		return this.file;
	}

	/** The error every write gets. */
	private refuse(what: string): SessionTreeError {
		return foreignWriteError(this.format, this.source, this.file, what);
	}

	async exists(): Promise<boolean> {
		return true;
	}

	async create(_header: SessionHeader): Promise<StorePosition> {
		throw this.refuse("be created");
	}

	async read(): Promise<StoreRead> {
		if ("memory" in this.held) return this.held.memory.read();
		const { streamed } = this.held;
		return { ...streamed, lines: [...streamed.lines] };
	}

	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		if ("memory" in this.held) return this.held.memory.readSince(position);
		// Nothing is ever appended to it.
		const { streamed } = this.held;
		return position === streamed.position ? { lines: [], position, source: streamed.source } : undefined;
	}

	async readTail(_count: number): Promise<TailRead | undefined> {
		return undefined;
	}

	async append(_records: readonly object[], _expected: StorePosition): Promise<AppendOutcome> {
		throw this.refuse("be written to");
	}

	async replace(_records: readonly object[], _expected: StorePosition): Promise<ReplaceOutcome> {
		throw this.refuse("be rewritten");
	}

	derive(_header: SessionHeader): SessionStore {
		throw this.refuse("be forked or cloned");
	}

	async flush(): Promise<void> {}

	/** Closes the file a streamed transcript's bodies are read from (a later read opens it again). */
	async close(): Promise<void> {
		if ("streamed" in this.held) this.held.release();
	}

	/** Forgets the records (the session can no longer be read again). */
	release(): void {
		if ("memory" in this.held) this.held.memory.delete();
		else this.held.release();
	}
}

/**
 * The error a write to another agent's file gets (code NOT_WRITABLE): it names the file's
 * format and says to `session-tree import` the file (`source`) first; `file` is where it is
 * shown (the file, or `FILE#SESSION`), `what` the write (`be written to`, `take \`repair\``, …).
 */
export function foreignWriteError(format: ImportFormat, source: string, file: string, what: string): SessionTreeError {
	return new SessionTreeError(
		"NOT_WRITABLE",
		`${FORMAT_NAMES[format]}, opened read-only, cannot ${what}: run \`session-tree import ${quoteArg(source)}\` first and use the session it writes (session-tree never writes to another agent's file)`,
		{ file },
	);
}

/** A path as a shell argument: quoted when it holds anything but safe characters. */
function quoteArg(path: string): string {
	return /^[A-Za-z0-9_./:@%+=,-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}
