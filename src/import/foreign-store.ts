/**
 * A store for a file of a collection that may be another agent's transcript (for `ls` and
 * `search` over a directory, and `ls --agents`): a pi session is read by the file store as
 * always, at no extra cost; a file whose first line is not a session header and whose content
 * is of a format session-tree imports is read as the session its import makes, in memory (a
 * Claude Code transcript in a stream: only the envelopes of its entries, claude-code-lazy.ts).
 * It never writes.
 */

import { SessionTreeError } from "../core/errors.js";
import type { SessionHeader } from "../core/types.js";
import { FileSessionStore } from "../storage/file-store.js";
import { startsAsPiSession } from "../storage/lines.js";
import { MemorySessionStore } from "../storage/memory-store.js";
import { readRegularFile } from "../storage/regular-file.js";
import type {
	AppendOutcome,
	ReplaceOutcome,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
} from "../storage/store.js";
import { ImportedSessionStore } from "./read-only.js";
import type { ImportFormat } from "./types.js";

const CAPABILITIES: StoreCapabilities = Object.freeze({
	lazyBodies: true,
	tailReads: false,
	pathReads: false,
	durability: Object.freeze(["none"] as const),
});

let counter = 0;

/** A file read as a pi session, or as the import of another agent's transcript (see the module comment). */
export class ForeignFileStore implements SessionStore {
	readonly capabilities = CAPABILITIES;
	private readonly pi: FileSessionStore;
	private memory: MemorySessionStore | undefined;
	/** A Claude Code transcript read in a stream (claude-code-lazy.ts): what it reads from. */
	private streamed: ImportedSessionStore | undefined;

	/**
	 * @param location the file
	 * @param format its format when known (`ls --agents` knows it by the directory), else told from the content
	 */
	constructor(
		readonly location: string,
		private readonly format?: ImportFormat,
	) {
		this.pi = new FileSessionStore(location);
	}

	async exists(): Promise<boolean> {
		return this.pi.exists();
	}

	async create(_header: SessionHeader): Promise<StorePosition> {
		throw this.refuse();
	}

	async read(): Promise<StoreRead> {
		if (this.format === undefined || this.format === "claude-code") {
			// A pi session is read as the file store reads it; a Claude Code transcript in a stream,
			// never whole (nor first as a session, which would parse every line of it).
			const streamed = startsAsPiSession(this.location) ? undefined : await this.streamFile();
			if (streamed) return streamed;
		}
		if (this.format === undefined) {
			const read = await this.pi.read();
			const first = read.lines[0];
			if (!first || first.record?.type === "session") return read;
			const imported = await this.importFile();
			return imported ?? read;
		}
		const imported = await this.importFile();
		if (!imported) {
			throw new SessionTreeError("INVALID_HEADER", `not a ${this.format} session`, { file: this.location });
		}
		return imported;
	}

	/** The file read in a stream if it is a Claude Code transcript (see claude-code-lazy.ts); else undefined. */
	private async streamFile(): Promise<StoreRead | undefined> {
		const { streamTranscriptFile } = await import("./claude-code-lazy.js");
		const found = await streamTranscriptFile(this.location, { known: this.format === "claude-code" });
		if (!found) return undefined;
		const { lines, transcript } = found;
		if (!transcript) {
			lines.close();
			throw new SessionTreeError("INVALID_HEADER", "holds no session", { file: this.location });
		}
		this.release();
		this.streamed = ImportedSessionStore.view(this.location, "claude-code", transcript.read, () => lines.close());
		return this.streamed.read();
	}

	/** The file's import, read from a memory store; undefined when it is of no format session-tree imports. */
	private async importFile(): Promise<StoreRead | undefined> {
		const { decodeText } = await import("./sources.js");
		const { importText, sessionRecords, sniffFormat } = await import("./index.js");
		const text = decodeText(readRegularFile(this.location));
		const format = this.format ?? sniffFormat(text);
		if (format === undefined || format === "pi") return undefined;
		const [session] = await importText(text, this.location, { from: format });
		if (!session) throw new SessionTreeError("INVALID_HEADER", "holds no session", { file: this.location });
		const [header, ...rest] = sessionRecords(session);
		this.release();
		this.memory = new MemorySessionStore(`foreign-${process.pid}-${++counter}`);
		const position = await this.memory.create(header as SessionHeader);
		await this.memory.append(rest, position);
		return this.memory.read();
	}

	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		const held = this.streamed ?? this.memory;
		return held ? held.readSince(position) : this.pi.readSince(position);
	}

	async append(_records: readonly object[], _expected: StorePosition): Promise<AppendOutcome> {
		throw this.refuse();
	}

	async replace(_records: readonly object[], _expected: StorePosition): Promise<ReplaceOutcome> {
		throw this.refuse();
	}

	derive(_header: SessionHeader): SessionStore {
		throw this.refuse();
	}

	async flush(): Promise<void> {}

	async close(): Promise<void> {
		await this.pi.close();
		this.release();
	}

	/** Forgets what an earlier read holds. */
	private release(): void {
		this.memory?.delete();
		this.memory = undefined;
		this.streamed?.release();
		this.streamed = undefined;
	}

	private refuse(): SessionTreeError {
		return new SessionTreeError("NOT_WRITABLE", "listed read-only: `session-tree import` it to write to it", {
			file: this.location,
		});
	}
}
