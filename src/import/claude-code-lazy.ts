/**
 * A Claude Code transcript read directly as a session without holding it in memory, as the
 * file store reads a pi session: the transcript is read line by line (claude-code.ts), and of
 * each entry only its envelope (type, id, parent, time, role) and its recipe are kept; a body
 * is made again from its lines, read back from the file by offset, when it is asked for (the
 * context, a preview, a search). A transcript of 130 MB so costs a few tens of MB beside the
 * bodies in use, where the session its import makes, held in memory, cost more than ten times
 * the file (docs/performance.md, "Reading another agent's file").
 *
 * Session names are kept whole: the session's name is read when it is opened.
 */

import { isSessionTreeError } from "../core/errors.js";
import type { LineSource } from "../core/lazy.js";
import { asRawRecord, type ParsedLine, type RawRecord } from "../core/records.js";
import { Envelope } from "../core/tree-node.js";
import type { SessionEntry, SessionHeader } from "../core/types.js";
import { parseLine } from "../storage/codec.js";
import { readRegularFile } from "../storage/regular-file.js";
import type { StoreRead } from "../storage/store.js";
import { type EntrySink, readTranscript } from "./claude-code.js";
import { entryOf, type LineRef, lineAgain, type Recipe } from "./claude-code-build.js";
import { DETECT_LINE_BYTES, importFailure, sniffFirstLines, sniffFormat } from "./detect.js";
import type { JsonLine } from "./jsonl.js";
import { laterTime, leafRecordFor, needsLeafRecord } from "./leaf-record.js";
import { fileLines, firstLineWithin, type SourceLines } from "./source-lines.js";
import { decodeText } from "./sources.js";
import type { ImportSkip, SourceName } from "./types.js";

/** A transcript read in a stream: the store read of its session, and what the import reports. */
export interface StreamedTranscript {
	header: SessionHeader;
	leafId: string | null;
	skipped: ImportSkip[];
	/** The header, the entries (envelopes, session names whole) and the persisted-leaf record, if any. */
	read: StoreRead;
	/** The records that are not entries: the header and the persisted-leaf record, if any. */
	records: RawRecord[];
}

/**
 * Reads the transcript in `lines` (see the module comment); undefined for a source without
 * lines. `lines` stay in use for the bodies: close them when the session is closed.
 * @throws SessionTreeError as the import does
 */
export function streamTranscript(source: SourceName, lines: SourceLines): StreamedTranscript | undefined {
	const sink = new EnvelopeSink(source.name);
	const read = readTranscript(source, lines, sink);
	if (!read) return undefined;
	const { header, leafId, skipped } = read;
	const records: RawRecord[] = [asRawRecord(header)];
	const parsed: ParsedLine[] = [parseLine(JSON.stringify(header), 1, source.name), ...sink.lines];
	if (needsLeafRecord({ leafId }, sink.lastId)) {
		const latest = sink.latest === undefined ? header.timestamp : laterTime(header.timestamp, sink.latest);
		const leaf = leafRecordFor({ header, leafId }, (id) => sink.ids.has(id), latest);
		records.push(leaf);
		parsed.push(parseLine(JSON.stringify(leaf), parsed.length + 1, source.name));
	}
	const bodies = new TranscriptBodies(source, lines, sink.recipes);
	return { header, leafId, skipped, read: { lines: parsed, position: "streamed", source: bodies }, records };
}

/** A transcript file read in a stream, and its lines (open for the bodies until closed). */
export interface StreamedFile {
	lines: SourceLines;
	/** Undefined for a file without lines. */
	transcript: StreamedTranscript | undefined;
}

/**
 * Reads the file at `path` in a stream if it is a Claude Code transcript (its first lines
 * tell, as they tell an import; `known`: it is one, as its place says), else undefined.
 * @throws SessionTreeError as an import of the file does, its message saying what the file
 *   looks like when it was `known` to be a transcript and looks like something else
 */
