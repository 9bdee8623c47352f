/**
 * The previews of `session-tree tree` made in a second thread.
 *
 * Printing the tree of a large session is mostly reading its bodies: every entry's line is
 * parsed for its one-line preview (for the bench's 100,000-entry session, 609 of the 1,570 ms
 * of a CPU profile were the bodies read and parsed, 269 the previews, most of the 204 of the
 * collector theirs). The open, the tree and the layout need none of it, and machines have two
 * cores or more. So a worker starts before the open and makes previews from the end of the
 * file towards its start, while this thread opens the session, lays the tree out and then
 * prints rows from the top: the two meet somewhere in the file, and each row's preview is made
 * once, by whichever thread got to its part of the file first. How the file is shared and what
 * of the worker's reading is used: storage/line-chunks.ts.
 */

import { availableParallelism } from "node:os";
import { viewLineOf } from "../core/tree-view.js";
import type { SessionTreeNode } from "../core/types.js";
import { DEFAULT_PREVIEW_LENGTH } from "../render/preview.js";
import type { TreePreviews } from "../render/tree-text.js";
import { type LineChunk, LineChunkThread } from "../storage/line-chunks.js";
import { startsAsPiSession } from "../storage/lines.js";
import { schemeOf } from "../storage/locations.js";

/**
 * Files smaller than this are read on one thread: starting the worker costs about 20 ms and the
 * open beside it runs slower, so `tree` of a 13.5 MB session took 596–623 ms with it against
 * 557–588 without; at 53 MB it took 1,284–1,319 against 1,307–1,562 (idle two-core machine).
 */
export const MIN_WORKER_BYTES = 32 << 20;

/** The worker's options (`LineChunkWorkerData.options`). */
export interface PreviewOptions {
	previewLength: number;
}

/**
 * What the worker posts for a chunk: for each entry line it kept, its kind and preview, two
 * fields a line in one buffer of UTF-8 (field `k` ends at byte `textEnds[k]`). Bytes, handed
 * over with the message, not strings: s100k's 65,000 previews from the worker were 11 MB of
 * strings made here at once when the worker's chunks were taken off the port, which the
 * collector then copied until each was printed (two young collections of 20–45 ms and a full
 * one, 50–70 ms in all); each preview is now decoded when its row is drawn.
 */
export interface PreviewChunk extends LineChunk {
	texts: Uint8Array;
	textEnds: Int32Array;
}

/** The worker's module, beside this one (dist/cli/ as compiled, dist/bin/ as bundled). */
const WORKER_URL = new URL("./tree-previews-worker.js", import.meta.url);

/** Previews made by a worker thread for `session-tree tree` (see the module's comment). */
export class TreePreviewThread implements TreePreviews {
	/** The chunk of the last row asked for, and a Buffer over its texts (rows come a chunk at a time). */
	private last: { chunk: PreviewChunk; bytes: Buffer } | undefined;

	private constructor(
		readonly previewLength: number,
		private readonly lines: LineChunkThread<PreviewChunk>,
	) {}

	/** Rows whose previews came from the worker (for tests and the bench's notes). */
	get served(): number {
		return this.lines.served;
	}

	/**
	 * Starts the worker on `file`, or gives undefined when it cannot or should not (no worker
	 * module beside this one, a file that cannot be read or is smaller than `minBytes`): the
	 * tree is then made here alone.
	 */
	static start(
		file: string,
		options: { previewLength: number; chunkBytes?: number; minBytes?: number },
	): TreePreviewThread | undefined {
		const lines = LineChunkThread.start<PreviewChunk, PreviewOptions>(file, {
			worker: WORKER_URL,
			options: { previewLength: options.previewLength },
			chunkBytes: options.chunkBytes,
			minBytes: options.minBytes,
		});
		return lines && new TreePreviewThread(options.previewLength, lines);
	}

	previewOf(node: SessionTreeNode): { kind: string; preview: string } | undefined {
		const line = viewLineOf(node);
		const found = line && this.lines.lineOf(line);
		if (!found) return undefined;
		const { chunk, at } = found;
		const { texts, textEnds } = chunk;
		const kindStart = at === 0 ? 0 : (textEnds[2 * at - 1] as number);
		const previewStart = textEnds[2 * at] as number;
		if (this.last?.chunk !== chunk)
			this.last = { chunk, bytes: Buffer.from(texts.buffer, texts.byteOffset, texts.byteLength) };
		const { bytes } = this.last;
		return {
			kind: bytes.toString("utf8", kindStart, previewStart),
			preview: bytes.toString("utf8", previewStart, textEnds[2 * at + 1] as number),
		};
	}

	/**
	 * Resolves once the worker has no chunk left to take or hold, within `limitMs`: lets a test
	 * see what the worker made before anything is printed.
	 * @internal
	 */
	settled(limitMs?: number): Promise<boolean> {
		return this.lines.settled(limitMs);
	}

	/** Stops the worker (its remaining chunks are moot once the tree is printed). */
	stop(): void {
		this.lines.stop();
	}
}

/**
 * The worker for `session-tree tree` of `location` printed whole as plain text, when it is a
 * pi session file (a path that starts as one) of {@link MIN_WORKER_BYTES} or more and the
 * machine has two cores or more: previews at the default length.
 */
export function previewThreadFor(location: string): TreePreviewThread | undefined {
	// One core: the two threads would take turns, and the worker's copies would be pure cost.
	if (availableParallelism() < 2) return undefined;
	if (schemeOf(location) !== undefined || !startsAsPiSession(location)) return undefined;
	return TreePreviewThread.start(location, { previewLength: DEFAULT_PREVIEW_LENGTH, minBytes: MIN_WORKER_BYTES });
}
