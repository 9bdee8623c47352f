/** A store that keeps the lines in memory: same codec, same behaviour, no file. */

import { SessionTreeError } from "../core/errors.js";
import type { ParsedLine } from "../core/load.js";
import { encodeRecord, isBlankLine, parseLine } from "./codec.js";
import type { SessionStore, StoreCursor, StoreRead } from "./store.js";

let counter = 0;

/**
 * An in-memory {@link SessionStore}. Lines are encoded and parsed exactly as in a file, so a
 * session reopened from it behaves as one reopened from disk. Several sessions may share it.
 */
export class MemorySessionStore implements SessionStore {
	readonly location: string;
	readonly file = undefined;
	private lines: string[] | undefined;
	private generation = 0;
	private writes = 0;
	private readonly backups: string[][] = [];

	constructor(name = `session-${++counter}`) {
		this.location = `memory:${name}`;
	}

	exists(): boolean {
		return this.lines !== undefined;
	}

	create(header: object): StoreCursor {
		if (this.lines) throw new SessionTreeError("FILE_EXISTS", `${this.location} already exists`);
		this.lines = [encodeRecord(header)];
		return this.cursor();
	}

	readAll(): StoreRead {
		return { lines: this.parse(0), cursor: this.cursor() };
	}

	readSince(cursor: StoreCursor): StoreRead | undefined {
		if (cursor.identity !== String(this.generation)) return undefined;
		return { lines: this.parse(cursor.lines), cursor: this.cursor() };
	}

	lock(): () => void {
		return () => {};
	}

	append(records: readonly object[]): StoreCursor {
		const lines = this.required();
		for (const record of records) lines.push(encodeRecord(record));
		this.writes++;
		return this.cursor();
	}

	replace(records: readonly object[]): { backup: string; cursor: StoreCursor } {
		this.backups.push(this.lines ?? []);
		this.lines = records.map(encodeRecord);
		this.generation++;
		this.writes++;
		return { backup: `${this.location}#backup-${this.backups.length}`, cursor: this.cursor() };
	}

	/** The stored text, as a file would hold it. */
	text(): string {
		return (this.lines ?? []).join("");
	}

	writeGeneration(): number {
		return this.writes;
	}

	flush(): void {}

	close(): void {}

	private required(): string[] {
		if (!this.lines) throw new SessionTreeError("FILE_NOT_FOUND", `${this.location} does not exist`);
		return this.lines;
	}

	private parse(from: number): ParsedLine[] {
		const out: ParsedLine[] = [];
		const lines = this.required();
		for (let index = from; index < lines.length; index++) {
			const text = (lines[index] as string).slice(0, -1);
			if (!isBlankLine(text)) out.push(parseLine(text, index + 1, this.location));
		}
		return out;
	}

	private cursor(): StoreCursor {
		const lines = this.lines?.length ?? 0;
		return { lines, offset: lines, identity: String(this.generation) };
	}
}
