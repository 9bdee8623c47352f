/**
 * The import of a Claude Code transcript file without holding it (`session-tree import FILE`):
 * the file is read line by line as a direct read reads it (claude-code-lazy.ts), keeping the
 * envelope of each entry and how to make its body again; the records are made from the file a
 * batch at a time as they are written, and let go. A transcript of 130 MiB so costs about twice
 * its size, where its text and every record held at once cost six times (docs/performance.md,
 * "Memory of direct reads").
 *
 * Only a new session is written that way. A re-run that finds the session stored already
 * compares every record with the stored ones: the records are made whole then (`records`).
 */

import { contextEntriesOf } from "../core/context.js";
import { loadTree } from "../core/load.js";
import type { ParsedLine, RawRecord } from "../core/records.js";
import { checkToolPairing, type ToolPairingReport } from "../core/tool-pairing.js";
import type { SessionEntry, SessionHeader } from "../core/types.js";
import { loadSteps } from "../session-log.js";
import type { StreamedTranscript } from "./claude-code-lazy.js";
import type { SourceLines } from "./source-lines.js";
import type { BatchedImport, ImportSkip } from "./types.js";

/** The entry types that make a session a conversation (see `holdsConversation` in index.ts). */
const CONVERSATION = new Set(["message", "custom_message", "compaction"]);

/** A Claude Code transcript file imported in a stream: a {@link BatchedImport} whose records are made when they are read. */
export class StreamedImport implements BatchedImport {
	readonly format = "claude-code" as const;
	readonly header: SessionHeader;
	readonly leafId: string | null;
	readonly skipped: readonly ImportSkip[];
	private made: SessionEntry[] | undefined;

	/**
	 * @param transcript the transcript read in a stream (its `read` lines: the header, the
	 *   entries, and the persisted-leaf record when there is one)
	 * @param lines the file's lines, open for the bodies until {@link close}
	 */
	constructor(
		private readonly transcript: StreamedTranscript,
		private readonly lines: SourceLines,
		private readonly file: string,
	) {
		this.header = transcript.header;
		this.leafId = transcript.leafId;
		this.skipped = transcript.skipped;
	}

	/** The lines of the entries: neither the header nor the persisted-leaf record. */
	private get entryLines(): readonly ParsedLine[] {
		const { lines } = this.transcript.read;
		return lines.slice(1, lines.length - (this.transcript.records.length - 1));
	}

	/** Every entry, made from the file on first use and kept (for what compares them with a stored session). */
	get records(): readonly SessionEntry[] {
		if (!this.made) {
			const made: SessionEntry[] = [];
			for (const batch of recordsOf(this.entryLines, this.transcript, RECORDS_AT_ONCE)) {
				for (const record of batch) made.push(record as unknown as SessionEntry);
			}
			this.made = made;
		}
		return this.made;
	}

	/** True when an entry is of a kind a model is sent, read from the envelopes (no body). */
	holdsConversation(): boolean {
		return this.entryLines.some((line) => CONVERSATION.has(String(line.envelope?.type ?? line.record?.type)));
	}

	/**
	 * The records the session is written as after its header (what `sessionRecords` gives for
	 * an import held in memory: the entries, then the persisted-leaf record if any), in batches
	 * of at most `size`: the bodies of a batch are made from the file when it is reached, and
	 * kept by none.
	 */
	recordsAfterHeader(size: number): Iterable<RawRecord[]> {
		return recordsOf(this.transcript.read.lines.slice(1), this.transcript, size);
	}

	/**
	 * The tool pairing of the context at the leaf (what `toolPairingOfRecords` tells of the
	 * records), read as a direct read reads it: the bodies of the context only, for this check.
	 */
	toolPairing(_location?: string): ToolPairingReport {
		const { read } = this.transcript;
		const { tree } = loadTree(read.lines, {
			lenient: true,
			file: this.file,
			...(read.source ? { source: read.source } : {}),
		});
		return checkToolPairing(contextEntriesOf(tree.getPath(), loadSteps));
	}

	/** Closes the file (a later read opens it again if it is still the same file). */
	close(): void {
		this.lines.close();
	}
}

/**
 * Records made from the file and written at once. Smaller than a copy's batch (1,000): on the
 * bench's 130 MiB transcript, batches of 200 peaked at 289 MiB and took 6.7 s of CPU, batches of
 * 1,000 at 321 MiB and 10.9 s (100: 302 MiB, 7.2 s).
 */
export const STREAMED_RECORD_BATCH = 200;

/** Records made at once when the whole import is asked for. */
const RECORDS_AT_ONCE = STREAMED_RECORD_BATCH;

/** The records of `lines` in batches of `size`, each envelope's body made from the file as its batch is reached. */
function* recordsOf(
	lines: readonly ParsedLine[],
	transcript: StreamedTranscript,
	size: number,
): Generator<RawRecord[]> {
	const source = transcript.read.source;
	for (let from = 0; from < lines.length; from += size) {
		const batch = lines.slice(from, from + size);
		const envelopes = batch.flatMap((line) => (line.envelope ? [line.envelope] : []));
		const texts = envelopes.length > 0 && source ? source.readLines(envelopes) : [];
		let next = 0;
		yield batch.map((line) => {
			if (!line.envelope) return line.record as RawRecord;
			return JSON.parse(texts[next++] as string) as RawRecord;
		});
	}
}
