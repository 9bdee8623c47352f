/**
 * Entries whose body is parsed only when asked for.
 *
 * Opening a large session used to mean parsing every line, although resuming it needs only
 * the messages of the active context. A store may instead hand the loader the *envelope* of a
 * line (type, id, parent, timestamp, role, and where the line is); the tree is built from
 * envelopes, and a body is read back from the store and parsed the first time someone asks
 * for the entry. Pure: reading is the store's job, behind {@link LineSource}.
 */

import { SessionTreeError } from "./errors.js";
import { assistantShownBytes, type ShownAnswer, UNKNOWN } from "./shown-bytes.js";
import type { Envelope } from "./tree-node.js";
import type { SessionEntry } from "./types.js";
import { contentErrorAction, entryContentError, entryShapeError, isEntryRecord, parseRecord } from "./validate.js";

// The envelope is a tree node (tree-node.ts); public through the core's index (`export *` of
// this module) as before it moved.
export { Envelope } from "./tree-node.js";

/** Where some bytes of a store are: an {@link Envelope}, or any part of the line it names. */
export interface Span {
	/** Byte offset in the store. */
	readonly offset: number;
	/** Byte length. */
	readonly length: number;
}

/**
 * Sees the raw bytes of one span: `bytes[start, end)`, UTF-8 as stored. `index` is the span's
 * position in the list given. The bytes are only valid during the call (the source may reuse
 * its buffer): decode or copy what is kept. Spans read together may share one `bytes` object,
 * visited by increasing `start`; a source gives each read a new object that holds nothing past
 * what was read, so a visitor may remember a search of `bytes` for the next spans in it.
 */
export type LineVisitor = (index: number, bytes: Uint8Array, start: number, end: number) => void;

/** A store that can give back the text of lines it indexed. */
export interface LineSource {
	/**
	 * The text of each span (a line without its newline), in the order given.
	 * @throws SessionTreeError when the store cannot be read any more
	 */
	readLines(spans: readonly Envelope[]): string[];
	/**
	 * Calls `visit` once for each span with its raw bytes, without decoding them, in an order of
	 * the source's choosing (a file source goes by offset). Cheaper than {@link readLines} for
	 * a look at the bytes (a pre-filter, the end of a line); optional, see {@link visitLines}.
	 * @throws SessionTreeError when the store cannot be read any more
	 */
	visitLines?(spans: readonly Span[], visit: LineVisitor): void;
}

/**
 * Visits the raw bytes of lines through `source.visitLines`, or for a source without it, of
 * the texts its `readLines` gives, encoded again as UTF-8.
 * @throws SessionTreeError when the store cannot be read any more
 */
export function visitLines(source: LineSource, spans: readonly Envelope[], visit: LineVisitor): void {
	if (spans.length === 0) return;
	if (source.visitLines) {
		source.visitLines(spans, visit);
		return;
	}
	const encoder = new TextEncoder();
	const texts = source.readLines(spans);
	for (let i = 0; i < spans.length; i++) {
		const bytes = encoder.encode(texts[i] ?? "");
		visit(i, bytes, 0, bytes.length);
	}
}

/** Lines {@link LazyBodies.load} reads and parses per pass (about 2.5 MB of text in pi's sessions). */
const LOAD_CHUNK = 2048;

/** A problem found in a body when it was parsed (the loader's `LoadProblem` shape). */
export interface BodyProblem {
	code: "INVALID_JSON" | "INVALID_RECORD";
	message: string;
	line: number;
	entryId: string;
}

/** How bodies of one loaded session are read and checked. */
export interface LazyBodiesOptions {
	/** Report a bad body and keep its envelope, instead of throwing. */
	lenient: boolean;
	/** The file, for messages. */
	file: string | undefined;
	/** Where lenient problems go (the session's problem list). */
	problems: { push(problem: BodyProblem): unknown };
}

/**
 * The bodies of one loaded session: reads lines from the source and turns them into entries,
 * with the checks a full parse at open would have made.
 */
export class LazyBodies {
	private readonly decoder = new TextDecoder();

