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
	realpathSync,
	renameSync,
	type Stats,
	statSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { readEnvelope } from "../core/envelope.js";
import { describeSystemError, SessionTreeError } from "../core/errors.js";
import type { ParsedLine, RawRecord } from "../core/records.js";
import type { Envelope } from "../core/tree-node.js";
import type { SessionHeader } from "../core/types.js";
import { errorCode } from "../core/validate.js";
import { encodeRecord, encodeRecords, isBlankLine, isNulPadding, isWholeLine, parseLine } from "./codec.js";
import { FileLineSource, fileIdentity as identityOf } from "./line-source.js";
import { lineText, scanByteLines } from "./lines.js";
import type { LockOptions, ReleaseLock } from "./lock.js";
import { indexOfParentMarker } from "./parent-marker.js";
import { sessionFileName } from "./paths.js";
import { openRegularFile } from "./regular-file.js";
import type {
	AppendOutcome,
	Awaitable,
	Durability,
	ReplaceOutcome,
	SessionStore,
	StoreCapabilities,
	StorePosition,
	StoreRead,
	TailRead,
} from "./store.js";

const NEWLINE = 0x0a;

/** Waits `ms` milliseconds (a plain timer: node:timers/promises would load more modules at start-up). */
function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

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
	const fd = openForReading(path).fd;
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

/**
 * Opens a file to read it: only a regular file (or a link to one), never blocking (a FIFO
 * given as a session would block its open forever; see regular-file.ts).
 */
function openForReading(path: string, flags?: number): { fd: number; stats: Stats } {
	try {
		return openRegularFile(path, flags);
	} catch (cause) {
		throw cause instanceof SessionTreeError ? cause : ioError(cause, path, "open");
	}
}

function ioError(cause: unknown, path: string, action: string): SessionTreeError {
	const code = errorCode(cause);
	if (code === "ENOENT") return new SessionTreeError("FILE_NOT_FOUND", "no such file", { file: path }, { cause });
	if (code === "EEXIST")
		return new SessionTreeError("FILE_EXISTS", "the file already exists", { file: path }, { cause });
	return new SessionTreeError("IO_ERROR", `cannot ${action}: ${describeSystemError(cause)}`, { file: path }, { cause });
}

