/**
 * A store that keeps the lines in memory: same codec, same behaviour, no file. Sessions are
 * held in named spaces: every store object for `memory:NAME` in this process sees the same
 * lines, as every store object for one path sees the same file, so several writers can share
 * a memory session through separate stores.
 */

import { SessionTreeError } from "../core/errors.js";
import type { ParsedLine } from "../core/records.js";
import type { SessionHeader } from "../core/types.js";
import { encodeRecord, isBlankLine, parseLine } from "./codec.js";
import type {
	AppendOutcome,
	CollectionCapabilities,
	ReplaceOutcome,
	SessionCollection,
	SessionListing,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
} from "./store.js";

/** The lines of one memory session and how often it was replaced. */
interface MemoryRecords {
	lines: string[];
	generation: number;
	backups: string[][];
	modified: Date;
}

/** Every memory session of this process, by name. */
const spaces = new Map<string, MemoryRecords>();
let counter = 0;

const CAPABILITIES: StoreCapabilities = Object.freeze({
	lazyBodies: false,
	tailReads: false,
	pathReads: false,
	durability: Object.freeze(["none"] as const),
});

/** The name part of a `memory:NAME` location (names are free text but never empty). */
function nameOf(location: string): string {
	const name = location.startsWith("memory:") ? location.slice("memory:".length) : location;
	if (name === "") throw new SessionTreeError("INVALID_ARGUMENT", "a memory location needs a name: memory:NAME");
	return name;
}

/**
 * An in-memory {@link SessionStore}. Lines are encoded and parsed exactly as in a file, so a
 * session reopened from it behaves as one reopened from disk.
 */
export class MemorySessionStore implements SessionStore {
	readonly location: string;
	readonly capabilities = CAPABILITIES;
	private readonly name: string;

	/** @param name the session's name in this process; default: a fresh one */
	constructor(name = `session-${++counter}`) {
		this.name = nameOf(name);
		this.location = `memory:${this.name}`;
	}

	async exists(): Promise<boolean> {
		return spaces.has(this.name);
	}

	async create(header: SessionHeader): Promise<StorePosition> {
		if (spaces.has(this.name)) throw new SessionTreeError("FILE_EXISTS", "the session already exists", this.where());
		const records: MemoryRecords = {
			lines: [encodeRecord(header, this.location)],
			generation: 0,
			backups: [],
			modified: new Date(),
		};
		spaces.set(this.name, records);
		return positionOf(records);
	}

	async read(): Promise<StoreRead> {
		const records = this.required();
		return { lines: this.parse(records, 0), position: positionOf(records) };
	}

	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		const records = spaces.get(this.name);
		const at = records && this.decode(position);
		if (!records || !at || at.generation !== records.generation || at.count > records.lines.length) return undefined;
		return { lines: this.parse(records, at.count), position: positionOf(records) };
	}

	/** Done when it returns: the outcome itself, no promise (see {@link SessionStore.append}). */
	append(records: readonly object[], expected: StorePosition): AppendOutcome {
		const stored = this.required();
		const behind = this.behind(stored, expected);
		if (behind) return behind;
		// All encoded first: a record the codec refuses appends none of them.
		const lines = records.map((record) => encodeRecord(record, this.location));
		for (const line of lines) stored.lines.push(line);
		stored.modified = new Date();
		return { status: "ok", position: positionOf(stored) };
	}

	async replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		const stored = this.required();
		const behind = this.behind(stored, expected);
		if (behind) return behind;
		const lines = records.map((record) => encodeRecord(record, this.location));
		stored.backups.push(stored.lines);
		stored.lines = lines;
		stored.generation++;
		stored.modified = new Date();
		return { status: "ok", backup: `${this.location}#backup-${stored.backups.length}`, position: positionOf(stored) };
	}

	/**
	 * `memory:THIS/ID`: named under this session, so that forks of different sessions never
	 * collide in the process-wide space even when their ids repeat (a seeded id generator).
	 */
	derive(header: SessionHeader): MemorySessionStore {
		return new MemorySessionStore(`${this.name}/${header.id}`);
	}

	/** The stored text, as a file would hold it. */
	text(): string {
		return (spaces.get(this.name)?.lines ?? []).join("");
	}

	async flush(): Promise<void> {}

	async close(): Promise<void> {}

	/** Forgets the session (for tests and long-running processes that create many). */
	delete(): void {
		spaces.delete(this.name);
	}

	/** Synchronous on purpose: the check and the write happen in one turn, with no other writer between. */
	private behind(stored: MemoryRecords, expected: StorePosition): Exclude<AppendOutcome, { status: "ok" }> | undefined {
		const at = this.decode(expected);
		if (at.generation !== stored.generation || at.count > stored.lines.length) return { status: "stale" };
		if (at.count === stored.lines.length) return undefined;
		return { status: "behind", read: { lines: this.parse(stored, at.count), position: positionOf(stored) } };
	}

	private where(): { file: string } {
		return { file: this.location };
	}

	private required(): MemoryRecords {
		const records = spaces.get(this.name);
		if (!records) throw new SessionTreeError("FILE_NOT_FOUND", "no such session", this.where());
		return records;
	}

	private decode(position: StorePosition): { generation: number; count: number } {
		const [generation, count] = position.split("/").map(Number);
		if (
			generation === undefined ||
			count === undefined ||
			!Number.isSafeInteger(generation) ||
			!Number.isSafeInteger(count)
		) {
			throw new SessionTreeError("INVALID_ARGUMENT", `not a position of this store: ${JSON.stringify(position)}`);
		}
		return { generation, count };
	}

	private parse(records: MemoryRecords, from: number): ParsedLine[] {
		const out: ParsedLine[] = [];
		for (const [k, line] of records.lines.slice(from).entries()) {
			const text = line.slice(0, -1);
			if (!isBlankLine(text)) out.push(parseLine(text, from + k + 1, this.location));
		}
		return out;
	}
}

function positionOf(records: MemoryRecords): StorePosition {
	return `${records.generation}/${records.lines.length}`;
}

const COLLECTION_CAPABILITIES: CollectionCapabilities = Object.freeze({ listing: true, search: false, remove: true });

/** Every memory session of this process, as one collection (`memory:`). */
export class MemoryCollection implements SessionCollection {
	readonly location = "memory:";
	readonly capabilities = COLLECTION_CAPABILITIES;

	async *list(): AsyncIterable<SessionListing> {
		for (const [name, records] of [...spaces]) {
			yield {
				location: `memory:${name}`,
				modified: records.modified,
				bytes: Buffer.byteLength(records.lines.join("")),
			};
		}
	}

	open(location: string): MemorySessionStore {
		return new MemorySessionStore(location);
	}

	/** `memory:ID`, by the header's id. */
	sessionFor(header: SessionHeader): MemorySessionStore {
		return new MemorySessionStore(header.id);
	}

	/**
	 * Forgets a memory session.
	 * @throws SessionTreeError FILE_NOT_FOUND for a session that does not exist (as the other collections)
	 */
	async remove(location: string): Promise<void> {
		const store = new MemorySessionStore(location);
		// Checked and deleted in one turn: of removes at once, one finds the session.
		if (!spaces.has(nameOf(location))) {
			throw new SessionTreeError("FILE_NOT_FOUND", "no such session", { file: store.location });
		}
		store.delete();
	}
}