	constructor(
		private readonly source: LineSource,
		private readonly options: LazyBodiesOptions,
	) {}

	/**
	 * The entries of these envelopes, read from the store {@link LOAD_CHUNK} lines at a time:
	 * each chunk's texts are garbage once parsed, so they die young instead of all being held
	 * until the last is parsed (the 100,000 bodies of a 125 MiB file were 125 MB of strings that
	 * the garbage collector promoted, then had to collect from the old generation). With
	 * `lines`, the stored bytes (UTF-8) of each line whose entry is their `JSON.parse` as it is
	 * go into `lines[i]` (undefined for a body that could not be used): a writer can copy them
	 * instead of encoding the entry again.
	 */
	load(envelopes: readonly Envelope[], lines?: Array<Uint8Array | undefined>): SessionEntry[] {
		const entries: SessionEntry[] = [];
		for (let from = 0; from < envelopes.length; from += LOAD_CHUNK) {
			const chunk = envelopes.length <= LOAD_CHUNK ? envelopes : envelopes.slice(from, from + LOAD_CHUNK);
			const bytes = lines === undefined ? undefined : new Array<Uint8Array | undefined>(chunk.length);
			const texts = bytes === undefined ? this.source.readLines(chunk) : this.readWithBytes(chunk, bytes);
			for (const [i, envelope] of chunk.entries()) {
				const entry = this.parse(envelope, texts[i]);
				// The bytes, when the entry is their parse as it is (not a stub standing for it).
				if (lines !== undefined) lines[from + i] = isUnreadable(entry) ? undefined : bytes?.[i];
				entries.push(entry);
			}
		}
		return entries;
	}

	/**
	 * The texts of the spans, and their bytes as stored in `bytes`: views of one copy of the
	 * chunk's lines (a copy per line cost as much as decoding it).
	 */
	private readWithBytes(spans: readonly Envelope[], bytes: Array<Uint8Array | undefined>): string[] {
		if (!this.source.visitLines) {
			// A source of texts only (a database, a transcript made again as JSON): their UTF-8.
			const texts = this.source.readLines(spans);
			const encoder = new TextEncoder();
			for (let i = 0; i < spans.length; i++) {
				const text = texts[i];
				bytes[i] = text === undefined ? undefined : encoder.encode(text);
			}
			return texts;
		}
		let size = 0;
		for (const span of spans) size += span.length;
		const copy = new Uint8Array(size);
		let at = 0;
		const texts = new Array<string>(spans.length);
		visitLines(this.source, spans, (index, read, start, end) => {
			const line = read.subarray(start, end);
			if (at + line.length > copy.length) {
				// More than the spans said (a source may not do this): a copy of its own.
				bytes[index] = line.slice();
			} else {
				copy.set(line, at);
				bytes[index] = copy.subarray(at, at + line.length);
				at += line.length;
			}
			texts[index] = this.decoder.decode(line);
		});
		return texts;
	}

	/**
	 * Whether pi's filters let the assistant message of each envelope through, decided from the
	 * raw bytes of its line without parsing it (`assistantShownBytes`, shown-bytes.ts): one pass
	 * over the store, nothing decoded or kept. An answer is exact or `UNKNOWN` (then the body is
	 * parsed as before). A message of another role than the assistant's is `OTHER_ROLE` when its
	 * body is a valid entry of the role its envelope says (the filters then read the role alone).
	 * @throws SessionTreeError when the store cannot be read any more
	 */
	shown(envelopes: readonly Envelope[]): ShownAnswer[] {
		const answers = new Array<ShownAnswer>(envelopes.length).fill(UNKNOWN);
		visitLines(this.source, envelopes, (index, bytes, start, end) => {
			answers[index] = assistantShownBytes(bytes, start, end, envelopes[index] as Envelope);
		});
		return answers;
	}