function writeAll(fd: number, data: Buffer): void {
	let offset = 0;
	while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/** Removes a file this store created and could not finish; a failure to remove it changes nothing. */
function removeQuietly(path: string): void {
	try {
		unlinkSync(path);
	} catch {
		// Already gone, or not removable: the error being reported matters more.
	}
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

/**
 * The file a path names once symbolic links are followed; the path itself when nothing is
 * there yet (a session about to be created). Rewrites and the lock go to this file: a repair
 * that renamed its clean copy over a link would replace the link and leave the session it
 * points to damaged, with later writers split between the two files.
 */
export function realFile(file: string): string {
	try {
		return realpathSync(file);
	} catch (cause) {
		if (errorCode(cause) === "ENOENT") return file;
		throw ioError(cause, file, "resolve");
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
		removeQuietly(temp);
		throw cause instanceof SessionTreeError ? cause : ioError(cause, file, "rewrite");
	}
}

/**
 * A file position: the file's identity, the byte offset, the physical lines before it, and
 * whether the last of them is a whole record that still lacks its newline (a crashed writer's:
 * the next append writes the newline first).
 */
interface FilePosition {
	identity: string;
	offset: number;
	lines: number;
	owesNewline?: boolean;
}

function encodePosition(position: FilePosition): StorePosition {
	const base = `${position.identity}/${position.offset}/${position.lines}`;
	return position.owesNewline ? `${base}/+` : base;
}

function decodePosition(position: StorePosition, file: string): FilePosition {
	const [identity, offset, lines, owes] = position.split("/");
	const parsed = { identity: identity ?? "", offset: Number(offset), lines: Number(lines), owesNewline: owes === "+" };
	if (!Number.isSafeInteger(parsed.offset) || !Number.isSafeInteger(parsed.lines)) {
		throw new SessionTreeError("INVALID_ARGUMENT", `not a position of this store: ${JSON.stringify(position)}`, {
			file,
		});
	}
	return parsed;
}

/** A compare-and-write that did not happen. */
type WriteNotDone = Exclude<AppendOutcome, { status: "ok" }>;

/** Longest a lease is kept by a burst of appends that never lets the event loop turn. */
const LEASE_MS = 100;
/** How long such a burst leaves the lock free before taking it again (waiters poll every few ms). */
const LEASE_GAP_MS = 5;

/** Files under this size are read whole: the end alone is not worth a second read. */
const TAIL_MIN_FILE = 8 * 1024 * 1024;

const CAPABILITIES: StoreCapabilities = Object.freeze({
	lazyBodies: true,
	tailReads: true,
	pathReads: false,
	durability: Object.freeze(["none", "fsync", "group"] as const),
});

/**
 * A session stored in one JSONL file. Appends hold the inter-process lock (`<file>.lock`)
 * while they check the position and write; the lock is kept until the current turn of the
 * event loop ends, so a burst of appends pays for one lock and other processes wait at most
 * for the end of the burst.
 */
export class FileSessionStore implements SessionStore {
	readonly file: string;
	readonly capabilities = CAPABILITIES;
	private readonly durability: Durability;
	private readonly groupSize: number;
	private readonly groupDelayMs: number;
	private readonly lockOptions: LockOptions | undefined;
	private fd: number | undefined;
	private fdIdentity: string | undefined;
	/** Physical lines up to the end of what this store last read or wrote. */
	private lineCount = 0;
	/** Group commit: appends written but not yet fsynced, and when the first of them was. */
	private unsynced = 0;
	private unsyncedSince = 0;
	private groupTimer: NodeJS.Timeout | undefined;
	/** A failed fsync of the group timer, for the next caller (see `flushLater`). */
	private deferred: SessionTreeError | undefined;
	/** Sources handed out by `read`, whose descriptors `close` releases. */
	private sources: Array<WeakRef<FileLineSource>> = [];
	/** The lock, while this store holds it (until the end of the current event-loop turn). */
	private lease: ReleaseLock | undefined;
	/** When the lease was taken, and a count that tells leases apart (for the release at the turn's end). */
	private leaseSince = 0;
	private leaseGeneration = 0;
	/** The lease under which the path was last stat'ed and found to be the file of the descriptor. */
	private checkedLease = -1;
	/** The position of this store's last append, and its decoded form (see `ownPosition`). */
	private lastWritten: { text: StorePosition; at: FilePosition } | undefined;
	/** Two bytes for {@link endsAt}'s probe. */
	private readonly probe = Buffer.alloc(2);
	private readonly options: FileStoreOptions;

	constructor(file: string, options: FileStoreOptions = {}) {
		this.file = file;
		this.options = options;
		this.durability = options.durability ?? "none";
		this.groupSize = options.groupSize ?? 64;
		this.groupDelayMs = options.groupDelayMs ?? 50;
		this.lockOptions = options.lock;
	}

	get location(): string {
		return this.file;
	}

	async exists(): Promise<boolean> {
		return existsSync(this.file);
	}

	derive(header: SessionHeader): FileSessionStore {
		return new FileSessionStore(join(dirname(this.file), sessionFileName(header.timestamp, header.id)), this.options);
	}

	async create(header: SessionHeader): Promise<StorePosition> {
		mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
		// Owner-only: sessions hold conversations, tool output and sometimes secrets.
		const line = Buffer.from(encodeRecord(header, this.file)); // a header the codec refuses creates no file
		const fd = openFile(this.file, "wx", 0o600);
		try {
			writeAll(fd, line);
			if (this.durability !== "none") fsyncSync(fd);
		} catch (cause) {
			// A session that could not be written whole is not left behind half written.
			closeSync(fd);
			removeQuietly(this.file);
			throw ioError(cause, this.file, "create");
		}
		closeSync(fd);
		if (this.durability !== "none") fsyncDirectory(dirname(this.file));
		this.lineCount = 1;
		return encodePosition(this.positionAt(statSync(this.file)));
	}

	/**
	 * Reads the file in 1 MiB chunks. In a current-version file, entries in pi's exact layout
	 * come back as envelopes (read from the bytes in place, see `envelope.ts`) and the rest is
	 * parsed; the returned `source` keeps the file open to read those bodies later.
	 */
	async read(): Promise<StoreRead> {
		const { fd, stats } = openForReading(this.file);
		let kept = false;
		try {
			const read = this.readAllFrom(fd, stats);
			kept = read.source !== undefined;
			return read;
		} catch (cause) {
			throw cause instanceof SessionTreeError ? cause : ioError(cause, this.file, "read");
		} finally {
			if (!kept) closeSync(fd);
		}
	}

	private readAllFrom(fd: number, stats: Stats): StoreRead {
		const lines: ParsedLine[] = [];
		const checks = new EnvelopeChecks();
		let lazy = false;
		let headerSeen = false;
		let envelopes = 0;
		let previous: Envelope | undefined;
		let end = 0;
		let count = 0;
		let owesNewline = false;
		for (const bytes of scanByteLines(fd)) {
			const { buffer, start, line, terminated, offset } = bytes;
			if (lazy && terminated && checks.clean(buffer, start, bytes.end)) {
				const envelope = readEnvelope(buffer, start, bytes.end, offset, line, previous);
				if (envelope) {
					lines.push(envelope);
					envelopes++;
					previous = envelope;
					end = offset + bytes.end - start + 1;
					count = line;
					continue;
				}
			}
			previous = undefined;
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
			owesNewline = !terminated;
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
		const read: StoreRead = { lines, position: encodePosition({ lines: count, offset: end, identity, owesNewline }) };
		if (envelopes > 0) read.source = this.track(new FileLineSource(this.file, fd, identity));
		return read;
	}

	private track(source: FileLineSource): FileLineSource {
		this.sources = this.sources.filter((ref) => ref.deref() !== undefined);
		this.sources.push(new WeakRef(source));
		return source;
	}

	async readTail(count: number): Promise<TailRead | undefined> {
		let fd: number;
		let size: number;
		try {
			({
				fd,
				stats: { size },
			} = openRegularFile(this.file));
		} catch {
			return undefined; // the full read says why
		}
		try {
			return this.readTailFrom(fd, size, count);
		} finally {
			closeSync(fd);
		}
	}

	private readTailFrom(fd: number, size: number, count: number): TailRead | undefined {
		if (size < TAIL_MIN_FILE) return undefined;
		const head = Buffer.allocUnsafe(Math.min(size, 64 * 1024));
		const headRead = readSync(fd, head, 0, head.length, 0);
		const headerEnd = head.subarray(0, headRead).indexOf(NEWLINE);
		if (headerEnd < 0) return undefined;
		const header = parseLine(stripBom(head.toString("utf8", 0, headerEnd)), 1).record;
		if (header?.type !== "session" || header.version !== 3) return undefined;
		// Reading more than an eighth of the file from its end is not worth it: read it whole.
		const start = tailStart(fd, size, headerEnd + 1, count, size - Math.floor(size / 8));
		if (start === undefined) return undefined;
		const window = Buffer.allocUnsafe(size - start);
		let done = 0;
		while (done < window.length) {
			const read = readSync(fd, window, done, window.length - done, start + done);
			if (read === 0) return undefined;
			done += read;
		}
		if (window.length === 0 || window[window.length - 1] !== NEWLINE) return undefined;
		const records: RawRecord[] = [];
		for (let from = 0; from < window.length; ) {
			const nl = window.indexOf(NEWLINE, from);
			const text = window.toString("utf8", from, nl);
			from = nl + 1;
			if (isBlankLine(text)) continue;
			const parsed = parseLine(text, 0);
			if (!parsed.record) return undefined;
			records.push(parsed.record);
		}
		return { header, records, whole: start === headerEnd + 1 };
	}

	async readSince(position: StorePosition): Promise<StoreRead | undefined> {
		const at = decodePosition(position, this.file);
		let stats: ReturnType<typeof statSync>;
		try {
			stats = statSync(this.file);
		} catch {
			return undefined;
		}
		if (identityOf(stats) !== at.identity || stats.size < at.offset) return undefined;
		return this.readFrom(at, stats.size);
	}

	/** The complete lines from `at` on; an unterminated last line is left for its writer. */
	private readFrom(at: FilePosition, size: number): StoreRead {
		if (size === at.offset) return { lines: [], position: encodePosition(at) };
		const { fd } = openForReading(this.file);
		try {
			const lines: ParsedLine[] = [];
			let end = at.offset;
			let count = at.lines;
			if (at.owesNewline) {
				// Another writer has written the newline the last line lacked: it ends that line.
				const byte = Buffer.alloc(1);
				if (readSync(fd, byte, 0, 1, at.offset) === 1 && byte[0] === NEWLINE) end++;
				else return { lines: [], position: encodePosition(at) };
			}
			for (const raw of scanLines(fd, end, at.lines + 1)) {
				if (!raw.terminated) break; // being written, or torn: not ours to read yet
				const parsed = this.parseRaw(raw);
				if (parsed) lines.push(parsed);
				end = raw.end;
				count = raw.line;
			}
			return { lines, position: encodePosition({ lines: count, offset: end, identity: at.identity }) };
		} finally {
			closeSync(fd);
		}
	}

	append(records: readonly object[], expected: StorePosition): Awaitable<AppendOutcome> {
		const at = expected === this.lastWritten?.text ? this.lastWritten.at : decodePosition(expected, this.file);
		this.throwDeferred();
		// Under a lease the append is done when this returns, and says so by returning its outcome
		// (see SessionStore.append): no promise, no turn. Else the lock is taken first.
		if (this.leaseValid()) return this.appendUnderLease(records, at);
		return this.holdLock().then(() => this.appendUnderLease(records, at));
	}

	/** The compare-and-append itself, under the lock. Nothing in it awaits: no other writer of this process runs meanwhile. */
	private appendUnderLease(records: readonly object[], at: FilePosition): AppendOutcome {
		try {
			const checked = this.check(at);
			if (checked.status !== "ok") return checked;
			const fd = this.appendFd(at.identity);
			const data = encodeRecords(records, checked.owesNewline ? "\n" : "", this.file);
			this.writeOrUndo(fd, data, checked.size);
			this.lineCount = at.lines + records.length;
			return { status: "ok", position: this.ownPosition(at.identity, at.offset + data.length, this.lineCount) };
		} catch (cause) {
			// No trace of a failed write, the lock included: it goes now, not at the turn's end.
			this.endLease();
			throw cause instanceof SessionTreeError ? cause : ioError(cause, this.file, "append");
		}
	}

	/**
	 * The position after an append of this store, remembered with its decoded form: the next
	 * append of the session starts from it, and need not parse it again.
	 */
	private ownPosition(identity: string, offset: number, lines: number): StorePosition {
		const at: FilePosition = { identity, offset, lines };
		const text = encodePosition(at);
		this.lastWritten = { text, at };
		return text;
	}

	/**
	 * Writes `data` at the end of the file (of `size` bytes) and syncs it as the durability mode
	 * says. A write that fails (ENOSPC, EIO, EFBIG, EDQUOT, …) leaves the file as it was: what
	 * part of it reached the file is cut off again (and that is fsynced in the fsync modes), so
	 * no torn line is left for readers to warn about and the next append needs no repair.
	 */
	private writeOrUndo(fd: number, data: Buffer, size: number): void {
		try {
			writeAll(fd, data);
			this.sync(fd);
		} catch (cause) {
			const reason = describeSystemError(cause);
			try {
				ftruncateSync(fd, size);
				if (this.durability !== "none") fsyncSync(fd);
			} catch (undo) {
				const why = undo instanceof Error ? undo.message : String(undo);
				throw new SessionTreeError(
					"IO_ERROR",
					`cannot append: ${reason}; cutting the file back to its ${size} bytes failed too (${why}), so its last line may be incomplete`,
					{ file: this.file },
					{ cause },
				);
			}
			throw new SessionTreeError(
				"IO_ERROR",
				`cannot append: ${reason} (nothing was written: the file is as it was)`,
				{ file: this.file },
				{ cause },
			);
		}
	}

	async replace(records: readonly object[], expected: StorePosition): Promise<ReplaceOutcome> {
		const at = decodePosition(expected, this.file);
		// Encoded first: a record the codec refuses leaves no backup behind.
		const text = records.map((record) => encodeRecord(record, this.file)).join("");
		await this.holdLock();
		// No tail repair: the backup keeps the file as it was, torn last line included.
		const checked = this.check(at, false);
		if (checked.status !== "ok") return checked;
		this.closeFd();
		// Through a link, the file it points to is rewritten, in its own directory (where the rename
		// is atomic), with the backup beside it; the link stays a link.
		const target = realFile(this.file);
		const backup = freeName(`${target}.bak`);
		try {
			copyFileSync(target, backup, constants.COPYFILE_EXCL);
		} catch (cause) {
			removeQuietly(backup); // a partial copy (the disk filled up) is no backup
			throw ioError(cause, this.file, "back up");
		}
		writeFileAtomic(target, text);
		this.lineCount = records.length;
		return { status: "ok", backup, position: encodePosition(this.positionAt(statSync(this.file))) };
	}

	/**
	 * Under the lock: does the file still end at `at`? If others appended, what they appended;
	 * if the file was replaced or cut, stale. With `repair`, an incomplete last line right at
	 * `at` (a crashed writer's) is repaired first: a whole record gets its newline and is handed
	 * back as appended by others; anything else is copied to a backup next to the file and cut
	 * off, so no record is ever glued onto it. `owesNewline`: write a newline before the records.
	 */
	private check(at: FilePosition, repair = true): { status: "ok"; owesNewline: boolean; size: number } | WriteNotDone {
		const size = this.sizeUnderLease(at);
		if (size === undefined || size < at.offset) return { status: "stale" };
		if (size === at.offset) return { status: "ok", owesNewline: at.owesNewline === true, size };
		const read = this.readFrom(at, size);
		if (read.position !== encodePosition(at)) return { status: "behind", read };
		// Only an unterminated line follows: nobody else can be writing it, we hold the lock.
		if (!repair) return { status: "ok", owesNewline: false, size };
		const fd = this.appendFd(at.identity);
		if (this.repairTail(fd, at.offset, size)) {
			return { status: "behind", read: this.readFrom(at, fstatSync(fd).size) };
		}
		return { status: "ok", owesNewline: false, size: at.offset };
	}

	/**
	 * The file's size under the lock, or undefined when the file at the path is no longer the
	 * one `at` was read from (replaced). The first check of a lease stats the path; later
	 * checks of the same lease, on a descriptor of that same file, ask the descriptor (a
	 * two-byte read at the end, {@link endsAt}; an fstat only when the end moved): while the
	 * lease lasts no cooperating writer can replace the file, and a writer that ignores the lock
	 * (pi appending with appendFileSync) appends to the same file, so the descriptor still shows
	 * what it wrote.
	 */
	private sizeUnderLease(at: FilePosition): number | undefined {
		if (this.checkedLease === this.leaseGeneration && this.fd !== undefined && this.fdIdentity === at.identity) {
			return this.endsAt(this.fd, at.offset) ? at.offset : fstatSync(this.fd).size;
		}
		let stats: ReturnType<typeof statSync>;
		try {
			stats = statSync(this.file);
		} catch (cause) {
			throw ioError(cause, this.file, "append to");
		}
		if (identityOf(stats) !== at.identity) return undefined;
		this.checkedLease = this.lease === undefined ? -1 : this.leaseGeneration;
		return stats.size;
	}

	/**
	 * Takes the lock unless this store holds it, and keeps it until the current event-loop turn
	 * ends: a burst of appends pays for one lock. A burst that never lets the event loop turn
	 * (appends awaited back to back) gives the lock up every {@link LEASE_MS} and waits
	 * {@link LEASE_GAP_MS} before taking it again, so other processes get their turn.
	 */
	private async holdLock(): Promise<void> {
		if (this.lease) {
			if (Date.now() - this.leaseSince < LEASE_MS) return;
			this.endLease();
			await sleep(LEASE_GAP_MS);
			if (this.holding()) return; // another append of this store took it meanwhile
		}
		// Loaded on the first write: commands that only read start without it.
		const { acquireLock, tryLock } = await import("./lock.js");
		// The lock of the file itself, not of a link to it: writers through the link and through the
		// file's own name exclude each other.
		const locked = realFile(this.file);
		const lease = tryLock(locked, this.lockOptions) ?? (await acquireLock(locked, this.lockOptions));
		if (this.holding()) {
			lease(); // another append of this store took it while we waited
			return;
		}
		this.lease = lease;
		this.leaseSince = Date.now();
		const generation = ++this.leaseGeneration;
		setImmediate(() => {
			if (this.leaseGeneration === generation) this.endLease();
		});
	}

	/**
	 * True when the file of `fd` is exactly `offset` bytes long: a read of the two bytes from
	 * `offset - 1` gets one. One pread, nothing allocated; an fstat costs more and builds a
	 * Stats object with four Dates on every append.
	 */
	private endsAt(fd: number, offset: number): boolean {
		return offset > 0 && readSync(fd, this.probe, 0, 2, offset - 1) === 1;
	}

	/** True while this store holds the lock and the lease has not outlived {@link LEASE_MS}. */
	private leaseValid(): boolean {
		return this.lease !== undefined && Date.now() - this.leaseSince < LEASE_MS;
	}

	/** Read through a method: the lease changes across awaits, which TypeScript's narrowing does not see. */
	private holding(): boolean {
		return this.lease !== undefined;
	}

	private endLease(): void {
		const lease = this.lease;
		this.lease = undefined;
		lease?.();
	}

	async flush(): Promise<void> {
		this.throwDeferred();
		this.flushSync();
	}

	/**
	 * The group commit's timer: an fsync that fails there has no caller to tell, so the error
	 * is kept and thrown by the next append, flush or close (the appends it covered were
	 * acknowledged before their fsync: that is what group commit trades for speed).
	 */
	private flushLater(): void {
		try {
			this.flushSync();
		} catch (cause) {
			this.deferred = ioError(cause, this.file, "fsync appends already acknowledged to");
		}
	}

	/** Throws the error of a failed group fsync once (see {@link flushLater}). */
	private throwDeferred(): void {
		const error = this.deferred;
		this.deferred = undefined;
		if (error) throw error;
	}

	private flushSync(): void {
		if (this.groupTimer) clearTimeout(this.groupTimer);
		this.groupTimer = undefined;
		if (this.unsynced > 0 && this.fd !== undefined) fsyncSync(this.fd);
		this.unsynced = 0;
	}

	async close(): Promise<void> {
		this.endLease();
		this.closeFd();
		this.throwDeferred();
		// Kept: a source read after this reopens its file, and the next close closes it again.
		for (const ref of this.sources) ref.deref()?.close();
	}

	private closeFd(): void {
		this.flushSync();
		if (this.fd !== undefined) {
			closeSync(this.fd);
			this.fd = undefined;
		}
		this.fdIdentity = undefined;
	}

	private positionAt(stats: { size: number; dev: number; ino: number; birthtimeMs: number }): FilePosition {
		return { lines: this.lineCount, offset: stats.size, identity: identityOf(stats) };
	}

	private parseRaw(raw: RawLine): ParsedLine | undefined {
		return isBlankLine(raw.text) ? undefined : parseLine(raw.text, raw.line, this.file);
	}

	/** A last line without `\n`: a record if it parses whole, else an incomplete (torn) append. */
	private parseLast(raw: RawLine): ParsedLine | undefined {
		if (isBlankLine(raw.text)) return undefined;
		const parsed = parseLine(raw.text, raw.line, this.file);
		if (isWholeLine(parsed)) return parsed;
		const what = isNulPadding(raw.text) ? "NUL bytes" : "an incomplete record";
		const error = new SessionTreeError(
			"TORN_TAIL",
			`the last line is ${what} (${Buffer.byteLength(raw.text)} bytes without a newline)`,
			{ file: this.file, line: raw.line },
		);
		return { line: raw.line, error, torn: true };
	}

	/** The append descriptor, reopened when it is not of the file with this identity (replaced since). */
	private appendFd(identity: string): number {
		if (this.fd !== undefined && this.fdIdentity !== identity) this.closeFd();
		if (this.fd === undefined) {
			if (!existsSync(this.file)) {
				throw new SessionTreeError("FILE_NOT_FOUND", "the session file disappeared", { file: this.file });
			}
			// "a+" without O_CREAT (the file exists): read and append, never blocking (regular-file.ts).
			const { fd, stats } = openForReading(this.file, constants.O_RDWR | constants.O_APPEND);
			this.fd = fd;
			this.fdIdentity = identityOf(stats);
		}
		return this.fd;
	}

	/**
	 * Repairs the unterminated last line from `start` to `size`: a whole record just gets its
	 * newline (true: there is a new line to read); an incomplete one (a crashed writer's) is
	 * copied to a backup file next to the session and cut off (false).
	 */
	private repairTail(fd: number, start: number, size: number): boolean {
		const tail = Buffer.alloc(size - start);
		readSync(fd, tail, 0, tail.length, start);
		if (isWholeLine(parseLine(tail.toString("utf8"), 0))) {
			writeAll(fd, Buffer.from("\n"));
			return true;
		}
		const beside = realFile(this.file); // beside the session, not beside a link to it
		const backup = freeName(`${beside}.torn`);
		const backupFd = openFile(backup, "wx", 0o600);
		try {
			writeAll(backupFd, tail);
			fsyncSync(backupFd);
		} catch (cause) {
			// The torn line stays where it is (a later append retries); a partial copy is no backup.
			closeSync(backupFd);
			removeQuietly(backup);
			throw ioError(cause, this.file, "back up the incomplete last line of");
		}
		closeSync(backupFd);
		fsyncDirectory(dirname(beside));
		ftruncateSync(fd, start);
		return false;
	}

	private sync(fd: number): void {
		if (this.durability === "fsync") {
			fsyncSync(fd);
		} else if (this.durability === "group") {
			if (this.unsynced === 0) this.unsyncedSince = Date.now();
			this.unsynced++;
			if (this.unsynced >= this.groupSize || Date.now() - this.unsyncedSince >= this.groupDelayMs) {
				this.flushSync();
			} else if (!this.groupTimer) {
				this.groupTimer = setTimeout(() => this.flushLater(), this.groupDelayMs);
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
		if (this.marker !== -1 && this.marker < start) this.marker = indexOfParentMarker(buffer, start);
		if (this.marker === -1 || this.marker >= end) return false;
		this.marker = indexOfParentMarker(buffer, this.marker + 1);
		return this.marker === -1 || this.marker >= end;
	}
}

/**
 * Where the last `count` lines of the file start, searching backwards in 1 MiB reads: the
 * offset after the newline that precedes them, or `bodyStart` when fewer lines follow it. The
 * search stops at `minStart` (more of the file is not worth reading from the end): then the
 * window starts at the first line that begins at or after it (undefined if there is none).
 */
function tailStart(fd: number, size: number, bodyStart: number, count: number, minStart: number): number | undefined {
	const floor = Math.max(bodyStart, minStart);
	const chunk = Buffer.allocUnsafe(1024 * 1024);
	// The file's last byte is the newline of the last line: count the newlines before it.
	let seen = 0;
	let lowest: number | undefined;
	for (let end = size - 1; end > floor; ) {
		const start = Math.max(floor, end - chunk.length);
		const read = readSync(fd, chunk, 0, end - start, start);
		for (let at = chunk.subarray(0, read).lastIndexOf(NEWLINE); at !== -1; ) {
			lowest = start + at + 1;
			if (++seen === count) return lowest;
			at = at === 0 ? -1 : chunk.subarray(0, at).lastIndexOf(NEWLINE);
		}
		end = start;
	}
	return floor === bodyStart ? bodyStart : lowest;
}