export async function streamTranscriptFile(
	path: string,
	options: { lenient?: boolean; known?: boolean } = {},
): Promise<StreamedFile | undefined> {
	const lines = fileLines(path);
	try {
		if (
			options.known !== true &&
			(!firstLineWithin(path, DETECT_LINE_BYTES) || sniffFirstLines(lines.scan()) !== "claude-code")
		) {
			lines.close();
			return undefined;
		}
		return { lines, transcript: streamTranscript({ name: path, lenient: options.lenient === true }, lines) };
	} catch (error) {
		lines.close();
		// What the file looks like, told as an import tells it (from the whole text), only for the message.
		const kind =
			options.known === true && isSessionTreeError(error) ? sniffFormat(decodeText(readRegularFile(path))) : undefined;
		throw importFailure(error, "claude-code", path, options.known === true ? "claude-code" : undefined, kind);
	}
}

/**
 * Keeps the envelope of each entry with its recipe (its index in `recipes` is the envelope's
 * offset), and each session name whole; its line number is the one it would have in the
 * session's file (the header is line 1).
 */
class EnvelopeSink implements EntrySink {
	readonly lines: ParsedLine[] = [];
	readonly recipes: Recipe[] = [];
	readonly ids = new Set<string>();
	lastId: string | null = null;
	latest: string | undefined;

	constructor(private readonly file: string) {}

	add(entry: SessionEntry, recipe: Recipe | undefined): void {
		const line = this.lines.length + 2;
		this.ids.add(entry.id);
		this.lastId = entry.id;
		this.latest = this.latest === undefined ? entry.timestamp : laterTime(this.latest, entry.timestamp);
		if (recipe === undefined) {
			// Through its JSON text, as a store would give it back.
			this.lines.push(parseLine(JSON.stringify(entry), line, this.file));
			return;
		}
		const index = this.recipes.push(recipe) - 1;
		const message = entry.type === "message" ? entry.message : undefined;
		const role = message?.role;
		// The message's own time, known without making it again (what a catalog's summary reads).
		const time =
			message !== undefined &&
			(role === "user" || role === "assistant") &&
			"content" in message &&
			typeof message.timestamp === "number"
				? message.timestamp
				: undefined;
		this.lines.push(new Envelope(entry.type, entry.id, entry.parentId, entry.timestamp, role, index, 1, line, time));
	}
}

/** Makes the bodies of a streamed transcript's entries again, as JSON text (see {@link LineSource}). */
class TranscriptBodies implements LineSource {
	constructor(
		private readonly source: SourceName,
		private readonly lines: SourceLines,
		private readonly recipes: readonly Recipe[],
	) {}

	readLines(envelopes: readonly Envelope[]): string[] {
		// Every line the recipes name, read in one pass over the file.
		const refs = new Map<number, LineRef>();
		const recipes = envelopes.map((envelope) => {
			const recipe = this.recipes[envelope.offset];
			if (!recipe) throw new Error(`session-tree: no entry ${envelope.id} at ${envelope.offset} in this transcript`);
			for (const ref of refsOf(recipe)) refs.set(ref.offset, ref);
			return recipe;
		});
		const wanted = [...refs.values()];
		const texts = this.lines.read(wanted);
		const parsed = new Map<number, JsonLine>();
		wanted.forEach((ref, i) => {
			parsed.set(ref.offset, { n: ref.n, record: lineAgain(this.source, ref, texts[i]) });
		});
		const line = (ref: LineRef) => parsed.get(ref.offset) as JsonLine;
		return envelopes.map((envelope, i) => {
			const { id, parentId, timestamp } = envelope;
			return JSON.stringify(entryOf(this.source, { id, parentId, timestamp }, recipes[i] as Recipe, line));
		});
	}
}

/** The lines a recipe reads. */
function refsOf(recipe: Recipe): readonly LineRef[] {
	switch (recipe.kind) {
		case "assistant":
			return recipe.lines;
		case "boundary":
			return recipe.carrier ? [recipe.line, recipe.carrier] : [recipe.line];
		default:
			return [recipe.line];
	}
}