	/** `text` is undefined only when the source broke its contract (one text per span). */
	private parse(envelope: Envelope, text: string | undefined): SessionEntry {
		if (text === undefined) return this.unreadable("the store gave no text for the line", envelope);
		const read = readBody(text, envelope);
		if (read.kind === "entry") return read.entry;
		if (read.kind === "too-deep") {
			this.report("INVALID_RECORD", read.problem, envelope, "its body is left out of the context");
			return unreadableEntry(envelope);
		}
		if (read.kind === "unusable") return this.unreadable(read.problem, envelope);
		this.report("INVALID_RECORD", read.problem, envelope, read.action);
		return read.entry;
	}

	/** Reports a body that cannot be used (strict: throws) and gives its stub. */
	private unreadable(problem: string, envelope: Envelope): SessionEntry {
		this.report("INVALID_JSON", problem, envelope, "its body is left out of the context");
		return unreadableEntry(envelope);
	}

	private report(code: BodyProblem["code"], message: string, envelope: Envelope, action: string): void {
		const line = envelope.line;
		if (!this.options.lenient) throw new SessionTreeError(code, message, { file: this.options.file, line });
		this.options.problems.push({ code, message: `${message}; ${action}`, line, entryId: envelope.id });
	}
}

/** What the text of an entry's line gives (see {@link readBody}). */
export type BodyReading =
	/** The entry, without any problem. */
	| { kind: "entry"; entry: SessionEntry }
	/** The entry, with a problem of its content to report and what a lenient read does about it (it keeps the entry). */
	| { kind: "content"; entry: SessionEntry; problem: string; action: string }
	/** Nested deeper than the codec reads. */
	| { kind: "too-deep"; problem: string }
	/** No entry of the expected type, id and parent (invalid JSON, another record, a line changed in place). */
	| { kind: "unusable"; problem: string };

/**
 * The one rule for the body of a lazily read entry: `text` parsed and checked as the entry
 * `expected` names (its type, id and parent, as the store's envelope of the line said; without
 * it, any entry: the caller then compares them with the envelope itself). What
 * {@link LazyBodies} reports and keeps follows from the answer; a reader elsewhere (another
 * thread making the previews of `tree`) uses an entry only when the answer is `entry`.
 * @internal
 */
export function readBody(
	text: string,
	expected: { readonly type: string; readonly id: string; readonly parentId: string | null } | undefined,
): BodyReading {
	const parsed = parseRecord(text);
	if (parsed.tooDeep) return { kind: "too-deep", problem: parsed.reason };
	if (!parsed.record) return { kind: "unusable", problem: parsed.reason };
	const value = parsed.record;
	if (!isEntryRecord(value)) return { kind: "unusable", problem: entryShapeError(value) ?? "not an entry" };
	const other =
		expected !== undefined &&
		(value.type !== expected.type || value.id !== expected.id || value.parentId !== expected.parentId);
	if (value.type === "leaf" || other) {
		const problem = expected
			? `the line no longer holds ${expected.type} entry ${expected.id} (the file was changed in place)`
			: "a leaf record, not an entry";
		return { kind: "unusable", problem };
	}
	const content = entryContentError(value);
	return content
		? { kind: "content", entry: value, problem: content, action: contentErrorAction(value) }
		: { kind: "entry", entry: value };
}

/** Stubs standing for unreadable bodies (see {@link isUnreadable}). */
const stubs = new WeakSet<object>();

/**
 * True for an entry a lenient read could not parse: only its envelope is known. A repair
 * leaves it out of the rewritten file (its children move up to its parent).
 */
export function isUnreadable(entry: object | undefined): boolean {
	return entry !== undefined && stubs.has(entry);
}

/**
 * The entry as far as its envelope tells: what a lenient read keeps of a body it cannot use,
 * read lazily or at once (a record nested too deep, see the codec). It stands in the tree for
 * the entry, so it is typed as one (the one cast of a body that is no valid entry;
 * {@link isUnreadable} tells it apart).
 */
export function unreadableEntry(fields: {
	type: string;
	id: string;
	parentId: string | null;
	timestamp: string;
}): SessionEntry {
	const entry = {
		type: fields.type,
		id: fields.id,
		parentId: fields.parentId,
		timestamp: fields.timestamp,
	} as SessionEntry;
	stubs.add(entry);
	return entry;
}
