/**
 * The cheap pass over one session file that `ls` and `search` share: every line is read once
 * with the streaming line reader, and only the envelope of an entry (`type`, `id`, `parentId`,
 * `timestamp`, at the start of the line in pi's key order) is taken from its text. The rest of
 * a line is parsed with `JSON.parse` only when a visitor asks for it.
 *
 * The pass checks what a strict open would reject in the structure (header, entry shape,
 * duplicate ids, missing parents, the leaf pointer). Whenever the file is anything but plain
 * and well-formed (an old format version, a damaged line, a parent that comes later in the
 * file, …) it gives up and the same visitor is replayed over a real `Session.open`, whose
 * error, if it throws, names the file, the line and the problem. So the fast path is only ever
 * taken for files on which it gives the same answer as the full load.
 */

import { closeSync, fstatSync, openSync } from "node:fs";
import { SessionTreeError } from "../core/errors.js";
import type { SessionEntry } from "../core/types.js";
import { Session } from "../session.js";
import { scanLines } from "../storage/file-store.js";

/** A parsed JSON record. */
export type JsonRecord = Record<string, unknown>;

/** One entry, as a visitor sees it. */
export interface EntryView {
	type: string;
	id: string;
	parentId: string | null;
	/** The entry's own ISO timestamp. */
	timestamp: string;
	/** The raw line, on the fast path (for cheap pre-filters); undefined on a full load. */
	text: string | undefined;
	/** For a `message` entry, the message's role (read from the text when it can be); else undefined. */
	role(): string | undefined;
	/**
	 * For a message entry written in pi's key order (`"message":{"role":…,"content":…` and the
	 * message's numeric `timestamp` as the last key of the line): its role and that timestamp,
	 * read without parsing the line. Undefined when the line is not in that shape.
	 */
	peekMessage(): MessagePeek | undefined;
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

function isBlank(text: string): boolean {
	return text.trim() === "";
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

function endsWithBrace(text: string): boolean {
	for (let i = text.length - 1; i >= 0; i--) {
		const c = text.charCodeAt(i);
		if (c === 0x7d) return true;
		if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) return false;
	}
	return false;
}

/** The line-based view of one entry on the fast path. */
class LineEntry implements EntryView {
	type = "";
	id = "";
	parentId: string | null = null;
	timestamp = "";
	text: string | undefined = undefined;
	/** Where the text after the envelope starts, or -1 when the line was parsed whole. */
	private after = -1;
	private parsed: JsonRecord | undefined;

	reset(text: string, after: number, parsed: JsonRecord | undefined): void {
		this.text = text;
		this.after = after;
		this.parsed = parsed;
	}

	role(): string | undefined {
		if (this.type !== "message") return undefined;
		if (this.after >= 0 && this.text !== undefined) {
			MESSAGE_ROLE.lastIndex = this.after;
			const match = MESSAGE_ROLE.exec(this.text);
			if (match) return match[1];
		}
		return roleOf(this.record());
	}

	peekMessage(): MessagePeek | undefined {
		const text = this.text;
		if (this.type !== "message" || this.after < 0 || text === undefined) return undefined;
		MESSAGE_ROLE.lastIndex = this.after;
		const head = MESSAGE_ROLE.exec(text);
		if (!head || head[2] === undefined) return undefined;
		const tail = MESSAGE_TAIL.exec(text.length > 48 ? text.slice(-48) : text);
		if (!tail) return undefined;
		return { role: head[1] as string, timestamp: Number(tail[1]) };
	}

	record(): JsonRecord {
		if (!this.parsed) {
			const parsed = parseObject(this.text ?? "");
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

	for (const raw of scanLines(fd)) {
		const text = raw.text;
		if (isBlank(text)) continue;
		if (!header) {
			const parsed = parseObject(text);
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
		let after = -1;
		const match = ENVELOPE.exec(text);
		if (match && endsWithBrace(text)) {
			type = match[1] as string;
			id = match[2] as string;
			parentId = match[3] ?? null;
			timestamp = match[4] as string;
			after = match[0].length;
		} else {
			parsed = parseObject(text);
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
			const record = parsed ?? parseObject(text);
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
		view.reset(text, after, parsed);
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
			session = Session.open(file, { lenient: true });
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
