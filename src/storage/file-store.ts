/**
 * The JSONL file store: streaming reads, appends of one line per record at the end of the
 * file, and atomic whole-file replacement with a backup (used only by explicit migration).
 */

import {
	closeSync,
	constants,
	copyFileSync,
	existsSync,
	fstatSync,
	fsyncSync,
	mkdirSync,
	openSync,
	readSync,
	renameSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import type { ParsedLine } from "../core/load.js";
import { encodeRecord, isBlankLine, parseLine } from "./codec.js";
import type { SessionStore } from "./store.js";

const CHUNK_SIZE = 1 << 20;
const NEWLINE = 0x0a;

/** Options of {@link FileSessionStore}. */
export interface FileStoreOptions {
	/** fsync after every append. Default false (pi's behaviour: the OS decides when). */
	fsync?: boolean;
}

/** One line of a file, as bytes decoded to text, without its `\n`. */
export interface RawLine {
	line: number;
	text: string;
}

/**
 * Reads a file line by line in 1 MiB chunks, never holding the whole file as one string.
 * A UTF-8 byte-order mark at the start is dropped. Only `\n` (byte 0x0A, which never occurs
 * inside a multi-byte UTF-8 sequence) separates lines.
 */
export function* readFileLines(path: string): Generator<RawLine> {
	const fd = openFile(path, "r");
	try {
		const chunk = Buffer.allocUnsafe(CHUNK_SIZE);
		let carry: Buffer | undefined;
		let line = 0;
		for (;;) {
			const read = readSync(fd, chunk, 0, CHUNK_SIZE, null);
			if (read === 0) break;
			let start = 0;
			for (let nl = chunk.indexOf(NEWLINE, 0); nl !== -1 && nl < read; nl = chunk.indexOf(NEWLINE, start)) {
				line++;
				const text = carry
					? Buffer.concat([carry, chunk.subarray(start, nl)]).toString("utf8")
					: chunk.toString("utf8", start, nl);
				carry = undefined;
				yield { line, text: line === 1 ? stripBom(text) : text };
				start = nl + 1;
			}
			if (start < read) {
				const rest = Buffer.from(chunk.subarray(start, read));
				carry = carry ? Buffer.concat([carry, rest]) : rest;
			}
		}
		if (carry && carry.length > 0) {
			line++;
			const text = carry.toString("utf8");
			yield { line, text: line === 1 ? stripBom(text) : text };
		}
	} finally {
		closeSync(fd);
	}
}

function stripBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function openFile(path: string, flags: string | number, mode?: number): number {
	try {
		return openSync(path, flags, mode);
	} catch (cause) {
		throw ioError(cause, path, "open");
	}
}

function ioError(cause: unknown, path: string, action: string): SessionTreeError {
	const code = (cause as NodeJS.ErrnoException | undefined)?.code;
	if (code === "ENOENT") return new SessionTreeError("FILE_NOT_FOUND", "no such file", { file: path }, { cause });
	if (code === "EEXIST")
		return new SessionTreeError("FILE_EXISTS", "the file already exists", { file: path }, { cause });
	const reason = cause instanceof Error ? cause.message : String(cause);
	return new SessionTreeError("IO_ERROR", `cannot ${action}: ${reason}`, { file: path }, { cause });
}

function writeAll(fd: number, data: Buffer): void {
	let offset = 0;
	while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/** True when the file behind `fd` (opened for reading) is empty or ends in `\n`. */
function endsWithNewline(fd: number): boolean {
	const size = fstatSync(fd).size;
	if (size === 0) return true;
	const last = Buffer.alloc(1);
	readSync(fd, last, 0, 1, size - 1);
	return last[0] === NEWLINE;
}

/** Opens a directory and fsyncs it, so a rename or a new file in it survives a crash. */
function fsyncDirectory(dir: string): void {
	let fd: number | undefined;
	try {
		fd = openSync(dir, constants.O_RDONLY);
		fsyncSync(fd);
	} catch {
		// Some file systems do not allow fsync on directories; the rename itself has happened.
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/** A session stored in one JSONL file. */
export class FileSessionStore implements SessionStore {
	readonly file: string;
	private fd: number | undefined;
	/** True once this store knows the file ends in `\n` (it checked, or it wrote last). */
	private tailKnownGood = false;
	private readonly fsync: boolean;

	constructor(file: string, options: FileStoreOptions = {}) {
		this.file = file;
		this.fsync = options.fsync ?? false;
	}

	get location(): string {
		return this.file;
	}

	exists(): boolean {
		return existsSync(this.file);
	}

	create(header: object): void {
		mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
		// Owner-only: sessions hold conversations, tool output and sometimes secrets.
		const fd = openFile(this.file, "wx", 0o600);
		try {
			writeAll(fd, Buffer.from(encodeRecord(header)));
			if (this.fsync) fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		if (this.fsync) fsyncDirectory(dirname(this.file));
	}

	readLines(): ParsedLine[] {
		const out: ParsedLine[] = [];
		for (const { line, text } of readFileLines(this.file)) {
			if (!isBlankLine(text)) out.push(parseLine(text, line, this.file));
		}
		return out;
	}

	append(records: readonly object[]): void {
		if (records.length === 0) return;
		const fd = this.appendFd();
		let text = records.map(encodeRecord).join("");
		// A last line without its newline (a torn write) must not swallow the new record.
		if (!this.tailKnownGood && !endsWithNewline(fd)) text = `\n${text}`;
		try {
			writeAll(fd, Buffer.from(text));
			if (this.fsync) fsyncSync(fd);
			this.tailKnownGood = true;
		} catch (cause) {
			this.tailKnownGood = false;
			throw ioError(cause, this.file, "append");
		}
	}

	replace(records: readonly object[]): string {
		const dir = dirname(this.file);
		const backup = this.freeBackupName();
		const temp = join(dir, `.${basename(this.file)}.${process.pid}.${Date.now()}.tmp`);
		this.close();
		try {
			copyFileSync(this.file, backup, constants.COPYFILE_EXCL);
			const fd = openFile(temp, "wx", 0o600);
			try {
				writeAll(fd, Buffer.from(records.map(encodeRecord).join("")));
				fsyncSync(fd);
			} finally {
				closeSync(fd);
			}
			renameSync(temp, this.file);
			fsyncDirectory(dir);
		} catch (cause) {
			if (existsSync(temp)) unlinkSync(temp);
			throw cause instanceof SessionTreeError ? cause : ioError(cause, this.file, "rewrite");
		}
		return backup;
	}

	close(): void {
		if (this.fd !== undefined) {
			closeSync(this.fd);
			this.fd = undefined;
		}
		this.tailKnownGood = false;
	}

	private appendFd(): number {
		if (this.fd === undefined) {
			if (!existsSync(this.file)) {
				throw new SessionTreeError("FILE_NOT_FOUND", "the session file disappeared", { file: this.file });
			}
			this.fd = openFile(this.file, "a+");
		}
		return this.fd;
	}

	private freeBackupName(): string {
		for (let n = 0; ; n++) {
			const name = n === 0 ? `${this.file}.bak` : `${this.file}.bak.${n}`;
			if (!existsSync(name)) return name;
		}
	}
}
