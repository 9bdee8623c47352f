/**
 * The cheap pass over one session file that `ls` and `search` share. Every line is read once,
 * as a byte range (lines.ts), and only the envelope of an entry (`type`, `id`, `parentId`,
 * `timestamp`, at the start of the line in pi's key order) is taken from its first bytes. The
 * rest of a line is decoded and parsed with `JSON.parse` only when a visitor asks for it; for
 * a message in pi's shape the role and the message's timestamp can be read without either.
 *
 * The pass checks what a strict open would reject in the structure (header, entry shape,
 * duplicate ids, missing parents, the leaf pointer). Whenever the file is anything but plain
 * and well-formed (an old format version, an unparsable line, a parent that comes later in the
 * file, …) it gives up and the same visitor is replayed over a real `Session.open`; a file a
 * strict open rejects for damage is read as a lenient open reads it (with a warning naming
 * the problem), and one not even a lenient open can read is skipped with the error as reason.
 * So the fast path is only taken for files on which it gives the same entries, counts and
 * leaf as a full load. What it does not notice: damage after the envelope of a line that no
 * visitor parses (the line is never parsed; its envelope and closing brace are fine).
 */

import { closeSync, fstatSync, openSync } from "node:fs";
import { SessionTreeError } from "../core/errors.js";
import type { SessionEntry } from "../core/types.js";
import { Session } from "../session.js";
import { type ByteLine, lineText, scanByteLines } from "../storage/lines.js";

/** A parsed JSON record. */
export type JsonRecord = Record<string, unknown>;

/** One entry, as a visitor sees it. */
export interface EntryView {
	type: string;
	id: string;
	parentId: string | null;
	/** The entry's own ISO timestamp. */
	timestamp: string;
	/** The raw line, on the fast path (for cheap pre-filters; decoded on first use); undefined on a full load. */
	readonly text: string | undefined;
	/** For a `message` entry, the message's role (read from the text when it can be); else undefined. */
	role(): string | undefined;
	/**
	 * For a message entry written in pi's key order (`"message":{"role":…,"content":…` and the
	 * message's numeric `timestamp` as the last key of the line): its role and that timestamp,
	 * read without parsing the line. Undefined when the line is not in that shape.
	 */
	peekMessage(): MessagePeek | undefined;
	/**
	 * Whether the raw line holds these bytes, on the fast path (without decoding the line);
	 * undefined on a full load.
	 */
	includes(bytes: Buffer): boolean | undefined;
	/** The whole entry, parsed on first use. */
	record(): JsonRecord;
}

/** See {@link EntryView.peekMessage}. */
export interface MessagePeek {
	role: string;
	/** `message.timestamp`; the message has `content`. */
	timestamp: number;
}

/** Sees every entry of a file, in file order (persisted-leaf records excluded). */
export interface EntryVisitor {
	visit(entry: EntryView): void;
}

/** What the pass found out about a file's structure. */
export interface ScanResult {
	file: string;
	header: JsonRecord;
	/** Number of entries (persisted-leaf records excluded), as `Session.entryCount`. */
	entries: number;
	/** Number of leaves, as `Session.listBranches().length`. */
	branches: number;
	/** The active leaf, as `Session.getLeafId()`. */
	leafId: string | null;
	/** Every entry's resolved parent (when asked for with `parents: true`). */
	parents?: Map<string, string | null>;
	bytes: number;
	mtime: Date;
	/** Problems that did not stop the file from being listed (an incomplete last line). */
	warnings: string[];
	/** True when the file went through a full `Session.open` instead of the fast path. */
	fullLoad: boolean;
}

/** Options of {@link scanSession}. */
export interface ScanOptions {
	/** Keep every entry's resolved parent in {@link ScanResult.parents}. */
	parents?: boolean;
}

/** A file that is not a session, or one that is damaged: it is skipped with this reason. */
export class SkippedFile extends Error {
	readonly file: string;
	constructor(file: string, reason: string) {
		super(reason);
		this.name = "SkippedFile";
		this.file = file;
	}
}

/** The envelope as pi writes it: `{"type":…,"id":…,"parentId":…,"timestamp":…` (strings without escapes). */
const ENVELOPE = /^\{"type":"([^"\\]+)","id":"([^"\\]+)","parentId":(?:null|"([^"\\]*)"),"timestamp":"([^"\\]*)"/;
/** What follows the envelope of a message entry as pi writes it. */
const MESSAGE_ROLE = /,"message":\{"role":"([^"\\]*)"(,"content":)?/y;
/** The end of a message entry as pi writes it: the message's timestamp, then the message and the entry close. */
const MESSAGE_TAIL = /"timestamp":(\d{1,16})\}\}[ \t\r]*$/;

