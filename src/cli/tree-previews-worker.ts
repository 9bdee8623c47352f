/**
 * The worker of tree-previews.ts: makes the previews of the file's entry lines from the last
 * chunk down (storage/line-chunks-reader.ts), each described and cut as `tree` does it
 * (`describeEntry`, `oneLine`). Nothing is written anywhere.
 */

import { workerData } from "node:worker_threads";
import { describeEntry, oneLine } from "../render/preview.js";
import type { LineChunkWorkerData } from "../storage/line-chunks.js";
import { readLineChunks } from "../storage/line-chunks-reader.js";
import type { PreviewChunk, PreviewOptions } from "./tree-previews.js";

const data = workerData as LineChunkWorkerData<PreviewOptions>;

/**
 * The chunk being read: its kinds and previews as UTF-8 in one buffer (grown as needed, used
 * again for the next chunk), and where each ends in it.
 */
let text = Buffer.allocUnsafeSlow(1 << 20);
const ends: number[] = [];
let length = 0;

/** Adds `value`'s UTF-8 to {@link text}. */
function add(value: string): void {
	const most = value.length * 3;
	if (length + most > text.length) {
		const grown = Buffer.allocUnsafeSlow(Math.max(text.length * 2, length + most));
		text.copy(grown, 0, 0, length);
		text = grown;
	}
	length += text.write(value, length);
	ends.push(length);
}

readLineChunks<PreviewChunk>(data, {
	begin(base) {
		ends.length = 0;
		length = 0;
		return { ...base, texts: new Uint8Array(0), textEnds: new Int32Array(0) };
	},
	take(_out, entry) {
		const description = describeEntry(entry);
		add(description.kind);
		add(oneLine(description.text, data.options.previewLength));
		return true;
	},
	finish(out) {
		// A copy of the bytes used (a Buffer's own slice would be a view of the shared one), its
		// buffer handed over with the message.
		out.texts = new Uint8Array(text.subarray(0, length));
		out.textEnds = Int32Array.from(ends);
	},
});
