/**
 * The JSONL file store: chunked streaming reads, appends of one line per record at the end of
 * the file under an inter-process lock, three durability modes, and atomic whole-file
 * replacement with a backup (used only by explicit migration and repair).
 */

import {
	closeSync,
	constants,
	copyFileSync,
	existsSync,
	fstatSync,
	fsyncSync,
	ftruncateSync,
	mkdirSync,
	openSync,
	readSync,
	renameSync,
	statSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionTreeError } from "../core/errors.js";
import type { ParsedLine } from "../core/load.js";
import { encodeRecord, isBlankLine, isNulPadding, parseLine } from "./codec.js";
import { PARENT_MARKER, readEnvelope } from "./envelope.js";
import { FileLineSource } from "./line-source.js";
import { lineText, scanByteLines } from "./lines.js";
import { acquireLock, type LockOptions } from "./lock.js";
import type { Durability, SessionStore, StoreCursor, StoreRead, TailRead } from "./store.js";

const NEWLINE = 0x0a;

/** Options of {@link FileSessionStore}. */
export interface FileStoreOptions {
	/** Default "none" (pi's behaviour). See docs/durability.md. */
	durability?: Durability;
	/** Group commit: fsync after this many appends. Default 64. */
	groupSize?: number;
	/** Group commit: fsync at the latest this long after the first unsynced append. Default 50 ms. */
	groupDelayMs?: number;
	/** Lock timing. */
	lock?: LockOptions;
}

/** One line of a file, decoded, without its `\n`. */
export interface RawLine {
	/** 1-based physical line number. */
	line: number;
	text: string;
	/** False for a last line with no `\n` after it. */
	terminated: boolean;
	/** Byte offset just after the line (and its `\n`). */
	end: number;
}

/**
 * Decoded lines from byte `start` (see {@link scanByteLines}): never the whole file as one
 * string.
 */
export function* scanLines(fd: number, start = 0, firstLine = 1): Generator<RawLine> {
	for (const bytes of scanByteLines(fd, start, firstLine)) {
		yield {
			line: bytes.line,
			text: lineText(bytes),
			terminated: bytes.terminated,
			end: bytes.offset + bytes.end - bytes.start + (bytes.terminated ? 1 : 0),
		};
	}
}

