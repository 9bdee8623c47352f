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

readLineChunks<PreviewChunk>(data, {
	begin: (base) => ({ ...base, kinds: [], previews: [] }),
	take(out, entry) {
		const description = describeEntry(entry);
		out.kinds.push(description.kind);
		out.previews.push(oneLine(description.text, data.options.previewLength));
		return true;
	},
});
