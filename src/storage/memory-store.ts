/** A store that keeps the lines in memory: same codec, same behaviour, no file. */

import { SessionTreeError } from "../core/errors.js";
import type { ParsedLine } from "../core/load.js";
import { encodeRecord, isBlankLine, parseLine } from "./codec.js";
import type { SessionStore } from "./store.js";

let counter = 0;

/** An in-memory {@link SessionStore}. Lines are encoded and parsed exactly as in a file. */
export class MemorySessionStore implements SessionStore {
	readonly location: string;
	readonly file = undefined;
	private lines: string[] | undefined;
	private readonly backups: string[][] = [];

	constructor(name = `session-${++counter}`) {
		this.location = `memory:${name}`;
	}

	exists(): boolean {
		return this.lines !== undefined;
	}

	create(header: object): void {
		if (this.lines) throw new SessionTreeError("FILE_EXISTS", `${this.location} already exists`);
		this.lines = [encodeRecord(header)];
	}

	readLines(): ParsedLine[] {
		if (!this.lines) throw new SessionTreeError("FILE_NOT_FOUND", `${this.location} does not exist`);
		const out: ParsedLine[] = [];
		this.lines.forEach((text, index) => {
			const body = text.endsWith("\n") ? text.slice(0, -1) : text;
			if (!isBlankLine(body)) out.push(parseLine(body, index + 1, this.location));
		});
		return out;
	}

	append(records: readonly object[]): void {
		if (!this.lines) throw new SessionTreeError("NOT_WRITABLE", `${this.location} has not been created`);
		for (const record of records) this.lines.push(encodeRecord(record));
	}

	replace(records: readonly object[]): string {
		this.backups.push(this.lines ?? []);
		this.lines = records.map(encodeRecord);
		return `${this.location}#backup-${this.backups.length}`;
	}

	/** The stored text, as a file would hold it. */
	text(): string {
		return (this.lines ?? []).join("");
	}

	close(): void {}
}