/** Every line of a file (see {@link scanLines}). */
export function* readFileLines(path: string): Generator<RawLine> {
	const fd = openFile(path, "r");
	try {
		yield* scanLines(fd);
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

/** Fsyncs a directory, so a rename or a new file in it survives a crash. */
export function fsyncDirectory(dir: string): void {
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

/** `base`, or `base.1`, `base.2`, … : the first name that does not exist yet. */
export function freeName(base: string): string {
	for (let n = 0; ; n++) {
		const name = n === 0 ? base : `${base}.${n}`;
		if (!existsSync(name)) return name;
	}
}

/**
 * Writes `text` to `file` atomically: a temporary file in the same directory, fsync, rename
 * over the target, fsync of the directory. The result is owner-only.
 */
export function writeFileAtomic(file: string, text: string): void {
	const dir = dirname(file);
	const temp = join(dir, `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
	try {
		const fd = openFile(temp, "wx", 0o600);
		try {
			writeAll(fd, Buffer.from(text));
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		renameSync(temp, file);
		fsyncDirectory(dir);
	} catch (cause) {
		if (existsSync(temp)) unlinkSync(temp);
		throw cause instanceof SessionTreeError ? cause : ioError(cause, file, "rewrite");
	}
}

/** Writes by this process per session file, across all store objects for it. */
const writesByFile = new Map<string, number>();

function noteWrite(file: string): void {
	writesByFile.set(file, (writesByFile.get(file) ?? 0) + 1);
}

function identityOf(stats: { dev: number; ino: number }): string {
	return `${stats.dev}:${stats.ino}`;
}

/** A session stored in one JSONL file. */
export class FileSessionStore implements SessionStore {
	readonly file: string;
	private readonly durability: Durability;
	private readonly groupSize: number;
	private readonly groupDelayMs: number;
	private readonly lockOptions: LockOptions | undefined;
	private fd: number | undefined;
	private fdIdentity: string | undefined;
	/** Physical lines up to the end of what this store last read or wrote. */
	private lineCount = 0;
	/**
	 * Where the file ended, with a complete last line, after this store's last append, and the
	 * size its last `readSince` saw: when the two agree, nobody wrote since and the tail needs
	 * no check.
	 */
	private endAfterOwnAppend = -1;
	private sizeSeen = -2;
	/** Group commit: appends written but not yet fsynced, and when the first of them was. */
	private unsynced = 0;
	private unsyncedSince = 0;
	private groupTimer: NodeJS.Timeout | undefined;
	/** Sources handed out by `readAll`, whose descriptors `close` releases. */
	private sources: Array<WeakRef<FileLineSource>> = [];

	constructor(file: string, options: FileStoreOptions = {}) {
		this.file = file;
		this.durability = options.durability ?? "none";
		this.groupSize = options.groupSize ?? 64;
		this.groupDelayMs = options.groupDelayMs ?? 50;
		this.lockOptions = options.lock;
	}

	get location(): string {
		return this.file;
	}

	exists(): boolean {
		return existsSync(this.file);
	}

	create(header: object): StoreCursor {
		mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
		// Owner-only: sessions hold conversations, tool output and sometimes secrets.
		const fd = openFile(this.file, "wx", 0o600);
		try {
			writeAll(fd, Buffer.from(encodeRecord(header)));
			if (this.durability !== "none") fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		if (this.durability !== "none") fsyncDirectory(dirname(this.file));
		this.lineCount = 1;
		return this.cursorAt(statSync(this.file));
	}

	/**
	 * Reads the file in 1 MiB chunks. In a current-version file, entries in pi's exact layout
	 * come back as envelopes (read from the bytes in place, see `envelope.ts`) and the rest is
	 * parsed; the returned `source` keeps the file open to read those bodies later.
	 */
	readAll(): StoreRead {
		const fd = openFile(this.file, "r");
		let kept = false;
		try {
			const read = this.readAllFrom(fd);
			kept = read.source !== undefined;
			return read;
		} catch (cause) {
			throw cause instanceof SessionTreeError ? cause : ioError(cause, this.file, "read");
		} finally {
			if (!kept) closeSync(fd);
		}
	}

	private readAllFrom(fd: number): StoreRead {
		const stats = fstatSync(fd);
		const lines: ParsedLine[] = [];
		const checks = new EnvelopeChecks();
		let lazy = false;
		let headerSeen = false;
		let envelopes = 0;
		let previousId: string | undefined;
		let end = 0;
		let count = 0;
		for (const bytes of scanByteLines(fd)) {
			const { buffer, start, line, terminated, offset } = bytes;
			if (lazy && terminated && checks.clean(buffer, start, bytes.end)) {
				const envelope = readEnvelope(buffer, start, bytes.end, offset, line, previousId);
				if (envelope) {
					lines.push(envelope);
					envelopes++;
					previousId = envelope.id;
					end = offset + bytes.end - start + 1;
					count = line;
					continue;
				}
			}
			previousId = undefined;
			const raw: RawLine = {
				line,
				text: lineText(bytes),
				terminated,
				end: offset + bytes.end - start + (terminated ? 1 : 0),
			};
			const parsed = terminated ? this.parseRaw(raw) : this.parseLast(raw);
			if (parsed?.torn) {
				lines.push(parsed);
				break;
			}
			end = raw.end;
			count = line;
			if (!parsed) continue;
			lines.push(parsed);
			if (!headerSeen) {
				headerSeen = true;
				// Envelopes only for the current format: older files are migrated from parsed records.
				lazy = parsed.record?.type === "session" && parsed.record.version === 3;
			}
		}
		this.lineCount = count;
		const identity = identityOf(stats);
		const read: StoreRead = { lines, cursor: { lines: count, offset: end, identity } };
		if (envelopes > 0) read.source = this.track(new FileLineSource(this.file, fd, identity));
		return read;
	}

	private track(source: FileLineSource): FileLineSource {
		this.sources = this.sources.filter((ref) => ref.deref() !== undefined);
		this.sources.push(new WeakRef(source));
		return source;
	}

	readTail(bytes: number): TailRead | undefined {
		let fd: number;
		try {
			fd = openSync(this.file, "r");
		} catch {
			return undefined;
		}
		try {
			const size = fstatSync(fd).size;
			// Reading an eighth of a file from its end is not worth it: read it whole.
			if (bytes * 8 > size) return undefined;
			const head = Buffer.allocUnsafe(Math.min(size, 64 * 1024));
			const headRead = readSync(fd, head, 0, head.length, 0);
			const headerEnd = head.subarray(0, headRead).indexOf(NEWLINE);
			if (headerEnd < 0) return undefined;
			const header = parseLine(stripBom(head.toString("utf8", 0, headerEnd)), 1).record;
			if (header?.type !== "session" || header.version !== 3) return undefined;
			const start = Math.max(headerEnd + 1, size - bytes);
			const window = Buffer.allocUnsafe(size - start);
			let done = 0;
			while (done < window.length) {
				const read = readSync(fd, window, done, window.length - done, start + done);
				if (read === 0) return undefined;
				done += read;
			}
			if (window.length === 0 || window[window.length - 1] !== NEWLINE) return undefined;
			// The window's first line is cut unless the window starts right after the header.
			let from = start === headerEnd + 1 ? 0 : window.indexOf(NEWLINE) + 1;
			const records = [];
			while (from < window.length) {
				const nl = window.indexOf(NEWLINE, from);
				const text = window.toString("utf8", from, nl);
				from = nl + 1;
				if (isBlankLine(text)) continue;
				const parsed = parseLine(text, 0);
				if (!parsed.record) return undefined;
				records.push(parsed.record);
			}
			return { header, records, whole: start === headerEnd + 1 };
		} finally {
			closeSync(fd);
		}
	}

	readSince(cursor: StoreCursor): StoreRead | undefined {
		let stats: ReturnType<typeof statSync>;
		try {
			stats = statSync(this.file);
		} catch {
			return undefined;
		}
		if (identityOf(stats) !== cursor.identity || stats.size < cursor.offset) return undefined;
		this.sizeSeen = stats.size;
		if (stats.size === cursor.offset) return { lines: [], cursor };
		const fd = openFile(this.file, "r");
		try {
			const lines: ParsedLine[] = [];
			let end = cursor.offset;
			let count = cursor.lines;
			for (const raw of scanLines(fd, cursor.offset, cursor.lines + 1)) {
				if (!raw.terminated) break; // being written, or torn: not ours to read yet
				const parsed = this.parseRaw(raw);
				if (parsed) lines.push(parsed);
				end = raw.end;
				count = raw.line;
			}
			this.lineCount = count;
			return { lines, cursor: { lines: count, offset: end, identity: cursor.identity } };
		} finally {
			closeSync(fd);
		}
	}

	lock(): () => void {
		return acquireLock(this.file, this.lockOptions);
	}

	append(records: readonly object[]): StoreCursor {
		const fd = this.appendFd();
		try {
			const untouched = this.sizeSeen === this.endAfterOwnAppend;
			const start = untouched ? this.endAfterOwnAppend : fstatSync(fd).size;
			const prefix = untouched ? "" : this.repairTail(fd, start);
			const data = Buffer.from(prefix + records.map(encodeRecord).join(""));
			this.endAfterOwnAppend = -1;
			writeAll(fd, data);
			noteWrite(this.file);
			this.lineCount += records.length + (prefix ? 1 : 0);
			this.sync(fd);
			// Under the lock nobody else writes, so the file ends where our bytes end (after a
			// tail repair, which may have cut the file, ask the file system).
			const end = untouched ? start + data.length : fstatSync(fd).size;
			this.endAfterOwnAppend = end;
			this.sizeSeen = end;
			return { lines: this.lineCount, offset: end, identity: this.identity(fd) };
		} catch (cause) {
			throw cause instanceof SessionTreeError ? cause : ioError(cause, this.file, "append");
		}
	}

	replace(records: readonly object[]): { backup: string; cursor: StoreCursor } {
		this.close();
		const backup = freeName(`${this.file}.bak`);
		try {
			copyFileSync(this.file, backup, constants.COPYFILE_EXCL);
		} catch (cause) {
			throw ioError(cause, this.file, "back up");
		}
		writeFileAtomic(this.file, records.map(encodeRecord).join(""));
		noteWrite(this.file);
		this.lineCount = records.length;
		return { backup, cursor: this.cursorAt(statSync(this.file)) };
	}

	writeGeneration(): number {
		return writesByFile.get(this.file) ?? 0;
	}

	flush(): void {
		if (this.groupTimer) clearTimeout(this.groupTimer);
		this.groupTimer = undefined;
		if (this.unsynced > 0 && this.fd !== undefined) fsyncSync(this.fd);
		this.unsynced = 0;
	}

	close(): void {
		this.flush();
		if (this.fd !== undefined) {
			closeSync(this.fd);
			this.fd = undefined;
		}
		// Kept: a source read after this reopens its file, and the next close closes it again.
		for (const ref of this.sources) ref.deref()?.close();
		this.fdIdentity = undefined;
		this.endAfterOwnAppend = -1;
	}

	/** The file's identity, looked up once per open handle. */
	private identity(fd: number): string {
		if (this.fdIdentity === undefined) this.fdIdentity = identityOf(fstatSync(fd));
		return this.fdIdentity;
	}

	private cursorAt(stats: { size: number; dev: number; ino: number }): StoreCursor {
		return { lines: this.lineCount, offset: stats.size, identity: identityOf(stats) };
	}

	private parseRaw(raw: RawLine): ParsedLine | undefined {
		return isBlankLine(raw.text) ? undefined : parseLine(raw.text, raw.line, this.file);
	}

	/** A last line without `\n`: a record if it parses whole, else an incomplete (torn) append. */
	private parseLast(raw: RawLine): ParsedLine | undefined {
		if (isBlankLine(raw.text)) return undefined;
		const parsed = parseLine(raw.text, raw.line, this.file);
		if (parsed.record) return parsed;
		const what = isNulPadding(raw.text) ? "NUL bytes" : "an incomplete record";
		const error = new SessionTreeError(
			"TORN_TAIL",
			`the last line is ${what} (${Buffer.byteLength(raw.text)} bytes without a newline)`,
			{ file: this.file, line: raw.line },
		);
		return { line: raw.line, error, torn: true };
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

	/**
	 * Makes sure the next record starts a line. A last line without `\n` that is a whole record
	 * just gets its newline; an incomplete one (a crashed writer's) is copied to a backup file
	 * next to the session and cut off, so the new record is never glued onto it.
	 * @returns the text to write before the records
	 */
	private repairTail(fd: number, size: number): string {
		if (size === 0) return "";
		const last = Buffer.alloc(1);
		readSync(fd, last, 0, 1, size - 1);
		if (last[0] === NEWLINE) return "";
		const start = lastLineStart(fd, size);
		const tail = Buffer.alloc(size - start);
		readSync(fd, tail, 0, tail.length, start);
		if (parseLine(tail.toString("utf8"), 0).record) return "\n";
		const backup = freeName(`${this.file}.torn`);
		const backupFd = openFile(backup, "wx", 0o600);
		try {
			writeAll(backupFd, tail);
			fsyncSync(backupFd);
		} finally {
			closeSync(backupFd);
		}
		fsyncDirectory(dirname(this.file));
		ftruncateSync(fd, start);
		return "";
	}

	private sync(fd: number): void {
		if (this.durability === "fsync") {
			fsyncSync(fd);
		} else if (this.durability === "group") {
			if (this.unsynced === 0) this.unsyncedSince = Date.now();
			this.unsynced++;
			if (this.unsynced >= this.groupSize || Date.now() - this.unsyncedSince >= this.groupDelayMs) {
				this.flush();
			} else if (!this.groupTimer) {
				this.groupTimer = setTimeout(() => this.flush(), this.groupDelayMs);
				this.groupTimer.unref();
			}
		}
	}
}

/**
 * Whether a line may have its envelope read in place: no NUL byte, and exactly one
 * `"parentId":` key (two records glued on one line have two). The next NUL and the next key
 * are searched once per chunk position and remembered, so a chunk is searched about once.
 */
class EnvelopeChecks {
	private buffer: Buffer | undefined;
	private nul = -1;
	private marker = -1;

	clean(buffer: Buffer, start: number, end: number): boolean {
		if (buffer !== this.buffer) {
			this.buffer = buffer;
			this.nul = buffer.indexOf(0);
			this.marker = -2;
		}
		if (this.nul !== -1 && this.nul < start) this.nul = buffer.indexOf(0, start);
		if (this.nul !== -1 && this.nul < end) return false;
		if (this.marker !== -1 && this.marker < start) this.marker = buffer.indexOf(PARENT_MARKER, start);
		if (this.marker === -1 || this.marker >= end) return false;
		this.marker = buffer.indexOf(PARENT_MARKER, this.marker + 1);
		return this.marker === -1 || this.marker >= end;
	}
}

/** Byte offset where the last line of the file starts (just after the previous `\n`). */
function lastLineStart(fd: number, size: number): number {
	const chunk = Buffer.allocUnsafe(64 * 1024);
	let end = size;
	while (end > 0) {
		const start = Math.max(0, end - chunk.length);
		const read = readSync(fd, chunk, 0, end - start, start);
		const nl = chunk.subarray(0, read).lastIndexOf(NEWLINE);
		if (nl !== -1) return start + nl + 1;
		end = start;
	}
	return 0;
}