/** Errors of a strict open that a lenient open works around. */
const DAMAGE = new Set([
	"INVALID_JSON",
	"NUL_PADDING",
	"GLUED_RECORDS",
	"INVALID_RECORD",
	"MISSING_PARENT",
	"DUPLICATE_ID",
	"PARENT_CYCLE",
	"ENTRY_NOT_FOUND",
]);

/** Thrown inside the fast path: the file needs a full load. */
class NeedsFullLoad extends Error {}

/**
 * Scans one session file. A visitor is made by `makeVisitor` for the fast path and, if the fast
 * path gives up, a fresh one for the full load, so a visitor never sees a file twice.
 * @throws SkippedFile for a file that is not a session or cannot be opened
 */
export function scanSession<V extends EntryVisitor>(
	file: string,
	makeVisitor: () => V,
	options: ScanOptions = {},
): { result: ScanResult; visitor: V } {
	let fd: number;
	try {
		fd = openSync(file, "r");
	} catch (error) {
		throw new SkippedFile(file, systemMessage(error));
	}
	let stats: ReturnType<typeof fstatSync>;
	try {
		stats = fstatSync(fd);
		if (!stats.isFile()) throw new SkippedFile(file, "not a regular file");
		const visitor = makeVisitor();
		try {
			return { result: fastScan(fd, file, stats, visitor, options), visitor };
		} catch (error) {
			if (!(error instanceof NeedsFullLoad)) throw error;
		}
	} catch (error) {
		if (error instanceof SkippedFile || error instanceof NeedsFullLoad) throw error;
		throw new SkippedFile(file, systemMessage(error));
	} finally {
		closeSync(fd);
	}
	return fullScan(file, stats, makeVisitor(), options);
}

function systemMessage(error: unknown): string {
	if (error instanceof SessionTreeError) return withoutFile(error);
	const code = (error as NodeJS.ErrnoException | undefined)?.code;
	if (code === "ENOENT") return "no such file";
	if (code === "EACCES" || code === "EPERM") return "permission denied";
	if (code === "EISDIR") return "a directory";
	return error instanceof Error ? error.message : String(error);
}

/** A SessionTreeError's message without its `FILE:` prefix (the warning names the file itself). */
function withoutFile(error: SessionTreeError): string {
	let message = error.message;
	if (error.file !== undefined && message.startsWith(`${error.file}:`)) message = message.slice(error.file.length + 1);
	if (error.line !== undefined && message.startsWith(`${error.line}: `)) {
		return `line ${error.line}: ${message.slice(`${error.line}: `.length)}`;
	}
	return message.trimStart();
}

/** True for a line of white space only (skipped, as pi and the loader skip it). */
function isBlankLine(line: ByteLine): boolean {
	// Every record starts with `{`: only other lines need a closer look.
	if (line.end > line.start && line.buffer[line.start] === 0x7b) return false;
	return lineText(line).trim() === "";
}

function stripBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function parseObject(text: string): JsonRecord | undefined {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

/** Why the first line is not a session header we can scan, or undefined. */
function headerProblem(header: JsonRecord | undefined): string | undefined {
	if (!header) return "not a session file (the first line is not a JSON object)";
	if (header.type !== "session") {
		return `not a session file (the first line's type is ${JSON.stringify(header.type) ?? "missing"}, expected "session")`;
	}
	if (typeof header.id !== "string" || header.id === "") return "the session header has no string id";
	if (header.version !== undefined && (typeof header.version !== "number" || !Number.isInteger(header.version))) {
		return `the session header's version ${JSON.stringify(header.version)} is not an integer`;
	}
	if (typeof header.version === "number" && header.version > 3) {
		return `session format version ${header.version} is newer than this tool supports (3)`;
	}
	return undefined;
}

/** True when the last byte before trailing white space is `}`. */
function endsWithBrace(line: ByteLine): boolean {
	const bytes = line.buffer;
	for (let i = line.end - 1; i >= line.start; i--) {
		const c = bytes[i];
		if (c === 0x7d) return true;
		if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
	}
	return false;
}

/** Bytes at which an envelope is looked for: pi's envelopes take about 100. */
const HEAD_BYTES = 256;
/** Bytes at the end of a line in which a message's timestamp is looked for. */
const TAIL_BYTES = 48;
/** A character outside ASCII in a string decoded as Latin-1. */
const NON_ASCII = /[\u0080-\uffff]/;

function isAscii(text: string): boolean {
	return !NON_ASCII.test(text);
}

/** The line-based view of one entry on the fast path; decodes its line only when asked. */
class LineEntry implements EntryView {
	type = "";
	id = "";
	parentId: string | null = null;
	timestamp = "";
	private line: ByteLine | undefined;
	/** The first bytes of the line as Latin-1 (ASCII-safe), or the whole decoded line. */
	private head = "";
	/** Where the text after the envelope starts (in `head` and in the text), or -1 when the line was parsed whole. */
	private after = -1;
	private decoded: string | undefined;
	private parsed: JsonRecord | undefined;

	reset(
		line: ByteLine,
		head: string,
		after: number,
		decoded: string | undefined,
		parsed: JsonRecord | undefined,
	): void {
		this.line = line;
		this.head = head;
		this.after = after;
		this.decoded = decoded;
		this.parsed = parsed;
	}

	get text(): string {
		this.decoded ??= this.line ? lineText(this.line) : "";
		return this.decoded;
	}

	role(): string | undefined {
		if (this.type !== "message") return undefined;
		if (this.after >= 0) {
			MESSAGE_ROLE.lastIndex = this.after;
			const match = MESSAGE_ROLE.exec(this.head);
			if (match && isAscii(match[0])) return match[1];
		}
		return roleOf(this.record());
	}

	includes(bytes: Buffer): boolean {
		const line = this.line;
		return line !== undefined && line.buffer.subarray(line.start, line.end).indexOf(bytes) !== -1;
	}

	peekMessage(): MessagePeek | undefined {
		const line = this.line;
		if (this.type !== "message" || this.after < 0 || !line) return undefined;
		MESSAGE_ROLE.lastIndex = this.after;
		const head = MESSAGE_ROLE.exec(this.head);
		if (!head || head[2] === undefined || !isAscii(head[0])) return undefined;
		const tail = MESSAGE_TAIL.exec(
			line.buffer.toString("latin1", Math.max(line.start, line.end - TAIL_BYTES), line.end),
		);
		if (!tail) return undefined;
		return { role: head[1] as string, timestamp: Number(tail[1]) };
	}

	record(): JsonRecord {
		if (!this.parsed) {
			const parsed = parseObject(this.text);
			// The envelope was fine, the rest of the line is not: a damaged line.
			if (!parsed) throw new NeedsFullLoad();
			this.parsed = parsed;
		}
		return this.parsed;
	}
}

function roleOf(record: JsonRecord): string | undefined {
	const message = record.message;
	if (!message || typeof message !== "object") return undefined;
	const role = (message as JsonRecord).role;
	return typeof role === "string" ? role : undefined;
}

/** Follows persisted-leaf records to the entry they stand for. */
function resolveAlias(id: string, aliases: ReadonlyMap<string, string | null>): string | null {
	let current: string | null = id;
	for (let hops = 0; current !== null && aliases.has(current) && hops <= aliases.size; hops++) {
		current = aliases.get(current) ?? null;
	}
	return current;
}

function fastScan(
	fd: number,
	file: string,
	stats: { size: number; mtime: Date },
	visitor: EntryVisitor,
	options: ScanOptions,
): ScanResult {
	const warnings: string[] = [];
	const ids = new Set<string>();
	const usedAsParent = new Set<string>();
	const aliases = new Map<string, string | null>();
	const parents = options.parents ? new Map<string, string | null>() : undefined;
	let header: JsonRecord | undefined;
	let lastEntry: string | null = null;
	let lastLeaf: { target: string | null } | undefined;
	const view = new LineEntry();

	for (const raw of scanByteLines(fd)) {
		if (isBlankLine(raw)) continue;
		if (!header) {
			const parsed = parseObject(stripBom(lineText(raw)));
			const problem = headerProblem(parsed);
			if (problem) throw new SkippedFile(file, problem);
			header = parsed as JsonRecord;
			// v1 and v2 files are migrated by the loader; let it do that.
			if (header.version !== 3) throw new NeedsFullLoad();
			continue;
		}
		let type: string;
		let id: string;
		let parentId: string | null;
		let timestamp: string;
		let parsed: JsonRecord | undefined;
		let decoded: string | undefined;
		let after = -1;
		// The envelope is ASCII in pi's files: read it from the first bytes as Latin-1, which
		// maps bytes to characters one to one; anything else is decoded properly.
		let head = raw.buffer.toString("latin1", raw.start, Math.min(raw.end, raw.start + HEAD_BYTES));
		let match = ENVELOPE.exec(head);
		if (!match || !isAscii(match[0])) {
			decoded = lineText(raw);
			head = decoded;
			match = ENVELOPE.exec(decoded);
		}
		if (match && endsWithBrace(raw)) {
			type = match[1] as string;
			id = match[2] as string;
			parentId = match[3] ?? null;
			timestamp = match[4] as string;
			after = match[0].length;
		} else {
			decoded ??= lineText(raw);
			parsed = parseObject(decoded);
			if (!parsed) {
				if (!raw.terminated) {
					// An append that never completed: left out, as a strict open leaves it out.
					warnings.push(`line ${raw.line}: an incomplete last line (left out)`);
					break;
				}
				throw new NeedsFullLoad();
			}
			if (
				typeof parsed.type !== "string" ||
				parsed.type === "session" ||
				typeof parsed.id !== "string" ||
				parsed.id === "" ||
				(parsed.parentId !== null && typeof parsed.parentId !== "string") ||
				typeof parsed.timestamp !== "string"
			) {
				throw new NeedsFullLoad();
			}
			type = parsed.type;
			id = parsed.id;
			parentId = parsed.parentId as string | null;
			timestamp = parsed.timestamp;
		}
		if (type === "session") throw new NeedsFullLoad();
		if (type === "leaf") {
			const record = parsed ?? parseObject(decoded ?? lineText(raw));
			const target = record?.targetId;
			if (target !== null && typeof target !== "string") throw new NeedsFullLoad();
			if (ids.has(id)) throw new NeedsFullLoad();
			aliases.set(id, target);
			lastLeaf = { target };
			continue;
		}
		if (ids.has(id) || aliases.has(id)) throw new NeedsFullLoad();
		let parent: string | null = null;
		if (parentId !== null) {
			parent = resolveAlias(parentId, aliases);
			// A parent later in the file (or nowhere): the loader decides what that means.
			if (parent !== null && !ids.has(parent)) throw new NeedsFullLoad();
			if (parent !== null) usedAsParent.add(parent);
		}
		ids.add(id);
		parents?.set(id, parent);
		lastEntry = id;
		lastLeaf = undefined;
		view.type = type;
		view.id = id;
		view.parentId = parentId;
		view.timestamp = timestamp;
		view.reset(raw, head, after, decoded, parsed);
		visitor.visit(view);
	}
	if (!header) throw new SkippedFile(file, "an empty file, not a session");

	let leafId = lastEntry;
	if (lastLeaf) {
		const target = lastLeaf.target === null ? null : resolveAlias(lastLeaf.target, aliases);
		if (target !== null && !ids.has(target)) throw new NeedsFullLoad();
		leafId = target;
	}
	return {
		file,
		header,
		entries: ids.size,
		branches: ids.size - usedAsParent.size,
		leafId,
		...(parents ? { parents } : {}),
		bytes: stats.size,
		mtime: stats.mtime,
		warnings,
		fullLoad: false,
	};
}

/** The view of an entry of a loaded session. */
class LoadedEntry implements EntryView {
	readonly type: string;
	readonly id: string;
	readonly parentId: string | null;
	readonly timestamp: string;
	readonly text = undefined;
	constructor(private readonly entry: SessionEntry) {
		this.type = entry.type;
		this.id = entry.id;
		this.parentId = entry.parentId;
		this.timestamp = entry.timestamp;
	}
	role(): string | undefined {
		return this.type === "message" ? roleOf(this.record()) : undefined;
	}
	peekMessage(): undefined {
		return undefined;
	}
	includes(): undefined {
		return undefined;
	}
	record(): JsonRecord {
		return this.entry as unknown as JsonRecord;
	}
}

function fullScan<V extends EntryVisitor>(
	file: string,
	stats: { size: number; mtime: Date },
	visitor: V,
	options: ScanOptions,
): { result: ScanResult; visitor: V } {
	let session: Session;
	const warnings: string[] = [];
	try {
		session = Session.open(file);
	} catch (strictError) {
		// A damaged file (pi's own forks leave parents dangling) is still listed, as a lenient
		// open reads it; one that not even a lenient open can read (no header) is skipped.
		if (!(strictError instanceof SessionTreeError) || !DAMAGE.has(strictError.code)) {
			throw new SkippedFile(file, systemMessage(strictError));
		}
		try {
			session = Session.open(file, { lenient: true, verify: true });
		} catch {
			throw new SkippedFile(file, systemMessage(strictError));
		}
		const more = session.problems.length > 1 ? ` (and ${session.problems.length - 1} more problems)` : "";
		warnings.push(`damaged: ${systemMessage(strictError)}${more}; read as a lenient open reads it`);
	}
	const tree = session.getTreeIndex();
	const parents = options.parents ? new Map<string, string | null>() : undefined;
	for (const entry of session.getEntries()) {
		visitor.visit(new LoadedEntry(entry));
		if (parents) parents.set(entry.id, tree.getParentId(entry.id) ?? null);
	}
	if (warnings.length === 0) {
		for (const problem of session.problems) {
			warnings.push(problem.line === undefined ? problem.message : `line ${problem.line}: ${problem.message}`);
		}
	}
	return {
		result: {
			file,
			header: session.getHeader() as unknown as JsonRecord,
			entries: session.entryCount,
			branches: session.listBranches().length,
			leafId: session.getLeafId(),
			...(parents ? { parents } : {}),
			bytes: stats.size,
			mtime: stats.mtime,
			warnings,
			fullLoad: true,
		},
		visitor,
	};
}
